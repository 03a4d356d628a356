#include "top/link_layers.h"

#include <algorithm>
#include <memory>

#include "config/link_faults.h"

namespace upswitch::top {

namespace {

constexpr uint64_t kDlStream = 0x444c000000ULL;  // "DL": RNG streams of the links' error processes


// Fault slot `slot` (config/link_faults.h) on the wires {dir 0, dir 1} of one link, at `rate`
// TL flits per cycle.
void attach(const config::Config& cfg, int slot, double rate, core::Link* const (&wires)[2]) {
  const core::LinkFaults none;
  for (int dir = 0; dir < 2; ++dir) {
    const auto k = static_cast<size_t>(2 * slot + dir);
    const core::LinkFaults& faults = cfg.link_faults.empty() ? none : cfg.link_faults[k];
    core::Link& l = *wires[dir];
    if (cfg.dl.enable)
      l.set_data_link(std::make_unique<core::DataLink>(cfg.dl, faults, cfg.flit_bytes, rate, l.latency(), cfg.measure.seed,
                                                       kDlStream + static_cast<uint64_t>(k)));
    if (!faults.credit_losses.empty()) l.set_credit_losses(faults.credit_losses);
  }
}

}  // namespace

void attach_link_layers(const config::Config& cfg, int port, core::Link& up, core::Link& down) {
  core::Link* const wires[2] = {&up, &down};
  attach(cfg, port, cfg.link_flits_per_cycle(), wires);
}

void attach_switch_link_layers(const config::Config& cfg, int link, core::Link& a_to_b, core::Link& b_to_a) {
  core::Link* const wires[2] = {&a_to_b, &b_to_a};
  const network::LinkSpec& ls = cfg.network().links[static_cast<size_t>(link)];
  attach(cfg, config::switch_link_slot(cfg, link), ls.flits_per_cycle(cfg.flit_bytes * cfg.clock_ghz), wires);
}

void add_dl_stats(DlTotals& total, const core::Link& link) {
  total.credits_lost += link.credits_lost();
  const core::DataLink* dl = link.data_link();
  if (!dl) return;
  const core::DlStats& s = dl->stats();
  core::DlStats& t = total.stats;
  t.frames_sent += s.frames_sent;
  t.frames_replayed += s.frames_replayed;
  t.crc_errors += s.crc_errors;
  t.replay_requests += s.replay_requests;
  t.frames_discarded += s.frames_discarded;
  t.frames_duplicate += s.frames_duplicate;
  t.frames_lost_down += s.frames_lost_down;
  t.link_ups += s.link_ups;
  t.tl_flits += s.tl_flits;
  t.max_unacked = std::max(t.max_unacked, s.max_unacked);
}

void register_dl_stats(stats::Registry& reg, const config::Config& c, const FabricDl& d) {
  if (!c.dl.enable && c.credit_loss_text.empty()) return;
  for (int k = 0; k < (d.has_between ? 3 : 2); ++k) {
    const DlTotals& t = k == 0 ? d.up : k == 1 ? d.down : d.between;
    const std::string dir = k == 0 ? "dl.up." : k == 1 ? "dl.down." : "dl.between.";
    const std::string side = k == 0   ? " (accelerator -> switch, all ports, whole run)"
                             : k == 1 ? " (switch -> accelerator, all ports, whole run)"
                                      : " (links between switches, both directions, whole run)";
    reg.counter(dir + "credits_lost", &t.credits_lost, "credits", "lost to faults.credit_loss" + side);
    if (!c.dl.enable) continue;
    const core::DlStats& s = t.stats;
    reg.counter(dir + "frames_sent", &s.frames_sent, "DL flits", "data DL flits sent for the first time" + side);
    reg.counter(dir + "frames_replayed", &s.frames_replayed, "DL flits", "data DL flits sent again by replays" + side);
    reg.counter(dir + "crc_errors", &s.crc_errors, "DL flits", "data DL flit transmissions corrupted" + side);
    reg.counter(dir + "replay_requests", &s.replay_requests, "requests", "replay requests sent by receivers" + side);
    reg.counter(dir + "frames_discarded", &s.frames_discarded, "DL flits",
                "intact but out of sequence after a corrupt one (go-back-N)" + side);
    reg.counter(dir + "frames_duplicate", &s.frames_duplicate, "DL flits", "received twice (resent after a link-up)" + side);
    reg.counter(dir + "frames_lost_down", &s.frames_lost_down, "DL flits", "in flight when a link went down" + side);
    reg.counter(dir + "link_ups", &s.link_ups, "events", "retrains after faults.link_down intervals" + side);
    reg.counter(dir + "tl_flits", &s.tl_flits, "flits", "TL flits delivered" + side);
    reg.counter(dir + "max_unacked", &s.max_unacked, "DL flits", "replay buffer high-water mark, largest link" + side);
  }
}

}  // namespace upswitch::top
