// The comparison: the C++ model and a Verilated block, each with identical endpoints, run in
// lockstep in one process; every cycle every port's output flit and credit must agree. The
// rules and the report are described in doc/cosim.md ("Comparison rules", "Mismatch report").
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "config/config.h"
#include "cosim/rtl_variants.h"
#include "traffic/run_result.h"

namespace upswitch::cosim {

enum class Fault {
  kNone,
  kModelExtraCycle,  // the model side's egress pipeline is one cycle longer (harness test)
  kRtlExtraCredit,   // a credit nobody returned enters RTL output 0 in cycle 0 (assertion test)
};

struct CosimOptions {
  std::string wave_dir;          // on a mismatch, write the RTL waveform (FST) here; "" = none
  uint64_t wave_before = 64;     // cycles of waveform before the first mismatch
  uint64_t wave_after = 64;      // and after it
  uint64_t track_limit = 20000;  // cycles after the mismatch to find the packet's deliveries
  Fault fault = Fault::kNone;
  // Polled once per compared cycle: when set, the comparison ends there, interrupted (Ctrl-C,
  // SIGTERM; app/stop_signals.h). nullptr = never.
  const std::atomic<bool>* stop = nullptr;
};

struct Mismatch {
  uint64_t cycle = 0;  // first cycle whose port outputs differ
  int port = -1;
  std::string what;    // what each side did on that port in that cycle
  bool packet_known = false;
  uint64_t packet_id = 0;
  int src = -1, dst = -1;
  uint64_t injected = 0;  // the cycle its head left its source
  // Tail delivery at the sink (switch output cycle + link latency); -1 = not within the limit.
  int64_t expected_delivery = -1, actual_delivery = -1;
  std::string wave_file;
  uint64_t wave_from = 0, wave_to = 0;
};

struct SideStats {
  traffic::RunResult result;
  double wall_seconds = 0;  // time spent stepping this side
};

struct CosimResult {
  bool agree = false;
  bool mismatch_found = false;
  bool interrupted = false;  // stopped through CosimOptions::stop before either side was done
  Mismatch mismatch;
  std::string rtl_error;  // an RTL assertion fired
  uint64_t cycles = 0;
  SideStats model, rtl;
};

CosimResult run_cosim(const config::Config& cfg, const RtlVariant& variant, const CosimOptions& opt);

// One-line descriptions, used by the CLI and the tests.
std::string describe(const Mismatch& m);

}  // namespace upswitch::cosim
