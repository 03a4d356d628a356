"""Sweeps over every upswitch command (issue 23): command: / args: parsing and errors, the flag
lists against the binary's --help, argv and run ids, and real coll / workload / p2p / table /
replay sweeps with resume, tidy tables, seed aggregates and their report plots."""
from __future__ import annotations

import csv
import json
import math
import re
import subprocess
from pathlib import Path

import pytest
import yaml

from conftest import REPO, run_sweep, write_sweep
from test_report import check_png
from upswitch_sweep import commands, stats
from upswitch_sweep import plan as planmod
from upswitch_sweep import spec as specmod

VERSION = "upswitch 1.2.3 (test)"
COLL = REPO / "configs" / "sweeps" / "coll-tiny.yaml"
WORKLOAD = REPO / "configs" / "sweeps" / "workload-tiny.yaml"
TRACE = REPO / "configs" / "traces" / "example.jsonl"


def parse(text: str, tmp: Path | None = None):
    return specmod.parse(yaml.safe_load(text), (tmp or Path("/nonexistent")) / "s.yaml")


def read_csv(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


# ------------------------------------------------------------------ flag lists vs --help
# A value's type as --help prints it: TEXT, INT, UINT, FLOAT, or a numeric flag's range
# (app/numeric_flags.h): `INT in [1 - 1024]`, `INT,... in [..]`, `SIZE in [..]`, `auto|SIZE in [..]`.
HELP_FLAG = re.compile(r"^\s+(?:-(\w),)?--([\w-]+)(?:\s+((?:auto\|)?(?:TEXT|INT|UINT|FLOAT|SIZE))\b)?")


def help_flags(upswitch, command: str) -> tuple[dict, list]:
    """long name -> (short alias, takes a value) and the positionals, from `COMMAND --help`."""
    text = subprocess.run([str(upswitch), command, "--help"], capture_output=True, text=True, check=True).stdout
    flags, positionals, section = {}, [], None
    for line in text.splitlines():
        if line.rstrip().endswith(":") and not line.startswith(" "):
            section = line.strip().rstrip(":")
            continue
        if section == "Positionals":
            m = re.match(r"^\s+(\w+)\s+(TEXT|INT|UINT|FLOAT)", line)
            if m:
                positionals.append(m.group(1))
        elif section == "Options":
            m = HELP_FLAG.match(line)
            if m:
                flags[m.group(2)] = (m.group(1), m.group(3) is not None)
    return flags, positionals


@pytest.mark.parametrize("name", sorted(commands.COMMANDS))
def test_flag_lists_match_the_binary_help(upswitch, name):
    cmd = commands.COMMANDS[name]
    flags, positionals = help_flags(upswitch, name)
    assert flags, f"no flags parsed from `upswitch {name} --help`"
    ours = {f.name: (f.short, f.value) for f in cmd.flags}
    theirs = {k: v for k, v in flags.items() if k not in commands.MANAGED_FLAGS}
    assert ours == theirs, f"commands.py's flags of {name} differ from --help"
    assert positionals == ([cmd.positional] if cmd.positional else [])
    assert ("seed" in flags) == (cmd.seed == "flag"), f"{name}: how the seed is passed"
    assert "out" in flags and "set" in flags and "preset" in flags and "config" in flags


def test_every_command_writes_its_summary_file(upswitch, tmp_path):
    """The JSON each command writes into --out is the one commands.py reads."""
    for name in ("coll", "p2p"):
        out = tmp_path / name
        argv = [str(upswitch), name, "--preset", "tiny", "--out", str(out), "--quiet"]
        argv += ["-b", "4K", "-e", "4K", "--algo", "ring"] if name == "coll" else ["--ops", "read", "--max-bytes", "64"]
        subprocess.run(argv, check=True, capture_output=True)
        assert (out / commands.COMMANDS[name].summary).is_file()


# ------------------------------------------------------------------ parsing, argv, run ids
def test_default_command_is_run_and_ids_do_not_change():
    base = "base: {preset: tiny}\nvary: {traffic.rate: [0.2, 0.5]}\nseeds: [1, 2]\n"
    a = planmod.expand(parse(base), VERSION)
    b = planmod.expand(parse("command: run\nargs: {}\n" + base), VERSION)
    assert [r.run_id for r in a] == [r.run_id for r in b]
    assert a[0].argv[0] == "run" and a[0].argv[-2:] == ["--seed", "1"]
    k = planmod.expand(parse("command: run\nargs: {kernel: plain}\n" + base), VERSION)
    assert k[0].run_id != a[0].run_id and ["--kernel", "plain"] == k[0].argv[-4:-2]


def test_coll_argv_flags_seed_and_varied_args():
    s = parse("""
command: coll
args: {coll: all_reduce, algo: [ring, switch], b: 4K, max_bytes: 64M, no-check: true}
base: {preset: tiny}
set: {reduce.contexts: 64}
vary: {args.ranks: [4, 8], link.latency_cycles: [4]}
seeds: [3]
""")
    assert s.command == "coll" and s.param_keys == ["args.ranks", "link.latency_cycles"]
    assert s.args == {"coll": "all_reduce", "algo": ["ring", "switch"], "min-bytes": "4K", "max-bytes": "64M",
                      "no-check": True}
    runs = planmod.expand(s, VERSION)
    assert runs[0].argv == ["coll", "--preset", "tiny", "--set", "link.latency_cycles=4", "--set",
                            "reduce.contexts=64", "--algo", "ring,switch", "--coll", "all_reduce", "--max-bytes",
                            "64M", "--min-bytes", "4K", "--no-check", "--ranks", "4", "--set", "sim.seed=3"]
    assert runs[0].params == {"args.ranks": 4, "link.latency_cycles": 4}
    assert runs[0].run_id != runs[1].run_id
    # the same flag spelled -b or --min-bytes is the same run
    same = planmod.expand(parse("command: coll\nargs: {min-bytes: 4K}\nvary: {args.ranks: [4]}"), VERSION)
    short = planmod.expand(parse("command: coll\nargs: {b: 4K}\nvary: {args.ranks: [4]}"), VERSION)
    assert same[0].run_id == short[0].run_id
    # a bare flag given false is left out, and differs from true
    off = planmod.expand(parse("command: coll\nvary: {args.no-check: [true, false]}"), VERSION)
    assert "--no-check" in off[0].argv and "--no-check" not in off[1].argv


def test_default_outputs_and_rows_per_command():
    for name, cmd in commands.COMMANDS.items():
        text = f"command: {name}\nvary: {{sim.warmup_cycles: [1]}}\n"
        if cmd.positional:
            text += f"args: {{{cmd.positional}: {TRACE}}}\n"
        s = parse(text)
        assert s.outputs == cmd.outputs and s.rows == cmd.rows
    s = parse("command: coll\nvary: {args.ranks: [4]}\nrows: {t: {from: /rows, keys: [bytes], values: [time_us]}}")
    assert s.rows["t"].to_json() == {"from": "/rows", "keys": ["bytes"], "values": ["time_us"]}


def test_replay_trace_is_relative_to_the_sweep_file_and_hashed(tmp_path):
    (tmp_path / "t").mkdir()
    trace = tmp_path / "t" / "a.jsonl"
    trace.write_text(TRACE.read_text())
    text = "command: replay\nargs: {trace: t/a.jsonl}\nvary: {switch.vcs: [2]}\n"
    r1 = planmod.expand(parse(text, tmp_path), VERSION)
    assert r1[0].argv[:2] == ["replay", str(trace)] and r1[0].argv[-2:] == ["--seed", "1"]
    other = tmp_path / "elsewhere"
    other.mkdir()
    (other / "t").mkdir()
    (other / "t" / "a.jsonl").write_text(TRACE.read_text())
    assert planmod.expand(parse(text, other), VERSION)[0].run_id == r1[0].run_id  # content, not path
    trace.write_text(TRACE.read_text() + "\n")
    assert planmod.expand(parse(text, tmp_path), VERSION)[0].run_id != r1[0].run_id
    varied = planmod.expand(parse("command: replay\nvary: {args.trace: [t/a.jsonl]}\n", tmp_path), VERSION)
    assert varied[0].argv[1] == str(trace)


def test_replay_chakra_prefix_is_relative_to_the_sweep_file_and_hashed(tmp_path):
    (tmp_path / "c").mkdir()
    for r in range(2):
        (tmp_path / "c" / f"w.{r}.et").write_bytes(bytes([r, 1, 2]))
    text = "command: replay\nargs: {chakra: c/w}\nvary: {switch.vcs: [2]}\n"
    r1 = planmod.expand(parse(text, tmp_path), VERSION)
    argv = r1[0].argv
    assert argv[0] == "replay" and argv[argv.index("--chakra") + 1] == str(tmp_path / "c" / "w")
    (tmp_path / "c" / "w.1.et").write_bytes(b"changed")
    r2 = planmod.expand(parse(text, tmp_path), VERSION)
    assert r2[0].run_id != r1[0].run_id  # a rank file's content is in the id
    (tmp_path / "c" / "w.groups.json").write_text("{}")
    assert planmod.expand(parse(text, tmp_path), VERSION)[0].run_id != r2[0].run_id  # and the groups file's
    (tmp_path / "c" / "w.2.et").write_bytes(b"")
    assert planmod.expand(parse(text, tmp_path), VERSION)[0].run_id != r2[0].run_id  # and how many ranks


@pytest.mark.parametrize("text, key, needle", [
    ("command: replay\nvary: {a.b: [1]}", "args.trace", "needs a trace file or args.chakra"),
    ("command: replay\nargs: {chakra: nowhere/w}\nvary: {a.b: [1]}", "args.chakra", "w.0.et is not a regular file"),
    ("command: workload\nargs: {chakra: w}\nvary: {a.b: [1]}", "args.chakra", "cannot be swept: it writes Chakra traces"),
    ("command: replay\nargs: {chakra: 3}\nvary: {a.b: [1]}", "args.chakra", "must be a file path"),
])
def test_chakra_arguments_in_sweeps_are_checked(tmp_path, text, key, needle):
    with pytest.raises(specmod.SpecError) as e:
        parse(text, tmp_path)
    assert e.value.key == key and needle in str(e.value), str(e.value)
    assert len(str(e.value).splitlines()) == 1


def test_replay_sweep_over_chakra_traces_runs(tmp_path, upswitch):
    """A workload written as Chakra traces, replayed over a swept link latency."""
    (tmp_path / "c").mkdir()
    subprocess.run([str(upswitch), "workload", "--preset", "tiny", "--set", "workload.kind=tp", "--set",
                    "tp.group_size=4", "--set", "tp.layers=1", "--quiet", "--chakra", str(tmp_path / "c" / "tp")],
                   check=True)
    sweep = write_sweep(tmp_path / "chakra.yaml", "command: replay\nargs: {chakra: c/tp}\nbase: {preset: tiny}\n"
                                                  "vary: {link.latency_cycles: [64, 512]}\n")
    out = tmp_path / "out"
    r = run_sweep("run", sweep, "--out", out, "--upswitch", upswitch, check=0)
    rows = read_csv(out / "results.csv")
    assert {x["status"] for x in rows} == {"ok"}, r.stderr
    end = {}
    for x in rows:
        end[x["link.latency_cycles"]] = max(end.get(x["link.latency_cycles"], 0.0), float(x["end_us"]))
    assert end["512"] > end["64"], end  # the longer links show in the replayed schedule


@pytest.mark.parametrize("text, key, needle", [
    ("command: collective\nvary: {a.b: [1]}", "command", "unknown command 'collective' (allowed: run, coll"),
    ("command: 3\nvary: {a.b: [1]}", "command", "unknown command 3"),
    ("command: coll\nargs: {rank: 8}\nvary: {a.b: [1]}", "args.rank", "unknown flag 'rank' for `upswitch coll`"),
    ("command: coll\nargs: {seed: 3}\nvary: {a.b: [1]}", "args.seed", "set by the sweep tool (list the seeds"),
    ("command: coll\nargs: {out: x}\nvary: {a.b: [1]}", "args.out", "set by the sweep tool"),
    ("command: coll\nargs: {no-check: 1}\nvary: {a.b: [1]}", "args.no-check", "bare flag: true or false"),
    ("command: coll\nargs: [ranks]\nvary: {a.b: [1]}", "args", "must be a mapping"),
    ("command: coll\nargs: {b: 4K, min-bytes: 8K}\nvary: {a.b: [1]}", "args.min-bytes", "names --min-bytes again"),
    ("command: workload\nvary: {args.ranks: [4, 8]}", "vary.args.ranks", "unknown flag 'ranks' for `upswitch workload`"),
    ("command: coll\nargs: {ranks: 4}\nvary: {args.ranks: [4, 8]}", "vary.args.ranks", "both varied and fixed"),
    ("command: coll\nset: {args.ranks: 4}\nvary: {a.b: [1]}", "set.args.ranks", "give it under args:"),
    ("command: replay\nvary: {a.b: [1]}", "args.trace", "missing (`upswitch replay` needs a trace file or args.chakra)"),
    ("command: replay\nargs: {trace: nope.jsonl}\nvary: {a.b: [1]}", "args.trace", "is not a regular file"),
    ("command: coll\nvary: {a.b: [1]}\nrows: {t: {from: rows, values: [x]}}", "rows.t.from", "JSON pointer"),
    ("command: coll\nvary: {a.b: [1]}\nrows: {t: {from: /rows, values: []}}", "rows.t.values", "non-empty list"),
    ("command: coll\nvary: {a.b: [1]}\nrows: {t: {from: /rows, keys: [a.b], values: [x]}}", "rows.t.keys",
     "clashes"),
])
def test_bad_command_or_args_names_the_key(text, key, needle):
    with pytest.raises(specmod.SpecError) as e:
        parse(text)
    assert e.value.key == key and needle in str(e.value), str(e.value)
    assert len(str(e.value).splitlines()) == 1


@pytest.mark.parametrize("text, needle", [
    ("command: bogus\nvary: {a.b: [1]}\n", "command: unknown command 'bogus'"),
    ("command: coll\nargs: {ranks: 8, frobnicate: true}\nvary: {a.b: [1]}\n", "args.frobnicate: unknown flag"),
])
def test_cli_bad_command_or_args_exits_2_with_one_line_before_running(tmp_path, text, needle):
    f = write_sweep(tmp_path / "bad.yaml", text)
    for sub in ("plan", "run"):
        r = run_sweep(sub, f, "--out", tmp_path / "out", "--upswitch", "/nonexistent/upswitch")
        assert r.returncode == 2, r.stderr
        assert len(r.stderr.strip().splitlines()) == 1 and needle in r.stderr, r.stderr
        assert str(f) in r.stderr
    assert not (tmp_path / "out").exists()


# ------------------------------------------------------------------ confidence intervals
def test_confidence_interval_against_hand_computed_values():
    assert stats.t_quantile(0.975, 1) == pytest.approx(12.706204736174698, rel=1e-9)
    assert stats.t_quantile(0.975, 2) == pytest.approx(4.302652729911275, rel=1e-9)
    assert stats.t_quantile(0.975, 4) == pytest.approx(2.7764451051977987, rel=1e-9)
    assert stats.t_quantile(0.975, 30) == pytest.approx(2.0422724563012373, rel=1e-9)
    mean, half, n = stats.mean_ci([1, 2, 3])
    assert (mean, n) == (2.0, 3)
    assert half == pytest.approx(4.302652729911275 * 1.0 / math.sqrt(3), rel=1e-9)  # s = 1
    mean, half, n = stats.mean_ci([10.0, 14.0])  # s = 2.828..., t(0.975, 1) = 12.706
    assert mean == 12.0 and half == pytest.approx(12.706204736174698 * math.sqrt(8) / math.sqrt(2), rel=1e-9)
    assert stats.mean_ci([5.0]) == (5.0, None, 1)
    assert stats.mean_ci([None, "x"]) == (None, None, 0)
    assert stats.mean_ci([True, False]) == (0.5, pytest.approx(12.706204736174698 * math.sqrt(0.5) / math.sqrt(2)), 2)
    assert stats.mean_ci([7, 7, 7])[1] == 0.0


# ------------------------------------------------------------------ real sweeps
def test_coll_sweep_runs_resumes_merges_tidy_rows_and_plots(tmp_path, upswitch):
    out = tmp_path / "coll"
    r = run_sweep("run", COLL, "--out", out, "--upswitch", upswitch, check=0)
    assert "4/4 done" in r.stderr and "0 failed" in r.stderr
    rows = read_csv(out / "results.csv")
    head = ["index", "run_id", "link.latency_cycles", "args.ranks", "seed", "status", "exit_code", "error",
            "collective", "algorithm", "protocol", "channels", "selection", "ranks", "bytes", "time_us", "algbw_gbytes_per_s",
            "busbw_gbytes_per_s"]
    assert list(rows[0])[:len(head)] == head
    # 4 points x (2 algorithms x 4 sizes), each row the run's coll.json row
    assert len(rows) == 32 and {x["status"] for x in rows} == {"ok"}
    plan = json.loads((out / "plan.json").read_text())
    for x in rows:
        assert x["ranks"] == x["args.ranks"]
        coll = json.loads((out / "runs" / x["run_id"] / "coll.json").read_text())
        match = [c for c in coll["rows"] if c["algorithm"] == x["algorithm"] and str(c["bytes"]) == x["bytes"]]
        assert len(match) == 1 and float(x["busbw_gbytes_per_s"]) == match[0]["busbw_gbytes_per_s"]
        run = plan["runs"][int(x["index"])]
        assert run["argv"][0] == "coll" and "--ranks" in run["argv"] and "sim.seed=1" in run["argv"]
    doc = json.loads((out / "results.json").read_text())
    assert doc["command"] == "coll" and len(doc["tables"]["coll"]["rows"]) == 32
    assert not (out / "results_agg.csv").exists()  # one seed: nothing to aggregate

    before = {p: p.stat().st_mtime_ns for p in (out / "runs").glob("*/result.json")}
    csv1 = (out / "results.csv").read_bytes()
    r = run_sweep("run", COLL, "--out", out, "--upswitch", upswitch, check=0)
    assert "4 cached, 0 to run" in r.stderr
    assert {p: p.stat().st_mtime_ns for p in (out / "runs").glob("*/result.json")} == before
    assert (out / "results.csv").read_bytes() == csv1

    r = run_sweep("report", out, check=0)
    check_png(out / "report" / "coll_busbw.png", (1200, 500))
    assert "](coll_busbw.png)" in (out / "report" / "report.md").read_text()


def test_workload_sweep_with_seeds_aggregates_mean_and_ci(tmp_path, upswitch):
    out = tmp_path / "wl"
    run_sweep("run", WORKLOAD, "--out", out, "--upswitch", upswitch, check=0)
    rows = read_csv(out / "results.csv")
    assert len(rows) == 6 and {x["status"] for x in rows} == {"ok"}
    assert list(rows[0])[7:11] == ["cycles", "workload", "group", "step"] and "time_us" in rows[0]
    phases = read_csv(out / "results_phases.csv")
    assert {x["phase"] for x in phases} == {"dispatch", "combine"}
    agg = read_csv(out / "results_agg.csv")
    assert [x["moe.zipf_s"] for x in agg] == ["0.0", "1.0", "2.0"]
    for a in agg:
        runs = [float(x["time_us"]) for x in rows if x["moe.zipf_s"] == a["moe.zipf_s"]]
        mean, half, n = stats.mean_ci(runs)
        assert a["n_runs"] == "2" and n == 2
        assert float(a["time_us_mean"]) == pytest.approx(mean) and float(a["time_us_ci95"]) == pytest.approx(half)
    assert runs[0] != runs[1], "the seed does not reach the gating draws"
    assert (out / "results_phases_agg.csv").exists()
    agg_doc = json.loads((out / "results_agg.json").read_text())
    assert agg_doc["level"] == 0.95 and set(agg_doc["tables"]) == {"steps", "phases"}

    r = run_sweep("run", WORKLOAD, "--out", out, "--upswitch", upswitch, check=0)
    assert "6 cached, 0 to run" in r.stderr
    run_sweep("report", out, check=0)
    for name in ("workload_step_time_vs_moe_zipf_s.png", "workload_phase_time_vs_moe_zipf_s.png"):
        check_png(out / "report" / name, (800, 500))

    # one seed now: the aggregates of the earlier merge go, a file of the user's stays
    (out / "results_mine.csv").write_text("x\n")
    one = write_sweep(tmp_path / "one.yaml", WORKLOAD.read_text().replace("seeds: [1, 2]", "seeds: [1]"))
    r = run_sweep("run", one, "--out", out, "--upswitch", upswitch, check=0)
    assert "3 cached, 0 to run" in r.stderr
    assert sorted(p.name for p in out.glob("results*")) == ["results.csv", "results.json", "results_mine.csv",
                                                           "results_phases.csv"]
    assert len(read_csv(out / "results.csv")) == 3


def test_p2p_table_and_replay_sweeps_run(tmp_path, upswitch):
    (tmp_path / "traces").mkdir()
    (tmp_path / "traces" / "t.jsonl").write_text(TRACE.read_text())
    cases = {
        "p2p": ("command: p2p\nargs: {ops: 'read,write', max-bytes: 1024}\nbase: {preset: tiny}\n"
                "vary: {accel.mem_latency_cycles: [96, 192]}\nseeds: [1, 2]\n", "results.csv", 2 * 2 * 2 * 9),
        "table": ("command: table\nargs: {coll: all_reduce, algo: ring, ranks: 4, b: 4K, e: 16K, p2p-max-bytes: 1024,"
                  " moe-tokens: 16, moe-skews: 0, loaded-sizes: 64}\nbase: {preset: tiny}\n"
                  "vary: {link.latency_cycles: [4]}\n", "results.csv", None),
        "replay": ("command: replay\nargs: {trace: traces/t.jsonl}\nvary: {link.latency_cycles: [64, 128]}\n",
                   "results.csv", 2 * 7),
    }
    for name, (text, f, n) in cases.items():
        sweep = write_sweep(tmp_path / f"{name}.yaml", text)
        out = tmp_path / name
        r = run_sweep("run", sweep, "--out", out, "--upswitch", upswitch, check=0)
        rows = read_csv(out / f)
        assert {x["status"] for x in rows} == {"ok"}, r.stderr
        if n is not None:
            assert len(rows) == n, name
        r = run_sweep("run", sweep, "--out", out, "--upswitch", upswitch, check=0)
        assert " 0 to run" in r.stderr
        run_sweep("report", out, check=0)
    check_png(tmp_path / "p2p" / "report" / "p2p_latency_bandwidth.png", (1200, 500))
    assert read_csv(tmp_path / "p2p" / "results_agg.csv")[0]["n_runs"] == "2"
    fits = read_csv(tmp_path / "table" / "results.csv")
    assert {x["kind"] for x in fits} == {"coll", "p2p"} and all(x["alpha_us"] for x in fits)
    assert "no plots for `upswitch replay` sweeps" in (tmp_path / "replay" / "report" / "report.md").read_text()
