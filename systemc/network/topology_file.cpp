// The topology file (topology.kind = file): switches, endpoints, links and routing in YAML, every
// error one line naming the file, the item and what is allowed. Format: doc/topology.md.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "network/topology.h"

namespace upswitch::network {
namespace {

class FileParser {
 public:
  FileParser(const std::string& file, const LinkDefaults& d) : file_(file), d_(d) {}

  // Every error names the file and the line of the item: "FILE:LINE: ITEM: WHAT".
  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    std::string msg = file_ + ":" + std::to_string(line_ > 0 ? line_ : 1) + ": " + (where.empty() ? "" : where + ": ") + what;
    for (char& ch : msg)
      if (ch == '\n' || ch == '\r') ch = ' ';
    throw TopologyError(msg);
  }

  void only_keys(const YAML::Node& map, const std::string& where, const std::set<std::string>& allowed) const {
    for (const auto& kv : map) {
      const std::string k = kv.first.as<std::string>();
      if (!allowed.count(k)) {
        std::string list;
        for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
        fail(where, "unknown key '" + k + "'; expected " + list);
      }
    }
  }

  // Makes `n`'s line the one errors name (yaml-cpp counts from 0).
  void at(const YAML::Node& n) {
    if (n && n.Mark().line >= 0) line_ = n.Mark().line + 1;
  }

  long integer(const YAML::Node& n, const std::string& where, long lo, long hi) const {
    if (!n || !n.IsScalar()) fail(where, "expected an integer " + std::to_string(lo) + " .. " + std::to_string(hi));
    const std::string s = n.Scalar();
    char* end = nullptr;
    const long v = std::strtol(s.c_str(), &end, 10);
    if (s.empty() || *end != '\0' || v < lo || v > hi)
      fail(where, "'" + s + "': expected an integer " + std::to_string(lo) + " .. " + std::to_string(hi));
    return v;
  }

  double number(const YAML::Node& n, const std::string& where, double lo, double hi) const {
    const std::string s = n.IsScalar() ? n.Scalar() : "";
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (s.empty() || *end != '\0' || !(v >= lo && v <= hi))
      fail(where, "'" + s + "': expected a number " + std::to_string(lo) + " .. " + std::to_string(hi));
    return v;
  }

  // "switch 3:7" or "endpoint 0:1".
  PortRef end(const YAML::Node& n, const std::string& where) const {
    const std::string s = n.IsScalar() ? n.Scalar() : "";
    std::istringstream in(s);
    std::string kind, rest;
    in >> kind >> rest;
    const size_t colon = rest.find(':');
    PortRef r;
    if ((kind != "switch" && kind != "endpoint") || colon == std::string::npos || !(in >> std::ws).eof())
      fail(where, "'" + s + "': expected \"switch ID:PORT\" or \"endpoint ID:PORT\"");
    r.is_switch = kind == "switch";
    r.id = static_cast<int>(integer(YAML::Node(rest.substr(0, colon)), where, 0, 65535));
    r.port = static_cast<int>(integer(YAML::Node(rest.substr(colon + 1)), where, 0, 65535));
    const auto& count = r.is_switch ? switches_ : endpoints_;
    if (r.id >= count)
      fail(where, "unknown " + kind + " " + std::to_string(r.id) + " (" + (r.is_switch ? "switches" : "endpoints") +
                      " are 0 .. " + std::to_string(count - 1) + ")");
    return r;
  }

  Topology parse(const std::string& text) {
    YAML::Node root;
    try {
      root = YAML::Load(text);
    } catch (const YAML::Exception& e) {
      line_ = e.mark.line >= 0 ? e.mark.line + 1 : 1;
      fail("", "not valid YAML: " + e.msg);
    }
    at(root);
    if (!root.IsMap()) fail("", "expected a map with switches, endpoints, links and routing");
    only_keys(root, "", {"switches", "endpoints", "links", "routing"});
    Topology t;
    t.kind = TopologyKind::kFile;
    t.name = file_;
    // Switches and endpoints: dense ids 0 .. N-1, each once.
    auto items = [&](const char* key, auto&& add) {
      const YAML::Node list = root[key];
      at(list);
      if (!list || !list.IsSequence() || list.size() == 0) fail(key, "expected a non-empty list");
      const size_t most = std::string(key) == "switches" ? kMaxFileSwitches : kMaxFileEndpoints;
      if (list.size() > most)
        fail(key, std::to_string(list.size()) + " items: expected at most " + std::to_string(most) +
                      " (the topology file's limit, doc/topology.md)");
      std::vector<char> seen(list.size(), 0);
      for (size_t i = 0; i < list.size(); ++i) {
        const std::string where = std::string(key) + "[" + std::to_string(i) + "]";
        at(list[i]);
        if (!list[i].IsMap()) fail(where, "expected a map such as {id: 0, ports: 4}");
        const auto id = static_cast<size_t>(integer(list[i]["id"], where + ": id", 0, static_cast<long>(list.size()) - 1));
        if (seen[id]) fail(where, "id " + std::to_string(id) + " given twice");
        seen[id] = 1;
        add(list[i], where, id);
      }
    };
    t.switches.resize(root["switches"] && root["switches"].IsSequence() ? root["switches"].size() : 0);
    std::vector<int> switch_line(t.switches.size(), 1), endpoint_line;
    items("switches", [&](const YAML::Node& n, const std::string& where, size_t id) {
      only_keys(n, where, {"id", "ports", "level", "reduce_units", "reduce_contexts"});
      SwitchSpec s;
      s.ports = static_cast<int>(integer(n["ports"], where + ": ports", 1, d_.switch_radix));
      s.level = n["level"] ? static_cast<int>(integer(n["level"], where + ": level", 0, 15)) : -1;
      if (n["reduce_units"]) s.reduce_units = static_cast<int>(integer(n["reduce_units"], where + ": reduce_units", 0, 1024));
      if (n["reduce_contexts"])
        s.reduce_contexts = static_cast<int>(integer(n["reduce_contexts"], where + ": reduce_contexts", 1, 65535));
      t.switches[id] = s;
      switch_line[id] = line_;
    });
    t.endpoints.resize(root["endpoints"] && root["endpoints"].IsSequence() ? root["endpoints"].size() : 0);
    endpoint_line.assign(t.endpoints.size(), 1);
    items("endpoints", [&](const YAML::Node& n, const std::string& where, size_t id) {
      only_keys(n, where, {"id", "ports"});
      t.endpoints[id] = EndpointSpec{static_cast<int>(integer(n["ports"], where + ": ports", 1, 64))};
      endpoint_line[id] = line_;
    });
    switches_ = t.num_switches();
    endpoints_ = t.num_endpoints();
    if (t.switches.size() * t.endpoints.size() > kMaxFileRouteSets)
      fail("endpoints", std::to_string(t.switches.size()) + " switches x " + std::to_string(t.endpoints.size()) +
                            " endpoints: expected at most " + std::to_string(kMaxFileRouteSets) +
                            " route sets (switches x endpoints, the topology file's limit, doc/topology.md)");
    const YAML::Node links = root["links"];
    at(links);
    if (!links || !links.IsSequence() || links.size() == 0) fail("links", "expected a non-empty list");
    // The link at each port so far, to name both lines of a port used twice.
    std::map<std::pair<int, int>, size_t> switch_used, endpoint_used;
    std::vector<int> link_line;
    for (size_t i = 0; i < links.size(); ++i) {
      const std::string where = "links[" + std::to_string(i) + "]";
      const YAML::Node l = links[i];
      at(l);
      link_line.push_back(line_);
      if (!l.IsSequence() || l.size() < 2 || l.size() > 3)
        fail(where, "expected [END, END] or [END, END, {latency_cycles: N, ...}] (a link joins two ends)");
      LinkSpec ls;
      ls.a = end(l[0], where);
      ls.b = end(l[1], where);
      if (ls.a == ls.b) fail(where, "a link from port " + ls.a.name() + " to itself; expected two different ports");
      if (!ls.a.is_switch && !ls.b.is_switch)
        fail(where, "joins two endpoints (" + ls.a.name() + ", " + ls.b.name() + "); expected a switch at one end at least");
      for (const PortRef& r : {ls.a, ls.b}) {
        const int ports = r.is_switch ? t.switches[static_cast<size_t>(r.id)].ports : t.endpoints[static_cast<size_t>(r.id)].ports;
        if (r.port >= ports)
          fail(where, "port " + r.name() + " does not exist (" + (r.is_switch ? "switch " : "endpoint ") +
                          std::to_string(r.id) + " has ports 0 .. " + std::to_string(ports - 1) + ")");
        auto& used = r.is_switch ? switch_used : endpoint_used;
        const auto [it, fresh] = used.emplace(std::make_pair(r.id, r.port), i);
        if (!fresh)
          fail(where, "port " + r.name() + " is used by two links (links[" + std::to_string(it->second) + "] at line " +
                          std::to_string(link_line[it->second]) + " and this one)");
      }
      const bool inter = ls.a.is_switch && ls.b.is_switch;
      ls.latency_cycles = inter ? d_.inter_switch_latency_cycles : d_.latency_cycles;
      ls.credit_delay_cycles = inter ? d_.inter_switch_credit_delay_cycles : d_.credit_delay_cycles;
      ls.gbytes_per_s = inter ? d_.inter_switch_gbytes_per_s : d_.gbytes_per_s;
      if (l.size() == 3) {
        const YAML::Node o = l[2];
        if (!o.IsMap()) fail(where, "the third item must be a map of link options");
        only_keys(o, where, {"latency_cycles", "credit_delay_cycles", "gbytes_per_s", "dateline"});
        if (o["latency_cycles"]) ls.latency_cycles = static_cast<int>(integer(o["latency_cycles"], where + ": latency_cycles", 1, 1000000));
        if (o["credit_delay_cycles"])
          ls.credit_delay_cycles = static_cast<int>(integer(o["credit_delay_cycles"], where + ": credit_delay_cycles", 1, 1000000));
        if (o["gbytes_per_s"]) ls.gbytes_per_s = number(o["gbytes_per_s"], where + ": gbytes_per_s", 0, 1e6);
        if (o["dateline"]) {
          const std::string v = o["dateline"].IsScalar() ? o["dateline"].Scalar() : "";
          if (v != "true" && v != "false") fail(where, "dateline: '" + v + "': expected true or false");
          ls.dateline = v == "true";
          if (ls.dateline && !inter) fail(where, "dateline: only a link between two switches can be a dateline");
          if (ls.dateline) t.vc_classes = 2;
        }
      }
      t.links.push_back(ls);
    }
    // Every port in use has a link: a switch's `ports` are the ports it uses.
    for (size_t e = 0; e < t.endpoints.size(); ++e)
      for (int k = 0; k < t.endpoints[e].ports; ++k)
        if (!endpoint_used.count({static_cast<int>(e), k})) {
          line_ = endpoint_line[e];
          fail("endpoints[" + std::to_string(e) + "]", "port " + PortRef{false, static_cast<int>(e), k}.name() +
                                                         " is not connected; every endpoint port needs a link");
        }
    for (size_t s = 0; s < t.switches.size(); ++s)
      for (int q = 0; q < t.switches[s].ports; ++q)
        if (!switch_used.count({static_cast<int>(s), q})) {
          line_ = switch_line[s];
          fail("switches[" + std::to_string(s) + "]",
               "port " + PortRef{true, static_cast<int>(s), q}.name() + " is not connected; expected a link at each of its " +
                   std::to_string(t.switches[s].ports) + " ports (ports: the ports in use), or fewer ports");
        }
    try {
      t.finish();
    } catch (const TopologyError& e) {
      std::string m = e.what();
      const std::string prefix = "topology: ";
      fail("", m.rfind(prefix, 0) == 0 ? m.substr(prefix.size()) : m);
    }
    number_planes(t);
    line_ = 1;
    if (root["routing"]) at(root["routing"]);
    t.file_routing_line = line_;
    routing(root["routing"], t);
    return t;
  }

  // A file's planes are its connected groups of switches (numbered by their lowest switch id), so
  // a file can describe parallel planes as the planes kind builds them: what holds per plane
  // (faults.port_down's rule, the engine's planes) holds per group.
  static void number_planes(Topology& t) {
    std::vector<int> plane(t.switches.size(), -1);
    int planes = 0;
    for (size_t first = 0; first < t.switches.size(); ++first) {
      if (plane[first] >= 0) continue;
      std::vector<int> todo{static_cast<int>(first)};
      plane[first] = planes;
      while (!todo.empty()) {
        const int s = todo.back();
        todo.pop_back();
        for (int q = 0; q < t.switches[static_cast<size_t>(s)].ports; ++q) {
          const PortRef p = t.peer(PortRef{true, s, q});
          if (p.is_switch && plane[static_cast<size_t>(p.id)] < 0) {
            plane[static_cast<size_t>(p.id)] = planes;
            todo.push_back(p.id);
          }
        }
      }
      ++planes;
    }
    for (size_t s = 0; s < t.switches.size(); ++s) t.switches[s].plane = plane[s];
  }

  void routing(const YAML::Node& r, Topology& t) const {
    const std::string kinds = "shortest_path, up_down, or {tables: {SWITCH: {ENDPOINT: [PORT, ...]}}}";
    if (!r || (r.IsScalar() && r.Scalar() == "shortest_path")) {
      compute_routes(t, false);
      return;
    }
    if (r.IsScalar() && r.Scalar() == "up_down") {
      for (int s = 0; s < t.num_switches(); ++s)
        if (t.switches[static_cast<size_t>(s)].level < 0)
          fail("switches[" + std::to_string(s) + "]", "routing: up_down needs a level for every switch");
      compute_routes(t, true);
      return;
    }
    if (!r.IsMap() || !r["tables"]) fail("routing", "expected " + kinds);
    only_keys(r, "routing", {"tables"});
    const YAML::Node tables = r["tables"];
    if (!tables.IsMap()) fail("routing.tables", "expected a map SWITCH: {ENDPOINT: [PORT, ...]}");
    std::vector<std::vector<std::vector<uint16_t>>> sets(
        t.switches.size(), std::vector<std::vector<uint16_t>>(t.endpoints.size()));
    for (const auto& sw : tables) {
      const std::string sw_where = "routing.tables";
      const auto s = static_cast<size_t>(integer(sw.first, sw_where + ": switch", 0, t.num_switches() - 1));
      if (!sw.second.IsMap()) fail(sw_where + "." + std::to_string(s), "expected a map ENDPOINT: [PORT, ...]");
      for (const auto& de : sw.second) {
        const std::string where = sw_where + "." + std::to_string(s);
        const auto d = static_cast<size_t>(integer(de.first, where + ": endpoint", 0, t.num_endpoints() - 1));
        const std::string w2 = where + "." + std::to_string(d);
        const YAML::Node ports = de.second;
        if (!ports.IsSequence() || ports.size() == 0) fail(w2, "expected a non-empty list of ports");
        for (size_t k = 0; k < ports.size(); ++k)
          sets[s][d].push_back(static_cast<uint16_t>(integer(ports[k], w2, 0, t.switches[s].ports - 1)));
        std::sort(sets[s][d].begin(), sets[s][d].end());
        sets[s][d].erase(std::unique(sets[s][d].begin(), sets[s][d].end()), sets[s][d].end());
      }
    }
    t.route_tables = true;
    t.route_begin.assign(1, 0);
    t.route_ports.clear();
    for (auto& per_switch : sets)
      for (auto& set : per_switch) {
        t.route_ports.insert(t.route_ports.end(), set.begin(), set.end());
        t.route_begin.push_back(static_cast<uint32_t>(t.route_ports.size()));
      }
  }

 private:
  std::string file_;
  LinkDefaults d_;
  int switches_ = 0, endpoints_ = 0;
  int line_ = 1;  // the line errors name
};

}  // namespace

Topology parse_topology_file(const std::string& text, const std::string& file, const LinkDefaults& links) {
  try {
    return FileParser(file, links).parse(text);
  } catch (const YAML::Exception& e) {
    std::string msg = "topology.file '" + file + "': " + e.msg;
    for (char& ch : msg)
      if (ch == '\n') ch = ' ';
    throw TopologyError(msg);
  }
}

}  // namespace upswitch::network
