#!/usr/bin/python3
"""Command-line fuzzer for upswitch (issue "hard edges"): random but plausible invocations of
every subcommand, built from the binary's own parameter table (`upswitch keys`), with extreme and
wrong values, flag combinations and odd paths, each checked against the command-line contract:

  * exit status 0, 2, 3 (only with "deadlock" on stderr) or 130; never a signal;
  * no Python or C++ crash text on stderr (traceback, terminate, abort, sanitizer report);
  * on exit 2: exactly one non-empty stderr line, and nothing written into --out;
  * a numeric flag's value outside the range its subcommand's --help prints (INT/FLOAT/SIZE
    in [lo - hi]; zero, negative, huge, fractional and non-numeric values are generated for
    every one of them): exit 2, one `upswitch: error:` line, nothing on stdout, no --out
    folder; a case that changes only that flag must name the flag and the value;
  * peak RSS (os.wait4) under --max-rss-mib, with the address space capped at twice that.

Usage: cli_fuzz.py --bin BUILD/upswitch [--seconds N] [--seed S] [--findings FILE]
                   [--regressions FILE] [--regressions-only]
Prints `cli_fuzz: N invocations, K findings` and exits 1 when there are findings. The regression
cases (tests/cli_fuzz/regressions.txt: one invocation per line, `@OUT`, `@DIR`, `@FILE`, `@FIFO`
stand for scratch paths) run first. doc/reliability.md, "Command-line fuzzing".
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import net_inputs  # hostile topology files, Chakra traces, faults, placements, threads (issue 58 item 6)

CRASH_TEXT = ("Traceback", "terminate called", "Aborted", "Segmentation fault", "AddressSanitizer",
              "runtime error:", "uncaught exception", "std::bad_alloc", "core dumped")
# A run these keys or flags make long is allowed to time out (it asked for a long run).
LONG = re.compile(r"cycles|bytes|tokens|hidden|steps|layers|ports|latency|sizes|rate|load|units|flits|vcs|"
                  r"experts|top_k|groups|contexts|outstanding|-b |-e |--max-bytes|--min-bytes|ranks|"
                  r"window|footprint|memory|jobs|mix|packet")


def parse_keys(binary: str) -> list[dict]:
    out = subprocess.run([binary, "keys"], capture_output=True, text=True, check=True).stdout
    keys = []
    for line in out.splitlines():
        m = re.match(r"(\S+) = (.*?)  \[([^;\]]*)(?:; ([^\]]*))?\]", line)
        if m:
            keys.append({"key": m.group(1), "default": m.group(2), "type": m.group(3).split(",")[0].strip(),
                         "allowed": m.group(4) or ""})
    return keys


def numbers(allowed: str) -> list[str]:
    return re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", allowed)


def value_for(rng: random.Random, k: dict) -> str:
    """A value for key k: mostly plausible, often at or past an edge, sometimes nonsense."""
    nums = numbers(k["allowed"])
    edge = []
    for n in nums[:2]:
        try:
            x = float(n)
        except ValueError:
            continue
        edge += [n, str(int(x) + 1) if x == int(x) else str(x * 1.01), str(int(x) - 1) if x == int(x) else str(x * 0.99)]
    words = [w.strip() for w in re.split(r"[,;]", k["allowed"]) if w.strip() and " " not in w.strip()]
    odd = ["", "-1", "0", "1e308", "nan", "inf", "-inf", "99999999999999999999", "abc", "1,2,3", " 4 ", "é", "0x10",
           "true", "1.5", "[]", "[1", "null"]
    pool = [k["default"]] * 3 + edge * 2 + words * 2 + odd
    if k["type"] == "int-list":
        pool += ["[0,1]", "0,0,1,1,0,0,1,1", "[" + ",".join(str(rng.randrange(0, 9)) for _ in range(rng.randrange(1, 9))) + "]"]
    if k["type"] == "string":
        pool += ["1@0", "3@100-200", "0=1e-3", "1:up@50", "read:1,write:1", "atomic_r:1", "64:1,4096:1", "@FILE"]
    return rng.choice(pool)


BASE = {
    "run": ["run", "--preset", "tiny", "--set", "sim.measure_cycles=500", "--set", "sim.warmup_cycles=100"],
    "coll": ["coll", "--preset", "tiny", "--ranks", "4", "-b", "256", "-e", "4K", "--jobs", "1"],
    "p2p": ["p2p", "--preset", "tiny", "--max-bytes", "1024", "--measure-cycles", "500", "--warmup-cycles", "100",
            "--pair-measure-cycles", "500", "--pair-warmup-cycles", "100", "--jobs", "1"],
    "workload": ["workload", "--preset", "tiny", "--set", "moe.tokens=16", "--set", "tp.seq_len=64", "--set",
                 "tp.hidden=256"],
    "replay": ["replay", "@TRACE", "--preset", "tiny"],
    "table": ["table", "--preset", "tiny", "--ranks", "2", "-b", "256", "-e", "1K", "--moe-tokens", "8",
              "--loaded-sizes", "256", "--p2p-max-bytes", "256", "--jobs", "1"],
    "cosim": ["cosim", "--preset", "tiny", "--packets", "200"],
}
HAS_OUT = {"run", "coll", "p2p", "workload", "replay", "table"}
FLAG_VALUES = {
    "--seed": ["-1", "0", "18446744073709551616", "x", "3"],
    "--jobs": ["0", "-1", "3", "x"],
    "--ranks": ["0", "1", "3", "9", "2,4", "x", "4,", "-2", "2,2"],
    "--astra-units": ["binary", "decimal", "hex", ""],
    "-b": ["0", "1", "8", "1G", "5X", "-1"],
    "-e": ["4", "64", "1K", "2T", "x"],
    "--coll": ["all", "all_to_all", "broadcast", "nope", "all_reduce,all_gather"],
    "--algo": ["all", "ring", "switch", "oneshot", "x"],
    "--type": ["f16", "bf16", "s64", "f128"],
    "--op": ["max", "xor", "x"],
    "--preset": ["slotted", "nvl72-plane", "tiny", "huge"],
    "--config": ["@DIR", "/dev/zero", "/proc/self/mem", "@FIFO", "/nonexistent.yaml", "@YAML"],
    "--out": ["@FILE/x", "/proc/no", "/dev/null", "@OUT", ""],
    "--load": ["nan", "1.5", "-0.1", "0.3"],
    "--kernel": ["plain", "x"],
    "--chakra": ["@FILE", "@DIR/x", "/nonexistent/p", "@FIFO", "@ET"],
    "--chakra-groups": ["@FILE", "@YAML", "@FIFO", "/nonexistent.json"],
}
YAMLS = ["switch:\n  ports: 8\nswitch.ports: 16\n", "preset: slotted\n", "sim: {seed: 1, seed: 2}\n",
         "switch:\n  ports: [1\n", "traffic:\n  rate: 0.3\n", "a: &a [*a]\n", "switch: {ports: 99999999999999999999}\n",
         "\xff\xfe\n", "sim:\n  measure_cycles: 300\n"]
TRACES = ['{"id": "a", "op": "write", "src": 0, "dst": 1, "bytes": 4096}\n',
          '{"id": "ar", "op": "all_reduce", "ranks": [0, 1, 2, 3], "bytes": 4096}\n',
          '{"id": "a", "op": "read", "src": 0, "dst": 9, "bytes": 64}\n', '{"id": "a"\n', '\n\n',
          '{"id": "a", "op": "write", "src": 0, "dst": 1, "bytes": 1e400}\n']


# --- Numeric flags (issue 58 item 2): ranges parsed from each subcommand's --help, such as
# `--packets INT in [1 - 10000000]`, `-b,--min-bytes SIZE in [1 - 1T]`, `--load FLOAT in (0 - 1]`,
# `--slice-bytes auto|SIZE in [256 - 1G]`, `--ranks INT,... in [1 - 4096]`, `--moe-skews FLOAT,... in [0 - 10]`.
NUMERIC_HELP = re.compile(r"^\s+(?:(-\w),)?(--[\w-]+) (auto\|)?(INT,\.\.\.|FLOAT,\.\.\.|INT|FLOAT|SIZE) in ([\[(])(\S+) - (\S+)\]",
                          re.M)
SIZE_UNITS = {"": 0, "k": 10, "m": 20, "g": 30, "t": 40}
NUMERIC: dict[str, list[dict]] = {}  # subcommand -> its numeric flags
NUMERIC_CASES: set[tuple] = set()   # generated cases that change one numeric flag only


def size_value(text: str) -> int | None:
    m = re.fullmatch(r"(\d+)([KkMmGgTt]?)", text)
    return int(m.group(1)) << SIZE_UNITS[m.group(2).lower()] if m else None


def parse_numeric_flags(binary: str, commands: list[str]) -> dict[str, list[dict]]:
    out = {}
    for cmd in commands:
        text = subprocess.run([binary, cmd, "--help"], capture_output=True, text=True).stdout
        flags = []
        for m in NUMERIC_HELP.finditer(text):
            kind = m.group(4)
            conv = float if kind.startswith("FLOAT") else size_value if kind == "SIZE" else int
            flags.append({"short": m.group(1), "flag": m.group(2), "auto": bool(m.group(3)), "kind": kind,
                          "lo_open": m.group(5) == "(", "lo": conv(m.group(6)), "hi": conv(m.group(7))})
        out[cmd] = flags
    return out


def numeric_in_range(f: dict, text: str) -> bool:
    """Whether the binary must take `text` for flag f (numeric_flags.cpp's grammar)."""
    def within(v) -> bool:
        return (f["lo"] < v if f["lo_open"] else f["lo"] <= v) and v <= f["hi"]
    if f["kind"] == "INT":
        return bool(re.fullmatch(r"[+-]?\d+", text)) and within(int(text))
    if f["kind"] == "INT,...":
        return all(re.fullmatch(r"[+-]?\d+", t) and within(int(t)) for t in text.split(","))
    if f["kind"] == "FLOAT,...":
        return all(numeric_in_range(dict(f, kind="FLOAT"), t) for t in text.split(","))
    if f["kind"] == "SIZE":
        if f["auto"] and text == "auto":
            return True
        v = size_value(text)
        return v is not None and within(v)
    if not re.fullmatch(r"[0-9+\-.eE]+", text):  # FLOAT: decimal notation only
        return False
    try:
        v = float(text)
    except ValueError:
        return False
    return v == v and abs(v) != float("inf") and within(v)


def numeric_value(rng: random.Random, f: dict) -> str:
    """Mostly outside the range: zero, negative, past the top, huge, fractional, not a number."""
    lo, hi = f["lo"], f["hi"]
    pool = ["0", "-1", "-5", "99999999999999999999", "-99999999999999999999", "1.5", "0.5", "abc", "", " 4", "0x10",
            "1e3", "nan", "inf", "4,", "9223372036854775808", "18446744073709551616"]
    if f["kind"].startswith("FLOAT"):
        pool += [str(hi * 1.5), str(hi + 1), "1e400", "-1e-9", "-inf", "1,5", str(lo), str(hi), str((lo + hi) / 2)]
    else:
        pool += [str(int(lo) - 1), str(int(hi) + 1), str(-int(hi)), str(int(lo)) + ".0"]
    if f["kind"] == "SIZE":
        pool += ["-1K", "1.5K", "4X", "K", "1KB", "2T", "1024T", "99999999999999999999K", "auto" if not f["auto"] else "Auto"]
    if f["kind"].endswith(",..."):
        pool += ["2,-4", "2,2.5", ",4", "2,,4", f"2,{int(hi) + 1}"]
    if rng.random() < 0.2:  # in range too: the low edge, one above it
        return rng.choice([str(lo), str(lo + 1) if not f["kind"].startswith("FLOAT") else str(min(hi, lo + 0.5))])
    return rng.choice(pool)


def numeric_case(rng: random.Random, cmd: str, args: list[str]) -> list[str]:
    """The subcommand's base invocation with one numeric flag's value replaced or added."""
    f = rng.choice(NUMERIC[cmd])
    value = numeric_value(rng, f)
    for i, a in enumerate(args[:-1]):
        if a in (f["flag"], f["short"]):
            args[i + 1] = value
            break
    else:
        args += [f["flag"], value]
    if cmd in HAS_OUT and "--out" not in args:
        args += ["--out", "@OUT"]
    NUMERIC_CASES.add(tuple(args))
    return args


def numeric_problems(r: dict, paths: dict) -> list[str]:
    """The oracle: a value outside the printed range is exit 2, one line, nothing written."""
    args = r["args"]
    flags = NUMERIC.get(args[0] if args else "", [])
    bad = []
    for i, a in enumerate(args[:-1]):
        for f in flags:
            if a in (f["flag"], f["short"]) and not numeric_in_range(f, args[i + 1]):
                bad.append((f["flag"], args[i + 1]))
    if not bad or r["timed_out"]:
        return ["timeout on a value outside the range"] if bad else []
    problems = []
    lines = [x for x in r["stderr"].splitlines() if x.strip()]
    if r["rc"] != 2:
        problems.append(f"{bad[0][0]} {bad[0][1]!r} outside the range: exit status {r['rc']}, not 2")
    elif len(lines) != 1 or not lines[0].startswith("upswitch: error: "):
        problems.append(f"{bad[0][0]} {bad[0][1]!r} outside the range: not one `upswitch: error:` line")
    elif tuple(args) in NUMERIC_CASES and (bad[0][0] not in lines[0] or bad[0][1].strip() not in lines[0]):
        problems.append(f"{bad[0][0]} {bad[0][1]!r} outside the range: the line does not name the flag and the value")
    if r.get("stdout"):
        problems.append(f"{bad[0][0]} {bad[0][1]!r} outside the range: output on stdout")
    if Path(paths["@OUT"]).exists():
        problems.append(f"{bad[0][0]} {bad[0][1]!r} outside the range: --out created")
    return problems


class Scratch:
    def __init__(self, root: Path, rng: random.Random):
        self.root, self.rng = root, rng

    def fresh(self) -> dict:
        d = Path(tempfile.mkdtemp(dir=self.root))
        (d / "dir").mkdir()
        (d / "file").write_text("x")
        os.mkfifo(d / "fifo")
        (d / "c.yaml").write_bytes(self.rng.choice(YAMLS).encode("utf-8", "surrogateescape"))
        (d / "t.jsonl").write_text("".join(self.rng.sample(TRACES, self.rng.randrange(1, 3))))
        # A one-rank Chakra trace of random bytes (replay --chakra @ET): an error line, never a crash.
        (d / "et.0.et").write_bytes(bytes(self.rng.randrange(256) for _ in range(self.rng.randrange(0, 64))))
        return {"@OUT": str(d / "out"), "@DIR": str(d / "dir"), "@FILE": str(d / "file"), "@FIFO": str(d / "fifo"),
                "@YAML": str(d / "c.yaml"), "@TRACE": str(d / "t.jsonl"), "@ET": str(d / "et"), "_dir": d}


def substitute(args: list[str], paths: dict) -> list[str]:
    out = []
    for a in args:
        for k, v in paths.items():
            if k.startswith("@"):
                a = a.replace(k, v)
        out.append(a)
    return out


def generate(rng: random.Random, keys: list[dict], commands: list[str]) -> list[str]:
    if rng.random() < net_inputs.SHARE:
        return net_inputs.generate(rng)
    cmd = rng.choice(commands)
    if cmd in ("keys", "presets"):
        return [cmd] + rng.choice([[], ["--markdown"], ["--bogus"]])
    args = list(BASE[cmd])
    if NUMERIC.get(cmd) and rng.random() < 0.3:
        return numeric_case(rng, cmd, args)
    for _ in range(rng.randrange(0, 4)):
        k = rng.choice(keys)
        args += ["--set", f"{k['key']}={value_for(rng, k)}"]
    for _ in range(rng.randrange(0, 3)):
        flag = rng.choice(list(FLAG_VALUES))
        if flag in ("--jobs", "--ranks", "-b", "-e", "--coll", "--algo", "--type", "--op") and cmd not in ("coll", "table"):
            continue
        if flag in ("--load",) and cmd not in ("cosim", "table"):
            continue
        if flag == "--astra-units" and cmd != "table":
            continue
        if flag == "--kernel" and cmd != "run":
            continue
        if flag == "--seed" and cmd in ("coll", "p2p"):
            continue
        if flag in ("--chakra", "--chakra-groups") and cmd not in ("replay", "workload"):
            continue
        if flag == "--chakra-groups" and cmd == "workload":
            continue
        if flag == "--chakra" and cmd == "replay" and "@TRACE" in args and rng.random() < 0.8:
            args.remove("@TRACE")  # --chakra replaces the trace (keeping both is an error line too)
        args += [flag, rng.choice(FLAG_VALUES[flag])]
    if cmd in HAS_OUT and "--out" not in args and rng.random() < 0.8:
        args += ["--out", "@OUT"]
    return args


def run_one(binary: str, args: list[str], paths: dict, timeout: float, max_rss: int) -> dict:
    cap = 2 * max_rss

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    real = substitute(args, paths)
    t0 = time.monotonic()
    proc = subprocess.Popen([binary] + real, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                            preexec_fn=limit, cwd=paths["_dir"])
    timed_out = False
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        timed_out = True
    # communicate() reaped the child; its peak RSS is in the children's usage (max so far).
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    return {"args": args, "rc": proc.returncode, "stderr": err.decode("utf-8", "replace"), "timed_out": timed_out,
            "rss": rss, "seconds": time.monotonic() - t0, "stdout": out.decode("utf-8", "replace")}


def check(r: dict, paths: dict, max_rss: int, rss_before: int) -> list[str]:
    problems = []
    rc, err = r["rc"], r["stderr"]
    line = " ".join(r["args"])
    if r["timed_out"]:
        if not LONG.search(line):
            problems.append("timeout without a long-run option")
        return problems
    if rc < 0:
        problems.append(f"killed by signal {-rc}")
    elif rc not in (0, 2, 3, 130):
        problems.append(f"exit status {rc}")
    if rc == 3 and "deadlock" not in err:
        problems.append("exit 3 without a deadlock report")
    for t in CRASH_TEXT:
        if t in err:
            problems.append(f"crash text on stderr: {t!r}")
    if rc == 2:
        lines = [x for x in err.splitlines() if x.strip()]
        if len(lines) != 1:
            problems.append(f"exit 2 with {len(lines)} stderr lines")
        out = Path(paths["@OUT"])
        if out.exists() and (not out.is_dir() or any(out.iterdir())):
            problems.append("exit 2 but --out has files")
    if r["rss"] > max(rss_before, max_rss) and r["rss"] > max_rss:
        problems.append(f"peak RSS {r['rss'] >> 20} MiB over {max_rss >> 20} MiB")
    return problems + numeric_problems(r, paths)


def load_regressions(path: Path) -> list[list[str]]:
    if not path.exists():
        return []
    cases = []
    for raw in path.read_text().splitlines():
        raw = raw.strip()
        if raw and not raw.startswith("#"):
            cases.append(shlex.split(raw))
    return cases


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", required=True)
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=30)
    ap.add_argument("--max-rss-mib", type=int, default=2048)
    ap.add_argument("--findings", default="")
    ap.add_argument("--regressions", default=str(Path(__file__).with_name("regressions.txt")))
    ap.add_argument("--regressions-only", action="store_true")
    a = ap.parse_args()
    binary = str(Path(a.bin).resolve())
    rng = random.Random(a.seed)
    keys = parse_keys(binary)
    helptext = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
    commands = [c for c in BASE if re.search(rf"^\s+{c}\s", helptext, re.M)] + ["keys", "presets"]
    NUMERIC.update(parse_numeric_flags(binary, commands))
    max_rss = a.max_rss_mib << 20
    root = Path(tempfile.mkdtemp(prefix="cli_fuzz_"))
    scratch = Scratch(root, rng)
    findings, n = [], 0
    seen = set()
    cases = [(c, True) for c in load_regressions(Path(a.regressions))]
    deadline = time.monotonic() + a.seconds
    try:
        i = 0
        while True:
            if i < len(cases):
                args, is_regression = cases[i]
            elif a.regressions_only or time.monotonic() > deadline:
                break
            else:
                args, is_regression = generate(rng, keys, commands), False
            i += 1
            if args and args[0] == "cosim" and "cosim" not in commands:
                continue
            paths = scratch.fresh()
            before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
            r = run_one(binary, args, paths, a.timeout, max_rss)
            n += 1
            for p in check(r, paths, max_rss, before):
                key = (args[0], p.split(":")[0])
                if key in seen and not is_regression:
                    continue
                seen.add(key)
                findings.append({"args": shlex.join(args), "problem": p, "exit": r["rc"],
                                 "stderr_tail": r["stderr"][-600:], "regression": is_regression})
                print(f"cli_fuzz: FINDING {p}: upswitch {shlex.join(args)}", file=sys.stderr)
            shutil.rmtree(paths["_dir"], ignore_errors=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if a.findings:
        Path(a.findings).write_text(json.dumps(findings, indent=2) + "\n")
    print(f"cli_fuzz: {n} invocations, {len(findings)} findings")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
