// The data-link layer keys (link.dl.*) and the link faults (faults.link_errors,
// faults.link_down, faults.credit_loss), declared once like every other key; doc/reliability.md.
// Defaults follow UALink 1.0's DL (facts §1.8): 640 B DL flits carrying 628 B of TL flits, a
// replay window of at most 256 DL flits. The layer is off by default, so the switch core alone is
// what the RTL co-simulation and the theory tests compare.
#include "config/param_builders.h"

namespace upswitch::config {

void add_dl_params(std::vector<ParamSpec>& t) {
  using namespace builders;  // NOLINT: the builders are this file's vocabulary
  t.push_back(bool_param("link.dl.enable", [](Config& c) -> bool& { return c.dl.enable; }, false,
                         "Carry TL flits in DL flits with CRC and go-back-N replay on every accelerator link, on "
                         "any topology (links between switches carry none in this version; doc/reliability.md). The wire then runs at link.gbytes_per_s x link.dl.flit_bytes / "
                         "link.dl.payload_bytes, so an error-free link still carries link.gbytes_per_s of TL flits."));
  t.push_back(int_param("link.dl.flit_bytes", [](Config& c) -> int& { return c.dl.flit_bytes; }, 640, 128, 8192, "bytes",
                        "DL flit size on the wire: header, segment headers, payload and CRC (UALink: 640 B)."));
  t.push_back(int_param("link.dl.payload_bytes", [](Config& c) -> int& { return c.dl.payload_bytes; }, 628, 64, 8192,
                        "bytes",
                        "TL flit bytes one DL flit carries (UALink: 628 B, 98.1%); TL flits straddle DL flits."));
  t.push_back(int_param("link.dl.rx_cycles", [](Config& c) -> int& { return c.dl.rx_cycles; }, 2, 0, 100000, "cycles",
                        "From a DL flit's last byte at the receiver to its CRC verdict and the release of its TL "
                        "flits."));
  t.push_back(int_param("link.dl.ack_cycles", [](Config& c) -> int& { return c.dl.ack_cycles; }, 6, 0, 100000, "cycles",
                        "An ack or replay request waits this long for a DL flit going the other way, on top of "
                        "link.latency_cycles."));
  t.push_back(int_param("link.dl.replay_window", [](Config& c) -> int& { return c.dl.replay_window; }, 256, 1, 256,
                        "DL flits",
                        "DL flits sent and not yet acknowledged, at most (the replay buffer holds this many; UALink "
                        "allows 256)."));
  t.push_back(int_param("link.dl.tx_fifo_flits", [](Config& c) -> int& { return c.dl.tx_fifo_flits; }, 64, 2, 65536,
                        "flits",
                        "TL flits waiting to be packed into DL flits, at most, counting those a switch output has "
                        "granted and not yet sent; a full FIFO stops the transmitter. At least ceil(payload_bytes / "
                        "switch.flit_bytes) + 1; line rate needs sw_alloc + xbar + egress cycles + two DL flits' "
                        "worth (44 at the defaults)."));
  t.push_back(float_param("link.dl.flit_error_rate", [](Config& c) -> double& { return c.dl.flit_error_rate; }, 0.0,
                          0.0, 0.5, "",
                          "Probability that an error burst starts on a DL flit (every link; faults.link_errors "
                          "overrides per link)."));
  t.push_back(float_param("link.dl.bit_error_rate", [](Config& c) -> double& { return c.dl.bit_error_rate; }, 0.0, 0.0,
                          1e-4, "",
                          "Alternative to link.dl.flit_error_rate: independent bit errors after FEC; a DL flit is hit "
                          "with probability 1 - (1 - BER)^(8 x link.dl.flit_bytes)."));
  t.push_back(int_param("link.dl.burst_flits", [](Config& c) -> int& { return c.dl.burst_flits; }, 1, 1, 100000,
                        "DL flits", "Consecutive DL flits one error burst corrupts."));
  t.push_back(text_param("faults.link_errors", [](Config& c) -> std::string& { return c.link_errors_text; }, "",
                         "LINK[:up|:down]=RATE,... (RATE 0 .. 0.5)",
                         "Per-link DL flit error rates overriding link.dl.flit_error_rate: `3=1e-4` both directions "
                         "of port 3, `5:up=1e-3` only accelerator 5 to the switch. LINK: a port of the single switch, "
                         "or on any topology a link id, `ep3.p7` (accelerator 3's port 7) or `sw2.p40` (the switch "
                         "end of an accelerator link). Needs link.dl.enable."));
  t.push_back(text_param("faults.link_down", [](Config& c) -> std::string& { return c.link_down_text; }, "",
                         "LINK@START_NS-END_NS,... (START < END)",
                         "Scheduled link-down intervals (LINK as in faults.link_errors): both directions of the link "
                         "carry nothing from START to "
                         "END ns; DL flits and acks in flight are lost and replayed after link-up. Needs "
                         "link.dl.enable."));
  t.push_back(text_param("faults.credit_loss", [](Config& c) -> std::string& { return c.credit_loss_text; }, "",
                         "LINK:up|down@NS,...",
                         "Lose the first credit returned on a link at or after NS ns (`3:up`: one the switch returns "
                         "for accelerator 3's flits; `3:down`: one accelerator 3 returns to the switch; LINK as in "
                         "faults.link_errors). The "
                         "credit checker (sim.check_interval_cycles, and every run's end) reports it."));
}

}  // namespace upswitch::config
