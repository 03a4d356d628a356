// Puts the data-link layer (link.dl.*) and the injected link faults (faults.link_*,
// faults.credit_loss) on the two links of an accelerator port, before the switch and the
// endpoints connect to them; and sums the DL counters of a fabric's links for the reports.
#pragma once

#include <vector>

#include "config/config.h"
#include "core/data_link.h"
#include "core/link.h"
#include "stats/registry.h"

namespace upswitch::top {

void attach_link_layers(const config::Config& cfg, int port, core::Link& up, core::Link& down);

// The DL counters of one direction of every port, summed, plus credits lost to faults.
struct DlTotals {
  core::DlStats stats;
  uint64_t credits_lost = 0;
};
void add_dl_stats(DlTotals& total, const core::Link& link);

// Both directions of a fabric's accelerator ports (a Fabric or a TxnFabric).
struct FabricDl {
  DlTotals up, down;  // accelerator -> switch, switch -> accelerator
};
template <class Fab>
FabricDl collect_dl(const Fab& f, int ports) {
  FabricDl d;
  for (int p = 0; p < ports; ++p) {
    add_dl_stats(d.up, f.uplink(p));
    add_dl_stats(d.down, f.downlink(p));
  }
  return d;
}
// Registers the DL counters (dl.up.*, dl.down.*) when the run has a DL layer or credit faults;
// `d` must outlive the registry's dump.
void register_dl_stats(stats::Registry& reg, const config::Config& c, const FabricDl& d);

}  // namespace upswitch::top
