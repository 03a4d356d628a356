#include "top/conservation.h"

#include "top/fabric.h"

namespace upswitch::top {
namespace {

std::string link_msg(const char* side, int port, uint64_t have, uint64_t capacity, const char* what) {
  return std::string(side) + " link of port " + std::to_string(port) + ": " + what + " " + std::to_string(have) +
         " != buffer size " + std::to_string(capacity);
}

}  // namespace

uint64_t check_channels(const network::Network& net, const EndpointPortCount& source_credits,
                        const EndpointPortCount& endpoint_held,
                        const std::function<uint64_t(const network::Network::Channel&)>& capacity,
                        const char* output_what, std::vector<std::string>& bad) {
  uint64_t in_links = 0;
  for (const network::Network::Channel& c : net.channels()) {
    const core::Link& w = *c.wire;
    uint64_t have = w.credits().count() + w.flits_in_flight();
    if (c.from.is_switch) {
      const core::SwitchCore& s = net.sw(c.from.id);
      have += s.output_credits(c.from.port).total() + s.egress_flits(c.from.port);
    } else {
      have += source_credits(net.topology().endpoint_first_port(c.from.id) + c.from.port);
    }
    if (c.to.is_switch)
      have += static_cast<uint64_t>(net.sw(c.to.id).occupancy(c.to.port));
    else
      have += endpoint_held(net.topology().endpoint_first_port(c.to.id) + c.to.port);
    const uint64_t cap = capacity(c);
    if (have != cap) {
      if (!c.from.is_switch)
        bad.push_back(link_msg("input", c.to.port, have, cap, "credits + in flight + occupancy"));
      else if (!c.to.is_switch)
        bad.push_back(link_msg("output", c.from.port, have, cap, output_what));
      else
        bad.push_back("link " + c.from.name() + " -> " + c.to.name() + ": credits + in flight + pipeline + occupancy " +
                      std::to_string(have) + " != buffer size " + std::to_string(cap));
    }
    in_links += w.flits_in_flight();
  }
  return in_links;
}

// switch.shared_buffer_output_cap: each source's pool credits out, counted per switch output,
// add up to the pool credits it does not hold, and none exceeds the cap.
static void check_output_cap(const Fabric& f, std::vector<std::string>& bad) {
  const traffic::TrafficEndpoints& e = f.endpoints();
  const int cap = e.output_cap();
  if (cap == 0) return;
  const auto pool = static_cast<uint64_t>(f.config().sw.shared_buffer_flits);
  const int outputs = f.network().sw(0).ports();
  for (int p = 0; p < e.ports(); ++p) {
    uint64_t out = 0;
    for (int o = 0; o < outputs; ++o) {
      const uint32_t u = e.shared_outstanding(p, o);
      out += u;
      if (u > static_cast<uint32_t>(cap))
        bad.push_back("source " + std::to_string(p) + ": " + std::to_string(u) + " shared credits out for output " +
                      std::to_string(o) + ", above switch.shared_buffer_output_cap = " + std::to_string(cap));
    }
    const uint64_t held = e.source_credits(p).shared();
    if (out + held != pool)
      bad.push_back("source " + std::to_string(p) + ": shared credits held " + std::to_string(held) +
                    " + out per output " + std::to_string(out) + " != pool " + std::to_string(pool));
  }
}

std::vector<std::string> check_conservation(const Fabric& f) {
  std::vector<std::string> bad;
  const network::Network& net = f.network();
  // Packet sinks take every flit at once: an endpoint receiver holds nothing.
  const uint64_t in_links = check_channels(
      net, [&](int p) -> uint64_t { return f.endpoints().source_credits(p).total(); },
      [](int) -> uint64_t { return 0; }, [&](const network::Network::Channel& c) { return net.receiver_capacity(c); },
      "credits + in flight + pipeline", bad);
  const traffic::RunResult& r = f.endpoints().result();
  const uint64_t accounted = r.flits_delivered + f.endpoints().backlog_flits() + in_links + net.flits_inside();
  if (accounted != r.flits_created)
    bad.push_back("flits: created " + std::to_string(r.flits_created) + " != delivered + waiting + in flight " +
                  std::to_string(accounted));
  check_output_cap(f, bad);
  return bad;
}

std::vector<std::string> check_drained(const Fabric& f) {
  std::vector<std::string> bad = check_conservation(f);
  const network::Network& net = f.network();
  for (int p = 0; p < net.endpoint_ports(); ++p) {
    const core::CreditPool& s = f.endpoints().source_credits(p);
    if (s.total() != s.capacity())
      bad.push_back("source " + std::to_string(p) + ": " + std::to_string(s.total()) + " of " +
                    std::to_string(s.capacity()) + " credits home after the flush");
  }
  for (int sw = 0; sw < net.switches(); ++sw)
    for (int o = 0; o < net.sw(sw).ports(); ++o) {
      const core::CreditPool& c = net.sw(sw).output_credits(o);
      if (c.total() != c.capacity())
        bad.push_back("switch " + (net.switches() > 1 ? std::to_string(sw) + " " : std::string()) + "output " +
                      std::to_string(o) + ": " + std::to_string(c.total()) + " of " + std::to_string(c.capacity()) +
                      " credits home after the flush");
    }
  const traffic::RunResult& r = f.endpoints().result();
  if (r.packets_delivered != r.packets_created)
    bad.push_back("packets: created " + std::to_string(r.packets_created) + ", delivered " +
                  std::to_string(r.packets_delivered));
  if (const size_t held = f.endpoints().packets_in_flight())
    bad.push_back("packets: " + std::to_string(held) + " still held by their source after the flush");
  return bad;
}

void require_conservation(const Fabric& f) {
  const std::vector<std::string> bad = check_conservation(f);
  if (bad.empty()) return;
  std::string msg = "conservation violated: " + bad[0];
  if (bad.size() > 1) msg += " (and " + std::to_string(bad.size() - 1) + " more)";
  throw ConservationError(msg);
}

}  // namespace upswitch::top
