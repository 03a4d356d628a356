"""Sweep file parsing and validation.

Every problem raises SpecError whose message is one line that names the offending key
(e.g. ``vary[1].zip: lists have different lengths ...``); the CLI prints it and exits 2.
Nothing else may escape load() and plan.expand(), whatever the file holds: scripts/fuzz_sweep.py
checks this (doc/sweeps.md, "Fuzzing the sweep-file parser").  See doc/sweeps.md for the format.
"""
from __future__ import annotations

import hashlib
import math
import os
import re
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path

from .commands import COMMANDS, MANAGED_FLAGS, RUN_OUTPUTS, Command, Table

TOP_KEYS = ("name", "description", "command", "args", "base", "set", "vary", "seeds", "outputs", "rows", "run",
            "slurm", "report")
ROWS_KEYS = ("from", "keys", "values")
ARGS_PREFIX = "args."  # a varied command-line flag: vary: {args.ranks: [4, 8]}
BASE_KEYS = ("preset", "config")
RUN_KEYS = ("timeout_seconds",)
SLURM_KEYS = ("partition", "account", "qos", "time", "mem", "cpus_per_task", "runs_per_task",
              "est_run_seconds", "target_task_seconds", "max_array_size", "array_throttle",
              "poll_seconds", "marker_grace_seconds", "sbatch_args", "python", "job_name")
REPORT_KEYS = ("x", "group_by", "title")
RANGE_KEYS = ("start", "stop", "step", "factor")
PARAM_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+")  # used with fullmatch
NAME_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*")
# Limits that keep a mistyped file from expanding into a plan that fills the memory (expanding
# costs about 40 us and 1 kB per --set override of every run).
MAX_RANGE_POINTS = 100000  # points of one range
MAX_RUNS = 100000  # runs of one sweep (points x seeds)
MAX_OVERRIDES = 1000000  # --set overrides of all runs together (runs x keys); also bounds the values in vary
MAX_INT_DIGITS = 100  # an integer written in the file

# what `run` collects when the sweep file has no `outputs:` (other commands: commands.py)
DEFAULT_OUTPUTS = RUN_OUTPUTS
# the columns every merged row has, before the parameters / after the seed
FIXED_COLUMNS = ("index", "run_id", "seed", "status", "exit_code", "error")


class SpecError(Exception):
    """A malformed sweep file.  str(e) is one line naming the key."""

    def __init__(self, key: str, msg: str):
        self.key = key
        super().__init__(f"{key}: {msg}" if key else msg)


@dataclass
class Axis:
    """One dimension of the grid: one key, or several zipped keys moving together."""
    keys: list[str]
    values: list[tuple]  # one tuple per point, len == len(keys)
    where: str  # the sweep-file path of this axis, for messages


@dataclass
class Spec:
    path: Path
    name: str
    description: str = ""
    command: str = "run"
    args: dict = field(default_factory=dict)  # canonical flag name -> value (fixed command-line flags)
    files: dict = field(default_factory=dict)  # a file argument as written -> (absolute path, SHA-256)
    preset: str | None = None
    config: Path | None = None
    config_sha256: str | None = None
    set: dict = field(default_factory=dict)  # key -> value (YAML scalar or list)
    axes: list[Axis] = field(default_factory=list)
    seeds: list[int] = field(default_factory=lambda: [1])
    outputs: dict = field(default_factory=lambda: dict(DEFAULT_OUTPUTS))  # column -> JSON pointer
    rows: dict = field(default_factory=dict)  # table name -> commands.Table
    timeout_seconds: float | None = None
    slurm: dict = field(default_factory=dict)
    report: dict = field(default_factory=dict)

    @property
    def param_keys(self) -> list[str]:
        return [k for a in self.axes for k in a.keys]


def _type(v) -> str:
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean", int: "an integer",
            float: "a number", type(None): "empty"}.get(type(v), type(v).__name__)


def short_repr(v, limit: int = 60) -> str:
    """v for an error message: its repr, cut to `limit` characters (one line: repr escapes line
    breaks).  A list or mapping is named by its type: it may be huge, or an alias bomb."""
    if isinstance(v, (dict, list, set, tuple)):
        return _type(v)
    r = repr(v)
    return r if len(r) <= limit else r[:limit - 3] + "..."


def _key(k) -> str:
    """A mapping key as a part of the key path in an error message."""
    return k if isinstance(k, str) and k.isprintable() and 0 < len(k) <= 60 else short_repr(k)


def _scalar_ok(v) -> bool:
    return isinstance(v, (str, int, float, bool))


def _check_scalar(where: str, v):
    if isinstance(v, float) and not math.isfinite(v):
        raise SpecError(where, f"must be a finite number, got {v}")
    if isinstance(v, str) and not v.isprintable():
        raise SpecError(where, f"must not contain line breaks, tabs or control characters, got {short_repr(v)}")


def _check_value(where: str, v):
    """A value that can be passed as --set KEY=VALUE: a scalar or a flat list of scalars."""
    if _scalar_ok(v):
        _check_scalar(where, v)
        return
    if isinstance(v, list) and all(_scalar_ok(x) and not isinstance(x, bool) for x in v):
        for i, x in enumerate(v):
            _check_scalar(f"{where}[{i}]", x)
        return
    raise SpecError(where, f"must be a scalar (number, string, true/false) or a flat list, got {_type(v)}")


def _check_param_key(where: str, k):
    if isinstance(k, str) and k.startswith(ARGS_PREFIX):
        raise SpecError(where, f"{k} is a command-line flag: give it under args: (or vary it)")
    if not isinstance(k, str) or not PARAM_RE.fullmatch(k):
        raise SpecError(where, f"parameter name {short_repr(k)} is not a dotted configuration key like 'switch.vcs'")
    if k == "sim.seed":
        raise SpecError(where, "do not set sim.seed here: list the seeds under 'seeds:'")


def _num(where: str, name: str, v) -> Decimal:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise SpecError(f"{where}.{name}", f"must be a number, got {_type(v)}")
    if isinstance(v, float) and not math.isfinite(v):
        raise SpecError(f"{where}.{name}", f"must be a finite number, got {v}")
    return Decimal(repr(v)) if isinstance(v, float) else Decimal(v)


def _range(where: str, r: dict) -> list:
    """{start, stop, step} (arithmetic, stop included when on the grid) or {start, stop, factor}."""
    for k in r:
        if k not in RANGE_KEYS:
            raise SpecError(f"{where}.{_key(k)}", f"unknown range key (allowed: {', '.join(RANGE_KEYS)})")
    for k in ("start", "stop"):
        if k not in r:
            raise SpecError(f"{where}.{k}", "missing (a range needs start, stop and step or factor)")
    if ("step" in r) == ("factor" in r):
        raise SpecError(f"{where}.step", "a range needs exactly one of 'step' or 'factor'")
    start, stop = _num(where, "start", r["start"]), _num(where, "stop", r["stop"])
    all_int = all(isinstance(r[k], int) and not isinstance(r[k], bool) for k in r)
    if all_int:  # exact: Decimal arithmetic keeps 28 digits only
        start, stop = r["start"], r["stop"]
    out: list = []
    if "step" in r:
        step = r["step"] if all_int else _num(where, "step", r["step"])
        if step <= 0:
            raise SpecError(f"{where}.step", f"must be > 0, got {short_repr(r['step'])}")
        if stop < start:
            raise SpecError(f"{where}.stop", f"must be >= start ({short_repr(r['start'])}), got {short_repr(r['stop'])}")
        n = (stop - start) // step if all_int else int((stop - start) / step)
        if n + 1 > MAX_RANGE_POINTS:
            raise SpecError(where, f"range has {n + 1} points (more than {MAX_RANGE_POINTS})")
        out = [start + i * step for i in range(int(n) + 1)]
    else:
        factor = _num(where, "factor", r["factor"])
        if factor <= 1:
            raise SpecError(f"{where}.factor", f"must be > 1, got {short_repr(r['factor'])}")
        if start <= 0:
            raise SpecError(f"{where}.start", f"must be > 0 with a factor, got {short_repr(r['start'])}")
        if stop < start:
            raise SpecError(f"{where}.stop", f"must be >= start ({short_repr(r['start'])}), got {short_repr(r['stop'])}")
        factor = r["factor"] if all_int else factor
        v = start
        while v <= stop:
            out.append(v)
            v = v * factor
            if len(out) > MAX_RANGE_POINTS:
                raise SpecError(where, f"range has more than {MAX_RANGE_POINTS} points")
    if all_int:
        return [int(x) for x in out]
    return [float(x.normalize()) for x in out]


class _Budget:
    """How many more values the vary section may list or generate.  Every value of every key
    appears in at least one run's overrides, so this rejects nothing that MAX_OVERRIDES would
    accept, but it stops before a zip of many long ranges (or aliases of one long list) has
    been expanded and checked."""

    def __init__(self):
        self.left = MAX_OVERRIDES

    def take(self, where: str, n: int):
        if n > self.left:
            raise SpecError(where, f"vary lists or generates more than {MAX_OVERRIDES} values in all; split the sweep")
        self.left -= n


def _values(where: str, v, budget: _Budget) -> list:
    if isinstance(v, dict):
        if set(v) == {"values"}:
            v = v["values"]
        else:
            vals = _range(where, v)
            if not vals:
                raise SpecError(where, "range is empty")
            budget.take(where, len(vals))
            return vals
    if not isinstance(v, list):
        raise SpecError(where, f"must be a list of values or a range {{start, stop, step}}, got {_type(v)}")
    if not v:
        raise SpecError(where, "empty list of values")
    budget.take(where, len(v))
    for i, x in enumerate(v):
        _check_value(f"{where}[{i}]", x)
    return list(v)


def _flag(where: str, key, cmd: Command) -> str:
    """The canonical name of the flag an args: key names, or a one-line error."""
    if not isinstance(key, str) or not key:
        raise SpecError(where, f"must be a flag name of `upswitch {cmd.name}`, got {short_repr(key)}")
    if key == cmd.positional:
        return key
    f = cmd.flag(key)
    if f is not None and f.refused:
        raise SpecError(where, f"--{f.name} cannot be swept: {f.refused}")
    if f is not None:
        return f.name
    k = key.replace("_", "-")
    if k in MANAGED_FLAGS:
        raise SpecError(where, f"--{k} is set by the sweep tool ({MANAGED_FLAGS[k]})")
    known = [f.name + (f" (-{f.short})" if f.short else "") for f in cmd.flags]
    if cmd.positional:
        known.insert(0, cmd.positional)
    raise SpecError(where, f"unknown flag {short_repr(key)} for `upswitch {cmd.name}` "
                           f"(allowed: {', '.join(known) or 'none'})")


def _check_arg_value(where: str, name: str, v, cmd: Command):
    f = cmd.flag(name)
    if f is not None and not f.value:
        if not isinstance(v, bool):
            raise SpecError(where, f"--{name} is a bare flag: true or false, got {short_repr(v)}")
        return
    _check_value(where, v)
    if (name == cmd.positional or (f is not None and f.path)) and not isinstance(v, str):
        raise SpecError(where, f"must be a file path, got {_type(v)}")


def _vary_key(where: str, k, cmd: Command) -> str:
    """A varied key: a dotted configuration key, or args.FLAG (returned with the flag's long name)."""
    if isinstance(k, str) and k.startswith(ARGS_PREFIX):
        return ARGS_PREFIX + _flag(where, k[len(ARGS_PREFIX):], cmd)
    _check_param_key(where, k)
    return k


def _axes_from_mapping(where: str, m: dict, budget: _Budget, cmd: Command) -> list[Axis]:
    axes = []
    for k, v in m.items():
        if k == "zip":
            if not isinstance(v, dict) or not v:
                raise SpecError(f"{where}.zip", f"must be a mapping of key: [values] to advance together, got {_type(v)}")
            cols = {}
            for zk, zv in v.items():
                name = _vary_key(f"{where}.zip.{_key(zk)}", zk, cmd)
                if name in cols:
                    raise SpecError(f"{where}.zip.{zk}", f"names the same flag as another key ({name})")
                cols[name] = _values(f"{where}.zip.{zk}", zv, budget)
                _check_varied_arg(f"{where}.zip.{zk}", name, cols[name], cmd)
            lens = {len(x) for x in cols.values()}
            if len(lens) != 1:
                detail = ", ".join(f"{zk}: {len(zv)}" for zk, zv in cols.items())
                raise SpecError(f"{where}.zip", f"lists have different lengths ({detail})")
            keys = list(cols)
            axes.append(Axis(keys, [tuple(cols[zk][i] for zk in keys) for i in range(lens.pop())], f"{where}.zip"))
        else:
            name = _vary_key(f"{where}.{_key(k)}", k, cmd)
            vals = _values(f"{where}.{k}", v, budget)
            _check_varied_arg(f"{where}.{k}", name, vals, cmd)
            axes.append(Axis([name], [(x,) for x in vals], f"{where}.{k}"))
    return axes


def _check_varied_arg(where: str, name: str, vals: list, cmd: Command):
    if name.startswith(ARGS_PREFIX):
        for i, x in enumerate(vals):
            _check_arg_value(f"{where}[{i}]", name[len(ARGS_PREFIX):], x, cmd)


def _seeds(v) -> list[int]:
    if isinstance(v, bool):
        raise SpecError("seeds", "must be an integer, a list of integers or a range")
    if isinstance(v, int):
        v = [v]
    elif isinstance(v, dict):
        v = _range("seeds", v)
    if not isinstance(v, list) or not v:
        raise SpecError("seeds", f"must be an integer, a non-empty list of integers or a range, got {_type(v)}")
    for i, s in enumerate(v):
        if isinstance(s, bool) or not isinstance(s, int) or s < 0:
            raise SpecError(f"seeds[{i}]", f"must be a non-negative integer, got {short_repr(s)}")
    if len(set(v)) != len(v):
        raise SpecError("seeds", "contains duplicates")
    return list(v)


def _outputs(v) -> dict:
    if isinstance(v, list):
        out = {}
        for i, p in enumerate(v):
            if not isinstance(p, str):
                raise SpecError(f"outputs[{i}]", f"must be a JSON pointer string like /latency/packet/p99, got {_type(p)}")
            out[p.strip("/").replace("/", ".") or "root"] = p
        v = out
    if not isinstance(v, dict) or not v:
        raise SpecError("outputs", f"must be a mapping of column: /json/pointer (or a list of pointers), got {_type(v)}")
    for name, p in v.items():
        if not isinstance(name, str) or not NAME_RE.fullmatch(name):
            raise SpecError(f"outputs.{_key(name)}", "column name must be letters, digits, '_', '.', '+' or '-'")
        if not isinstance(p, str) or not p.startswith("/") or not p.isprintable():
            raise SpecError(f"outputs.{name}", f"must be a JSON pointer starting with '/' (no control characters), got {short_repr(p)}")
    return dict(v)


def _rows(v) -> dict:
    """rows: {NAME: {from: /pointer/to/a/list, keys: [field, ...], values: [field, ...]}}"""
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise SpecError("rows", f"must be a mapping of table name: {{from, keys, values}}, got {_type(v)}")
    out = {}
    for name, t in v.items():
        if not isinstance(name, str) or not NAME_RE.fullmatch(name) or len(name) > 60:
            raise SpecError(f"rows.{_key(name)}", "table name must be letters, digits, '_', '.', '+' or '-'")
        t = _mapping(f"rows.{name}", t, ROWS_KEYS)
        src = t.get("from")
        if not isinstance(src, str) or not src.startswith("/") or not src.isprintable():
            raise SpecError(f"rows.{name}.from", f"must be a JSON pointer to a list, like /rows, got {short_repr(src)}")
        cols = {}
        for part in ("keys", "values"):
            c = t.get(part, [])
            if not isinstance(c, list) or (part == "values" and not c):
                raise SpecError(f"rows.{name}.{part}", f"must be a {'non-empty ' if part == 'values' else ''}"
                                                       f"list of field names, got {_type(c)}")
            for i, x in enumerate(c):
                if not isinstance(x, str) or not NAME_RE.fullmatch(x):
                    raise SpecError(f"rows.{name}.{part}[{i}]", f"must be a field name (letters, digits, '_', '.', "
                                                                f"'+' or '-'), got {short_repr(x)}")
            cols[part] = tuple(c)
        out[name] = Table(src, cols["keys"], cols["values"])
    return out


def _arg_values(spec: Spec, name: str):
    """(where, values) of args.NAME, fixed in args or varied; None when the sweep does not give it."""
    if name in spec.args:
        return f"args.{name}", [spec.args[name]]
    key = ARGS_PREFIX + name
    axis = next((a for a in spec.axes if key in a.keys), None)
    if axis is None:
        return None
    i = axis.keys.index(key)
    return axis.where, [p[i] for p in axis.values]


def _digest(where: str, fp: Path, kind: str) -> str:
    """SHA-256 of an input: one file, or a Chakra prefix's rank files and groups file."""
    try:
        if kind != "chakra":
            if not fp.is_file():
                raise SpecError(where, f"{fp} is not a regular file")
            return hashlib.sha256(fp.read_bytes()).hexdigest()
        h = hashlib.sha256()
        count = 0
        while (part := Path(f"{fp}.{count}.et")).is_file():  # as upswitch reads them: up to the first gap
            h.update(f"{part.name}\0".encode() + hashlib.sha256(part.read_bytes()).digest())
            count += 1
        if count == 0:
            raise SpecError(where, f"{fp}.0.et is not a regular file (a Chakra prefix names PREFIX.0.et, PREFIX.1.et, ...)")
        groups = Path(f"{fp}.groups.json")
        if groups.is_file():
            h.update(b"groups\0" + hashlib.sha256(groups.read_bytes()).digest())
        return h.hexdigest()
    except (OSError, RuntimeError) as e:  # RuntimeError: a symlink loop
        raise SpecError(where, f"cannot read {fp}: {getattr(e, 'strerror', None) or e}")


def _resolve_files(spec: Spec, cmd: Command, path: Path):
    """The command's input paths (replay's trace, --chakra prefix, --chakra-groups), fixed in args
    or varied as args.NAME: each value is a path relative to the sweep file; its content (SHA-256)
    enters the run id."""
    inputs = [(f.name, f.path) for f in cmd.flags if f.path]
    given = {name: _arg_values(spec, name) for name, _ in inputs}
    if cmd.positional:
        found = _arg_values(spec, cmd.positional)
        alt = given.get(cmd.alternative) if cmd.alternative else None
        if found is None and alt is None:
            other = f" or args.{cmd.alternative}" if cmd.alternative else ""
            raise SpecError(f"args.{cmd.positional}",
                            f"missing (`upswitch {spec.command}` needs a {cmd.positional} file{other})")
        if found is not None and alt is not None:
            raise SpecError(f"args.{cmd.alternative}", f"give args.{cmd.positional} or args.{cmd.alternative}, not both")
        inputs.append((cmd.positional, "file"))
        given[cmd.positional] = found
    for name, kind in inputs:
        if given.get(name) is None:
            continue
        where, values = given[name]
        for v in values:
            if v in spec.files:
                continue
            fp = (path.parent / v).resolve()
            spec.files[v] = (str(fp), _digest(where, fp, kind))


def _mapping(where: str, v, allowed) -> dict:
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise SpecError(where, f"must be a mapping, got {_type(v)}")
    for k in v:
        if k not in allowed:
            raise SpecError(f"{where}.{_key(k)}", f"unknown key (allowed: {', '.join(allowed)})")
    return v


_LOADER = None


def _strict_loader():
    """PyYAML's safe loader with two changes: a key written twice in one mapping is an error
    (PyYAML would keep the last one silently), and a scalar PyYAML cannot convert (`2020-13-45`,
    `!!int x`, `!!bool ""`, an integer of 5000 digits) is a YAML error at its line instead of a
    ValueError, KeyError, ... from inside PyYAML."""
    global _LOADER
    if _LOADER is None:
        import yaml  # only the parts that read sweep files need PyYAML (not the Slurm worker)
        from yaml.constructor import ConstructorError

        class Loader(yaml.SafeLoader):
            def construct_object(self, node, deep=False):
                tag = node.tag.replace("tag:yaml.org,2002:", "!!")
                if tag == "!!int" and isinstance(node, yaml.ScalarNode) and len(node.value) > MAX_INT_DIGITS:
                    raise ConstructorError(None, None, f"integer longer than {MAX_INT_DIGITS} digits", node.start_mark)
                try:
                    return super().construct_object(node, deep)
                except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError) as e:
                    why = f" ({e})" if type(e) is ValueError else ""
                    raise ConstructorError(None, None, f"{short_repr(node.value)} is not a valid {tag}{why}",
                                           node.start_mark) from None

            def construct_mapping(self, node, deep=False):
                if isinstance(node, yaml.MappingNode):
                    seen = set()
                    for key_node, _ in node.value:
                        if key_node.tag == "tag:yaml.org,2002:merge":
                            continue
                        key = self.construct_object(key_node, deep=True)
                        try:
                            if key in seen:
                                raise ConstructorError(None, None, f"duplicate key {short_repr(key)}", key_node.start_mark)
                            seen.add(key)
                        except TypeError:  # an unhashable key: PyYAML reports it
                            pass
                return super().construct_mapping(node, deep)
        _LOADER = Loader
    return _LOADER


def load(path: str | os.PathLike) -> Spec:
    import yaml

    path = Path(path)
    try:
        data = path.read_bytes()  # PyYAML decodes: UTF-8, or UTF-16 with a byte-order mark
    except OSError as e:
        raise SpecError("", f"{path}: cannot read sweep file: {e.strerror}")
    try:
        doc = yaml.load(data, Loader=_strict_loader())
    except yaml.reader.ReaderError as e:  # a control character, or not UTF-8 (UTF-16)
        if e.encoding == "unicode":
            raise SpecError("", f"{path}: YAML syntax error at character {e.position + 1}: "
                                f"control character U+{e.character:04X} is not allowed")
        raise SpecError("", f"{path}: not {e.encoding} text: byte 0x{e.character:02x} at offset {e.position} ({e.reason})")
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        what = "YAML error" if isinstance(e, yaml.constructor.ConstructorError) else "YAML syntax error"
        raise SpecError("", f"{path}: {what}{at}: {problem}")
    except RecursionError:
        raise SpecError("", f"{path}: YAML syntax error: lists or mappings nested too deeply") from None
    return parse(doc, path)


def parse(doc, path: Path) -> Spec:
    if not isinstance(doc, dict):
        raise SpecError("", f"{path}: a sweep file must be a YAML mapping with at least 'vary:', got {_type(doc)}")
    for k in doc:
        if k not in TOP_KEYS:
            raise SpecError(_key(k), f"unknown key (allowed: {', '.join(TOP_KEYS)})")
    name = doc.get("name", path.stem)
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        raise SpecError("name", f"must be a simple name (letters, digits, '_', '.', '-'), got {short_repr(name)}")
    desc = doc.get("description", "")
    if not isinstance(desc, str):
        raise SpecError("description", f"must be a string, got {_type(desc)}")
    spec = Spec(path=path.resolve(), name=name, description=desc)

    command = doc.get("command", "run")
    if not isinstance(command, str) or command not in COMMANDS:
        raise SpecError("command", f"unknown command {short_repr(command)} (allowed: {', '.join(COMMANDS)})")
    cmd = COMMANDS[command]
    spec.command = command
    spec.outputs = dict(cmd.outputs)
    spec.rows = dict(cmd.rows)
    args = doc.get("args")
    args = {} if args is None else args
    if not isinstance(args, dict):
        raise SpecError("args", f"must be a mapping of flag: value for `upswitch {command}`, got {_type(args)}")
    for k, v in args.items():
        flag = _flag(f"args.{_key(k)}", k, cmd)
        if flag in spec.args:
            raise SpecError(f"args.{k}", f"names --{flag} again")
        _check_arg_value(f"args.{k}", flag, v, cmd)
        spec.args[flag] = v

    base = _mapping("base", doc.get("base"), BASE_KEYS)
    if "preset" in base:
        if not isinstance(base["preset"], str) or not base["preset"] or not base["preset"].isprintable():
            raise SpecError("base.preset", f"must be a preset name, got {short_repr(base['preset'])}")
        spec.preset = base["preset"]
    if "config" in base:
        c = base["config"]
        if not isinstance(c, str) or not c or not c.isprintable():
            raise SpecError("base.config", f"must be a path to a config YAML, got {short_repr(c)}")
        cp = (path.parent / c).resolve()
        try:
            if cp.exists() and not cp.is_file():  # /dev/zero, a FIFO, a directory: it is hashed, then read by every run
                raise SpecError("base.config", f"{cp} is not a regular file")
            spec.config_sha256 = hashlib.sha256(cp.read_bytes()).hexdigest()
        except OSError as e:
            raise SpecError("base.config", f"cannot read {cp}: {e.strerror or e}")
        spec.config = cp

    sets = doc.get("set")
    sets = {} if sets is None else sets
    if not isinstance(sets, dict):
        raise SpecError("set", f"must be a mapping of key: value, got {_type(sets)}")
    for k, v in sets.items():
        _check_param_key(f"set.{_key(k)}", k)
        _check_value(f"set.{k}", v)
    spec.set = dict(sets)

    if "vary" not in doc:
        raise SpecError("vary", "missing (list the parameters to vary; see doc/sweeps.md)")
    vary = doc["vary"]
    budget = _Budget()
    if isinstance(vary, dict):
        if not vary:
            raise SpecError("vary", "is empty")
        spec.axes = _axes_from_mapping("vary", vary, budget, cmd)
    elif isinstance(vary, list):
        if not vary:
            raise SpecError("vary", "is empty")
        for i, item in enumerate(vary):
            if not isinstance(item, dict) or not item:
                raise SpecError(f"vary[{i}]", f"must be a mapping like {{traffic.rate: [0.1, 0.2]}} or {{zip: {{...}}}}, got {_type(item)}")
            spec.axes += _axes_from_mapping(f"vary[{i}]", item, budget, cmd)
    else:
        raise SpecError("vary", f"must be a mapping or a list of mappings, got {_type(vary)}")
    seen = {}
    for a in spec.axes:
        for k in a.keys:
            if k in seen:
                raise SpecError(a.where, f"key {k} is varied twice (also in {seen[k]})")
            if k in spec.set:
                raise SpecError(a.where, f"key {k} is both varied and fixed in set.{k}")
            if k.startswith(ARGS_PREFIX) and k[len(ARGS_PREFIX):] in spec.args:
                raise SpecError(a.where, f"flag {k[len(ARGS_PREFIX):]} is both varied and fixed in args")
            seen[k] = a.where
    _resolve_files(spec, cmd, path)

    if "seeds" in doc:
        spec.seeds = _seeds(doc["seeds"])
    sizes = [len(a.values) for a in spec.axes] + [len(spec.seeds)]
    runs = math.prod(sizes)
    grid = " x ".join(map(str, sizes[:-1])) if len(sizes) <= 9 else f"{len(sizes) - 1} axes of"
    what = f"{grid} points x {sizes[-1]} seed(s)"
    if runs > MAX_RUNS:
        raise SpecError("vary", f"the sweep has {runs} runs ({what}), more than {MAX_RUNS}; split it into several sweeps")
    keys = len(spec.set) + len(spec.param_keys)
    if runs * keys > MAX_OVERRIDES:
        raise SpecError("vary", f"the sweep passes {runs * keys} --set overrides ({runs} runs x {keys} keys), "
                                f"more than {MAX_OVERRIDES}; split it into several sweeps")
    if "outputs" in doc:
        spec.outputs = _outputs(doc["outputs"])
    if "rows" in doc:
        spec.rows = _rows(doc["rows"])
    taken = set(FIXED_COLUMNS) | set(spec.param_keys)
    for name in spec.outputs:
        if name in taken:
            raise SpecError(f"outputs.{name}", "column name clashes with a parameter or a fixed column")
    for tname, t in spec.rows.items():
        seen_cols = set(taken) | set(spec.outputs)
        for part in ("keys", "values"):
            for c in getattr(t, part):
                if c in seen_cols:
                    raise SpecError(f"rows.{tname}.{part}", f"column {c} clashes with a parameter, an output, "
                                                           "a fixed column or another column of the table")
                seen_cols.add(c)

    run = _mapping("run", doc.get("run"), RUN_KEYS)
    if "timeout_seconds" in run:
        t = run["timeout_seconds"]
        if not _positive_number(t):
            raise SpecError("run.timeout_seconds", f"must be a positive number, got {short_repr(t)}")
        spec.timeout_seconds = float(t)
    spec.slurm = dict(_mapping("slurm", doc.get("slurm"), SLURM_KEYS))
    for k, v in spec.slurm.items():
        validate_slurm_option(f"slurm.{k}", k, v)
    spec.report = dict(_mapping("report", doc.get("report"), REPORT_KEYS))
    for k in ("x",):
        if k in spec.report and spec.report[k] not in spec.param_keys:
            raise SpecError(f"report.{k}", f"must be one of the varied keys ({', '.join(spec.param_keys)}), got {short_repr(spec.report[k])}")
    if not isinstance(spec.report.get("title", ""), str):
        raise SpecError("report.title", f"must be a string, got {_type(spec.report['title'])}")
    if "group_by" in spec.report:
        gb = spec.report["group_by"]
        if not isinstance(gb, list) or any(g not in spec.param_keys for g in gb):
            raise SpecError("report.group_by", f"must be a list of varied keys ({', '.join(spec.param_keys)})")
    return spec


def _positive_number(v) -> bool:
    return not isinstance(v, bool) and isinstance(v, (int, float)) and math.isfinite(v) and v > 0


def validate_slurm_option(where: str, k: str, v):
    """Shared by the sweep file's slurm: section and the command line."""
    if v is None:
        return
    if k in ("partition", "account", "qos", "time", "mem", "python", "job_name"):
        if not isinstance(v, str) or not v or not v.isprintable() or any(c.isspace() for c in v):
            raise SpecError(where, f"must be a non-empty word, got {short_repr(v)}")
        if k == "time" and not re.fullmatch(r"([0-9]+-)?[0-9]+(:[0-9]+){0,2}|[0-9]+-[0-9]+", v):
            raise SpecError(where, f"must be a Slurm time like 30, 01:00:00 or 1-00:00:00, got {short_repr(v)}")
    elif k == "runs_per_task":
        if v != "auto" and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
            raise SpecError(where, f"must be 'auto' or a positive integer, got {short_repr(v)}")
    elif k in ("cpus_per_task", "max_array_size", "array_throttle"):
        lo = 2 if k == "max_array_size" else 1
        if isinstance(v, bool) or not isinstance(v, int) or v < lo:
            raise SpecError(where, f"must be an integer >= {lo}, got {short_repr(v)}")
    elif k in ("est_run_seconds", "target_task_seconds", "poll_seconds", "marker_grace_seconds"):
        if not _positive_number(v):
            raise SpecError(where, f"must be a positive number, got {short_repr(v)}")
    elif k == "sbatch_args":
        if not isinstance(v, list) or not all(isinstance(x, str) and x.isprintable() for x in v):
            raise SpecError(where, "must be a list of strings (extra sbatch arguments)")
