"""Command line of scripts/sweep.py.

Exit codes: 0 every run ok; 1 some runs failed (recorded, see results.csv); 2 bad input
(sweep file, options, simulator missing), one line on stderr naming the key; 3 the backend
could not work (another sweep holds OUT, sbatch refused the job, ...); 130 interrupted
(finished results kept and merged)."""
from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

from . import plan as planmod
from . import spec as specmod
from .interrupt import Interrupt
from .local import default_jobs, run_local
from .merge import merge
from .progress import Progress
from .store import LockedError, Store

EXIT_OK, EXIT_FAILED_RUNS, EXIT_BAD_INPUT, EXIT_BACKEND, EXIT_INTERRUPTED = 0, 1, 2, 3, 130


class UsageError(Exception):
    pass


class Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2 (argparse would print the usage too)
        raise UsageError(f"{self.prog}: {message}")


def _fail(msg: str, code: int) -> int:
    print(f"sweep: {msg}", file=sys.stderr)
    return code


def _binary(arg: str | None) -> str:
    b = arg or planmod.default_binary()
    if os.sep not in b:
        b = shutil.which(b) or b
    return os.path.abspath(b)


def _positive_int(text: str) -> int:
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    if v < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return v


def _positive_float(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    if not v > 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return v


def build_parser() -> Parser:
    ap = Parser(prog="sweep.py", description="Run a grid of upswitch simulations and report on it (doc/sweeps.md).")
    sub = ap.add_subparsers(dest="cmd", required=True, parser_class=Parser)

    def common(p):
        p.add_argument("sweep", help="sweep file (YAML)")
        p.add_argument("--upswitch", metavar="PATH", help="simulator binary (default: $UPSWITCH_BIN or build/upswitch)")

    r = sub.add_parser("run", help="run (or resume) a sweep and merge its results")
    common(r)
    r.add_argument("--backend", choices=("local", "slurm"), default="local")
    r.add_argument("--jobs", "-j", type=_positive_int, help="local: parallel runs (default: number of cores)")
    r.add_argument("--out", metavar="DIR", help="result directory (default: build/sweeps/NAME)")
    r.add_argument("--retry-failed", action="store_true", help="run again the points recorded as failed")
    r.add_argument("--quiet", "-q", action="store_true", help="no progress lines")
    g = r.add_argument_group("slurm backend (override the sweep file's slurm: section)")
    g.add_argument("--partition")
    g.add_argument("--account")
    g.add_argument("--qos")
    g.add_argument("--time", help="time limit per array task, e.g. 00:30:00")
    g.add_argument("--mem", help="memory per array task, e.g. 2G")
    g.add_argument("--runs-per-task", help="runs per array task, or 'auto' (default)")
    g.add_argument("--max-array-size", type=_positive_int, help="the cluster's MaxArraySize (default 1001)")
    g.add_argument("--array-throttle", type=_positive_int, help="at most this many tasks of an array at once")
    g.add_argument("--poll-seconds", type=_positive_float, help="squeue/marker polling period (default 10)")
    g.add_argument("--marker-grace-seconds", type=_positive_float,
                   help="how long a task may be gone from squeue without its marker before it counts as dead (default 30)")
    g.add_argument("--sbatch-arg", action="append", dest="sbatch_args", metavar="ARG",
                   help="extra sbatch argument (repeatable), e.g. --sbatch-arg=--constraint=avx512")
    g.add_argument("--python", help="python3 on the compute nodes (default: this interpreter)")

    p = sub.add_parser("plan", help="print the plan (one row per run) without running anything")
    common(p)
    p.add_argument("--out", metavar="DIR", help="also show the status of each run in this result directory")
    p.add_argument("--json", action="store_true", help="print plan.json instead of a table")

    m = sub.add_parser("merge", help="merge the results found in DIR again")
    m.add_argument("dir")

    rep = sub.add_parser("report", help="plots and a Markdown/HTML report of a finished sweep")
    rep.add_argument("dir", help="the sweep's result directory")
    rep.add_argument("--out", metavar="DIR", help="report directory (default: DIR/report)")

    w = sub.add_parser("_worker", help=argparse.SUPPRESS)
    w.add_argument("out")
    w.add_argument("sub")
    w.add_argument("task", type=int)
    return ap


def _load(args):
    spec = specmod.load(args.sweep)
    binary = _binary(args.upswitch)
    version = planmod.simulator_version(binary)
    runs = planmod.expand(spec, version)
    return spec, binary, version, runs


def cmd_plan(args) -> int:
    spec, binary, version, runs = _load(args)
    doc = planmod.plan_document(spec, binary, version, runs)
    if args.json:
        import json
        print(json.dumps(doc, indent=1))
        return EXIT_OK
    status = Store(args.out).statuses(doc["runs"]) if args.out else None
    print(planmod.format_plan(doc, status))
    return EXIT_OK


def cmd_run(args) -> int:
    spec, binary, version, runs = _load(args)
    slurm_cli = {}
    if args.backend == "slurm":
        from .slurm import SlurmOptions
        for k in ("partition", "account", "qos", "time", "mem", "max_array_size", "array_throttle",
                  "poll_seconds", "marker_grace_seconds", "sbatch_args", "python"):
            slurm_cli[k] = getattr(args, k)
        if args.runs_per_task is not None:
            v = args.runs_per_task
            slurm_cli["runs_per_task"] = v if v == "auto" else (int(v) if v.isdigit() else v)
        for k, v in slurm_cli.items():
            specmod.validate_slurm_option(f"--{k.replace('_', '-')}", k, v)
    out = Path(args.out) if args.out else Path("build") / "sweeps" / spec.name
    doc = planmod.plan_document(spec, binary, version, runs)
    store = Store(out)
    try:
        store.lock()
    except LockedError as e:
        return _fail(str(e), EXIT_BACKEND)
    try:
        store.ensure()
        store.clean_tmp()
        store.write_plan(doc)
        shutil.copyfile(spec.path, store.out / "sweep.yaml")
        plan_runs = doc["runs"]
        status = store.statuses(plan_runs)
        if args.retry_failed:
            status = {k: v for k, v in status.items() if v == "ok"}
        pending = [r for r in plan_runs if r["run_id"] not in status]
        cached_ok = sum(1 for v in status.values() if v == "ok")
        progress = Progress(len(plan_runs), cached_ok, len(status) - cached_ok, quiet=args.quiet)
        progress.note(f"[sweep] {spec.name}: {len(plan_runs)} runs, {len(status)} cached, {len(pending)} to run "
                      f"({args.backend}); simulator {version}; results in {store.out}")
        progress.update(force=True)
        with Interrupt() as intr:
            if args.backend == "local":
                completed = run_local(store, pending, binary, version, args.jobs or default_jobs(),
                                      spec.timeout_seconds, progress, intr)
            else:
                from .slurm import SlurmError, SlurmOptions, run_slurm
                opts = SlurmOptions.from_sources(spec.slurm, slurm_cli)
                try:
                    completed = run_slurm(store, doc, pending, binary, version, opts, progress, intr)
                except SlurmError as e:
                    progress.close()
                    merge(store, doc)
                    return _fail(str(e), EXIT_BACKEND)
        progress.close()
        counts = merge(store, doc)
    finally:
        store.unlock()
    line = (f"sweep {spec.name}: {counts['ok']} ok, {counts['failed']} failed, {counts['pending']} not run; "
            f"merged into {store.out / 'results.csv'}")
    print(line, file=sys.stderr)
    if not completed:
        print(f"sweep: interrupted; run the same command again to resume", file=sys.stderr)
        return intr.exit_code
    return EXIT_FAILED_RUNS if counts["failed"] else EXIT_OK


def cmd_merge(args) -> int:
    store = Store(args.dir)
    try:
        counts = merge(store)
    except FileNotFoundError as e:
        return _fail(str(e), EXIT_BAD_INPUT)
    print(f"{counts['ok']} ok, {counts['failed']} failed, {counts['pending']} not run; "
          f"merged into {store.out / 'results.csv'}", file=sys.stderr)
    return EXIT_OK


def cmd_report(args) -> int:
    from .report import ReportError, make_report
    try:
        index = make_report(Path(args.dir), Path(args.out) if args.out else None)
    except ReportError as e:
        return _fail(str(e), EXIT_BAD_INPUT)
    print(f"report written to {index}", file=sys.stderr)
    return EXIT_OK


def main(argv=None) -> int:
    try:
        args = build_parser().parse_args(argv)
    except UsageError as e:
        print(str(e), file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        if args.cmd == "plan":
            return cmd_plan(args)
        if args.cmd == "run":
            return cmd_run(args)
        if args.cmd == "merge":
            return cmd_merge(args)
        if args.cmd == "report":
            return cmd_report(args)
        if args.cmd == "_worker":
            from .slurm import worker_main
            return worker_main(args.out, args.sub, args.task)
    except specmod.SpecError as e:
        where = getattr(args, "sweep", None)
        from_file = e.key and not e.key.startswith("--")
        return _fail(f"{where}: {e}" if from_file and where else str(e), EXIT_BAD_INPUT)
    except planmod.SimulatorError as e:
        return _fail(str(e), EXIT_BAD_INPUT)
    except KeyboardInterrupt:
        print("sweep: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except FileNotFoundError as e:  # a results directory that is not one, or whose plan is corrupt
        return _fail(str(e), EXIT_BAD_INPUT)
    except OSError as e:  # an --out that cannot be created or written, and the like: one line, no traceback
        where = f" '{e.filename}'" if getattr(e, "filename", None) else ""
        return _fail(f"cannot use{where}: {e.strerror or e}", EXIT_BAD_INPUT)
    except BrokenPipeError:  # `sweep.py plan ... | head`
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    return EXIT_BAD_INPUT
