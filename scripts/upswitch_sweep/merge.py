"""Merge per-run results into OUT/results.csv and OUT/results.json.

Rows follow the plan order (index), columns are: index, run_id, the varied keys (in the
order of the sweep file), seed, status, exit_code, error, then the outputs.  Only values that
are a pure function of (config, seed) go in, so two backends, or a resumed and an
uninterrupted sweep, give byte-identical files; run times and hosts stay in
runs/<id>/result.json.  Both files are written atomically.
"""
from __future__ import annotations

import csv
import io
import json
import sys

from .plan import format_value
from .store import Store, atomic_write, atomic_write_json

_MISSING = object()


def pointer_get(doc, pointer: str):
    """RFC 6901 JSON pointer; returns _MISSING when the path does not exist."""
    if pointer == "":
        return doc
    cur = doc
    for raw in pointer.lstrip("/").split("/") if pointer != "/" else [""]:
        tok = raw.replace("~1", "/").replace("~0", "~")
        if cur is None:  # e.g. /latency/packet/p99 when /latency/packet is null (saturated)
            return None
        if isinstance(cur, dict):
            if tok not in cur:
                return _MISSING
            cur = cur[tok]
        elif isinstance(cur, list):
            if not tok.isdigit() or int(tok) >= len(cur):
                return _MISSING
            cur = cur[int(tok)]
        else:
            return _MISSING
    return cur


def csv_cell(v) -> str:
    if v is None:
        return ""
    if isinstance(v, (dict, list)):
        return json.dumps(v, sort_keys=True, separators=(",", ":"))
    return format_value(v)


def columns(plan: dict) -> list[str]:
    return ["index", "run_id"] + plan["params"] + ["seed", "status", "exit_code", "error"] + list(plan["outputs"])


def rows(plan: dict, store: Store, missing: dict | None = None) -> list[dict]:
    """One dict per planned run.  status is ok, failed or pending (not run yet)."""
    out = []
    for r in plan["runs"]:
        res = store.checked_result(r["run_id"])
        row = {"index": r["index"], "run_id": r["run_id"], "params": r["params"], "seed": r["seed"]}
        outputs = {k: None for k in plan["outputs"]}
        if res is None:
            row.update(status="pending", exit_code=None, error=None)
        else:
            row.update(status=res["status"], exit_code=res["exit_code"], error=res["error"] or None)
            if res["status"] == "ok":
                summ = store.summary(r["run_id"])
                for name, ptr in plan["outputs"].items():
                    v = pointer_get(summ, ptr) if summ is not None else _MISSING
                    if v is _MISSING:
                        if missing is not None:
                            missing.setdefault(name, ptr)
                        v = None
                    outputs[name] = v
        row["outputs"] = outputs
        out.append(row)
    return out


def merge(store: Store, plan: dict | None = None, warn=True) -> dict:
    """Write results.csv and results.json; returns counts by status."""
    plan = plan or store.read_plan()
    missing: dict = {}
    rs = rows(plan, store, missing)
    cols = columns(plan)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    for row in rs:
        flat = [row["index"], row["run_id"]] + [row["params"][k] for k in plan["params"]] + \
               [row["seed"], row["status"], row["exit_code"], row["error"]] + [row["outputs"][k] for k in plan["outputs"]]
        w.writerow([csv_cell(x) for x in flat])
    atomic_write(store.out / "results.csv", buf.getvalue())
    atomic_write_json(store.out / "results.json", {
        "name": plan["name"],
        "simulator_version": plan["simulator"]["version"],
        "params": plan["params"],
        "outputs": plan["outputs"],
        "columns": cols,
        "runs": rs,
    })
    counts = {"ok": 0, "failed": 0, "pending": 0}
    for row in rs:
        counts[row["status"]] += 1
    if warn and missing:
        for name, ptr in missing.items():
            print(f"sweep: warning: output {name} ({ptr}) is missing from some summary.json files; left empty",
                  file=sys.stderr)
    return counts
