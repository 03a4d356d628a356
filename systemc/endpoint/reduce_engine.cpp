// The switch's reduction engine (NVLS-style, doc/reduction.md): units attached to the crossbar
// like ports. A unit takes a request addressed to a multicast group's window, holds one context
// for it, sends one member request to every member of the group through the crossbar, gathers
// their responses and answers the requester once:
//   Write / WriteFull  -> multicast store: the write, replicated to every member;
//   Read               -> load-reduce: a read from every member, reduced in the unit's ALU;
//   Reduce             -> reduce at the destinations: the Reduce, replicated to every member.
// The ALU reduces each member's data as it arrives, ceil(len / (4 * alu_elems_per_cycle)) cycles
// per contribution, one contribution at a time per unit; the response is ready
// alu_latency_cycles after the last one. A unit's requests wait in its receive buffer (holding
// their credits) while all its contexts are busy.
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "endpoint/accelerators.h"
#include "tl/packet_format.h"
#include "tl/reduce_alu.h"

namespace upswitch::endpoint {

int AcceleratorEndpoints::define_group(const std::vector<int>& members) {
  if (members.empty()) throw std::invalid_argument("multicast group: no members");
  std::vector<uint16_t> m;
  for (int e : members) {
    if (e < 0 || e >= nacc_)
      throw std::invalid_argument("multicast group: member " + std::to_string(e) + " is not an accelerator (0 .. " +
                                  std::to_string(nacc_ - 1) + ")");
    if (std::find(m.begin(), m.end(), e) != m.end())
      throw std::invalid_argument("multicast group: member " + std::to_string(e) + " listed twice");
    m.push_back(static_cast<uint16_t>(e));
  }
  for (size_t g = 0; g < groups_.size(); ++g)
    if (groups_[g].empty()) {
      groups_[g] = std::move(m);
      return static_cast<int>(g);
    }
  throw std::invalid_argument("multicast group table full (reduce.groups = " + std::to_string(groups_.size()) + ")");
}

void AcceleratorEndpoints::release_group(int g) { groups_.at(static_cast<size_t>(g)).clear(); }

void AcceleratorEndpoints::engine_accept(int p, uint32_t h, uint64_t t) {
  EngineUnit& u = units_[static_cast<size_t>(p - nacc_)];
  last_progress_ = t;
  {
    tl::Message& m = msgs_[h];
    if (m.dst != p || m.response || !m.mc)
      throw TxnIntegrityError("request for endpoint " + std::to_string(m.dst) + " at engine unit " + std::to_string(p));
    const int g = map_.group(m.addr);
    tl::Status st = tl::Status::kOkay;
    if (g < 0 || groups_[static_cast<size_t>(g)].empty())
      st = tl::Status::kDecodeError;  // no such group
    else if (spans_pods(m.src, g))
      st = tl::Status::kProtectionViolation;  // a member outside the requester's pod (partition.pods)
    else if (tl::is_atomic(m.op))
      st = tl::Status::kUnsupported;  // the engine replicates stores and reductions, not atomics
    else if ((m.op == tl::Opcode::kRead || m.op == tl::Opcode::kReduce) && !tl::red_supported(m.rtype, m.rop))
      st = tl::Status::kUnsupported;
    if (st != tl::Status::kOkay) {
      m.status = st;
      ++result_.reduce.rejected;
      engine_respond(p, h, t + static_cast<uint64_t>(ap_.reduce.alu_latency_cycles));
      return;
    }
  }
  if (u.free_ctx.empty())  // admit() guarantees one
    throw TxnIntegrityError("engine unit " + std::to_string(p) + " accepted a request with every context busy");
  const uint16_t c = u.free_ctx.back();
  u.free_ctx.pop_back();
  result_.reduce.peak_contexts = std::max<uint64_t>(result_.reduce.peak_contexts, u.ctx.size() - u.free_ctx.size());
  const tl::Message& req = msgs_[h];
  const std::vector<uint16_t>& members = groups_[static_cast<size_t>(map_.group(req.addr))];
  Context& ctx = u.ctx[c];
  ctx.req = h;
  ctx.members = static_cast<uint16_t>(members.size());
  ctx.received = 0;
  ctx.status = tl::Status::kOkay;
  ctx.started = t;
  ctx.alu_done = t;
  const uint64_t offset = req.addr - map_.group_base(map_.group(req.addr));
  for (uint16_t member : members) {
    const uint32_t s = msgs_.acquire();  // may move messages: index afresh below
    const tl::Message& m = msgs_[h];
    tl::Message& sm = msgs_[s];
    sm.op = m.op;
    sm.rtype = m.rtype;
    sm.rop = m.rop;
    sm.src = static_cast<uint16_t>(p);
    sm.dst = member;
    sm.tag = c;
    sm.addr = map_.window_base(member) + offset;
    sm.len = m.len;
    sm.vc = m.vc;
    sm.issued = t;
    sm.byte_enable = m.byte_enable;
    if (tl::carries_request_data(m.op)) std::memcpy(sm.data.data(), m.data.data(), m.len);
    sm.compressed = ap_.compression && tl::compressible(sm) && ports_[nodes_[static_cast<size_t>(p)].first_port].cache.access(sm.addr);
    enqueue(nodes_[static_cast<size_t>(p)].first_port, lane_of(0, sm.vc), s);
  }
  result_.reduce.member_requests += members.size();
  member_in_flight_ += members.size();
}

// A member's response reached its unit: its data joins the accumulator (load-reduce), and when
// every member has answered, the request becomes its response.
void AcceleratorEndpoints::engine_gathered(int p, uint32_t h, uint64_t t) {
  EngineUnit& u = units_[static_cast<size_t>(p - nacc_)];
  const tl::Message& s = msgs_[h];
  if (s.tag >= u.ctx.size() || u.ctx[s.tag].req == tl::kNoMessage || u.ctx[s.tag].received >= u.ctx[s.tag].members)
    throw TxnIntegrityError("member response for context " + std::to_string(s.tag) + " at engine unit " +
                            std::to_string(p) + " that has no such operation in flight");
  const uint16_t c = s.tag;
  Context& ctx = u.ctx[c];
  tl::Message& m = msgs_[ctx.req];
  last_progress_ = t;
  if (s.status != tl::Status::kOkay) {
    if (ctx.status == tl::Status::kOkay) ctx.status = s.status;
  } else if (m.op == tl::Opcode::kRead) {
    if (ctx.received == 0)
      tl::red_load(m.rtype, s.data.data(), m.len, ctx.acc.data());
    else
      tl::red_combine(m.rtype, m.rop, ctx.acc.data(), s.data.data(), m.len);
    const int bytes_per_cycle = 4 * ap_.reduce.alu_elems_per_cycle;
    const uint64_t busy = static_cast<uint64_t>((m.len + bytes_per_cycle - 1) / bytes_per_cycle);
    u.alu_free_at = std::max(t, u.alu_free_at) + busy;
    ctx.alu_done = u.alu_free_at;
    result_.reduce.alu_busy_cycles += busy;
  }
  msgs_.release(h);
  --member_in_flight_;
  if (++ctx.received < ctx.members) return;
  m.status = ctx.status;
  if (m.op == tl::Opcode::kRead && m.status == tl::Status::kOkay) tl::red_store(m.rtype, ctx.acc.data(), m.len, m.data.data());
  const uint64_t ready = std::max(t, ctx.alu_done) + static_cast<uint64_t>(ap_.reduce.alu_latency_cycles);
  result_.reduce.context_cycles += ready - ctx.started;
  if (m.op == tl::Opcode::kRead)
    ++result_.reduce.load_reduces;
  else if (m.op == tl::Opcode::kReduce)
    ++result_.reduce.reduces;
  else
    ++result_.reduce.stores;
  const uint32_t req = ctx.req;
  ctx.req = tl::kNoMessage;
  u.free_ctx.push_back(c);
  engine_respond(p, req, ready);
}

// The request becomes its response, sent when `ready` (the unit's responses leave in order).
void AcceleratorEndpoints::engine_respond(int p, uint32_t h, uint64_t ready) {
  EngineUnit& u = units_[static_cast<size_t>(p - nacc_)];
  tl::Message& m = msgs_[h];
  m.response = true;
  m.compressed = ap_.compression;
  m.executed = ready;
  ready = std::max(ready, u.last_ready);
  u.last_ready = ready;
  nodes_[static_cast<size_t>(p)].pipeline.push({ready, h});
}

}  // namespace upswitch::endpoint
