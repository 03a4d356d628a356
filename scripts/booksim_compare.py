#!/usr/bin/env python3
"""upswitch side by side with BookSim2 on a single router (doc/validation.md, "Side by side with
BookSim2").

BookSim2 is a peer for comparison, never a dependency: build it yourself from a checkout
(`make -C src` in github.com/booksim/booksim2) and pass the binary with --booksim.

For every case (allocator, VCs, packet size, traffic, packet mode) and load, the script writes a
BookSim configuration (one `fly` router: k = ports, n = 1, dest_tag routing, 8 flits per VC,
non-speculative) and the matching upswitch `run --set ...` (vc queueing, the same VCs x 8 flits,
no shared buffer, the same allocator and traffic), runs both, and writes one row per simulator
and load to OUT/results.csv and OUT/results.json, and the paired comparison (queueing delay
above zero load, relative difference) to OUT/compare.csv.

With --speculative both run speculative switch allocation instead (BookSim `speculative = 1`
with its defaults spec_sw_allocator = prio, spec_check_elig = spec_check_cred = 1,
spec_mask_by_reqs = 0; upswitch `switch.speculative=true`), the case names get a `-spec` suffix,
and the upswitch rows carry its speculative_grants and speculative_wasted counters.
--booksim-set and --upswitch-set add or override single keys on one side, for the runs that
test an explanation of a difference.

Stage mapping (measured, see the doc): BookSim's injection and ejection channels of a fly take
one cycle each, its router has routing_delay, vc_alloc_delay, sw_alloc_delay and
st_final_delay of 1 cycle and reads an arriving flit one cycle after the channel delivers it,
so a 1-flit packet crosses in 7 cycles; upswitch's L + Rt + Va + Sa + X + E + L with L = 1,
Rt = 2, Va = Sa = X = 1, E = 0 gives the same 7. With --routing-delay 0 (BookSim's lookahead
routing: the route is computed upstream) both are 6 cycles, and upswitch gets Rt = 1.

Usage:
  scripts/booksim_compare.py --booksim ~/booksim2/src/booksim [--upswitch build/upswitch]
      [--ports 72] [--loads 0.1,0.3,...] [--routing-delay 1] [--vc-allocator islip]
      [--cases NAME,...] [--speculative] [--booksim-set KEY=VALUE ...]
      [--upswitch-set KEY=VALUE ...] [--out build/booksim_compare]
"""
import argparse
import csv
import json
import os
import re
import subprocess
import sys
import tempfile
import time

LOADS = [0.1, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]


def cases(speculative=False):
    """(name, allocator, vcs, packet flits, pattern, packet mode); names end in -spec when
    speculative."""
    out = []
    for alloc in ("sepif", "islip"):
        for vcs in (1, 4):
            for flits in (1, 4):
                out.append(dict(name=f"{alloc}-vc{vcs}-p{flits}-uniform", alloc=alloc, vcs=vcs,
                                flits=flits, pattern="uniform", packet_mode=False))
    for pattern in ("hotspot", "tornado"):
        for flits in (1, 4):
            out.append(dict(name=f"sepif-vc4-p{flits}-{pattern}", alloc="sepif", vcs=4,
                            flits=flits, pattern=pattern, packet_mode=False))
    for alloc in ("sepif", "islip"):
        out.append(dict(name=f"{alloc}-vc4-p4-uniform-pktmode", alloc=alloc, vcs=4, flits=4,
                        pattern="uniform", packet_mode=True))
    if speculative:
        for c in out:
            c["name"] += "-spec"
    return out


# hotspot: BookSim's hotspot pattern sends every packet to a weighted list of nodes; weight 2 on
# node 0 and 1 on every other node gives P(0) = 2/(N+1). upswitch's hotspot sends a fraction f to
# port 0 and the rest uniformly over all N ports (port 0 included): f + (1-f)/N = 2/(N+1) for
# f = 1/(N+1).
def hotspot_fraction(ports):
    return 1.0 / (ports + 1)


def tornado_shift(ports):
    # BookSim's tornado on a k-ary 1-fly: dst = (src + (k+1)/2 - 1) mod k
    return (ports + 1) // 2 - 1


def booksim_config(c, a, load):
    # BookSim's IQ router builds its allocators without the configuration, so alloc_iters is
    # ignored there (every iSLIP allocator runs one iteration) unless the name carries the
    # count: islip(4). The lexer of a configuration file refuses parentheses outside braces, so
    # the allocators go on the command line, whose parser takes them.
    sw = "separable_input_first" if c["alloc"] == "sepif" else f"islip({a.islip_iters})"
    lines = {
        "topology": "fly", "k": a.ports, "n": 1, "routing_function": "dest_tag",
        "num_vcs": c["vcs"], "vc_buf_size": 8, "wait_for_tail_credit": 0,
        "speculative": 1 if a.speculative else 0,
        "hold_switch_for_packet": 1 if c["packet_mode"] else 0,
        "routing_delay": a.routing_delay, "vc_alloc_delay": 1, "sw_alloc_delay": 1,
        "st_prepare_delay": 0, "st_final_delay": 1, "credit_delay": 0,
        "input_speedup": 1, "output_speedup": 1, "internal_speedup": 1.0,
        "packet_size": c["flits"], "injection_rate_uses_flits": 1,
        "injection_rate": load, "sim_type": "latency",
        "sample_period": a.sample_period, "warmup_periods": 3, "max_samples": 10,
        "seed": a.seed,
    }
    if c["pattern"] == "uniform":
        lines["traffic"] = "uniform"
    elif c["pattern"] == "tornado":
        lines["traffic"] = "tornado"
    else:
        # a per-class list of one pattern: BookSim's lexer takes parentheses only inside braces,
        # and the inner braces keep the two parameter lists together
        weights = ",".join(["2"] + ["1"] * (a.ports - 1))
        nodes = ",".join(str(i) for i in range(a.ports))
        lines["traffic"] = f"{{hotspot({{{{{nodes}}},{{{weights}}}}})}}"
    if load >= 1.0:
        # saturation: run every sample period instead of aborting at 500 cycles of latency, and
        # report the accepted rate over the periods after the warm-up
        lines["latency_thres"] = -1.0
    # --booksim-set goes on the command line, after the file, so it overrides it
    return ("".join(f"{k} = {v};\n" for k, v in lines.items()),
            [f"vc_allocator={a.vc_allocator}", f"sw_allocator={sw}"] + a.booksim_set)


def upswitch_sets(c, a, load):
    sets = {
        "switch.ports": a.ports, "switch.queueing": "vc", "switch.vcs": c["vcs"],
        "switch.vc_buffer_flits": 8, "switch.shared_buffer_flits": 0,
        "switch.allocator": "separable_input_first" if c["alloc"] == "sepif" else "islip",
        "switch.allocator_iterations": 1 if c["alloc"] == "sepif" else a.islip_iters,
        "switch.routing_cycles": 1 + a.routing_delay, "switch.vc_alloc_cycles": 1,
        "switch.sw_alloc_cycles": 1, "switch.xbar_cycles": 1, "switch.egress_cycles": 0,
        "link.latency_cycles": 1, "link.credit_delay_cycles": 1, "link.gbytes_per_s": 0,
        "endpoint.rx_vc_flits": 8, "endpoint.rx_shared_flits": 0,
        "traffic.packet_flits": c["flits"], "traffic.rate": load,
        "switch.packet_mode": "true" if c["packet_mode"] else "false",
        "sim.measure_cycles": a.measure_cycles,
    }
    if c["pattern"] == "uniform":
        sets["traffic.pattern"] = "uniform"
    elif c["pattern"] == "tornado":
        sets["traffic.pattern"] = "shift"
        sets["traffic.shift"] = tornado_shift(a.ports)
    else:
        sets["traffic.pattern"] = "hotspot"
        sets["traffic.hotspot_ports"] = "[0]"
        sets["traffic.hotspot_fraction"] = f"{hotspot_fraction(a.ports):.9f}"
    if a.speculative:
        sets["switch.speculative"] = "true"
    for kv in a.upswitch_set:
        k, _, v = kv.partition("=")
        sets[k] = v
    return [f"{k}={v}" for k, v in sets.items()]


NUM = r"([-+0-9.eE]+|nan|-?inf)"


def run_booksim(c, a, load):
    text, overrides = booksim_config(c, a, load)
    with tempfile.NamedTemporaryFile("w", suffix=".cfg", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        t0 = time.time()
        p = subprocess.run(["nice", "-n", "10", a.booksim, path] + overrides,
                           capture_output=True, text=True)
        wall = time.time() - t0
    finally:
        os.unlink(path)
    out = p.stdout
    row = dict(sim="booksim", case=c["name"], load=load, wall_s=round(wall, 2))
    overall = out.split("====== Overall Traffic Statistics ======")
    if len(overall) == 2 and "Simulation unstable" not in out:
        o = overall[1]
        row["packet_latency"] = float(re.search(r"Packet latency average = " + NUM, o).group(1))
        row["network_latency"] = float(re.search(r"Network latency average = " + NUM, o).group(1))
        row["accepted"] = float(re.search(r"Accepted flit rate average = " + NUM, o).group(1))
        row["offered"] = float(re.search(r"Injected flit rate average = " + NUM, o).group(1))
        # BookSim's own criterion (latency_thres, 500 cycles by default), which the saturation
        # runs switch off
        row["saturated"] = row["packet_latency"] > 500
    else:
        # unstable: the accepted rate of the last sample display (over the periods since the
        # statistics were last cleared, i.e. after the warm-up)
        acc = re.findall(r"Accepted flit rate average= " + NUM, out)
        inj = re.findall(r"Injected flit rate average = " + NUM + r"\n", out)
        if not acc:
            sys.exit(f"booksim failed for {c['name']} at {load}:\n{out[-2000:]}\n{p.stderr}")
        row.update(packet_latency=None, network_latency=None, accepted=float(acc[-1]),
                   offered=float(inj[-1]) if inj else None, saturated=True)
    return row


def run_upswitch(c, a, load):
    with tempfile.TemporaryDirectory() as out:
        args = ["nice", "-n", "10", a.upswitch, "run", "--kernel", "plain", "--quiet",
                "--seed", str(a.seed), "--out", out]
        for s in upswitch_sets(c, a, load):
            args += ["--set", s]
        t0 = time.time()
        p = subprocess.run(args, capture_output=True, text=True)
        wall = time.time() - t0
        if p.returncode != 0:
            sys.exit(f"upswitch failed ({p.returncode}) for {c['name']} at {load}: {p.stderr}")
        with open(os.path.join(out, "summary.json")) as f:
            s = json.load(f)
    lat = s["latency"]
    row = dict(sim="upswitch", case=c["name"], load=load, wall_s=round(wall, 2),
               packet_latency=lat["packet"]["mean"], network_latency=lat["network"]["mean"],
               accepted=s["throughput"]["accepted"], offered=s["throughput"]["offered"],
               saturated=bool(s["saturated"]), zero_load=lat.get("zero_load_cycles"))
    if a.speculative:
        # The speculation counters cover the whole run (warm-up, measurement and drain), so
        # compare them as a ratio to the grants, not as a rate. (zero_load_cycles already counts
        # the VC-allocation cycle speculation overlaps.)
        st = s["stats"]
        row.update(grants=st["switch.grants"]["value"],
                   speculative_grants=st["switch.speculative_grants"]["value"],
                   speculative_wasted=st["switch.speculative_wasted"]["value"])
    return row


def markdown(out):
    with open(os.path.join(out, "results.json")) as f:
        comp = json.load(f)["compare"]
    print("| case | BookSim2 saturation | upswitch saturation | difference |")
    print("| --- | --- | --- | --- |")
    for r in comp:
        if r["load"] == 1.0:
            print(f"| {r['case']} | {r['booksim_accepted']:.3f} | {r['upswitch_accepted']:.3f} "
                  f"| {r['upswitch_accepted'] - r['booksim_accepted']:+.3f} |")
    print()
    print("| case | load | zero load | BookSim2 latency | upswitch latency | difference "
          "| queueing BookSim2 / upswitch | difference |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in comp:
        if r["load"] >= 1.0:
            continue
        if r.get("latency_rel_diff") is None:
            b = "sat." if r["booksim_saturated"] else f"{r['booksim_latency']:.2f}"
            u = "sat." if r["upswitch_saturated"] else f"{r['upswitch_latency']:.2f}"
            print(f"| {r['case']} | {r['load']:.3f} | {r['zero_load']} | {b} | {u} | | | |")
            continue
        q = r.get("queueing_rel_diff")
        print(f"| {r['case']} | {r['load']:.3f} | {r['zero_load']} | {r['booksim_latency']:.2f} "
              f"| {r['upswitch_latency']:.2f} | {100 * r['latency_rel_diff']:+.1f}% "
              f"| {r['booksim_queueing']:.2f} / {r['upswitch_queueing']:.2f} "
              f"| {'' if q is None else f'{100 * q:+.0f}%'} |")
    return 0


def parser():
    """The command line, and with it every setting's default (scripts/bench.py takes them too)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--booksim", help="path to the booksim binary (required unless --markdown)")
    ap.add_argument("--upswitch", default="build/upswitch")
    ap.add_argument("--ports", type=int, default=72)
    ap.add_argument("--loads", default=",".join(str(x) for x in LOADS))
    ap.add_argument("--relative-loads", default="0.5,0.8,0.9",
                    help="loads as fractions of the lower saturation throughput of the two")
    ap.add_argument("--cases", default="", help="comma-separated case names (default: all)")
    ap.add_argument("--routing-delay", type=int, default=1, choices=(0, 1),
                    help="BookSim routing_delay; 0 = lookahead routing (upswitch Rt = 1)")
    ap.add_argument("--vc-allocator", default="islip",
                    help="BookSim vc_allocator (default islip: BookSim's default, one "
                         "iteration; islip(4) for four; upswitch's VC allocation is a maximal "
                         "round-robin one per output)")
    ap.add_argument("--islip-iters", type=int, default=4,
                    help="iSLIP iterations of the switch allocator (BookSim islip(N), upswitch "
                         "allocator_iterations)")
    ap.add_argument("--sample-period", type=int, default=10000, help="BookSim sample_period")
    ap.add_argument("--measure-cycles", type=int, default=40000, help="upswitch sim.measure_cycles")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--speculative", action="store_true",
                    help="speculative switch allocation on both (BookSim speculative = 1, "
                         "upswitch switch.speculative=true); case names end in -spec")
    ap.add_argument("--booksim-set", action="append", default=[], metavar="KEY=VALUE",
                    help="extra BookSim setting, after the script's (repeatable)")
    ap.add_argument("--upswitch-set", action="append", default=[], metavar="KEY=VALUE",
                    help="extra upswitch --set, after the script's (repeatable)")
    ap.add_argument("--out", default="build/booksim_compare")
    ap.add_argument("--list", action="store_true", help="print the case names and exit")
    ap.add_argument("--markdown", action="store_true",
                    help="print OUT/compare.csv as the Markdown tables of doc/validation.md "
                         "and exit (no runs)")
    return ap


def main():
    ap = parser()
    a = ap.parse_args()
    if a.markdown:
        return markdown(a.out)

    all_cases = cases(a.speculative)
    if not a.list and not a.booksim:
        ap.error("--booksim PATH is required (build BookSim2 yourself: make -C booksim2/src)")
    if a.list:
        print("\n".join(c["name"] for c in all_cases))
        return 0
    if a.cases:
        # with --speculative the names may be given with or without their -spec suffix
        want = [w + "-spec" if a.speculative and not w.endswith("-spec") else w
                for w in a.cases.split(",")]
        unknown = [w for w in want if w not in {c["name"] for c in all_cases}]
        if unknown:
            sys.exit(f"unknown case(s): {', '.join(unknown)} (--list shows them)")
        all_cases = [c for c in all_cases if c["name"] in want]
    bad = [kv for kv in a.booksim_set + a.upswitch_set if "=" not in kv]
    if bad:
        sys.exit(f"--booksim-set/--upswitch-set need KEY=VALUE: {', '.join(bad)}")
    loads = [float(x) for x in a.loads.split(",")]
    rel = [float(x) for x in a.relative_loads.split(",")] if a.relative_loads else []
    os.makedirs(a.out, exist_ok=True)

    rows = []
    t0 = time.time()

    def run_pair(c, load):
        pair = []
        for fn in (run_booksim, run_upswitch):
            r = fn(c, a, load)
            r.update(ports=a.ports, routing_delay=a.routing_delay, vcs=c["vcs"],
                     flits=c["flits"], alloc=c["alloc"], pattern=c["pattern"],
                     packet_mode=c["packet_mode"])
            if a.speculative:
                r["speculative"] = True
            rows.append(r)
            pair.append(r)
        b, u = pair
        print(f"{c['name']:32s} load {load:5.3f}  booksim acc {b['accepted']:.4f} "
              f"lat {b['packet_latency']}  upswitch acc {u['accepted']:.4f} "
              f"lat {u['packet_latency']}", file=sys.stderr, flush=True)
        return pair

    for c in all_cases:
        # saturation first (offered 1.0), then the fixed loads below the higher of the two
        # saturation throughputs, then the fractions of the lower one (the latency curve up to
        # the knee, where the brief compares latencies)
        b, u = run_pair(c, 1.0)
        sat_lo = min(b["accepted"], u["accepted"])
        sat_hi = max(b["accepted"], u["accepted"])
        todo = [x for x in loads if x < 1.0 and x < sat_hi * 1.02]
        todo += [round(f * sat_lo, 3) for f in rel if round(f * sat_lo, 3) not in todo]
        for load in sorted(todo):
            run_pair(c, load)
    print(f"{len(rows)} runs in {time.time() - t0:.0f} s", file=sys.stderr)

    comp = []
    for c in all_cases:
        for load in sorted({r["load"] for r in rows if r["case"] == c["name"]}):
            b = next(r for r in rows if r["sim"] == "booksim" and r["case"] == c["name"]
                     and r["load"] == load)
            u = next(r for r in rows if r["sim"] == "upswitch" and r["case"] == c["name"]
                     and r["load"] == load)
            row = dict(case=c["name"], load=load, ports=a.ports, routing_delay=a.routing_delay,
                       booksim_accepted=b["accepted"], upswitch_accepted=u["accepted"],
                       accepted_diff=round(u["accepted"] - b["accepted"], 4),
                       booksim_latency=b["packet_latency"], upswitch_latency=u["packet_latency"],
                       booksim_saturated=b["saturated"], upswitch_saturated=u["saturated"],
                       zero_load=u["zero_load"])
            if b["packet_latency"] is not None and u["packet_latency"] is not None:
                row["latency_rel_diff"] = round(u["packet_latency"] / b["packet_latency"] - 1, 4)
                qb, qu = b["packet_latency"] - u["zero_load"], u["packet_latency"] - u["zero_load"]
                row["booksim_queueing"] = round(qb, 3)
                row["upswitch_queueing"] = round(qu, 3)
                row["queueing_rel_diff"] = round(qu / qb - 1, 4) if qb > 0 else None
            comp.append(row)

    fields = sorted({k for r in rows for k in r})
    with open(os.path.join(a.out, "results.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        w.writerows(rows)
    with open(os.path.join(a.out, "results.json"), "w") as f:
        json.dump(dict(args=vars(a), runs=rows, compare=comp), f, indent=1)
    cfields = ["case", "load", "ports", "routing_delay", "booksim_accepted", "upswitch_accepted",
               "accepted_diff", "booksim_saturated", "upswitch_saturated", "zero_load",
               "booksim_latency", "upswitch_latency", "latency_rel_diff", "booksim_queueing",
               "upswitch_queueing", "queueing_rel_diff"]
    with open(os.path.join(a.out, "compare.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=cfields)
        w.writeheader()
        w.writerows(comp)
    print(f"wrote {a.out}/results.csv, results.json, compare.csv", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
