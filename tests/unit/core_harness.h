// A plain SwitchCore driven flit by flit for hand-worked cycle tests: 4 ports, 1-cycle links,
// senders that send regardless of credits (the tests stay within the buffers) and receivers that
// free a slot as soon as a flit arrives. A flit sent on an input link in cycle t is queued and can
// be granted in cycle t + 1; with no pipeline stages a granted flit leaves in the same cycle.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/link.h"
#include "core/switch_core.h"

namespace upswitch::core::test {

struct Sent {
  uint64_t cycle;
  uint64_t packet;
  bool head, tail;
};

// A 4-port VOQ switch, 16 slots per VC, iSLIP with one iteration and no pipeline stages.
inline SwitchParams harness_params(int vcs, int classes = 1) {
  SwitchParams p;
  p.ports = 4;
  p.vcs = vcs;
  p.classes = classes;
  p.vc_buffer_flits = 16;
  p.shared_buffer_flits = 0;
  p.queueing = Queueing::kVoq;
  p.allocator = "islip";
  p.allocator_iterations = 1;
  return p;
}

class Harness {
 public:
  // The receiver behind each output has `down_vc_flits` slots per VC and returns each credit
  // `credit_delay` cycles after the flit arrived. With two classes (requests on lanes [0, vcs),
  // responses above) every head also needs a command credit at the receiver: plenty here.
  Harness(const SwitchParams& p, int down_vc_flits, uint32_t credit_delay) {
    core_ = std::make_unique<SwitchCore>(p, DownstreamBuffer{down_vc_flits, 0, p.classes > 1 ? 64 : 0, 0});
    for (int i = 0; i < 4; ++i) {
      in_.emplace_back(std::make_unique<Link>(1, 1));
      out_.emplace_back(std::make_unique<Link>(1, credit_delay));
      core_->connect(i, in_.back().get(), out_.back().get());
    }
  }

  // One packet of `flits` flits from `input` to `output` on `vc`, its flits sent in the cycles
  // from `start` on, one per cycle, skipping the cycle `gap` (none by default).
  void packet(int input, int output, int vc, int flits, uint64_t id, uint64_t start, uint64_t gap = ~0ULL) {
    uint64_t t = start;
    for (int k = 0; k < flits; ++k, ++t) {
      if (t == gap) ++t;
      Flit f;
      f.payload = static_cast<uint32_t>(id);
      f.src = static_cast<uint16_t>(input);
      f.dst = static_cast<uint16_t>(output);
      f.size = static_cast<uint16_t>(flits);
      f.vc = static_cast<uint8_t>(vc);
      f.flags = static_cast<uint8_t>((k == 0 ? Flit::kHead : 0) | (k == flits - 1 ? Flit::kTail : 0));
      f.msgs = 1;
      plan_.push_back({t, input, f});
    }
  }

  // Runs `cycles` cycles; returns what left on `output`, in order. The receiver behind each
  // output frees a slot as soon as a flit arrives.
  std::vector<Sent> run(int output, uint64_t cycles) {
    std::vector<Sent> got;
    for (uint64_t t = 0; t < cycles; ++t) {
      for (const auto& s : plan_)
        if (s.cycle == t) in_[static_cast<size_t>(s.input)]->send_flit(t, s.flit);
      core_->tick(t);
      for (int i = 0; i < 4; ++i) {  // the senders take their credits back (they send regardless)
        Credit c;
        while (in_[static_cast<size_t>(i)]->receive_credit(t, c)) credits_.push_back({t, i});
      }
      for (int o = 0; o < 4; ++o) {
        Flit f;
        while (out_[static_cast<size_t>(o)]->receive_flit(t, f)) {
          // Sent on the output link one cycle earlier.
          if (o == output) got.push_back({t - 1, uint64_t{f.payload}, f.head(), f.tail()});
          Credit c;
          c.vc = f.vc;
          c.shared = f.shared_credit();
          out_[static_cast<size_t>(o)]->send_credit(t, c);
        }
      }
    }
    return got;
  }

  const SwitchCore& core() const { return *core_; }
  // (cycle, input) of every credit the switch returned, in the cycle it became usable.
  const std::vector<std::pair<uint64_t, int>>& credits() const { return credits_; }

 private:
  struct Planned {
    uint64_t cycle;
    int input;
    Flit flit;
  };
  std::unique_ptr<SwitchCore> core_;
  std::vector<std::unique_ptr<Link>> in_, out_;
  std::vector<Planned> plan_;
  std::vector<std::pair<uint64_t, int>> credits_;
};

inline std::string order(const std::vector<Sent>& s) {
  std::string o;
  for (const auto& x : s) o += static_cast<char>('A' + x.packet);
  return o;
}

}  // namespace upswitch::core::test
