"""Expand a sweep spec into a plan: one row per run, each with a stable run id.

Order: the axes are crossed in the order the sweep file lists them (the first is the
outermost loop), seeds innermost.  The run id is the first 16 hex digits of the SHA-256 of a
canonical JSON document holding the base (preset name and/or the config file's SHA-256), the
resolved overrides exactly as passed to `upswitch run --set` (sorted by key), the seed and the
simulator's `--version` string.  Nothing else (not paths, not the sweep name, not the
outputs) enters it, so the same point in two sweeps shares its cached result.
"""
from __future__ import annotations

import hashlib
import itertools
import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from . import FORMAT_VERSION
from .commands import COMMANDS
from .spec import ARGS_PREFIX, Spec, SpecError, short_repr


class SimulatorError(Exception):
    pass


def format_value(v) -> str:
    """The text given to `--set KEY=TEXT` (and used in the run id)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, list):
        return ",".join(format_value(x) for x in v)
    return str(v)


def simulator_version(binary: str) -> str:
    try:
        r = subprocess.run([binary, "--version"], capture_output=True, text=True, timeout=60)
    except FileNotFoundError:
        raise SimulatorError(f"simulator not found at {binary} (build it with cmake, or set UPSWITCH_BIN / --upswitch)")
    except PermissionError:
        raise SimulatorError(f"simulator {binary} is not executable")
    except subprocess.TimeoutExpired:
        raise SimulatorError(f"{binary} --version did not answer in 60 s")
    v = r.stdout.strip()
    if r.returncode != 0 or not v:
        last = (r.stderr.strip().splitlines() or ["no output"])[-1]
        raise SimulatorError(f"{binary} --version failed (exit {r.returncode}): {last}")
    return " ".join(v.split())


@dataclass
class Run:
    index: int
    run_id: str
    params: dict  # varied key -> value (YAML-typed), in axis order
    seed: int
    overrides: list  # [[key, text], ...] sorted by key: set + params
    argv: list  # arguments after the binary

    def to_json(self) -> dict:
        return {"index": self.index, "run_id": self.run_id, "params": self.params, "seed": self.seed,
                "overrides": self.overrides, "argv": self.argv}


def base_identity(spec: Spec) -> dict:
    base = {}
    if spec.preset is not None:
        base["preset"] = spec.preset
    if spec.config is not None:
        base["config_sha256"] = spec.config_sha256
    return base


def run_id(base: dict, overrides: list, seed: int, version: str, command: dict | None = None) -> str:
    """command: {"command": NAME, "args": [[flag, text], ...]}, None for `run` without args (so
    the ids of sweeps written before other commands could be swept stay the same)."""
    doc = {"base": base, "overrides": overrides, "seed": seed, "simulator": version}
    if command is not None:
        doc.update(command)
    text = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def command_args(spec: Spec, params: dict) -> tuple[list, list, list]:
    """(args for the run id, flags for argv, positional arguments for argv) of one point: the
    fixed args: and the varied args.FLAG, sorted by flag.  A bare flag is given when true and
    left out when false; a file argument is its absolute path in argv and its SHA-256 in the id."""
    cmd = COMMANDS[spec.command]
    merged = dict(spec.args)
    for k, v in params.items():
        if k.startswith(ARGS_PREFIX):
            merged[k[len(ARGS_PREFIX):]] = v
    ident, flags, positional = [], [], []
    for name in sorted(merged):
        v = merged[name]
        if name == cmd.positional:
            path, sha = spec.files[v]
            ident.append([name, f"sha256:{sha}"])
            positional.append(path)
            continue
        f = cmd.flag(name)
        if f.path:  # an input: its absolute path in argv, its content in the id
            path, sha = spec.files[v]
            ident.append([name, f"sha256:{sha}"])
            flags += [f"--{name}", path]
            continue
        if not f.value:
            ident.append([name, format_value(v)])
            if v:
                flags.append(f"--{name}")
            continue
        ident.append([name, format_value(v)])
        flags += [f"--{name}", format_value(v)]
    return ident, flags, positional


def expand(spec: Spec, version: str) -> list[Run]:
    base = base_identity(spec)
    cmd = COMMANDS[spec.command]
    head = [spec.command]
    if spec.config is not None:
        head += ["--config", str(spec.config)]
    if spec.preset is not None:
        head += ["--preset", spec.preset]
    runs: list[Run] = []
    seen: dict[str, int] = {}
    for combo in itertools.product(*[a.values for a in spec.axes]):
        params = {}
        for axis, point in zip(spec.axes, combo):
            for k, v in zip(axis.keys, point):
                params[k] = v
        merged = dict(spec.set)
        merged.update((k, v) for k, v in params.items() if not k.startswith(ARGS_PREFIX))
        overrides = sorted([k, format_value(v)] for k, v in merged.items())
        ident, flags, positional = command_args(spec, params)
        identity = None if spec.command == "run" and not ident else {"command": spec.command, "args": ident}
        for seed in spec.seeds:
            rid = run_id(base, overrides, seed, version, identity)
            if rid in seen:
                point = ", ".join(f"{k}={short_repr(v)}" for k, v in params.items())
                raise SpecError("vary", f"two points resolve to the same run ({point}, seed {seed}); "
                                        "a value is listed twice")
            seen[rid] = len(runs)
            argv = head[:1] + positional + head[1:]
            for k, t in overrides:
                argv += ["--set", f"{k}={t}"]
            argv += flags
            if cmd.seed == "flag":
                argv += ["--seed", str(seed)]
            else:  # coll and p2p have no --seed
                argv += ["--set", f"sim.seed={seed}"]
            runs.append(Run(len(runs), rid, params, seed, overrides, argv))
    return runs


def plan_document(spec: Spec, binary: str, version: str, runs: list[Run]) -> dict:
    return {
        "format": FORMAT_VERSION,
        "name": spec.name,
        "description": spec.description,
        "sweep_file": str(spec.path),
        "command": spec.command,
        "args": spec.args,
        "simulator": {"path": binary, "version": version},
        "base": {"preset": spec.preset, "config": str(spec.config) if spec.config else None},
        "set": {k: spec.set[k] for k in spec.set},
        "params": spec.param_keys,
        "axes": [{"keys": a.keys, "size": len(a.values)} for a in spec.axes],
        "seeds": spec.seeds,
        "outputs": spec.outputs,
        "rows": {k: t.to_json() for k, t in spec.rows.items()},
        "timeout_seconds": spec.timeout_seconds,
        "report": spec.report,
        "runs": [r.to_json() for r in runs],
    }


def default_binary() -> str:
    env = os.environ.get("UPSWITCH_BIN")
    if env:
        return env
    return str(Path(__file__).resolve().parents[2] / "build" / "upswitch")


def format_plan(doc: dict, status: dict | None = None) -> str:
    """A fixed-width table of the plan (what `sweep.py plan` prints)."""
    params = doc["params"]
    header = ["index", "run_id"] + params + ["seed"] + (["status"] if status is not None else [])
    rows = []
    for r in doc["runs"]:
        row = [str(r["index"]), r["run_id"]] + [format_value(r["params"][k]) for k in params] + [str(r["seed"])]
        if status is not None:
            row.append(status.get(r["run_id"], "pending"))
        rows.append(row)
    widths = [max(len(h), *(len(x[i]) for x in rows)) if rows else len(h) for i, h in enumerate(header)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(header, widths)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows]
    sizes = " x ".join(str(a["size"]) for a in doc["axes"])
    base = doc["base"]["preset"] or doc["base"]["config"] or "simulator defaults"
    command = doc.get("command", "run")
    title = (f"# sweep {doc['name']}{'' if command == 'run' else f' (upswitch {command})'}: {len(doc['runs'])} runs = {sizes} point(s) x {len(doc['seeds'])} seed(s); "
             f"base {base}; simulator {doc['simulator']['version']}")
    return "\n".join([title] + lines)
