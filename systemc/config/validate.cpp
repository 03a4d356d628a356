// Cross-parameter checks and derived fields. Single-key ranges are checked when the key is set.
#include <algorithm>
#include <array>
#include <sstream>

#include "config/fault_params.h"
#include "config/link_faults.h"
#include "config/param_table.h"
#include "config/topology_params.h"
#include "config/value_parse.h"
#include "core/allocator.h"
#include "tl/ops.h"

namespace upswitch::config {
namespace {

[[noreturn]] void fail(const std::string& msg) { throw ConfigError(msg); }

std::vector<std::pair<int, double>> parse_mix(const std::string& text) {
  std::vector<std::pair<int, double>> mix;
  if (text.empty()) return mix;
  std::stringstream ss(text);
  std::string item;
  const std::string allowed = "SIZE:WEIGHT,... with SIZE 1 .. 4096 flits and WEIGHT > 0";
  while (std::getline(ss, item, ',')) {
    const size_t colon = item.find(':');
    if (colon == std::string::npos) fail("traffic.packet_mix = '" + text + "': expected " + allowed);
    try {
      const int size = static_cast<int>(parse_int("traffic.packet_mix", item.substr(0, colon), 1, 4096));
      const double w = parse_float("traffic.packet_mix", item.substr(colon + 1), 1e-12, 1e12);
      mix.emplace_back(size, w);
    } catch (const ConfigError&) {
      fail("traffic.packet_mix = '" + text + "': expected " + allowed);
    }
  }
  return mix;
}

std::vector<std::string> atomic_names() {
  std::vector<std::string> names;
  for (int i = 0; i < tl::kAtomicOps; ++i) names.push_back(tl::atomic_op_name(static_cast<tl::AtomicOp>(i)));
  return names;
}

// accel.atomic_ops: "all", "none" or a list of tl atomic op names.
std::array<bool, tl::kAtomicOps> parse_atomic_ops(const std::string& text) {
  std::array<bool, tl::kAtomicOps> supported{};
  const std::string t = trim(text);
  if (t == "all") {
    supported.fill(true);
    return supported;
  }
  if (t == "none") return supported;
  const std::string allowed = "all, none, or a comma-separated list of " + join(atomic_names(), ", ");
  if (t.empty()) fail("accel.atomic_ops = '" + text + "': expected " + allowed);
  for (const std::string& name : split_list(t)) {
    tl::AtomicOp op{};
    if (!tl::parse_atomic_op(name.c_str(), op))
      fail("accel.atomic_ops = '" + text + "': unknown atomic '" + name + "'; expected " + allowed);
    supported[static_cast<size_t>(op)] = true;
  }
  return supported;
}

// txn.mix: OP:WEIGHT,... over the tl opcodes.
std::vector<std::pair<tl::Opcode, double>> parse_txn_mix(const std::string& text) {
  std::vector<std::string> ops;
  for (int i = 0; i < tl::kOpcodes; ++i) ops.push_back(tl::opcode_name(static_cast<tl::Opcode>(i)));
  const std::string allowed = "OP:WEIGHT,... with OP one of " + join(ops, ", ") + " and WEIGHT > 0";
  std::vector<std::pair<tl::Opcode, double>> mix;
  if (trim(text).empty()) fail("txn.mix = '" + text + "': expected " + allowed);
  for (const std::string& item : split_list(text)) {
    const size_t colon = item.find(':');
    tl::Opcode op{};
    if (colon == std::string::npos || !tl::parse_opcode(trim(item.substr(0, colon)).c_str(), op))
      fail("txn.mix = '" + text + "': expected " + allowed);
    try {
      mix.emplace_back(op, parse_float("txn.mix", item.substr(colon + 1), 1e-12, 1e12));
    } catch (const ConfigError&) {
      fail("txn.mix = '" + text + "': expected " + allowed);
    }
  }
  return mix;
}

// txn.sizes: BYTES:WEIGHT,... with BYTES a multiple of 4 from 4 B to 1 GiB.
std::vector<std::pair<int, double>> parse_txn_sizes(const std::string& text) {
  const std::string allowed = "BYTES:WEIGHT,... with BYTES 4 .. 1073741824, a multiple of 4, and WEIGHT > 0";
  std::vector<std::pair<int, double>> sizes;
  if (trim(text).empty()) fail("txn.sizes = '" + text + "': expected " + allowed);
  for (const std::string& item : split_list(text)) {
    const size_t colon = item.find(':');
    if (colon == std::string::npos) fail("txn.sizes = '" + text + "': expected " + allowed);
    int bytes = 0;
    double w = 0;
    try {
      bytes = static_cast<int>(parse_int("txn.sizes", item.substr(0, colon), 4, int64_t{1} << 30));
      w = parse_float("txn.sizes", item.substr(colon + 1), 1e-12, 1e12);
    } catch (const ConfigError&) {
      fail("txn.sizes = '" + text + "': expected " + allowed);
    }
    if (bytes % 4 != 0) fail("txn.sizes = '" + text + "': expected " + allowed);
    sizes.emplace_back(bytes, w);
  }
  return sizes;
}

// Checks of the accel.*, tl.* and txn.* values against each other and against the switch; they
// apply only to transaction runs (the values are unused otherwise).
void validate_transactions(Config& c) {
  const auto& ap = c.accel;
  if (c.sw.queueing == core::Queueing::kFifo)
    fail("switch.queueing = fifo with traffic.kind = transactions: responses would wait behind requests in the "
         "single input queue (UALink: responses are never blocked by requests); expected vc or voq");
  // A request packet keeps its receive-buffer slots until the completer admits it, so one lane of
  // the receiver must hold the largest single-message request packet: a 256 B Write = 1 control
  // + 8 data + 1 byte-enable half-flits = 5 flits (tl/packet_format.h).
  if (c.endpoint_rx.vc_flits < 5)
    fail("endpoint.rx_vc_flits = " + std::to_string(c.endpoint_rx.vc_flits) +
         " with traffic.kind = transactions: expected at least 5 (the largest one-request packet, a 256 B Write)");
  if (ap.window_base % 4096 != 0)
    fail("accel.window_base = " + std::to_string(ap.window_base) + ": expected a multiple of 4096");
  constexpr uint64_t kAddressSpace = uint64_t{1} << 57;
  // window_base < 2^57, ports <= 1024 and window_bytes <= 2^50: the sum fits 64 bits.
  const int endpoints = c.endpoints();
  const uint64_t end = ap.window_base + static_cast<uint64_t>(endpoints) * ap.window_bytes;
  if (end > kAddressSpace)
    fail(std::string("accel.window_base + ") + (c.single_switch() ? "switch.ports" : "endpoints") +
         " x accel.window_bytes = " + std::to_string(ap.window_base) + " + " + std::to_string(endpoints) + " x " + std::to_string(ap.window_bytes) + " = " + std::to_string(end) +
         ": expected at most 2^57 = " + std::to_string(kAddressSpace) + " (the 57-bit physical address space)");
  // The multicast windows follow the accelerators' (groups <= 1024: still within 64 bits).
  const uint64_t mc_end = end + static_cast<uint64_t>(ap.reduce.groups) * ap.window_bytes;
  if (ap.reduce.enable && mc_end > kAddressSpace)
    fail("reduce.groups = " + std::to_string(ap.reduce.groups) + ": the multicast windows end at " +
         std::to_string(mc_end) + ", beyond the 57-bit physical address space (2^57 = " + std::to_string(kAddressSpace) +
         "); lower reduce.groups or accel.window_bytes, or set reduce.enable = false");
  if (ap.memory_bytes > ap.window_bytes)
    fail("accel.memory_bytes = " + std::to_string(ap.memory_bytes) + ": expected at most accel.window_bytes = " +
         std::to_string(ap.window_bytes) + " (the memory sits inside the accelerator's window)");
  if (c.txn.footprint_bytes > ap.memory_bytes)
    fail("txn.footprint_bytes = " + std::to_string(c.txn.footprint_bytes) +
         ": expected at most accel.memory_bytes = " + std::to_string(ap.memory_bytes));
  const bool writefull = std::any_of(c.txn.mix.begin(), c.txn.mix.end(),
                                     [](const auto& m) { return m.first == tl::Opcode::kWriteFull; });
  if (writefull)
    for (const auto& [bytes, w] : c.txn.sizes)
      if (bytes % 64 != 0)
        fail("txn.sizes = '" + c.txn_sizes_text + "' has " + std::to_string(bytes) +
             " B with writefull in txn.mix: expected multiples of 64 B (WriteFull writes whole 64 B beats)");
  const double link_bytes = c.flit_bytes * c.link_flits_per_cycle();
  const double p = c.txn.load * link_bytes / c.txn.mean_bytes();
  if (p > 1.0)
    fail("txn.load = " + format_float(c.txn.load) + " with a mean transfer of " + format_float(c.txn.mean_bytes()) +
         " B (txn.sizes, atomics txn.atomic_bytes, weighted by txn.mix) and " + format_float(link_bytes) +
         " link B/cycle needs " + format_float(p) +
         " transfers per port per cycle: expected at most 1 (one transfer per cycle per port); raise txn.sizes "
         "or lower txn.load");
}

void check_ports(const char* key, const std::vector<int>& list, int ports) {
  for (int v : list)
    if (v >= ports)
      fail(std::string(key) + " contains " + std::to_string(v) + ": expected ports 0 .. " +
           std::to_string(ports - 1) + " (switch.ports = " + std::to_string(ports) + ")");
}

}  // namespace

void validate(Config& c) {
  c.sw.allocator = core::allocator_names()[static_cast<size_t>(c.allocator_index)];
  if (c.coll.store_bytes % 64 != 0)
    fail("coll.store_bytes = " + std::to_string(c.coll.store_bytes) + ": expected 64, 128, 192 or 256");
  resolve_topology(c);
  // The traffic keys name endpoints: one per port on one switch, the topology's otherwise.
  const int n = c.endpoints();
  if (!c.sw.routing_table.empty()) {
    if (static_cast<int>(c.sw.routing_table.size()) != c.sw.ports)
      fail("switch.routing_table has " + std::to_string(c.sw.routing_table.size()) +
           " entries: expected none (identity) or one per port (" + std::to_string(n) + ")");
    check_ports("switch.routing_table", c.sw.routing_table, n);
  }
  check_ports("traffic.hotspot_ports", c.traffic.hotspot_ports, n);
  if (c.traffic.pattern == traffic::Pattern::kHotspot && c.traffic.hotspot_ports.empty())
    fail("traffic.hotspot_ports is empty: the hotspot pattern needs at least one hot port");
  if (c.traffic.incast_target >= n)
    fail("traffic.incast_target = " + std::to_string(c.traffic.incast_target) + ": expected a port 0 .. " +
         std::to_string(n - 1));
  if (c.traffic.incast_sources > n - 1)
    fail("traffic.incast_sources = " + std::to_string(c.traffic.incast_sources) + ": expected 0 .. " +
         std::to_string(n - 1) + " (the other ports)");
  if (c.traffic.shift >= n)
    fail("traffic.shift = " + std::to_string(c.traffic.shift) + ": expected 0 .. " + std::to_string(n - 1));
  c.traffic.packet_mix = parse_mix(c.packet_mix_text);
  c.accel.atomic_supported = parse_atomic_ops(c.atomic_ops_text);
  c.txn.mix = parse_txn_mix(c.txn_mix_text);
  c.txn.sizes = parse_txn_sizes(c.txn_sizes_text);
  const bool transactions = c.kind == Config::TrafficKind::kTransactions;
  c.sw.classes = transactions ? 2 : 1;
  if (transactions && !c.sw.routing_table.empty())
    for (int d = 0; d < n; ++d)
      if (c.sw.routing_table[static_cast<size_t>(d)] != d)
        fail("switch.routing_table maps endpoint " + std::to_string(d) + " to port " +
             std::to_string(c.sw.routing_table[static_cast<size_t>(d)]) +
             ": with traffic.kind = transactions an accelerator's id is its port (responses return to the "
             "requester's port), so expected none or the identity");
  if (transactions) validate_transactions(c);
  // The hotspot remedies act at the synthetic sources (traffic/endpoints.cpp); the cap needs the
  // sender to know the output of each packet at the switch, which a source knows on one switch.
  if (c.sw.shared_buffer_output_cap > 0 && transactions)
    fail("switch.shared_buffer_output_cap = " + std::to_string(c.sw.shared_buffer_output_cap) +
         " with traffic.kind = transactions: the cap is enforced by the packet sources only; expected 0");
  if (c.sw.shared_buffer_output_cap > 0 && !c.single_switch())
    fail("switch.shared_buffer_output_cap = " + std::to_string(c.sw.shared_buffer_output_cap) +
         " with topology.kind = " + find_param("topology.kind")->get(c).get<std::string>() +
         ": the cap runs on one switch only for now (a switch output does not enforce it towards the next "
         "switch); expected 0");
  if (c.traffic.injection_queues != traffic::InjectionQueues::kFifo && transactions)
    fail("endpoint.injection_queues = per_destination with traffic.kind = transactions: the accelerators have "
         "their own transmitters; expected fifo");
  if (c.sw.speculative && c.sw.queueing != core::Queueing::kVc)
    fail(std::string("switch.speculative = true with switch.queueing = ") +
         (c.sw.queueing == core::Queueing::kFifo ? "fifo" : "voq") +
         ": speculation overlaps VC allocation with switch allocation, and only vc queueing allocates VCs; "
         "expected switch.queueing = vc or switch.speculative = false");
  if (c.sw.speedup > 1 && (c.sw.packet_mode || c.sw.speculative))
    fail("switch.speedup = " + std::to_string(c.sw.speedup) + " with switch." +
         (c.sw.packet_mode ? "packet_mode" : "speculative") +
         " = true: crossbar speedup is modelled with flit-by-flit, non-speculative allocation only; expected "
         "switch.speedup = 1 or switch." + (c.sw.packet_mode ? "packet_mode" : "speculative") + " = false");
  if (c.sw.queueing == core::Queueing::kFifo && c.sw.vcs > 1 && c.sw.vc_buffer_flits < 1)
    fail("switch.vc_buffer_flits must be at least 1");
  resolve_link_faults(c);
  resolve_faults(c);
  c.sw.window_begin = c.measure.warmup_cycles;
  c.sw.window_end = c.measure.warmup_cycles + c.measure.measure_cycles;
}

}  // namespace upswitch::config
