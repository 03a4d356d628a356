// No collapse past the knee, for every queueing mode and allocator with 1- and 4-flit packets, in
// packet mode (switch.packet_mode = true): accepted throughput at offered load 1.0 is at least
// 0.97 x the most accepted at any load of the sweep (default preset, 72 ports). Minutes: label
// `long`. The bounded version in the normal suite covers VOQ with 4-flit packets, where flit by
// flit the switch does collapse (tests/model/packet_mode_saturation_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "test_support.h"

namespace upswitch::testing {
namespace {

TEST(KneeCollapseLong, NoQueueingOrAllocatorCollapsesInPacketMode) {
  for (const char* queueing : {"fifo", "vc", "voq"}) {
    for (const char* alloc : {"islip", "wavefront", "separable_input_first"}) {
      for (const char* flits : {"1", "4"}) {
        double peak = 0, at_one = 0;
        for (const char* rate : {"0.5", "0.6", "0.7", "0.8", "0.85", "0.9", "0.95", "1.0"}) {
          const double a = accepted(*run_plain(make_config(
              "", {{"switch.queueing", queueing}, {"switch.allocator", alloc}, {"traffic.packet_flits", flits},
                   {"switch.packet_mode", "true"}, {"traffic.rate", rate}})));
          peak = std::max(peak, a);
          at_one = a;
        }
        EXPECT_GE(at_one, 0.97 * peak) << queueing << " " << alloc << " " << flits << "-flit: " << at_one
                                       << " at load 1.0, peak " << peak;
      }
    }
  }
}

}  // namespace
}  // namespace upswitch::testing
