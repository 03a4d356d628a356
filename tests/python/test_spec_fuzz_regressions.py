"""What scripts/fuzz_sweep.py found in the sweep-file parser, kept fixed, and the fuzzer itself.

Each finding is a file tests/fuzz/corpus/sweep/regression-*.yaml (so the fuzzer starts from it
too).  Before the fix, each one made `sweep.py plan/run` fail with a Python traceback, hang, or
fill the memory; now the CLI must exit 2 with one line on stderr naming the key and what is
allowed, print nothing on stdout and create nothing.  No simulator is needed: a stub answers
`--version`, in case a check came after the simulator is asked."""
from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest
import yaml

from conftest import REPO, SCRIPTS, run_sweep
from upswitch_sweep import spec as specmod

import fuzz_sweep

CORPUS = REPO / "tests" / "fuzz" / "corpus" / "sweep"

# corpus file (regression-NAME.yaml) -> what the one error line must say
FINDINGS = {
    # PyYAML let other exceptions than YAMLError escape (tracebacks)
    "non-utf8": "not utf-8 text: byte 0xe9 at offset 9",  # UnicodeDecodeError
    "bad-date": "line 1, column 23: '2020-13-45' is not a valid !!timestamp (month must be in 1..12)",  # ValueError
    "bad-bool-tag": "line 1, column 29: '' is not a valid !!bool",  # KeyError
    "bad-int-tag": "line 1, column 19: '' is not a valid !!int",  # IndexError
    "bad-timestamp-tag": "line 1, column 18: 'soon' is not a valid !!timestamp",  # AttributeError
    "long-integer": "line 1, column 27: integer longer than 100 digits",  # ValueError (Python's 4300-digit limit)
    "long-hex-key": "line 1, column 3: integer longer than 100 digits",  # ValueError in str(key)
    "deep-nesting": "lists or mappings nested too deeply",  # RecursionError
    # ranges with non-finite numbers
    "infinite-range": "vary.traffic.rate.stop: must be a finite number, got inf",  # OverflowError
    "nan-range": "vary.traffic.rate.step: must be a finite number, got nan",  # decimal.InvalidOperation
    # alias bombs (10**9 scalars if expanded): hang and memory
    "alias-bomb-in-error": "base.preset: must be a preset name, got a list",  # repr() in the message
    "alias-bomb-title": "report.title: must be a string, got a list",  # json.dumps of plan.json
    "title-not-string": "report.title: must be a string, got date",  # TypeError writing plan.json
    # grids too large to expand
    "huge-grid": "vary: the sweep has 1000000000 runs (1000 x 1000 points x 1000 seed(s)), more than 100000",
    "zip-of-long-ranges": "vary[0].zip.a.k10: vary lists or generates more than 1000000 values in all",
    "many-overrides": "vary: the sweep passes 1100000 --set overrides (100000 runs x 11 keys), more than 1000000",
    # accepted, but broke the one-line-per-run plan table and the --set arguments
    "newline-in-value": "vary.traffic.pattern[1]: must not contain line breaks, tabs or control characters, got 'hot\\nspot'",
    "newline-in-key": "vary.'traffic.rate\\n': parameter name 'traffic.rate\\n' is not a dotted configuration key",
    # found reading the code while fixing the above: accepted, then wrong or stuck at run time
    "nan-in-list": "set.switch.port_list[1]: must be a finite number, got nan",
    "duplicate-key": "line 3, column 1: duplicate key 'vary'",  # PyYAML kept the last one silently
    "config-dev-zero": "base.config: /dev/zero is not a regular file",  # read until out of memory
    "timeout-nan": "run.timeout_seconds: must be a positive number, got nan",
    "slurm-inf": "slurm.est_run_seconds: must be a positive number, got inf",
}


@pytest.fixture(scope="module")
def stub_upswitch(tmp_path_factory):
    p = tmp_path_factory.mktemp("stub") / "upswitch"
    p.write_text("#!/bin/sh\necho 'upswitch 0.0.0 (stub)'\n")
    p.chmod(0o755)
    return p


def test_every_regression_file_is_listed():
    assert sorted(p.stem.removeprefix("regression-") for p in CORPUS.glob("regression-*.yaml")) == sorted(FINDINGS)


@pytest.mark.parametrize("name", sorted(FINDINGS))
def test_cli_rejects_finding_with_one_line_and_exit_2(tmp_path, stub_upswitch, name):
    f = CORPUS / f"regression-{name}.yaml"
    out = tmp_path / "out"
    for cmd in (["plan", f], ["run", f, "--out", out]):
        r = run_sweep(*cmd, "--upswitch", stub_upswitch, timeout=60)
        assert r.returncode == 2, r.stderr
        lines = r.stderr.splitlines()
        assert len(lines) == 1 and r.stderr.endswith("\n"), r.stderr
        assert lines[0].startswith(f"sweep: {f}: ") and FINDINGS[name] in lines[0], lines[0]
        assert r.stdout == ""
    assert not out.exists(), "a rejected sweep must not create its result directory"


def test_integer_ranges_are_exact():
    # Decimal arithmetic kept 28 digits: 10**30 + 1 came out as 10**30 (found with the above)
    text = "vary: {switch.vcs: {start: 1000000000000000000000000000001, stop: 1000000000000000000000000000003, step: 1}}"
    spec = specmod.parse(yaml.safe_load(text), REPO / "s.yaml")
    assert [v for (v,) in spec.axes[0].values] == [10**30 + 1, 10**30 + 2, 10**30 + 3]


def test_limits_accept_the_largest_sweep():
    big = "vary: {traffic.rate: {start: 1, stop: 100000, step: 1}}\nset: {" + \
          ", ".join(f"a.k{i}: 1" for i in range(9)) + "}\n"
    spec = specmod.parse(yaml.safe_load(big), REPO / "s.yaml")
    assert len(spec.axes[0].values) == specmod.MAX_RUNS
    assert len(spec.axes[0].values) * (len(spec.set) + 1) == specmod.MAX_OVERRIDES


def test_merge_keys_are_not_duplicates(tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text("set: &s {traffic.pattern: uniform}\nvary:\n  <<: {traffic.rate: [0.1]}\n  switch.vcs: [1]\n")
    assert specmod.load(f).param_keys == ["traffic.rate", "switch.vcs"]


# --- the fuzzer ---------------------------------------------------------------------------------

def test_fuzzer_finds_nothing_in_3_seconds(tmp_path):
    findings = tmp_path / "findings"
    r = subprocess.run([sys.executable, str(SCRIPTS / "fuzz_sweep.py"), "3", "--seed", "1", "--findings", findings],
                       capture_output=True, text=True, timeout=300, cwd=REPO)
    assert r.returncode == 0, r.stdout + r.stderr
    assert " 0 finding(s)" in r.stdout and " execs in " in r.stdout, r.stdout
    assert not findings.exists()


def test_fuzzer_flags_what_breaks_the_contract(tmp_path, monkeypatch):
    f = tmp_path / "s.yaml"
    f.write_text("vary: {traffic.rate: [0.1]}\n")
    assert fuzz_sweep.check(f) == ("accepted", "1 runs")
    f.write_text("vary: 7\n")
    assert fuzz_sweep.check(f)[0] == "rejected"

    def crash(path):
        raise ValueError("boom")
    monkeypatch.setattr(fuzz_sweep.specmod, "load", crash)
    outcome, detail = fuzz_sweep.check(f)
    assert outcome == "finding" and "ValueError: boom" in detail

    def two_lines(path):
        raise specmod.SpecError("vary", "one\ntwo")
    monkeypatch.setattr(fuzz_sweep.specmod, "load", two_lines)
    assert fuzz_sweep.check(f)[0] == "finding"

    def hang(path):
        time.sleep(30)
    monkeypatch.setattr(fuzz_sweep.specmod, "load", hang)
    old = signal.signal(signal.SIGALRM, fuzz_sweep._alarm)
    try:
        fz = fuzz_sweep.Fuzzer(tmp_path, timeout=0.2, findings=tmp_path / "found")
        outcome, detail, _ = fz.run(b"vary: {traffic.rate: [0.1]}\n")
    finally:
        signal.signal(signal.SIGALRM, old)
    assert outcome == "finding" and detail.startswith("over the time limit")
    saved = list((tmp_path / "found").iterdir())
    assert len(saved) == 1 and saved[0].read_bytes() == b"vary: {traffic.rate: [0.1]}\n"


def test_fuzzer_is_deterministic_by_seed():
    import random
    corpus = [p.read_bytes() for p in sorted(CORPUS.iterdir())]

    def inputs(seed):
        rng = random.Random(seed)
        return [fuzz_sweep.mutate(rng.choice(corpus), corpus, rng, 16384) for _ in range(200)]
    assert inputs(7) == inputs(7)
    assert inputs(7) != inputs(8)
