#!/usr/bin/env python3
"""Runs a fixed set of short scenarios with two upswitch binaries and says whether every output
file is byte-identical (the wall-clock fields of summary.json aside).

A speed change must not move any result (issue 21); this is the check each such change is made
with. The scenarios cover every queueing mode, allocator and traffic kind the per-flit paths
branch on: the BookSim-like router, the default switch, the rack on one and two threads, the
pods, the superpod, transactions, collectives, the data-link layer with errors, faults, packet
mode, speculation and crossbar speedup.

  scripts/same_results.py --base OLD/upswitch --new build/upswitch [--only NAME,...] [--list]
                          [--ignore-config KEY,...] [--shared-columns]

Exit status 0 when every scenario's files are the same, 1 when some differ (each named, with its
first differing file), 2 on bad arguments.
"""
import argparse
import csv
import filecmp
import json
import os
import subprocess
import sys
import tempfile

BOOKSIM_LIKE = [
    "switch.queueing=vc", "switch.vcs=4", "switch.vc_buffer_flits=8", "switch.shared_buffer_flits=0",
    "switch.allocator=separable_input_first", "switch.allocator_iterations=1", "switch.routing_cycles=1",
    "switch.vc_alloc_cycles=1", "switch.sw_alloc_cycles=1", "switch.xbar_cycles=1", "switch.egress_cycles=0",
    "link.latency_cycles=1", "link.credit_delay_cycles=1", "link.gbytes_per_s=0", "endpoint.rx_vc_flits=8",
    "endpoint.rx_shared_flits=0", "traffic.rate=0.6",
]


def short(warm, measure):
    return [f"sim.warmup_cycles={warm}", f"sim.measure_cycles={measure}"]


# (name, command, arguments, --set overrides)
SCENARIOS = [
    ("booksim-1flit", "run", [], BOOKSIM_LIKE + ["traffic.packet_flits=1"] + short(500, 3000)),
    ("booksim-4flit", "run", [], BOOKSIM_LIKE + ["traffic.packet_flits=4"] + short(500, 3000)),
    ("booksim-4flit-islip-spec", "run", [],
     BOOKSIM_LIKE + ["traffic.packet_flits=4", "switch.allocator=islip", "switch.allocator_iterations=2",
                     "switch.speculative=true"] + short(500, 2000)),
    ("default-0.6", "run", [], ["traffic.rate=0.6"] + short(1000, 3000)),
    ("default-0.9-hotspot", "run", [], ["traffic.rate=0.9", "traffic.pattern=hotspot"] + short(1000, 3000)),
    ("fifo-0.5", "run", [], ["switch.queueing=fifo", "traffic.rate=0.5"] + short(1000, 2000)),
    ("vc-0.7", "run", [], ["switch.queueing=vc", "traffic.rate=0.7"] + short(1000, 3000)),
    ("voq-wavefront-packet-mode", "run", [],
     ["switch.allocator=wavefront", "switch.packet_mode=true", "traffic.packet_flits=4"] + short(1000, 2000)),
    ("speedup-2", "run", [], ["switch.speedup=2", "traffic.rate=0.9"] + short(1000, 2000)),
    ("per-destination-cap", "run", [],
     ["endpoint.injection_queues=per_destination", "switch.shared_buffer_output_cap=64",
      "traffic.pattern=hotspot", "traffic.rate=0.8"] + short(1000, 2000)),
    ("dl-errors", "run", [], ["link.dl.enable=true", "link.dl.flit_error_rate=1e-3", "traffic.rate=0.5"] + short(1000, 2000)),
    ("txn-0.5", "run", [], ["traffic.kind=transactions", "txn.load=0.5"] + short(1000, 2000)),
    ("txn-vc-port-down", "run", [],
     ["traffic.kind=transactions", "txn.load=0.5", "switch.queueing=vc", "faults.port_down=3@900", "endpoint.completion_timeout_ns=2000"] + short(1000, 2000)),
    ("rack-1thread", "run", ["--preset", "nvl72-rack", "--threads", "1", "--kernel", "plain"], short(500, 2000)),
    ("rack-2threads", "run", ["--preset", "nvl72-rack", "--threads", "2"], short(500, 2000)),
    ("rack-txn", "run", ["--preset", "nvl72-rack", "--threads", "2"],
     ["traffic.kind=transactions", "txn.load=0.5"] + short(500, 1500)),
    ("rack-switch-down", "run", ["--preset", "nvl72-rack", "--threads", "2"], ["faults.switch_down=4@1000"] + short(500, 1500)),
    ("pod-128", "run", ["--preset", "ualink-pod", "--threads", "2"], ["traffic.rate=0.5"] + short(500, 1500)),
    ("pod-1024", "run", ["--preset", "ualink-pod", "--threads", "2"],
     ["topology.endpoints=1024", "switch.ports=1024", "traffic.rate=0.5"] + short(100, 300)),
    ("superpod", "run", ["--preset", "superpod-256", "--threads", "2"], ["traffic.rate=0.3"] + short(500, 1500)),
    ("coll-switch-72x256K", "coll", ["--ranks", "72", "--algo", "switch", "-b", "256K", "-e", "256K", "--jobs", "1", "--threads", "2"], []),
    ("coll-tiny-all", "coll", ["--preset", "tiny", "--coll", "all", "--algo", "all", "--ranks", "8", "-b", "1K", "-e", "16K", "--jobs", "2"], []),
    ("coll-rack-switch-ring", "coll", ["--preset", "nvl72-rack", "--ranks", "72", "--algo", "switch,ring", "-b", "64K", "-e", "64K", "--jobs", "1", "--threads", "2"], []),
    ("workload-default", "workload", [], []),
]

# The wall-clock fields, and the revision the binary was built from (the two binaries differ in it).
WALL_FIELDS = ("wall_seconds", "cycles_per_second", "transfers_per_second", "wall_clock_seconds", "upswitch_revision")


# --ignore-config: dotted configuration keys a change added (new keys at their defaults), left
# out of every "config" object; --shared-columns: CSV files compared on the columns both have.
IGNORED_CONFIG = []
SHARED_COLUMNS = False


def scrub(x, key=None):
    """A JSON file without the fields that may differ (WALL_FIELDS) or were ignored (--ignore-config)."""
    if isinstance(x, dict):
        out = {k: scrub(v, k) for k, v in x.items() if k not in WALL_FIELDS}
        if key == "config":
            for dotted in IGNORED_CONFIG:
                parts = dotted.split(".")
                node = out
                for part in parts[:-1]:
                    node = node.get(part, {}) if isinstance(node, dict) else {}
                if isinstance(node, dict):
                    node.pop(parts[-1], None)
        return out
    if isinstance(x, list):
        return [scrub(v) for v in x]
    return x


def csv_rows_on_shared_columns(pa, pb):
    """Both CSV files' rows restricted to the columns both headers name, in the base's order."""
    with open(pa) as fa, open(pb) as fb:
        ra, rb = list(csv.reader(fa)), list(csv.reader(fb))
    if not ra or not rb:
        return ra, rb
    shared = [c for c in ra[0] if c in rb[0]]
    ia, ib = [ra[0].index(c) for c in shared], [rb[0].index(c) for c in shared]
    return [[r[i] for i in ia] for r in ra], [[r[i] for i in ib] for r in rb]


def run(binary, scenario, out):
    name, cmd, args, sets = scenario
    argv = [binary, cmd, "--quiet", "--out", out] + args
    for s in sets:
        argv += ["--set", s]
    p = subprocess.run(argv, capture_output=True, text=True)
    return p.returncode, (p.stderr or "").strip().splitlines()[-1:] 


def compare(a, b):
    """The first file that differs between output folders a and b, or None."""
    names = sorted(set(os.listdir(a)) | set(os.listdir(b)))
    for n in names:
        pa, pb = os.path.join(a, n), os.path.join(b, n)
        if not (os.path.isfile(pa) and os.path.isfile(pb)):
            return f"{n} (only in one)"
        if n.endswith(".png"):
            continue  # drawn from links.csv, which is compared
        if n.endswith(".json"):
            with open(pa) as fa, open(pb) as fb:
                if scrub(json.load(fa)) != scrub(json.load(fb)):
                    return n
        elif n.endswith(".csv") and SHARED_COLUMNS:
            ra, rb = csv_rows_on_shared_columns(pa, pb)
            if ra != rb:
                return n
        elif not filecmp.cmp(pa, pb, shallow=False):
            return n
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--base", help="the reference binary")
    ap.add_argument("--new", help="the binary under test")
    ap.add_argument("--only", help="comma-separated scenario names")
    ap.add_argument("--list", action="store_true", help="print the scenario names and exit")
    ap.add_argument("--ignore-config", default="",
                    help="comma-separated dotted configuration keys the change added (e.g. coll.data), left out "
                         "of every config object")
    ap.add_argument("--shared-columns", action="store_true",
                    help="compare CSV files on the columns both have (a change that added columns)")
    a = ap.parse_args()
    global SHARED_COLUMNS
    IGNORED_CONFIG.extend(k for k in a.ignore_config.split(",") if k)
    SHARED_COLUMNS = a.shared_columns
    if a.list:
        for s in SCENARIOS:
            print(s[0])
        return 0
    if not a.base or not a.new:
        ap.error("--base and --new are both needed")
    for b in (a.base, a.new):
        if not os.access(b, os.X_OK):
            ap.error(f"not an executable: {b}")
    chosen = SCENARIOS
    if a.only:
        want = a.only.split(",")
        unknown = [w for w in want if w not in {s[0] for s in SCENARIOS}]
        if unknown:
            ap.error(f"unknown scenario {unknown[0]!r}; --list names them")
        chosen = [s for s in SCENARIOS if s[0] in want]
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for s in chosen:
            oa, ob = os.path.join(tmp, s[0] + ".base"), os.path.join(tmp, s[0] + ".new")
            ra, ea = run(a.base, s, oa)
            rb, eb = run(a.new, s, ob)
            if ra != rb:
                print(f"DIFF {s[0]}: exit status {ra} against {rb} {ea} {eb}")
                bad += 1
                continue
            if not os.path.isdir(oa) or not os.path.isdir(ob):
                print(f"DIFF {s[0]}: no output (exit {ra}) {ea}")
                bad += 1
                continue
            d = compare(oa, ob)
            print(f"{'same' if d is None else 'DIFF'} {s[0]}" + ("" if d is None else f": {d}"), flush=True)
            bad += d is not None
    print(f"{len(chosen) - bad} of {len(chosen)} scenarios the same")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
