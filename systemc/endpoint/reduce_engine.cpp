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
// their credits) while all its contexts are busy. On two tiers the units form a tree
// (engine_tree.h): a unit's "members" are then the members it reaches itself and the units that
// serve the rest, whose responses are partial results reduced like a member's data.
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "endpoint/accelerators.h"
#include "tl/packet_format.h"
#include "tl/reduce_alu.h"

namespace upswitch::endpoint {
namespace {

// The run (kMulticastRun 256 B regions) that offset `offset` of a group's window falls in.
uint64_t run_of(uint64_t offset) { return offset / (256 * AcceleratorEndpoints::kMulticastRun); }

}  // namespace
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

// Unit p takes request h: a context for it, or when the request cannot be served its error
// response at once. Returns the context, or -1 for an error; the members' requests are sent by
// engine_fan_out_packet once the packet's requests are taken.
int AcceleratorEndpoints::engine_accept(int p, uint32_t h, uint64_t t) {
  EngineUnit& u = units_[static_cast<size_t>(p - nacc_)];
  Part& part = parts_[static_cast<size_t>(part_of(p))];
  part.last_progress = t;
  {
    tl::Message& m = msgs_[h];
    if (m.dst != p || m.response || !m.mc)
      throw TxnIntegrityError("request for endpoint " + std::to_string(m.dst) + " at engine unit " + std::to_string(p));
    m.port = 0;  // a unit has one port
    const int g = map_.group(m.addr);
    tl::Status st = tl::Status::kOkay;
    if (g < 0 || groups_[static_cast<size_t>(g)].empty())
      st = tl::Status::kDecodeError;  // no such group
    else if (m.src < nacc_ && spans_pods(m.src, g))  // (a unit's request: checked at the requester's leaf)
      st = tl::Status::kProtectionViolation;  // a member outside the requester's pod (partition.pods)
    else if (tl::is_atomic(m.op))
      st = tl::Status::kUnsupported;  // the engine replicates stores and reductions, not atomics
    else if ((m.op == tl::Opcode::kRead || m.op == tl::Opcode::kReduce) && !tl::red_supported(m.rtype, m.rop))
      st = tl::Status::kUnsupported;
    if (st != tl::Status::kOkay) {
      m.status = st;
      ++part.counts.reduce.rejected;
      engine_respond(p, h, t + static_cast<uint64_t>(ap_.reduce.alu_latency_cycles));
      return -1;
    }
  }
  if (u.free_ctx.empty())  // admit() guarantees one
    throw TxnIntegrityError("engine unit " + std::to_string(p) + " accepted a request with every context busy");
  const uint16_t c = u.free_ctx.back();
  u.free_ctx.pop_back();
  part.counts.reduce.peak_contexts = std::max<uint64_t>(part.counts.reduce.peak_contexts, u.ctx.size() - u.free_ctx.size());
  Context& ctx = u.ctx[c];
  ctx.req = h;
  ctx.received = 0;
  ctx.status = tl::Status::kOkay;
  ctx.started = t;
  ctx.alu_done = t;
  return c;
}

// Unit p sends the members' requests for the n contexts it took from one request packet. The
// engine replicates a packet, not a message: where consecutive requests of the packet go to the
// same members in the same order (one run of a requester's stream, flat_first_member), their
// copies leave member by member, so a member's copies of the packet queue together and share a
// packet again, however many members the group has (a transmitter looks only kPackScan messages
// ahead).
void AcceleratorEndpoints::engine_fan_out_packet(int p, const uint16_t* ctxs, int n, uint64_t t) {
  EngineUnit& u = units_[static_cast<size_t>(p - nacc_)];
  Part& part = parts_[static_cast<size_t>(part_of(p))];
  auto started = [&](uint16_t c, uint16_t sent) {
    u.ctx[c].members = sent;
    part.counts.reduce.member_requests += sent;
    part.member_in_flight += sent;
  };
  for (int k = 0; k < n;) {
    const uint16_t c0 = ctxs[k];
    if (!tree_.empty()) {  // two tiers: request by request
      started(c0, engine_fan_out(p, c0, u.ctx[c0].req, t));
      ++k;
      continue;
    }
    // Flat: the requests from k on in c0's group and run that carry data go member by member. A
    // load-reduce's reads carry none, so packing them saves little, and member by member would
    // make every read of the run wait for the run's last member (a longer round trip).
    const uint64_t addr0 = msgs_[u.ctx[c0].req].addr;
    const int g = map_.group(addr0);
    const uint64_t run = run_of(addr0 - map_.group_base(g));
    const bool data = tl::carries_request_data(msgs_[u.ctx[c0].req].op);
    int e = k + 1;
    for (; data && e < n; ++e) {
      const tl::Message& m = msgs_[u.ctx[ctxs[e]].req];
      if (!tl::carries_request_data(m.op) || map_.group(m.addr) != g ||
          run_of(m.addr - map_.group_base(g)) != run)
        break;
    }
    const std::vector<uint16_t>& members = groups_[static_cast<size_t>(g)];
    const size_t first = flat_first_member(run, members.size());
    for (size_t i = 0; i < members.size(); ++i) {
      const int member = members[(first + i) % members.size()];
      for (int j = k; j < e; ++j) {
        const uint32_t h = u.ctx[ctxs[j]].req;
        engine_send(p, ctxs[j], h, member, map_.window_base(member) + (msgs_[h].addr - map_.group_base(g)), -1, t);
      }
    }
    for (int j = k; j < e; ++j) started(ctxs[j], static_cast<uint16_t>(members.size()));
    k = e;
  }
}

// On two tiers (engine_tree.h), context c of unit p sends its requests for request h and returns
// how many: one to each member it reaches itself and one to each unit that reduces the rest.
uint16_t AcceleratorEndpoints::engine_fan_out(int p, uint16_t c, uint32_t h, uint64_t t) {
  const uint64_t addr = msgs_[h].addr;
  const int g = map_.group(addr);
  const uint64_t offset = addr - map_.group_base(g);
  const std::vector<uint16_t>& members = groups_[static_cast<size_t>(g)];
  uint16_t sent = 0;
  auto to_member = [&](int member) {
    engine_send(p, c, h, member, map_.window_base(member) + offset, -1, t);
    ++sent;
  };
  const auto u = static_cast<size_t>(p - nacc_);
  const int sw = tree_.unit_switch[u];
  const int pl = tree_.plane[static_cast<size_t>(sw)];
  // Runs of kMulticastRun 256 B regions (the ordering unit, doc/transactions.md) take one path and one
  // VC, so a unit's messages to one next unit queue on one lane together and share packets
  // (4 x 256 B of data: 17 flits rather than 20).
  const uint64_t region = run_of(offset);
  const int run_vc = ap_.strict_order ? 0 : static_cast<int>(region % static_cast<uint64_t>(inject_vcs_));
  switch (tree_.role[u]) {
    case EngineTree::kLeaf: {  // the requester's leaf: its own members, one spine for the others
      bool others = false;
      for (uint16_t member : members) {
        if (tree_.leaf_of(member, pl) == sw)
          to_member(member);
        else
          others = true;
      }
      if (others) {
        engine_send(p, c, h, tree_spine_unit(sw, region, t), addr, run_vc, t);
        ++sent;
        ++counts_of(p).reduce.tree_requests;
      }
      break;
    }
    case EngineTree::kLeafDown:  // for a spine: this leaf's members
      for (uint16_t member : members)
        if (tree_.leaf_of(member, pl) == sw) to_member(member);
      break;
    case EngineTree::kSpine: {  // every leaf with members but the requester's
      const int from = tree_.unit_switch[static_cast<size_t>(msgs_[h].src - nacc_)];
      std::vector<int>& leaves = parts_[static_cast<size_t>(part_of(p))].tree_scratch;
      leaves.clear();
      for (uint16_t member : members) {
        const int leaf = tree_.leaf_of(member, pl);
        if (leaf != from && std::find(leaves.begin(), leaves.end(), leaf) == leaves.end()) leaves.push_back(leaf);
      }
      for (int leaf : leaves) {
        const std::vector<int>& down = tree_.units[static_cast<size_t>(leaf)];
        engine_send(p, c, h, down[(region + static_cast<uint64_t>(from)) % down.size()], addr, run_vc, t);
        ++sent;
        ++counts_of(p).reduce.tree_requests;
      }
      break;
    }
  }
  return sent;
}

// The spine unit a leaf's unit sends a run's remaining members to: the run picks one of the
// plane's spines, the leaf one of that spine's units, so every region of a leaf takes one path
// (the ordering rules) and a leaf's runs spread over the spines. A run whose spine is out of
// service (faults.switch_down) takes the next spine in service; the others keep their path.
int AcceleratorEndpoints::tree_spine_unit(int leaf, uint64_t region, uint64_t t) const {
  const std::vector<int>& spines = tree_.plane_spines[static_cast<size_t>(tree_.plane[static_cast<size_t>(leaf)])];
  const size_t k = static_cast<size_t>(region % spines.size());
  for (size_t i = 0; i < spines.size(); ++i) {
    const int s = spines[(k + i) % spines.size()];
    if (tree_.out_at[static_cast<size_t>(s)] <= t) continue;
    const std::vector<int>& units = tree_.units[static_cast<size_t>(s)];
    return units[(region / spines.size() + static_cast<uint64_t>(leaf)) % units.size()];
  }
  throw TxnIntegrityError("engine tree: leaf " + std::to_string(leaf) + " has no spine in service");
}

void AcceleratorEndpoints::engine_switch_out(int sw, uint64_t at) {
  if (!tree_.empty()) tree_.out_at[static_cast<size_t>(sw)] = std::min(tree_.out_at[static_cast<size_t>(sw)], at);
}

// One request of context c at unit p, a copy of request h (operation, data, enables), to
// endpoint dst at addr: a member's window, or for another unit the group's multicast window;
// on h's VC, or `vc` when not negative. It is queued as a description and made when it is packed
// (make_member); its compression is decided now, as the address cache sees it now.
void AcceleratorEndpoints::engine_send(int p, uint16_t c, uint32_t h, int dst, uint64_t addr, int vc, uint64_t t) {
  const tl::Message& m = msgs_[h];
  Part& part = parts_[static_cast<size_t>(part_of(p))];
  tl::Message& sm = part.probe;  // the fields tl's packet format reads
  sm.op = m.op;
  sm.response = false;
  sm.status = tl::Status::kOkay;
  sm.mc = dst >= nacc_;
  sm.dst = static_cast<uint16_t>(dst);
  sm.addr = addr;
  sm.len = m.len;
  sm.vc = static_cast<uint8_t>(vc < 0 ? m.vc : vc);
  const int port = nodes_[static_cast<size_t>(p)].first_port;
  sm.compressed = ap_.compression && tl::compressible(sm) && ports_[port].cache.access(addr);
  Queued q = queued_of(sm);
  q.msg = tl::kNoMessage;
  q.ctx = c;
  q.parent = h;
  q.compressed = sm.compressed;
  q.addr = addr;
  q.issued = t;
  ++part.members_unmade;
  enqueue(port, lane_of(0, q.vc), q);
}

// The message of a unit's queued request q (engine_send), made as endpoint port p packs it.
uint32_t AcceleratorEndpoints::make_member(int p, const Queued& q) {
  const int unit = ports_[static_cast<size_t>(p)].owner;
  Part& part = parts_[static_cast<size_t>(part_of(unit))];
  const uint32_t s = msgs_.acquire(part_of(unit));
  const tl::Message& m = msgs_[q.parent];
  tl::Message& sm = msgs_[s];
  sm.op = m.op;
  sm.rtype = m.rtype;
  sm.rop = m.rop;
  sm.src = static_cast<uint16_t>(unit);
  sm.dst = q.dst;
  sm.mc = q.dst >= nacc_;
  sm.tag = q.ctx;
  sm.addr = q.addr;
  sm.len = m.len;
  sm.vc = q.vc;
  sm.issued = q.issued;
  sm.byte_enable = m.byte_enable;
  sm.no_data = m.no_data;  // coll.data = timing: the members move no payload either
  if (tl::carries_request_data(m.op)) std::memcpy(sm.data.data(), m.data.data(), m.len);
  sm.compressed = q.compressed;
  --part.members_unmade;
  return s;
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
  Part& part = parts_[static_cast<size_t>(part_of(p))];
  part.last_progress = t;
  if (s.status != tl::Status::kOkay) {
    if (ctx.status == tl::Status::kOkay) ctx.status = s.status;
  } else if (m.op == tl::Opcode::kRead) {
    if (m.no_data) {
      // coll.data = timing: nothing to reduce; the ALU's time below is the same
    } else if (ctx.received == 0)
      tl::red_load(m.rtype, s.data.data(), m.len, ctx.acc.data());
    else
      tl::red_combine(m.rtype, m.rop, ctx.acc.data(), s.data.data(), m.len);
    const int bytes_per_cycle = 4 * ap_.reduce.alu_elems_per_cycle;
    const uint64_t busy = static_cast<uint64_t>((m.len + bytes_per_cycle - 1) / bytes_per_cycle);
    u.alu_free_at = std::max(t, u.alu_free_at) + busy;
    ctx.alu_done = u.alu_free_at;
    part.counts.reduce.alu_busy_cycles += busy;
  }
  msgs_.release(h);
  --part.member_in_flight;
  if (++ctx.received < ctx.members) return;
  m.status = ctx.status;
  if (m.op == tl::Opcode::kRead && m.status == tl::Status::kOkay && !m.no_data) tl::red_store(m.rtype, ctx.acc.data(), m.len, m.data.data());
  const uint64_t ready = std::max(t, ctx.alu_done) + static_cast<uint64_t>(ap_.reduce.alu_latency_cycles);
  part.counts.reduce.context_cycles += ready - ctx.started;
  if (m.op == tl::Opcode::kRead)
    ++part.counts.reduce.load_reduces;
  else if (m.op == tl::Opcode::kReduce)
    ++part.counts.reduce.reduces;
  else
    ++part.counts.reduce.stores;
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
  nodes_[static_cast<size_t>(p)].pipeline.push({ready, queued(h), m.port});
  refresh_node_due(p);
}

}  // namespace upswitch::endpoint
