#include "top/txn_report.h"

#include <algorithm>
#include <sstream>

#include "config/param_table.h"
#include "stats/registry.h"
#include "top/link_layers.h"
#include "top/network_report.h"
#include "top/report.h"
#include "top/switch_down_report.h"
#include "top/txn_fabric.h"
#include "version.h"

namespace upswitch::top {
namespace {

// The packet summary's latency object, plus the fastest transfer.
nlohmann::json txn_latency_json(const stats::Histogram& h, bool valid, double ns_per_cycle) {
  nlohmann::json j = latency_json(h, valid, ns_per_cycle);
  if (valid && h.count() > 0) j["min"] = h.min();
  return j;
}

const char* const kClassNames[2] = {"requests", "responses"};

}  // namespace

nlohmann::json build_txn_summary(const TxnFabric& f, const RunTiming& timing, const std::vector<std::string>& violations) {
  const config::Config& c = f.config();
  const endpoint::TxnResult& r = f.endpoints().result();
  const core::SwitchStats& s = f.sw().stats();
  const network::Network& net = f.network();
  const bool single = c.single_switch();
  const int n = f.endpoints().endpoint_ports() - f.endpoints().engine_units();  // accelerator ports
  const double ns_per_cycle = 1.0 / c.clock_ghz;
  const double window = static_cast<double>(r.window_cycles ? r.window_cycles : 1);
  const double port_cycles = window * n;
  const double gbytes = c.clock_ghz;  // bytes per cycle -> GB/s
  const double link_bytes_per_cycle = c.flit_bytes * c.link_flits_per_cycle();
  const bool latency_valid = !r.saturated && !r.interrupted;

  uint64_t offered = 0, completed = 0, served = 0;
  for (const endpoint::TxnPortResult& p : r.ports) {
    offered += p.offered_bytes;
    completed += p.completed_bytes;
    served += p.served_bytes;
  }
  stats::Registry reg;
  if (single) {
    reg.counter("switch.grants", &s.grants, "flits", "flits through the crossbar, whole run");
    reg.per_port("switch.xbar_flits", &s.xbar_flits, "flits", "per output, measurement window");
    reg.per_port("switch.credit_stall_cycles", &s.credit_stall_cycles, "cycles",
                 "per output: a flit waited for it and it had no downstream credit (window)");
    reg.per_port("switch.peak_occupancy", &s.peak_occupancy, "flits", "per input buffer, whole run");
  } else {
    register_switch_stats(reg, net);
  }
  reg.counter("accel.transfers_created", &r.transfers_created, "transfers", "whole run");
  reg.counter("accel.transfers_completed", &r.transfers_completed, "transfers", "whole run");
  reg.counter("accel.requests_issued", &r.requests_issued, "requests", "whole run");
  reg.counter("accel.requests_answered", &r.requests_answered, "requests", "whole run");
  reg.counter("accel.requests_rejected", &r.requests_rejected, "requests", "answered by the initiator (format, no window)");
  reg.counter("accel.flits_sent", &r.flits_sent, "flits", "whole run, both classes");
  if (c.faults.any() || c.accel.completion_timeout_cycles) {  // doc/reliability.md
    for (int k = 0; k < net.switches(); ++k) {  // every switch holds the partition
      const core::SwitchStats& st = net.sw(k).stats();
      const std::string p = single ? "switch." : "switch" + std::to_string(k) + ".";
      reg.per_port(p + "protection_violations", &st.protection_violations, "requests",
                   "per input: requests rejected, target in another pod (partition.pods), whole run");
      reg.per_port(p + "target_aborts", &st.target_aborts, "requests",
                   "per input: requests rejected, target port down (faults.port_down), whole run");
      reg.per_port(p + "dropped_packets", &st.dropped_packets, "packets",
                   "per input: packets dropped, from a down port or a response to one, whole run");
      reg.counter(p + "flits_discarded", &st.flits_discarded, "flits", "of rejected and dropped packets, whole run");
    }
    reg.counter("accel.late_responses", &r.late_responses, "responses",
                "came back after their request's completion timeout; dropped, whole run");
  }

  const FabricDl dl = collect_dl(f, f.endpoints().endpoint_ports() - f.endpoints().engine_units());  // accelerator links
  register_dl_stats(reg, c, dl);
  nlohmann::json ops = nlohmann::json::object();
  for (int o = 0; o < tl::kOpcodes; ++o) {
    const endpoint::OpResult& op = r.ops[static_cast<size_t>(o)];
    if (op.completed == 0) continue;
    ops[tl::opcode_name(static_cast<tl::Opcode>(o))] = {
        {"completed", op.completed},
        {"bytes", op.bytes},
        {"gbytes_per_s_per_port", static_cast<double>(op.bytes) / port_cycles * gbytes},
        {"latency", txn_latency_json(op.latency, latency_valid, ns_per_cycle)},
        {"network_latency", txn_latency_json(op.network_latency, latency_valid, ns_per_cycle)}};
  }
  nlohmann::json statuses = nlohmann::json::object();
  for (int k = 0; k < tl::kStatuses; ++k) statuses[tl::status_name(static_cast<tl::Status>(k))] = r.statuses[static_cast<size_t>(k)];
  nlohmann::json link = nlohmann::json::object();
  for (int k = 0; k < 2; ++k) {
    const double flits = static_cast<double>(r.window_flits[static_cast<size_t>(k)]);
    const double packets = static_cast<double>(r.window_packets[static_cast<size_t>(k)]);
    link[kClassNames[k]] = {{"flits", r.window_flits[static_cast<size_t>(k)]},
                            {"packets", r.window_packets[static_cast<size_t>(k)]},
                            {"messages", r.window_messages[static_cast<size_t>(k)]},
                            {"payload_bytes", r.window_payload[static_cast<size_t>(k)]},
                            {"messages_per_packet", packets > 0 ? static_cast<double>(r.window_messages[static_cast<size_t>(k)]) / packets : 0.0},
                            {"efficiency", flits > 0 ? static_cast<double>(r.window_payload[static_cast<size_t>(k)]) / (flits * c.flit_bytes) : 0.0},
                            {"flits_per_port_per_cycle", flits / port_cycles}};
  }

  nlohmann::json j;
  j["upswitch_version"] = UPSWITCH_VERSION;
  j["config"] = config::config_to_json(c);
  j["preset"] = c.preset.empty() ? "ualink-x4" : c.preset;
  j["seed"] = c.measure.seed;
  j["traffic_kind"] = "transactions";
  j["throughput"] = {
      {"offered_gbytes_per_s_per_port", static_cast<double>(offered) / port_cycles * gbytes},
      {"completed_gbytes_per_s_per_port", static_cast<double>(completed) / port_cycles * gbytes},
      {"served_gbytes_per_s_per_port", static_cast<double>(served) / port_cycles * gbytes},
      {"offered_load", static_cast<double>(offered) / port_cycles / link_bytes_per_cycle},
      {"completed_load", static_cast<double>(completed) / port_cycles / link_bytes_per_cycle},
      {"link_gbytes_per_s", link_bytes_per_cycle * gbytes},
      {"unit", "payload bytes over the measurement window; *_load as a fraction of the link's byte rate"}};
  if (!single) {  // per endpoint as well (an endpoint has several links)
    const double endpoints = f.endpoints().accelerators();
    j["throughput"]["completed_gbytes_per_s_per_endpoint"] = static_cast<double>(completed) / window / endpoints * gbytes;
    j["throughput"]["ports_per_endpoint"] = n / endpoints;
    j["throughput"]["unit"] =
        "payload bytes over the measurement window, per port (one endpoint link) or per endpoint; *_load as a "
        "fraction of the link's byte rate";
  }
  j["ops"] = ops;
  j["statuses"] = statuses;
  j["link"] = link;
  j["saturated"] = r.saturated;
  j["saturation_reason"] = r.saturation_reason;
  j["saturation"] = saturation_json(r.saturation);
  if (single) {
    j["switch"] = switch_summary_json(s, n, port_cycles);
  } else {
    j["switch"] = network_switch_json(net, window);
    j["switches"] = switches_json(net, window);
    j["topology"] = topology_json(net.topology(), c.flit_bytes * c.clock_ghz);
  }
  if (!c.faults.switch_down.empty())
    j["switch_down"] = switch_down_json(net.topology(), c.faults.switch_down, c.flit_bytes * c.clock_ghz, c.clock_ghz);
  j["conservation"] = {{"ok", violations.empty()}, {"violations", violations},
                       {"checked", c.measure.flush && !r.interrupted ? "drained" : "in flight"}};
  j["sim"] = {{"cycles", r.end_cycle},
              {"simulated_ns", static_cast<double>(r.end_cycle) * ns_per_cycle},
              {"window_cycles", r.window_cycles},
              {"interrupted", r.interrupted},
              {"kernel", timing.kernel},
              {"wall_seconds", timing.wall_seconds},
              {"cycles_per_second", timing.wall_seconds > 0 ? static_cast<double>(r.end_cycle) / timing.wall_seconds : 0.0},
              {"transfers_per_second",
               timing.wall_seconds > 0 ? static_cast<double>(r.transfers_completed) / timing.wall_seconds : 0.0}};
  j["stats"] = reg.dump();
  return j;
}

// One row per accelerator (its ports together on a network).
std::string txn_ports_csv(const TxnFabric& f) {
  const config::Config& c = f.config();
  const endpoint::TxnResult& r = f.endpoints().result();
  const double w = static_cast<double>(r.window_cycles ? r.window_cycles : 1);
  std::ostringstream o;
  o.precision(6);
  o << (c.single_switch() ? "port" : "endpoint")
    << ",offered_gbytes_per_s,completed_gbytes_per_s,served_gbytes_per_s,backlog_bytes_end\n";
  for (int p = 0; p < f.endpoints().accelerators(); ++p) {
    const endpoint::TxnPortResult& pr = r.ports[static_cast<size_t>(p)];
    o << p << ',' << pr.offered_bytes / w * c.clock_ghz << ',' << pr.completed_bytes / w * c.clock_ghz << ','
      << pr.served_bytes / w * c.clock_ghz << ',' << pr.backlog_bytes_end << '\n';
  }
  return o.str();
}

std::string txn_links_csv(const TxnFabric& f) {
  const endpoint::TxnResult& r = f.endpoints().result();
  const config::Config& c = f.config();
  return links_csv(f.network(), static_cast<double>(r.window_cycles), c.flit_bytes * c.clock_ghz, r.port_window_flits);
}

std::string txn_latency_histogram_csv(const TxnFabric& f) {
  const endpoint::TxnResult& r = f.endpoints().result();
  std::ostringstream o;
  o << "op,latency_cycles,count,network_count\n";
  for (int op = 0; op < tl::kOpcodes; ++op) {
    const endpoint::OpResult& res = r.ops[static_cast<size_t>(op)];
    auto a = res.latency.buckets(), b = res.network_latency.buckets();
    size_t i = 0, k = 0;
    while (i < a.size() || k < b.size()) {
      const uint64_t va = i < a.size() ? a[i].first : UINT64_MAX, vb = k < b.size() ? b[k].first : UINT64_MAX;
      const uint64_t v = std::min(va, vb);
      o << tl::opcode_name(static_cast<tl::Opcode>(op)) << ',' << v << ',' << (va == v ? a[i++].second : 0) << ','
        << (vb == v ? b[k++].second : 0) << '\n';
    }
  }
  return o.str();
}

}  // namespace upswitch::top
