#include "top/report.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "config/param_table.h"
#include "stats/fairness.h"
#include "stats/registry.h"
#include "top/fabric.h"
#include "top/link_layers.h"
#include "top/network_report.h"
#include "top/switch_down_report.h"
#include "version.h"

namespace upswitch::top {
nlohmann::json latency_json(const stats::Histogram& h, bool valid, double ns_per_cycle) {
  if (!valid || h.count() == 0)
    return {{"mean", nullptr}, {"p50", nullptr}, {"p99", nullptr}, {"p999", nullptr}, {"max", nullptr},
            {"count", h.count()}, {"mean_ns", nullptr}, {"p99_ns", nullptr}};
  nlohmann::json j = stats::summarize(h);
  j["mean_ns"] = h.mean() * ns_per_cycle;
  j["p99_ns"] = static_cast<double>(h.percentile(0.99)) * ns_per_cycle;
  return j;
}

nlohmann::json switch_summary_json(const core::SwitchStats& s, int ports, double port_cycles) {
  uint64_t occ = 0, xbar = 0, stalls = 0, peak = 0;
  for (int p = 0; p < ports; ++p) {
    occ += s.occupancy_flit_cycles[p];
    xbar += s.xbar_flits[p];
    stalls += s.credit_stall_cycles[p];
    peak = std::max(peak, s.peak_occupancy[p]);
  }
  return {{"mean_buffer_occupancy_flits", static_cast<double>(occ) / port_cycles},
          {"peak_buffer_occupancy_flits", peak},
          {"xbar_utilisation", static_cast<double>(xbar) / port_cycles},
          {"credit_stall_cycles", stalls}};
}

uint64_t zero_load_latency_cycles(const Fabric& f, int flits) { return zero_load_latency_cycles(f.config(), flits); }

uint64_t zero_load_latency_cycles(const config::Config& c, int flits) {
  // Speculation overlaps the last VC-allocation cycle with switch allocation (one cycle less).
  const uint64_t va_cycles = static_cast<uint64_t>(c.sw.vc_alloc_cycles);
  const uint64_t va = c.sw.queueing != core::Queueing::kVc ? 0
                      : c.sw.speculative && va_cycles > 0 ? va_cycles - 1
                                                          : va_cycles;
  return 2 * static_cast<uint64_t>(c.link_latency_cycles) + c.sw.routing_cycles + va +
         c.sw.output_pipeline_cycles() + static_cast<uint64_t>(flits - 1);
}

// /flows and /fairness: hot and cold destination classes, accepted flits per source and per
// destination endpoint, and Jain's index over each (doc/validation.md, "Hotspots").
nlohmann::json flows_json(const Fabric& f, double window) {
  const config::Config& c = f.config();
  const traffic::RunResult& r = f.endpoints().result();
  const bool hotspot = c.traffic.pattern == traffic::Pattern::kHotspot;
  const auto hot_n = static_cast<double>(hotspot ? c.traffic.hotspot_ports.size() : 0);
  const double endpoints = c.endpoints();
  auto cls = [&](const traffic::FlowClassResult& k, double destinations) {
    return nlohmann::json{{"offered_flits", k.offered_flits},
                          {"accepted_flits", k.accepted_flits},
                          {"offered", static_cast<double>(k.offered_flits) / window},
                          {"accepted", static_cast<double>(k.accepted_flits) / window},
                          {"offered_per_source", static_cast<double>(k.offered_flits) / window / endpoints},
                          {"accepted_per_source", static_cast<double>(k.accepted_flits) / window / endpoints},
                          {"accepted_per_destination",
                           destinations > 0 ? nlohmann::json(static_cast<double>(k.accepted_flits) / window / destinations)
                                            : nlohmann::json(nullptr)},
                          {"accepted_over_offered",
                           k.offered_flits ? nlohmann::json(static_cast<double>(k.accepted_flits) / static_cast<double>(k.offered_flits))
                                           : nlohmann::json(nullptr)}};
  };
  return {{"hot_ports", hotspot ? nlohmann::json(c.traffic.hotspot_ports) : nlohmann::json::array()},
          {"hot", cls(r.hot, hot_n)},
          {"cold", cls(r.cold, endpoints - hot_n)},
          {"unit", "flits/cycle over the measurement window: offered and accepted summed over the class's flows, "
                   "*_per_source divided by the endpoints, *_per_destination by the class's destinations"}};
}

nlohmann::json fairness_json(const traffic::RunResult& r, double window) {
  auto rates = [&](const std::vector<uint64_t>& v) {
    std::vector<double> x;
    for (uint64_t a : v) x.push_back(static_cast<double>(a) / window);
    return x;
  };
  const std::vector<double> src = rates(r.source_accepted), dst = rates(r.destination_accepted);
  return {{"jain_sources", stats::jain_index(src)},
          {"jain_destinations", stats::jain_index(dst)},
          {"accepted_per_source", src},
          {"accepted_per_destination", dst},
          {"unit", "accepted flits/cycle per endpoint over the measurement window; Jain's index (sum x)^2 / (n sum x^2)"}};
}

nlohmann::json build_summary(const Fabric& f, const RunTiming& timing, const std::vector<std::string>& violations) {
  const config::Config& c = f.config();
  const traffic::RunResult& r = f.endpoints().result();
  const network::Network& net = f.network();
  const int n = f.endpoint_ports();
  const double ns_per_cycle = 1.0 / c.clock_ghz;
  const double gbps_per_flit_per_cycle = c.flit_bytes * c.clock_ghz;  // GB/s at 1 flit/cycle

  uint64_t offered = 0, accepted = 0, injected = 0;
  for (const traffic::PortResult& p : r.ports) {
    offered += p.offered_flits;
    accepted += p.accepted_flits;
    injected += p.injected_flits;
  }
  const double window = static_cast<double>(r.window_cycles ? r.window_cycles : 1);
  const double port_cycles = window * n;
  const bool latency_valid = !r.saturated && !r.interrupted;

  stats::Registry reg;
  register_switch_stats(reg, net);
  reg.counter("endpoints.packets_created", &r.packets_created, "packets", "whole run");
  reg.counter("endpoints.packets_delivered", &r.packets_delivered, "packets", "whole run");
  reg.counter("endpoints.flits_created", &r.flits_created, "flits", "whole run");
  reg.counter("endpoints.flits_delivered", &r.flits_delivered, "flits", "whole run");
  reg.counter("endpoints.measured_packets", &r.measured_packets, "packets", "created in the window");
  reg.counter("endpoints.hot_offered_flits", &r.hot.offered_flits, "flits",
              "to the hot ports (hotspot pattern), of packets created in the window");
  reg.counter("endpoints.hot_accepted_flits", &r.hot.accepted_flits, "flits", "to the hot ports, delivered in the window");
  reg.counter("endpoints.cold_offered_flits", &r.cold.offered_flits, "flits",
              "to the other endpoints, of packets created in the window");
  reg.counter("endpoints.cold_accepted_flits", &r.cold.accepted_flits, "flits",
              "to the other endpoints, delivered in the window");
  reg.per_port("endpoints.source_accepted_flits", &r.source_accepted, "flits",
               "per source endpoint: its flits delivered in the window");
  reg.per_port("endpoints.destination_accepted_flits", &r.destination_accepted, "flits",
               "per destination endpoint: flits delivered to it in the window");
  reg.histogram("endpoints.packet_latency", &r.packet_latency, "cycles", "creation to tail delivery");
  const FabricDl dl = collect_dl(f, n);
  register_dl_stats(reg, c, dl);
  reg.histogram("endpoints.network_latency", &r.network_latency, "cycles", "head injection to tail delivery");

  const double endpoints = c.endpoints();
  nlohmann::json j;
  j["upswitch_version"] = UPSWITCH_VERSION;
  j["config"] = config::config_to_json(c);
  j["preset"] = c.preset.empty() ? "ualink-x4" : c.preset;
  j["seed"] = c.measure.seed;
  j["throughput"] = {
      {"offered", static_cast<double>(offered) / port_cycles},
      {"accepted", static_cast<double>(accepted) / port_cycles},
      {"injected", static_cast<double>(injected) / port_cycles},
      {"offered_gbytes_per_s_per_port", static_cast<double>(offered) / port_cycles * gbps_per_flit_per_cycle},
      {"accepted_gbytes_per_s_per_port", static_cast<double>(accepted) / port_cycles * gbps_per_flit_per_cycle},
      {"accepted_gbytes_per_s_per_endpoint", static_cast<double>(accepted) / window / endpoints * gbps_per_flit_per_cycle},
      {"accepted_gbytes_per_s_total", static_cast<double>(accepted) * n / port_cycles * gbps_per_flit_per_cycle},
      {"link_flits_per_cycle", c.link_flits_per_cycle()},
      {"ports_per_endpoint", n / endpoints},
      {"unit", "flits/port/cycle over the measurement window (a port = one endpoint link)"}};
  j["latency"] = {{"packet", latency_json(r.packet_latency, latency_valid, ns_per_cycle)},
                  {"network", latency_json(r.network_latency, latency_valid, ns_per_cycle)},
                  {"zero_load_cycles", zero_load_latency_cycles(f, c.traffic.packet_flits)},
                  {"unit", "cycles (the *_ns fields in ns)"}};
  j["flows"] = flows_json(f, window);
  j["fairness"] = fairness_json(r, window);
  j["saturated"] = r.saturated;
  j["saturation_reason"] = r.saturation_reason;
  j["saturation"] = saturation_json(r.saturation);
  j["switch"] = network_switch_json(net, window);
  j["switches"] = switches_json(net, window);
  j["topology"] = topology_json(net.topology(), gbps_per_flit_per_cycle);
  if (!c.faults.switch_down.empty())
    j["switch_down"] = switch_down_json(net.topology(), c.faults.switch_down, gbps_per_flit_per_cycle, c.clock_ghz);
  j["conservation"] = {{"ok", violations.empty()}, {"violations", violations},
                       {"checked", c.measure.flush && !r.interrupted ? "drained" : "in flight"}};
  j["sim"] = {{"cycles", r.end_cycle},
              {"simulated_ns", static_cast<double>(r.end_cycle) * ns_per_cycle},
              {"window_cycles", r.window_cycles},
              {"interrupted", r.interrupted},
              {"kernel", timing.kernel},
              {"wall_seconds", timing.wall_seconds},
              {"cycles_per_second", timing.wall_seconds > 0 ? static_cast<double>(r.end_cycle) / timing.wall_seconds : 0.0}};
  j["stats"] = reg.dump();
  return j;
}

// One row per endpoint port, with the figures of the switch port it is attached to.
std::string ports_csv(const Fabric& f) {
  const config::Config& c = f.config();
  const traffic::RunResult& r = f.endpoints().result();
  const network::Network& net = f.network();
  const double w = static_cast<double>(r.window_cycles ? r.window_cycles : 1);
  const double gb = c.flit_bytes * c.clock_ghz;
  const bool many = !c.single_switch();
  std::ostringstream o;
  o.precision(6);
  o << "port," << (many ? "endpoint,switch,switch_port," : "")
    << "offered,injected,accepted,accepted_gbytes_per_s,mean_occupancy_flits,peak_occupancy_flits,"
       "xbar_utilisation,credit_stall_cycles,backlog_flits_end\n";
  for (int p = 0; p < f.endpoint_ports(); ++p) {
    const traffic::PortResult& pr = r.ports[static_cast<size_t>(p)];
    const network::PortRef at = attached_switch_port(net, p);
    const core::SwitchStats& s = net.sw(at.id).stats();
    const auto q = static_cast<size_t>(at.port);
    o << p << ',';
    if (many) o << net.owner(p) << ',' << at.id << ',' << at.port << ',';
    o << pr.offered_flits / w << ',' << pr.injected_flits / w << ',' << pr.accepted_flits / w << ','
      << pr.accepted_flits / w * gb << ',' << s.occupancy_flit_cycles[q] / w << ',' << s.peak_occupancy[q] << ','
      << s.xbar_flits[q] / w << ',' << s.credit_stall_cycles[q] << ',' << pr.backlog_flits_end << '\n';
  }
  return o.str();
}

std::string links_csv(const Fabric& f) {
  const traffic::RunResult& r = f.endpoints().result();
  std::vector<uint64_t> injected;
  for (const traffic::PortResult& p : r.ports) injected.push_back(p.injected_flits);
  const config::Config& c = f.config();
  return links_csv(f.network(), static_cast<double>(r.window_cycles), c.flit_bytes * c.clock_ghz, injected);
}

std::string latency_histogram_csv(const Fabric& f) {
  const traffic::RunResult& r = f.endpoints().result();
  std::ostringstream o;
  o << "latency_cycles,packet_count,network_count\n";
  auto a = r.packet_latency.buckets(), b = r.network_latency.buckets();
  size_t i = 0, k = 0;
  while (i < a.size() || k < b.size()) {
    const uint64_t va = i < a.size() ? a[i].first : UINT64_MAX, vb = k < b.size() ? b[k].first : UINT64_MAX;
    const uint64_t v = std::min(va, vb);
    o << v << ',' << (va == v ? a[i++].second : 0) << ',' << (vb == v ? b[k++].second : 0) << '\n';
  }
  return o.str();
}

nlohmann::json saturation_json(const traffic::SaturationEvidence& e) {
  return {{"windows", e.windows},
          {"queue_growth", e.queue_growth},
          {"queue_growth_t", e.queue_growth_t},
          {"latency_slope", e.latency_slope},
          {"latency_slope_t", e.latency_slope_t},
          {"latency_mean", e.latency_mean},
          {"backlog_samples", e.backlog},
          {"mean_latency_per_window", e.mean_latency}};
}

void write_file(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot write '" + path + "': " + std::strerror(errno));
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size() && std::fflush(f) == 0;
  const int err = errno;
  if (std::fclose(f) != 0 || !ok) throw std::runtime_error("cannot write '" + path + "': " + std::strerror(ok ? errno : err));
}

void write_file_atomic(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  write_file(tmp, text);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error("cannot rename '" + tmp + "' to '" + path + "'");
}

}  // namespace upswitch::top
