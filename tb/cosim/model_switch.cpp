#include "cosim/model_switch.h"

#include "cosim/port_words.h"

namespace upswitch::cosim {

ModelSwitch::ModelSwitch(const core::SwitchParams& params, const core::DownstreamBuffer& downstream)
    : core_(params, downstream) {
  for (int p = 0; p < core_.ports(); ++p) {
    in_.push_back(std::make_unique<core::Link>(0, 0));
    out_.push_back(std::make_unique<core::Link>(0, 0));
    core_.connect(p, in_.back().get(), out_.back().get());
  }
}

void ModelSwitch::cycle(uint64_t t, const PortWords* in, PortWords* out) {
  const int n = core_.ports();
  for (int p = 0; p < n; ++p) {
    const FlitWord w = unpack_flit(in[p].flit);
    if (w.valid) {
      core::Flit f;
      f.packet_id = w.pkt;
      f.dst = w.dst;
      f.vc = w.vc;
      f.flags = static_cast<uint8_t>((w.head ? core::Flit::kHead : 0) | (w.tail ? core::Flit::kTail : 0));
      f.set_shared_credit(w.shared);
      in_[p]->send_flit(t, f);
    }
    const CreditWord c = unpack_credit(in[p].credit);
    if (c.valid) out_[p]->send_credit(t, core::Credit{c.vc, c.shared});
  }
  core_.tick(t);
  for (int p = 0; p < n; ++p) {
    out[p] = PortWords{};
    core::Flit f;
    if (out_[p]->receive_flit(t, f)) {
      FlitWord w;
      w.valid = true;
      w.head = f.head();
      w.tail = f.tail();
      w.shared = f.shared_credit();
      w.vc = f.vc;
      w.dst = static_cast<uint16_t>(p);
      w.pkt = static_cast<uint32_t>(f.packet_id);
      out[p].flit = pack(w);
    }
    core::Credit c;
    if (in_[p]->receive_credit(t, c)) out[p].credit = pack(CreditWord{true, c.shared, c.vc});
  }
}

}  // namespace upswitch::cosim
