#include "network/topology.h"

namespace upswitch::network {

std::string PortRef::name() const {
  return std::string(is_switch ? "sw" : "ep") + std::to_string(id) + ".p" + std::to_string(port);
}

bool PortRef::parse(const std::string& text, PortRef& out) {
  if (text.size() < 5 || (text.compare(0, 2, "sw") != 0 && text.compare(0, 2, "ep") != 0)) return false;
  const size_t dot = text.find(".p", 2);
  if (dot == std::string::npos) return false;
  const std::string id = text.substr(2, dot - 2), port = text.substr(dot + 2);
  auto number = [](const std::string& d) {
    return !d.empty() && d.size() <= 6 && d.find_first_not_of("0123456789") == std::string::npos;
  };
  if (!number(id) || !number(port)) return false;
  out = PortRef{text[0] == 's', std::stoi(id), std::stoi(port)};
  return true;
}

void Topology::finish() {
  switch_port_link.assign(switches.size(), {});
  for (size_t s = 0; s < switches.size(); ++s) switch_port_link[s].assign(static_cast<size_t>(switches[s].ports), -1);
  endpoint_port_link.assign(endpoints.size(), {});
  endpoint_first.assign(1, 0);
  for (size_t e = 0; e < endpoints.size(); ++e) {
    endpoint_port_link[e].assign(static_cast<size_t>(endpoints[e].ports), -1);
    endpoint_first.push_back(endpoint_first.back() + endpoints[e].ports);
  }
  for (size_t l = 0; l < links.size(); ++l) {
    const LinkSpec& ls = links[l];
    if (!ls.a.is_switch && !ls.b.is_switch)
      throw TopologyError("topology: link " + std::to_string(l) + " joins two endpoints (" + ls.a.name() + ", " +
                          ls.b.name() + "); expected a switch at one end at least");
    for (const PortRef& r : {ls.a, ls.b}) {
      const size_t count = r.is_switch ? switches.size() : endpoints.size();
      if (r.id < 0 || static_cast<size_t>(r.id) >= count)
        throw TopologyError("topology: link " + std::to_string(l) + ": unknown " + (r.is_switch ? "switch " : "endpoint ") +
                            std::to_string(r.id) + " (" + (r.is_switch ? "switches" : "endpoints") + " are 0 .. " +
                            std::to_string(static_cast<long>(count) - 1) + ")");
      std::vector<int>& ports = r.is_switch ? switch_port_link[static_cast<size_t>(r.id)] : endpoint_port_link[static_cast<size_t>(r.id)];
      if (r.port < 0 || static_cast<size_t>(r.port) >= ports.size())
        throw TopologyError("topology: link " + std::to_string(l) + ": port " + r.name() + " does not exist (" +
                            (r.is_switch ? "switch " : "endpoint ") + std::to_string(r.id) + " has ports 0 .. " +
                            std::to_string(static_cast<long>(ports.size()) - 1) + ")");
      int& slot = ports[static_cast<size_t>(r.port)];
      if (slot >= 0)
        throw TopologyError("topology: port " + r.name() + " is used by two links (links " + std::to_string(slot) +
                            " and " + std::to_string(l) + ")");
      slot = static_cast<int>(l);
    }
  }
  for (size_t e = 0; e < endpoints.size(); ++e)
    for (size_t k = 0; k < endpoint_port_link[e].size(); ++k)
      if (endpoint_port_link[e][k] < 0)
        throw TopologyError("topology: port " + PortRef{false, static_cast<int>(e), static_cast<int>(k)}.name() +
                            " is not connected; every endpoint port needs a link");
}

const char* kind_name(TopologyKind kind) {
  switch (kind) {
    case TopologyKind::kSingle: return "single";
    case TopologyKind::kPlanes: return "planes";
    case TopologyKind::kTwoTier: return "two_tier";
    case TopologyKind::kFile: return "file";
  }
  return "?";
}

std::vector<char> Topology::entry_switches() const {
  std::vector<char> entry(switches.size(), 0);
  for (int e = 0; e < num_endpoints(); ++e)
    for (int k = 0; k < endpoints[static_cast<size_t>(e)].ports; ++k) {
      const PortRef p = peer(PortRef{false, e, k});
      if (p.is_switch) entry[static_cast<size_t>(p.id)] = 1;
    }
  return entry;
}

PortRef Topology::peer(const PortRef& end) const {
  const int l = end.is_switch ? switch_port_link[static_cast<size_t>(end.id)][static_cast<size_t>(end.port)]
                              : endpoint_port_link[static_cast<size_t>(end.id)][static_cast<size_t>(end.port)];
  if (l < 0) return end;
  const LinkSpec& ls = links[static_cast<size_t>(l)];
  return ls.a == end ? ls.b : ls.a;
}

}  // namespace upswitch::network
