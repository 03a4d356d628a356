#!/usr/bin/env python3
"""Goodput and latency against the DL flit error rate (doc/reliability.md), with the real binary.

For each error rate it runs the default 72-port configuration with the data-link layer on, twice:
  * every port sending flat out to the next (traffic.pattern = shift, rate 1.0): the links are
    backlogged, so the DL counters give each link's goodput (first transmissions / all
    transmissions), beside the go-back-N prediction 1 / (1 + W p / (1 - p)) and the end-to-end
    accepted rate as a fraction of the link's TL rate;
  * uniform traffic at half load: mean and p99 packet latency.
It writes JSON (--out) and prints a Markdown table. Everything comes from summary.json's
registered counters, never from log text.

Usage: scripts/reliability_table.py [--bin build/upswitch] [--out results/reliability.json]
                                    [--rates 0,1e-6,1e-5,1e-4,1e-3,1e-2] [--set KEY=VALUE ...]
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile


def run(binary, sets, out_dir):
    cmd = [binary, "run", "--quiet", "--out", out_dir]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd, check=True)
    with open(os.path.join(out_dir, "summary.json")) as f:
        return json.load(f)


def replay_slots(cfg, link_flits_per_cycle):
    """W: slots from a corrupt DL flit's slot to the slot its replay starts in (config: nested)."""
    dl, link = cfg["link"]["dl"], cfg["link"]
    slot = dl["payload_bytes"] / (link_flits_per_cycle * cfg["switch"]["flit_bytes"])
    loop = slot + 2 * link["latency_cycles"] + dl["rx_cycles"] + dl["ack_cycles"]
    return math.ceil(loop / slot), slot


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bin", default="build/upswitch")
    ap.add_argument("--out", default="")
    ap.add_argument("--rates", default="0,1e-6,1e-5,1e-4,1e-3,1e-2")
    ap.add_argument("--set", action="append", default=[], help="extra KEY=VALUE for every run")
    a = ap.parse_args()
    rates = [float(r) for r in a.rates.split(",")]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for p in rates:
            base = ["link.dl.enable=true", f"link.dl.flit_error_rate={p:g}"] + a.set
            sat = run(a.bin, base + ["traffic.pattern=shift", "traffic.shift=1", "traffic.rate=1.0"],
                      os.path.join(tmp, "sat"))
            lat = run(a.bin, base + ["traffic.rate=0.5"], os.path.join(tmp, "lat"))
            s = sat["stats"]
            link = sat["throughput"]["link_flits_per_cycle"]
            w, slot = replay_slots(sat["config"], link)
            sent = s["dl.up.frames_sent"]["value"] + s["dl.down.frames_sent"]["value"]
            again = s["dl.up.frames_replayed"]["value"] + s["dl.down.frames_replayed"]["value"]
            errors = s["dl.up.crc_errors"]["value"] + s["dl.down.crc_errors"]["value"]
            rows.append({
                "flit_error_rate": p,
                "replay_slots": w,
                "slot_cycles": slot,
                "crc_errors": errors,
                "link_goodput": sent / (sent + again) if sent + again else 1.0,
                "predicted_goodput": 1.0 / (1.0 + w * p / (1.0 - p)),
                "end_to_end_goodput": sat["throughput"]["accepted"] / link,
                "mean_latency_ns": lat["latency"]["packet"]["mean_ns"],
                "p99_latency_ns": lat["latency"]["packet"]["p99_ns"],
            })
            print(f"p = {p:g}: {errors} errors", file=sys.stderr)
    print("| DL flit error rate | errors (both directions) | link goodput | go-back-N prediction "
          "| end-to-end goodput | mean latency at 0.5 load | p99 latency |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print(f"| {r['flit_error_rate']:g} | {r['crc_errors']} | {r['link_goodput']:.4f} | "
              f"{r['predicted_goodput']:.4f} | {r['end_to_end_goodput']:.4f} | "
              f"{r['mean_latency_ns']:.1f} ns | {r['p99_latency_ns']:.1f} ns |")
    if a.out:
        os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
        with open(a.out, "w") as f:
            json.dump({"rows": rows, "extra_sets": a.set}, f, indent=1)


if __name__ == "__main__":
    main()
