// The topology keys (topology.*, routing.multipath, link.inter_switch_*, endpoint.port_select,
// endpoint.interleave_bytes; doc/topology.md), declared once like every other key, and the
// building of the network they describe.
#include "config/topology_params.h"

#include <algorithm>

#include "config/input_file.h"
#include "config/param_builders.h"
#include "config/value_parse.h"

namespace upswitch::config {
namespace {

std::string kind_name(const Config& c) { return network::kind_name(c.topo.kind); }

std::string param_text(const Config& c, const std::string& key) {
  const nlohmann::json v = find_param(key)->get(c);
  return v.is_string() ? v.get<std::string>() : v.dump();
}

}  // namespace

void add_topology_params(std::vector<ParamSpec>& t) {
  using namespace builders;  // NOLINT: the builders are this file's vocabulary
  t.push_back(enum_param("topology.kind", [](Config& c) -> network::TopologyKind& { return c.topo.kind; },
                         {"single", "planes", "two_tier", "file"}, "single",
                         "The network: one switch with one port per endpoint (single); topology.planes switches with "
                         "every endpoint on every one (planes: NVL72, UALink pods); a leaf/spine fabric per plane "
                         "(two_tier); or topology.file (doc/topology.md)."));
  t.push_back(int_param("topology.endpoints", [](Config& c) -> int& { return c.topo.endpoints; }, 0, 0, 4096,
                        "endpoints", "planes: the endpoints (accelerators); two_tier: 0 or leaves x endpoints_per_leaf."));
  t.push_back(int_param("topology.planes", [](Config& c) -> int& { return c.topo.planes; }, 1, 1, 64, "planes",
                        "planes, two_tier: independent copies of the fabric; every endpoint has ports on each."));
  t.push_back(int_param("topology.links_per_plane", [](Config& c) -> int& { return c.topo.links_per_plane; }, 1, 1, 64,
                        "links", "planes: ports of every endpoint on every plane (parallel links to one switch)."));
  t.push_back(int_list_param("topology.plane_links", [](Config& c) -> std::vector<int>& { return c.topo.plane_links; },
                             "[]", 1, 64,
                             "planes: links of every endpoint on each plane, one entry per plane (DGX H100: [5,4,4,5], "
                             "18 NVLinks over 4 NVSwitch chips); empty = topology.links_per_plane on every plane. "
                             "Endpoint ports are numbered plane by plane. Pair it with routing.multipath = input so "
                             "every link of a plane carries its share (doc/topology.md)."));
  t.push_back(int_param("topology.leaves", [](Config& c) -> int& { return c.topo.leaves; }, 0, 0, 1024, "switches",
                        "two_tier: leaf switches per plane."));
  t.push_back(int_param("topology.endpoints_per_leaf", [](Config& c) -> int& { return c.topo.endpoints_per_leaf; }, 0,
                        0, 1024, "endpoints", "two_tier: endpoints on each leaf."));
  t.push_back(int_param("topology.spines", [](Config& c) -> int& { return c.topo.spines; }, 0, 0, 1024, "switches",
                        "two_tier: spine switches per plane."));
  t.push_back(int_param("topology.uplinks_per_leaf", [](Config& c) -> int& { return c.topo.uplinks_per_leaf; }, 0, 0,
                        1024, "links",
                        "two_tier: links from each leaf to the spines, spread evenly over them; with endpoint and "
                        "uplink rates equal, endpoints_per_leaf / uplinks_per_leaf is the taper (2 = 2:1)."));
  t.push_back(text_param("topology.file", [](Config& c) -> std::string& { return c.topo.file; }, "", "a file path",
                         "file: the topology YAML (switches, endpoints, links, routing; doc/topology.md)."));
  t.push_back(enum_param("routing.multipath", [](Config& c) -> network::Multipath& { return c.topo.multipath; },
                         {"hash", "round_robin", "adaptive", "input"}, "hash",
                         "Where a switch has several equal-cost output ports (spines, parallel links): a hash of "
                         "(source, destination) that keeps each flow on one path and in order, a round robin per "
                         "input, the port with the most downstream credits (adaptive), or the port at the input "
                         "port's position among them (input: input port mod their count; on planes an endpoint's "
                         "l-th link to a plane feeds the destination's l-th link, so the source's address interleave "
                         "over its links carries through, one path per input port and in order)."));
  t.push_back(int_param("link.inter_switch_latency_cycles", [](Config& c) -> int& { return c.inter_switch_latency_cycles; },
                        0, 0, 1000000, "cycles",
                        "Switch-to-switch links, one way; 0 = link.latency_cycles. These cables are usually longer."));
  t.push_back(int_param("link.inter_switch_credit_delay_cycles",
                        [](Config& c) -> int& { return c.inter_switch_credit_delay_cycles; }, 0, 0, 1000000, "cycles",
                        "Switch-to-switch credit return; 0 = link.credit_delay_cycles."));
  t.push_back(float_param("link.inter_switch_gbytes_per_s", [](Config& c) -> double& { return c.inter_switch_gbytes_per_s; },
                          0.0, 0.0, 1e6, "GB/s",
                          "TL flit bandwidth of a switch-to-switch link per direction; 0 = link.gbytes_per_s."));
  t.push_back(enum_param("endpoint.port_select", [](Config& c) -> int& { return c.port_select; },
                         {"address", "round_robin", "hash", "least_loaded"}, "address",
                         "An endpoint with several ports (planes): which one carries a packet. address: the "
                         "endpoint's byte stream interleaved over its ports every endpoint.interleave_bytes (how GPUs "
                         "spread traffic over NVLink planes); round_robin; hash of (source, destination), keeping "
                         "each flow on one port; least_loaded: the port with the least waiting, then the most credits."));
  t.push_back(pow2_param("endpoint.interleave_bytes", [](Config& c) -> int& { return c.interleave_bytes; }, 256, 64,
                         int64_t{1} << 20, "bytes",
                         "endpoint.port_select = address: bytes of an endpoint's stream sent on one port before the "
                         "next [estimate: the NVLink plane interleave is not public]."));
}

network::LinkDefaults link_defaults(const Config& c) {
  network::LinkDefaults d;
  d.latency_cycles = c.link_latency_cycles;
  d.credit_delay_cycles = c.credit_delay_cycles;
  d.gbytes_per_s = c.link_gbytes_per_s;
  d.inter_switch_latency_cycles = c.inter_switch_latency_cycles ? c.inter_switch_latency_cycles : c.link_latency_cycles;
  d.inter_switch_credit_delay_cycles =
      c.inter_switch_credit_delay_cycles ? c.inter_switch_credit_delay_cycles : c.credit_delay_cycles;
  d.inter_switch_gbytes_per_s = c.inter_switch_gbytes_per_s > 0 ? c.inter_switch_gbytes_per_s : c.link_gbytes_per_s;
  d.switch_radix = c.sw.ports;
  return d;
}

void resolve_topology(Config& c) {
  if (c.topo.kind == network::TopologyKind::kFile) {
    if (trim(c.topo.file).empty()) throw ConfigError("topology.kind = file: topology.file is not set; expected a path");
    c.topo.file_text = read_input_file("topology.file", c.topo.file, kMaxConfigFileBytes);
  } else if (!c.topo.file.empty()) {
    throw ConfigError("topology.file = '" + c.topo.file + "': only read with topology.kind = file");
  }
  if (c.topo.kind != network::TopologyKind::kPlanes && !c.topo.plane_links.empty())
    throw ConfigError("topology.plane_links = " + param_text(c, "topology.plane_links") +
                      ": only read with topology.kind = planes");
  try {
    c.topology = std::make_shared<const network::Topology>(network::build_topology(c.topo, link_defaults(c)));
  } catch (const network::TopologyError& e) {
    std::string m = e.what();
    if (m.rfind("topology: ", 0) == 0) m = m.substr(10);
    // Checks after parsing (routes, deadlock) name the file too.
    // A topology file's errors name FILE:LINE themselves (network/topology_file.cpp).
    if (c.topo.kind == network::TopologyKind::kFile && m.rfind(c.topo.file + ":", 0) == 0) throw ConfigError(m);
    if (c.topo.kind == network::TopologyKind::kFile && m.rfind("topology.file", 0) != 0)
      throw ConfigError("topology.file '" + c.topo.file + "': " + m);
    throw ConfigError(m.rfind("routing", 0) == 0 || m.rfind("topology", 0) == 0 ? m : "topology: " + m);
  }
  if (c.single_switch()) return;
  if (c.sw.queueing == core::Queueing::kFifo)
    throw ConfigError("switch.queueing = fifo with topology.kind = " + kind_name(c) +
                      ": a fifo input has one credit class and cannot feed another switch's VCs; expected vc or voq");
  if (c.network().vc_classes == 2 && (c.sw.queueing != core::Queueing::kVc || c.sw.vcs < 2 || c.sw.vcs % 2))
    throw ConfigError("topology.file '" + c.topo.file + "' has dateline links: expected switch.queueing = vc and an even "
                      "switch.vcs >= 2 (the VCs split into two classes), got " + param_text(c, "switch.queueing") +
                      " with switch.vcs = " + std::to_string(c.sw.vcs));
  if (c.kind == Config::TrafficKind::kTransactions) {
    // doc/topology.md "Transactions on a network": a response returns on the port its request
    // arrived on; ordering holds per path, so strict ordering needs one path per pair.
    // The ordering rules (doc/transactions.md) keep one (source, destination, 256 B region) in
    // order end to end: one port per region at the initiator and one path per flow in the switches.
    // `input` keeps one path per (input port, destination): a region leaves on one port, so it
    // takes one path too.
    if (c.topo.multipath != network::Multipath::kHash && c.topo.multipath != network::Multipath::kInput)
      throw ConfigError("routing.multipath = " + param_text(c, "routing.multipath") +
                        " with traffic.kind = transactions: requests of one source, destination and region could "
                        "take different paths and overtake each other (doc/transactions.md ordering rules); "
                        "expected hash or input");
    if (c.port_select != 0 && c.port_select != 2)
      throw ConfigError("endpoint.port_select = " + param_text(c, "endpoint.port_select") +
                        " with traffic.kind = transactions: requests to one 256 B region could leave on different "
                        "ports and overtake each other (doc/transactions.md ordering rules); expected address or hash");
    if (c.interleave_bytes < 256)
      throw ConfigError("endpoint.interleave_bytes = " + std::to_string(c.interleave_bytes) +
                        " with traffic.kind = transactions: expected at least 256, so that a request's 256 B region "
                        "stays on one port (doc/transactions.md ordering rules)");
    int widest = 0;
    for (int e = 0; e < c.topology->num_endpoints(); ++e)
      widest = std::max(widest, c.topology->endpoint_first_port(e + 1) - c.topology->endpoint_first_port(e));
    if (widest > 255)
      throw ConfigError("topology: an endpoint has " + std::to_string(widest) +
                        " ports; with traffic.kind = transactions expected at most 255");
    if (static_cast<int64_t>(widest) * c.accel.max_outstanding > 65536)
      throw ConfigError("accel.max_outstanding = " + std::to_string(c.accel.max_outstanding) + " with " +
                        std::to_string(widest) + " ports per endpoint: the tags of an endpoint (" +
                        std::to_string(static_cast<int64_t>(widest) * c.accel.max_outstanding) +
                        ") exceed the 16-bit tag space; expected at most " + std::to_string(65536 / widest));
  }
  if (!c.sw.routing_table.empty())
    throw ConfigError("switch.routing_table with topology.kind = " + kind_name(c) +
                      ": routes come from the topology; expected none");
}

}  // namespace upswitch::config
