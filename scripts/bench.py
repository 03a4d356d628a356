#!/usr/bin/env python3
"""Speed and memory benchmark of upswitch: runs the standard scenarios with the real binary and
writes JSON (and a Markdown table with --markdown) of simulated cycles per second, flits
delivered per second and peak resident memory of each run (from wait4, per process).

The `transactions` set runs a 72-endpoint all-to-all of 256 B reads and writes at half the link
rate (traffic.kind = transactions) and a packet run at the same flit load, so the cost of the
transaction layer (messages, memory, tags) shows beside the bare switch.

The `collectives` set runs a 72-rank 16 MiB all-reduce in the switch (NVLS-style) and on a ring
with `upswitch coll` and reports wall time and peak memory beside simulated time, without the
result check (as nccl-tests' -c 0) and, for the switch, with it, to show what the check costs,
on one thread and on two (`--threads 2`: the endpoints and the switch on two cores). With
--repeat R it runs R rounds of its points and reports each point's fastest run.

The `networks` set runs many-switch topologies (issue 18): the GB200 NVL72 rack (72 GPUs on 18
switch planes) with uniform packets at half the link rate, the 128-accelerator UALink pod and
the pod scaled to 1,024 accelerators on 4 planes of 1,024-port switches, and the 256-GPU
two-tier SuperPOD, and memory transactions (reads and writes at half the link rate) across the
rack (fewer cycles each: these are the largest runs).

The `threads` set runs the NVL72 rack (uniform packets at half the link rate, the plain kernel;
and memory transactions at half the link rate, a quarter of --cycles) on 1, 2, 4 and 8 threads
(`upswitch run --threads N`, as many as this machine has cores) and reports each count's
speed-up and parallel efficiency against one thread (which, with the plain kernel, runs the
two-thread plan's windows in turn: the faster one-thread driver, since issue 21's fifteenth
pass), and the wall time one simulated millisecond
would take (issue 21's targets: one minute, 80% from 1 to 2 threads). With --repeat R each count
runs R times, the counts interleaved (1, 2, 1, 2, ...), and a row reports the median run with
every run's cycles per second (`cycles_per_second_runs`): on a shared or virtual machine one run
can differ from the next by 30% or more.

The `booksim` set (with --booksim PATH, a BookSim2 binary you built yourself: it is never a
dependency) runs BookSim2 and upswitch on one 72-port router in the pairing that
scripts/booksim_compare.py validates (separable input-first switch allocation, 4 VCs of 8 flits,
uniform traffic at 0.6 flits per port per cycle, 1- and 4-flit packets), interleaved, R times
each (default 3), and reports each simulator's best simulated cycles per second over its process
wall time, their ratio, and upswitch's wall nanoseconds per delivered flit.

The `instructions` set (not part of `all`) runs the configurations of issue 21's three targets,
short, under valgrind's callgrind and reports the instructions executed in all, per simulated
cycle and per delivered flit: unlike wall time, a count that repeats for the same binary and
inputs, so a speed change is measured by it to a fraction of a percent on any machine, busy or
not (the whole process is counted: start-up and output files too).

Every run ends with `targets`: issue 21's bars (>= 40x BookSim2's cycles per second and <= 100 ns
per delivered flit; one simulated millisecond of the NVL72 rack in <= 60 s on two threads with
>= 80% parallel efficiency from one; the 72-rank 16 MiB in-switch all-reduce as users run it in
<= 20 s and <= 1 GB, its check costing <= 10%), each with what this run measured and whether it
is met, for the sets that ran (`--set all --booksim PATH` measures all of them).

Progress goes to stderr. OUT is written again as each run (or set) finishes, so a bench stopped
with Ctrl-C keeps what it finished (exit status 130).

Usage: scripts/bench.py [--bin build/upswitch] [--out results/bench.json]
                        [--set standard|scaling|load|transactions|collectives|networks|threads|booksim|
                               instructions|all]
                        [--booksim PATH] [--repeat R]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import booksim_compare

# The configuration BookSim2's iq router is usually benchmarked in: 1-cycle channels carrying a
# flit per cycle, 1-cycle stages, 4 VCs of 8 flits, no shared buffer.
BOOKSIM_LIKE = [
    "switch.queueing=vc", "switch.vcs=4", "switch.vc_buffer_flits=8", "switch.shared_buffer_flits=0",
    "switch.allocator=separable_input_first", "switch.routing_cycles=1", "switch.vc_alloc_cycles=1",
    "switch.sw_alloc_cycles=1", "switch.xbar_cycles=1", "switch.egress_cycles=0",
    "link.latency_cycles=1", "link.credit_delay_cycles=1", "link.gbytes_per_s=0", "endpoint.rx_vc_flits=8",
    "endpoint.rx_shared_flits=0",
]

STANDARD = [
    ("vc4x8-sepif-1flit-0.3", BOOKSIM_LIKE + ["traffic.packet_flits=1", "traffic.rate=0.3"]),
    ("vc4x8-sepif-1flit-0.6", BOOKSIM_LIKE + ["traffic.packet_flits=1", "traffic.rate=0.6"]),
    ("vc4x8-sepif-4flit-0.3", BOOKSIM_LIKE + ["traffic.packet_flits=4", "traffic.rate=0.3"]),
    ("vc4x8-sepif-4flit-0.6", BOOKSIM_LIKE + ["traffic.packet_flits=4", "traffic.rate=0.6"]),
    ("ualink-x4-0.5", ["traffic.rate=0.5"]),
    ("ualink-x4-0.9", ["traffic.rate=0.9"]),
    # The data-link layer on every link (doc/reliability.md), error-free and at 1e-3 per DL flit.
    ("ualink-x4-0.5-dl", ["traffic.rate=0.5", "link.dl.enable=true"]),
    ("ualink-x4-0.5-dl-1e-3", ["traffic.rate=0.5", "link.dl.enable=true", "link.dl.flit_error_rate=1e-3"]),
]


def scaling():
    return [(f"ualink-x4-ports{n}-0.6", [f"switch.ports={n}", "traffic.rate=0.6"]) for n in (8, 16, 32, 72, 144)]


def load():
    return [(f"ualink-x4-load{r}", [f"traffic.rate={r}"]) for r in (0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 1.0)]


# Topologies: (name, overrides, measurement cycles). Memory transactions do not run on many
# switches yet (doc/topology.md), so these are packets.
NETWORKS = [
    ("nvl72-rack-0.25", ["preset=nvl72-rack", "traffic.rate=0.25"], 8000),
    ("ualink-pod-128x4-0.5", ["preset=ualink-pod", "traffic.rate=0.5"], 8000),
    ("ualink-pod-1024x4-0.5", ["preset=ualink-pod", "topology.endpoints=1024", "switch.ports=1024",
                               "traffic.rate=0.5"], 2000),
    ("superpod-256-0.3", ["preset=superpod-256", "traffic.rate=0.3"], 4000),
    ("nvl72-rack-txn-0.5", ["preset=nvl72-rack", "traffic.kind=transactions", "txn.load=0.5"], 4000),
]


# The parallel runs (issue 21): the rack on 1, 2, 4 and 8 threads, as far as this machine has
# cores; (name, overrides, share of --cycles).
THREADS_RUNS = [
    ("nvl72-rack-0.25", ["preset=nvl72-rack", "traffic.rate=0.25"], 1),
    ("nvl72-rack-txn-0.5", ["preset=nvl72-rack", "traffic.kind=transactions", "txn.load=0.5"], 4),
]


def summarize_threads(runs, counts):
    """Per thread count with finished runs: the median run, with every run's cycles per second,
    its speed-up and parallel efficiency against the median of one thread."""
    rows = []
    base = None
    for n in counts:
        if not runs[n]:
            continue
        ordered = sorted(runs[n], key=lambda r: r["cycles_per_second"])
        r = dict(ordered[(len(ordered) - 1) // 2])
        r["repeats"] = len(runs[n])
        r["cycles_per_second_runs"] = [x["cycles_per_second"] for x in runs[n]]
        if n == 1:
            base = r["cycles_per_second"]
        r["speedup"] = r["cycles_per_second"] / base if base else None
        r["parallel_efficiency"] = r["speedup"] / n if base else None
        rows.append(r)
    return rows


def run_threads(binary, cycles, repeat, keep):
    """Each parallel run on each thread count, `repeat` times interleaved, summarized by
    summarize_threads and passed to `keep` once the run's repeats are done; interrupted (Ctrl-C),
    the repeats finished so far are kept (without a speed-up where one thread has none)."""
    counts = [k for k in (1, 2, 4, 8) if k <= (os.cpu_count() or 1)]
    for name, sets, share in THREADS_RUNS:
        runs = {n: [] for n in counts}
        try:
            for rep in range(repeat):
                for n in counts:
                    print(f"[bench] {name} --threads {n} ({rep + 1}/{repeat})", file=sys.stderr)
                    runs[n].append(run_one(binary, f"{name}-threads{n}", sets, cycles // share, "plain", n))
        finally:
            rows = summarize_threads(runs, counts)
            if rows:
                keep(*rows)


def timed(name, args):
    """Runs `args`; returns (process wall seconds, peak RSS MiB); exits naming `name` if it fails."""
    t0 = time.monotonic()
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.monotonic() - t0
    err = proc.stderr.read().decode()
    proc.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"bench: {name} failed: {err.strip()}")
    return wall, usage.ru_maxrss / 1024.0


def run_process(binary, name, sets, cycles, kernel, threads=None):
    """Runs one `upswitch run`; returns (summary, process wall seconds, peak RSS MiB)."""
    with tempfile.TemporaryDirectory() as out:
        args = [binary, "run", "--quiet", "--out", out, "--kernel", kernel,
                "--set", f"sim.warmup_cycles={cycles // 4}", "--set", f"sim.measure_cycles={cycles}"]
        if threads is not None:
            args += ["--threads", str(threads)]
        for s in sets:
            args += ["--preset", s[len("preset="):]] if s.startswith("preset=") else ["--set", s]
        wall, rss = timed(name, args)
        return json.load(open(os.path.join(out, "summary.json"))), wall, rss


TXN_A2A = ["traffic.kind=transactions", "txn.mix=read:1,write:1", "txn.sizes=256:1", "txn.load=0.5"]


def run_transactions(binary, cycles, kernel):
    """The transaction scenario and a packet run at the same flits per port per cycle."""
    s, wall, rss = run_process(binary, "txn-a2a-256B-rw-0.5", TXN_A2A, cycles, kernel)
    sim_wall = s["sim"]["wall_seconds"]
    link = s["link"]
    flit_load = link["requests"]["flits_per_port_per_cycle"] + link["responses"]["flits_per_port_per_cycle"]
    txn = {
        "scenario": "txn-a2a-256B-rw-0.5", "kernel": kernel, "overrides": TXN_A2A,
        "ports": s["config"]["switch"]["ports"], "rate": round(flit_load, 4),
        "simulated_cycles": s["sim"]["cycles"], "sim_wall_seconds": sim_wall, "process_wall_seconds": wall,
        "cycles_per_second": s["sim"]["cycles_per_second"],
        "simulated_ns_per_second": s["sim"]["simulated_ns"] / sim_wall if sim_wall > 0 else None,
        "transfers_per_second": s["sim"]["transfers_per_second"],
        "flits_delivered_per_second": s["stats"]["accel.flits_sent"]["value"] / sim_wall if sim_wall > 0 else None,
        "peak_rss_mib": rss, "accepted": s["throughput"]["completed_load"], "saturated": s["saturated"],
    }
    # Same flit load as packets: 5-flit packets (a 256 B message's packet) at the measured rate.
    same = run_one(binary, "packets-same-flit-load", [f"traffic.rate={flit_load:.4f}", "traffic.packet_flits=5"],
                   cycles, kernel)
    return [txn, same]


# (name, algorithm, results checked against the host reference, preset, size per rank): the
# checked run shows what the check costs beside the same run without it; the rack's ring at
# 64 KiB is a planner's table point where most endpoints wait most cycles (idle skipping).
# The last field is the threads per point: two put the one switch's endpoints and the switch on
# two cores (issue 21's 16 MiB target, as a user with two cores runs it).
COLLECTIVES = [("allreduce-switch-72x16MiB", "switch", False, None, "16M", 1),
               ("allreduce-switch-72x16MiB-checked", "switch", True, None, "16M", 1),
               ("allreduce-switch-72x16MiB-checked-threads2", "switch", True, None, "16M", 2),
               ("allreduce-ring-72x16MiB", "ring", False, None, "16M", 1),
               ("allreduce-ring-nvl72-rack-72x64KiB", "ring", True, "nvl72-rack", "64K", 1),
               # coll.data = timing: the unchecked 16 MiB point without payload (memory, wall time)
               ("allreduce-switch-72x16MiB-timing", "switch", False, None, "16M", 1)]


def run_collective(binary, name, algo, check=False, ranks=72, size="16M", preset=None, threads=1):
    """One `upswitch coll` point; returns its row with wall time, simulated time and peak RSS."""
    with tempfile.TemporaryDirectory() as out:
        args = [binary, "coll", "--quiet", "--jobs", "1", "--threads", str(threads), "--out", out, "--ranks", str(ranks),
                "--algo", algo, "-b", size, "-e", size] + ([] if check else ["--no-check"]) + \
               (["--preset", preset] if preset else []) + (["--set", "coll.data=timing"] if name.endswith("-timing") else [])
        wall, rss = timed(name, args)
        row = json.load(open(os.path.join(out, "coll.json")))["rows"][0]
    return {
        "scenario": name, "kernel": "plain", "overrides": [a for a in args[2:] if a not in ("--out", out)], "ports": 72, "rate": None,
        "ranks": ranks, "bytes": row["bytes"], "simulated_cycles": row["cycles"], "simulated_us": row["time_us"],
        "process_wall_seconds": wall, "sim_wall_seconds": wall,
        "simulated_ns_per_second": row["time_us"] * 1000.0 / wall if wall > 0 else None,
        "cycles_per_second": row["cycles"] / wall if wall > 0 else None,
        "busbw_gbytes_per_s": row["busbw_gbytes_per_s"], "peak_rss_mib": rss,
        "checked": check, "wrong": row["wrong"], "threads": threads,
    }


def run_one(binary, name, sets, cycles, kernel, threads=None):
    s, wall, rss = run_process(binary, name, sets, cycles, kernel, threads)
    txn = s.get("traffic_kind") == "transactions"
    delivered = s["stats"]["accel.flits_sent" if txn else "endpoints.flits_delivered"]["value"]
    sim_wall = s["sim"]["wall_seconds"]
    return {
        "scenario": name, "kernel": kernel, "overrides": sets,
        "ports": s["config"]["switch"]["ports"], "rate": s["config"]["traffic"]["rate"],
        "switches": s.get("topology", {}).get("switches", 1), "endpoint_ports": s.get("topology", {}).get("endpoint_ports"),
        "simulated_cycles": s["sim"]["cycles"], "sim_wall_seconds": sim_wall, "process_wall_seconds": wall,
        "cycles_per_second": s["sim"]["cycles_per_second"],
        "flits_delivered_per_second": delivered / sim_wall if sim_wall > 0 else None,
        "peak_rss_mib": rss,
        "accepted": s["throughput"]["completed_load" if txn else "accepted"], "saturated": s["saturated"],
        "transfers_per_second": s["sim"].get("transfers_per_second"),
        "threads": threads if threads is not None else 1,
        "wall_seconds_per_simulated_ms": sim_wall / s["sim"]["simulated_ns"] * 1e6 if s["sim"]["simulated_ns"] else None,
    }


# Instructions per delivered flit (valgrind's callgrind): a count that repeats for the same binary
# and inputs whatever else the machine does, where wall time on a shared machine varies from run
# to run by 10-20% and from day to day by up to twice. Issue 21's three targets' configurations,
# short: (name, upswitch arguments). Each is the whole process (start-up and output included).
INSTRUCTION_RUNS = [
    ("instructions-booksim-like-1flit-0.6",
     ["run", "--kernel", "plain"] + [a for s in BOOKSIM_LIKE + ["traffic.packet_flits=1", "traffic.rate=0.6",
                                                                 "sim.warmup_cycles=1000", "sim.measure_cycles=4000"]
                                     for a in ("--set", s)]),
    ("instructions-booksim-like-4flit-0.6",
     ["run", "--kernel", "plain"] + [a for s in BOOKSIM_LIKE + ["traffic.packet_flits=4", "traffic.rate=0.6",
                                                                 "sim.warmup_cycles=1000", "sim.measure_cycles=4000"]
                                     for a in ("--set", s)]),
    ("instructions-nvl72-rack-0.25",
     ["run", "--preset", "nvl72-rack", "--threads", "1", "--kernel", "plain", "--set", "traffic.rate=0.25",
      "--set", "sim.warmup_cycles=500", "--set", "sim.measure_cycles=2500"]),
    ("instructions-allreduce-switch-72x256KiB",
     ["coll", "--ranks", "72", "--algo", "switch", "-b", "256K", "-e", "256K", "--jobs", "1", "--threads", "1"]),
]


def run_instructions(binary, keep):
    """Each INSTRUCTION_RUNS point under callgrind: instructions in all, per simulated cycle and,
    for packet runs, per delivered flit."""
    if not shutil.which("valgrind"):
        raise SystemExit("bench: --set instructions needs valgrind (apt-get install valgrind)")
    for name, args in INSTRUCTION_RUNS:
        print(f"[bench] {name} (callgrind)", file=sys.stderr)
        with tempfile.TemporaryDirectory() as out:
            log = os.path.join(out, "callgrind.log")
            argv = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={os.path.join(out, 'cg.out')}",
                    f"--log-file={log}", binary] + args[:1] + ["--quiet", "--out", out] + args[1:]
            wall, rss = timed(name, argv)
            m = re.search(r"Collected\s*:\s*(\d+)", open(log).read())
            if not m:
                raise SystemExit(f"bench: {name}: no instruction count in callgrind's log")
            instructions = int(m.group(1))
            row = {"scenario": name, "kernel": "plain", "overrides": args, "instructions": instructions,
                   "callgrind_wall_seconds": wall}
            if args[0] == "run":
                s = json.load(open(os.path.join(out, "summary.json")))
                flits = s["stats"]["endpoints.flits_delivered"]["value"]
                row.update(ports=s["config"]["switch"]["ports"], rate=s["config"]["traffic"]["rate"],
                           simulated_cycles=s["sim"]["cycles"], flits_delivered=flits,
                           instructions_per_delivered_flit=instructions / flits if flits else None,
                           instructions_per_cycle=instructions / s["sim"]["cycles"])
            else:
                r = json.load(open(os.path.join(out, "coll.json")))["rows"][0]
                row.update(ports=72, rate=None, simulated_cycles=r["cycles"], bytes=r["bytes"],
                           instructions_per_cycle=instructions / r["cycles"])
        keep(row)


# BookSim2 beside upswitch: the cases of scripts/booksim_compare.py (the configuration pairing
# doc/validation.md checks result by result) at one load.
BOOKSIM_CASES = ("sepif-vc4-p1-uniform", "sepif-vc4-p4-uniform")
BOOKSIM_LOAD = 0.6


def booksim_cycles(text):
    """The simulated cycles of a BookSim2 run, from its output ("Time taken is N cycles")."""
    m = re.findall(r"Time taken is (\d+) cycles", text)
    if not m:
        raise SystemExit("bench: BookSim2 printed no 'Time taken is N cycles' (did it fail?): " +
                         " ".join(text.split())[-300:])
    return int(m[-1])


def run_booksim_pair(booksim, binary, case, kernel, cycles, repeat):
    """BookSim2 and upswitch on `case`, interleaved `repeat` times; per simulator its best run."""
    a = booksim_compare.parser().parse_args(["--booksim", booksim, "--measure-cycles", str(cycles)])  # its defaults
    text, overrides = booksim_compare.booksim_config(case, a, BOOKSIM_LOAD)
    sets = booksim_compare.upswitch_sets(case, a, BOOKSIM_LOAD)
    best = {}
    with tempfile.TemporaryDirectory() as tmp:
        cfg = os.path.join(tmp, "booksim.cfg")
        with open(cfg, "w") as f:
            f.write(text)
        for rep in range(repeat):
            print(f"[bench] booksim {case['name']} ({rep + 1}/{repeat})", file=sys.stderr)
            t0 = time.monotonic()
            p = subprocess.run([booksim, cfg] + overrides, capture_output=True, text=True)
            wall = time.monotonic() - t0
            n = booksim_cycles(p.stdout + p.stderr)  # (its exit status is -1 when it succeeds)
            if "booksim" not in best or n / wall > best["booksim"]["cycles_per_second"]:
                best["booksim"] = {"simulated_cycles": n, "process_wall_seconds": wall, "cycles_per_second": n / wall}
            print(f"[bench] upswitch {case['name']} ({rep + 1}/{repeat})", file=sys.stderr)
            s, wall, rss = run_process(binary, case["name"], sets, cycles, kernel)
            delivered = s["stats"]["endpoints.flits_delivered"]["value"]
            u = {"simulated_cycles": s["sim"]["cycles"], "process_wall_seconds": wall,
                 "cycles_per_second": s["sim"]["cycles"] / wall, "sim_wall_seconds": s["sim"]["wall_seconds"],
                 "ns_per_delivered_flit": s["sim"]["wall_seconds"] * 1e9 / delivered if delivered else None,
                 "accepted": s["throughput"]["accepted"], "peak_rss_mib": rss}
            if "upswitch" not in best or u["cycles_per_second"] > best["upswitch"]["cycles_per_second"]:
                best["upswitch"] = u
    b, u = best["booksim"], best["upswitch"]
    return {
        "scenario": f"booksim-vs-upswitch-{case['name']}-{BOOKSIM_LOAD}", "kernel": kernel, "overrides": sets,
        "booksim_overrides": overrides, "ports": 72, "rate": BOOKSIM_LOAD, "repeats": repeat,
        "booksim": b, "upswitch": u, "ratio": u["cycles_per_second"] / b["cycles_per_second"],
    }


GB = 1e9 / 2**20  # 1 GB in MiB


def targets(rows):
    """Issue 21's targets that the rows of this run measure: per target what was measured, the
    bar (and goal), on which side of it the bar is met, and whether it is; a target without a bar
    (the pod's speed and memory) is reported, not judged (met: None)."""
    by = {r["scenario"]: r for r in rows}
    out = []

    def add(target, measured, unit, bar=None, goal=None, at_most=True):
        met = None if bar is None else (measured <= bar if at_most else measured >= bar)
        out.append({"target": target, "measured": measured, "unit": unit, "bar": bar, "goal": goal,
                    "bar_is": None if bar is None else ("at most" if at_most else "at least"), "met": met})

    for r in rows:
        if "ratio" in r and "booksim" in r:
            add(f"{r['scenario']}: cycles per second against BookSim2's", r["ratio"], "x", 40.0, 80.0, at_most=False)
            if r["upswitch"].get("ns_per_delivered_flit") is not None:
                add(f"{r['scenario']}: wall time per delivered flit", r["upswitch"]["ns_per_delivered_flit"], "ns", 100.0)
    rack = by.get("nvl72-rack-0.25-threads2")
    if rack:
        add("nvl72-rack-0.25 on 2 threads: wall time per simulated millisecond", rack["wall_seconds_per_simulated_ms"],
            "s", 60.0, 30.0)
        if rack["parallel_efficiency"] is not None:  # None: interrupted before a one-thread run finished
            add("nvl72-rack-0.25: parallel efficiency from 1 to 2 threads", rack["parallel_efficiency"], "", 0.8,
                at_most=False)
    ar = by.get("allreduce-switch-72x16MiB-checked-threads2")
    if ar:
        add("72-rank 16 MiB in-switch all-reduce, checked, 2 threads: wall time", ar["process_wall_seconds"], "s", 20.0)
        add("72-rank 16 MiB in-switch all-reduce, checked, 2 threads: peak RSS", ar["peak_rss_mib"], "MiB", GB)
    checked, bare = by.get("allreduce-switch-72x16MiB-checked"), by.get("allreduce-switch-72x16MiB")
    if checked and bare:
        add("72-rank 16 MiB in-switch all-reduce on 1 thread: checked over --no-check wall time",
            checked["process_wall_seconds"] / bare["process_wall_seconds"], "x", 1.10)
    pod = by.get("ualink-pod-1024x4-0.5")
    if pod:
        add("1,024-accelerator 4-plane pod: cycles per second", pod["cycles_per_second"], "cycles/s")
        add("1,024-accelerator 4-plane pod: peak RSS", pod["peak_rss_mib"], "MiB")
    return out


def measure(a, keep):
    """Runs the chosen sets; each finished run (or set) goes to `keep`."""
    todo = []
    if a.which in ("standard", "all"):
        todo += STANDARD
    if a.which in ("scaling", "all"):
        todo += scaling()
    if a.which in ("load", "all"):
        todo += load()
    for i, (name, sets) in enumerate(todo):
        print(f"[bench] {i + 1}/{len(todo)} {name}", file=sys.stderr)
        keep(run_one(a.bin, name, sets, a.cycles, a.kernel))
    if a.which in ("transactions", "all"):
        print("[bench] transactions", file=sys.stderr)
        keep(*run_transactions(a.bin, a.cycles, a.kernel))
    if a.which in ("networks", "all"):
        for name, sets, cycles in NETWORKS:
            print(f"[bench] {name}", file=sys.stderr)
            keep(run_one(a.bin, name, sets, cycles, a.kernel))
    if a.which in ("threads", "all"):
        run_threads(a.bin, a.cycles, a.repeat or 1, keep)
    if a.which in ("collectives", "all"):
        # With --repeat R, R rounds of every point in turn; per point the fastest run (the
        # checked and unchecked runs, compared for the check's cost, then meet the same moments
        # of a shared machine).
        best = {}
        reps = a.repeat or 1
        try:
            for rep in range(reps):
                for name, algo, check, preset, size, threads in COLLECTIVES:
                    print(f"[bench] {name} ({rep + 1}/{reps})", file=sys.stderr)
                    r = run_collective(a.bin, name, algo, check, size=size, preset=preset, threads=threads)
                    if name not in best or r["process_wall_seconds"] < best[name]["process_wall_seconds"]:
                        best[name] = r
                    best[name]["repeats"] = rep + 1
        finally:  # interrupted: the points run so far, each with the rounds it had
            kept = [best[c[0]] for c in COLLECTIVES if c[0] in best]
            if kept:
                keep(*kept)
    if a.which == "instructions":  # not in `all`: callgrind runs each point about 50 times slower
        run_instructions(a.bin, keep)
    if a.which in ("booksim", "all") and a.booksim:
        by_name = {c["name"]: c for c in booksim_compare.cases()}
        for name in BOOKSIM_CASES:
            keep(run_booksim_pair(a.booksim, a.bin, by_name[name], a.kernel, a.cycles, a.repeat or 3))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default="build/upswitch")
    ap.add_argument("--out", default="results/bench.json")
    ap.add_argument("--set", dest="which", default="all", choices=["standard", "scaling", "load", "transactions", "collectives", "networks", "threads", "booksim",
                                                                     "instructions", "all"])
    ap.add_argument("--cycles", type=int, default=40000, help="measurement window per run")
    ap.add_argument("--kernel", default="systemc", choices=["systemc", "plain"])
    ap.add_argument("--markdown", action="store_true", help="also print a Markdown table")
    ap.add_argument("--repeat", type=int, default=None,
                    help="threads set: runs per thread count, interleaved (median reported; default 1); collectives "
                         "set: rounds of its points (fastest reported; default 1); booksim set: runs per simulator, "
                         "interleaved (best reported; default 3)")
    ap.add_argument("--booksim", help="a BookSim2 binary (built yourself; never a dependency): the booksim set "
                                      "runs it beside upswitch, and --set all includes that set")
    a = ap.parse_args()
    if a.which == "booksim" and not a.booksim:
        ap.error("--set booksim needs --booksim PATH (a BookSim2 binary: make -C booksim2/src)")
    if a.booksim and not os.access(a.booksim, os.X_OK):
        ap.error(f"--booksim {a.booksim}: not an executable file")
    if a.repeat is not None and a.repeat < 1:
        ap.error(f"--repeat {a.repeat}: expected at least 1")
    if not os.access(a.bin, os.X_OK):
        ap.error(f"--bin {a.bin}: not an executable file (build it: scripts/build.sh)")
    version = subprocess.run([a.bin, "--version"], capture_output=True, text=True).stdout.strip()
    rows = []
    result = {}

    def keep(*new):
        """Adds finished runs and writes OUT again with every run so far, so that a bench stopped
        with Ctrl-C keeps what it finished."""
        rows.extend(new)
        result.update(upswitch=version, cpu=os.uname().machine, nproc=os.cpu_count(), runs=rows,
                      targets=targets(rows))
        os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
        tmp = a.out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(result, f, indent=2)
        os.replace(tmp, a.out)

    try:
        measure(a, keep)
    except KeyboardInterrupt:
        print(f"bench: interrupted; {a.out} holds the {len(rows)} runs finished" if rows else
              "bench: interrupted before a run finished; nothing written", file=sys.stderr)
        return 130
    if a.markdown:
        print("| scenario | ports | load | accepted | cycles/s | flits/s | transfers/s | peak RSS MiB |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- |")
        for r in rows:
            if "booksim" in r:
                b, u = r["booksim"], r["upswitch"]
                print(f"| {r['scenario']} | {r['ports']} | {r['rate']} | {u['accepted']:.3f} | "
                      f"{u['cycles_per_second']:,.0f} (BookSim2 {b['cycles_per_second']:,.0f}: {r['ratio']:.1f}x) | - | "
                      f"{u['ns_per_delivered_flit'] or 0:.0f} ns per delivered flit | {u['peak_rss_mib']:.1f} |")
                continue
            if "instructions" in r:
                per = (f"{r['instructions_per_delivered_flit']:,.0f} instructions per delivered flit"
                       if r.get("instructions_per_delivered_flit") else
                       f"{r['instructions_per_cycle']:,.0f} instructions per cycle")
                print(f"| {r['scenario']} | {r['ports']} | {r['rate'] if r['rate'] is not None else '-'} | - | - | - | "
                      f"{r['instructions'] / 1e6:,.1f} M instructions: {per} | - |")
                continue
            if "busbw_gbytes_per_s" in r:
                print(f"| {r['scenario']} | {r['ports']} | - | busbw {r['busbw_gbytes_per_s']:.1f} GB/s | "
                      f"{r['cycles_per_second']:,.0f} | - | simulated {r['simulated_us']:.1f} us in "
                      f"{r['process_wall_seconds']:.1f} s | {r['peak_rss_mib']:.1f} |")
                continue
            tps = f"{r['transfers_per_second']:,.0f}" if r.get("transfers_per_second") else "-"
            if "parallel_efficiency" in r:
                gain = (f"speed-up {r['speedup']:.2f}, efficiency {r['parallel_efficiency']:.2f}, "
                        if r["speedup"] is not None else "no one-thread run to compare, ")
                tps = (f"{r['threads']} thread{'s' if r['threads'] > 1 else ''}: {gain}"
                       f"{r['wall_seconds_per_simulated_ms']:.0f} s per simulated ms")
            print(f"| {r['scenario']} | {r['ports']} | {r['rate']} | {r['accepted']:.3f} | "
                  f"{r['cycles_per_second']:,.0f} | {r['flits_delivered_per_second']:,.0f} | {tps} | "
                  f"{r['peak_rss_mib']:.1f} |")
        if result.get("targets"):
            print()
            print("| issue 21 target | measured | bar | goal | met |")
            print("| --- | --- | --- | --- | --- |")
            for t in result["targets"]:
                fmt = (lambda v: f"{v:,.0f}") if t["unit"] in ("cycles/s", "MiB") else (lambda v: f"{v:.2f}")
                bar = "-" if t["bar"] is None else f"{t['bar_is']} {fmt(t['bar'])} {t['unit']}".rstrip()
                goal = "-" if t["goal"] is None else f"{fmt(t['goal'])} {t['unit']}".rstrip()
                met = "-" if t["met"] is None else ("yes" if t["met"] else "**no**")
                print(f"| {t['target']} | {fmt(t['measured'])} {t['unit']} | {bar} | {goal} | {met} |")
    print(f"bench: wrote {a.out}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
