// SwitchCore: crossbar speedup (doc/architecture.md "Crossbar speedup"). With speedup S the
// allocation runs up to S rounds per cycle (switch_core.cpp), so an output may receive up to S
// flits in one cycle; they wait in the output's buffer, which its link drains at the link rate.
// A flit takes its downstream credit when it crosses the crossbar, so a buffered flit always has
// a place downstream and the output buffer adds no dependency between ports (no deadlock).
#include "core/switch_core.h"

#include <algorithm>
#include <stdexcept>

namespace upswitch::core {

void SwitchCore::buffer_output(int o, uint64_t t, const Flit& f) {
  const auto oo = static_cast<size_t>(o);
  uint32_t& count = obuf_count_[oo];
  if (count == obuf_cap_) throw std::logic_error("SwitchCore: a grant to an output whose buffer is full");
  uint32_t slot = obuf_head_[oo] + count;
  if (slot >= obuf_cap_) slot -= obuf_cap_;
  obuf_[oo * obuf_cap_ + slot] = Buffered{t + static_cast<uint64_t>(p_.output_pipeline_cycles()), f};
  ++count;
  ++obuf_total_;
  stats_.output_buffer_peak[oo] = std::max<uint64_t>(stats_.output_buffer_peak[oo], count);
}

// Each output's front flit leaves once its pipeline stages are over and the link can start it:
// one flit per output per cycle at most, in the order the crossbar delivered them.
void SwitchCore::drain_output_buffers(uint64_t t) {
  for (int o = 0; o < n_ && obuf_total_; ++o) {
    const auto oo = static_cast<size_t>(o);
    if (obuf_count_[oo] == 0) continue;
    const Buffered& b = obuf_[oo * obuf_cap_ + obuf_head_[oo]];
    if (b.due > t || !out_links_[o]->tx_ready(t)) continue;
    out_links_[o]->tx_take(t);
    out_links_[o]->send_flit(t, b.flit);
    if (++obuf_head_[oo] == obuf_cap_) obuf_head_[oo] = 0;
    --obuf_count_[oo];
    --obuf_total_;
  }
}

}  // namespace upswitch::core
