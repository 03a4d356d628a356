#!/usr/bin/env python3
"""RTL co-simulation speed: cycles per second of the Verilated reference RTL and of the model,
at 8 and 72 ports, uniform traffic at load 0.6, and the model alone (`upswitch run --kernel
plain`, which skips idle cycles) for the same case. Writes JSON (doc/cosim.md)."""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

CASES = [("tiny", 8), ("ualink-x4", 72)]


def cosim(binary, preset, allocator, packets):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "cosim.json")
        cmd = [binary, "cosim", "--preset", preset, "--pattern", "uniform", "--load", "0.6",
               "--packets", str(packets), "--set", f"switch.allocator={allocator}", "--quiet", "--json", out]
        subprocess.run(cmd, check=True)
        with open(out) as f:
            return json.load(f)


def model_only(binary, preset, allocator, warmup, measure):
    cmd = [binary, "run", "--kernel", "plain", "--preset", preset, "--quiet", "--out", "",
           "--set", "link.gbytes_per_s=0", "--set", "traffic.pattern=uniform", "--set", "traffic.rate=0.6",
           "--set", f"switch.allocator={allocator}", "--set", f"sim.warmup_cycles={warmup}",
           "--set", f"sim.measure_cycles={measure}"]
    with tempfile.TemporaryDirectory() as d:
        cmd[cmd.index("--out") + 1] = d
        t0 = time.monotonic()
        subprocess.run(cmd, check=True)
        wall = time.monotonic() - t0
        with open(os.path.join(d, "summary.json")) as f:
            s = json.load(f)
    return {"cycles": s["sim"]["cycles"], "cycles_per_second": s["sim"]["cycles_per_second"], "wall_seconds": wall}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--bin", default="build/upswitch")
    ap.add_argument("--packets", type=int, default=100000)
    ap.add_argument("--out", default="-")
    args = ap.parse_args()
    rows = []
    for preset, ports in CASES:
        for allocator in ("islip", "separable_input_first"):
            j = cosim(args.bin, preset, allocator, args.packets)
            m = model_only(args.bin, preset, allocator, 100, j["cycles"])
            rows.append({"ports": ports, "allocator": allocator, "load": 0.6, "cycles": j["cycles"], "agree": j["agree"],
                         "rtl_cycles_per_second": j["rtl"]["cycles_per_second"],
                         "model_in_lockstep_cycles_per_second": j["model"]["cycles_per_second"],
                         "model_only_cycles_per_second": m["cycles_per_second"]})
            print(f"{ports:3d} ports {allocator:22s} rtl {rows[-1]['rtl_cycles_per_second']:10.0f}  model (lockstep) "
                  f"{rows[-1]['model_in_lockstep_cycles_per_second']:10.0f}  model only {m['cycles_per_second']:10.0f} "
                  "cycles/s", file=sys.stderr)
    text = json.dumps({"benchmark": "cosim", "rows": rows}, indent=2) + "\n"
    if args.out == "-":
        sys.stdout.write(text)
    else:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
