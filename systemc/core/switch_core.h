// The switch's cycle algorithm in plain C++: input units (routing stage, buffers), VC
// allocation, switch allocation, crossbar and output credit state. One tick() is one core cycle;
// the exact order of work inside a cycle is written down in doc/architecture.md. The SystemC
// wrapper (systemc/sc/switch_module.h) only calls tick() on active cycles.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/allocator.h"
#include "core/bits.h"
#include "core/credit_pool.h"
#include "core/deadlock_error.h"
#include "core/delay_line.h"
#include "core/fault_params.h"
#include "core/link.h"
#include "core/reject_line.h"
#include "core/slot_queues.h"
#include "core/switch_params.h"
#include "core/switch_stats.h"

namespace upswitch::core {

class SwitchCore {
 public:
  SwitchCore(const SwitchParams& params, const DownstreamBuffer& downstream);

  // Port p's input link carries flits into the switch (credits go back on it); its output link
  // carries flits to the endpoint (credits come back on it). The output link takes the switch's
  // output pipeline as its send pipeline (Link::set_send_pipeline) unless it has a data-link
  // layer, so attach that layer before connecting.
  void connect(int port, Link* input, Link* output);

  void tick(uint64_t t);
  // Earliest cycle after `t` at which tick() has work; UINT64_MAX when nothing is pending.
  uint64_t next_activity(uint64_t t) const;
  // A driver ticking many switches in turn (network::Network) may pass over one until its wake
  // cycle: tick() clears it (0: unknown), the driver sets it with fold_wake() once the cycle's
  // ticks are done, and every flit or credit sent to the switch lowers it to its due cycle
  // (Link's wake slot).
  uint64_t wake() const { return wake_; }
  // After the cycle's ticks, folds this switch's first cycle with work into `next` (the earliest
  // so far): a ticked switch's wake cycle becomes its next activity, unless something already
  // has work at t + 1, when it stays unknown and the switch is ticked then (a tick with nothing
  // due changes nothing).
  void fold_wake(uint64_t t, uint64_t& next) {
    if (wake_ <= t) {
      if (next == t + 1) return;
      wake_ = next_activity(t);
    }
    next = std::min(next, wake_);
  }

  const SwitchParams& params() const { return p_; }
  const SwitchStats& stats() const { return stats_; }
  int ports() const { return n_; }
  // The (first) output port towards destination endpoint `dst`.
  int output_port(uint32_t dst) const { return route_[dst]; }

  // Introspection for the conservation checker and the deadlock report.
  int occupancy(int input) const { return occupancy_[input]; }
  uint64_t flits_inside() const { return total_occupancy_ + egress_flits_ + obuf_total_; }
  // Flits past the crossbar that have not left on `output`'s link (pipeline and output buffer;
  // where the output link carries the pipeline, Link::set_send_pipeline, its flits are the link's).
  uint32_t egress_flits(int output) const {
    return egress_[output].count() + (obuf_count_.empty() ? 0 : obuf_count_[static_cast<size_t>(output)]);
  }
  const CreditPool& output_credits(int output) const { return out_credit_[output]; }
  // Before the first tick: the flit buffer behind `output` differs from the constructor's (an
  // internal unit with a buffer of its own). Command credits stay as constructed.
  void set_output_buffer(int output, int vc_flits, int shared_flits);
  // Before the first tick: the receiver behind `output` is another switch's input (or any buffer
  // other than the constructor's), flit and command credits both.
  void set_output_receiver(int output, const DownstreamBuffer& rx);
  // Transactions: command credits for the receiver behind `output` (empty pool otherwise).
  const CreditPool& output_cmd_credits(int output) const { return out_cmd_[output]; }
  bool has_cmd_credits() const { return cmd_; }
  std::string dump_state(uint64_t t) const;
  // Before the first tick, for tests: build the allocation requests input by input (the general
  // path) even where the faster output-by-output path applies; the two give the same requests.
  void build_requests_by_input() { force_by_input_ = true; }

  // Fault hook for checker tests: the next credit input `port` would return is lost.
  void debug_drop_next_credit(int port) { drop_credit_[port] = 1; }

  // Partitions and port faults (switch_faults.cpp, doc/reliability.md), before the first tick:
  // packets the switch does not forward are consumed at their input and reported on `port`'s
  // reject line (transactions; without a line a rejected packet is dropped silently).
  void set_faults(const FaultParams& f);
  void connect_rejects(int port, RejectLine* line) {
    if (rejects_.empty()) rejects_.assign(static_cast<size_t>(n_), nullptr);
    rejects_.at(static_cast<size_t>(port)) = line;
  }
  // A neighbouring switch taken out of service (faults.switch_down, between two cycles): heads
  // routed from now on avoid the ports marked in `lost` wherever their destination has another
  // route; a destination reached only through them keeps its routes (what is in flight there
  // drains). Packets already routed keep their output.
  void avoid_ports(const std::vector<char>& lost);
  // The same at cycle `at`: applied by the first tick at or after it (a switch that sleeps until
  // then routes nothing before it, so the result is the same as applying it at `at`).
  void avoid_ports_at(uint64_t at, std::vector<char> lost);
  // Every route replaced at cycle `at` (routing around a link between switches while it is down,
  // network/reroute.h): `begin` and `ports` as SwitchParams::route_begin / route_ports. Ports
  // avoided before (avoid_ports) stay avoided. Heads routed from then on take the new routes;
  // packets already routed keep their output. Call before the run (a network switch only).
  void set_routes_at(uint64_t at, std::vector<uint32_t> begin, std::vector<uint16_t> ports);

 private:
  int queue_of(const Flit& f) const;
  void enqueue(int input, const Flit& f);
  // Queue `queue` of `input` has a new front flit (or became empty); in voq mode it is the queue
  // of (output, vc), which the caller knows (passed to spare a division by the VC count).
  // `was_need`: the command credits the previous front flit needed (0 if none or the queue was empty).
  void on_front_changed(int input, int queue, int output, int vc, uint8_t was_need);
  void allocate_vcs(uint64_t t);
  void allocate_vcs_at(int output, uint64_t t);
  void build_requests(uint64_t t);
  void drop_unready_outputs(uint64_t t);
  void choose_paths();
  void refresh_pace_wait(uint64_t t);
  void build_requests_by_output(uint64_t t);
  void note_voq_by_output(int input, int output, int vc, bool empty);
  bool short_output_requests(int output, uint64_t* row);
  int pick_vc(int input, int output) const;
  // Every grant (allocated, speculative or of a matched pair): moves the front flit of input lane
  // `lane` (its VC; in voq the queue of `output` on that VC) through the crossbar to `output`,
  // counts it and notes the credit that went back.
  void grant(int input, int output, int lane, uint64_t t, bool in_window) {
    if (in_window) ++stats_.xbar_flits[output];
    commit_lane(input, output, lane, t);
    if (filtering_) credit_sent_at_[static_cast<size_t>(input)] = t;
  }
  void commit_lane(int input, int output, int lane, uint64_t t);
  void update_credit_bits(int output);
  void account_window(uint64_t from, uint64_t to);
  bool can_use_output_vc(int input, int output, int vc) const;
  // Transactions: a head flit also needs a command credit per message of its packet.
  bool head_fits(const Flit& f, int output, int vc) const {
    return !cmd_ || !f.head() || out_cmd_[output].available(vc) >= f.msgs;
  }
  // The same for the front flit of queue `q` of `input`, from the queue's compact copy.
  // A lane with a whole packet's credits fits any front flit (SwitchCore::enqueue refuses a head
  // of more messages) without reading the queue, whose line is seldom in the cache.
  bool front_fits(int input, int q, int output, int vc) const {
    if (!cmd_) return true;
    const uint32_t avail = out_cmd_[output].available(vc);
    return avail >= static_cast<uint32_t>(kMaxPacketMessages) || avail >= queues_[input].front_need(q);
  }
  void fitting_outputs(int input, int vc, const uint64_t* check, uint64_t* fits) const;
  // Packet mode (switch_packet_mode.cpp).
  void lock_pair(int input, int output, int lane);
  void unlock_pair(int input, int output);
  void collect_matched(bool slept);
  void serve_locked(uint64_t t, bool in_window);
  // Speculation (switch_speculative.cpp).
  void speculate(uint64_t t, bool in_window);
  void build_spec_requests(uint64_t t);
  // Crossbar speedup (switch_speedup.cpp).
  void buffer_output(int output, uint64_t t, const Flit& f);
  void drain_output_buffers(uint64_t t);
  void update_cmd_low(int output);
  // Step 3: a flit leaving the routing stage gets its output port (a head chooses among its
  // destination's routes, the body follows it) and joins its queue unless its packet is not
  // forwarded.
  void route_in(int input, Flit f, uint64_t t) {
    if (route_[f.dst] < 0) unroutable(f);
    if (!multipath_) {
      f.out = static_cast<uint16_t>(route_[f.dst]);
    } else {
      int& lane = lane_out_[static_cast<size_t>(input * v_ + f.vc)];
      if (f.head()) lane = choose_output(input, f);
      f.out = static_cast<uint16_t>(lane);
    }
    if (!filtering_ || !discard(input, f, t)) enqueue(input, f);
  }
  int choose_output(int input, const Flit& head);
  [[noreturn]] void unroutable(const Flit& f) const;
  // switch_faults.cpp
  uint8_t classify(int input, const Flit& head, uint64_t t) const;
  bool discard(int input, const Flit& f, uint64_t t);
  void apply_route_changes(uint64_t t);
  void install_routes(std::vector<uint32_t> begin, std::vector<uint16_t> ports);
  void send_discard_credits(uint64_t t);

  SwitchParams p_;
  int n_, v_, words_;
  uint64_t wake_ = 0;
  std::vector<int> route_;  // per destination: its (first) output port, -1 = unreachable from here
  // Multipath (a network of switches): per destination its output ports, as in SwitchParams.
  bool multipath_ = false;
  std::vector<uint32_t> route_begin_;
  std::vector<uint16_t> route_ports_;
  std::vector<std::pair<uint64_t, std::vector<char>>> avoid_plan_;  // (cycle, lost ports), by cycle
  std::vector<std::vector<char>> avoided_;                          // the lost ports applied so far
  struct RouteTable {
    uint64_t at = 0;
    std::vector<uint32_t> begin;
    std::vector<uint16_t> ports;
  };
  std::vector<RouteTable> table_plan_;  // by cycle
  uint64_t next_avoid_ = UINT64_MAX;    // the first cycle either plan changes the routes
  std::vector<int> lane_out_;  // per input lane: the output of the packet in progress
  std::vector<uint32_t> rr_;   // per input: round-robin position (routing.multipath = round_robin)
  std::unique_ptr<Allocator> allocator_;
  std::vector<Link*> in_links_, out_links_;
  // Per port, kept with the links (Link::set_*_due_slot): the cycle the next flit on the input
  // link and the next credit on the output link are due, so a cycle looks only at ports with one.
  std::vector<uint64_t> in_flit_due_, out_credit_due_;
  // Per block of kPortBlock ports, a cycle no later than any of its inputs' flit or routing-stage
  // slots (in_wake_), its outputs' credit slots (credit_wake_) and egress-stage slots
  // (egress_wake_). The links lower the first two as they lower the port slots (their outer wake
  // slot is wake_), a grant into an egress stage the third; tick() sets a block it looked at to
  // t + 1 if something was due in it, else to its ports' earliest slot, so a cycle passes over a
  // block of idle ports at once (an engine's idle units, a network's quiet ports) and a busy
  // block costs no more than before.
  static constexpr size_t kPortBlock = 64;
  int block_first(size_t b) const { return static_cast<int>(b * kPortBlock); }
  int block_end(size_t b) const { return std::min(n_, block_first(b + 1)); }  // past its last port
  // next_activity() sets those of blocks it scans (it tells where a cycle must look, not a result).
  mutable std::vector<uint64_t> in_wake_, credit_wake_, egress_wake_;
  bool paced_ = false;  // some output link is slower than one flit per cycle
  // Paced outputs, all on plain links (no data-link layer) and without crossbar speedup: the
  // outputs whose link cannot start a flit yet (one row) and the cycle from which each can, set
  // at each grant; allocation leaves them out without asking every requested link each cycle.
  // Chosen at the first tick (links get their data-link layer after connect()); otherwise
  // drop_unready_outputs asks the links.
  bool pace_rows_ = false, paths_chosen_ = false;
  BitMatrix pace_wait_;
  std::vector<uint64_t> pace_ready_at_;
  // voq without packet mode or crossbar speedup (chosen at the first tick):
  // requests are built output by output from the queues' occupancy kept by output, a few word
  // operations per output instead of a row per waiting input (switch_requests_by_output.cpp).
  bool by_output_ = false, force_by_input_ = false;
  std::vector<BitMatrix> nonempty_t_;  // per VC, row o = inputs with a queued flit for o
  std::vector<uint32_t> out_lanes_;    // per output, bit v set when some input queued a flit for it on VC v
  std::vector<int> out_lane_inputs_;   // per (output, VC): the inputs set in nonempty_t_'s row (no row scan)
  BitMatrix out_queued_;               // one row: outputs some input queued a flit for
  // ...and with command credits: per VC, row o * kNeedRows + n = the inputs whose front flit for
  // o needs n command credits (a head flit of n messages, n = 1 .. kMaxPacketMessages), and row
  // o * kNeedRows their union, so an output short of them finds the inputs that fit with a few
  // word operations (short_output_requests).
  static constexpr int kNeedRows = kMaxPacketMessages + 1;
  std::vector<BitMatrix> need_t_;
  // ...and each output's requests (its req_t_ row) and stall as last built, kept while nothing
  // they depend on changed (its queues' occupancy and front needs, its credit bits, holds and,
  // short of command credits, those credits); an output where something changed is in
  // out_dirty_ and is built again. Waiting for its link (pacing) applies when they are used.
  BitMatrix out_dirty_;
  std::vector<uint8_t> out_stall_;
  void dirty_output(int o) {
    if (by_output_) set_bit(out_dirty_.row(0), o);
  }

  // Input side.
  std::vector<DelayLine<Flit>> routing_;  // per input: the routing pipeline stage
  std::vector<uint64_t> routing_due_;     // per input: routing_'s next_due(), in one array to scan
  std::vector<SlotQueues> queues_;        // per input
  std::vector<int> occupancy_;            // per input: slots in use (routing stage + queues)
  std::vector<int> queued_;               // per input: flits in queues
  uint64_t total_occupancy_ = 0, total_queued_ = 0, routing_flits_ = 0;
  BitMatrix active_;                      // one row: inputs with queued flits
  std::vector<BitMatrix> nonempty_;       // voq: per VC, row i = outputs with a queued flit
  std::vector<uint32_t> voq_lanes_;       // voq: per input, bit v set when some queue of VC v is non-empty
  std::vector<int> voq_lane_queues_;      // voq: per input VC, non-empty queues
  std::vector<int> vc_ptr_;               // per input: round-robin VC pointer
  std::vector<uint8_t> drop_credit_;

  // `vc` queueing: per input VC (index i*V+v).
  std::vector<int> ivc_out_port_, ivc_out_vc_;
  std::vector<uint32_t> ivc_nonempty_;  // per input: bit v set when VC queue v holds a flit
  std::vector<uint32_t> ivc_eligible_;  // per input: VCs whose front flit requested this cycle
  std::vector<uint64_t> ivc_ready_;
  std::vector<int> va_ptr_;                  // per output: round-robin VA pointer
  std::vector<std::vector<int>> va_bucket_;  // per output: heads waiting for one of its VCs
  BitMatrix va_waiting_;                     // one row: outputs with a non-empty bucket
  BitMatrix va_free_;                        // one row: outputs with at least one free VC
  std::vector<uint32_t> vc_free_mask_;       // per output: bit v set when output VC v is free
  std::vector<uint32_t> class_vc_mask_;      // per input VC: the VCs of its message class
  std::vector<uint8_t> upper_vc_;            // per input VC: in the upper VC class (datelines)
  // Per input lane (i*V+v): its input and VC, which VC allocation reads rather than dividing
  // (three divisions per head flit were a few percent of a run of 1-flit packets).
  struct LaneOf {
    uint16_t input;
    uint8_t vc;
  };
  std::vector<LaneOf> lane_of_;
  uint32_t dclass_mask_[2] = {~0U, ~0U};     // VC classes (datelines): the lower and upper halves
  uint64_t va_requests_ = 0;                 // heads waiting in all buckets

  // Output side.
  std::vector<CreditPool> out_credit_;
  bool cmd_ = false;                     // command credits in use (two message classes)
  std::vector<CreditPool> out_cmd_;      // per output: command credits of the receiver behind it
  std::vector<uint8_t> out_cmd_shared_;  // per output VC: shared command credits of its packet
  std::vector<uint64_t> fits_, check_;  // build_requests' scratch rows (voq with command credits low)
  std::vector<uint64_t> unready_;      // drop_unready_outputs' scratch row: outputs dropped this cycle
  BitMatrix cmd_low_;  // one row: outputs where some lane has fewer command credits than a packet may need
  std::vector<BitMatrix> credit_bits_;  // per VC, one row: outputs with a credit for that VC
  std::vector<int> holder_;             // per output VC (o*V+v): holding input, -1 = free
  // fifo and voq queueing (vc queueing reads holder_ alone and keeps these empty):
  std::vector<BitMatrix> held_;         // per VC, one row: output VCs held by some packet
  std::vector<BitMatrix> held_by_;      // per VC, row i: output VCs held by input i
  // Per output: allocation + crossbar + egress stages, unless its link carries them
  // (egress_in_link_, set by connect(): Link::set_send_pipeline).
  std::vector<uint8_t> egress_in_link_;
  std::vector<DelayLine<Flit>> egress_;
  std::vector<uint64_t> egress_due_;     // per output: egress_'s next_due(), in one array to scan
  uint64_t egress_flits_ = 0;

  // Packet mode: per input the output it is matched to (-1 = none) and the input lane of the
  // packet that matched them; rows of the matched inputs and outputs.
  bool pm_ = false;
  std::vector<int> pm_out_, pm_lane_;
  BitMatrix pm_in_, pm_outs_;
  std::vector<int> pm_serving_;  // the matches that hold in this cycle (their packet flows)
  int pm_matches_ = 0;
  // With message classes (transactions): response flits queued per input and per output they
  // are bound for. A request's match does not hold while a response waits for its input or its
  // output (UALink: responses are never blocked by requests).
  bool pm_classes_ = false;
  std::vector<uint32_t> pm_rsp_in_, pm_rsp_out_;

  // Speculative allocation (vc queueing): its own allocator (own round-robin state), the inputs
  // and outputs the non-speculative allocation matched this cycle, and per input the VCs whose
  // head asked speculatively.
  bool spec_ = false;
  std::unique_ptr<Allocator> spec_allocator_;
  BitMatrix granted_in_, granted_out_;
  std::vector<uint32_t> spec_vcs_;

  // Crossbar speedup > 1: per output a ring of obuf_cap_ flits (index o * obuf_cap_ + k), each
  // with the cycle it may leave (after the allocation, crossbar and egress stages).
  int speedup_ = 1;
  uint32_t obuf_cap_ = 0;
  struct Buffered {
    uint64_t due;
    Flit flit;
  };
  std::vector<Buffered> obuf_;
  std::vector<uint32_t> obuf_head_, obuf_count_;
  uint64_t obuf_total_ = 0;

  // Allocation scratch (reused every cycle).
  BitMatrix req_, req_t_, stall_, any_;
  std::vector<int> req_inputs_, req_outputs_, match_;

  SwitchStats stats_;
  uint64_t accounted_until_ = 0;  // window accounting has covered cycles < this
  uint64_t last_grant_ = 0;

  // Partitions and port faults: per input lane (i*V+lane), the verdict on the packet in
  // progress (Reject::Reason, 0 = forwarded); per input, the credits of discarded flits waiting
  // for a cycle in which the input returns no other credit (a link carries one per cycle), as a
  // ring of buffer_flits() entries (a waiting credit holds its buffer slot).
  FaultParams faults_;
  bool filtering_ = false;
  std::vector<RejectLine*> rejects_;
  std::vector<uint8_t> verdict_;
  std::vector<Credit> discard_ring_;
  std::vector<uint32_t> discard_head_, discard_count_;
  std::vector<uint64_t> credit_sent_at_;  // per input: last cycle a granted flit's credit went back
  uint64_t discard_pending_ = 0;
};

}  // namespace upswitch::core
