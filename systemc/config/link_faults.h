// Resolves the faults.link_* and faults.credit_loss texts of a Config into Config::link_faults
// (one core::LinkFaults per link direction) and checks link.dl.* against the switch; called by
// validate(). Errors are ConfigErrors naming the key, the value and what is allowed.
#pragma once

#include "config/config.h"

namespace upswitch::config {

void resolve_link_faults(Config& c);

}  // namespace upswitch::config
