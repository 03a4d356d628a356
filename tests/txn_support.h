// Helpers for the transaction tests: configurations, a reference memory and scoreboard that
// checks every executed request and every response against an independent model of memory, and
// a reference implementation of the atomics written apart from systemc/tl/atomic_alu.cpp.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "config/param_table.h"
#include "config/presets.h"
#include "top/txn_fabric.h"

namespace upswitch::testing {

// Defaults with traffic.kind = transactions, then the overrides; validated.
inline config::Config make_txn_config(const std::vector<std::pair<std::string, std::string>>& sets) {
  config::Config c = config::default_config();
  config::set_param(c, "traffic.kind", "transactions");
  for (const auto& [k, v] : sets) config::set_param(c, k, v);
  config::validate(c);
  return c;
}

// A named preset with traffic.kind = transactions; validated.
inline config::Config make_preset_txn_config(const char* preset) {
  config::Config c = config::default_config();
  config::apply_preset(c, preset);
  config::set_param(c, "traffic.kind", "transactions");
  config::validate(c);
  return c;
}

// A list of key overrides, and two of them joined.
using Sets = std::vector<std::pair<std::string, std::string>>;
inline Sets with(Sets a, const Sets& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// The keys of a transaction fabric of `ports` ports with unpaced links (one flit per cycle), the
// given link latency and switch stages (doc/architecture.md's notation), and memory timing: the
// base of the hand-computed latency tests.
inline std::vector<std::pair<std::string, std::string>> pipeline_sets(int ports, int link, int route, int sa, int xbar,
                                                                      int egress, int mem_latency, int mem_bpc) {
  return {{"switch.ports", std::to_string(ports)},
          {"link.gbytes_per_s", "0"},
          {"link.latency_cycles", std::to_string(link)},
          {"switch.routing_cycles", std::to_string(route)},
          {"switch.sw_alloc_cycles", std::to_string(sa)},
          {"switch.xbar_cycles", std::to_string(xbar)},
          {"switch.egress_cycles", std::to_string(egress)},
          {"accel.mem_latency_cycles", std::to_string(mem_latency)},
          {"accel.mem_bytes_per_cycle", std::to_string(mem_bpc)}};
}

// One element of an atomic, by the book (integers wrap, signed/unsigned compares, IEEE add).
inline uint64_t reference_atomic(tl::AtomicOp op, int bytes, uint64_t old, uint64_t x, uint64_t cmp) {
  if (bytes == 4) {
    const auto o = static_cast<uint32_t>(old), v = static_cast<uint32_t>(x), c = static_cast<uint32_t>(cmp);
    const auto so = static_cast<int32_t>(o), sv = static_cast<int32_t>(v);
    float fo, fv;
    std::memcpy(&fo, &o, 4);
    std::memcpy(&fv, &v, 4);
    const float fs = fo + fv;
    uint32_t fr;
    std::memcpy(&fr, &fs, 4);
    switch (op) {
      case tl::AtomicOp::kAdd: return static_cast<uint32_t>(o + v);
      case tl::AtomicOp::kAnd: return o & v;
      case tl::AtomicOp::kOr: return o | v;
      case tl::AtomicOp::kXor: return o ^ v;
      case tl::AtomicOp::kMinS: return static_cast<uint32_t>(std::min(so, sv));
      case tl::AtomicOp::kMaxS: return static_cast<uint32_t>(std::max(so, sv));
      case tl::AtomicOp::kMinU: return std::min(o, v);
      case tl::AtomicOp::kMaxU: return std::max(o, v);
      case tl::AtomicOp::kSwap: return v;
      case tl::AtomicOp::kCas: return o == c ? v : o;
      case tl::AtomicOp::kFAdd: return fr;
    }
    return o;
  }
  const auto so = static_cast<int64_t>(old), sv = static_cast<int64_t>(x);
  double fo, fv;
  std::memcpy(&fo, &old, 8);
  std::memcpy(&fv, &x, 8);
  const double fs = fo + fv;
  uint64_t fr;
  std::memcpy(&fr, &fs, 8);
  switch (op) {
    case tl::AtomicOp::kAdd: return old + x;
    case tl::AtomicOp::kAnd: return old & x;
    case tl::AtomicOp::kOr: return old | x;
    case tl::AtomicOp::kXor: return old ^ x;
    case tl::AtomicOp::kMinS: return static_cast<uint64_t>(std::min(so, sv));
    case tl::AtomicOp::kMaxS: return static_cast<uint64_t>(std::max(so, sv));
    case tl::AtomicOp::kMinU: return std::min(old, x);
    case tl::AtomicOp::kMaxU: return std::max(old, x);
    case tl::AtomicOp::kSwap: return x;
    case tl::AtomicOp::kCas: return old == cmp ? x : old;
    case tl::AtomicOp::kFAdd: return fr;
  }
  return old;
}

// The reference memory and scoreboard. At each execution it checks that the completer's memory
// equals the reference (so every earlier request took effect exactly once, in execution order),
// that requests of one (source, destination, VC, 256 B region) execute in issue order (every
// request of one source, destination in strict mode), then applies the request to the reference
// and remembers the response the initiator must get. At each response it checks the data.
class Scoreboard : public endpoint::TxnObserver {
 public:
  // `single_issue`: every initiator issues at most one request per cycle (one port each).
  // `any_vc`: order one (source, destination, region) whatever VC it takes (a region's VC may
  // change when a switch is taken out, faults.switch_down; the order must still hold).
  Scoreboard(const tl::AddressMap& map, bool strict, bool single_issue = true, bool any_vc = false)
      : map_(map), strict_(strict), single_issue_(single_issue), any_vc_(any_vc) {}

  void executed(int completer, const tl::Message& m, const uint8_t* before) override {
    const uint64_t off = map_.offset(m.addr);
    for (int b = 0; b < m.len; ++b)
      if (before[b] != byte(completer, off + b)) fail("memory differs from the reference at endpoint " + who(completer, off + b));
    const auto order_key = strict_ ? std::make_tuple(int{m.src}, completer, 0, uint64_t{0})
                                   : std::make_tuple(int{m.src}, completer, any_vc_ ? 0 : int{m.vc}, m.addr >> 8);
    auto [it, fresh] = last_issue_.emplace(order_key, m.issued);
    if (!fresh) {
      // (An endpoint with k ports issues up to k requests per cycle: requests issued in the same
      // cycle cannot be ordered by their issue cycle, so only a later-issued one executing first fails.)
      if (m.issued < it->second || (m.issued == it->second && single_issue_))
        fail("request executed out of order at endpoint " + std::to_string(completer));
      it->second = m.issued;
    }
    std::vector<uint8_t> expect(m.len, 0);
    switch (m.op) {
      case tl::Opcode::kRead:
        for (int b = 0; b < m.len; ++b) expect[b] = byte(completer, off + b);
        break;
      case tl::Opcode::kWrite:
      case tl::Opcode::kWriteFull:
        for (int b = 0; b < m.len; ++b)
          if (m.byte_enabled(b)) set_byte(completer, off + b, m.data[b]);
        break;
      case tl::Opcode::kAtomicR:
      case tl::Opcode::kAtomicNR:
        for (int k = 0; k < m.len; k += m.elem_bytes) {
          if (!m.byte_enabled(k)) continue;
          uint64_t old = 0, x = 0, c = 0;
          for (int b = m.elem_bytes - 1; b >= 0; --b) {
            old = (old << 8) | byte(completer, off + k + b);
            x = (x << 8) | m.data[k + b];
            c = (c << 8) | m.compare[(k + b) % 32];
          }
          const uint64_t v = reference_atomic(m.aop, m.elem_bytes, old, x, c);
          for (int b = 0; b < m.elem_bytes; ++b) {
            set_byte(completer, off + k + b, static_cast<uint8_t>(v >> (8 * b)));
            expect[k + b] = static_cast<uint8_t>(old >> (8 * b));
          }
        }
        break;
      case tl::Opcode::kReduce:  // checked by the collective tests' host reference instead
        fail("the scoreboard does not model Reduce requests");
        break;
    }
    const uint64_t key = (uint64_t{m.src} << 16) | m.tag;
    if (!expected_.emplace(key, std::move(expect)).second) fail("a tag executed twice before its response");
    ++executed_;
  }

  void answered(int initiator, const tl::Message& r) override {
    ++answered_;
    ++by_status_[static_cast<int>(r.status)];
    if (r.src != initiator) fail("response delivered to the wrong initiator");
    if (r.status != tl::Status::kOkay) return;
    const uint64_t key = (uint64_t{r.src} << 16) | r.tag;
    auto it = expected_.find(key);
    if (it == expected_.end()) return fail("an OKAY response for a request that never executed");
    if (tl::returns_data(r.op)) {
      for (int b = 0; b < r.len; ++b) {
        const bool element_on = r.op == tl::Opcode::kRead || r.byte_enabled(b - b % r.elem_bytes);
        if (element_on && r.data[b] != it->second[b]) {
          fail("response data differ at initiator " + std::to_string(initiator) + " byte " + std::to_string(b));
          break;
        }
      }
    }
    expected_.erase(it);
  }

  uint8_t byte(int e, uint64_t off) const {
    auto it = mem_.find(addr_key(e, off));
    return it == mem_.end() ? 0 : it->second;
  }
  uint64_t executed() const { return executed_; }
  uint64_t answered() const { return answered_; }
  uint64_t with_status(tl::Status s) const {
    auto it = by_status_.find(static_cast<int>(s));
    return it == by_status_.end() ? 0 : it->second;
  }
  size_t unanswered() const { return expected_.size(); }
  const std::vector<std::string>& failures() const { return failures_; }

 private:
  static uint64_t addr_key(int e, uint64_t off) { return (static_cast<uint64_t>(e) << 48) | off; }
  std::string who(int e, uint64_t off) const { return std::to_string(e) + " offset " + std::to_string(off); }
  void set_byte(int e, uint64_t off, uint8_t v) { mem_[addr_key(e, off)] = v; }
  void fail(const std::string& what) {
    if (failures_.size() < 20) failures_.push_back(what);
  }

  const tl::AddressMap& map_;
  bool strict_, single_issue_, any_vc_;
  std::unordered_map<uint64_t, uint8_t> mem_;
  std::map<std::tuple<int, int, int, uint64_t>, uint64_t> last_issue_;
  std::unordered_map<uint64_t, std::vector<uint8_t>> expected_;
  std::map<int, uint64_t> by_status_;
  uint64_t executed_ = 0, answered_ = 0;
  std::vector<std::string> failures_;
};

}  // namespace upswitch::testing
