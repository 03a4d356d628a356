// A switch that sleeps (ticked only when its wake cycle has come, as network::Network and the
// SystemC module tick it) passes over blocks of idle ports (SwitchCore::kPortBlock): against the
// same switch ticked every cycle, which looks at every port every cycle, it must send the same
// flits at the same cycles and return the same credits, with pipeline stages on both sides of
// the crossbar and sparse random traffic on ports of three blocks (150 ports: 64 + 64 + 22).
#include <gtest/gtest.h>

#include <memory>
#include <tuple>
#include <vector>

#include "core/link.h"
#include "core/rng.h"
#include "core/switch_core.h"

namespace upswitch::core {
namespace {

constexpr int kPorts = 150;

struct Trace {
  std::vector<std::tuple<uint64_t, int, uint64_t>> flits;  // (cycle received, output, packet)
  std::vector<std::pair<uint64_t, int>> credits;           // (cycle usable, input)
  uint64_t ticks = 0;
};

Trace run(bool every_cycle) {
  SwitchParams p;
  p.ports = kPorts;
  p.vcs = 2;
  p.vc_buffer_flits = 8;
  p.shared_buffer_flits = 0;
  p.queueing = Queueing::kVoq;
  p.allocator = "islip";
  p.allocator_iterations = 2;
  p.routing_cycles = 2;
  p.egress_cycles = 3;
  SwitchCore core(p, DownstreamBuffer{8, 0, 0, 0});
  std::vector<std::unique_ptr<Link>> in, out;
  for (int i = 0; i < kPorts; ++i) {
    in.emplace_back(std::make_unique<Link>(3, 2));
    out.emplace_back(std::make_unique<Link>(4, 2));
    core.connect(i, in.back().get(), out.back().get());
  }
  // Senders on ports in every block, to outputs in every block; each keeps its credits.
  const std::vector<int> inputs = {1, 40, 63, 64, 100, 127, 128, 149};
  const std::vector<int> outputs = {0, 63, 64, 90, 128, 149};
  std::vector<int> credits(kPorts * p.vcs, p.vc_buffer_flits);
  Rng rng(7, 3);
  Trace tr;
  uint64_t id = 0;
  for (uint64_t t = 0; t < 4000; ++t) {
    // Credits come back to the senders; then they send (quiet stretches let the switch sleep).
    for (int i : inputs) {
      Credit c;
      while (in[static_cast<size_t>(i)]->receive_credit(t, c)) {
        ++credits[static_cast<size_t>(i * p.vcs + c.vc)];
        tr.credits.push_back({t, i});
      }
    }
    const bool burst = (t / 200) % 3 == 0;
    for (int i : inputs) {
      const int vc = static_cast<int>(rng.below(2));
      int& cr = credits[static_cast<size_t>(i * p.vcs + vc)];
      if (!burst || cr == 0 || rng.unit() > 0.3) continue;
      --cr;
      Flit f;
      f.payload = static_cast<uint32_t>(id++);
      f.src = static_cast<uint16_t>(i);
      f.dst = static_cast<uint16_t>(outputs[rng.below(static_cast<uint32_t>(outputs.size()))]);
      f.size = 1;
      f.vc = static_cast<uint8_t>(vc);
      f.flags = Flit::kHead | Flit::kTail;
      f.msgs = 1;
      in[static_cast<size_t>(i)]->send_flit(t, f);
    }
    if (every_cycle || core.wake() <= t) {
      core.tick(t);
      ++tr.ticks;
      uint64_t next = UINT64_MAX;
      core.fold_wake(t, next);
    }
    // Receivers behind the outputs free a slot as soon as a flit arrives.
    for (int o : outputs) {
      Flit f;
      while (out[static_cast<size_t>(o)]->receive_flit(t, f)) {
        tr.flits.emplace_back(t, o, uint64_t{f.payload});
        Credit c;
        c.vc = f.vc;
        out[static_cast<size_t>(o)]->send_credit(t, c);
      }
    }
  }
  EXPECT_GT(id, 1000u);
  return tr;
}

TEST(PortBlocks, ASleepingSwitchSendsWhatAnEveryCycleSwitchSends) {
  const Trace every = run(true), sleeping = run(false);
  EXPECT_EQ(every.flits.size(), sleeping.flits.size());
  EXPECT_TRUE(every.flits == sleeping.flits);
  EXPECT_TRUE(every.credits == sleeping.credits);
  EXPECT_EQ(every.ticks, 4000u);
  EXPECT_LT(sleeping.ticks, 2500u);  // it slept through the quiet stretches
}

}  // namespace
}  // namespace upswitch::core
