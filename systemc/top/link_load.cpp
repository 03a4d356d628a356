#include "top/link_load.h"

#include <algorithm>
#include <stdexcept>

namespace upswitch::top {

LinkCounters read_link_counters(const network::Network& net) {
  LinkCounters c;
  c.switch_flits.reserve(static_cast<size_t>(net.switches()));
  for (int s = 0; s < net.switches(); ++s) c.switch_flits.push_back(net.sw(s).stats().grants);
  c.channel_flits.reserve(net.channels().size());
  for (const network::Network::Channel& ch : net.channels()) {
    // A switch counts what it sends; a channel from an endpoint is counted where it arrives.
    const network::PortRef& at = ch.from.is_switch ? ch.from : ch.to;
    if (!at.is_switch) throw std::logic_error("link_load: a link between two endpoints");
    const core::SwitchStats& st = net.sw(at.id).stats();
    c.channel_flits.push_back(ch.from.is_switch ? st.sent_flits[static_cast<size_t>(at.port)]
                                                : st.received_flits[static_cast<size_t>(at.port)]);
  }
  return c;
}

LinkLoad link_load(const network::Network& net, const LinkCounters& begin, const LinkCounters& end, uint64_t cycles,
                   double flit_gbytes_per_s) {
  LinkLoad l;
  const size_t S = end.switch_flits.size();
  l.switch_flits.resize(S);
  uint64_t total = 0, most = 0;
  for (size_t s = 0; s < S; ++s) {
    l.switch_flits[s] = end.switch_flits[s] - begin.switch_flits[s];
    total += l.switch_flits[s];
    most = std::max(most, l.switch_flits[s]);
  }
  l.switch_spread = total > 0 ? static_cast<double>(most) * static_cast<double>(S) / static_cast<double>(total) : 0;
  if (cycles == 0) return l;
  const network::Topology& t = net.topology();
  for (size_t k = 0; k < end.channel_flits.size(); ++k) {
    const uint64_t flits = end.channel_flits[k] - begin.channel_flits[k];
    if (flits == 0) continue;
    const network::Network::Channel& ch = net.channels()[k];
    const double capacity =
        t.links[static_cast<size_t>(ch.link)].flits_per_cycle(flit_gbytes_per_s) * static_cast<double>(cycles);
    const double u = static_cast<double>(flits) / capacity;
    if (u > l.busiest_utilisation) {
      l.busiest = static_cast<int>(k);
      l.busiest_utilisation = u;
      l.busiest_flits = flits;
      l.busiest_name = ch.from.name() + "->" + ch.to.name();
    }
  }
  return l;
}

}  // namespace upswitch::top
