// Helpers for the collective tests: a fabric built for collectives, and one call that runs a
// collective on it and checks its result against the host reference.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "coll/reference.h"
#include "coll/runner.h"
#include "txn_support.h"

namespace upswitch::testing {

struct CollOutcome {
  coll::CollectiveRun run;
  coll::CheckResult check;
  uint64_t cycles = 0;
  std::vector<endpoint::TxnPortResult> ports;  // per endpoint (accelerators, then engine units)
  endpoint::ReduceResult reduce;
  double clock_ghz = 0;
  double time_us() const { return static_cast<double>(cycles) / (1000.0 * clock_ghz); }
};

// The GPU's fixed costs off (accel.launch_us_*, accel.nvls_launch_us, accel.step_us_*; the GPU
// presets set NCCL's): for tests of what the links, SMs or channels do, which those latencies
// would only dilute.
inline void drop_gpu_fixed_costs(config::Config& c) {
  for (int p = 0; p < coll::kProtocols; ++p) c.coll.launch_us[p] = c.coll.step_us[p] = 0;
  c.coll.nvls_launch_us = 0;
}

inline std::vector<int> first_ranks(int n) {
  std::vector<int> r;
  for (int i = 0; i < n; ++i) r.push_back(i);
  return r;
}

// Runs one collective from cycle 0 on a fresh fabric and checks every result element.
inline CollOutcome run_collective(const config::Config& cfg, const coll::CollectiveSpec& spec, uint64_t seed = 1,
                                  bool check = true) {
  top::TxnFabric f(cfg, false);
  coll::CollectiveRunner runner(f);
  const int id = runner.add(spec, 0);
  coll::fill_inputs(f, runner.get(id), seed);
  if (!runner.run()) throw std::runtime_error("collective did not finish");
  const std::vector<std::string> bad = top::check_txn_drained(f);
  if (!bad.empty()) throw std::runtime_error("fabric not drained: " + bad[0]);
  CollOutcome o;
  o.run = runner.get(id);
  if (check) o.check = coll::check_results(f, o.run);
  o.cycles = o.run.end - o.run.start;
  o.ports = f.endpoints().result().ports;
  o.reduce = f.endpoints().result().reduce;
  o.clock_ghz = cfg.clock_ghz;
  return o;
}

inline coll::CollectiveSpec spec_of(coll::Collective c, coll::Algorithm a, std::vector<int> ranks, uint64_t bytes,
                                    tl::RedType t = tl::RedType::kF32, tl::RedOp op = tl::RedOp::kSum) {
  coll::CollectiveSpec s;
  s.coll = c;
  s.algo = a;
  s.ranks = std::move(ranks);
  s.bytes = bytes;
  s.type = t;
  s.op = op;
  return s;
}

}  // namespace upswitch::testing
