// The partition and port-fault keys (partition.*, faults.port_down, endpoint.completion_timeout_ns;
// doc/reliability.md), declared once like every other key, and their checks.
#include "config/fault_params.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "config/param_builders.h"
#include "config/value_parse.h"

namespace upswitch::config {

void add_fault_params(std::vector<ParamSpec>& t) {
  using namespace builders;  // NOLINT: the builders are this file's vocabulary
  t.push_back(int_list_param(
      "partition.pods", [](Config& c) -> std::vector<int>& { return c.faults.pods; }, "[]", 0, 1023,
      "Transactions: the virtual pod (UALink vPod, facts 1.11) of each accelerator, in id order (on one switch, "
      "its port); empty = one pod. Every switch rejects a request to an accelerator of another pod with "
      "protection_violation, and the reduction engine a multicast operation whose group leaves the requester's pod."));
  t.push_back(text_param(
      "faults.port_down", [](Config& c) -> std::string& { return c.port_down_text; }, "",
      "PORT@START_NS[-END_NS],... or ''",
      "Transactions: switch ports taken down, each from START_NS to END_NS (or for good), ns rounded to core "
      "cycles. Requests to a down port get target_abort from the switch; its traffic and the responses to it "
      "are dropped. Needs endpoint.completion_timeout_ns."));
  t.push_back(text_param(
      "faults.switch_down", [](Config& c) -> std::string& { return c.switch_down_text; }, "",
      "SWITCH@NS,... or ''",
      "A network's switches taken out of service at NS (rounded to core cycles), for transactions and packets. "
      "From then on the endpoints send nothing new into them (they spread their traffic over their other ports; "
      "an accelerator first waits until its requests in flight are answered) and their neighbours route around "
      "them; what is already in them drains, so nothing is lost. Every endpoint must keep a port, and every "
      "other switch a route."));
  t.push_back(float_param(
      "endpoint.completion_timeout_ns", [](Config& c) -> double& { return c.completion_timeout_ns; }, 0.0, 0.0, 1e9,
      "ns",
      "Transactions: a request unanswered this long after it was issued completes with completion_timeout (its "
      "late response is dropped and counted); 0 = off."));
}

namespace {

[[noreturn]] void fail(const std::string& msg) { throw ConfigError(msg); }

uint64_t to_cycles(double ns, double clock_ghz) { return static_cast<uint64_t>(std::llround(ns * clock_ghz)); }

// The switch port a faults.port_down item names: on one switch PORT; on a network the switch end
// of an accelerator link, by its id (swS.pQ, or epE.pK for the accelerator's end). Sets `why` and
// returns false for anything else.
bool port_down_place(const Config& c, const std::string& text, core::PortDownWindow& w, std::string& why) {
  if (c.single_switch()) {
    try {
      w.port = w.accel = static_cast<int>(parse_int("faults.port_down", text, 0, c.sw.ports - 1));
    } catch (const ConfigError&) {
      return false;
    }
    return true;
  }
  const network::Topology& t = c.network();
  network::PortRef r;
  if (!network::PortRef::parse(text, r)) {
    why = "'" + text + "' is not a link id";
    return false;
  }
  const bool on_topology = r.is_switch ? r.id < t.num_switches() && r.port < t.switches[static_cast<size_t>(r.id)].ports
                                       : r.id < t.num_endpoints() && r.port < t.endpoints[static_cast<size_t>(r.id)].ports;
  if (!on_topology) {
    why = text + " is not a port of the topology";
    return false;
  }
  const network::PortRef peer = t.peer(r);
  if (peer == r) {
    why = text + " is not connected";
    return false;
  }
  const network::PortRef at = r.is_switch ? r : peer;
  const network::PortRef acc = r.is_switch ? peer : r;
  if (acc.is_switch) {
    why = text + " is a link between switches; take it down with faults.link_down (the DL retrains it) or its "
                 "switch with faults.switch_down";
    return false;
  }
  w.sw = at.id;
  w.port = at.port;
  w.accel = acc.id;
  return true;
}

// faults.port_down: PORT@START_NS[-END_NS],... on one switch, LINK@START_NS[-END_NS],... on a
// network ('' = none).
std::vector<core::PortDownWindow> parse_port_down(const Config& c, const std::string& text, double clock_ghz) {
  std::vector<core::PortDownWindow> out;
  if (trim(text).empty()) return out;
  const std::string allowed =
      c.single_switch()
          ? "PORT@START_NS[-END_NS],... with PORT 0 .. " + std::to_string(c.sw.ports - 1) +
                " and 0 <= START_NS < END_NS (e.g. 5@2000-9000,7@100)"
          : "LINK@START_NS[-END_NS],... with LINK the id of an accelerator link (epE.pK, or swS.pQ its switch end) "
            "and 0 <= START_NS < END_NS (e.g. ep3.p0@2000-9000)";
  std::string why;
  auto bad = [&]() { fail("faults.port_down = '" + text + "': " + (why.empty() ? "" : why + "; ") + "expected " + allowed); };
  std::stringstream ss(text);
  std::string item;
  size_t items = 0;
  while (std::getline(ss, item, ',')) {
    ++items;
    item = trim(item);
    const size_t at = item.find('@');
    if (at == std::string::npos) bad();
    const std::string when = item.substr(at + 1);
    const size_t dash = when.find('-');
    core::PortDownWindow w;
    if (!port_down_place(c, trim(item.substr(0, at)), w, why)) bad();
    try {
      const double start = parse_float("faults.port_down", when.substr(0, dash), 0.0, 1e12);
      w.begin = to_cycles(start, clock_ghz);
      if (dash != std::string::npos) {
        const double end = parse_float("faults.port_down", when.substr(dash + 1), 0.0, 1e12);
        if (end <= start) bad();
        w.end = to_cycles(end, clock_ghz);
        if (w.end <= w.begin) w.end = w.begin + 1;  // a window shorter than a cycle: one cycle
      }
    } catch (const ConfigError&) {
      bad();
    }
    out.push_back(w);
  }
  if (items == 0 || text.back() == ',') bad();
  return out;
}

// faults.switch_down: SWITCH@NS,... ('' = none), by cycle. Each switch at most once.
std::vector<core::SwitchDown> parse_switch_down(const std::string& text, int switches, double clock_ghz) {
  std::vector<core::SwitchDown> out;
  if (trim(text).empty()) return out;
  const std::string allowed = "SWITCH@NS,... with SWITCH 0 .. " + std::to_string(switches - 1) +
                              ", each at most once, and NS >= 0 (e.g. 3@2000)";
  auto bad = [&]() { fail("faults.switch_down = '" + text + "': expected " + allowed); };
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    item = trim(item);
    const size_t at = item.find('@');
    if (at == std::string::npos) bad();
    core::SwitchDown d;
    try {
      d.sw = static_cast<int>(parse_int("faults.switch_down", item.substr(0, at), 0, switches - 1));
      d.at = to_cycles(parse_float("faults.switch_down", item.substr(at + 1), 0.0, 1e12), clock_ghz);
    } catch (const ConfigError&) {
      bad();
    }
    for (const core::SwitchDown& o : out)
      if (o.sw == d.sw) bad();
    out.push_back(d);
  }
  if (out.empty() || text.back() == ',') bad();
  std::stable_sort(out.begin(), out.end(), [](const core::SwitchDown& a, const core::SwitchDown& b) { return a.at < b.at; });
  return out;
}

// Every accelerator keeps a port on a switch in service, and every switch in service keeps a
// route to every accelerator that avoids the switches taken out (routes are not recomputed: the
// equal-cost choices of a two-tier fabric's spines, or the planes, are what remains).
void check_switch_down(const Config& c) {
  const network::Topology& t = c.network();
  std::vector<char> down(static_cast<size_t>(t.num_switches()), 0);
  for (const core::SwitchDown& d : c.faults.switch_down) down[static_cast<size_t>(d.sw)] = 1;
  const std::string key = "faults.switch_down = '" + c.switch_down_text + "': ";
  for (int e = 0; e < t.num_endpoints(); ++e) {
    bool kept = false;
    for (int k = 0; k < t.endpoints[static_cast<size_t>(e)].ports && !kept; ++k)
      kept = !down[static_cast<size_t>(t.peer(network::PortRef{false, e, k}).id)];
    if (!kept)
      fail(key + "accelerator " + std::to_string(e) +
           " would have no port left; expected every accelerator to keep a port on a switch in service");
  }
  for (int s = 0; s < t.num_switches(); ++s) {
    if (down[static_cast<size_t>(s)]) continue;
    for (int e = 0; e < t.num_endpoints(); ++e) {
      if (t.route_count(s, e) == 0) continue;
      bool kept = false;
      for (const uint16_t* q = t.routes_begin(s, e); q != t.routes_end(s, e) && !kept; ++q) {
        const network::PortRef next = t.peer(network::PortRef{true, s, *q});
        kept = !next.is_switch || !down[static_cast<size_t>(next.id)];
      }
      if (!kept)
        fail(key + "switch " + std::to_string(s) + " reaches accelerator " + std::to_string(e) +
             " only through switches taken out; routes are not recomputed, so expected a switch with an "
             "equal-cost alternative (a spine of a two-tier fabric, a plane)");
    }
  }
}

}  // namespace

void resolve_faults(Config& c) {
  const int n = c.sw.ports;
  core::FaultParams& f = c.faults;
  const int accelerators = c.endpoints();  // one per port on one switch
  if (!f.pods.empty() && static_cast<int>(f.pods.size()) != accelerators) {
    std::string list;
    for (size_t k = 0; k < f.pods.size(); ++k) list += (k ? "," : "") + std::to_string(f.pods[k]);
    fail("partition.pods = '" + list + "' has " + std::to_string(f.pods.size()) +
         " entries: expected none (one pod) or one pod id 0 .. 1023 per " +
         (c.single_switch() ? "port (switch.ports = " + std::to_string(n) + ")"
                            : "accelerator (the topology has " + std::to_string(accelerators) + ")"));
  }
  f.port_down = parse_port_down(c, c.port_down_text, c.clock_ghz);
  uint64_t timeout = 0;
  if (c.completion_timeout_ns > 0) timeout = std::max<uint64_t>(1, to_cycles(c.completion_timeout_ns, c.clock_ghz));
  c.accel.completion_timeout_cycles = timeout;
  const bool transactions = c.kind == Config::TrafficKind::kTransactions;
  if (!transactions) {
    if (f.partitioned()) fail("partition.pods: applies to traffic.kind = transactions only (it is packets)");
    if (!f.port_down.empty())
      fail("faults.port_down = '" + c.port_down_text +
           "': applies to traffic.kind = transactions only (it is packets)");
    if (timeout)
      fail("endpoint.completion_timeout_ns = " + format_float(c.completion_timeout_ns) +
           ": applies to traffic.kind = transactions only (it is packets); expected 0");
  }
  f.switch_down.clear();
  if (!trim(c.switch_down_text).empty()) {
    if (c.single_switch())
      fail("faults.switch_down = '" + c.switch_down_text +
           "': takes switches of a network out of service; expected topology.kind planes, two_tier or file "
           "(topology.kind = single has one switch)");
    f.switch_down = parse_switch_down(c.switch_down_text, c.network().num_switches(), c.clock_ghz);
    check_switch_down(c);
  }
  if (!f.port_down.empty() && timeout == 0)
    fail("faults.port_down = '" + c.port_down_text +
         "' with endpoint.completion_timeout_ns = 0: expected a timeout > 0 (requests in flight to or from a down "
         "port are never answered without one)");
}

}  // namespace upswitch::config
