// The port interface the harness drives: one switch block, clocked one cycle at a time, seen
// only through its port words. The C++ model (ModelSwitch) and every Verilated block
// (VerilatedSwitch<VTop>) implement it, so both sides of a comparison run the same harness
// code. Contract: doc/cosim.md, "Port interface".
#pragma once

#include <cstdint>
#include <string>

namespace upswitch::cosim {

// Per port, per cycle. As an input: `flit` is in_flit_i (from the input link) and `credit` is
// out_credit_i (from the receiver behind the output). As an output: `flit` is out_flit_o (onto
// the output link) and `credit` is in_credit_o (back to the sender on the input link).
struct PortWords {
  uint64_t flit = 0;
  uint8_t credit = 0;
};

class CycleSwitch {
 public:
  virtual ~CycleSwitch() = default;
  virtual int ports() const = 0;
  // Cycle t: presents in[0..ports), returns this cycle's outputs in out[0..ports) (combinational
  // from the state and these inputs), then commits the cycle (rising clock edge).
  virtual void cycle(uint64_t t, const PortWords* in, PortWords* out) = 0;
  // Non-empty once the block reported an error (an RTL assertion fired).
  virtual std::string error() const { return {}; }
  // Starts or stops writing a waveform (RTL blocks; the model has none).
  virtual bool open_wave(const std::string& /*path*/) { return false; }
  virtual void close_wave() {}
};

}  // namespace upswitch::cosim
