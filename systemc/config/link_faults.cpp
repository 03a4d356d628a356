// faults.link_errors, faults.link_down and faults.credit_loss: parsed, checked against the
// switch and link.dl.*, and resolved into one core::LinkFaults per link direction.
#include "config/link_faults.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include "config/value_parse.h"

namespace upswitch::config {
namespace {

[[noreturn]] void fail(const std::string& msg) { throw ConfigError(msg); }

struct Where {
  int port = 0;  // the accelerator link: its endpoint port in Topology order (one switch: the port)
  int dirs = 3;  // bit 0: up (accelerator -> switch), bit 1: down
};

// How the link keys name accelerator links: on one switch by port ("PORT"), on any topology by
// link id, "epE.pK" (accelerator E's port K) or "swS.pQ" (a switch port whose link leads to an
// accelerator). Links between switches carry no DL layer or faults in this version.
class LinkNames {
 public:
  explicit LinkNames(const Config& c) : c_(c), t_(c.network()) {}
  int count() const { return c_.single_switch() ? c_.sw.ports : t_.endpoint_ports(); }
  std::string allowed() const {
    if (c_.single_switch()) return "PORT 0 .. " + std::to_string(count() - 1) + " (or its link id, ep3.p0 or sw0.p3)";
    return "LINK an accelerator link's id: epE.pK (accelerator 0 .. " + std::to_string(t_.num_endpoints() - 1) +
           ", its port K) or swS.pQ (the switch end)";
  }
  // The link's index, or -1 with `why` set.
  int parse(const std::string& text, std::string& why) const {
    if (!text.empty() && text.size() <= 6 && std::all_of(text.begin(), text.end(), ::isdigit)) {
      const int port = std::stoi(text);
      if (c_.single_switch() && port < count()) return port;
      why = c_.single_switch() ? "port " + text + " is not on the switch"
                               : "a plain port number names a link only with topology.kind = single";
      return -1;
    }
    network::PortRef r;
    if (!network::PortRef::parse(text, r)) {
      why = "'" + text + "' is not a link id";
      return -1;
    }
    if (r.is_switch) {
      if (r.id >= t_.num_switches() || r.port >= t_.switches[static_cast<size_t>(r.id)].ports) {
        why = text + " is not a port of the topology";
        return -1;
      }
      const network::PortRef peer = t_.peer(r);
      if (peer == r || peer.is_switch) {
        why = peer == r ? text + " is not connected"
                        : text + " is a link between switches (to " + peer.name() +
                              "); link faults and the DL layer apply to accelerator links in this version";
        return -1;
      }
      r = peer;
    }
    if (r.id >= t_.num_endpoints() || r.port >= t_.endpoints[static_cast<size_t>(r.id)].ports) {
      why = text + " is not a port of the topology";
      return -1;
    }
    return t_.endpoint_first_port(r.id) + r.port;
  }

 private:
  const Config& c_;
  const network::Topology& t_;
};

// "LINK", "LINK:up" or "LINK:down" (`need_dir`: the direction is required).
bool parse_where(const std::string& text, const LinkNames& names, bool need_dir, Where& w, std::string& why) {
  const size_t colon = text.find(':');
  w.port = names.parse(trim(text.substr(0, colon)), why);
  if (w.port < 0) return false;
  if (colon == std::string::npos) return !need_dir;
  const std::string dir = trim(text.substr(colon + 1));
  if (dir == "up") w.dirs = 1;
  else if (dir == "down") w.dirs = 2;
  else return false;
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

void for_dirs(std::vector<core::LinkFaults>& f, const Where& w, const std::function<void(core::LinkFaults&)>& fn) {
  if (w.dirs & 1) fn(f[static_cast<size_t>(2 * w.port)]);
  if (w.dirs & 2) fn(f[static_cast<size_t>(2 * w.port + 1)]);
}

}  // namespace

void resolve_link_faults(Config& c) {
  const LinkNames names(c);
  const int n = names.count();
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
    const std::string allowed = (c.single_switch() ? "PORT" : "LINK") + std::string("[:up|:down]=RATE,... with ") +
                                ports + " and RATE 0 .. 0.5";
    if (!c.dl.enable) fail("faults.link_errors = '" + c.link_errors_text + "': needs link.dl.enable = true");
    for (const std::string& item : split_list(c.link_errors_text)) {
      const size_t eq = item.find('=');
      Where w;
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
      Where w;
      std::string why;
      if (at == std::string::npos || dash == std::string::npos ||
          !parse_where(item.substr(0, at), names, false, w, why) || w.dirs != 3)
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
               (c.single_switch() ? "port " + std::to_string(l / 2) : "one link") + " overlap; expected disjoint intervals");
    }
  }
  if (!trim(c.credit_loss_text).empty()) {
    const std::string allowed = (c.single_switch() ? "PORT" : "LINK") + std::string(":up|down@NS,... with ") + ports;
    for (const std::string& item : split_list(c.credit_loss_text)) {
      const size_t at = item.find('@');
      Where w;
      std::string why;
      if (at == std::string::npos || !parse_where(item.substr(0, at), names, true, w, why))
        fail("faults.credit_loss = '" + c.credit_loss_text + "': " + bad_item(item, why) + "; expected " + allowed);
      const uint64_t t = ns_to_cycles("faults.credit_loss", item.substr(at + 1), c.clock_ghz, allowed);
      // A link's credits travel back on it (core/link.h): `up` = the switch's credits to the accelerator.
      for_dirs(c.link_faults, w, [&](core::LinkFaults& f) { f.credit_losses.push_back(t); });
    }
    for (auto& f : c.link_faults) std::sort(f.credit_losses.begin(), f.credit_losses.end());
  }
}

}  // namespace upswitch::config
