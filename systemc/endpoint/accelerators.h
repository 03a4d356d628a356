// The accelerator endpoints: each with an initiator (transfers split into tagged requests, an
// outstanding-tag limit, an issue rate), a completer with real memory behind a latency and a
// bandwidth, and one or more ports (one per plane link), each with a transaction-layer
// transmitter that packs messages into TL flits (tl/packet_format.h) and a receive buffer. Requests travel on the request class's lanes and responses on the
// response class's lanes, each with its own credits, so responses never wait behind requests.
// Plain C++, driven one cycle at a time like the switch; cycle rules in doc/transactions.md.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/credit_pool.h"
#include "core/deadlock_error.h"
#include "core/link.h"
#include "core/port_outages.h"
#include "core/reject_line.h"
#include "endpoint/accel_params.h"
#include "endpoint/block_store.h"
#include "endpoint/engine_tree.h"
#include "endpoint/handle_ring.h"
#include "endpoint/part_messages.h"
#include "endpoint/tag_timer.h"
#include "endpoint/transfer.h"
#include "endpoint/txn_result.h"
#include "tl/address_cache.h"
#include "tl/address_map.h"
#include "tl/message.h"
#include "tl/packet_format.h"
#include "tl/sparse_memory.h"
#include "traffic/destinations.h"
#include "traffic/port_select.h"
#include "traffic/rng.h"
#include "traffic/traffic_params.h"

namespace upswitch::endpoint {

// A broken protocol invariant (a response nobody asked for, a flit out of its packet): a model
// bug, never a user error.
class TxnIntegrityError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// Lanes of the fabric: `vcs` per message class, requests first. Buffer depths as the sources see
// the switch input buffer.
struct LaneLayout {
  int vcs = 1;
  int reserved = 0;  // credits per lane
  int shared = 0;    // shared credits, split evenly between the two classes
  int rx_lane_flits = 0;  // the receivers' reserved buffer per lane: caps a request packet
  // Command (message header) credits: the switch input's per lane and shared, and the
  // receivers' reserved per lane (caps the messages of a request packet).
  int cmd_reserved = 0, cmd_shared = 0, rx_cmd_lane = 0, rx_cmd_shared = 0;
};

// What a scoreboard may watch (tests): each request as the completer executes it, and each
// response as its initiator receives it.
class TxnObserver {
 public:
  virtual ~TxnObserver() = default;
  // `memory_before`: the request's bytes of the completer's memory before it executes, or null
  // when wants_memory_before() is false (reading generated memory costs as much as the request).
  virtual void executed(int completer, const tl::Message& request, const uint8_t* memory_before) = 0;
  virtual bool wants_memory_before() const { return true; }
  virtual void answered(int initiator, const tl::Message& response) = 0;
};

// The endpoints' ports (doc/topology.md "Endpoints with many ports"): per port, the endpoint it
// belongs to, endpoint-major and contiguous. Endpoints 0 .. accelerators-1 are accelerators; any
// after them are the reduction engine's units, one port each. An initiator places each request on
// the port `select` picks; a completer answers on the port the request arrived on.
struct AccelPorts {
  std::vector<int> owner;
  int accelerators = 0;
  traffic::PortSelect select = traffic::PortSelect::kAddress;
  int interleave_bytes = 256;  // select = address: bytes of a window on one port before the next
  int inject_vcs = 0;          // VCs per message class a request may take (the lower class with datelines); 0 = all
  // Per port: the engine units that serve the multicast requests leaving on it, those of the
  // switch at its other end: endpoint ids engine_unit[port] .. engine_unit[port] +
  // engine_units[port] - 1 (-1 and 0 = none), and the port's place among that switch's
  // accelerator ports (engine_slot); all empty = no reduction engine.
  std::vector<int> engine_unit;
  std::vector<int> engine_units;
  std::vector<int> engine_slot;
  // Two tiers: the units' levels (engine_tree.h); empty = every unit reaches every member itself.
  EngineTree engine_tree;
  // Per engine unit: its contexts (a topology file's reduce_contexts); empty or 0 = reduce.contexts.
  std::vector<int> unit_contexts;
};

class AcceleratorEndpoints {
 public:
  enum class Phase { kWarmup, kMeasure, kDrain, kFlush, kDone, kExternal };

  // With a workload: synthetic transfers under the open-loop measurement protocol. Without
  // (`workload` null): transfers come only from submit() and the run never ends by itself.
  // Accelerators are followed by the reduction engine's units (attached to the switch like
  // accelerators; doc/reduction.md). The tag limit, the issue rate, the completer queue and
  // txn.load are per endpoint port, so an endpoint with k ports has k times as many tags, issues
  // up to k requests per issue interval and its synthetic transfers arrive on k processes.
  AcceleratorEndpoints(const AccelParams& ap, const LaneLayout& lanes, const AccelPorts& layout,
                       const TxnWorkload* workload, const traffic::TrafficParams& pattern,
                       const traffic::MeasureParams& measure, double link_bytes_per_cycle, uint64_t watchdog_cycles);

  // Endpoint port `port`'s links (its index in AccelPorts::owner).
  void connect(int port, core::Link* to_switch, core::Link* from_switch);
  void tick(uint64_t t);
  uint64_t next_activity(uint64_t t) const;
  // Split over threads (top/parallel_run.h; doc/performance.md "Parallel execution"): each
  // endpoint belongs to a part, which one thread ticks with the switches of its group. Accelerators
  // are part 0's; an engine unit may be another's (its switch's group), since a unit and the
  // accelerators meet only through links. Each part has its own messages, packets, counters and
  // watchdog progress, so parts share nothing a tick writes. set_parts() takes the part of every
  // endpoint (accelerators 0; parts may only be added); tick_part(g, t) and next_activity_part(g, t)
  // are tick() and next_activity() for part g's endpoints alone (part 0's also runs the phase
  // machine); between windows, gather_parts(last) folds the parts' counters into result() and
  // runs the watchdog. Returns false (and changes nothing) where endpoints cannot be split:
  // completion timeouts and reject lines, whose state spans endpoints.
  bool set_parts(const std::vector<int>& part_of_endpoint);
  bool can_split() const { return !faults_on_; }
  int parts() const { return static_cast<int>(parts_.size()); }
  void tick_part(int g, uint64_t t);
  uint64_t next_activity_part(int g, uint64_t t) const;
  void gather_parts(uint64_t last);
  bool done() const { return phase_ == Phase::kDone; }
  void request_stop() { stop_requested_ = true; }
  // The first cycle at which a synthetic run may end (done() after its tick), as things stand:
  // the measurement window's end while it has not ended and no stop is asked for; else now (0).
  uint64_t earliest_end() const {
    return !stop_requested_ && (phase_ == Phase::kWarmup || phase_ == Phase::kMeasure) ? window_end_ : 0;
  }
  // Parallel runs (top/parallel_run.h), as traffic::TrafficEndpoints: whether every link is
  // empty is not known inside a window, so the driver ends the flush between windows, at the
  // larger of flush_ready_at() (the first flush cycle with every transfer complete and every
  // receive slot returned) and links_last_due() (the newest due cycle on the endpoints' links).
  void defer_flush_end() { defer_flush_end_ = true; }
  uint64_t flush_ready_at() const { return flush_ready_at_; }
  uint64_t links_last_due() const;
  void finish_at(uint64_t t);

  // Queues a transfer at initiator (endpoint) `e`, created at cycle `t` (>= the last ticked cycle).
  void submit(int e, const TransferRequest& r, uint64_t t);
  // Transfers submitted and not yet completed.
  uint64_t transfers_in_flight() const { return transfers_in_flight_; }
  void set_observer(TxnObserver* o) { observer_ = o; }
  TxnObserver* observer() const { return observer_; }

  const tl::AddressMap& address_map() const { return map_; }
  // The multicast group table (reduction engine): define_group() takes a free entry for these
  // accelerators (distinct, at least one) and returns its id; throws std::invalid_argument when the
  // members are bad or the table (reduce.groups) is full. The group's window is
  // address_map().group_base(id).
  int define_group(const std::vector<int>& members);
  void release_group(int g);
  const std::vector<uint16_t>& group_members(int g) const { return groups_.at(static_cast<size_t>(g)); }
  // Entries of the multicast group table not held by any group.
  int free_groups() const {
    int n = 0;
    for (const auto& g : groups_) n += g.empty() ? 1 : 0;
    return n;
  }
  int accelerators() const { return nacc_; }
  int engine_units() const { return n_ - nacc_; }
  // The engine unit (an endpoint id) that serves a multicast request to group address `addr`
  // leaving on endpoint port `port`, or -1: the unit its run of kMulticastRun 256 B regions of
  // the port's own stream maps to among the units of the switch at the port's other end.
  int unit_for(int port, uint64_t addr) const;
  // 256 B regions of a group window that go to one engine unit on one VC (doc/reduction.md).
  static constexpr uint64_t kMulticastRun = 4;
  // faults.switch_down: the engine tree stops sending to switch `sw`'s units from cycle `at`.
  void engine_switch_out(int sw, uint64_t at);
  tl::SparseMemory& memory(int e) { return nodes_[static_cast<size_t>(e)].memory; }
  // Per endpoint (TxnResult::ports is indexed by endpoint id).
  const TxnResult& result() const { return result_; }
  // Endpoint ports: their count, owner and the credits of each (the rest of this block is per port).
  int endpoint_ports() const { return static_cast<int>(ports_.size()); }
  int owner(int port) const { return ports_[static_cast<size_t>(port)].owner; }
  int ports_of(int e) const { return nodes_[static_cast<size_t>(e)].nports; }
  const core::CreditPool& source_credits(int port) const { return ports_[port].credits; }
  const core::CreditPool& source_cmd_credits(int port) const { return ports_[port].cmd; }
  // Flits received on `port` whose credit has not been sent back yet (receive-buffer occupancy).
  uint64_t rx_held(int port) const { return ports_[port].rx_held; }
  uint64_t flits_waiting() const;  // flits of packets formed but not yet sent
  uint64_t tags_in_use() const;    // requests issued and not yet answered, all initiators
  size_t messages_in_use() const { return msgs_.in_use(); }
  // Requests the reduction engine has sent to group members and not yet had answered.
  uint64_t member_requests_in_flight() const {
    uint64_t n = 0;
    for (const Part& part : parts_) n += part.member_in_flight;
    return n;
  }
  // Of those, the ones still queued at their unit and not yet made into messages (Queued).
  uint64_t member_requests_unmade() const {
    uint64_t n = 0;
    for (const Part& part : parts_) n += part.members_unmade;
    return n;
  }
  int endpoints() const { return n_; }  // accelerators and engine units

  // Partitions, port faults, completion timeouts (accel_faults.cpp, doc/reliability.md). The
  // switch's records of packets it did not forward arrive on `port`'s reject line; `pods` (empty:
  // one pod) confines the reduction engine's multicast operations to the requester's pod.
  void connect_rejects(int port, core::RejectLine* line);
  core::RejectLine* reject_line(int port) const {
    return rejects_.empty() ? nullptr : rejects_[static_cast<size_t>(port)];
  }
  void set_pods(std::vector<int> pods) { pods_ = std::move(pods); }
  // faults.switch_down (accel_faults.cpp, doc/reliability.md), before the first tick: from cycle
  // `at` accelerator port `port` leads to a switch out of service. Every accelerator then waits
  // until its requests in flight are answered (so no request overtakes an earlier one on a new
  // path) and spreads its new requests over its ports still in service; responses still leave on
  // their request's port, and messages queued at a port before `at` are still sent on it.
  void take_out_port(int port, uint64_t at);
  // The fabric's paths change at cycle `at` (routes around a link between switches that goes down
  // or comes back): every accelerator with requests in flight then holds its next ones until
  // they are answered, as at a switch taken out (the fence, doc/reliability.md).
  void paths_change_at(uint64_t at);
  // Ports of accelerator e in service now (its ports before any switch was taken out).
  int ports_in_service(int e) const;
  // Requests answered by their completion timeout whose late response may still come back.
  uint64_t tags_timed_out() const { return timed_out_total_; }
  int lanes() const { return 2 * v_; }
  std::string dump_state(uint64_t t) const;

 private:
  struct Bundle {
    uint32_t msg[tl::kMaxMessagesPerPacket];
    uint8_t count = 0;
    uint8_t lane = 0;     // lane at the sender
    uint16_t dst = 0;     // the endpoint its messages go to
    uint32_t payload = 0;  // payload bytes its messages carry
    uint8_t rx_lane = 0;  // lane it arrived on at the receiver
    uint16_t flits = 0;
    uint16_t received = 0;
    uint64_t shared_mask = 0;  // bit k: flit k took a shared credit
    uint8_t cmd_shared_tx = 0;  // command credits the packet took from the shared pool: sender
    uint8_t cmd_shared_rx = 0;  // and on the hop into the receiver
    uint32_t rx_port = 0;       // endpoint port it arrived on
    uint64_t packet_id = 0;
  };
  // A message waiting to be packed, with what packing needs of it beside its handle (taken when
  // it is queued, while it is in cache), so that forming and sending a packet read no message.
  // An engine unit's request to a member or another unit is only described here until it is
  // packed (msg = tl::kNoMessage, `parent` the request it copies; engine_send, make_member): a
  // unit's queues hold up to contexts x members of them, and as whole messages they were most of
  // a collective's memory and cache misses. Nothing reads a queued message, so when it is made
  // changes no result.
  struct Queued {
    uint32_t msg = 0;
    uint16_t dst = 0;      // a request's completer, a response's initiator
    uint8_t sectors = 0;   // header sectors (tl::header_sectors)
    uint8_t halves = 0;    // data half-flits (tl::data_halves)
    uint16_t payload = 0;  // payload bytes it carries (0 unless tl::carries_payload)
    // A unit's request not made yet: its context, the request it copies, VC, compression,
    // address and issue cycle.
    uint16_t ctx = 0;
    uint32_t parent = tl::kNoMessage;
    uint8_t vc = 0;  // (also set for a made message)
    bool compressed = false;
    uint64_t addr = 0, issued = 0;
  };
  // A response in a completer's pipeline: when it is ready, and how it is queued on which of the
  // endpoint's ports (taken as the request executes, so leaving the pipeline reads no message).
  struct Ready {
    uint64_t at = 0;
    Queued q;
    uint8_t port = 0;  // index among the endpoint's own ports
  };
  struct TxLane {
    Ring<Queued> queue;         // messages waiting to be packed
    uint32_t bundle = tl::kNoMessage;  // packet formed (and possibly partly sent)
    int sent = 0;
  };
  // One endpoint port: its arrival process (synthetic transfers), transmitter and receive buffer.
  struct Port {
    int owner = 0;  // endpoint
    traffic::Rng rng;
    uint64_t next_arrival = UINT64_MAX;
    tl::AddressCache cache;  // header compression's address cache (per link)
    core::CreditPool credits;
    core::CreditPool cmd;  // command credits toward the switch input
    std::vector<TxLane> tx;
    int last_lane = -1, lane_ptr = 0;
    uint32_t tx_work = 0;  // messages queued or in packets not yet fully sent (0: nothing to send)
    uint32_t lanes_pending = 0;  // bit l: lane l has messages queued or a packet formed
    uint32_t lanes_partial = 0;  // bit l: lane l's packet is partly sent
    uint64_t packet_seq = 0;
    std::vector<uint32_t> rx_packet;  // per lane: the packet in progress (its bundle), tl::kNoMessage = none
    Ring<core::Credit> credit_out;    // credits to send back, one per cycle
    uint64_t rx_held = 0;
  };
  // One endpoint (an accelerator or an engine unit): initiator, completer and memory.
  struct Node {
    int first_port = 0, nports = 1;
    Ring<uint32_t> transfers;  // submitted, not yet fully issued
    uint32_t urgent = 0;       // of them, the urgent ones (TransferRequest::urgent), at the front
    uint64_t next_issue = 0;
    uint32_t port_rr = 0;      // endpoint.port_select = round_robin / least_loaded ties
    std::vector<uint16_t> free_tags;
    std::vector<uint32_t> tag_msg;  // tag -> request message in flight
    std::vector<uint8_t> tag_flags;  // tag -> kTagTimedOut, kTagLost (accel_faults.cpp)
    TagTimer timer;                  // completion-timeout deadlines of the tags in flight
    Ring<uint32_t> admit;            // request bundles waiting for the completer (any port)
    tl::SparseMemory memory;
    uint64_t mem_free_at = 0;  // in bytes, mem_bytes_per_cycle to a cycle (accel_completer.cpp)
    int completer_busy = 0;
    int completer_room = 0;  // accel.completer_queue x ports
    int admit_taken = 0;  // engine unit: requests of the front admitted packet given contexts
    Ring<Ready> pipeline;  // responses in the completer's pipeline, in order
    uint64_t backlog_bytes = 0;
    // faults.switch_down: the ports in service once one was lost (empty: all of them), and
    // whether new requests wait for the ones in flight (accel_faults.cpp).
    std::vector<int> live;
    bool fenced = false;
  };
  // One multicast operation in flight at an engine unit: the request it serves (which becomes
  // its response), the member responses still due and, for a load-reduce, the accumulator.
  struct Context {
    uint32_t req = tl::kNoMessage;
    uint16_t members = 0, received = 0;
    tl::Status status = tl::Status::kOkay;
    uint64_t started = 0, alu_done = 0;
    std::array<uint8_t, tl::kRedAccBytes> acc{};
  };
  struct EngineUnit {
    std::vector<Context> ctx;
    std::vector<uint16_t> free_ctx;
    uint64_t alu_free_at = 0, last_ready = 0;
  };

  // accel_initiator.cpp (p: an endpoint port, e: an endpoint)
  void generate(int p, uint64_t t);
  void issue(int e, uint64_t t);
  void issue_one(int e, uint64_t t);
  int select_port(int e, const tl::Message& m);
  int select_live_port(Node& node, int e, const tl::Message& m);
  int address_port(const Node& node, uint64_t addr) const;
  int region_vc(int nports, uint64_t addr) const;
  uint64_t stream_region(int nports, uint64_t addr) const;
  uint64_t multicast_run(int e, uint64_t addr) const;
  void fill_request(const Transfer& tr, tl::Message& m, uint64_t offset, int len);
  static uint8_t line_flag_halves(const TransferRequest& r, uint64_t offset, uint64_t len);
  void complete_request(int p, uint32_t h, uint64_t t);
  void finish_transfer(uint32_t tr, uint64_t t);
  // accel_completer.cpp
  void receive(int p, const core::Flit& f, uint64_t t);
  void admit(int e, uint64_t t);
  void release_rx_packet(uint32_t bh);
  void execute(int e, uint32_t h, int port, uint64_t t);
  // accel_tx.cpp
  void transmit(int p, uint64_t t);
  bool form_bundle(int p, int lane);
  void send_flit(int p, int lane, uint64_t t);
  // accel_faults.cpp
  enum TagFlags : uint8_t {
    kTagTimedOut = 1,  // answered by its timeout; tag and message wait for the late response
    kTagLost = 2,      // the switch dropped its request or response: nothing will come back
  };
  uint32_t record_answer(int p, const tl::Message& m, tl::Status st, uint64_t t);
  void answer_done(uint32_t transfer, uint64_t t);
  void free_tag(int p, uint16_t tag);
  void faults_tick(int p, uint64_t t);
  void take_out_ports(uint64_t t);
  bool fence_holds(Node& node);
  uint64_t faults_next(int p) const;
  void expire(int p, uint64_t t);
  void on_reject(int p, const core::Reject& r, uint64_t t);
  void lose(int p, uint32_t h);
  bool spans_pods(int requester, int group) const;
  // reduce_engine.cpp
  int engine_accept(int p, uint32_t h, uint64_t t);
  void engine_fan_out_packet(int p, const uint16_t* ctxs, int n, uint64_t t);
  // A flat unit's first member for a run: each run starts at another member, so that units
  // serving one requester's consecutive runs do not all send to the same member first.
  static size_t flat_first_member(uint64_t run, size_t members) { return static_cast<size_t>(run % members); }
  void engine_gathered(int p, uint32_t h, uint64_t t);
  void engine_respond(int p, uint32_t h, uint64_t ready);
  void engine_send(int p, uint16_t ctx, uint32_t req, int dst, uint64_t addr, int vc, uint64_t t);
  uint16_t engine_fan_out(int p, uint16_t ctx, uint32_t req, uint64_t t);
  int tree_spine_unit(int leaf, uint64_t region, uint64_t t) const;
  Queued queued(uint32_t h) const;  // accel_tx.cpp
  static Queued queued_of(const tl::Message& m);  // (msg not set)
  uint32_t make_member(int p, const Queued& q);  // reduce_engine.cpp
  // Queues message h on lane `lane` of endpoint port p's transmitter.
  void enqueue(int p, int lane, uint32_t h) { enqueue(p, lane, queued(h)); }
  void enqueue(int p, int lane, const Queued& q) {
    Port& port = ports_[p];
    port.tx[static_cast<size_t>(lane)].queue.push(q);
    port.lanes_pending |= 1U << lane;
    ++port.tx_work;
    port_has_work(p);
  }
  // port_due_, node_due_ and node_wake_ after a change to what they summarise.
  void port_has_work(int p) {
    port_due_[static_cast<size_t>(p)] = 0;
    lower_wake(ports_[static_cast<size_t>(p)].owner, 0);
  }
  void node_has_work(int e) {
    node_due_[static_cast<size_t>(e)] = 0;
    lower_wake(e, 0);
  }
  void refresh_port_due(int p) {
    const uint64_t d = set_port_due(p);
    lower_wake(ports_[static_cast<size_t>(p)].owner, d);
  }
  void refresh_node_due(int e) { lower_wake(e, set_node_due(e)); }
  // The same without lowering the wake cycles (tick() sets them after looking at an endpoint).
  uint64_t set_port_due(int p) {
    const Port& port = ports_[static_cast<size_t>(p)];
    return port_due_[static_cast<size_t>(p)] =
               port.tx_work != 0 || !port.credit_out.empty() ? 0 : port.next_arrival;
  }
  uint64_t set_node_due(int e) {
    const Node& node = nodes_[static_cast<size_t>(e)];
    return node_due_[static_cast<size_t>(e)] = !node.transfers.empty() || !node.admit.empty() ? 0
                                               : node.pipeline.empty() ? UINT64_MAX
                                                                       : node.pipeline.front().at;
  }
  // Endpoint e's wake cycle, and its block's, no later than `d`.
  void lower_wake(int e, uint64_t d) {
    uint64_t& w = node_wake_[static_cast<size_t>(e)];
    w = std::min(w, d);
    uint64_t& b = block_wake_[block_of_[static_cast<size_t>(e)]];
    b = std::min(b, d);
  }
  // The first cycle endpoint e has anything due: its own work, its ports' and its links' (a flit
  // slot of 0 is a data-link layer holding something: its link answers).
  uint64_t node_next(int e) const;
  // accel_phase.cpp
  void advance_phase(uint64_t t);
  void check_progress(uint64_t t);
  bool settled() const;  // quiescent but for the links
  bool quiescent(uint64_t t) const;
  // accelerators.cpp: the wake blocks (runs of at most kWakeBlock endpoints of one part), an
  // endpoint's tick, and its links' slots.
  void make_blocks();
  void tick_block(size_t b, uint64_t t);
  uint64_t block_next(size_t b, uint64_t t) const;
  void register_slots(int port);
  uint64_t last_progress() const;
  // Packets (bundles): a handle carries the part whose store holds it, as a message's does.
  uint32_t new_bundle(int part);  // accel_tx.cpp
  void free_bundle(int part, uint32_t h) { parts_[static_cast<size_t>(part)].free_bundles.push_back(h); }
  Bundle& bundle(uint32_t h) { return parts_[h >> PartMessages::kShift].bundles[h & PartMessages::kIndex]; }
  const Bundle& bundle(uint32_t h) const { return parts_[h >> PartMessages::kShift].bundles[h & PartMessages::kIndex]; }
  bool is_bundle(uint32_t h) const {
    const size_t g = h >> PartMessages::kShift;
    return g < parts_.size() && (h & PartMessages::kIndex) < parts_[g].bundles.size();
  }
  int part_of(int e) const { return part_of_[static_cast<size_t>(e)]; }
  struct Counts;
  Counts& counts_of(int e) { return parts_[part_of_[static_cast<size_t>(e)]].counts; }

  bool in_window(uint64_t t) const { return t >= window_begin_ && t < window_end_; }
  int lane_of(int cls, int vc) const { return cls * v_ + vc; }

  AccelParams ap_;
  int n_, v_;
  int nacc_;  // accelerators; endpoints nacc_ .. n_-1 are engine units
  traffic::PortSelect select_;
  int interleave_bytes_;
  int inject_vcs_;
  std::vector<int> engine_unit_, engine_units_, engine_slot_;  // AccelPorts::engine_unit, engine_units, engine_slot
  EngineTree tree_;               // AccelPorts::engine_tree
  tl::AddressMap map_;
  bool synthetic_;
  TxnWorkload wl_;
  traffic::Destinations dests_;
  traffic::MeasureParams mp_;
  double arrival_prob_ = 0, log_q_ = 0;
  uint64_t arrival_threshold_ = 0;  // arrival_prob_ * 2^64 when draws use integer trials
  int lane_capacity_[2] = {0, 0};   // credits a lane of each class can ever hold
  int rx_lane_flits_ = 0;
  int max_packet_msgs_[2] = {0, 0};  // messages a packet of each class may carry
  uint64_t watchdog_ = 0;
  std::vector<Port> ports_;  // endpoint ports
  std::vector<Node> nodes_;  // endpoints
  std::vector<EngineUnit> units_;
  std::vector<std::vector<uint16_t>> groups_;  // multicast group table: members, empty = free
  std::vector<core::Link*> to_switch_, from_switch_;
  // Per port, the cycle the next credit on to_switch_ and the next flit on from_switch_ are due
  // (core::Link's due slots; 0 while a data-link layer holds flits), so tick() skips idle endpoints.
  std::vector<uint64_t> credit_due_, flit_due_;
  // Per port, the first cycle it has work of its own (0: something to send or a credit to return,
  // else its next synthetic arrival); per endpoint, the first cycle its transfers, admission queue
  // or completer pipeline need a tick (0: now). Kept beside the ports' and nodes' large structs
  // so that tick() and next_activity() scan compact arrays (refresh_port_due, refresh_node_due).
  // node_wake_: per endpoint, a cycle no later than its first work or item due, lowered by what
  // its links carry to it (core::Link's wake slots) and by the above; tick() passes over an
  // endpoint until then and sets it again after looking at the endpoint. block_wake_: the same
  // for each block of at most kWakeBlock endpoints of one part (the links' outer wake slots),
  // never later than its endpoints' wake cycles, so tick() and next_activity() pass over a block
  // of idle endpoints (a network's idle reduction-engine units) at once.
  static constexpr int kWakeBlock = 64;
  std::vector<uint64_t> port_due_, node_due_, node_wake_, block_wake_;
  struct Block {
    int first = 0, end = 0;  // endpoints [first, end)
  };
  std::vector<Block> blocks_;
  std::vector<uint32_t> block_of_;  // per endpoint
  // What a part's endpoints write as they tick, beside their own entries of result_ (folded into
  // result_ after each sequential tick and between parallel windows).
  struct Counts {
    uint64_t flits_sent = 0, flits_received = 0;
    std::array<uint64_t, 2> window_flits{}, window_messages{}, window_packets{}, window_payload{};
    ReduceResult reduce;
  };
  void fold_counts();
  struct alignas(64) Part {  // (a cache line of its own: parts are ticked by different threads)
    BlockStore<Bundle> bundles{size_t{1} << PartMessages::kShift};  // packets it formed
    std::vector<uint32_t> free_bundles;  // packets it freed (of any part's store), for reuse
    Counts counts;
    uint64_t last_progress = 0;  // the last cycle it executed or answered a request
    uint64_t member_in_flight = 0, members_unmade = 0;  // its units' member requests
    tl::Message probe;  // engine_send: a queued request's header fields, to size it
    std::vector<int> tree_scratch;  // engine_fan_out: the leaves a spine unit reaches
    std::vector<uint32_t> blocks;  // its wake blocks, in endpoint order
  };
  std::vector<Part> parts_;
  std::vector<uint8_t> part_of_;  // per endpoint
  PartMessages msgs_;
  std::deque<Transfer> transfers_;
  std::vector<uint32_t> free_transfers_;
  uint64_t transfers_in_flight_ = 0, measured_outstanding_ = 0, backlog_total_ = 0;
  uint64_t window_begin_ = 0, window_end_ = 0;
  traffic::SaturationDetector saturation_;  // synthetic runs: the backlog over the window's parts
  std::vector<core::RejectLine*> rejects_;  // per port; empty = none connected
  std::vector<int> pods_;
  core::PortOutages outages_;  // faults.switch_down (port -1: paths change)
  uint64_t next_outage_ = UINT64_MAX;
  bool faults_on_ = false;  // reject lines connected or completion timeouts on
  uint64_t timed_out_total_ = 0;
  Phase phase_;
  bool stop_requested_ = false;
  bool defer_flush_end_ = false;
  uint64_t flush_ready_at_ = UINT64_MAX;
  TxnObserver* observer_ = nullptr;
  TxnResult result_;
};

}  // namespace upswitch::endpoint
