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
  int port = 0;
  int dirs = 3;  // bit 0: up (accelerator -> switch), bit 1: down
};

// "PORT", "PORT:up" or "PORT:down" (`need_dir`: the direction is required).
bool parse_where(const std::string& text, int ports, bool need_dir, Where& w) {
  const size_t colon = text.find(':');
  const std::string port = trim(text.substr(0, colon));
  if (port.empty() || port.size() > 5 || !std::all_of(port.begin(), port.end(), ::isdigit)) return false;
  w.port = std::stoi(port);
  if (w.port >= ports) return false;
  if (colon == std::string::npos) return !need_dir;
  const std::string dir = trim(text.substr(colon + 1));
  if (dir == "up") w.dirs = 1;
  else if (dir == "down") w.dirs = 2;
  else return false;
  return true;
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
  const int n = c.sw.ports;
  const std::string ports = "PORT 0 .. " + std::to_string(n - 1);
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
    const std::string allowed = "PORT[:up|:down]=RATE,... with " + ports + " and RATE 0 .. 0.5";
    if (!c.dl.enable) fail("faults.link_errors = '" + c.link_errors_text + "': needs link.dl.enable = true");
    for (const std::string& item : split_list(c.link_errors_text)) {
      const size_t eq = item.find('=');
      Where w;
      if (eq == std::string::npos || !parse_where(item.substr(0, eq), n, false, w))
        fail("faults.link_errors = '" + c.link_errors_text + "': bad item '" + item + "'; expected " + allowed);
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
    const std::string allowed = "PORT@START_NS-END_NS,... with " + ports + " and START < END";
    if (!c.dl.enable) fail("faults.link_down = '" + c.link_down_text + "': needs link.dl.enable = true");
    for (const std::string& item : split_list(c.link_down_text)) {
      const size_t at = item.find('@');
      const size_t dash = at == std::string::npos ? at : item.find('-', at + 1);
      Where w;
      if (at == std::string::npos || dash == std::string::npos || !parse_where(item.substr(0, at), n, false, w) ||
          w.dirs != 3)
        fail("faults.link_down = '" + c.link_down_text + "': bad item '" + item + "'; expected " + allowed);
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
          fail("faults.link_down = '" + c.link_down_text + "': two intervals of port " + std::to_string(l / 2) +
               " overlap; expected disjoint intervals");
    }
  }
  if (!trim(c.credit_loss_text).empty()) {
    const std::string allowed = "PORT:up|down@NS,... with " + ports;
    for (const std::string& item : split_list(c.credit_loss_text)) {
      const size_t at = item.find('@');
      Where w;
      if (at == std::string::npos || !parse_where(item.substr(0, at), n, true, w))
        fail("faults.credit_loss = '" + c.credit_loss_text + "': bad item '" + item + "'; expected " + allowed);
      const uint64_t t = ns_to_cycles("faults.credit_loss", item.substr(at + 1), c.clock_ghz, allowed);
      // A link's credits travel back on it (core/link.h): `up` = the switch's credits to accelerator PORT.
      for_dirs(c.link_faults, w, [&](core::LinkFaults& f) { f.credit_losses.push_back(t); });
    }
    for (auto& f : c.link_faults) std::sort(f.credit_losses.begin(), f.credit_losses.end());
  }
}

}  // namespace upswitch::config
