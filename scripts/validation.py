#!/usr/bin/env python3
"""Theory versus model: runs the upswitch binary on the textbook scenarios and prints the
Markdown table of doc/validation.md (reference value, model value, tolerance, verdict).

Usage: scripts/validation.py [--bin build/upswitch] > doc/validation.md
References: shared facts sheet section 4 (Karol, Hluchyj & Morgan 1987; McKeown 1999; the
output-queued M/D/1-type wait; the credit round-trip rule), reproduced in doc/validation.md's header.
"""
import argparse
import json
import subprocess
import sys
import tempfile

HOL = {2: 0.750, 3: 0.684, 4: 0.655, 8: 0.618, 16: 0.601, 32: 0.594, 72: 0.589}
ISLIP_N72 = {  # mean wait in slots, reference simulation (facts sheet 4.3)
    (1, 0.5): 1.57, (1, 0.8): 191, (2, 0.5): 0.76, (2, 0.8): 5.8,
    (4, 0.5): 0.76, (4, 0.8): 3.9, (4, 0.9): 9.7, (4, 0.95): 23.1,
}


def run(binary, sets, preset=None):
    with tempfile.TemporaryDirectory() as out:
        args = [binary, "run", "--quiet", "--kernel", "plain", "--out", out]
        if preset:
            args += ["--preset", preset]
        for s in sets:
            args += ["--set", s]
        p = subprocess.run(args, capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"validation: {' '.join(args)} failed: {p.stderr.strip()}")
        return json.load(open(f"{out}/summary.json"))


def row(rows, what, ref, model, tol, ok):
    rows.append(f"| {what} | {ref} | {model} | {tol} | {'pass' if ok else '**FAIL**'} |")
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/upswitch")
    a = ap.parse_args()
    rows, ok = [], True
    slotted = ["sim.flush=false", "sim.warmup_cycles=5000"]

    for n, ref in HOL.items():
        s = run(a.bin, slotted + [f"switch.ports={n}", "switch.queueing=fifo", "switch.allocator=separable_input_first",
                                  "traffic.rate=1.0", f"sim.measure_cycles={60000 if n <= 16 else 20000}"], "slotted")
        acc = s["throughput"]["accepted"]
        ok &= row(rows, f"HOL saturation throughput, FIFO, N={n}", f"{ref:.3f}", f"{acc:.4f}", "±0.015",
                  abs(acc - ref) <= 0.015)

    for (it, load), ref in ISLIP_N72.items():
        s = run(a.bin, slotted + ["switch.ports=72", f"switch.allocator_iterations={it}", f"traffic.rate={load}",
                                  "sim.measure_cycles=20000"], "slotted")
        mean = s["latency"]["packet"]["mean"]
        wait = None if mean is None else mean - s["latency"]["zero_load_cycles"]
        tol = 0.2 * ref
        model = "saturated" if wait is None else f"{wait:.2f}"
        ok &= row(rows, f"VOQ + iSLIP-{it}, N=72, load {load}: mean wait (slots)", f"{ref}", model, "±20%",
                  wait is not None and abs(wait - ref) <= tol)
    s = run(a.bin, slotted + ["switch.ports=72", "switch.allocator_iterations=4", "traffic.rate=0.95",
                              "sim.measure_cycles=20000"], "slotted")
    acc = s["throughput"]["accepted"]
    ok &= row(rows, "VOQ + iSLIP-4, N=72, offered 0.95: accepted", "≥ 0.95 × 0.995", f"{acc:.4f}", "",
              acc >= 0.95 * 0.995)

    # Crossbar speedup 2: VOQ + iSLIP-4 waits like an output-queued switch (facts 4.2).
    for load in (0.5, 0.8, 0.9):
        s = run(a.bin, slotted + ["switch.ports=72", "switch.speedup=2", f"traffic.rate={load}",
                                  "sim.measure_cycles=20000"], "slotted")
        ref = (71 / 72) * load / (2 * (1 - load))
        mean = s["latency"]["packet"]["mean"]
        wait = None if mean is None else mean - s["latency"]["zero_load_cycles"]
        model = "saturated" if wait is None else f"{wait:.2f}"
        ok &= row(rows, f"VOQ + iSLIP-4, speedup 2, N=72, load {load}: mean wait (slots)",
                  f"{ref:.2f} (output-queued)", model, "±5%", wait is not None and abs(wait - ref) <= 0.05 * ref)

    # Credit loop: input side, R = L + Rt + C = 3 + 2 + 5 cycles.
    for f in (2, 5, 8, 10, 20):
        s = run(a.bin, ["switch.ports=2", "switch.vcs=1", f"switch.vc_buffer_flits={f}", "switch.shared_buffer_flits=0",
                        "link.gbytes_per_s=0",
                        "endpoint.rx_vc_flits=4096", "link.latency_cycles=3", "link.credit_delay_cycles=5",
                        "switch.routing_cycles=2", "traffic.pattern=shift", "traffic.rate=1.0",
                        "traffic.packet_flits=1", "sim.flush=false", "sim.warmup_cycles=2000",
                        "sim.measure_cycles=20000"])
        ref = min(1.0, f / 10)
        acc = s["throughput"]["accepted"]
        ok &= row(rows, f"credit loop F={f}, R=10: flits/cycle", f"{ref:.3f}", f"{acc:.4f}", "±2%",
                  abs(acc - ref) <= 0.02 * ref)

    # Link rate: 64 B flits at 1.6 GHz move 102.4 GB/s at one flit per cycle.
    for gbps in (98.125, 51.2):
        s = run(a.bin, ["switch.ports=2", "switch.vcs=1", "switch.vc_buffer_flits=4096", "switch.shared_buffer_flits=0",
                        "endpoint.rx_vc_flits=4096", f"link.gbytes_per_s={gbps}", "traffic.pattern=shift",
                        "traffic.rate=1.0", "traffic.packet_flits=1", "sim.flush=false", "sim.warmup_cycles=2000",
                        "sim.measure_cycles=20000"])
        ref = gbps / 102.4
        acc = s["throughput"]["accepted"]
        ok &= row(rows, f"link at {gbps} GB/s, saturated single flow: flits/cycle", f"{ref:.4f}", f"{acc:.4f}", "±0.5%",
                  abs(acc - ref) <= 0.005 * ref)

    # Speculation: 1 VC, 1-flit packets, vc queueing, 1-cycle stages, under a permutation. A head
    # is allocated its VC the cycle after the packet ahead of it crossed and crosses Va = 1 cycle
    # later (0.5 per input) or, speculating, in its VC-allocation cycle (1.0).
    spec = ["switch.ports=16", "switch.queueing=vc", "switch.vcs=1", "switch.vc_buffer_flits=64",
            "switch.shared_buffer_flits=0", "switch.routing_cycles=1", "switch.vc_alloc_cycles=1",
            "switch.sw_alloc_cycles=1", "switch.xbar_cycles=1", "switch.egress_cycles=0", "link.latency_cycles=1",
            "link.credit_delay_cycles=1", "link.gbytes_per_s=0", "endpoint.rx_vc_flits=64",
            "endpoint.rx_shared_flits=0", "traffic.packet_flits=1", "traffic.pattern=shift", "traffic.rate=1.0",
            "sim.measure_cycles=20000"]
    for on, ref in (("false", 0.5), ("true", 1.0)):
        acc = run(a.bin, spec + [f"switch.speculative={on}"])["throughput"]["accepted"]
        ok &= row(rows, f"VA round trip, 1 VC, permutation, speculative={on}: flits/cycle", f"{ref:.3f}",
                  f"{acc:.4f}", "±1%", abs(acc - ref) <= 0.01 * ref)

    # Packet mode: VOQ with 4-flit packets keeps the single-flit saturation (default preset).
    one = run(a.bin, ["traffic.rate=1.0", "traffic.packet_flits=1"])["throughput"]["accepted"]
    for alloc in ("islip", "wavefront"):
        acc = run(a.bin, ["traffic.rate=1.0", f"switch.allocator={alloc}", "switch.packet_mode=true"])
        acc = acc["throughput"]["accepted"]
        ref = one if alloc == "islip" else run(a.bin, ["traffic.rate=1.0", f"switch.allocator={alloc}",
                                                      "traffic.packet_flits=1"])["throughput"]["accepted"]
        ok &= row(rows, f"VOQ + {alloc}, default preset, 4-flit packets in packet mode: saturation",
                  f"{ref:.4f} (1-flit)", f"{acc:.4f}", "±0.03", abs(acc - ref) <= 0.03)

    # Zero-load latency of the default configuration, against the sum of its stages.
    s = run(a.bin, ["traffic.rate=0.0005", "traffic.pattern=shift", "sim.warmup_cycles=0", "sim.measure_cycles=400000"])
    c = s["config"]
    by_hand = 2 * c["link"]["latency_cycles"] + c["switch"]["routing_cycles"] + c["switch"]["sw_alloc_cycles"] + \
        c["switch"]["xbar_cycles"] + c["switch"]["egress_cycles"] + c["traffic"]["packet_flits"] - 1
    p50 = s["latency"]["packet"]["p50"]
    ok &= row(rows, "zero-load latency, default config, 4-flit packet (cycles)", f"{by_hand}", f"{p50}", "exact",
              p50 == by_hand)
    ns = (by_hand - 2 * c["link"]["latency_cycles"]) / c["switch"]["clock_ghz"]
    rows.append(f"| default core pipeline, ingress to egress (ns) | UALink target 100-150 ns port to port "
                f"incl. PHY | {ns:.1f} ns + Rx 50 + Tx 20 = {ns + 70:.1f} ns | | info |")

    print("| check | theory / reference | model | tolerance | verdict |")
    print("| --- | --- | --- | --- | --- |")
    print("\n".join(rows))
    if not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
