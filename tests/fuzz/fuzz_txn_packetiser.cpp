// libFuzzer target: any bytes as a burst of transfers (operation, atomic op and element size,
// source, target window, offset, length, byte enables, CAS compare) submitted to a small
// transaction fabric with tight buffers and few command credits (and a reduction engine with one
// or three contexts and two multicast groups: windows 4 and 5; window 6 is an undefined group's
// and 7 nobody's), then run until idle. Malformed
// requests must be answered with an error status; every transfer must complete, the fabric must
// drain, and no invariant may break (the packetiser, credits, tags, completer, memory).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "config/param_table.h"
#include "top/txn_fabric.h"

namespace {

struct Done : upswitch::endpoint::TransferClient {
  void transfer_done(uint64_t, upswitch::tl::Status, uint64_t) override { ++count; }
  uint64_t count = 0;
};

upswitch::config::Config make_config(uint8_t variant) {
  using upswitch::config::set_param;
  upswitch::config::Config c = upswitch::config::default_config();
  set_param(c, "traffic.kind", "transactions");
  set_param(c, "switch.ports", "4");
  set_param(c, "switch.vcs", variant & 1 ? "2" : "1");
  set_param(c, "switch.vc_buffer_flits", variant & 2 ? "1" : "6");
  set_param(c, "switch.shared_buffer_flits", variant & 4 ? "0" : "8");
  set_param(c, "switch.cmd_vc_credits", variant & 8 ? "1" : "3");
  set_param(c, "switch.cmd_shared_credits", variant & 16 ? "0" : "4");
  set_param(c, "endpoint.rx_vc_flits", "5");
  set_param(c, "endpoint.rx_shared_flits", variant & 32 ? "0" : "6");
  set_param(c, "endpoint.rx_cmd_vc_credits", variant & 64 ? "1" : "2");
  set_param(c, "tl.strict_order", variant & 128 ? "true" : "false");
  set_param(c, "tl.address_cache_entries", "2");
  set_param(c, "accel.max_outstanding", "8");
  set_param(c, "accel.completer_queue", "2");
  set_param(c, "accel.mem_latency_cycles", "5");
  set_param(c, "accel.mem_bytes_per_cycle", "16");
  set_param(c, "accel.window_bytes", "1048576");
  set_param(c, "accel.memory_bytes", "65536");
  set_param(c, "accel.atomic_ops", "add,cas,fadd,min_s");
  set_param(c, "txn.footprint_bytes", "4096");
  set_param(c, "link.latency_cycles", "2");
  set_param(c, "link.credit_delay_cycles", "3");
  set_param(c, "sim.watchdog_cycles", "50000");
  set_param(c, "sim.check_interval_cycles", "64");
  set_param(c, "reduce.contexts", variant & 4 ? "1" : "3");
  set_param(c, "reduce.groups", "3");
  set_param(c, "reduce.alu_elems_per_cycle", variant & 2 ? "1" : "16");
  upswitch::config::validate(c);
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace upswitch;
  if (size < 1) return 0;
  top::TxnFabric f(make_config(data[0]), /*synthetic=*/false);
  f.endpoints().define_group({0, 1, 2});  // window 4
  f.endpoints().define_group({3});        // window 5
  constexpr size_t kRecord = 12;
  std::vector<uint8_t> buffers;  // data / result / enables / compare for every transfer
  const size_t n = std::min<size_t>((size - 1) / kRecord, 64);
  buffers.resize(n * 4 * 2048);
  Done done;
  for (size_t k = 0; k < n; ++k) {
    const uint8_t* r = data + 1 + k * kRecord;
    endpoint::TransferRequest t;
    t.op = static_cast<tl::Opcode>(r[0] % tl::kOpcodes);
    t.aop = static_cast<tl::AtomicOp>(r[1] % tl::kAtomicOps);
    t.elem_bytes = r[1] & 0x80 ? 8 : 4;
    const int src = r[2] % 4, window = r[3] % 8;
    t.rtype = static_cast<tl::RedType>(r[9] % tl::kRedTypes);
    t.rop = static_cast<tl::RedOp>((r[9] >> 3) % tl::kRedOps);
    const uint64_t offset = uint64_t{r[4]} | uint64_t{r[5]} << 8 | static_cast<uint64_t>(r[6] & 0x3) << 16;  // < 256 KiB
    t.addr = f.endpoints().address_map().window_base(window) + offset;
    t.bytes = uint64_t{r[7]} | static_cast<uint64_t>(r[8] & 0x7) << 8;  // 0 .. 2047
    uint8_t* base = buffers.data() + k * 4 * 2048;
    for (int b = 0; b < 2048; ++b) base[b] = static_cast<uint8_t>(r[9] + b);
    t.data = base;
    t.result = base + 2048;
    if (r[10] & 1) {
      uint8_t* en = base + 4096;
      for (int b = 0; b < 16; ++b) en[b] = (r[10] >> (b % 8)) & 1 ? 0xff : 0;
      t.byte_enable = en;
      t.byte_enable_len = 16;
    }
    if (r[11] & 1) {
      uint8_t* cmp = base + 6144;
      for (int b = 0; b < 2048; ++b) cmp[b] = static_cast<uint8_t>(r[11] >> 1);
      t.compare = cmp;
    }
    t.client = &done;
    f.endpoints().submit(src, t, f.now());
  }
  if (!f.run_until_idle(5'000'000)) std::abort();       // livelock: transfers never finish
  if (done.count != n) std::abort();                     // a transfer lost or completed twice
  if (!top::check_txn_drained(f).empty()) std::abort();  // credits, tags or messages leaked
  return 0;
}
