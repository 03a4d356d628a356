// A user's TLM-2.0 initiator attached to the switch (doc/tlm.md walks through it). One SC_MODULE,
// playing accelerator 0, reaches accelerator 5's memory across the switch: a put (256 B write), a
// get (read it back and compare), a fetch-add (AtomicR add on an 8-byte counter), first loosely
// timed (b_transport) and then approximately timed (nb_transport, 4 phases), and an access outside
// every window that must come back with TLM_ADDRESS_ERROR_RESPONSE. Prints each operation's
// latency; exits non-zero on any mismatch.
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "config/param_table.h"
#include "config/presets.h"
#include "sc/atomic_extension.h"
#include "sc/txn_system.h"
#include "top/txn_fabric.h"

namespace {

using upswitch::sc::AtomicExtension;

constexpr int kInitiator = 0;
constexpr int kTarget = 5;

struct Gpu : sc_core::sc_module {
  tlm_utils::simple_initiator_socket<Gpu> socket;

  Gpu(const sc_core::sc_module_name& name, const upswitch::tl::AddressMap& map, sc_core::sc_time period)
      : sc_core::sc_module(name), socket("socket"), map_(map), period_(period) {
    socket.register_nb_transport_bw(this, &Gpu::nb_transport_bw);
    SC_HAS_PROCESS(Gpu);
    SC_THREAD(run);
  }

  int failures = 0;

 private:
  enum class Style { kLT, kAT };

  // --- the operations, in either style ------------------------------------------------------
  void run() {
    const uint64_t base = map_.window_base(kTarget);
    // Test set-up without timing: the counter starts at 1000 (debug transport).
    uint64_t counter = 1000;
    debug_write(base + 0x2000, &counter, 8);

    uint64_t expect_old = 1000;
    for (Style style : {Style::kLT, Style::kAT}) {
      const char* tag = style == Style::kLT ? "LT" : "AT";
      const uint64_t line = base + (style == Style::kLT ? 0x1000 : 0x3000);
      unsigned char out[256], in[256];
      for (int i = 0; i < 256; ++i) out[i] = static_cast<unsigned char>(i * 7 + (style == Style::kLT ? 1 : 3));

      // put: one 256 B write (all bytes enabled, 64 B aligned: a WriteFull).
      transact(style, tag, "put 256 B", tlm::TLM_WRITE_COMMAND, line, out, 256, nullptr, tlm::TLM_OK_RESPONSE);
      // get: read it back.
      std::memset(in, 0, sizeof in);
      transact(style, tag, "get 256 B", tlm::TLM_READ_COMMAND, line, in, 256, nullptr, tlm::TLM_OK_RESPONSE);
      check(std::memcmp(in, out, 256) == 0, tag, "get returns what put wrote");

      // fetch-add: AtomicR add of 42 to the 8-byte counter; the data array gets the old value.
      const uint64_t add = 42;
      uint64_t operand = add;
      AtomicExtension ext(upswitch::tl::AtomicOp::kAdd, 8, /*returns_old=*/true);
      transact(style, tag, "fetch-add 8 B", tlm::TLM_WRITE_COMMAND, base + 0x2000, &operand, 8, &ext,
               tlm::TLM_OK_RESPONSE);
      check(operand == expect_old, tag, "fetch-add returns the old value");
      uint64_t now_value = 0;
      transact(style, tag, "get counter", tlm::TLM_READ_COMMAND, base + 0x2000, &now_value, 8, nullptr,
               tlm::TLM_OK_RESPONSE);
      check(now_value == expect_old + add, tag, "the counter holds old + 42");
      expect_old += add;

      // An address in no accelerator's window: decode error at the initiator.
      uint64_t junk = 0;
      transact(style, tag, "outside windows", tlm::TLM_READ_COMMAND, map_.window_base(map_.endpoints), &junk, 8,
               nullptr, tlm::TLM_ADDRESS_ERROR_RESPONSE);
    }
    // DMI is refused: the memory is across the switch.
    tlm::tlm_generic_payload gp;
    gp.set_address(base);
    tlm::tlm_dmi dmi;
    check(!socket->get_direct_mem_ptr(gp, dmi), "--", "DMI refused");
  }

  // One transaction; prints its latency and checks its response status.
  void transact(Style style, const char* tag, const char* what, tlm::tlm_command cmd, uint64_t addr, void* data,
                unsigned len, AtomicExtension* ext, tlm::tlm_response_status expect) {
    tlm::tlm_generic_payload gp;
    gp.set_command(cmd);
    gp.set_address(addr);
    gp.set_data_ptr(static_cast<unsigned char*>(data));
    gp.set_data_length(len);
    gp.set_streaming_width(len);
    gp.set_byte_enable_ptr(nullptr);
    gp.set_dmi_allowed(false);
    gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
    if (ext) gp.set_extension(ext);

    const sc_core::sc_time start = sc_core::sc_time_stamp();
    if (style == Style::kLT) {
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      socket->b_transport(gp, delay);
      sc_core::wait(delay);  // zero: the target returns at the completion time
    } else {
      nb_transport(gp);
    }
    const sc_core::sc_time latency = sc_core::sc_time_stamp() - start;
    if (ext) gp.clear_extension(ext);  // the payload must not free a stack extension

    std::printf("%s %-16s %-40s %8.3f ns (%3" PRIu64 " cycles)\n", tag, what, gp.get_response_string().c_str(),
                latency.to_seconds() * 1e9, static_cast<uint64_t>(latency.value() / period_.value()));
    check(gp.get_response_status() == expect, tag, (std::string(what) + ": response status").c_str());
  }

  // The base protocol's 4 phases, driven from this thread: BEGIN_REQ, (END_REQ), BEGIN_RESP on
  // the backward path, END_RESP.
  void nb_transport(tlm::tlm_generic_payload& gp) {
    response_ = nullptr;
    tlm::tlm_phase phase = tlm::BEGIN_REQ;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    tlm::tlm_sync_enum s = socket->nb_transport_fw(gp, phase, delay);
    if (s == tlm::TLM_COMPLETED) return;  // answered at once (not expected here)
    check(s == tlm::TLM_UPDATED && phase == tlm::END_REQ, "AT", "BEGIN_REQ accepted at once with END_REQ");
    while (response_ != &gp) sc_core::wait(response_event_);
    phase = tlm::END_RESP;
    delay = sc_core::SC_ZERO_TIME;
    s = socket->nb_transport_fw(gp, phase, delay);
    check(s == tlm::TLM_COMPLETED, "AT", "END_RESP completes the transaction");
  }

  tlm::tlm_sync_enum nb_transport_bw(tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase, sc_core::sc_time& delay) {
    if (phase == tlm::BEGIN_RESP) {
      response_ = &gp;
      response_event_.notify(delay);
      return tlm::TLM_ACCEPTED;  // END_RESP follows on the forward path, from the thread
    }
    check(false, "AT", "only BEGIN_RESP comes back on the backward path");
    return tlm::TLM_COMPLETED;
  }

  void debug_write(uint64_t addr, void* data, unsigned len) {
    tlm::tlm_generic_payload gp;
    gp.set_command(tlm::TLM_WRITE_COMMAND);
    gp.set_address(addr);
    gp.set_data_ptr(static_cast<unsigned char*>(data));
    gp.set_data_length(len);
    check(socket->transport_dbg(gp) == len, "--", "debug write of the counter");
  }

  void check(bool ok, const char* tag, const char* what) {
    if (ok) return;
    std::printf("MISMATCH (%s): %s\n", tag, what);
    ++failures;
  }

  const upswitch::tl::AddressMap& map_;
  sc_core::sc_time period_;
  tlm::tlm_generic_payload* response_ = nullptr;
  sc_core::sc_event response_event_;
};

}  // namespace

int sc_main(int, char*[]) {
  namespace config = upswitch::config;
  try {
    config::Config cfg = config::default_config();
    config::apply_preset(cfg, "tiny");
    config::set_param(cfg, "traffic.kind", "transactions");
    config::validate(cfg);

    upswitch::top::TxnFabric fabric(cfg, /*synthetic=*/false);
    upswitch::sc::TxnSystem sys("upswitch", fabric);
    Gpu gpu("gpu", fabric.endpoints().address_map(), sys.period());
    gpu.socket.bind(sys.socket(kInitiator));

    std::printf("%d-port switch at %.3g GHz (cycle %.3f ns); accelerator %d -> accelerator %d\n", cfg.sw.ports,
                cfg.clock_ghz, sys.period().to_seconds() * 1e9, kInitiator, kTarget);
    sc_core::sc_start();  // returns when the initiator's thread has finished and the fabric is idle
    sys.rethrow_failure();

    int failures = gpu.failures;
    for (const std::string& problem : upswitch::top::check_txn_drained(fabric)) {
      std::printf("MISMATCH: not drained: %s\n", problem.c_str());
      ++failures;
    }
    std::printf("%s (%d mismatches), simulated %.3f ns\n", failures ? "FAILED" : "PASSED", failures,
                sc_core::sc_time_stamp().to_seconds() * 1e9);
    return failures ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "tlm_example: %s\n", e.what());
    return 2;
  }
}
