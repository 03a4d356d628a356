"""What the sweep tool knows about each `upswitch` subcommand it can sweep.

For every command: the flags a sweep file may give under `args:` (long name -> short alias,
whether it takes a value), how the seed is passed, the JSON file the command writes into --out
(its "summary": what outputs and rows are read from, and what a run must leave behind to count
as ok), and its default outputs and rows (doc/sweeps.md, "Commands").

The flag lists are written out here rather than read from `--help` at plan time, so that a sweep
file is checked before the simulator is even found; tests/python/test_commands.py compares them
with the binary's --help so they cannot drift.  Standard library only: the Slurm worker imports
this (through execute and store) on compute nodes.
"""
from __future__ import annotations

from dataclasses import dataclass, field

# flags the sweep tool sets itself: a sweep file gives them through base:, set:, seeds: or not at all
MANAGED_FLAGS = {
    "help": "not a sweep argument",
    "config": "give it as base.config",
    "preset": "give it as base.preset",
    "set": "give configuration keys under set: or vary:",
    "seed": "list the seeds under seeds:",
    "out": "the sweep tool chooses each run's --out",
    "quiet": "not needed: each run's stdout is kept in its upswitch.stdout",
}


@dataclass(frozen=True)
class Flag:
    name: str  # the long name, without dashes: the canonical key under args:
    short: str | None = None  # one-letter alias (-b), also accepted under args:
    value: bool = True  # False: a bare flag, given as `name: true`
    # An input path, relative to the sweep file, whose content enters the run id: "file" (one
    # file) or "chakra" (a Chakra prefix: PREFIX.<rank>.et from 0 and PREFIX.groups.json if any).
    path: str | None = None
    refused: str | None = None  # why a sweep may not give it (it writes files of its own)


@dataclass(frozen=True)
class Table:
    """Rows of a merged table: one per element of the list at `source` (a JSON pointer into the
    command's summary file); `keys` identify an element (the same element of another seed),
    `values` are measured."""
    source: str
    keys: tuple
    values: tuple

    def to_json(self) -> dict:
        return {"from": self.source, "keys": list(self.keys), "values": list(self.values)}


@dataclass(frozen=True)
class Command:
    name: str
    summary: str  # the JSON file the command writes into --out
    flags: tuple = ()  # Flag, in --help order
    seed: str = "flag"  # "flag": --seed N; "set": --set sim.seed=N (the command has no --seed)
    positional: str | None = None  # a required positional argument, a file path (replay's trace)
    alternative: str | None = None  # a flag given instead of the positional (replay's --chakra)
    outputs: dict = field(default_factory=dict)  # default per-run outputs: column -> JSON pointer
    rows: dict = field(default_factory=dict)  # default tables: name -> Table

    def flag(self, key: str) -> Flag | None:
        """The flag an args: key names (long name, with '-' or '_', or the short alias)."""
        k = key.replace("_", "-")
        for f in self.flags:
            if k == f.name or (f.short is not None and key == f.short):
                return f
        return None


_COLL_FLAGS = (Flag("coll"), Flag("algo"), Flag("ranks"), Flag("placement"), Flag("type"),
               Flag("min-bytes", "b"), Flag("max-bytes", "e"), Flag("step-factor", "f"))

RUN_OUTPUTS = {
    "offered": "/throughput/offered",
    "accepted": "/throughput/accepted",
    "saturated": "/saturated",
    "packet_mean": "/latency/packet/mean",
    "packet_p50": "/latency/packet/p50",
    "packet_p99": "/latency/packet/p99",
    "packet_p999": "/latency/packet/p999",
    "packet_max": "/latency/packet/max",
    "network_mean": "/latency/network/mean",
    "network_p99": "/latency/network/p99",
    "cycles": "/sim/cycles",
}

COMMANDS = {c.name: c for c in (
    Command("run", "summary.json", (Flag("kernel"), Flag("threads")), outputs=RUN_OUTPUTS),
    Command("coll", "coll.json", _COLL_FLAGS + (
        Flag("protocol"), Flag("op"), Flag("slice-bytes"), Flag("root"), Flag("no-check", value=False), Flag("jobs"),
        Flag("threads")),
        seed="set",
        rows={"coll": Table("/rows", ("collective", "algorithm", "protocol", "channels", "selection", "ranks", "bytes"),
                            ("time_us", "algbw_gbytes_per_s", "busbw_gbytes_per_s", "cycles", "wrong"))}),
    Command("p2p", "p2p.json", (
        Flag("ops"), Flag("max-bytes"), Flag("warmup-cycles"), Flag("measure-cycles"),
        Flag("pair-warmup-cycles"), Flag("pair-measure-cycles"), Flag("jobs")),
        seed="set",
        rows={"p2p": Table("/rows", ("op", "bytes"),
                           ("latency_ns", "latency_cycles", "pair_gbytes_per_s", "efficiency",
                            "uniform_random_gbytes_per_s", "uniform_random_efficiency"))}),
    Command("workload", "workload.json", (
        Flag("placement"),
        Flag("chakra", refused="it writes Chakra traces; run `upswitch workload --chakra PREFIX` once, outside a sweep")),
            outputs={"cycles": "/cycles"},
            rows={"steps": Table("/steps", ("workload", "group", "step"),
                                 ("time_us", "compute_us", "comm_us", "exposed_us", "dropped")),
                  "phases": Table("/phases", ("workload", "step", "layer", "pass", "phase", "group"),
                                  ("time_us", "bytes", "a2a_gbps", "busiest_link_utilisation"))}),
    Command("replay", "replay.json", (
        Flag("chakra", path="chakra"), Flag("chakra-groups", path="file"), Flag("placement")),
            positional="trace", alternative="chakra",
            outputs={"cycles": "/cycles"},
            rows={"ops": Table("/rows", ("line", "id", "op", "bytes"), ("start_us", "end_us", "time_us"))}),
    Command("table", "table.json", _COLL_FLAGS + (
        Flag("p2p-max-bytes"), Flag("load"), Flag("loaded-sizes"), Flag("moe-tokens"), Flag("moe-skews"),
        Flag("jobs"), Flag("astra-units")),
        rows={"fits": Table("/fits/rows", ("kind", "operation", "algorithm", "ranks", "elem_bytes",
                                           "min_bytes", "max_bytes"),
                            ("alpha_us", "beta_gbytes_per_s", "r2", "max_rel_error"))}),
)}

SUMMARY_FILES = {c.name: c.summary for c in COMMANDS.values()}


def summary_file(argv) -> str:
    """The summary file of a run, from its argv (argv[0] is the subcommand)."""
    cmd = argv[0] if isinstance(argv, list) and argv and isinstance(argv[0], str) else "run"
    return SUMMARY_FILES.get(cmd, "summary.json")


def interrupted(doc: dict) -> bool:
    """Whether a command's summary says the simulation was interrupted (partial results)."""
    for part in (doc, doc.get("sim"), doc.get("meta")):
        if isinstance(part, dict) and part.get("interrupted") is True:
            return True
    return False
