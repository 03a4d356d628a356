// The link defaults the topology-layer tests build with: endpoint links of 4 cycles at 50 GB/s,
// links between switches of 8 cycles at 50 GB/s, and switches of `radix` ports.
#pragma once

#include "network/topology_params.h"

namespace upswitch::network {

inline LinkDefaults test_links(int radix = 64) {
  LinkDefaults d;
  d.latency_cycles = 4;
  d.credit_delay_cycles = 4;
  d.gbytes_per_s = 50;
  d.inter_switch_latency_cycles = 8;
  d.inter_switch_credit_delay_cycles = 8;
  d.inter_switch_gbytes_per_s = 50;
  d.switch_radix = radix;
  return d;
}

}  // namespace upswitch::network
