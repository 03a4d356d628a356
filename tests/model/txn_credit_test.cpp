// The transaction layer's command credits (UALink ReqCmd/RspCmd, facts §1.7) obey the credit
// round-trip rule (facts §4.4): C credits circulating in a loop of R cycles carry C / R packets
// per cycle. Buffers for flits are deep here, so only the command credits limit.
#include <gtest/gtest.h>

#include <memory>

#include "txn_support.h"

namespace upswitch::testing {
namespace {

using endpoint::TransferRequest;

constexpr int kLink = 3, kRoute = 2, kCredit = 5;

// Rate of `op` transfers of 4 B, one message per packet, from endpoint 0 to endpoint 1.
double stream_rate(tl::Opcode op, int switch_cmd, int endpoint_cmd) {
  auto cfg = make_txn_config({{"switch.ports", "2"},
                              {"switch.vcs", "1"},
                              {"link.gbytes_per_s", "0"},
                              {"link.latency_cycles", std::to_string(kLink)},
                              {"link.credit_delay_cycles", std::to_string(kCredit)},
                              {"switch.routing_cycles", std::to_string(kRoute)},
                              {"switch.sw_alloc_cycles", "1"},
                              {"switch.xbar_cycles", "1"},
                              {"switch.egress_cycles", "1"},
                              {"switch.vc_buffer_flits", "4096"},
                              {"switch.shared_buffer_flits", "0"},
                              {"endpoint.rx_vc_flits", "4096"},
                              {"endpoint.rx_shared_flits", "0"},
                              {"switch.cmd_vc_credits", std::to_string(switch_cmd)},
                              {"switch.cmd_shared_credits", "0"},
                              {"endpoint.rx_cmd_vc_credits", std::to_string(endpoint_cmd)},
                              {"endpoint.rx_cmd_shared_credits", "0"},
                              {"tl.max_messages_per_packet", "1"},
                              {"accel.max_outstanding", "2048"},
                              {"accel.completer_queue", "4096"},
                              {"accel.mem_latency_cycles", "0"},
                              {"accel.mem_bytes_per_cycle", "65536"}});
  auto f = std::make_unique<top::TxnFabric>(cfg, false);
  static uint8_t buf[4];
  const int n = 2000;
  for (int k = 0; k < n; ++k) {
    TransferRequest r;
    r.op = op;
    r.addr = f->endpoints().address_map().window_base(1) + 4 * static_cast<uint64_t>(k);
    r.bytes = 4;
    r.data = buf;
    f->endpoints().submit(0, r, 0);
  }
  EXPECT_TRUE(f->run_until_idle(1'000'000));
  for (const std::string& s : top::check_txn_drained(*f)) ADD_FAILURE() << s;
  return n / static_cast<double>(f->now());
}

TEST(TxnCredits, SwitchInputCommandCreditsFollowTheRoundTripRule) {
  // A 4 B write is a 2-flit packet (control half + 2 data halves + 1 byte-enable half); its
  // command credit comes back when the tail leaves the input buffer: R = L + Rt + C + 1. The
  // 1-flit write responses need R - 1 and are never the limit.
  const double r = kLink + kRoute + kCredit + 1;
  for (int c : {2, 3, 4}) EXPECT_NEAR(stream_rate(tl::Opcode::kWrite, c, 4096), c / r, 0.025 * c / r) << c << " credits";
}

TEST(TxnCredits, EndpointReceiverCommandCreditsFollowTheRoundTripRule) {
  // A 4 B read response is a 2-flit packet; the receiver returns its command credit with the
  // tail's flit credit: R = Sa + X + E + L + C + 1 from the switch's grant of the head. The
  // 1-flit read requests need R - 1 and are never the limit.
  const double r = 1 + 1 + 1 + kLink + kCredit + 1;
  for (int c : {2, 4, 5}) EXPECT_NEAR(stream_rate(tl::Opcode::kRead, 4096, c), c / r, 0.025 * c / r) << c << " credits";
}

TEST(TxnCredits, PlentyOfCommandCreditsLeaveTheLinkAsTheLimit) {
  // Writes of 4 B: 2 flits each on the request link: half a write per cycle.
  EXPECT_NEAR(stream_rate(tl::Opcode::kWrite, 64, 64), 0.5, 0.0125);
}

}  // namespace
}  // namespace upswitch::testing
