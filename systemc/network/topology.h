// A scale-up network described as data: switches, endpoints, the links between their ports and
// the routes every switch takes towards every endpoint. Built from the topology.* keys
// (single, planes, two_tier) or a topology file, checked (every port used once, every endpoint
// pair routable, no routing cycle that can deadlock) before anything is simulated; the Network
// assembly (network/network.h) turns it into switch cores and links. doc/topology.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "network/topology_params.h"

namespace upswitch::network {

// A topology input or check failed: one line naming what is wrong.
class TopologyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// One end of a link: a port of a switch or of an endpoint.
struct PortRef {
  bool is_switch = false;
  int id = 0;
  int port = 0;
  bool operator==(const PortRef& o) const { return is_switch == o.is_switch && id == o.id && port == o.port; }
  std::string name() const;  // "sw3.p7" or "ep0.p1"
  // The inverse of name(): true and `out` set for "swS.pQ" or "epE.pK" (decimal, at most 6 digits).
  static bool parse(const std::string& text, PortRef& out);
};

struct LinkSpec {
  PortRef a, b;  // a link carries flits both ways; a -> b and b -> a are its two channels
  int latency_cycles = 0;
  int credit_delay_cycles = 0;
  double gbytes_per_s = 0;  // per direction; 0 = one flit per core cycle
  // Dateline: a packet crossing this link (either way) moves to the upper VC class for the rest
  // of its path (Topology::vc_classes = 2), which breaks the cycle of a ring.
  bool dateline = false;
  bool inter_switch() const { return a.is_switch && b.is_switch; }
  // Flits per core cycle the link carries, and its rate in GB/s, given the rate of one flit per
  // cycle (flit bytes x clock): a rate of 0 or above it means one flit per cycle.
  double flits_per_cycle(double flit_gbytes_per_s) const {
    if (gbytes_per_s <= 0) return 1.0;
    const double r = gbytes_per_s / flit_gbytes_per_s;
    return r < 1.0 ? r : 1.0;
  }
  double rate_gbytes_per_s(double flit_gbytes_per_s) const {
    return gbytes_per_s > 0 && gbytes_per_s < flit_gbytes_per_s ? gbytes_per_s : flit_gbytes_per_s;
  }
};

struct SwitchSpec {
  int ports = 0;   // ports in use (at most switch.ports)
  int plane = 0;   // planes, two_tier: which copy of the fabric it belongs to
  int level = 0;   // two_tier / file with levels: 0 = leaf (endpoints attach), 1 = spine; -1 = none given
  // Topology files: this switch's reduction engine sizing, overriding reduce.units (-1: not given;
  // 0: one per accelerator port) and reduce.contexts (0: not given).
  int reduce_units = -1;
  int reduce_contexts = 0;
};

struct EndpointSpec {
  int ports = 1;
};

struct Topology {
  TopologyKind kind = TopologyKind::kSingle;
  std::string name;  // "single", "planes 18 x 72", a file name, ...
  std::vector<SwitchSpec> switches;
  std::vector<EndpointSpec> endpoints;
  std::vector<LinkSpec> links;
  int vc_classes = 1;  // 2 when some link is a dateline: each class has half of every hop's VCs
  bool up_down = false;  // routes computed over switch levels (compute_routes); tables count as shortest paths
  bool route_tables = false;  // routes taken from a topology file's tables, not computed
  int file_routing_line = 0;  // a topology file's line of `routing` (1 without one): checks of its routes name it

  // Routes: for switch s and destination endpoint d, the output ports of s on a path to d (more
  // than one = equal-cost choices, taken by routing.multipath). Flat: route_ports[route_begin[i]
  // .. route_begin[i + 1]) with i = s * endpoints.size() + d.
  std::vector<uint32_t> route_begin;
  std::vector<uint16_t> route_ports;

  // Lookups filled by finish(): the link at each port, -1 = unused.
  std::vector<std::vector<int>> switch_port_link;    // [switch][port]
  std::vector<std::vector<int>> endpoint_port_link;  // [endpoint][port]

  int num_switches() const { return static_cast<int>(switches.size()); }
  int num_endpoints() const { return static_cast<int>(endpoints.size()); }
  // The output ports of switch s towards endpoint d (begin, end pointers into route_ports).
  const uint16_t* routes_begin(int s, int d) const { return route_ports.data() + route_begin[idx(s, d)]; }
  const uint16_t* routes_end(int s, int d) const { return route_ports.data() + route_begin[idx(s, d) + 1]; }
  int route_count(int s, int d) const { return static_cast<int>(route_begin[idx(s, d) + 1] - route_begin[idx(s, d)]); }
  // What the other end of a port is connected to (`end` itself when the port is unused).
  PortRef peer(const PortRef& end) const;
  // Total endpoint ports (the links the endpoints own), and endpoint port k of endpoint e as a
  // flat index e_first(e) + k in endpoint-major order.
  int endpoint_ports() const { return static_cast<int>(endpoint_first.empty() ? 0 : endpoint_first.back()); }
  int endpoint_first_port(int e) const { return endpoint_first[static_cast<size_t>(e)]; }
  std::vector<int> endpoint_first;  // filled by finish(): prefix sums of endpoint ports (size E + 1)

  // The switches endpoints send into (1 per switch with an endpoint link), after finish().
  std::vector<char> entry_switches() const;

  // Builds the lookups; throws TopologyError when a link names an unknown switch, endpoint or
  // port, joins two endpoints, or uses a port twice, or an endpoint port has no link.
  void finish();

 private:
  size_t idx(int s, int d) const { return static_cast<size_t>(s) * endpoints.size() + static_cast<size_t>(d); }
};

// Limits of a topology file (doc/topology.md, "Limits"): larger networks are refused before
// anything is built, so that the routes and their checks stay within memory and time.
constexpr size_t kMaxFileSwitches = 4096;
constexpr size_t kMaxFileEndpoints = 4096;
constexpr size_t kMaxFileRouteSets = size_t{1} << 22;  // switches x endpoints
// Every topology: the most switches a route may cross from an injection switch to its endpoint,
// and the most output ports all route sets together may hold (equal-cost choices included).
constexpr int kMaxRouteSwitches = 64;
constexpr size_t kMaxRoutePorts = size_t{1} << 25;

// "single", "planes", "two_tier" or "file", as topology.kind spells it.
const char* kind_name(TopologyKind kind);

// The topology of a configuration: single, planes and two_tier from the keys, file from
// params.file_text. Routes computed and every check done; throws TopologyError.
Topology build_topology(const TopologyParams& params, const LinkDefaults& links);

// network/topology_file.cpp: the switches, endpoints, links and routing of a topology file
// (doc/topology.md), routes computed or taken from its tables.
Topology parse_topology_file(const std::string& text, const std::string& file, const LinkDefaults& links);

// network/routing.cpp. Shortest paths over the switches towards every endpoint, keeping every
// equal-cost next hop; with `up_down`, only paths that climb (to a higher switch level) before
// they descend. Throws TopologyError naming an endpoint pair that has no route.
void compute_routes(Topology& t, bool up_down);
// Every switch reached from an endpoint port has a route to every endpoint, and every route
// leads there without a loop; throws TopologyError naming the pair otherwise.
void check_routes(const Topology& t);
// Attaches one single-port endpoint to each switch listed (in order, at a new port of that switch,
// on a link of one flit per cycle with the given latencies) and routes to them the way the
// topology's routes were computed, keeping every existing route. Returns the first new endpoint's
// id. A switch that has no path to a new endpoint (another plane) gets no route to it.
int attach_endpoints(Topology& t, const std::vector<int>& at_switch, int latency_cycles, int credit_delay_cycles);

// network/deadlock_check.cpp: a cycle in the channel dependency graph of the routing (per VC
// class, datelines moving packets to the upper class), as "sw0.p9 -> sw1.p9 -> ... -> sw0.p9";
// "" when there is none. With `next_begin` / `next_ports` (a route change, in the layout of
// route_begin / route_ports), the graph of the change itself: a packet routed by t's routes so far
// may take the new routes at any switch from then on.
std::string find_routing_cycle(const Topology& t, const std::vector<uint32_t>* next_begin = nullptr,
                               const std::vector<uint16_t>* next_ports = nullptr);

}  // namespace upswitch::network
