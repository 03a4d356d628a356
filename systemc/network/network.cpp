#include "network/network.h"

#include <algorithm>
#include <stdexcept>
#include <tuple>

namespace upswitch::network {

core::DownstreamBuffer switch_input_buffer(const core::SwitchParams& sw) {
  core::DownstreamBuffer b;
  b.vc_flits = sw.vc_buffer_flits;
  b.shared_flits = sw.shared_buffer_flits;
  b.cmd_vc = sw.cmd_vc_credits;
  b.cmd_shared = sw.cmd_shared_credits;
  return b;
}

Network::Network(const Topology& topo, const core::SwitchParams& sw, const core::DownstreamBuffer& endpoint_rx,
                 double flit_gbytes_per_s, const Decorate& decorate, const DecorateSwitchLink& decorate_switch_link)
    : topo_(topo), sw_(sw), endpoint_rx_(endpoint_rx) {
  if (topo_.num_switches() > 1 && sw.queueing == core::Queueing::kFifo)
    throw std::invalid_argument("Network: fifo queueing has one credit class and cannot feed another switch");
  // Two wires per link, then the endpoint ports' wires in endpoint-port order.
  const int eps = topo_.endpoint_ports();
  ep_up_.assign(static_cast<size_t>(eps), nullptr);
  ep_down_.assign(static_cast<size_t>(eps), nullptr);
  owner_.assign(static_cast<size_t>(eps), -1);
  for (size_t l = 0; l < topo_.links.size(); ++l) {
    const LinkSpec& ls = topo_.links[l];
    const auto lat = static_cast<uint32_t>(ls.latency_cycles);
    const auto cred = static_cast<uint32_t>(ls.credit_delay_cycles);
    const double rate = ls.flits_per_cycle(flit_gbytes_per_s);
    wires_.push_back(std::make_unique<core::Link>(lat, cred, rate));
    wires_.push_back(std::make_unique<core::Link>(lat, cred, rate));
    core::Link* ab = wires_[2 * l].get();
    core::Link* ba = wires_[2 * l + 1].get();
    channels_.push_back(Channel{ls.a, ls.b, static_cast<int>(l), ab});
    channels_.push_back(Channel{ls.b, ls.a, static_cast<int>(l), ba});
    for (const auto& [end, out, in] : {std::tuple{ls.a, ab, ba}, std::tuple{ls.b, ba, ab}}) {
      if (end.is_switch) continue;
      const int p = topo_.endpoint_first_port(end.id) + end.port;
      ep_up_[static_cast<size_t>(p)] = out;
      ep_down_[static_cast<size_t>(p)] = in;
      owner_[static_cast<size_t>(p)] = end.id;
    }
  }
  for (int p = 0; p < eps; ++p) {
    if (!ep_up_[static_cast<size_t>(p)]) throw std::invalid_argument("Network: endpoint port without a link");
    if (decorate) decorate(p, *ep_up_[static_cast<size_t>(p)], *ep_down_[static_cast<size_t>(p)]);
  }
  if (decorate_switch_link)
    for (size_t l = 0; l < topo_.links.size(); ++l)
      if (topo_.links[l].a.is_switch && topo_.links[l].b.is_switch)
        decorate_switch_link(static_cast<int>(l), *wires_[2 * l], *wires_[2 * l + 1]);

  // Switches: their ports and routes from the topology.
  const int dests = topo_.num_endpoints();
  for (int s = 0; s < topo_.num_switches(); ++s) {
    core::SwitchParams sp = sw;
    sp.ports = topo_.switches[static_cast<size_t>(s)].ports;
    if (topo_.kind != TopologyKind::kSingle) {
      sp.routing_table.clear();
      sp.route_begin.assign(1, 0);
      sp.route_ports.clear();
      for (int d = 0; d < dests; ++d) {
        sp.route_ports.insert(sp.route_ports.end(), topo_.routes_begin(s, d), topo_.routes_end(s, d));
        sp.route_begin.push_back(static_cast<uint32_t>(sp.route_ports.size()));
      }
      sp.hash_salt = 0x5157000000ULL + static_cast<uint64_t>(s);
      sp.vc_classes = topo_.vc_classes;
      if (topo_.vc_classes > 1) {
        sp.dateline_ports.assign(static_cast<size_t>(sp.ports), 0);
        for (int q = 0; q < sp.ports; ++q) {
          const int l = topo_.switch_port_link[static_cast<size_t>(s)][static_cast<size_t>(q)];
          sp.dateline_ports[static_cast<size_t>(q)] = l >= 0 && topo_.links[static_cast<size_t>(l)].dateline ? 1 : 0;
        }
      }
    }
    switches_.push_back(std::make_unique<core::SwitchCore>(sp, endpoint_rx));
  }
  const core::DownstreamBuffer switch_rx = switch_input_buffer(sw);
  for (const Channel& c : channels_) {
    if (c.from.is_switch && c.to.is_switch) switches_[static_cast<size_t>(c.from.id)]->set_output_receiver(c.from.port, switch_rx);
  }
  // Each switch port: its input wire (flits in) and output wire (flits out).
  sw_in_.resize(switches_.size());
  sw_out_.resize(switches_.size());
  for (int s = 0; s < topo_.num_switches(); ++s) {
    const int ports = topo_.switches[static_cast<size_t>(s)].ports;
    for (int q = 0; q < ports; ++q) {
      const int l = topo_.switch_port_link[static_cast<size_t>(s)][static_cast<size_t>(q)];
      if (l < 0) throw std::invalid_argument("Network: switch port without a link");
      const LinkSpec& ls = topo_.links[static_cast<size_t>(l)];
      const bool is_a = ls.a.is_switch && ls.a.id == s && ls.a.port == q;
      core::Link* out = wires_[2 * static_cast<size_t>(l) + (is_a ? 0 : 1)].get();
      core::Link* in = wires_[2 * static_cast<size_t>(l) + (is_a ? 1 : 0)].get();
      switches_[static_cast<size_t>(s)]->connect(q, in, out);
      sw_in_[static_cast<size_t>(s)].push_back(in);
      sw_out_[static_cast<size_t>(s)].push_back(out);
    }
  }
}

uint64_t Network::receiver_capacity(const Channel& c) const {
  const core::SwitchParams& sw = sw_;
  if (c.to.is_switch) return static_cast<uint64_t>(sw.buffer_flits());
  return static_cast<uint64_t>(sw.lanes()) * static_cast<uint64_t>(endpoint_rx_.vc_flits) +
         static_cast<uint64_t>(endpoint_rx_.shared_flits);
}

uint64_t Network::next_activity(uint64_t t) {
  uint64_t next = UINT64_MAX;
  for (const auto& s : switches_) s->fold_wake(t, next);
  return std::max(next, t + 1);
}

PortRef Network::switch_end(int ep_port) const {
  const int a = owner(ep_port);
  return topo_.peer(PortRef{false, a, ep_port - topo_.endpoint_first_port(a)});
}

void Network::avoid_switch_at(int sw, uint64_t at) {
  for (int s = 0; s < switches(); ++s) {
    if (s == sw) continue;
    std::vector<char> lost(static_cast<size_t>(this->sw(s).ports()), 0);
    bool any = false;
    for (int q = 0; q < this->sw(s).ports(); ++q) {
      const PortRef next = topo_.peer(PortRef{true, s, q});
      lost[static_cast<size_t>(q)] = next.is_switch && next.id == sw;
      any = any || lost[static_cast<size_t>(q)];
    }
    if (any) this->sw(s).avoid_ports_at(at, std::move(lost));
  }
}

void Network::plan_route_changes(const std::vector<RouteChange>& plan) {
  const auto E = static_cast<size_t>(topo_.num_endpoints());
  for (const RouteChange& c : plan) {
    if (c.route_begin.size() != switches_.size() * E + 1)
      throw std::invalid_argument("Network: a route change must hold one set per switch and endpoint");
    for (size_t s = 0; s < switches_.size(); ++s) {
      const uint32_t first = c.route_begin[s * E];
      std::vector<uint32_t> begin(E + 1);
      for (size_t d = 0; d <= E; ++d) begin[d] = c.route_begin[s * E + d] - first;
      std::vector<uint16_t> ports(c.route_ports.begin() + first, c.route_ports.begin() + c.route_begin[s * E + E]);
      switches_[s]->set_routes_at(c.at, std::move(begin), std::move(ports));
    }
  }
}

uint64_t Network::flits_inside() const {
  uint64_t n = 0;
  for (const auto& s : switches_) n += s->flits_inside();
  return n;
}

}  // namespace upswitch::network
