// The receive side of an accelerator: packets arriving from the switch, the completer that
// executes requests on the real memory behind a latency and a bandwidth, and the credits the
// receive buffer returns (doc/transactions.md "Receiver" and "Completer").
#include <algorithm>
#include <cstring>

#include "endpoint/accelerators.h"
#include "tl/atomic_alu.h"
#include "tl/reduce_alu.h"

namespace upswitch::endpoint {

// One flit from the switch. Response flits free their buffer slot at once (the initiator always
// accepts a response); a request packet keeps its slots until the completer admits all of its
// requests, which is how a busy completer back-pressures the fabric.
void AcceleratorEndpoints::receive(int p, const core::Flit& f, uint64_t t) {
  Port& port = ports_[p];
  const int e = port.owner;
  const int lane = f.vc;
  auto fail = [&](const char* what) {
    const std::string id = is_bundle(f.payload) ? std::to_string(bundle(f.payload).packet_id) : "?";
    throw TxnIntegrityError(std::string("transaction packet integrity: ") + what + " (packet " + id + " from " +
                            std::to_string(f.src) + " at endpoint " + std::to_string(e) + " port " + std::to_string(p) +
                            " lane " + std::to_string(lane) + ", cycle " + std::to_string(t) + ")");
  };
  if (lane >= 2 * v_) fail("lane out of range");
  if (f.dst != e) fail("flit delivered to the wrong endpoint");
  if (!is_bundle(f.payload)) fail("no such packet");
  Bundle& b = bundle(f.payload);
  uint32_t& cur = port.rx_packet[static_cast<size_t>(lane)];
  if (f.head()) {
    if (cur != tl::kNoMessage) fail("head flit while another packet is in progress");
    cur = f.payload;
    b.received = 0;
    b.shared_mask = 0;
    b.rx_lane = static_cast<uint8_t>(lane);
    b.rx_port = static_cast<uint32_t>(p);
    b.cmd_shared_rx = f.cmd_shared;
    // The tail reads the packet's messages (their headers, and a lone message's data), last
    // written by the sender: ask for them now, while the other flits cross (a hint only).
    if (b.flits > 1)
      for (int k = 0; k < b.count; ++k) {
        const char* m = reinterpret_cast<const char*>(&msgs_[b.msg[k]]);
        __builtin_prefetch(m);
        if (b.count == 1)
          for (int l = 1; l < b.flits && l <= 4; ++l) __builtin_prefetch(m + 64 * l);
      }
  } else if (cur != f.payload) {
    fail("body flit of a packet that is not in progress");
  }
  if (f.msgs != b.count || f.size != b.flits || f.dst != b.dst) fail("flit and packet disagree");
  if (f.shared_credit()) b.shared_mask |= uint64_t{1} << b.received;
  if (++b.received > b.flits) fail("more flits than the packet has");
  ++counts_of(e).flits_received;
  ++port.rx_held;
  const bool response = lane >= v_;
  if (response) {  // the tail also frees the packet's command slots
    core::Credit c{f.vc, f.shared_credit()};
    if (f.tail()) {
      c.cmds = b.count;
      c.cmd_shared = b.cmd_shared_rx;
    }
    port.credit_out.push(c);
    port_has_work(p);
  }
  if (!f.tail()) return;
  if (b.received != b.flits) fail("tail flit before all body flits");
  cur = tl::kNoMessage;
  result_.ports[static_cast<size_t>(e)].rx_payload_bytes += b.payload;
  if (!response) {
    Node& node = nodes_[static_cast<size_t>(e)];
    node.admit.push(f.payload);
    node_has_work(e);
    return;
  }
  for (int k = 0; k < b.count; ++k) complete_request(e, b.msg[k], t);
  free_bundle(part_of(e), f.payload);
}

// Admits whole request packets, oldest first (from any of the endpoint's ports), while the completer has room for their requests;
// their buffer slots are then returned. A packet with more requests than the queue holds is
// admitted when the completer is idle. An engine unit admits request by request, one per free
// context, and returns a packet's slots once all its requests have contexts.
void AcceleratorEndpoints::admit(int e, uint64_t t) {
  Node& node = nodes_[static_cast<size_t>(e)];
  if (e >= nacc_) {
    // completer_busy >= contexts in use (freed later)
    const auto room = static_cast<int>(units_[static_cast<size_t>(e - nacc_)].ctx.size());
    while (!node.admit.empty()) {
      const uint32_t bh = node.admit.front();
      const int count = bundle(bh).count;
      uint16_t taken[tl::kMaxMessagesPerPacket];
      int n = 0;
      for (; node.admit_taken < count && node.completer_busy < room; ++node.admit_taken, ++node.completer_busy) {
        const int c = engine_accept(e, bundle(bh).msg[node.admit_taken], t);
        if (c >= 0) taken[n++] = static_cast<uint16_t>(c);
      }
      engine_fan_out_packet(e, taken, n, t);
      if (node.admit_taken < count) return;
      node.admit_taken = 0;
      node.admit.pop();
      release_rx_packet(bh);
    }
    return;
  }
  const int room = node.completer_room;
  while (!node.admit.empty()) {
    const uint32_t bh = node.admit.front();
    const Bundle& b = bundle(bh);
    if (node.completer_busy > 0 && node.completer_busy + b.count > room) return;
    node.admit.pop();
    const int local = static_cast<int>(b.rx_port) - node.first_port;
    for (int k = 0; k < b.count; ++k) execute(e, b.msg[k], local, t);
    node.completer_busy += b.count;
    release_rx_packet(bh);
  }
}

// An admitted request packet's buffer slots and command slots go back to the switch, on the
// port the packet arrived on.
void AcceleratorEndpoints::release_rx_packet(uint32_t bh) {
  const Bundle& b = bundle(bh);
  Port& port = ports_[b.rx_port];
  for (int k = 0; k < b.flits; ++k) {
    core::Credit c{b.rx_lane, static_cast<bool>((b.shared_mask >> k) & 1)};
    if (k + 1 == b.flits) {  // the packet's command slots go back with its last flit credit
      c.cmds = b.count;
      c.cmd_shared = b.cmd_shared_rx;
    }
    port.credit_out.push(c);
  }
  port_has_work(b.rx_port);
  free_bundle(part_of(port.owner), bh);
}

// Executes one request on this endpoint's memory in admission order (so atomics are atomic and
// same-address requests take effect in the order they arrived) and turns the message into its
// response, which is ready after the memory's serialisation and access latency. The memory is a
// bandwidth: its time counts in bytes (mem_bytes_per_cycle to a cycle), so accesses smaller than a
// cycle's worth share that cycle, whichever port they came in on:
//   start = max(t x mem_bytes_per_cycle, memory free), memory free = start + len,
//   ready = ceil(memory free / mem_bytes_per_cycle) + mem_latency_cycles.
void AcceleratorEndpoints::execute(int p, uint32_t h, int local, uint64_t t) {  // p: the endpoint
  Node& port = nodes_[static_cast<size_t>(p)];
  tl::Message& m = msgs_[h];
  m.port = static_cast<uint8_t>(local);  // the response leaves where the request arrived
  if (m.dst != p || m.response) throw TxnIntegrityError("request for endpoint " + std::to_string(m.dst) +
                                                        " executed at endpoint " + std::to_string(p));
  const uint64_t off = map_.offset(m.addr);
  if (!map_.backed(m.addr, m.len)) {
    m.status = tl::Status::kDecodeError;
  } else if (tl::is_atomic(m.op) && !ap_.atomic_supported[static_cast<size_t>(m.aop)]) {
    m.status = tl::Status::kUnsupported;
  } else if (m.op == tl::Opcode::kReduce && !tl::red_supported(m.rtype, m.rop)) {
    m.status = tl::Status::kUnsupported;
  }
  uint64_t ser = 0;  // bytes the memory moves
  if (m.status == tl::Status::kOkay) {
    if (observer_)
      observer_->executed(p, m, observer_->wants_memory_before() ? port.memory.peek(off, static_cast<uint64_t>(m.len)) : nullptr);
    ser = static_cast<uint64_t>(m.len);
    // A synthetic read or write nobody looks at (m.no_data) takes the same time but moves no bytes.
    if (!m.no_data) switch (m.op) {
      case tl::Opcode::kRead:
        std::memcpy(m.data.data(), port.memory.peek(off, static_cast<uint64_t>(m.len)), m.len);
        break;
      case tl::Opcode::kWrite:
      case tl::Opcode::kWriteFull: {
        uint8_t* mem = port.memory.bytes(off);
        if (m.all_enabled()) {
          std::memcpy(mem, m.data.data(), m.len);
        } else {
          for (int b = 0; b < m.len; ++b)
            if (m.byte_enabled(b)) mem[b] = m.data[static_cast<size_t>(b)];
        }
        port.memory.wrote(off, static_cast<uint64_t>(m.len));  // full pages may be shared (tl/page_store.h)
        break;
      }
      case tl::Opcode::kAtomicR:
      case tl::Opcode::kAtomicNR:
        tl::apply_atomic(m, port.memory.bytes(off));
        break;
      case tl::Opcode::kReduce:
        tl::red_apply(m.rtype, m.rop, port.memory.bytes(off), m.data.data(), m.len);
        break;
    }
    if (in_window(t)) result_.ports[p].served_bytes += m.len;
  }
  m.response = true;
  m.compressed = ap_.compression;
  m.executed = t;
  parts_[0].last_progress = t;  // (accelerators are part 0's)
  const auto bpc = static_cast<uint64_t>(ap_.mem_bytes_per_cycle);
  const uint64_t start = std::max(t * bpc, port.mem_free_at);
  port.mem_free_at = start + ser;
  const uint64_t done = (port.mem_free_at + bpc - 1) / bpc;
  port.pipeline.push({done + static_cast<uint64_t>(ap_.mem_latency_cycles), queued(h), m.port});
  refresh_node_due(p);
}

}  // namespace upswitch::endpoint
