// Puts the data-link layer (link.dl.*) and the injected link faults (faults.link_*,
// faults.credit_loss) on the two wires of an accelerator port and of a link between switches,
// before the switches and the endpoints connect to them; and sums the DL counters of a fabric's
// links for the reports.
#pragma once

#include <vector>

#include "config/config.h"
#include "core/data_link.h"
#include "core/link.h"
#include "network/network.h"
#include "stats/registry.h"

namespace upswitch::top {

void attach_link_layers(const config::Config& cfg, int port, core::Link& up, core::Link& down);
// The same for topology link `link` between two switches, at that link's own TL flit rate.
void attach_switch_link_layers(const config::Config& cfg, int link, core::Link& a_to_b, core::Link& b_to_a);

// The DL counters of one direction of every port, summed, plus credits lost to faults.
struct DlTotals {
  core::DlStats stats;
  uint64_t credits_lost = 0;
};
void add_dl_stats(DlTotals& total, const core::Link& link);

// Both directions of a fabric's accelerator ports (a Fabric or a TxnFabric), and both directions
// of its links between switches.
struct FabricDl {
  DlTotals up, down;  // accelerator -> switch, switch -> accelerator
  DlTotals between;   // links between switches
  bool has_between = false;
};
template <class Fab>
FabricDl collect_dl(const Fab& f, int ports) {
  FabricDl d;
  for (int p = 0; p < ports; ++p) {
    add_dl_stats(d.up, f.uplink(p));
    add_dl_stats(d.down, f.downlink(p));
  }
  for (const network::Network::Channel& c : f.network().channels())
    if (c.from.is_switch && c.to.is_switch) {
      d.has_between = true;
      add_dl_stats(d.between, *c.wire);
    }
  return d;
}
// Registers the DL counters (dl.up.*, dl.down.*) when the run has a DL layer or credit faults;
// `d` must outlive the registry's dump.
void register_dl_stats(stats::Registry& reg, const config::Config& c, const FabricDl& d);

}  // namespace upswitch::top
