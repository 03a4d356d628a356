#!/usr/bin/python3
"""Regenerate tests/python/fixtures/tiny-load/: the small stored result set the report tests
plot.  Runs configs/sweeps/tiny-load.yaml with the real simulator ($UPSWITCH_BIN or
build/upswitch) and keeps only what the report reads, with machine-specific fields scrubbed.

    /usr/bin/python3 tests/python/make_fixture.py
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
DEST = HERE / "fixtures" / "tiny-load"
KEEP = ("summary.json", "ports.csv", "latency_histogram.csv", "latency_hist.csv")


def main() -> int:
    binary = os.environ.get("UPSWITCH_BIN", str(REPO / "build" / "upswitch"))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out"
        r = subprocess.run([sys.executable, str(REPO / "scripts" / "sweep.py"), "run",
                            str(REPO / "configs" / "sweeps" / "tiny-load.yaml"), "--out", str(out),
                            "--upswitch", binary, "--quiet"], cwd=REPO)
        if r.returncode != 0:
            print(f"sweep failed (exit {r.returncode})", file=sys.stderr)
            return 1
        if DEST.exists():
            shutil.rmtree(DEST)
        (DEST / "runs").mkdir(parents=True)
        plan = json.loads((out / "plan.json").read_text())
        plan["sweep_file"] = "configs/sweeps/tiny-load.yaml"
        plan["simulator"]["path"] = "build/upswitch"
        (DEST / "plan.json").write_text(json.dumps(plan, indent=1) + "\n")
        for name in ("results.csv", "results.json"):
            shutil.copy(out / name, DEST / name)
        for run in plan["runs"]:
            src, dst = out / "runs" / run["run_id"], DEST / "runs" / run["run_id"]
            dst.mkdir()
            res = json.loads((src / "result.json").read_text())
            res.update(host="fixture", wall_seconds=None, finished_at=None)
            (dst / "result.json").write_text(json.dumps(res, indent=1) + "\n")
            for f in KEEP:
                if (src / f).exists():
                    shutil.copy(src / f, dst / f)
    print(f"wrote {DEST}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
