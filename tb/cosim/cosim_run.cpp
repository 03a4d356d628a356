#include "cosim/cosim_run.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <sstream>

#include "cosim/model_switch.h"
#include "cosim/side.h"

namespace upswitch::cosim {
namespace {

using Clock = std::chrono::steady_clock;

bool same_flit(const PortEvent& a, const PortEvent& b) {
  if (a.flit_valid != b.flit_valid) return false;
  if (!a.flit_valid) return true;
  return a.packet.id == b.packet.id && a.flit.vc == b.flit.vc && a.flit.flags == b.flit.flags;
}

bool same_credit(const PortEvent& a, const PortEvent& b) {
  if (a.credit_valid != b.credit_valid) return false;
  return !a.credit_valid || (a.credit.vc == b.credit.vc && a.credit.shared == b.credit.shared);
}

std::string flit_text(const PortEvent& e) {
  if (!e.flit_valid) return "no flit";
  std::ostringstream s;
  s << "flit of packet " << e.packet.id << " (" << (e.flit.head() ? "head" : e.flit.tail() ? "tail" : "body")
    << (e.flit.head() && e.flit.tail() ? "+tail" : "") << ", vc " << int{e.flit.vc}
    << (e.flit.shared_credit() ? ", shared credit" : "") << ")";
  return s.str();
}

std::string credit_text(const PortEvent& e) {
  if (!e.credit_valid) return "no credit";
  return std::string("credit vc ") + std::to_string(e.credit.vc) + (e.credit.shared ? " shared" : "");
}

struct Sides {
  std::unique_ptr<Side> model, rtl;
};

Sides make_sides(const config::Config& cfg, const RtlVariant& v, const CosimOptions& opt, bool traceable) {
  config::Config model_cfg = cfg;
  if (opt.fault == Fault::kModelExtraCycle) ++model_cfg.sw.egress_cycles;
  Sides s;
  s.model = std::make_unique<Side>(cfg, std::make_unique<ModelSwitch>(model_cfg.sw, model_cfg.endpoint_rx));
  s.rtl = std::make_unique<Side>(cfg, v.make(traceable));
  if (opt.fault == Fault::kRtlExtraCredit) s.rtl->inject_credit(0, core::Credit{0, false});
  return s;
}

// Second run, identical to the first, that writes the RTL's waveform over [from, to].
void write_wave(const config::Config& cfg, const RtlVariant& v, const CosimOptions& opt, Mismatch& m) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(opt.wave_dir, ec);
  m.wave_from = m.cycle > opt.wave_before ? m.cycle - opt.wave_before : 0;
  m.wave_to = m.cycle + opt.wave_after;
  const std::string path =
      (fs::path(opt.wave_dir) / ("cosim_" + std::string(v.name) + "_cycle" + std::to_string(m.cycle) + ".fst")).string();
  Sides s = make_sides(cfg, v, opt, true);
  for (uint64_t t = 0; t <= m.wave_to; ++t) {
    if (t == m.wave_from && !s.rtl->sw().open_wave(path)) return;
    s.model->step(t);
    s.rtl->step(t);
  }
  s.rtl->sw().close_wave();
  m.wave_file = path;
}

}  // namespace

std::string describe(const Mismatch& m) {
  std::ostringstream s;
  s << "cycle " << m.cycle << ", port " << m.port << ": " << m.what;
  return s.str();
}

CosimResult run_cosim(const config::Config& cfg, const RtlVariant& v, const CosimOptions& opt) {
  CosimResult r;
  Sides s = make_sides(cfg, v, opt, false);
  const int n = cfg.sw.ports;
  const auto latency = static_cast<uint64_t>(cfg.link_latency_cycles);
  bool tracking = false, packet_chosen = false;
  uint64_t t = 0;
  Clock::duration model_time{}, rtl_time{};
  for (;; ++t) {
    if (s.model->done() && s.rtl->done()) break;
    if (opt.stop != nullptr && opt.stop->load(std::memory_order_relaxed)) {
      r.interrupted = true;
      break;
    }
    const auto t0 = Clock::now();
    s.model->step(t);
    const auto t1 = Clock::now();
    s.rtl->step(t);
    rtl_time += Clock::now() - t1;
    model_time += t1 - t0;
    if (!s.rtl->sw().error().empty()) {
      r.rtl_error = s.rtl->sw().error();
      break;
    }
    const auto& me = s.model->events();
    const auto& re = s.rtl->events();
    Mismatch& m = r.mismatch;
    for (int p = 0; p < n; ++p) {
      const bool flit_ok = same_flit(me[p], re[p]);
      if (!tracking && (!flit_ok || !same_credit(me[p], re[p]))) {
        tracking = true;
        m.cycle = t;
        m.port = p;
        m.what = flit_ok ? "expected " + credit_text(me[p]) + " to the sender, RTL gave " + credit_text(re[p])
                         : "expected " + flit_text(me[p]) + ", RTL sent " + flit_text(re[p]);
      }
      if (tracking && !packet_chosen && !flit_ok) {
        // The first differing packet: the model's flit here (it should have left now), else the
        // RTL's (it should not have).
        const PortEvent& e = me[p].flit_valid ? me[p] : re[p];
        const core::Flit& f = e.flit;
        packet_chosen = m.packet_known = true;
        m.packet_id = e.packet.id;
        m.src = f.src;
        m.dst = static_cast<int>(f.dst);
        m.injected = e.packet.injected;
      }
      if (packet_chosen) {
        if (me[p].flit_valid && me[p].packet.id == m.packet_id && me[p].flit.tail())
          m.expected_delivery = static_cast<int64_t>(t + latency);
        if (re[p].flit_valid && re[p].packet.id == m.packet_id && re[p].flit.tail())
          m.actual_delivery = static_cast<int64_t>(t + latency);
      }
    }
    if (tracking && ((packet_chosen && m.expected_delivery >= 0 && m.actual_delivery >= 0) ||
                     t >= m.cycle + opt.track_limit))
      break;
  }
  r.cycles = r.interrupted ? t : t + 1;
  r.mismatch_found = tracking;
  r.model.result = s.model->result();
  r.rtl.result = s.rtl->result();
  r.model.wall_seconds = std::chrono::duration<double>(model_time).count();
  r.rtl.wall_seconds = std::chrono::duration<double>(rtl_time).count();
  r.agree = !tracking && r.rtl_error.empty();
  if (tracking && !r.interrupted && !opt.wave_dir.empty()) write_wave(cfg, v, opt, r.mismatch);
  return r;
}

}  // namespace upswitch::cosim
