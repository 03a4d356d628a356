#!/usr/bin/python3
"""Mutation fuzzer for sweep files, the Python counterpart of the libFuzzer targets (doc/sweeps.md,
"Fuzzing the sweep-file parser").

    fuzz_sweep.py SECONDS [--seed N] [--corpus DIR] [--findings DIR]   fuzz for SECONDS
    fuzz_sweep.py --repro FILE...                                     run the given files once

Every input goes, in this process, through what `sweep.py plan` and `sweep.py run` do before
they start a simulation: spec.load, plan.expand (with a fixed simulator version),
plan.plan_document, json.dumps (plan.json, `plan --json`) and plan.format_plan (the table).
The contract: that succeeds, or spec.SpecError is raised with a one-line message (the CLI prints
it and exits 2).  Anything else is a finding: another exception, more than --timeout seconds for
one input, MemoryError (the address space is limited to --mem-limit-mb), an error message that
is not exactly one line, a plan table row spanning several lines.

Inputs are the corpus files mutated 1 to 4 times: bytes flipped, inserted, deleted, copied,
spliced with another file, YAML tokens inserted, or (one time in three, files up to 4 kB) the
file is parsed, a random node of the tree replaced by a value of another type, deleted,
duplicated, wrapped, given a huge range or an alias bomb, and dumped back.  An input that runs
new line pairs of upswitch_sweep/spec.py or plan.py joins the corpus for the rest of the run
(in memory only).  The same --seed gives the same inputs, as far as the run gets.  Each finding
is saved once per place (exception type and line) as FINDINGS/fuzz_sweep-<sha1>.yaml and
printed; the exit status is 1 if there was any finding, else 0.
"""
from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import random
import resource
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))

import yaml  # noqa: E402

from upswitch_sweep import commands as commandsmod  # noqa: E402
from upswitch_sweep import plan as planmod  # noqa: E402
from upswitch_sweep import spec as specmod  # noqa: E402

VERSION = "upswitch 0.0.0 (fuzz)"
TRACED = {str(Path(m.__file__).resolve()) for m in (specmod, planmod, commandsmod)}

_FLAGS = sorted({n for c in commandsmod.COMMANDS.values() for f in c.flags for n in (f.name, f.short) if n})

# byte strings worth inserting: the format's keys, YAML syntax and tags, awkward numbers and bytes
TOKENS = [t.encode("utf-8", "surrogateescape") if isinstance(t, str) else t for t in (
    *(f"{k}:" for k in specmod.TOP_KEYS + specmod.BASE_KEYS + specmod.RANGE_KEYS + specmod.SLURM_KEYS
      + specmod.ROWS_KEYS),
    # command: NAME, args: {FLAG: ...} and vary: {args.FLAG: ...} for every command and flag
    *(f" {c}" for c in commandsmod.COMMANDS), *(f"{f}:" for f in _FLAGS), *(f"args.{f}:" for f in _FLAGS),
    *(f"{k}:" for k in commandsmod.MANAGED_FLAGS), "trace: example.jsonl", "args.trace", "/rows", "/steps",
    "zip:", "values:", "x:", "group_by:", "title:", "timeout_seconds:", "switch.vcs", "traffic.rate",
    "sim.seed", "- ", ": ", "\n", "\n  ", "\n    - ", "\t", " ", "[", "]", "{", "}", ",", "#", "'", '"',
    "&a ", "*a", "<<: *a", "? ", "---\n", "...\n", "%YAML 1.1\n", "~", "null", "true", "no",
    "!!int ", "!!float ", "!!bool ", "!!str ", "!!timestamp ", "!!binary ", "!!set ", "!!omap ",
    "!!python/object/apply:os.getcwd []", "!custom ", ".inf", "-.inf", ".nan", "0x", "0o17", "0b",
    "1_000", "1:20:30", "1e999", "1.0e+999", "-1.0e-999", "4.9e-324", "2020-13-45", "2020-01-01 25:00",
    "9" * 40, "9" * 5000, "0x" + "f" * 5000, "-0", "0.0000000000000000000000000001",
    "\"\\x00\"", "\"a\\nb\"", "\"\\u2028\"", "/dev/zero", "/dev/stdin", "..", "auto",
    b"\x00", b"\xff", b"\xfe\xff", b"\xef\xbb\xbf", b"\xc3\x28", b"\xe2\x80\xa8", b"\x85", b"\r",
    "[" * 2000, "]" * 2000, "{a: " * 500, "- " * 500,
)]


def _bomb(depth: int, width: int) -> list:
    """A list of `width` references to the same list, `depth` deep: a few lines of YAML
    (anchors and aliases) that would expand to width**depth scalars."""
    v: list = ["lol"] * width
    for _ in range(depth):
        v = [v] * width
    return v


# values a node of the parsed tree may be replaced with
VALUES = [
    None, True, False, 0, -1, 1, 3, 2**63, -2**63 - 1, 10**100, 0.0, -0.0, 0.1, 1e-320, 1.7e308,
    float("inf"), float("-inf"), float("nan"), "", " ", "x", "a\nb", "\t", "\u2028", "\x00", "é",
    "switch.vcs", "traffic.rate", "sim.seed", "zip", "values", "auto", "/dev/zero", ".", "01:00:00",
    "coll", "workload", "replay", "args.ranks", "args.b", "no-check", "example.jsonl", "/rows",
    {"from": "/rows", "keys": ["bytes"], "values": ["time_us"]},
    [], {}, [1, 1], [[1, 2]], [None], ["x", 1, 0.5, True], {"a": 1}, {"values": [1, 2]},
    {"start": 0, "stop": 10**9, "step": 1}, {"start": 0, "stop": 99999, "step": 1},
    {"start": 1, "stop": 1e308, "factor": 1.0000001}, {"start": 0, "stop": 1, "step": 1e-12},
    {"start": 10**30, "stop": 10**30 + 4, "step": 1}, {"start": 0.1, "stop": 0.1, "step": 0.1},
    {"start": 1, "stop": 2**62, "factor": 2}, {"start": float("nan"), "stop": 1, "step": 1},
    datetime.date(2020, 1, 1), datetime.datetime(2020, 1, 1, 12, 0), b"\x00\xff", {1, 2},
]


class Timeout(BaseException):
    """Raised by SIGALRM in the middle of an input that takes too long."""


def _alarm(signum, frame):
    raise Timeout()


class Coverage:
    """Line pairs executed in spec.py and plan.py (sys.settrace, only inside those files)."""

    def __init__(self):
        self.seen: set = set()
        self.new = 0

    def _global(self, frame, event, arg):
        if frame.f_code.co_filename not in TRACED:
            return None
        last = [0]

        def local(frame, event, arg):
            if event == "line":
                arc = (frame.f_code, last[0], frame.f_lineno)
                if arc not in self.seen:
                    self.seen.add(arc)
                    self.new += 1
                last[0] = frame.f_lineno
            return local
        return local

    def __enter__(self):
        self.new = 0
        sys.settrace(self._global)
        return self

    def __exit__(self, *exc):
        sys.settrace(None)


def check(path: Path) -> tuple[str, str]:
    """Runs one sweep file as the CLI does before it runs anything.  Returns (outcome, detail):
    ("accepted", "N runs"), ("rejected", the error line) or ("finding", what went wrong)."""
    try:
        spec = specmod.load(path)
        runs = planmod.expand(spec, VERSION)
        doc = planmod.plan_document(spec, "/fuzz/upswitch", VERSION, runs)
        json.dumps(doc)  # what plan.json and `plan --json` hold (indent changes only the speed)
        table = planmod.format_plan(doc)
    except specmod.SpecError as e:
        msg = str(e)
        if msg.splitlines() != [msg]:
            return "finding", f"SpecError message is not one line: {msg[:500]!r}"
        return "rejected", msg
    except Timeout:
        return "finding", "over the time limit\n" + traceback.format_exc(limit=-6)
    except Exception:  # MemoryError and RecursionError included
        return "finding", traceback.format_exc(limit=-6)
    if len(table.splitlines()) != len(runs) + 2:  # the title, the header, one line per run
        return "finding", "the plan table has a row spanning several lines"
    return "accepted", f"{len(runs)} runs"


def signature(detail: str) -> str:
    """Where a finding comes from (exception type and innermost line), to save each one once."""
    lines = detail.strip().splitlines()
    places = [ln.strip() for ln in lines if ln.strip().startswith("File ")]
    if lines[0].startswith("over the time limit"):  # by function: where it stopped varies
        ours = [p for p in places if "upswitch_sweep" in p] or places or [""]
        return "timeout in " + ours[-1].rsplit(" in ", 1)[-1]
    if not places:
        return lines[0][:40]
    return f"{lines[-1].split(':')[0]} at {places[-1]}"


# ---------------------------------------------------------------------------------------------
# mutations

def _span(rng: random.Random, n: int) -> tuple[int, int]:
    a = rng.randrange(n + 1)
    return a, min(n, a + rng.choice((1, 2, 4, 8, 32, 256)))


def mutate_bytes(data: bytes, corpus: list[bytes], rng: random.Random) -> bytes:
    n = len(data)
    op = rng.randrange(8)
    if op == 0 and n:  # flip a bit
        i = rng.randrange(n)
        return data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1:]
    if op == 1 and n:  # set a byte
        i = rng.randrange(n)
        return data[:i] + bytes([rng.choice(b"\x00\x09\x0a\x20\x22\x27\x2c\x2d\x3a\x5b\x5d\x7b\x7d\x7f\x80\xff")]) + data[i + 1:]
    if op == 2:  # delete a span
        a, b = _span(rng, n)
        return data[:a] + data[b:]
    if op == 3:  # copy a span elsewhere
        a, b = _span(rng, n)
        i = rng.randrange(n + 1)
        return data[:i] + data[a:b] + data[i:]
    if op == 4:  # splice: the head of this file, the tail of another
        other = rng.choice(corpus)
        return data[:rng.randrange(n + 1)] + other[rng.randrange(len(other) + 1):]
    lines = data.split(b"\n")
    if op == 5 and len(lines) > 1:  # delete, duplicate or re-indent a line
        i = rng.randrange(len(lines))
        how = rng.randrange(3)
        if how == 0:
            del lines[i]
        elif how == 1:
            lines.insert(i, lines[i])
        else:
            lines[i] = rng.choice((b"", b" ", b"  ", b"\t")) + lines[i].lstrip()
        return b"\n".join(lines)
    # insert a token, maybe in place of a word
    i = rng.randrange(n + 1)
    j = i + (rng.randrange(8) if rng.random() < 0.5 else 0)
    return data[:i] + rng.choice(TOKENS) + data[j:]


def _nodes(doc) -> list[tuple]:
    """(container, key or index) for every node of the tree, each container visited once."""
    out, todo, seen = [], [doc], set()
    while todo and len(out) < 2000:
        c = todo.pop()
        if id(c) in seen:
            continue
        seen.add(id(c))
        for k in (list(c) if isinstance(c, dict) else range(len(c))):
            out.append((c, k))
            if isinstance(c[k], (dict, list)):
                todo.append(c[k])
    return out


def mutate_tree(data: bytes, rng: random.Random) -> bytes | None:
    """A structural mutation of a file that parses as YAML; None if it does not."""
    try:
        doc = yaml.safe_load(data)
    except Exception:
        return None
    if not isinstance(doc, (dict, list)):
        return None
    nodes = _nodes(doc)
    if nodes:
        c, k = rng.choice(nodes)
        op = rng.randrange(7)
        if op == 0:  # another value, often of another type
            c[k] = rng.choice(VALUES)
        elif op == 1:  # delete
            del c[k]
        elif op == 2 and isinstance(c[k], list) and c[k]:  # duplicate items
            c[k] = c[k] + rng.choices(c[k], k=rng.choice((1, 2, 1000)))
        elif op == 3:  # wrap in a list or a mapping
            c[k] = rng.choice(([c[k]], {"values": c[k]}, {"zip": {"a.b": c[k]}}))
        elif op == 4:  # a huge range
            c[k] = {"start": rng.choice((0, 1, 0.5)), "stop": rng.choice((10**5, 10**6, 10**9, 10**18)),
                    "step" if rng.random() < 0.7 else "factor": rng.choice((1, 2, 0.001, 1.0001))}
        elif op == 5:  # an alias bomb
            c[k] = _bomb(rng.randrange(1, 9), rng.randrange(2, 10))
        elif isinstance(c, dict):  # add a key: a known one, an unknown one, another type
            new = rng.choice(list(specmod.TOP_KEYS) + ["zip", "values", "start", "step", "factor", "a.b",
                                                      "switch.vcs", "x", 1, None, True, 0.5, "args.ranks",
                                                      "ranks", "b", "trace", "seed", "from", "keys"])
            c[new] = rng.choice(VALUES)
    try:
        text = yaml.safe_dump(doc, sort_keys=False, allow_unicode=rng.random() < 0.5,
                              default_flow_style=rng.choice((False, None, True)))
    except Exception:  # a tree PyYAML cannot write back (too deep, ...)
        return None
    return text.encode("utf-8", "surrogateescape")


def mutate(data: bytes, corpus: list[bytes], rng: random.Random, max_len: int) -> bytes:
    for _ in range(rng.randint(1, 4)):
        if rng.random() < 1 / 3 and len(data) <= 4096:  # parsing and dumping big files is slow
            data = mutate_tree(data, rng) or mutate_bytes(data, corpus, rng)
        else:
            data = mutate_bytes(data, corpus, rng)
    return data[:max_len]


# ---------------------------------------------------------------------------------------------

class Fuzzer:
    def __init__(self, workdir: Path, timeout: float, findings: Path | None):
        """findings: where to save and announce findings; None to only count them (--repro)."""
        self.input = workdir / "sweep.yaml"
        (workdir / "base.yaml").write_text("switch:\n  ports: 8\n")  # for base: {config: base.yaml}
        (workdir / "example.jsonl").write_text('{"id": "a", "op": "read", "src": 0, "dst": 1, "bytes": 64}\n')
        self.timeout = timeout
        self.findings_dir = findings
        self.coverage = Coverage()
        self.findings: dict[str, Path | None] = {}
        self.execs = 0

    def run(self, data: bytes | Path) -> tuple[str, str, int]:
        """(outcome, detail, number of new line pairs) of one input (a file is read in place)."""
        path = data if isinstance(data, Path) else self.input
        if path is self.input:
            self.input.write_bytes(data)
        self.execs += 1
        signal.setitimer(signal.ITIMER_REAL, self.timeout)
        try:
            with self.coverage:
                outcome, detail = check(path)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        if outcome == "finding":
            self.report(data, detail)
        return outcome, detail, self.coverage.new

    def report(self, data: bytes | Path, detail: str):
        data = data.read_bytes() if isinstance(data, Path) else data
        sig = signature(detail)
        if sig in self.findings or self.findings_dir is None:
            self.findings.setdefault(sig, None)
            return
        self.findings_dir.mkdir(parents=True, exist_ok=True)
        f = self.findings_dir / f"fuzz_sweep-{hashlib.sha1(data).hexdigest()}.yaml"
        f.write_bytes(data)
        self.findings[sig] = f
        shown = data[:600].decode("utf-8", "backslashreplace") + ("..." if len(data) > 600 else "")
        print(f"fuzz_sweep: FINDING saved to {f} (reproduce: scripts/fuzz_sweep.py --repro {f})\n"
              f"--- input ({len(data)} bytes) ---\n{shown}\n--- what happened ---\n{detail.rstrip()}\n---",
              file=sys.stderr, flush=True)


def load_corpus(d: Path) -> list[bytes]:
    files = sorted(p for p in d.iterdir() if p.is_file()) if d.is_dir() else []
    if not files:
        sys.exit(f"fuzz_sweep: no corpus files in {d}")
    return [p.read_bytes() for p in files]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("seconds", type=float, nargs="?", help="how long to fuzz")
    ap.add_argument("--seed", type=int, default=1, help="random seed of the mutations (default 1)")
    ap.add_argument("--corpus", type=Path, default=REPO / "tests" / "fuzz" / "corpus" / "sweep")
    ap.add_argument("--findings", type=Path, default=REPO / "build-fuzz" / "artifacts",
                    help="where findings are saved (default build-fuzz/artifacts/, as scripts/fuzz.sh)")
    ap.add_argument("--max-len", type=int, default=16384, help="longest input in bytes (default 16384)")
    ap.add_argument("--timeout", type=float, default=60, help="seconds one input may take (default 60)")
    ap.add_argument("--mem-limit-mb", type=int, default=2048, help="address space limit (default 2048)")
    ap.add_argument("--repro", nargs="+", type=Path, metavar="FILE", help="run these files once and say what happens")
    args = ap.parse_args(argv)
    if (args.seconds is None) == (args.repro is None):
        ap.error("give SECONDS or --repro FILE...")

    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    limit = args.mem_limit_mb << 20
    resource.setrlimit(resource.RLIMIT_AS, (limit if hard == resource.RLIM_INFINITY else min(limit, hard), hard))
    signal.signal(signal.SIGALRM, _alarm)
    with tempfile.TemporaryDirectory(prefix="fuzz_sweep-") as tmp:
        fz = Fuzzer(Path(tmp), args.timeout, None if args.repro else args.findings)
        if args.repro:
            for f in args.repro:
                outcome, detail, _ = fz.run(f)
                print(f"{f}: {outcome}: {detail.rstrip()}")
            return 1 if fz.findings else 0

        rng = random.Random(args.seed)
        corpus = load_corpus(args.corpus)
        seeds = len(corpus)
        start = time.monotonic()
        for data in list(corpus):  # the corpus itself first
            fz.run(data)
        deadline = start + args.seconds
        while time.monotonic() < deadline:
            data = mutate(rng.choice(corpus), corpus, rng, args.max_len)
            outcome, _, new = fz.run(data)
            if new and outcome != "finding":
                corpus.append(data)
        wall = time.monotonic() - start
    print(f"fuzz_sweep: {fz.execs} execs in {wall:.1f} s ({fz.execs / wall:.0f}/s), seed {args.seed}, "
          f"corpus {seeds} + {len(corpus) - seeds} new, {len(fz.coverage.seen)} line pairs, "
          f"{len(fz.findings)} finding(s)" + (f" in {args.findings}" if fz.findings else ""))
    return 1 if fz.findings else 0


if __name__ == "__main__":
    sys.exit(main())
