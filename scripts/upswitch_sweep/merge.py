"""Merge per-run results into OUT/results.csv and OUT/results.json (and, with several seeds,
OUT/results_agg.csv and OUT/results_agg.json).

Without tables (`run`'s default), one row per run in plan order (index); columns: index, run_id,
the varied keys (in the order of the sweep file), seed, status, exit_code, error, then the
outputs.  With tables (the rows: of the sweep file; coll, p2p, workload, replay and table have
default ones), one row per element of the table's list in each run's summary, the run's columns
first, then the outputs, the table's keys and its values; a run without elements (failed, not
run yet) still has one row, with those cells empty.  The first table is results.csv, each
further one results_<name>.csv; results.json holds all of them.

Aggregates (several seeds): one row per point and table key, with n_runs (the ok runs) and, per
output and value column, its mean and the half-width of its 95% Student-t confidence interval
(stats.py).  Only values that are a pure function of (config, seed) go in, so two backends, or a
resumed and an uninterrupted sweep, give byte-identical files; run times and hosts stay in
runs/<id>/result.json.  Every file is written atomically.  results.json lists the files written
("files"); the next merge removes those it does not write again (fewer seeds, other tables).
"""
from __future__ import annotations

import csv
import io
import json
import sys

from .plan import format_value
from .stats import LEVEL, mean_ci
from .store import Store, atomic_write, atomic_write_json

RUN_COLUMNS = ("index", "run_id", "seed", "status", "exit_code", "error")
AGG_METHOD = ("mean and 95% confidence interval over the ok runs (seeds) of each point: "
              "mean +- t(0.975, n-1) * s / sqrt(n), s the sample standard deviation; "
              "columns <name>_mean and <name>_ci95 (the half-width; empty when n < 2)")

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


def plan_tables(plan: dict) -> dict:
    """name -> {"from", "keys", "values"}; none in plans written before tables existed."""
    return plan.get("rows") or {}


def rows(plan: dict, store: Store, missing: dict | None = None, summaries: dict | None = None) -> list[dict]:
    """One dict per planned run.  status is ok, failed or pending (not run yet).  summaries,
    when given, receives run_id -> summary of every ok run."""
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
                summ = store.summary(r["run_id"], res)
                if summaries is not None and summ is not None:
                    summaries[r["run_id"]] = summ
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


def table_columns(plan: dict, t: dict) -> list[str]:
    return columns(plan) + list(t["keys"]) + list(t["values"])


def table_records(plan: dict, t: dict, runs: list[dict], summaries: dict, missing: dict | None = None) -> list[dict]:
    """The rows of one table: flat dicts column -> value, in plan order then list order."""
    out = []
    fields = list(t["keys"]) + list(t["values"])
    for r in runs:
        head = {"index": r["index"], "run_id": r["run_id"]}
        head.update((k, r["params"][k]) for k in plan["params"])
        head.update(seed=r["seed"], status=r["status"], exit_code=r["exit_code"], error=r["error"])
        head.update(r["outputs"])
        elems = []
        if r["run_id"] in summaries:
            got = pointer_get(summaries[r["run_id"]], t["from"])
            if isinstance(got, list):
                elems = [e for e in got if isinstance(e, dict)]
            elif missing is not None:
                missing.setdefault(f"rows from {t['from']}", t["from"])
        for e in elems or [{}]:
            rec = dict(head)
            for f in fields:
                v = e.get(f, _MISSING)
                if v is _MISSING and elems and missing is not None:
                    missing.setdefault(f, f"{t['from']}/*/{f}")
                rec[f] = None if v is _MISSING else v
            out.append(rec)
    return out


def run_records(plan: dict, runs: list[dict]) -> list[dict]:
    """The per-run rows (no table) as flat dicts."""
    out = []
    for r in runs:
        rec = {"index": r["index"], "run_id": r["run_id"]}
        rec.update((k, r["params"][k]) for k in plan["params"])
        rec.update(seed=r["seed"], status=r["status"], exit_code=r["exit_code"], error=r["error"])
        rec.update(r["outputs"])
        out.append(rec)
    return out


def aggregate(plan: dict, records: list[dict], keys: list, values: list) -> tuple[list[str], list[dict]]:
    """Mean and confidence interval of `values` over the ok records of each (point, keys).
    Returns (columns, rows); a point without an ok run keeps one row with n_runs 0."""
    cols = list(plan["params"]) + list(keys) + ["n_runs"]
    for v in values:
        cols += [f"{v}_mean", f"{v}_ci95"]
    groups: dict = {}
    for rec in records:
        point = tuple(format_value(rec[k]) for k in plan["params"])
        ok = rec["status"] == "ok"
        gk = (point, tuple(csv_cell(rec[k]) for k in keys) if ok else None)
        g = groups.setdefault(gk, {"rec": rec, "runs": []})
        if ok:
            g["runs"].append(rec)
    have_ok = {gk[0] for gk, g in groups.items() if gk[1] is not None}
    out = []
    for gk, g in groups.items():
        if gk[1] is None and gk[0] in have_ok:
            continue  # a failed seed of a point that has ok ones: it only lowers n_runs
        row = {k: g["rec"][k] for k in plan["params"]}
        row.update((k, g["rec"][k] if g["runs"] else None) for k in keys)
        row["n_runs"] = len({x["run_id"] for x in g["runs"]})
        for v in values:
            mean, half, _ = mean_ci([x[v] for x in g["runs"]])
            row[f"{v}_mean"], row[f"{v}_ci95"] = mean, half
        out.append(row)
    return cols, out


def _csv(cols: list[str], records: list[dict]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    for rec in records:
        w.writerow([csv_cell(rec[c]) for c in cols])
    return buf.getvalue()


def _file(name: str, first: bool, suffix: str = "") -> str:
    return f"results{suffix}.csv" if first else f"results_{name}{suffix}.csv"


def merge(store: Store, plan: dict | None = None, warn=True) -> dict:
    """Write results.csv and results.json (and the aggregates); returns counts by status."""
    plan = plan or store.read_plan()
    missing: dict = {}
    summaries: dict = {}
    rs = rows(plan, store, missing, summaries)
    tables = plan_tables(plan)
    cols = columns(plan)
    doc = {
        "name": plan["name"],
        "simulator_version": plan["simulator"]["version"],
        "params": plan["params"],
        "outputs": plan["outputs"],
        "columns": cols,
        "runs": rs,
    }
    agg_doc = {"level": LEVEL, "method": AGG_METHOD, "tables": {}}
    several = len(plan.get("seeds", [])) > 1
    written = set()
    if not tables:
        atomic_write(store.out / "results.csv", _csv(cols, run_records(plan, rs)))
        written.add("results.csv")
        if several:
            acols, arows = aggregate(plan, run_records(plan, rs), [], list(plan["outputs"]))
            atomic_write(store.out / "results_agg.csv", _csv(acols, arows))
            written.add("results_agg.csv")
            agg_doc["tables"]["runs"] = {"columns": acols, "rows": arows}
    else:
        doc["command"] = plan.get("command", "run")
        doc["tables"] = {}
        for i, (name, t) in enumerate(tables.items()):
            tcols = table_columns(plan, t)
            recs = table_records(plan, t, rs, summaries, missing)
            f = _file(name, i == 0)
            atomic_write(store.out / f, _csv(tcols, recs))
            written.add(f)
            doc["tables"][name] = dict(t, file=f, columns=tcols, rows=recs)
            if several:
                acols, arows = aggregate(plan, recs, list(t["keys"]), list(plan["outputs"]) + list(t["values"]))
                f = _file(name, i == 0, "_agg")
                atomic_write(store.out / f, _csv(acols, arows))
                written.add(f)
                agg_doc["tables"][name] = {"file": f, "columns": acols, "rows": arows}
    if several:
        atomic_write_json(store.out / "results_agg.json", agg_doc)
        written.add("results_agg.json")
    try:  # files an earlier merge wrote that this plan does not (fewer seeds, other tables)
        old = json.loads((store.out / "results.json").read_text()).get("files", [])
    except (OSError, ValueError, AttributeError):
        old = []
    doc["files"] = sorted(written | {"results.json"})
    atomic_write_json(store.out / "results.json", doc)
    for name in old if isinstance(old, list) else []:
        if isinstance(name, str) and name.startswith("results") and "/" not in name and name not in doc["files"]:
            try:
                (store.out / name).unlink()
            except OSError:
                pass
    counts = {"ok": 0, "failed": 0, "pending": 0}
    for row in rs:
        counts[row["status"]] += 1
    if warn and missing:
        for name, ptr in missing.items():
            print(f"sweep: warning: output {name} ({ptr}) is missing from some run summaries; left empty",
                  file=sys.stderr)
    return counts
