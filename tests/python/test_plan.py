"""Sweep file parsing, plan expansion and run-id stability (no simulator needed)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from conftest import REPO, run_sweep
from upswitch_sweep import plan as planmod
from upswitch_sweep import spec as specmod
from upswitch_sweep.slurm import chunk_arrays, pack

VERSION = "upswitch 1.2.3 (test)"


def parse(text: str, name="s.yaml", tmp: Path | None = None):
    path = (tmp or Path("/nonexistent")) / name
    return specmod.parse(yaml.safe_load(text), path)


def expand(text: str, version=VERSION, **kw):
    return planmod.expand(parse(text, **kw), version)


def test_cross_order_first_axis_outermost_seeds_innermost():
    runs = expand("""
vary:
  - switch.allocator: [islip, wavefront]
  - traffic.rate: [0.1, 0.2, 0.3]
seeds: [7, 8]
""")
    assert len(runs) == 12
    got = [(r.params["switch.allocator"], r.params["traffic.rate"], r.seed) for r in runs]
    assert got[:4] == [("islip", 0.1, 7), ("islip", 0.1, 8), ("islip", 0.2, 7), ("islip", 0.2, 8)]
    assert got[-1] == ("wavefront", 0.3, 8)
    assert [r.index for r in runs] == list(range(12))
    assert list(runs[0].params) == ["switch.allocator", "traffic.rate"]


def test_mapping_form_crosses_in_written_order():
    runs = expand("vary: {traffic.rate: [0.5, 0.6], switch.vcs: [1, 2]}")
    assert [(r.params["traffic.rate"], r.params["switch.vcs"]) for r in runs] == [
        (0.5, 1), (0.5, 2), (0.6, 1), (0.6, 2)]


def test_zip_moves_keys_together_and_crosses_with_the_rest():
    runs = expand("""
vary:
  - zip:
      switch.vcs: [1, 2, 4]
      switch.vc_buffer_flits: [64, 32, 16]
  - switch.queueing: [vc, voq]
""")
    pts = [(r.params["switch.vcs"], r.params["switch.vc_buffer_flits"], r.params["switch.queueing"]) for r in runs]
    assert pts == [(1, 64, "vc"), (1, 64, "voq"), (2, 32, "vc"), (2, 32, "voq"), (4, 16, "vc"), (4, 16, "voq")]


def test_ranges_are_exact_decimals_and_include_stop():
    runs = expand("vary: {traffic.rate: {start: 0.1, stop: 0.9, step: 0.1}}")
    assert [r.params["traffic.rate"] for r in runs] == [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    assert runs[2].argv[runs[2].argv.index("--set") + 1] == "traffic.rate=0.3"  # not 0.30000000000000004
    ints = expand("vary: {switch.vc_buffer_flits: {start: 4, stop: 20, step: 8}}")
    assert [r.params["switch.vc_buffer_flits"] for r in ints] == [4, 12, 20]
    assert all(isinstance(r.params["switch.vc_buffer_flits"], int) for r in ints)
    geo = expand("vary: {switch.shared_buffer_flits: {start: 8, stop: 100, factor: 2}}")
    assert [r.params["switch.shared_buffer_flits"] for r in geo] == [8, 16, 32, 64]


def test_seed_forms():
    assert parse("vary: {traffic.rate: [0.1]}").seeds == [1]
    assert parse("vary: {traffic.rate: [0.1]}\nseeds: 5").seeds == [5]
    assert parse("vary: {traffic.rate: [0.1]}\nseeds: {start: 1, stop: 4, step: 1}").seeds == [1, 2, 3, 4]


def test_argv_is_preset_overrides_sorted_then_seed():
    runs = expand("""
base: {preset: tiny}
set: {sim.measure_cycles: 2000, traffic.pattern: uniform, traffic.exclude_self: true}
vary: {switch.allocator: [islip]}
seeds: [3]
""")
    assert runs[0].argv == ["run", "--preset", "tiny",
                            "--set", "sim.measure_cycles=2000",
                            "--set", "switch.allocator=islip",
                            "--set", "traffic.exclude_self=true",
                            "--set", "traffic.pattern=uniform",
                            "--seed", "3"]


def test_run_id_is_pinned():
    # The run id is the cache key of every stored result: changing how it is computed
    # silently re-runs (or worse, mixes up) every cached sweep.  Update only on purpose.
    runs = expand("""
base: {preset: tiny}
set: {sim.measure_cycles: 2000}
vary: {traffic.rate: [0.25]}
seeds: [1]
""")
    doc = {"base": {"preset": "tiny"},
           "overrides": [["sim.measure_cycles", "2000"], ["traffic.rate", "0.25"]],
           "seed": 1, "simulator": VERSION}
    import hashlib
    want = hashlib.sha256(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:16]
    assert runs[0].run_id == want == "63963feaa141351a"


def test_run_id_depends_on_config_seed_and_version_only():
    a = expand("""
name: first
base: {preset: tiny}
set: {sim.measure_cycles: 2000, traffic.pattern: uniform}
vary: {traffic.rate: [0.25, 0.5]}
outputs: {acc: /throughput/accepted}
""")
    # other name, outputs, order of set keys, value moved from vary to set: same ids
    b = expand("""
name: second
base: {preset: tiny}
set: {traffic.pattern: uniform, sim.measure_cycles: 2000}
vary: {traffic.rate: [0.5, 0.25]}
""")
    assert {r.run_id for r in a} == {r.run_id for r in b}
    c = expand("""
base: {preset: tiny}
set: {traffic.pattern: uniform, sim.measure_cycles: 2000, traffic.rate: 0.25}
vary: {switch.allocator: [islip]}
""")
    # switch.allocator now set explicitly -> a different resolved config, a different id
    assert c[0].run_id not in {r.run_id for r in a}
    assert len({r.run_id for r in expand("vary: {traffic.rate: [0.25]}\nseeds: [1, 2]")}) == 2
    assert expand("vary: {traffic.rate: [0.25]}")[0].run_id != expand("vary: {traffic.rate: [0.25]}", version="other")[0].run_id
    assert expand("vary: {traffic.rate: [0.25]}")[0].run_id != expand("base: {preset: tiny}\nvary: {traffic.rate: [0.25]}")[0].run_id


def test_run_id_follows_config_file_content_not_its_path(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    for d in ("a", "b"):
        (tmp_path / d / "cfg.yaml").write_text("switch:\n  ports: 16\n")
    text = "base: {config: cfg.yaml}\nvary: {traffic.rate: [0.25]}\n"
    ra = planmod.expand(specmod.parse(yaml.safe_load(text), tmp_path / "a" / "s.yaml"), VERSION)
    rb = planmod.expand(specmod.parse(yaml.safe_load(text), tmp_path / "b" / "s.yaml"), VERSION)
    assert ra[0].run_id == rb[0].run_id
    assert ra[0].argv[:3] == ["run", "--config", str(tmp_path / "a" / "cfg.yaml")]
    (tmp_path / "b" / "cfg.yaml").write_text("switch:\n  ports: 32\n")
    rb2 = planmod.expand(specmod.parse(yaml.safe_load(text), tmp_path / "b" / "s.yaml"), VERSION)
    assert rb2[0].run_id != ra[0].run_id


def test_example_sweeps_parse():
    files = sorted((REPO / "configs" / "sweeps").glob("*.yaml"))
    assert files, "configs/sweeps/ has no example"
    sizes = {f.stem: len(planmod.expand(specmod.load(f), VERSION)) for f in files}
    assert sizes["tiny-8"] == 8


def test_doc_examples_parse():
    """Every ```yaml block of doc/sweeps.md that has a vary: is a valid sweep file."""
    import re
    text = (REPO / "doc" / "sweeps.md").read_text()
    blocks = [b for b in re.findall(r"```yaml\n(.*?)```", text, re.S) if "vary:" in b]
    assert blocks
    for b in blocks:
        runs = planmod.expand(specmod.parse(yaml.safe_load(b), REPO / "doc" / "example.yaml"), VERSION)
        assert runs


@pytest.mark.parametrize("text, key", [
    ("vary: {traffic.rate: [0.1]}\nbogus: 1", "bogus"),
    ("seeds: [1]", "vary"),
    ("vary: []", "vary"),
    ("vary: {traffic.rate: []}", "vary.traffic.rate"),
    ("vary: {traffic.rate: 0.5}", "vary.traffic.rate"),
    ("vary: {traffic.rate: {start: 0.1, stop: 0.5}}", "vary.traffic.rate.step"),
    ("vary: {traffic.rate: {start: 0.1, stop: 0.5, step: 0}}", "vary.traffic.rate.step"),
    ("vary: {traffic.rate: {start: 0.5, stop: 0.1, step: 0.1}}", "vary.traffic.rate.stop"),
    ("vary: {traffic.rate: {start: 0.1, stop: 0.5, stride: 0.1}}", "vary.traffic.rate.stride"),
    ("vary: {traffic.rate: {start: x, stop: 0.5, step: 0.1}}", "vary.traffic.rate.start"),
    ("vary: [{zip: {switch.vcs: [1, 2], switch.vc_buffer_flits: [8]}}]", "vary[0].zip"),
    ("vary: [{traffic.rate: [0.1]}, 5]", "vary[1]"),
    ("vary: {rate: [0.1]}", "vary.rate"),
    ("vary: {sim.seed: [1, 2]}", "vary.sim.seed"),
    ("vary: {traffic.rate: [{a: 1}]}", "vary.traffic.rate[0]"),
    ("vary: [{traffic.rate: [0.1]}, {traffic.rate: [0.2]}]", "vary[1].traffic.rate"),
    ("set: {traffic.rate: 0.1}\nvary: {traffic.rate: [0.2]}", "vary.traffic.rate"),
    ("set: [1]\nvary: {traffic.rate: [0.2]}", "set"),
    ("vary: {traffic.rate: [0.1]}\nseeds: [1, x]", "seeds[1]"),
    ("vary: {traffic.rate: [0.1]}\nseeds: [1, 1]", "seeds"),
    ("vary: {traffic.rate: [0.1]}\noutputs: {p99: latency/packet/p99}", "outputs.p99"),
    ("vary: {traffic.rate: [0.1]}\noutputs: {seed: /sim/seed}", "outputs.seed"),
    ("vary: {traffic.rate: [0.1]}\nbase: {preset: tiny, flavour: x}", "base.flavour"),
    ("vary: {traffic.rate: [0.1]}\nbase: {config: no_such_file.yaml}", "base.config"),
    ("vary: {traffic.rate: [0.1]}\nrun: {timeout_seconds: -1}", "run.timeout_seconds"),
    ("vary: {traffic.rate: [0.1]}\nslurm: {runs_per_task: 0}", "slurm.runs_per_task"),
    ("vary: {traffic.rate: [0.1]}\nslurm: {time: soon}", "slurm.time"),
    ("vary: {traffic.rate: [0.1]}\nslurm: {nodes: 4}", "slurm.nodes"),
    ("vary: {traffic.rate: [0.1]}\nreport: {x: switch.vcs}", "report.x"),
    ("name: 'two words'\nvary: {traffic.rate: [0.1]}", "name"),
])
def test_malformed_sweep_names_the_key(tmp_path, text, key):
    with pytest.raises(specmod.SpecError) as e:
        parse(text, tmp=tmp_path)
    assert e.value.key == key
    assert str(e.value).startswith(key + ":")
    assert "\n" not in str(e.value)


def test_duplicate_point_is_an_error():
    with pytest.raises(specmod.SpecError) as e:
        expand("vary: {traffic.rate: [0.1, 0.1]}")
    assert e.value.key == "vary"


@pytest.mark.parametrize("text, needle", [
    ("vary:\n  traffic.rate: [0.1, 0.2]\n    - oops\n", "YAML syntax error at line"),
    ("vary: {traffic.rate: {start: 0.1, stop: 0.5, step: -0.1}}\n", "vary.traffic.rate.step"),
    ("vary: {traffic.rate: [0.1]}\nseeds: many\n", "seeds"),
    ("- just\n- a list\n", "must be a YAML mapping"),
])
def test_cli_malformed_sweep_exits_2_with_one_line(tmp_path, text, needle):
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    out = tmp_path / "out"
    for cmd in (["run", f, "--out", out], ["plan", f]):
        # a bogus simulator path: the file must be rejected before the simulator is asked
        r = run_sweep(*cmd, "--upswitch", tmp_path / "no_such_binary")
        assert r.returncode == 2, r.stderr
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1, r.stderr
        assert needle in lines[0]
        assert r.stdout == ""
    assert not out.exists(), "a rejected sweep must not create its result directory"


def test_cli_missing_simulator_exits_2(tmp_path):
    r = run_sweep("plan", REPO / "configs" / "sweeps" / "tiny-8.yaml", "--upswitch", tmp_path / "nope")
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and "simulator not found" in r.stderr


def test_cli_bad_option_exits_2_with_one_line(tmp_path):
    r = run_sweep("run", REPO / "configs" / "sweeps" / "tiny-8.yaml", "--jobs", "0")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "--jobs" in r.stderr
    r = run_sweep("run", REPO / "configs" / "sweeps" / "tiny-8.yaml", "--backend", "pbs")
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "--backend" in r.stderr


def test_pack_and_chunk():
    assert pack(list(range(8)), 3) == [[0, 1, 2], [3, 4, 5], [6, 7]]
    assert pack(list(range(7)), 3) == [[0, 1, 2], [3, 4], [5, 6]]
    assert pack([5], 10) == [[5]]
    assert pack([], 3) == []
    assert chunk_arrays(2500, 1001) == [(0, 1000), (1000, 1000), (2000, 500)]
    assert chunk_arrays(1000, 1001) == [(0, 1000)]
    assert chunk_arrays(1001, 1001) == [(0, 1000), (1000, 1)]
    assert chunk_arrays(3, 3) == [(0, 2), (2, 1)]
    for n, m in ((1, 2), (999, 1001), (4321, 1001), (10, 5)):
        chunks = chunk_arrays(n, m)
        assert sum(c for _, c in chunks) == n
        assert all(c <= m - 1 for _, c in chunks)  # array index 0..c-1 < MaxArraySize
        assert [o for o, _ in chunks] == [sum(c for _, c in chunks[:i]) for i in range(len(chunks))]


def test_runs_per_task_auto(tmp_path):
    from upswitch_sweep.slurm import SlurmOptions, runs_per_task
    from upswitch_sweep.store import Store, atomic_write_json
    store = Store(tmp_path)
    plan = {"runs": [{"run_id": f"r{i}"} for i in range(4)]}
    assert runs_per_task(SlurmOptions(), store, plan) == 10  # 600 s target / 60 s default guess
    assert runs_per_task(SlurmOptions(est_run_seconds=120), store, plan) == 5
    assert runs_per_task(SlurmOptions(est_run_seconds=7200), store, plan) == 1
    assert runs_per_task(SlurmOptions(runs_per_task=3), store, plan) == 3
    for i, wall in enumerate((1.0, 2.0, 30.0)):  # finished runs of this sweep: median 2 s
        (store.runs / f"r{i}").mkdir(parents=True)
        atomic_write_json(store.runs / f"r{i}" / "result.json", {"status": "ok", "wall_seconds": wall})
    assert runs_per_task(SlurmOptions(), store, plan) == 300
    assert runs_per_task(SlurmOptions(target_task_seconds=60), store, plan) == 30
    assert runs_per_task(SlurmOptions(est_run_seconds=120), store, plan) == 300  # measured wins
    assert runs_per_task(SlurmOptions(time="00:02:00"), store, plan) == 30  # half the time limit
    from upswitch_sweep.slurm import slurm_time_seconds
    assert [slurm_time_seconds(t) for t in ("30", "5:30", "01:00:00", "1-00", "1-2:03", "2-00:00:10", None)] == \
        [1800, 330, 3600, 86400, 93780, 172810, None]
