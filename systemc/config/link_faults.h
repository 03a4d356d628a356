// Resolves the faults.link_* and faults.credit_loss texts of a Config into Config::link_faults
// (one core::LinkFaults per link direction) and checks link.dl.* against the switch; called by
// validate(). Errors are ConfigErrors naming the key, the value and what is allowed.
//
// Slots: Config::link_faults[2 * slot + dir]. Slot p < endpoint ports is accelerator port p's
// link (dir 0 up, accelerator -> switch; 1 down); slot switch_link_slot(c, l) is topology link l
// between two switches (dir 0 its a -> b wire, 1 b -> a).
#pragma once

#include <vector>

#include "config/config.h"
#include "core/dl_params.h"

namespace upswitch::config {

void resolve_link_faults(Config& c);

// Per topology link, the down intervals of a link between two switches (faults.link_down; both
// directions share them); empty for the others. The routes around them: network/reroute.h.
std::vector<std::vector<core::DownInterval>> switch_links_down(const Config& c);

// The fault slot of topology link `link` (a link between two switches).
inline int switch_link_slot(const Config& c, int link) { return c.network().endpoint_ports() + link; }

}  // namespace upswitch::config
