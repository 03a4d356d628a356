// Any Verilated (--cc) switch block behind the CycleSwitch port interface. VTop must have the
// ports of rtl_ref/upsw_switch.sv: clk_i, rst_ni, in_flit_i[N], in_credit_o[N], out_flit_o[N],
// out_credit_i[N] (words as in port_words.h), and be Verilated with --trace-fst for waveforms.
// This is the plug-in point for a user's own block (doc/cosim.md, "Plugging in your own RTL").
#pragma once

#include <memory>
#include <string>

#include <verilated.h>
#include <verilated_fst_c.h>

#include "cosim/cycle_switch.h"

namespace upswitch::cosim {

template <class VTop>
class VerilatedSwitch : public CycleSwitch {
 public:
  // `traceable`: allow open_wave() (tracing costs speed even when nothing is written).
  VerilatedSwitch(int ports, bool traceable) : ports_(ports), ctx_(std::make_unique<VerilatedContext>()) {
    ctx_->fatalOnError(false);  // an assertion stops the comparison, not the process
    if (traceable) ctx_->traceEverOn(true);
    Verilated::threadContextp(ctx_.get());
    top_ = std::make_unique<VTop>(ctx_.get(), "TOP");
    reset();
  }
  ~VerilatedSwitch() override {
    // Verilator 5.006 erases a model's scopes from the thread's current context (and reports
    // assertion failures to it), so every instance makes its own context current first.
    Verilated::threadContextp(ctx_.get());
    close_wave();
    top_->final();
    top_.reset();
  }

  int ports() const override { return ports_; }

  void cycle(uint64_t t, const PortWords* in, PortWords* out) override {
    Verilated::threadContextp(ctx_.get());
    for (int p = 0; p < ports_; ++p) {
      top_->in_flit_i[p] = in[p].flit;
      top_->out_credit_i[p] = in[p].credit;
    }
    top_->clk_i = 0;
    top_->eval();
    for (int p = 0; p < ports_; ++p) {
      out[p].flit = top_->out_flit_o[p];
      out[p].credit = top_->in_credit_o[p];
    }
    if (fst_) fst_->dump(2 * t);
    ctx_->time(2 * t + 1);  // assertion messages carry the edge's time
    top_->clk_i = 1;
    top_->eval();
    if (fst_) fst_->dump(2 * t + 1);
    if (ctx_->gotError() && error_.empty())
      error_ = "RTL assertion failed in cycle " + std::to_string(t) + " (message above)";
  }

  std::string error() const override { return error_; }

  bool open_wave(const std::string& path) override {
    close_wave();
    fst_ = std::make_unique<VerilatedFstC>();
    top_->trace(fst_.get(), 99);
    fst_->open(path.c_str());
    return fst_->isOpen();
  }
  void close_wave() override {
    if (!fst_) return;
    fst_->close();
    fst_.reset();
  }

 private:
  void reset() {
    for (int p = 0; p < ports_; ++p) {
      top_->in_flit_i[p] = 0;
      top_->out_credit_i[p] = 0;
    }
    top_->rst_ni = 0;
    top_->clk_i = 0;
    top_->eval();
    top_->clk_i = 1;
    top_->eval();
    top_->clk_i = 0;
    top_->eval();
    top_->rst_ni = 1;
    top_->eval();
  }

  int ports_;
  std::unique_ptr<VerilatedContext> ctx_;
  std::unique_ptr<VTop> top_;
  std::unique_ptr<VerilatedFstC> fst_;
  std::string error_;
};

}  // namespace upswitch::cosim
