// Helpers for the partition and port-fault tests: a configuration with a known pipeline, and a
// schedule that submits transfers at exact cycles (a CycleHook) and records how each completed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "txn_support.h"

namespace upswitch::testing {

struct FaultPipe {
  int link, route, sa, xbar, egress;
  // Head flit of a P-flit packet, endpoint to endpoint at zero load (doc/architecture.md).
  uint64_t one_way(int flits) const { return static_cast<uint64_t>(2 * link + route + sa + xbar + egress + flits - 1); }
};

// The pipeline the partition and port-fault tests share.
inline const FaultPipe kFaultPipe{4, 2, 1, 1, 1};

// An 8-port transaction fabric with unpaced links and the given pipeline, plus `extra` keys.
inline config::Config fault_config(const FaultPipe& p, const std::vector<std::pair<std::string, std::string>>& extra) {
  auto sets = pipeline_sets(8, p.link, p.route, p.sa, p.xbar, p.egress, 50, 32);
  sets.emplace_back("switch.vcs", "2");
  sets.emplace_back("sim.check_interval_cycles", "7");
  for (const auto& kv : extra) sets.push_back(kv);
  return make_txn_config(sets);
}

// A transfer of `bytes` at offset `off` of accelerator `dst`'s window, data and result in `buf`.
inline endpoint::TransferRequest window_request(const top::TxnFabric& f, tl::Opcode op, int dst, uint64_t off,
                                                uint64_t bytes, uint8_t* buf) {
  endpoint::TransferRequest r;
  r.op = op;
  r.addr = f.endpoints().address_map().window_base(dst) + off;
  r.bytes = bytes;
  r.data = buf;
  r.result = buf;
  return r;
}

// Transfers submitted at exact cycles; transfer_done records (status, cycle) by id.
class Schedule : public top::CycleHook, public endpoint::TransferClient {
 public:
  struct Item {
    uint64_t at = 0;
    int src = 0;
    endpoint::TransferRequest req;
    int id = 0;
  };
  struct Done {
    tl::Status status = tl::Status::kOkay;
    uint64_t cycle = 0;
    int count = 0;
  };

  explicit Schedule(top::TxnFabric& f) : f_(f) {}
  int add(uint64_t at, int src, endpoint::TransferRequest r) {
    const auto id = static_cast<int>(items_.size());
    items_.push_back(Item{at, src, r, id});
    return id;
  }
  // Runs the fabric until every scheduled transfer has completed and the fabric is idle.
  bool run(uint64_t max_cycles = 10'000'000) {
    std::stable_sort(items_.begin(), items_.end(), [](const Item& a, const Item& b) { return a.at < b.at; });
    return f_.run_until_idle(max_cycles, this);
  }
  const Done& done(int id) const { return done_.at(id); }
  size_t completed() const { return done_.size(); }
  const std::vector<Item>& items() const { return items_; }

  void before_cycle(uint64_t t) override {
    for (; next_ < items_.size() && items_[next_].at <= t; ++next_) {
      EXPECT_EQ(items_[next_].at, t) << "a scheduled cycle was skipped";
      endpoint::TransferRequest r = items_[next_].req;
      r.client = this;
      r.cookie = static_cast<uint64_t>(items_[next_].id);
      f_.endpoints().submit(items_[next_].src, r, t);
    }
  }
  uint64_t next_activity(uint64_t) const override { return next_ < items_.size() ? items_[next_].at : UINT64_MAX; }
  void transfer_done(uint64_t cookie, tl::Status status, uint64_t cycle) override {
    Done& d = done_[static_cast<int>(cookie)];
    d.status = status;
    d.cycle = cycle;
    ++d.count;
  }

 private:
  top::TxnFabric& f_;
  std::vector<Item> items_;
  size_t next_ = 0;
  std::map<int, Done> done_;
};

inline uint64_t sum(const std::vector<uint64_t>& v) {
  uint64_t s = 0;
  for (uint64_t x : v) s += x;
  return s;
}

}  // namespace upswitch::testing
