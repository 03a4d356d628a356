#include "config/memory_estimate.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "core/flit.h"

namespace upswitch::config {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// /proc/meminfo's MemAvailable in bytes; 0 when it cannot be read.
double mem_available() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  double kb = 0;
  std::string unit;
  while (in >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024.0;
  return 0;
}

std::string gib(double b) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GiB", b / kGiB);
  return buf;
}

}  // namespace

std::vector<MemoryPart> fabric_memory(const Config& c) {
  const double v = static_cast<double>(c.sw.lanes());
  std::vector<MemoryPart> parts;
  parts.push_back({"the process (code, libraries, SystemC)", 12.0 * 1024 * 1024});
  // Every link: a flit ring of latency + 1 entries and a credit ring of credit delay + 1, each way.
  auto per_link = [&](double latency, double credit_delay) {
    return (latency + 1.0) * sizeof(core::Flit) + (credit_delay + 1.0) * sizeof(core::Credit) +
           (c.dl.enable ? c.dl.replay_window * (c.dl.flit_bytes / 64.0 + 1) * sizeof(core::Flit) : 0);
  };
  // The switches: input slots with their queue links, the routing and output pipelines (and the
  // output buffers of a crossbar with speedup), and the bit matrices of allocation (request,
  // transposed request, held-by per VC: crossbar ports squared); queue heads and tails per input:
  // one queue (fifo), one per VC (vc), one per output and VC (voq).
  auto per_switch = [&](double x) {
    const double slots = x * c.sw.buffer_flits() * (sizeof(core::Flit) + 8.0);
    const double pipes = x * (c.sw.routing_cycles + c.sw.output_pipeline_cycles() + 2.0) * sizeof(core::Flit) +
                         (c.sw.speedup > 1 ? x * c.sw.output_buffer_flits * (sizeof(core::Flit) + 8.0) : 0.0);
    const double bits = (2 + 2 * v) * x * x / 8.0;
    const double queues = c.sw.queueing == core::Queueing::kVoq ? x * v : c.sw.queueing == core::Queueing::kVc ? v : 1;
    return slots + pipes + bits + x * queues * 3 * sizeof(int);
  };
  const double per_port = c.kind == Config::TrafficKind::kTransactions
                              ? 4096.0 + c.accel.max_outstanding * 512.0 + c.endpoint_rx.vc_flits * v * 64.0
                              : 2048.0 + (c.traffic.injection_queues == traffic::InjectionQueues::kPerDestination
                                              ? 160.0 * c.endpoints()  // a 4-packet ring per destination
                                              : 0.0);
  if (!c.topology || c.single_switch()) {
    const double n = c.sw.ports;
    // Transactions: the reduction engine's units are crossbar ports too (one per port by default).
    const double units = c.kind == Config::TrafficKind::kTransactions && c.accel.reduce.enable
                             ? (c.accel.reduce.units ? c.accel.reduce.units : n)
                             : 0;
    const double x = n + units;  // crossbar ports
    parts.push_back({"links (link.latency_cycles x ports)", 2 * x * per_link(c.link_latency_cycles, c.credit_delay_cycles)});
    parts.push_back({"switch buffers, pipelines and allocation state (switch.ports^2 x VCs)", per_switch(x)});
    parts.push_back({"endpoints", n * per_port});
    return parts;
  }
  // A network: every link at its own latency, every switch at its own port count.
  const network::Topology& t = c.network();
  double links = 0, switches = 0;
  for (const network::LinkSpec& l : t.links) links += 2 * per_link(l.latency_cycles, l.credit_delay_cycles);
  for (const network::SwitchSpec& s : t.switches) switches += per_switch(s.ports);
  parts.push_back({"links (latency x links of the topology)", links});
  parts.push_back({"switch buffers, pipelines and allocation state (ports^2 x VCs per switch)", switches});
  parts.push_back({"endpoints", t.endpoint_ports() * per_port});
  // The topology itself: route sets (switches x endpoints) and its lookups.
  parts.push_back({"topology routes", static_cast<double>(t.route_ports.size()) * 2 + t.route_begin.size() * 4.0});
  return parts;
}

double memory_limit_bytes(const Config& c) {
  return c.memory_limit_gib > 0 ? c.memory_limit_gib * kGiB : mem_available();
}

void check_memory(const Config& c, const std::vector<MemoryPart>& extra) {
  std::vector<MemoryPart> parts = fabric_memory(c);
  parts.insert(parts.end(), extra.begin(), extra.end());
  double total = 0;
  const MemoryPart* largest = &parts.front();
  for (const MemoryPart& p : parts) {
    total += p.bytes;
    if (p.bytes > largest->bytes) largest = &p;
  }
  const double limit = memory_limit_bytes(c);
  if (limit <= 0 || total <= limit) return;
  throw ConfigError("memory: the run needs about " + gib(total) + " (largest part: " + largest->what + ", " +
                    gib(largest->bytes) + "), more than the " + gib(limit) +
                    (c.memory_limit_gib > 0 ? " of sim.memory_limit_gib" : " this machine has available") +
                    "; make the run smaller, or set sim.memory_limit_gib to allow more");
}

}  // namespace upswitch::config
