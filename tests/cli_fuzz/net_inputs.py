"""Hostile network inputs for cli_fuzz.py (issue 58 item 6, "network inputs we keep to ourselves"):
topology files, Chakra execution traces, fault specifications, placements and thread counts, each
a mutation of a valid input that the command line must refuse in one line (exit 2) or run
correctly within bounded memory and time. cli_fuzz.py calls generate() for a share (SHARE) of its
invocations and checks the result with its usual oracle.

Classes (doc/topology.md "Limits and refusals", doc/trace.md "Chakra traces"):
  * topology files: a port used twice, a port beyond its switch's ports, a link to an unknown
    switch or endpoint, a dangling link (one end), a link from a port to itself, unreachable
    endpoints, latencies and rates negative, NaN, inf or not numbers, truncation, deep YAML
    nesting, long chains of switches and networks past the size limits;
  * Chakra traces: truncated framing, a length that claims more than the file, varints that
    never end, 64-bit and "negative" lengths, dependency cycles and unknown ids, and dependency
    chains of up to 1,000,000 nodes;
  * faults and placements naming switches, links or endpoints the topology lacks, or with
    negative, out-of-range or non-numeric times;
  * --threads far above the switches and cores.
Files go to one scratch folder of this process (removed at exit), rewritten for each invocation.
"""
from __future__ import annotations

import atexit
import random
import shutil
import tempfile
from pathlib import Path

SHARE = 0.25  # of cli_fuzz's invocations

_TOPOLOGIES = Path(__file__).resolve().parents[2] / "configs" / "topologies"
_dir: Path | None = None
_deep_chakra: bytes | None = None

RUN = ["run", "--preset", "tiny", "--set", "sim.measure_cycles=400", "--set", "sim.warmup_cycles=100"]
BAD_NUMBERS = ["-1", "-0", "0", "nan", ".nan", "NaN", "inf", ".inf", "-.inf", "1e400", "abc", "''", "[1]", "{a: 1}",
               "99999999999999999999", "0x10", "1.5", "-1e-9", "null"]


def _scratch() -> Path:
    global _dir
    if _dir is None:
        _dir = Path(tempfile.mkdtemp(prefix="cli_fuzz_net_"))
        atexit.register(shutil.rmtree, _dir, True)
    return _dir


# ---------------------------------------------------------------- topology files

def _chain(n: int) -> str:
    """n switches in a line (port 0 towards endpoint 0, port 1 towards endpoint 1): routes cross n switches."""
    s = "switches:\n" + "".join(f"  - {{id: {i}, ports: 2}}\n" for i in range(n))
    s += "endpoints:\n  - {id: 0, ports: 1}\n  - {id: 1, ports: 1}\n"
    s += "links:\n  - [endpoint 0:0, switch 0:0]\n" + f"  - [endpoint 1:0, switch {n - 1}:1]\n"
    s += "".join(f"  - [switch {i}:1, switch {i + 1}:0]\n" for i in range(n - 1))
    return s + "routing: shortest_path\n"


def _star(switches: int, per: int) -> str:
    """switches leaves in a line, `per` endpoints on each (large networks, limits)."""
    s = "switches:\n" + "".join(f"  - {{id: {i}, ports: {per + 2}}}\n" for i in range(switches))
    e = switches * per
    s += "endpoints:\n" + "".join(f"  - {{id: {k}, ports: 1}}\n" for k in range(e))
    s += "links:\n" + "".join(f"  - [endpoint {k}:0, switch {k // per}:{k % per}]\n" for k in range(e))
    s += "".join(f"  - [switch {i}:{per}, switch {i + 1}:{per + 1}]\n" for i in range(switches - 1))
    return s + "routing: shortest_path\n"


def _valid_topologies() -> list[str]:
    files = sorted(_TOPOLOGIES.glob("*.yaml")) if _TOPOLOGIES.is_dir() else []
    return [f.read_text() for f in files if "ring4.yaml" != f.name] + [_chain(3), _star(2, 2)]


def _link_lines(text: str) -> list[int]:
    lines = text.splitlines()
    return [i for i, x in enumerate(lines) if x.strip().startswith("- [") and ("switch" in x or "endpoint" in x)]


def _mutate_topology(rng: random.Random, text: str) -> str:
    lines = text.splitlines()
    links = _link_lines(text)
    kind = rng.choice(["port_twice", "beyond_radix", "unknown_switch", "unknown_endpoint", "dangling", "self",
                       "value", "unreachable", "truncate", "nest", "chain", "huge", "flip", "ports", "duplicate_id",
                       "none"])
    if kind in ("port_twice", "beyond_radix", "unknown_switch", "unknown_endpoint", "dangling", "self", "value",
                "unreachable") and not links:
        kind = "truncate"
    if kind == "port_twice" and len(links) >= 2:
        a, b = rng.sample(links, 2)
        end = lines[a].split("[", 1)[1].split(",")[rng.randrange(2)].strip().rstrip("]")
        head, rest = lines[b].split("[", 1)
        parts = rest.split(",", 1)
        lines[b] = head + "[" + end + "," + parts[1]
    elif kind == "beyond_radix":
        i = rng.choice(links)
        lines[i] = lines[i].replace(":", ":" + rng.choice(["9", "99", "1024", "65535", "65536", "-1"]), 1)
    elif kind == "unknown_switch":
        i = rng.choice(links)
        lines[i] = lines[i].replace("switch ", "switch " + rng.choice(["9", "4096", "99999"]), 1)
    elif kind == "unknown_endpoint":
        i = rng.choice(links)
        lines[i] = lines[i].replace("endpoint ", "endpoint 7", 1) if "endpoint" in lines[i] else \
            lines[i].replace("switch ", "endpoint 9", 1)
    elif kind == "dangling":
        i = rng.choice(links)
        lines[i] = lines[i].split("[", 1)[0] + "[" + lines[i].split("[", 1)[1].split(",")[0] + "]"
    elif kind == "self":
        i = rng.choice(links)
        end = lines[i].split("[", 1)[1].split(",")[0].strip()
        lines[i] = lines[i].split("[", 1)[0] + f"[{end}, {end}]"
    elif kind == "value":
        i = rng.choice(links)
        key = rng.choice(["latency_cycles", "credit_delay_cycles", "gbytes_per_s"])
        body = lines[i].rstrip().rstrip("]")
        if "{" in body:
            body = body.split("{", 1)[0].rstrip().rstrip(",")
        lines[i] = body + f", {{{key}: {rng.choice(BAD_NUMBERS)}}}]"
    elif kind == "unreachable":
        lines = [x for k, x in enumerate(lines) if not (k in links and x.count("switch") == 2)]
    elif kind == "truncate":
        cut = rng.randrange(len(text) + 1)
        return text[:cut]
    elif kind == "nest":
        depth = rng.choice([100, 1000, 10000, 100000])
        return "switches: " + rng.choice(["[", "{a: ", "- "]) * depth + "\n"
    elif kind == "chain":
        return _chain(rng.choice([1, 2, 16, 63, 64, 65, 66, 200, 2000, 5000]))
    elif kind == "huge":
        return rng.choice([_star(4097, 1), _star(2, 2100), _star(2049, 2), _chain(4097)])
    elif kind == "flip":
        b = bytearray(text.encode())
        for _ in range(rng.randrange(1, 6)):
            if b:
                b[rng.randrange(len(b))] = rng.choice(b"[]{}:,-#&*!|>'\"\n 0129x\xff")
        return b.decode("utf-8", "replace")
    elif kind == "ports":
        sw = [k for k, x in enumerate(lines) if "ports:" in x]
        if sw:
            i = rng.choice(sw)
            head, rest = lines[i].split("ports:", 1)
            lines[i] = head + "ports: " + rng.choice(BAD_NUMBERS + ["1", "2", "72", "1025", "4096"]) + "}"
    elif kind == "duplicate_id":
        ids = [k for k, x in enumerate(lines) if "{id:" in x]
        if ids:
            i = rng.choice(ids)
            lines.insert(i, lines[i])
    return "\n".join(lines) + "\n"


def _topology(rng: random.Random) -> list[str]:
    f = _scratch() / "topology.yaml"
    text = rng.choice(_valid_topologies())
    for _ in range(rng.choice([1, 1, 1, 2])):
        try:
            text = _mutate_topology(rng, text)
        except (IndexError, ValueError):  # a line an earlier mutation left without its shape
            text = text[:rng.randrange(len(text) + 1)]
    f.write_bytes(text.encode("utf-8", "replace"))
    keys = ["--set", "topology.kind=file", "--set", f"topology.file={f}", "--set", "switch.queueing=vc",
            "--set", "switch.ports=" + rng.choice(["8", "64", "1024"])]
    if rng.random() < 0.5:
        return ["topo"] + keys + rng.choice([[], ["--quiet"]])
    return RUN + keys + ["--kernel", "plain", "--threads", rng.choice(["1", "2"]), "--out", "@OUT"]


# ---------------------------------------------------------------- Chakra traces

def _varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = b""
    while True:
        c = n & 0x7F
        n >>= 7
        if n:
            out += bytes([c | 0x80])
        else:
            return out + bytes([c])


def _field(num: int, wire: int) -> bytes:
    return _varint(num << 3 | wire)


def _framed(m: bytes) -> bytes:
    return _varint(len(m)) + m


def _meta() -> bytes:
    return _framed(_field(1, 2) + _framed(b"0.0.4"))


def _attr_int(name: str, v: int) -> bytes:
    a = _field(1, 2) + _framed(name.encode()) + _field(9, 0) + _varint(v)
    return _field(10, 2) + _framed(a)


def _node(i: int, deps: list[int], typ: int = 4, dur: int = 1, attrs: bytes = b"") -> bytes:
    m = _field(1, 0) + _varint(i) + _field(3, 0) + _varint(typ)
    for d in deps:
        m += _field(4, 0) + _varint(d)
    m += _field(7, 0) + _varint(dur) + attrs
    return _framed(m)


def _valid_rank(rng: random.Random, n: int) -> bytes:
    """Compute nodes in a chain with an all-reduce in the middle (every rank alike)."""
    body = b""
    for i in range(n):
        if i == n // 2:
            body += _node(i, [i - 1] if i else [], typ=7, dur=0,
                          attrs=_attr_int("comm_type", 0) + _attr_int("comm_size", 4096))
        else:
            body += _node(i, [i - 1] if i else [], dur=rng.randrange(0, 5))
    return _meta() + body


def _deep() -> bytes:
    global _deep_chakra
    if _deep_chakra is None:
        _deep_chakra = _meta() + b"".join(_node(i, [i - 1] if i else [], dur=0) for i in range(1000000))
    return _deep_chakra


def _mutate_chakra(rng: random.Random, data: bytes) -> bytes:
    kind = rng.choice(["truncate", "claims_more", "endless_varint", "varint_11", "len64", "negative", "len_2g",
                       "cycle", "self_dep", "unknown_dep", "bad_type", "flip", "empty", "deep", "none"])
    if kind == "truncate":
        return data[:rng.randrange(len(data) + 1)]
    if kind == "claims_more":
        return data + _varint(rng.choice([len(data) + 1, 1000000, (1 << 30) + 1])) + b"\x08\x01"
    if kind == "endless_varint":
        return data + b"\xff" * rng.choice([10, 11, 20, 4096])
    if kind == "varint_11":
        return data + b"\xff" * 10 + b"\x01"
    if kind == "len64":
        return data + _varint(1 << rng.choice([32, 40, 63])) + b"\x00"
    if kind == "negative":
        return data + _varint(-rng.choice([1, 2, 1 << 31])) + b"\x00" * 4
    if kind == "len_2g":
        return data + _varint((1 << 31) + rng.randrange(16)) + b"\x00"
    if kind == "cycle":
        return _meta() + _node(0, [1]) + _node(1, [0])
    if kind == "self_dep":
        return _meta() + _node(0, [0])
    if kind == "unknown_dep":
        return data + _node(999999, [123456789])
    if kind == "bad_type":
        return data + _node(888888, [], typ=rng.choice([11, 99, 1 << 31]))
    if kind == "flip":
        b = bytearray(data)
        for _ in range(rng.randrange(1, 8)):
            if b:
                b[rng.randrange(len(b))] = rng.randrange(256)
        return bytes(b)
    if kind == "empty":
        return b""
    if kind == "deep":
        return _deep()
    return data


def _chakra(rng: random.Random) -> list[str]:
    d = _scratch() / "et"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir()
    ranks = rng.choice([1, 2, 4])
    n = rng.choice([1, 3, 8, 50])
    valid = _valid_rank(rng, n)
    bad = rng.randrange(ranks)
    for r in range(ranks):
        (d / f"x.{r}.et").write_bytes(_mutate_chakra(rng, valid) if r == bad else valid)
    return ["replay", "--preset", "tiny", "--chakra", str(d / "x"), "--out", "@OUT"]


# ---------------------------------------------------------------- faults, placements, threads

def _times(rng: random.Random) -> str:
    return rng.choice(["10", "0", "-5", "nan", "inf", "1e400", "x", "", "18446744073709551616", "1.5", "-0"])


def _faults(rng: random.Random) -> list[str]:
    planes = ["--set", "topology.kind=planes", "--set", "topology.endpoints=4", "--set", "topology.planes=2"]
    link = rng.choice(["ep0.p0", "ep9.p0", "ep0.p9", "sw0.p0", "sw7.p0", "sw0.p99", "999", "-1", "x", "accelerators",
                       "switches", "ep-1.p0", "sw0.p", "ep.p0"])
    item = rng.choice([
        ("faults.switch_down", f"{rng.choice(['0', '1', '2', '99', '-1', 'x'])}@{_times(rng)}"),
        ("faults.link_down", f"{link}@{_times(rng)}-{_times(rng)}"),
        ("faults.port_down", f"{link}@{_times(rng)}"),
        ("faults.link_errors", f"{link}={rng.choice(['1e-4', '-1', 'nan', '0.9', 'x'])}"),
        # Only credit losses that name what is not there: a real one stops the run with exit 4 by
        # design (the credit checker's report, tests/cli/fault_cli_test.cpp).
        ("faults.credit_loss", f"{rng.choice(['ep9.p0', 'sw7.p0', 'sw0.p99', '999', 'x', 'ep.p0'])}:"
                               f"{rng.choice(['up', 'down', 'out', 'sideways'])}@{_times(rng)}"),
    ])
    extra = []
    if item[0] in ("faults.link_down", "faults.link_errors", "faults.credit_loss"):
        extra = ["--set", "link.dl.enable=true"]
    if item[0] == "faults.port_down":
        extra = ["--set", "traffic.kind=transactions", "--set", "endpoint.completion_timeout_ns=2000"]
    if rng.random() < 0.7:
        return RUN + planes + extra + ["--set", f"{item[0]}={item[1]}", "--out", "@OUT"]
    placement = rng.choice(["0,1,2,99", "0,0,1,2", "-1,0", "a,b", "0,1,2,3,4,5,6,7", "7,6,5,4,3,2,1,0",
                            "0,1,2,3,4,5,6,4096", "0,1,2,3,4,5,6,99999999999", "", ",", "spread", "packed"])
    return ["workload", "--preset", "tiny", "--set", "moe.tokens=16", "--set", "tp.seq_len=64", "--set", "tp.hidden=256",
            "--set", f"workload.placement={placement}", "--out", "@OUT"]


def _threads(rng: random.Random) -> list[str]:
    n = rng.choice(["1024", "100000", "2147483647", "2147483648", "4294967296", "1000000000", "0", "-1", "65", "x", "1e9"])
    net = rng.choice([["--set", "topology.kind=planes", "--set", "topology.endpoints=4", "--set", "topology.planes=4"],
                      ["--set", "topology.kind=file", "--set", f"topology.file={_TOPOLOGIES / 'two_switch.yaml'}"], []])
    return RUN + net + ["--kernel", "plain", "--threads", n, "--out", "@OUT"]


def generate(rng: random.Random) -> list[str]:
    """One invocation with a hostile network input (paths absolute or cli_fuzz's @OUT)."""
    return rng.choices([_topology, _chakra, _faults, _threads], weights=[4, 3, 2, 1])[0](rng)
