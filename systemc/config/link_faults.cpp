// faults.link_errors, faults.link_down and faults.credit_loss: parsed, checked against the
// switch and link.dl.*, and resolved into one core::LinkFaults per link direction.
#include "config/link_faults.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "config/value_parse.h"
#include "network/reroute.h"

namespace upswitch::config {
namespace {

[[noreturn]] void fail(const std::string& msg) { throw ConfigError(msg); }

struct Where {
  int slot = 0;  // config/link_faults.h: an accelerator port's link, or a link between switches
  int dirs = 3;  // bit 0: dir 0 (up, or a -> b), bit 1: dir 1 (down, or b -> a)
};

// How the link keys name links: on one switch by port ("PORT"); on any topology by link id,
// "epE.pK" (accelerator E's port K) or "swS.pQ" (a switch port: the switch end of an accelerator
// link, or one end of a link between switches), or by class: "accelerators" (every accelerator
// link) or "switches" (every link between switches).
class LinkNames {
 public:
  explicit LinkNames(const Config& c) : c_(c), t_(c.network()) {}
  int count() const { return c_.single_switch() ? c_.sw.ports : t_.endpoint_ports(); }
  int slots() const { return count() + (c_.single_switch() ? 0 : static_cast<int>(t_.links.size())); }
  std::string allowed() const {
    if (c_.single_switch()) return "PORT 0 .. " + std::to_string(count() - 1) + " (or its link id, ep3.p0 or sw0.p3)";
    return "LINK a link id: epE.pK (accelerator 0 .. " + std::to_string(t_.num_endpoints() - 1) +
           ", its port K) or swS.pQ (switch S's port Q), or a class: accelerators, switches";
  }
  // The links a name covers (slot, and for a link between switches the direction leaving the named
  // end: 1 = a -> b, 2 = b -> a; 0 for accelerator links), or {} with `why` set.
  std::vector<std::pair<int, int>> parse(const std::string& text, std::string& why) const {
    if (text == "accelerators" || text == "switches") {
      std::vector<std::pair<int, int>> all;
      if (text == "accelerators") {
        for (int p = 0; p < count(); ++p) all.emplace_back(p, 0);
      } else if (!c_.single_switch()) {
        for (size_t l = 0; l < t_.links.size(); ++l)
          if (t_.links[l].a.is_switch && t_.links[l].b.is_switch) all.emplace_back(switch_link_slot(c_, static_cast<int>(l)), 0);
      }
      if (all.empty()) why = "this topology has no links between switches";
      return all;
    }
    if (!text.empty() && text.size() <= 6 && std::all_of(text.begin(), text.end(), ::isdigit)) {
      const int port = std::stoi(text);
      if (c_.single_switch() && port < count()) return {{port, 0}};
      why = c_.single_switch() ? "port " + text + " is not on the switch"
                               : "a plain port number names a link only with topology.kind = single";
      return {};
    }
    network::PortRef r;
    if (!network::PortRef::parse(text, r)) {
      why = "'" + text + "' is not a link id";
      return {};
    }
    if (r.is_switch) {
      if (r.id >= t_.num_switches() || r.port >= t_.switches[static_cast<size_t>(r.id)].ports) {
        why = text + " is not a port of the topology";
        return {};
      }
      const network::PortRef peer = t_.peer(r);
      if (peer == r) {
        why = text + " is not connected";
        return {};
      }
      if (peer.is_switch) {
        for (size_t l = 0; l < t_.links.size(); ++l)
          if (t_.links[l].a == r || t_.links[l].b == r)
            return {{switch_link_slot(c_, static_cast<int>(l)), t_.links[l].a == r ? 1 : 2}};
      }
      r = peer;
    }
    if (r.id >= t_.num_endpoints() || r.port >= t_.endpoints[static_cast<size_t>(r.id)].ports) {
      why = text + " is not a port of the topology";
      return {};
    }
    return {{t_.endpoint_first_port(r.id) + r.port, 0}};
  }

 private:
  const Config& c_;
  const network::Topology& t_;
};

// "LINK", "LINK:up" or "LINK:down" for accelerator links, "LINK:out" or "LINK:in" (leaving or
// arriving at the named switch port) for links between switches (`need_dir`: a direction is
// required, and a class is not allowed). One Where per link named.
bool parse_where(const std::string& text, const LinkNames& names, bool need_dir, std::vector<Where>& out,
                 std::string& why) {
  const size_t colon = text.find(':');
  const std::string name = trim(text.substr(0, colon));
  const std::vector<std::pair<int, int>> links = names.parse(name, why);
  if (links.empty()) return false;
  const bool is_class = name == "accelerators" || name == "switches";
  if (colon == std::string::npos) {
    if (need_dir) why = is_class ? "name one link, with its direction" : "";
    for (const auto& [slot, leaving] : links) out.push_back(Where{slot, 3});
    return !need_dir;
  }
  if (is_class) {
    why = "a class takes no direction";
    return false;
  }
  const std::string dir = trim(text.substr(colon + 1));
  const auto [slot, leaving] = links.front();
  if (leaving == 0) {  // an accelerator link
    if (dir != "up" && dir != "down") {
      why = "an accelerator link's direction is up or down";
      return false;
    }
    out.push_back(Where{slot, dir == "up" ? 1 : 2});
    return true;
  }
  if (dir != "out" && dir != "in") {
    why = name + " is a link between switches: its direction is out (leaving " + name + ") or in";
    return false;
  }
  out.push_back(Where{slot, dir == "out" ? leaving : 3 - leaving});
  return true;
}

// "bad item 'X' (why); expected ..." for one item of a link key.
std::string bad_item(const std::string& item, const std::string& why) {
  return "bad item '" + item + "'" + (why.empty() ? std::string() : " (" + why + ")");
}

uint64_t ns_to_cycles(const char* key, const std::string& text, double clock_ghz, const std::string& allowed) {
  double ns = 0;
  try {
    ns = parse_float(key, text, 0.0, 1e12);
  } catch (const ConfigError&) {
    fail(std::string(key) + ": '" + text + "' is not a time; expected " + allowed);
  }
  return static_cast<uint64_t>(std::llround(ns * clock_ghz));
}

void for_dirs(std::vector<core::LinkFaults>& f, const std::vector<Where>& where,
              const std::function<void(core::LinkFaults&)>& fn) {
  for (const Where& w : where) {
    if (w.dirs & 1) fn(f[static_cast<size_t>(2 * w.slot)]);
    if (w.dirs & 2) fn(f[static_cast<size_t>(2 * w.slot + 1)]);
  }
}

}  // namespace

std::vector<std::vector<core::DownInterval>> switch_links_down(const Config& c) {
  const network::Topology& t = c.network();
  std::vector<std::vector<core::DownInterval>> down(t.links.size());
  if (c.link_faults.empty()) return down;
  for (size_t l = 0; l < t.links.size(); ++l)
    if (t.links[l].inter_switch())
      down[l] = c.link_faults[static_cast<size_t>(2 * switch_link_slot(c, static_cast<int>(l)))].down;
  return down;
}

void resolve_link_faults(Config& c) {
  const LinkNames names(c);
  const int n = names.slots();
  const std::string ports = names.allowed();
  c.link_faults.clear();
  const bool any = !trim(c.link_errors_text).empty() || !trim(c.link_down_text).empty() ||
                   !trim(c.credit_loss_text).empty();
  if (c.dl.enable) {
    if (c.dl.payload_bytes >= c.dl.flit_bytes)
      fail("link.dl.payload_bytes = " + std::to_string(c.dl.payload_bytes) + ": expected less than link.dl.flit_bytes = " +
           std::to_string(c.dl.flit_bytes) + " (the DL flit also holds its header and CRC)");
    if (c.dl.payload_bytes < c.flit_bytes)
      fail("link.dl.payload_bytes = " + std::to_string(c.dl.payload_bytes) + ": expected at least switch.flit_bytes = " +
           std::to_string(c.flit_bytes));
    const int min_fifo = (c.dl.payload_bytes + c.flit_bytes - 1) / c.flit_bytes + 1;
    if (c.dl.tx_fifo_flits < min_fifo)
      fail("link.dl.tx_fifo_flits = " + std::to_string(c.dl.tx_fifo_flits) + ": expected at least " +
           std::to_string(min_fifo) + " (one DL flit's worth of TL flits plus one)");
    if (c.dl.flit_error_rate > 0 && c.dl.bit_error_rate > 0)
      fail("link.dl.bit_error_rate = " + format_float(c.dl.bit_error_rate) + " with link.dl.flit_error_rate = " +
           format_float(c.dl.flit_error_rate) + ": expected at most one of them non-zero");
  }
  if (!any) return;
  c.link_faults.assign(static_cast<size_t>(2 * n), core::LinkFaults{});

  if (!trim(c.link_errors_text).empty()) {
    const std::string allowed = (c.single_switch() ? "PORT[:up|:down]" : "LINK[:up|:down|:out|:in]") +
                                std::string("=RATE,... with ") + ports + " and RATE 0 .. 0.5";
    if (!c.dl.enable) fail("faults.link_errors = '" + c.link_errors_text + "': needs link.dl.enable = true");
    for (const std::string& item : split_list(c.link_errors_text)) {
      const size_t eq = item.find('=');
      std::vector<Where> w;
      std::string why;
      if (eq == std::string::npos || !parse_where(item.substr(0, eq), names, false, w, why))
        fail("faults.link_errors = '" + c.link_errors_text + "': " + bad_item(item, why) + "; expected " + allowed);
      double rate = 0;
      try {
        rate = parse_float("faults.link_errors", item.substr(eq + 1), 0.0, 0.5);
      } catch (const ConfigError&) {
        fail("faults.link_errors = '" + c.link_errors_text + "': bad rate in '" + item + "'; expected " + allowed);
      }
      for_dirs(c.link_faults, w, [&](core::LinkFaults& f) { f.flit_error_rate = rate; });
    }
  }
  if (!trim(c.link_down_text).empty()) {
    const std::string allowed = (c.single_switch() ? "PORT" : "LINK") + std::string("@START_NS-END_NS,... with ") +
                                ports + " and START < END";
    if (!c.dl.enable) fail("faults.link_down = '" + c.link_down_text + "': needs link.dl.enable = true");
    for (const std::string& item : split_list(c.link_down_text)) {
      const size_t at = item.find('@');
      const size_t dash = at == std::string::npos ? at : item.find('-', at + 1);
      std::vector<Where> w;
      std::string why;
      if (at == std::string::npos || dash == std::string::npos ||
          !parse_where(item.substr(0, at), names, false, w, why) ||
          std::any_of(w.begin(), w.end(), [](const Where& x) { return x.dirs != 3; }))
        fail("faults.link_down = '" + c.link_down_text + "': " + bad_item(item, why) + "; expected " + allowed);
      const uint64_t b = ns_to_cycles("faults.link_down", item.substr(at + 1, dash - at - 1), c.clock_ghz, allowed);
      const uint64_t e = ns_to_cycles("faults.link_down", item.substr(dash + 1), c.clock_ghz, allowed);
      if (b >= e)
        fail("faults.link_down = '" + c.link_down_text + "': '" + item + "' ends before it starts (in whole cycles); "
             "expected " + allowed);
      for_dirs(c.link_faults, w, [&](core::LinkFaults& f) { f.down.push_back(core::DownInterval{b, e}); });
    }
    for (size_t l = 0; l < c.link_faults.size(); ++l) {
      auto& d = c.link_faults[l].down;
      std::sort(d.begin(), d.end(), [](const auto& x, const auto& y) { return x.begin < y.begin; });
      for (size_t i = 1; i < d.size(); ++i)
        if (d[i].begin < d[i - 1].end)
          fail("faults.link_down = '" + c.link_down_text + "': two intervals of " +
               (c.single_switch() ? "port " + std::to_string(l / 2) : std::string("one link")) +
               " overlap; expected disjoint intervals");
    }
    if (!c.single_switch()) {  // the routes around links between switches, checked for deadlock
      try {
        (void)network::plan_reroutes(c.network(), switch_links_down(c));
      } catch (const network::TopologyError& e) {
        fail("faults.link_down = '" + c.link_down_text + "': " + e.what() +
             "; expected intervals whose routes around them keep the channel dependencies acyclic");
      }
    }
  }
  if (!trim(c.credit_loss_text).empty()) {
    const std::string allowed = (c.single_switch() ? "PORT:up|down" : "LINK:up|down (an accelerator link) or LINK:out|in (a link between switches)") +
                                std::string("@NS,... with ") + ports;
    for (const std::string& item : split_list(c.credit_loss_text)) {
      const size_t at = item.find('@');
      std::vector<Where> w;
      std::string why;
      if (at == std::string::npos || !parse_where(item.substr(0, at), names, true, w, why))
        fail("faults.credit_loss = '" + c.credit_loss_text + "': " + bad_item(item, why) + "; expected " + allowed);
      const uint64_t t = ns_to_cycles("faults.credit_loss", item.substr(at + 1), c.clock_ghz, allowed);
      // A link's credits travel back on it (core/link.h): `up` = the switch's credits to the
      // accelerator; `out` = the credits the named switch port receives for what it sends.
      for_dirs(c.link_faults, w, [&](core::LinkFaults& f) { f.credit_losses.push_back(t); });
    }
    for (auto& f : c.link_faults) std::sort(f.credit_losses.begin(), f.credit_losses.end());
  }
}

}  // namespace upswitch::config
