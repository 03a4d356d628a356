// Cross-parameter checks and derived fields. Single-key ranges are checked when the key is set.
#include <sstream>

#include "config/param_table.h"
#include "config/value_parse.h"
#include "core/allocator.h"

namespace upswitch::config {
namespace {

[[noreturn]] void fail(const std::string& msg) { throw ConfigError(msg); }

std::vector<std::pair<int, double>> parse_mix(const std::string& text) {
  std::vector<std::pair<int, double>> mix;
  if (text.empty()) return mix;
  std::stringstream ss(text);
  std::string item;
  const std::string allowed = "SIZE:WEIGHT,... with SIZE 1 .. 4096 flits and WEIGHT > 0";
  while (std::getline(ss, item, ',')) {
    const size_t colon = item.find(':');
    if (colon == std::string::npos) fail("traffic.packet_mix = '" + text + "': expected " + allowed);
    try {
      const int size = static_cast<int>(parse_int("traffic.packet_mix", item.substr(0, colon), 1, 4096));
      const double w = parse_float("traffic.packet_mix", item.substr(colon + 1), 1e-12, 1e12);
      mix.emplace_back(size, w);
    } catch (const ConfigError&) {
      fail("traffic.packet_mix = '" + text + "': expected " + allowed);
    }
  }
  return mix;
}

void check_ports(const char* key, const std::vector<int>& list, int ports) {
  for (int v : list)
    if (v >= ports)
      fail(std::string(key) + " contains " + std::to_string(v) + ": expected ports 0 .. " +
           std::to_string(ports - 1) + " (switch.ports = " + std::to_string(ports) + ")");
}

}  // namespace

void validate(Config& c) {
  const int n = c.sw.ports;
  c.sw.allocator = core::allocator_names()[static_cast<size_t>(c.allocator_index)];
  if (!c.sw.routing_table.empty()) {
    if (static_cast<int>(c.sw.routing_table.size()) != n)
      fail("switch.routing_table has " + std::to_string(c.sw.routing_table.size()) +
           " entries: expected none (identity) or one per port (" + std::to_string(n) + ")");
    check_ports("switch.routing_table", c.sw.routing_table, n);
  }
  check_ports("traffic.hotspot_ports", c.traffic.hotspot_ports, n);
  if (c.traffic.pattern == traffic::Pattern::kHotspot && c.traffic.hotspot_ports.empty())
    fail("traffic.hotspot_ports is empty: the hotspot pattern needs at least one hot port");
  if (c.traffic.incast_target >= n)
    fail("traffic.incast_target = " + std::to_string(c.traffic.incast_target) + ": expected a port 0 .. " +
         std::to_string(n - 1));
  if (c.traffic.incast_sources > n - 1)
    fail("traffic.incast_sources = " + std::to_string(c.traffic.incast_sources) + ": expected 0 .. " +
         std::to_string(n - 1) + " (the other ports)");
  if (c.traffic.shift >= n)
    fail("traffic.shift = " + std::to_string(c.traffic.shift) + ": expected 0 .. " + std::to_string(n - 1));
  c.traffic.packet_mix = parse_mix(c.packet_mix_text);
  if (c.sw.queueing == core::Queueing::kFifo && c.sw.vcs > 1 && c.sw.vc_buffer_flits < 1)
    fail("switch.vc_buffer_flits must be at least 1");
  c.sw.window_begin = c.measure.warmup_cycles;
  c.sw.window_end = c.measure.warmup_cycles + c.measure.measure_cycles;
}

}  // namespace upswitch::config
