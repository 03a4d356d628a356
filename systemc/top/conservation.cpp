#include "top/conservation.h"

#include "top/fabric.h"

namespace upswitch::top {
namespace {

std::string link_msg(const char* side, int port, uint64_t have, uint64_t capacity, const char* what) {
  return std::string(side) + " link of port " + std::to_string(port) + ": " + what + " " + std::to_string(have) +
         " != buffer size " + std::to_string(capacity);
}

}  // namespace

std::vector<std::string> check_conservation(const Fabric& f) {
  std::vector<std::string> bad;
  const config::Config& cfg = f.config();
  const int n = cfg.sw.ports;
  const uint64_t in_capacity = static_cast<uint64_t>(cfg.sw.buffer_flits());
  const uint64_t out_capacity =
      static_cast<uint64_t>(cfg.sw.lanes()) * cfg.endpoint_rx.vc_flits + static_cast<uint64_t>(cfg.endpoint_rx.shared_flits);
  uint64_t in_links = 0;
  for (int p = 0; p < n; ++p) {
    const core::Link& up = f.uplink(p);
    const core::Link& down = f.downlink(p);
    const uint64_t a = f.endpoints().source_credits(p).total() + up.credits().count() + up.flits_in_flight() +
                       static_cast<uint64_t>(f.sw().occupancy(p));
    if (a != in_capacity) bad.push_back(link_msg("input", p, a, in_capacity, "credits + in flight + occupancy"));
    const uint64_t b = f.sw().output_credits(p).total() + down.credits().count() + down.flits_in_flight() +
                       f.sw().egress_flits(p);
    if (b != out_capacity) bad.push_back(link_msg("output", p, b, out_capacity, "credits + in flight + pipeline"));
    in_links += up.flits_in_flight() + down.flits_in_flight();
  }
  const traffic::RunResult& r = f.endpoints().result();
  const uint64_t accounted = r.flits_delivered + f.endpoints().backlog_flits() + in_links + f.sw().flits_inside();
  if (accounted != r.flits_created)
    bad.push_back("flits: created " + std::to_string(r.flits_created) + " != delivered + waiting + in flight " +
                  std::to_string(accounted));
  return bad;
}

std::vector<std::string> check_drained(const Fabric& f) {
  std::vector<std::string> bad = check_conservation(f);
  const config::Config& cfg = f.config();
  for (int p = 0; p < cfg.sw.ports; ++p) {
    const core::CreditPool& s = f.endpoints().source_credits(p);
    if (s.total() != s.capacity())
      bad.push_back("source " + std::to_string(p) + ": " + std::to_string(s.total()) + " of " +
                    std::to_string(s.capacity()) + " credits home after the flush");
    const core::CreditPool& o = f.sw().output_credits(p);
    if (o.total() != o.capacity())
      bad.push_back("switch output " + std::to_string(p) + ": " + std::to_string(o.total()) + " of " +
                    std::to_string(o.capacity()) + " credits home after the flush");
  }
  const traffic::RunResult& r = f.endpoints().result();
  if (r.packets_delivered != r.packets_created)
    bad.push_back("packets: created " + std::to_string(r.packets_created) + ", delivered " +
                  std::to_string(r.packets_delivered));
  return bad;
}

void require_conservation(const Fabric& f) {
  const std::vector<std::string> bad = check_conservation(f);
  if (bad.empty()) return;
  std::string msg = "conservation violated: " + bad[0];
  if (bad.size() > 1) msg += " (and " + std::to_string(bad.size() - 1) + " more)";
  throw ConservationError(msg);
}

}  // namespace upswitch::top
