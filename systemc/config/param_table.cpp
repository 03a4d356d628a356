// Every configuration parameter, declared once. Defaults describe a UALink-class 72-port switch
// (doc/config.md and doc/architecture.md give the sources; facts sheet section 5).
#include "config/param_table.h"
#include "config/topology_params.h"

#include <algorithm>

#include "config/param_builders.h"
#include "config/value_parse.h"
#include "core/allocator.h"
#include "tl/ops.h"

namespace upswitch::config {
namespace {

const std::vector<std::string> kQueueing = {"fifo", "vc", "voq"};
const std::vector<std::string> kPatterns = {"uniform", "permutation", "shift", "hotspot", "incast"};
const std::vector<std::string> kInjection = {"bernoulli", "onoff"};
const std::vector<std::string> kTrafficKinds = {"packets", "transactions"};
const std::vector<std::string> kInjectionQueues = {"fifo", "per_destination"};

std::vector<std::string> atomic_op_names() {
  std::vector<std::string> names;
  for (int i = 0; i < tl::kAtomicOps; ++i) names.push_back(tl::atomic_op_name(static_cast<tl::AtomicOp>(i)));
  return names;
}

using namespace builders;  // NOLINT: the builders are this file's vocabulary

std::vector<ParamSpec> build_table() {
  std::vector<ParamSpec> t;
  // --- switch structure
  t.push_back(int_param("switch.ports", [](Config& c) -> int& { return c.sw.ports; }, 72, 2, 1024, "ports",
                        "Switch radix: one endpoint per port (NVL72 chip radix, UALink one port per accelerator)."));
  t.push_back(int_param("switch.vcs", [](Config& c) -> int& { return c.sw.vcs; }, 4, 1, 16, "VCs",
                        "Virtual channels per port (UALink TL VC field is 2 bits: 4 VCs)."));
  t.push_back(int_param("switch.vc_buffer_flits", [](Config& c) -> int& { return c.sw.vc_buffer_flits; }, 32, 1,
                        1 << 20, "flits",
                        "Input-buffer slots reserved per VC at each input port (credits per VC)."));
  t.push_back(int_param("switch.shared_buffer_flits", [](Config& c) -> int& { return c.sw.shared_buffer_flits; },
                        384, 0, 1 << 20, "flits",
                        "Input-buffer slots shared by all VCs of a port (pool credits); 512 flits = 32 KB per port in all."));
  t.push_back(int_param("switch.shared_buffer_output_cap",
                        [](Config& c) -> int& { return c.sw.shared_buffer_output_cap; }, 0, 0, 1 << 20, "flits",
                        "Most shared input-buffer slots that packets for any one output may hold in one input; 0 = "
                        "no cap. A flit for an output at its cap takes a reserved credit of its VC or waits, so one "
                        "hot output cannot fill the pool. Enforced by the sources, which consume the credits (one "
                        "switch, packet traffic)."));
  t.push_back(int_param("switch.cmd_vc_credits", [](Config& c) -> int& { return c.sw.cmd_vc_credits; }, 16, 1, 1 << 16,
                        "headers",
                        "Transactions: command (message header) slots of each input's TL receiver reserved per lane, "
                        "the ReqCmd/RspCmd credits of UALink (facts 1.7); a packet takes one per message at its head. "
                        "Sizes are not public: an estimate."));
  t.push_back(int_param("switch.cmd_shared_credits", [](Config& c) -> int& { return c.sw.cmd_shared_credits; }, 128, 0,
                        1 << 16, "headers",
                        "Transactions: command slots shared by the lanes of an input, split between the request and "
                        "response classes (pool credits; an estimate)."));
  t.push_back(enum_param("switch.queueing", [](Config& c) -> core::Queueing& { return c.sw.queueing; }, kQueueing,
                         "voq",
                         "Input queueing: fifo (one queue per input: head-of-line blocking), vc (one queue per VC, "
                         "VC allocation per packet), voq (one queue per output and VC)."));
  t.push_back(enum_param("switch.allocator", [](Config& c) -> int& { return c.allocator_index; },
                         core::allocator_names(), "islip",
                         "Switch allocator: separable_input_first (round-robin arbiters), islip, wavefront."));
  t.push_back(int_param("switch.allocator_iterations", [](Config& c) -> int& { return c.sw.allocator_iterations; },
                        4, 1, 64, "iterations", "Iterations of iterative allocators (islip)."));
  t.push_back(bool_param("switch.packet_mode", [](Config& c) -> bool& { return c.sw.packet_mode; }, false,
                         "Packet-mode allocation: an input stays matched to the output its packet is crossing to, "
                         "outside allocation, for as long as the packet's flits flow (packet-mode iSLIP/PIM; "
                         "a request's match yields to waiting responses). false = every flit is allocated on its "
                         "own, as the reference RTL and BookSim do."));
  t.push_back(bool_param("switch.speculative", [](Config& c) -> bool& { return c.sw.speculative; }, false,
                         "Speculative switch allocation (vc queueing only): a head in VC allocation also requests "
                         "the crossbar in the same cycle, below every non-speculative request; a grant to a head "
                         "whose VC allocation failed is lost (Peh and Dally 2001, BookSim's speculative = 1)."));
  t.push_back(int_param("switch.speedup", [](Config& c) -> int& { return c.sw.speedup; }, 1, 1, 8, "x",
                        "Integer crossbar speedup: allocation rounds per core cycle, so each input sends and each "
                        "output receives up to this many flits per cycle (a combined input-output queued switch; "
                        "speedup 2 makes VOQ behave nearly like output queueing). Above 1 each output has a buffer "
                        "(switch.output_buffer_flits) that its link drains at the link rate."));
  t.push_back(int_param("switch.output_buffer_flits", [](Config& c) -> int& { return c.sw.output_buffer_flits; }, 64, 1,
                        1 << 16, "flits",
                        "With switch.speedup > 1: flits each output can hold between the crossbar and its link, "
                        "the egress pipeline stages included (a grant reserves its slot); an output whose buffer is "
                        "full takes no grant. 64 holds two flits a cycle through the default 24-cycle pipeline "
                        "with room to spare. Unused at speedup 1."));
  t.push_back(int_list_param("switch.routing_table", [](Config& c) -> std::vector<int>& { return c.sw.routing_table; },
                             "[]", 0, 1023,
                             "Output port for each destination endpoint id, in id order; empty = identity."));
  // --- pipeline
  t.push_back(int_param("switch.routing_cycles", [](Config& c) -> int& { return c.sw.routing_cycles; }, 8, 0, 100000,
                        "cycles", "Arrival to queue: DL/TL unpack 4 + route lookup 2 + VOQ write 2."));
  t.push_back(int_param("switch.vc_alloc_cycles", [](Config& c) -> int& { return c.sw.vc_alloc_cycles; }, 4, 0,
                        100000, "cycles", "VC allocation to switch-allocation eligibility (vc queueing only)."));
  t.push_back(int_param("switch.sw_alloc_cycles", [](Config& c) -> int& { return c.sw.sw_alloc_cycles; }, 4, 0,
                        100000, "cycles", "Switch allocation stage (pipelined iSLIP)."));
  t.push_back(int_param("switch.xbar_cycles", [](Config& c) -> int& { return c.sw.xbar_cycles; }, 4, 0, 100000,
                        "cycles", "Crossbar traversal."));
  t.push_back(int_param("switch.egress_cycles", [](Config& c) -> int& { return c.sw.egress_cycles; }, 16, 0, 100000,
                        "cycles", "Egress queue 4 + TL pack 4 + DL pack and CRC 4 + margin 4."));
  t.push_back(float_param("switch.clock_ghz", [](Config& c) -> double& { return c.clock_ghz; }, 1.6, 0.1, 10.0, "GHz",
                          "Core clock; 64 B per cycle needs >= 1.533 GHz to carry 98.1 GB/s of TL flits."));
  t.push_back(int_param("switch.flit_bytes", [](Config& c) -> int& { return c.flit_bytes; }, 64, 1, 4096, "bytes",
                        "Flit size (UALink TL flit: 64 B)."));
  // --- links
  t.push_back(int_param("link.latency_cycles", [](Config& c) -> int& { return c.link_latency_cycles; }, 128, 1,
                        1000000, "cycles",
                        "One-way link latency, both directions: Tx PHY 20 ns + 2 m cable 10 ns + Rx PHY/FEC/DL 50 ns = 80 ns."));
  t.push_back(float_param("link.gbytes_per_s", [](Config& c) -> double& { return c.link_gbytes_per_s; }, 98.125, 0.0,
                          1e6, "GB/s",
                          "TL flit bandwidth of each link direction: UALink x4 = 4 x 200 Gb/s x 628/640 DL efficiency "
                          "= 98.1 GB/s. Below flit_bytes x clock the core is faster than the link (internal "
                          "speedup); 0 = one flit per core cycle."));
  t.push_back(int_param("link.credit_delay_cycles", [](Config& c) -> int& { return c.credit_delay_cycles; }, 144, 1,
                        1000000, "cycles",
                        "Buffer slot freed to credit usable by the sender: reverse link 80 ns + 10 ns turnaround."));
  t.push_back(int_param("endpoint.rx_vc_flits", [](Config& c) -> int& { return c.endpoint_rx.vc_flits; }, 32, 1,
                        1 << 20, "flits", "Endpoint receive buffer reserved per VC (credits of each switch output)."));
  t.push_back(int_param("endpoint.rx_shared_flits", [](Config& c) -> int& { return c.endpoint_rx.shared_flits; }, 384,
                        0, 1 << 20, "flits", "Endpoint receive buffer shared by all VCs."));
  t.push_back(int_param("endpoint.rx_cmd_vc_credits", [](Config& c) -> int& { return c.endpoint_rx.cmd_vc; }, 16, 1,
                        1 << 16, "headers",
                        "Transactions: command slots of the endpoint's TL receiver per lane (credits of each switch "
                        "output; an estimate). A request packet holds them until the completer admits it."));
  t.push_back(int_param("endpoint.rx_cmd_shared_credits", [](Config& c) -> int& { return c.endpoint_rx.cmd_shared; },
                        128, 0, 1 << 16, "headers",
                        "Transactions: command slots of the endpoint's receiver shared by its lanes, split between the "
                        "two classes (an estimate)."));
  t.push_back(enum_param("endpoint.injection_queues",
                         [](Config& c) -> traffic::InjectionQueues& { return c.traffic.injection_queues; },
                         kInjectionQueues, "fifo",
                         "A source's waiting packets: fifo (one queue in creation order: a packet whose VC has no "
                         "credit holds back the rest), per_destination (one queue per destination, served "
                         "round-robin; a packet starts when its VC holds credits for all its flits). Packet "
                         "traffic."));
  // --- traffic
  t.push_back(enum_param("traffic.kind", [](Config& c) -> Config::TrafficKind& { return c.kind; }, kTrafficKinds,
                         "packets",
                         "packets: synthetic packets (traffic.*); transactions: accelerator endpoints exchange "
                         "memory reads/writes/atomics (accel.*, tl.*, txn.*) and the switch carries requests and "
                         "responses as two message classes. traffic.pattern and its keys pick the destinations "
                         "in both."));
  t.push_back(enum_param("traffic.pattern", [](Config& c) -> traffic::Pattern& { return c.traffic.pattern; },
                         kPatterns, "uniform",
                         "Destinations: uniform random, a random permutation, shift (dst = src + k mod N), hotspot, "
                         "incast (many to one)."));
  t.push_back(float_param("traffic.rate", [](Config& c) -> double& { return c.traffic.rate; }, 0.5, 0.0, 1.0,
                          "flits/port/cycle", "Offered load per source."));
  t.push_back(int_param("traffic.packet_flits", [](Config& c) -> int& { return c.traffic.packet_flits; }, 4, 1, 4096,
                        "flits", "Packet length when traffic.packet_mix is empty (256 B payload = 4 flits)."));
  t.push_back([] {
    ParamSpec p;
    p.key = "traffic.packet_mix";
    p.type = "string";
    p.default_text = "";
    p.allowed = "'' or SIZE:WEIGHT,... (SIZE 1 .. 4096 flits, WEIGHT > 0)";
    p.description = "Packet length distribution, e.g. 1:0.5,4:0.5; empty = fixed traffic.packet_flits.";
    p.set = [](Config& c, const std::string& v) { c.packet_mix_text = v; };
    p.get = [](const Config& c) { return nlohmann::json(c.packet_mix_text); };
    return p;
  }());
  t.push_back(bool_param("traffic.exclude_self", [](Config& c) -> bool& { return c.traffic.exclude_self; }, false,
                         "Uniform and hotspot traffic never pick the source itself (theory includes it)."));
  t.push_back(int_param("traffic.shift", [](Config& c) -> int& { return c.traffic.shift; }, 1, 0, 1023, "ports",
                        "k of the shift pattern (dst = (src + k) mod N)."));
  t.push_back(float_param("traffic.hotspot_fraction", [](Config& c) -> double& { return c.traffic.hotspot_fraction; },
                          0.2, 0.0, 1.0, "", "Fraction of packets sent to the hot ports (hotspot pattern)."));
  t.push_back(int_list_param("traffic.hotspot_ports",
                             [](Config& c) -> std::vector<int>& { return c.traffic.hotspot_ports; }, "[0]", 0, 1023,
                             "The hot ports (hotspot pattern)."));
  t.push_back(int_param("traffic.incast_target", [](Config& c) -> int& { return c.traffic.incast_target; }, 0, 0, 1023,
                        "port", "Destination of every packet (incast pattern)."));
  t.push_back(int_param("traffic.incast_sources", [](Config& c) -> int& { return c.traffic.incast_sources; }, 0, 0,
                        1023, "ports", "Number of senders (the ports after the target); 0 = all other ports."));
  t.push_back(enum_param("traffic.injection", [](Config& c) -> traffic::InjectionKind& { return c.traffic.injection; },
                         kInjection, "bernoulli",
                         "Injection process: bernoulli (memoryless), onoff (bursts at line rate, same mean)."));
  t.push_back(float_param("traffic.burst_packets", [](Config& c) -> double& { return c.traffic.burst_packets; }, 8.0,
                          1.0, 1e6, "packets", "Mean packets per burst (onoff injection)."));
  // --- accelerator endpoints (traffic.kind = transactions)
  t.push_back(int_param("accel.max_outstanding", [](Config& c) -> int& { return c.accel.max_outstanding; }, 512, 1,
                        2048, "tags",
                        "Requests an initiator may have outstanding (free tags), per endpoint port: an accelerator "
                        "with a port on each of k planes has k times as many; the 11-bit UALink tag allows 2048 "
                        "per port (tag width unconfirmed, facts 1.3)."));
  t.push_back(int_param("accel.issue_interval_cycles",
                        [](Config& c) -> int& { return c.accel.issue_interval_cycles; }, 1, 1, 1024, "cycles",
                        "An initiator issues at most one request per this many cycles per endpoint port (with k "
                        "ports, k per interval)."));
  t.push_back(int_param("accel.mem_latency_cycles", [](Config& c) -> int& { return c.accel.mem_latency_cycles; },
                        192, 0, 100000, "cycles",
                        "Completer memory access latency: 192 cycles = 120 ns at 1.6 GHz, an HBM access "
                        "[estimate]."));
  t.push_back(int_param("accel.mem_bytes_per_cycle", [](Config& c) -> int& { return c.accel.mem_bytes_per_cycle; },
                        2048, 4, 65536, "B/cycle",
                        "Completer memory bandwidth: 2048 B x 1.6 GHz = 3.28 TB/s, H100 HBM3 class (3.35 TB/s)."));
  t.push_back(int_param("accel.completer_queue", [](Config& c) -> int& { return c.accel.completer_queue; }, 64, 1,
                        4096, "requests",
                        "Requests a completer has admitted and not yet answered, per endpoint port (k ports: k "
                        "times as many); while it is full, request packets wait in the endpoint's receive buffer "
                        "and hold its credits (backpressure)."));
  t.push_back(int_param("accel.window_base", [](Config& c) -> uint64_t& { return c.accel.window_base; }, 0, 0,
                        (int64_t{1} << 57) - 4096, "bytes",
                        "Start of accelerator 0's address window; accelerator e owns [base + e x window_bytes, "
                        "base + (e+1) x window_bytes). A multiple of 4096; base + switch.ports x window_bytes "
                        "must fit the 57-bit physical address space (facts 1.3)."));
  t.push_back(pow2_param("accel.window_bytes", [](Config& c) -> uint64_t& { return c.accel.window_bytes; },
                         int64_t{1} << 37, 4096, int64_t{1} << 50, "bytes",
                         "Address window of each accelerator (128 GiB by default; 72 of them use 9 TiB of the "
                         "2^57-byte space)."));
  t.push_back(int_param("accel.memory_bytes", [](Config& c) -> uint64_t& { return c.accel.memory_bytes; },
                        int64_t{1} << 37, 4096, int64_t{1} << 50, "bytes",
                        "Memory behind each window (<= accel.window_bytes); addresses in a window beyond it get a "
                        "decode error from the completer. Stored sparsely: only written bytes use host memory."));
  t.push_back(text_param("accel.atomic_ops", [](Config& c) -> std::string& { return c.atomic_ops_text; }, "all",
                         "all, none, or a comma-separated list of " + join(atomic_op_names(), ", "),
                         "Atomic operations the completers implement; an atomic request for any other gets the "
                         "unsupported status (SLVERR, facts 1.4)."));
  t.push_back(float_param("accel.sm_gbytes_per_s", [](Config& c) -> double& { return c.coll.sm_gbytes_per_s; }, 0.0,
                          0.0, 1e6, "GB/s",
                          "The GPU's issue limit for collectives (doc/nccl.md, \"The GPU's issue limits\"): data one "
                          "channel's SM moves per second and rank by point-to-point stores and loads (ring, chain, "
                          "one-shot); a channel's transfers issue no faster. 0 = unbounded (the default accelerator "
                          "is not a GPU). dgx-h100 36.7 and nvl72-rack 40.0: NCCL's per-channel cap for Hopper and "
                          "Blackwell (perChMaxRingLL128Bws, src/graph/tuning.cc, facts 2.8 [N29])."));
  t.push_back(float_param("accel.multimem_gbytes_per_s",
                          [](Config& c) -> double& { return c.coll.multimem_gbytes_per_s; }, 0.0, 0.0, 1e6, "GB/s",
                          "As accel.sm_gbytes_per_s for the in-switch algorithm's multimem loads (load-reduce "
                          "results) and stores (data stored once, before the switch replicates it). 0 = unbounded; "
                          "presets: doc/nccl.md."));
  // The GPU's fixed costs per protocol (coll::Protocol order: simple, ll128, ll), with NCCL's
  // figures for Ring on NVLink (src/graph/tuning.cc, baseLat and hwLat [N29]).
  static const char* const kLaunchKeys[coll::kProtocols] = {"accel.launch_us_simple", "accel.launch_us_ll128",
                                                          "accel.launch_us_ll"};
  static const char* const kLaunchDocs[coll::kProtocols] = {
      "The GPU's fixed cost of a ring, chain or one-shot collective on the Simple protocol (doc/nccl.md, \"The "
      "GPU's fixed costs\"): from a run's start to its first transfer (kernel launch and setup). Every channel "
      "pays it at once. NCCL's base latency for Ring/Simple: 8.4 us (src/graph/tuning.cc [N29]). 0 = none (the "
      "default accelerator is not a GPU).",
      "As accel.launch_us_simple on the LL128 protocol (NCCL's base latency for Ring/LL128: 14 us [N29]). 0 = none.",
      "As accel.launch_us_simple on the LL protocol (NCCL's base latency for Ring/LL: 6.6 us [N29]). 0 = none."};
  static const char* const kStepKeys[coll::kProtocols] = {"accel.step_us_simple", "accel.step_us_ll128",
                                                        "accel.step_us_ll"};
  static const char* const kStepDocs[coll::kProtocols] = {
      "The GPU's cost per ring or chain step on the Simple protocol beyond what the model simulates (polling, "
      "fences, the primitive's loop): from a slice's flag being seen to the waiting rank going on. A ring "
      "all-reduce's latency grows by 2(N-1) of it. NCCL's whole per-step latency for Ring/Simple on NVLink is 3.4 "
      "us (src/graph/tuning.cc [N29]), of which this model simulates the wire and protocol part itself "
      "(doc/nccl.md, \"Per-step cost\"). 0 = none.",
      "As accel.step_us_simple on the LL128 protocol (NCCL's per-step latency for Ring/LL128 on NVLink: 1.9 us "
      "[N29]). 0 = none.",
      "As accel.step_us_simple on the LL protocol (NCCL's per-step latency for Ring/LL on NVLink: 0.6 us [N29]). "
      "0 = none."};
  for (int p = 0; p < coll::kProtocols; ++p)
    t.push_back(float_param(kLaunchKeys[p], [p](Config& c) -> double& { return c.coll.launch_us[p]; }, 0.0, 0.0,
                            1e6, "us", kLaunchDocs[p]));
  t.push_back(float_param("accel.nvls_launch_us", [](Config& c) -> double& { return c.coll.nvls_launch_us; }, 0.0, 0.0,
                          1e6, "us",
                          "As accel.launch_us_simple for the switch algorithm (NCCL's NVLS latency on NVLink: 25 us, "
                          "src/graph/tuning.cc [N29]). 0 = none."));
  for (int p = 0; p < coll::kProtocols; ++p)
    t.push_back(float_param(kStepKeys[p], [p](Config& c) -> double& { return c.coll.step_us[p]; }, 0.0, 0.0, 1e6,
                            "us", kStepDocs[p]));
  // --- transaction layer
  t.push_back(bool_param("tl.compression", [](Config& c) -> bool& { return c.accel.compression; }, true,
                         "Compressed request/response headers (8 B / 4 B instead of 16 B / 8 B) where the TL "
                         "rules allow them (facts 1.6)."));
  t.push_back(int_param("tl.address_cache_entries", [](Config& c) -> int& { return c.accel.address_cache_entries; },
                        128, 0, 4096, "entries",
                        "Tx/Rx address cache of 1 MB regions used by compressed requests; 0 = no cache (no "
                        "compressed requests). The spec's size is not public: 128 is an estimate."));
  t.push_back(int_param("tl.max_messages_per_packet",
                        [](Config& c) -> int& { return c.accel.max_messages_per_packet; }, 8, 1, 8, "messages",
                        "Requests or responses to one destination packed into one switch packet while their headers "
                        "fit one control half-flit (at most 8 compressed responses, facts 1.6)."));
  t.push_back(bool_param("tl.strict_order", [](Config& c) -> bool& { return c.accel.strict_order; }, false,
                         "Strict Ordering Mode (facts 1.5): every request travels on VC 0, so all requests of a "
                         "(source, destination) pair stay in order; otherwise requests are spread over the VCs by "
                         "256 B region and only those to one region stay ordered."));
  // --- collectives (doc/nccl.md)
  t.push_back(enum_param("coll.protocol", [](Config& c) -> coll::Protocol& { return c.coll.protocol; },
                         {"simple", "ll128", "ll"}, "simple",
                         "How ring and chain collectives of `coll` and `table` rows synchronise (NCCL's protocols, "
                         "doc/nccl.md; workloads: tp.protocol; traces: a line's protocol): simple writes a "
                         "slice, waits for its acknowledgement, then writes an 8 B flag; ll128 sends 120 B of data and "
                         "an 8 B flag in every 128 B line and ll 8 B of data and 8 B of flag in every 16 B, so the "
                         "receiver goes on as soon as the data lands. oneshot and switch algorithms use simple."));
  t.push_back(int_param("coll.store_bytes", [](Config& c) -> int& { return c.coll.store_bytes; }, 256, 64, 256, "B",
                        "The largest write a GPU issues for a collective, a multiple of 64: NVIDIA SMs write at most "
                        "128 B per NVLink request, copy engines 256 B (facts 2.5, [N11b]); 256 = the UALink limit. "
                        "ll requests carry half of it as data."));
  t.push_back(int_param("coll.channels", [](Config& c) -> int& { return c.coll.channels; }, 1, 0, 64, "channels",
                        "Concurrent channels of a collective in `upswitch coll` and `table` rows, as NCCL's nChannels "
                        "(facts 2.8, [N27]): the buffer is split into this many contiguous shares in 256 B units, each "
                        "run by its own ring, chain, one-shot or in-switch pipeline over the same ranks in the same "
                        "order, all at once (doc/nccl.md). The switch algorithm takes a multicast group per channel. "
                        "0 = auto: per row, the count `--algo auto` weighs best for the row's algorithm and protocol, "
                        "as NCCL picks channels when NCCL_ALGO and NCCL_PROTO name the rest."));
  t.push_back(enum_param("coll.data", [](Config& c) -> coll::DataMode& { return c.coll.data; }, {"checked", "timing"},
                         "checked",
                         "checked: collectives move their payload through memory and `coll` checks every result "
                         "element against the host reference; timing: every request, flag, packet and ordering is "
                         "the same, and so is every cycle, but no payload is read or stored, so sizes whose buffers "
                         "would not fit the machine's memory run (`coll` rows then have wrong = -1; doc/nccl.md)."));
  // --- reduction engine
  t.push_back(bool_param("reduce.enable", [](Config& c) -> bool& { return c.accel.reduce.enable; }, true,
                         "The switch's reduction engine (NVLS-style multicast store, load-reduce and reduce at the "
                         "destinations, facts 2.4; doc/reduction.md). Off: multicast addresses get a decode error. "
                         "Synthetic transaction mixes never use it and run without it."));
  t.push_back(int_param("reduce.units", [](Config& c) -> int& { return c.accel.reduce.units; }, 0, 0, 1024, "units",
                        "Engine units in every switch that accelerators attach to, each attached to the crossbar "
                        "like a port (one flit per cycle each way); the multicast requests entering the switch "
                        "are spread over its units by address, 1 KiB runs of each port's stream in turn "
                        "(doc/reduction.md). 0 = one per accelerator port of the switch."));
  t.push_back(int_param("reduce.contexts", [](Config& c) -> int& { return c.accel.reduce.contexts; }, 256, 1, 65535,
                        "contexts",
                        "Multicast operations (one request of up to 256 B each) a unit holds at once, from accepting "
                        "the request to sending its response; requests wait in the unit's receive buffer while all "
                        "are busy. 256 per port: facts 5 (Little's law, about 390 for full rate)."));
  t.push_back(int_param("reduce.alu_elems_per_cycle", [](Config& c) -> int& { return c.accel.reduce.alu_elems_per_cycle; },
                        16, 1, 1024, "32-bit elements/cycle",
                        "Reduction ALU throughput per unit, in 32-bit lanes (an 8 B element takes two lanes, f16/bf16 "
                        "pack two per lane): 16 = one 64 B operand per cycle, the line-rate sizing of facts 5."));
  t.push_back(int_param("reduce.alu_latency_cycles", [](Config& c) -> int& { return c.accel.reduce.alu_latency_cycles; },
                        4, 0, 1024, "cycles",
                        "From the last member's data reduced (or the last member's answer) to the response ready."));
  t.push_back(int_param("reduce.groups", [](Config& c) -> int& { return c.accel.reduce.groups; }, 64, 1, 1024, "groups",
                        "Entries of the multicast group table (every switch holds the same table); group g owns the "
                        "address window after the E accelerators' windows: accel.window_base + (E + g) x "
                        "accel.window_bytes."));
  t.push_back(int_param("reduce.rx_shared_flits", [](Config& c) -> int& { return c.accel.reduce.rx_shared_flits; }, 384,
                        0, 1 << 20, "flits",
                        "Each unit's receive buffer shared by its lanes, beside endpoint.rx_vc_flits reserved per lane "
                        "(the credits of the crossbar output feeding the unit): where requests wait for a context. "
                        "Default as endpoint.rx_shared_flits."));
  t.push_back(enum_param("reduce.hierarchy", [](Config& c) -> int& { return c.accel.reduce.hierarchy; }, {"tree", "flat"},
                         "tree",
                         "topology.kind = two_tier, or a topology file that is a two-level folded Clos (levels 0 and "
                         "1, accelerators on level 0, every leaf linked to every spine): tree = leaves reduce (or "
                         "store to) their own members and spines "
                         "the leaves' partial results, one per leaf (the SHARP pattern; each spine then gets "
                         "reduce.units units, 0 = one per leaf link, and each leaf as many again to serve them); "
                         "flat = the requester's leaf unit reaches every member itself, across the spines. Other "
                         "topologies have one level and are flat either way (doc/reduction.md)."));
  // --- synthetic transactions
  t.push_back(float_param("txn.load", [](Config& c) -> double& { return c.txn.load; }, 0.5, 0.0, 1.0,
                          "fraction of link",
                          "Payload bytes each port offers, as a fraction of its link's byte rate (switch.flit_bytes "
                          "x link flits per cycle); a transfer's payload is its txn.sizes size, an atomic's its "
                          "txn.atomic_bytes element; transfers arrive as a Bernoulli process of at most one per "
                          "cycle per endpoint port, queued at the port's accelerator."));
  t.push_back(text_param("txn.mix", [](Config& c) -> std::string& { return c.txn_mix_text; }, "read:1,write:1",
                         "OP:WEIGHT,... (OP read, write, writefull, atomic_r, atomic_nr, reduce; WEIGHT > 0)",
                         "Operation mix of the synthetic transfers; writefull needs every txn.sizes entry to be a "
                         "multiple of 64 B; reduce is an f32 sum applied at the target."));
  t.push_back(text_param("txn.sizes", [](Config& c) -> std::string& { return c.txn_sizes_text; }, "256:1",
                         "BYTES:WEIGHT,... (BYTES 4 .. 1073741824, a multiple of 4; WEIGHT > 0)",
                         "Transfer sizes of reads and writes; an initiator splits a transfer into requests of at "
                         "most 256 B that do not cross a 256 B boundary (facts 1.3)."));
  t.push_back(enum_param("txn.atomic_op", [](Config& c) -> tl::AtomicOp& { return c.txn.atomic_op; },
                         atomic_op_names(), "add", "Operation of the synthetic atomics (atomic_r, atomic_nr)."));
  t.push_back([] {
    ParamSpec p;
    p.key = "txn.atomic_bytes";
    p.type = "int";
    p.unit = "bytes";
    p.default_text = "8";
    p.allowed = "4, 8";
    p.description = "Element size of the synthetic atomics (UALink OpSize: 4 B or 8 B, facts 1.4).";
    p.set = [](Config& c, const std::string& v) {
      c.txn.atomic_bytes = parse_choice("txn.atomic_bytes", v, {"4", "8"}) == 0 ? 4 : 8;
    };
    p.get = [](const Config& c) { return nlohmann::json(c.txn.atomic_bytes); };
    return p;
  }());
  t.push_back(int_param("txn.footprint_bytes", [](Config& c) -> uint64_t& { return c.txn.footprint_bytes; },
                        1048576, 256, int64_t{1} << 40, "bytes",
                        "Addresses each source uses in a target's window, from the window start (<= "
                        "accel.memory_bytes); 1 MiB = one address-cache region."));
  // --- simulation
  t.push_back(int_param("sim.warmup_cycles", [](Config& c) -> uint64_t& { return c.measure.warmup_cycles; }, 10000, 0,
                        int64_t{1} << 40, "cycles", "Cycles simulated before measurement starts."));
  t.push_back(int_param("sim.measure_cycles", [](Config& c) -> uint64_t& { return c.measure.measure_cycles; }, 20000,
                        1, int64_t{1} << 40, "cycles",
                        "Measurement window: packets created in it are measured; throughput is counted in it."));
  t.push_back(int_param("sim.saturation_windows", [](Config& c) -> int& { return c.measure.saturation_windows; }, 10,
                        3, 1000, "windows",
                        "Equal parts of the measurement window at whose boundaries the source backlog is sampled: a "
                        "significant growing trend over them (or growth over 2% of the offered load) marks the run "
                        "saturated (doc/architecture.md, Measurement protocol)."));
  t.push_back(float_param("sim.memory_limit_gib", [](Config& c) -> double& { return c.memory_limit_gib; }, 0.0, 0.0,
                          1048576.0, "GiB",
                          "Memory a run may use: a run whose estimate (config/memory_estimate.cpp: links, switch, "
                          "endpoints, collective and workload buffers) exceeds it is refused before it starts. 0 = "
                          "the machine's available memory (MemAvailable); raise it to run anyway."));
  t.push_back(int_param("sim.max_drain_cycles", [](Config& c) -> uint64_t& { return c.measure.max_drain_cycles; },
                        200000, 0, int64_t{1} << 40, "cycles",
                        "Limit on waiting for measured packets after the window; exceeding it marks the run saturated."));
  t.push_back(bool_param("sim.flush", [](Config& c) -> bool& { return c.measure.flush; }, true,
                         "After the drain, stop injecting and run until the switch is empty and every credit is "
                         "home, then check conservation."));
  t.push_back(int_param("sim.seed", [](Config& c) -> uint64_t& { return c.measure.seed; }, 1, 0,
                        int64_t{1} << 62, "", "Random seed; a run is a pure function of (config, seed)."));
  t.push_back(int_param("sim.watchdog_cycles", [](Config& c) -> uint64_t& { return c.sw.watchdog_cycles; }, 100000, 0,
                        int64_t{1} << 40, "cycles",
                        "Deadlock watchdog: flits queued and no grant (or work outstanding and nothing delivered) for this long "
                        "stops the run; never shorter than four of the configured round trips plus the longest "
                        "scheduled outage (config/watchdog.cpp); 0 = off."));
  t.push_back(int_param("sim.check_interval_cycles", [](Config& c) -> uint64_t& { return c.check_interval_cycles; },
                        0, 0, int64_t{1} << 40, "cycles",
                        "Check credit and flit conservation every this many cycles (0 = only at the end); both kernels."));
  add_workload_params(t);
  add_fault_params(t);
  add_dl_params(t);
  add_topology_params(t);
  return t;
}

}  // namespace

const std::vector<ParamSpec>& param_table() {
  static const std::vector<ParamSpec> table = build_table();
  return table;
}

const ParamSpec* find_param(const std::string& key) {
  for (const ParamSpec& p : param_table())
    if (p.key == key) return &p;
  return nullptr;
}

namespace {
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    prev.swap(cur);
  }
  return prev[b.size()];
}
}  // namespace

std::string closest_key(const std::string& key) {
  std::string best;
  size_t best_d = 4;
  for (const ParamSpec& p : param_table()) {
    const size_t d = edit_distance(key, p.key);
    if (d < best_d) {
      best_d = d;
      best = p.key;
    }
  }
  return best;
}

void set_param(Config& c, const std::string& key, const std::string& value) {
  const ParamSpec* p = find_param(key);
  if (!p) {
    const std::string hint = closest_key(key);
    throw ConfigError("unknown key '" + key + "'" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)") +
                      "; 'upswitch keys' lists them all");
  }
  p->set(c, value);
}

Config default_config() {
  Config c;
  for (const ParamSpec& p : param_table()) p.set(c, p.default_text);
  return c;
}

nlohmann::json config_to_json(const Config& c) {
  nlohmann::json j = nlohmann::json::object();
  for (const ParamSpec& p : param_table()) j[nlohmann::json::json_pointer("/" + [&] {
    std::string k = p.key;
    std::replace(k.begin(), k.end(), '.', '/');
    return k;
  }())] = p.get(c);
  return j;
}

}  // namespace upswitch::config
