// The switch's structural and timing parameters, as the cycle core consumes them. Defaults,
// units, ranges and descriptions live in one place only: systemc/config/param_table.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace upswitch::core {

enum class Queueing { kFifo, kVc, kVoq };
// How a switch picks among equal-cost output ports (routing.multipath): a flow hash of (source,
// destination) that keeps each flow on one path, a round robin per input, the output with the
// most downstream credits (adaptive), or the one at the input port's position among them
// (input: input port mod their count, so a source's spread over its links carries through).
enum class PathChoice { kHash, kRoundRobin, kAdaptive, kInput };

struct SwitchParams {
  int ports = 0;
  int vcs = 0;
  // Message classes, each with its own `vcs` lanes and shared pool: 1 for synthetic packets, 2
  // for transactions (requests on lanes [0, vcs), responses on [vcs, 2*vcs)). A flit's `vc`
  // field is its lane.
  int classes = 1;
  int vc_buffer_flits = 0;      // reserved input-buffer slots per VC
  int shared_buffer_flits = 0;  // shared input-buffer slots per input port
  // The most shared slots that flits for any one output may hold in one input; 0 = no cap. The
  // senders enforce it (they consume the credits): doc/architecture.md, "Hotspot remedies".
  int shared_buffer_output_cap = 0;
  // Transactions (classes = 2): command (message header) slots of the input's TL receiver, per
  // lane and shared per port; a packet takes one per message at its head, on every hop.
  int cmd_vc_credits = 0;
  int cmd_shared_credits = 0;
  Queueing queueing = Queueing::kVoq;
  std::string allocator;
  int allocator_iterations = 0;
  // Packet mode (doc/architecture.md "Packet mode"): an input stays matched to the output its
  // packet is crossing to, the allocator skipping both, for as long as the packet flows.
  bool packet_mode = false;
  // Speculative switch allocation (vc queueing; doc/architecture.md "Speculation"): a head in VC
  // allocation also requests the crossbar in the same cycle, after the non-speculative requests.
  bool speculative = false;
  // Crossbar speedup (doc/architecture.md "Crossbar speedup"): up to `speedup` allocation rounds
  // per cycle, so an input sends and an output receives up to that many flits per cycle; with
  // speedup > 1 each output has a buffer of `output_buffer_flits` flits (the egress pipeline
  // included) that its link drains.
  int speedup = 1;
  int output_buffer_flits = 0;
  int routing_cycles = 0;
  int vc_alloc_cycles = 0;  // only in `vc` queueing
  int sw_alloc_cycles = 0;
  int xbar_cycles = 0;
  int egress_cycles = 0;
  std::vector<int> routing_table;  // destination endpoint id -> output port; empty = identity
  // A switch in a network (network/network.h): for destination endpoint d the output ports
  // route_ports[route_begin[d] .. route_begin[d + 1]); overrides routing_table when given.
  std::vector<uint32_t> route_begin;
  std::vector<uint16_t> route_ports;
  PathChoice path_choice = PathChoice::kHash;
  uint64_t hash_salt = 0;  // per switch, so successive hops do not make the same hashed choice
  // Datelines (doc/topology.md): with 2 VC classes each message class's VCs are split in halves;
  // packets travel in the lower half until they leave through a port marked here, and in the
  // upper half from then on (vc queueing only).
  int vc_classes = 1;
  std::vector<uint8_t> dateline_ports;  // per output port: 1 = its link is a dateline
  uint64_t watchdog_cycles = 0;    // no grant for this long while flits wait = deadlock; 0 = off
  // Window of cycles [window_begin, window_end) over which utilisation statistics are counted.
  uint64_t window_begin = 0;
  uint64_t window_end = UINT64_MAX;

  int lanes() const { return vcs * classes; }
  int buffer_flits() const { return lanes() * vc_buffer_flits + shared_buffer_flits; }
  int output_pipeline_cycles() const { return sw_alloc_cycles + xbar_cycles + egress_cycles; }
};

// The receiver buffer behind each switch output (the endpoint's receive buffer).
struct DownstreamBuffer {
  int vc_flits = 0;
  int shared_flits = 0;
  int cmd_vc = 0;      // transactions: command slots per lane
  int cmd_shared = 0;  // transactions: shared command slots
};

}  // namespace upswitch::core
