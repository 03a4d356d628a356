#include "cosim/model_switch.h"

#include "cosim/port_words.h"

namespace upswitch::cosim {

namespace {

// One switch of params.ports ports, one endpoint per port, on links of no latency at one flit
// per cycle (the tap links).
network::Topology tap_topology(int ports) {
  network::TopologyParams t;
  t.kind = network::TopologyKind::kSingle;
  network::LinkDefaults d;
  d.switch_radix = ports;
  return network::build_topology(t, d);
}

}  // namespace

ModelSwitch::ModelSwitch(const core::SwitchParams& params, const core::DownstreamBuffer& downstream)
    : net_(tap_topology(params.ports), params, downstream, 1.0) {}

void ModelSwitch::cycle(uint64_t t, const PortWords* in, PortWords* out) {
  const int n = ports();
  for (int p = 0; p < n; ++p) {
    const FlitWord w = unpack_flit(in[p].flit);
    if (w.valid) {
      core::Flit f;
      f.payload = w.pkt;
      f.dst = w.dst;
      f.vc = w.vc;
      f.flags = static_cast<uint8_t>((w.head ? core::Flit::kHead : 0) | (w.tail ? core::Flit::kTail : 0));
      f.set_shared_credit(w.shared);
      net_.uplink(p).send_flit(t, f);
    }
    const CreditWord c = unpack_credit(in[p].credit);
    if (c.valid) net_.downlink(p).send_credit(t, core::Credit{c.vc, c.shared});
  }
  net_.tick(t);
  for (int p = 0; p < n; ++p) {
    out[p] = PortWords{};
    core::Flit f;
    if (net_.downlink(p).receive_flit(t, f)) {
      FlitWord w;
      w.valid = true;
      w.head = f.head();
      w.tail = f.tail();
      w.shared = f.shared_credit();
      w.vc = f.vc;
      w.dst = static_cast<uint16_t>(p);
      w.pkt = f.payload;
      out[p].flit = pack(w);
    }
    core::Credit c;
    if (net_.uplink(p).receive_credit(t, c)) out[p].credit = pack(CreditWord{true, c.shared, c.vc});
  }
}

}  // namespace upswitch::cosim
