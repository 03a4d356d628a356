// The initiator side of an accelerator: synthetic transfers, splitting transfers into tagged
// requests, and completing them when their responses come back (doc/transactions.md).
#include <algorithm>
#include <cstring>

#include "endpoint/accelerators.h"
#include "tl/request_rules.h"

namespace upswitch::endpoint {
namespace {

// The data a synthetic write or atomic carries: a value mixed from the source, issue cycle and
// address, plus the word's index, so a scoreboard can tell any two writes (and any two words)
// apart. One mixing step per request; the words are a plain sequence the compiler vectorizes.
void fill_pattern(uint8_t* out, int len, int src, uint64_t addr, uint64_t serial) {
  uint64_t x = (addr * 0x9e3779b97f4a7c15ULL) ^ (static_cast<uint64_t>(src) << 48) ^ (serial * 0xbf58476d1ce4e5b9ULL);
  x ^= x >> 29;
  uint64_t words[tl::kMaxRequestBytes / 8];
  for (int k = 0; k < tl::kMaxRequestBytes / 8; ++k) words[k] = x + static_cast<uint64_t>(k) * 0x0101010101010101ULL;
  std::memcpy(out, words, static_cast<size_t>(len));
}

// Uniform in [0, n) for any 64-bit n.
uint64_t below64(traffic::Rng& rng, uint64_t n) {
  return static_cast<uint64_t>((static_cast<unsigned __int128>(rng.next()) * n) >> 64);
}

template <class T>
const T& draw(const std::vector<std::pair<T, double>>& items, traffic::Rng& rng) {
  double total = 0;
  for (const auto& it : items) total += it.second;
  double u = rng.unit() * total;
  for (const auto& it : items) {
    if (u < it.second) return it.first;
    u -= it.second;
  }
  return items.back().first;
}

}  // namespace

// One synthetic transfer from endpoint port p's arrival process (Bernoulli arrivals, one process
// per port, doc/transactions.md "Synthetic workload"), queued at the port's endpoint.
void AcceleratorEndpoints::generate(int p, uint64_t t) {
  Port& port = ports_[p];
  const int e = port.owner;
  TransferRequest r;
  r.op = draw(wl_.mix, port.rng);
  const int size = draw(wl_.sizes, port.rng);
  const int dst = static_cast<int>(dests_.pick(e, port.rng));
  const uint64_t footprint = std::max<uint64_t>(wl_.footprint_bytes, tl::kMaxRequestBytes);
  if (tl::is_atomic(r.op)) {
    r.aop = wl_.atomic_op;
    r.elem_bytes = static_cast<uint8_t>(wl_.atomic_bytes);
    r.bytes = wl_.atomic_bytes;
    const uint64_t line = below64(port.rng, footprint / tl::kMaxRequestBytes);
    r.addr = map_.window_base(dst) + line * tl::kMaxRequestBytes +
             port.rng.below(static_cast<uint32_t>(64 / wl_.atomic_bytes)) * static_cast<uint64_t>(wl_.atomic_bytes);
    if (r.aop == tl::AtomicOp::kCas) r.compare = nullptr;  // compare against zeros
  } else {
    r.bytes = static_cast<uint64_t>(size);
    const uint64_t span = footprint > r.bytes ? footprint - r.bytes : 0;
    const uint64_t slots = span / tl::kMaxRequestBytes + 1;
    r.addr = map_.window_base(dst) + below64(port.rng, slots) * tl::kMaxRequestBytes;
  }
  submit(e, r, t);
  port.next_arrival = t + 1 + port.rng.geometric_log(log_q_);
  refresh_port_due(p);
}

// Requests spread over the VCs by 256 B region. With k ports interleaved by address, each port
// carries every k-th stripe of the stream, and the plain region index would put a port's requests
// on few VCs (4 ports and 4 VCs: one each); so the VC follows the region's index within its port's
// own stream, as if that port were an endpoint of its own. One region: one VC; one port: the
// plain region index.
int AcceleratorEndpoints::region_vc(int nports, uint64_t addr) const {
  return static_cast<int>(stream_region(nports, addr) % static_cast<uint64_t>(inject_vcs_));
}

// The index of addr's 256 B region within its port's own stream (region_vc).
uint64_t AcceleratorEndpoints::stream_region(int nports, uint64_t addr) const {
  uint64_t r = addr >> 8;
  if (nports > 1) {
    const uint64_t per = std::max<uint64_t>(1, static_cast<uint64_t>(interleave_bytes_) >> 8);  // regions per stripe
    r = r / per / static_cast<uint64_t>(nports) * per + r % per;
  }
  return r;
}

// The run of kMulticastRun regions addr falls in, within the stream of endpoint e's port it takes.
uint64_t AcceleratorEndpoints::multicast_run(int e, uint64_t addr) const {
  return stream_region(ports_in_service(e), addr) / kMulticastRun;
}

// A multicast request goes to an engine unit of the switch it enters, by address: the k-th
// accelerator port of the switch sends run r of its own stream (kMulticastRun regions) to unit
// (k + r) mod units. So one requester's stream is spread over all the switch's units (the
// replication of one rank's stores is not bound by one unit's port), ranks working at the same
// offsets of their chunks use different units, and one region of one requester always takes one
// unit (doc/reduction.md, "Which unit serves a request").
int AcceleratorEndpoints::unit_for(int port, uint64_t addr) const {
  if (engine_unit_.empty() || engine_unit_[static_cast<size_t>(port)] < 0) return -1;
  const uint64_t run = multicast_run(ports_[port].owner, addr);
  const auto q = static_cast<size_t>(port);
  return engine_unit_[q] + static_cast<int>((static_cast<uint64_t>(engine_slot_[q]) + run) % static_cast<uint64_t>(engine_units_[q]));
}

// The port an address's stripe of endpoint.interleave_bytes takes among the node's ports.
// Once a port's switch is taken out (faults.switch_down), the stripes go over the ports in service.
int AcceleratorEndpoints::address_port(const Node& node, uint64_t addr) const {
  const uint64_t stripe = addr / static_cast<uint64_t>(interleave_bytes_);
  if (!node.live.empty()) return node.live[static_cast<size_t>(stripe % node.live.size())];
  return node.first_port + static_cast<int>(stripe % static_cast<uint64_t>(node.nports));
}

// The port a request leaves on (endpoint.port_select; doc/topology.md): `address` interleaves
// the target's window over the ports every endpoint.interleave_bytes, so one address always takes
// the same port; `hash` keeps one source-destination pair on one port (tl.strict_order forces
// it); `round_robin` rotates; `least_loaded` takes the port with the fewest messages waiting,
// then the most credits.
int AcceleratorEndpoints::select_port(int e, const tl::Message& m) {
  Node& node = nodes_[static_cast<size_t>(e)];
  const int k = node.nports;
  if (k == 1) return node.first_port;
  if (!node.live.empty()) return select_live_port(node, e, m);
  switch (select_) {
    case traffic::PortSelect::kAddress: return address_port(node, m.addr);
    case traffic::PortSelect::kRoundRobin:
      return node.first_port + static_cast<int>(node.port_rr++ % static_cast<uint32_t>(k));
    case traffic::PortSelect::kHash: return traffic::hash_port(node.first_port, k, e, m.dst);
    case traffic::PortSelect::kLeastLoaded: break;
  }
  return traffic::least_loaded_port(node.first_port, k, node.port_rr++ % static_cast<uint32_t>(k), [&](int p) {
    const Port& port = ports_[p];
    return static_cast<int64_t>(port.tx_work) * 1024 - static_cast<int64_t>(port.credits.total());
  });
}

// select_port over the ports still in service (faults.switch_down), by the same rules.
int AcceleratorEndpoints::select_live_port(Node& node, int e, const tl::Message& m) {
  const auto k = static_cast<int>(node.live.size());
  switch (select_) {
    case traffic::PortSelect::kAddress: return address_port(node, m.addr);
    case traffic::PortSelect::kRoundRobin: return node.live[node.port_rr++ % static_cast<uint32_t>(k)];
    case traffic::PortSelect::kHash: return node.live[static_cast<size_t>(traffic::hash_port(0, k, e, m.dst))];
    case traffic::PortSelect::kLeastLoaded: break;
  }
  return node.live[static_cast<size_t>(
      traffic::least_loaded_port(0, k, node.port_rr++ % static_cast<uint32_t>(k), [&](int j) {
        const Port& port = ports_[node.live[static_cast<size_t>(j)]];
        return static_cast<int64_t>(port.tx_work) * 1024 - static_cast<int64_t>(port.credits.total());
      }))];
}

// Issues requests of the oldest unissued transfers while tags are free: as many per
// issue_interval_cycles as the endpoint has ports (one per port, since the rate is per link).
void AcceleratorEndpoints::issue(int e, uint64_t t) {
  Node& node = nodes_[static_cast<size_t>(e)];
  if (t < node.next_issue || (node.fenced && fence_holds(node))) return;
  bool issued = false;
  const int ports = ports_in_service(e);
  for (int k = 0; k < ports && !node.free_tags.empty() && !node.transfers.empty(); ++k) {
    issue_one(e, t);
    issued = true;
  }
  if (issued) node.next_issue = t + static_cast<uint64_t>(ap_.issue_interval_cycles);
}

// The next request of the oldest unissued transfer. A request that breaks a format rule, or whose
// address is in no window, is answered here at once and never enters the fabric.
void AcceleratorEndpoints::issue_one(int p, uint64_t t) {  // p: the endpoint
  Node& port = nodes_[static_cast<size_t>(p)];
  const uint32_t th = port.transfers.front();
  Transfer& tr = transfers_[th];
  const uint64_t offset = tr.issued_bytes;
  const uint64_t addr = tr.req.addr + offset;
  const uint64_t unit = tr.req.max_request ? tr.req.max_request : tl::kMaxRequestBytes;
  const uint64_t to_boundary = unit - addr % unit;
  const int len = static_cast<int>(std::min<uint64_t>(tr.req.bytes - offset, to_boundary));

  const uint16_t tag = port.free_tags.back();
  port.free_tags.pop_back();
  const uint32_t h = msgs_.acquire(0);  // (accelerators are part 0's)
  tl::Message& m = msgs_[h];
  m.op = tr.req.op;
  m.aop = tr.req.aop;
  m.elem_bytes = tr.req.elem_bytes;
  m.src = static_cast<uint16_t>(p);
  m.tag = tag;
  m.addr = addr;
  m.len = static_cast<uint16_t>(len);
  m.issued = t;
  m.transfer = th;
  m.rtype = tr.req.rtype;
  m.rop = tr.req.rop;
  fill_request(tr, m, offset, len);
  if (tr.req.line_data) m.flag_halves = line_flag_halves(tr.req, offset, static_cast<uint64_t>(len));
  port.tag_msg[tag] = h;

  if (tr.outstanding == 0 && offset == 0) tr.first_issue = t;
  ++tr.outstanding;
  tr.issued_bytes += static_cast<uint64_t>(len);
  port.backlog_bytes -= static_cast<uint64_t>(len);
  backlog_total_ -= static_cast<uint64_t>(len);
  if (tr.issued_bytes >= tr.req.bytes) {
    tr.all_issued = true;
    port.transfers.pop();
    if (tr.req.urgent) --port.urgent;
  }
  ++result_.requests_issued;

  // A multicast address goes to an engine unit of the switch the request enters (a decode error
  // when there is none). Its port follows the address, whichever endpoint.port_select says, so
  // one 256 B region of a group window always takes one port and one unit (doc/reduction.md);
  // a run of kMulticastRun regions takes one unit and one VC, so its requests share packets and
  // the unit's copies of them to one member can too.
  int owner = map_.owner(addr);
  int out = -1;
  if (owner < 0 && map_.group(addr) >= 0 && !engine_unit_.empty()) {
    m.mc = true;
    out = address_port(port, addr);
    owner = unit_for(out, addr);
  }
  tl::Status st = tl::check_request(m);
  if (st == tl::Status::kOkay && owner < 0) st = tl::Status::kDecodeError;
  if (st != tl::Status::kOkay) {
    m.status = st;
    m.response = true;
    ++result_.requests_rejected;
    complete_request(p, h, t);
    return;
  }
  m.dst = static_cast<uint16_t>(owner);
  m.vc = static_cast<uint8_t>(ap_.strict_order ? 0
                              : m.mc ? static_cast<int>(multicast_run(p, addr) % static_cast<uint64_t>(inject_vcs_))
                                     : region_vc(ports_in_service(p), addr));
  if (out < 0) out = select_port(p, m);
  m.compressed = ap_.compression && tl::compressible(m) && ports_[out].cache.access(addr);
  enqueue(out, lane_of(0, m.vc), h);
  if (ap_.completion_timeout_cycles) port.timer.arm(tag, t + ap_.completion_timeout_cycles);
}

// The flag half-flits of the request carrying data [offset, offset + len) of a transfer with
// protocol lines: the flags of the transfer's whole lines up to its end, in 32 B units rounded
// up, less those of the requests before it, so the transfer's wire bytes are exact overall.
uint8_t AcceleratorEndpoints::line_flag_halves(const TransferRequest& r, uint64_t offset, uint64_t len) {
  const uint64_t flag = r.line_bytes - r.line_data;
  const auto halves = [&](uint64_t bytes) { return ((bytes + r.line_data - 1) / r.line_data * flag + 31) / 32; };
  return static_cast<uint8_t>(halves(offset + len) - halves(offset));
}

// The request's bytes: enables, write data or atomic operands, CAS compare values.
void AcceleratorEndpoints::fill_request(const Transfer& tr, tl::Message& m, uint64_t offset, int len) {
  const TransferRequest& r = tr.req;
  if (!r.byte_enable || r.byte_enable_len == 0) {
    m.enable_all();
  } else {
    m.byte_enable.fill(0);
    for (int b = 0; b < len; ++b)
      if (r.byte_enable[(offset + static_cast<uint64_t>(b)) % r.byte_enable_len])
        m.byte_enable[static_cast<size_t>(b >> 6)] |= uint64_t{1} << (b & 63);
  }
  // Nobody reads a synthetic transfer's bytes unless an observer (a scoreboard) watches.
  const bool synthetic = !r.data && !r.result && r.local_src == TransferRequest::kNoOffset &&
                         r.local_dst == TransferRequest::kNoOffset && !observer_;
  m.no_data = r.timing_only ||
              (synthetic && (m.op == tl::Opcode::kRead || m.op == tl::Opcode::kWrite || m.op == tl::Opcode::kWriteFull));
  if (!tl::carries_request_data(m.op) || m.no_data) return;
  if (r.local_src != TransferRequest::kNoOffset) {
    nodes_[m.src].memory.read(r.local_src + offset, m.data.data(), static_cast<uint64_t>(len));
  } else if (r.data) {
    std::memcpy(m.data.data(), r.data + offset, static_cast<size_t>(len));
  } else {
    fill_pattern(m.data.data(), len, m.src, m.addr, m.issued);
  }
  if (tl::is_atomic(m.op) && m.aop == tl::AtomicOp::kCas) {  // no compare values: compare with zeros
    if (r.compare)
      std::memcpy(m.compare.data(), r.compare + offset, static_cast<size_t>(std::min(len, 32)));
    else
      m.compare.fill(0);
  }
}

// A response reached its initiator (or a request was answered locally or by the switch): its data
// goes to the transfer's buffer, its tag and message are freed, and the transfer may be
// complete. A response to a request its completion timeout answered already is late: dropped and
// counted (accel_faults.cpp).
void AcceleratorEndpoints::complete_request(int p, uint32_t h, uint64_t t) {
  if (p >= nacc_) {  // an engine unit's member request
    engine_gathered(p, h, t);
    return;
  }
  Node& port = nodes_[static_cast<size_t>(p)];
  const tl::Message& m = msgs_[h];
  const uint16_t tag = m.tag;
  if (port.tag_msg[tag] != h) throw TxnIntegrityError("response for tag " + std::to_string(tag) + " at initiator " +
                                                   std::to_string(p) + " that has no such request in flight");
  if (port.tag_flags[tag] & kTagTimedOut) {
    ++result_.late_responses;
    --timed_out_total_;
    free_tag(p, tag);
    return;
  }
  port.timer.disarm(tag);
  const uint32_t th = record_answer(p, m, m.status, t);
  free_tag(p, tag);
  answer_done(th, t);
}

void AcceleratorEndpoints::finish_transfer(uint32_t th, uint64_t t) {
  Transfer& tr = transfers_[th];
  --transfers_in_flight_;
  ++result_.transfers_completed;
  if (tr.measured) {
    OpResult& o = result_.ops[static_cast<size_t>(tr.req.op)];
    ++o.completed;
    o.bytes += tr.req.bytes;
    o.latency.add(t - tr.created);
    saturation_.delivered(t, t - tr.created);
    o.network_latency.add(t - tr.first_issue);
    ++result_.measured_completed;
    --measured_outstanding_;
  }
  TransferClient* client = tr.req.client;
  const uint64_t cookie = tr.req.cookie;
  const tl::Status status = tr.status;
  free_transfers_.push_back(th);
  if (client) client->transfer_done(cookie, status, t);  // may submit again: tr is not used after
}

}  // namespace upswitch::endpoint
