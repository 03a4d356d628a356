// SwitchCore: the human-readable state dump used by the deadlock report.
#include <sstream>

#include "core/switch_core.h"

namespace upswitch::core {

std::string SwitchCore::dump_state(uint64_t t) const {
  std::ostringstream s;
  s << "switch state at cycle " << t << ": " << total_queued_ << " flits queued, "
    << routing_flits_ << " in routing, " << egress_flits_ + obuf_total_ << " in output pipelines and buffers\n";
  int shown = 0;
  for (int i = 0; i < n_ && shown < 32; ++i) {
    if (!queued_[i]) continue;
    ++shown;
    s << "  input " << i << ": occupancy " << occupancy_[i] << ", queued " << queued_[i];
    const int queues = p_.queueing == Queueing::kFifo ? 1 : p_.queueing == Queueing::kVc ? v_ : n_ * v_;
    int fronts = 0;
    for (int q = 0; q < queues && fronts < 4; ++q) {
      if (queues_[i].empty(q)) continue;
      const Flit& f = queues_[i].front(q);
      const int o = f.out;
      s << "; queue " << q << " front: packet " << f.src << " -> " << f.dst << " -> port " << o << " vc "
        << int(f.vc) << (f.head() ? " head" : " body") << (f.tail() ? "+tail" : "");
      ++fronts;
    }
    if (pm_ && pm_out_[i] >= 0) s << "; matched to output " << pm_out_[i] << " until its packet's tail (packet mode)";
    s << "\n";
  }
  for (int o = 0; o < n_; ++o) {
    const CreditPool& c = out_credit_[o];
    bool blocked = false;
    for (int vc = 0; vc < v_; ++vc) blocked |= !c.can_take(vc) || holder_[o * v_ + vc] >= 0;
    if (!blocked) continue;
    s << "  output " << o << ": shared credits " << c.shared();
    for (int vc = 0; vc < v_; ++vc)
      s << ", vc" << vc << " credits " << c.reserved(vc) << " holder " << holder_[o * v_ + vc];
    s << "\n";
  }
  return s.str();
}

}  // namespace upswitch::core
