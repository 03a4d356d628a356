#include "top/p2p_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>

#include "config/memory_estimate.h"
#include "config/param_table.h"
#include "config/value_parse.h"
#include "core/interrupt.h"
#include "endpoint/transfer.h"
#include "tl/message.h"
#include "top/list_checks.h"
#include "top/parallel_rows.h"
#include "top/parallel_run.h"
#include "top/txn_fabric.h"
#include "version.h"

namespace upswitch::top {
namespace {

constexpr double kTlFlitBytes = 64.0;  // efficiency is counted in TL flits (tl/packet_format.h)
constexpr uint64_t kMaxTransferBytes = uint64_t{1} << 30;  // the txn.sizes limit

// The direction whose flits carry the operation's payload: responses for reads, requests for
// writes and atomics (their operands).
int data_class(tl::Opcode op) { return op == tl::Opcode::kRead ? 1 : 0; }

bool is_pow2(uint64_t x) { return x != 0 && (x & (x - 1)) == 0; }

// Counts completions and remembers the last cycle and any status other than OKAY.
class Completions : public endpoint::TransferClient {
 public:
  void transfer_done(uint64_t, tl::Status status, uint64_t cycle) override {
    ++done;
    last_cycle = cycle;
    if (status != tl::Status::kOkay && bad == tl::Status::kOkay) bad = status;
  }
  uint64_t done = 0, last_cycle = 0;
  tl::Status bad = tl::Status::kOkay;
};

endpoint::TransferRequest request_for(const config::Config& cfg, const P2pPoint& p, uint64_t addr,
                                      endpoint::TransferClient* client) {
  endpoint::TransferRequest r;
  r.op = p.op;
  r.aop = cfg.txn.atomic_op;
  r.elem_bytes = static_cast<uint8_t>(p.elem_bytes ? p.elem_bytes : 8);
  r.addr = addr;
  r.bytes = p.bytes;
  r.client = client;  // data null: the endpoints' generated pattern; results dropped
  return r;
}

std::string point_name(const P2pPoint& p) {
  std::string s = std::string(tl::opcode_name(p.op)) + " " + std::to_string(p.bytes) + " B";
  if (p.elem_bytes) s += " (" + std::to_string(p.elem_bytes) + " B elements)";
  return s;
}

// A completion timeout shorter than a round trip is the configuration's doing: one line, exit 2
// (as coll::require_okay); any other status is an invariant failure.
[[noreturn]] void timed_out(const config::Config& cfg, const std::string& what) {
  throw config::ConfigError("endpoint.completion_timeout_ns = " + config::format_float(cfg.completion_timeout_ns) +
                            ": a request of " + what +
                            " timed out; the p2p table needs every request answered, so the timeout must exceed the "
                            "longest round trip under load (or be 0: no timeout)");
}

void require_okay(const config::Config& cfg, const Completions& c, const P2pPoint& p) {
  if (c.bad == tl::Status::kCompletionTimeout) timed_out(cfg, point_name(p));
  if (c.bad != tl::Status::kOkay)
    throw std::logic_error("p2p: " + point_name(p) + " completed with status " + tl::status_name(c.bad));
}

double round_to(double x, int digits) {
  const double s = std::pow(10.0, digits);
  return std::round(x * s) / s;
}

std::string fixed(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

// Output precision of each quantity (the files are byte-identical for the same inputs).
constexpr int kNsDigits = 2, kGbDigits = 3, kEffDigits = 4;

}  // namespace

std::vector<P2pPoint> p2p_points(const std::vector<tl::Opcode>& ops_in, uint64_t max_bytes, tl::AtomicOp aop) {
  std::vector<tl::Opcode> ops = ops_in;
  if (ops.empty())
    for (int i = 0; i < tl::kPointOpcodes; ++i) ops.push_back(static_cast<tl::Opcode>(i));
  std::vector<P2pPoint> pts;
  for (tl::Opcode op : ops) {
    if (tl::is_atomic(op)) {
      // A multi-element request fills one 64 B beat; a compare-and-swap at most 32 B (its
      // compare values take the other half, tl/request_rules.cpp).
      const uint64_t multi = aop == tl::AtomicOp::kCas ? 32 : 64;
      for (const P2pPoint& p : {P2pPoint{op, 4, 4}, P2pPoint{op, 8, 8}, P2pPoint{op, multi, 4}, P2pPoint{op, multi, 8}})
        if (p.bytes <= max_bytes) pts.push_back(p);
      continue;
    }
    for (uint64_t b = op == tl::Opcode::kWriteFull ? 64 : 4; b <= max_bytes; b *= 2) pts.push_back(P2pPoint{op, b, 0});
  }
  return pts;
}

uint64_t p2p_requests(const P2pPoint& p) {
  const auto max = static_cast<uint64_t>(tl::kMaxRequestBytes);
  return (p.bytes + max - 1) / max;
}

bool uniform_random_supported(const P2pPoint& p) { return !tl::is_atomic(p.op) || p.bytes == static_cast<uint64_t>(p.elem_bytes); }

void check_p2p_inputs(const config::Config& cfg, const P2pOptions& opt) {
  if (cfg.kind != config::Config::TrafficKind::kTransactions)
    throw config::ConfigError("traffic.kind: the p2p table needs transactions");
  if (!is_pow2(opt.max_bytes) || opt.max_bytes < 4 || opt.max_bytes > kMaxTransferBytes)
    throw config::ConfigError("--max-bytes " + std::to_string(opt.max_bytes) +
                              ": expected a power of two from 4 to " + std::to_string(kMaxTransferBytes));
  if (opt.max_bytes > cfg.accel.memory_bytes)
    throw config::ConfigError("--max-bytes " + std::to_string(opt.max_bytes) + ": expected at most accel.memory_bytes = " +
                              std::to_string(cfg.accel.memory_bytes) + " (transfers go to one endpoint's memory)");
  if (const tl::Opcode* op = first_repeat(opt.ops))
    throw config::ConfigError(std::string("--ops: ") + tl::opcode_name(*op) + " listed twice");
  const bool atomics = opt.ops.empty() || std::any_of(opt.ops.begin(), opt.ops.end(), tl::is_atomic);
  if (atomics && !cfg.accel.atomic_supported[static_cast<size_t>(cfg.txn.atomic_op)])
    throw config::ConfigError(std::string("txn.atomic_op = ") + tl::atomic_op_name(cfg.txn.atomic_op) +
                              ": not in accel.atomic_ops, so every atomic would be refused; pick a supported one "
                              "or leave atomic_r and atomic_nr out of --ops");
  if (opt.pair_measure_cycles == 0) throw config::ConfigError("--pair-measure-cycles 0: expected at least 1");
  if (opt.random_measure_cycles == 0) throw config::ConfigError("--measure-cycles 0: expected at least 1");
  if (opt.jobs < 1) throw config::ConfigError("--jobs " + std::to_string(opt.jobs) + ": expected at least 1");
}

config::Config pair_config(const config::Config& cfg, int ports) {
  // A network keeps its topology: its endpoints' ports and paths are what the pair measures.
  if (ports <= 0 || ports >= cfg.sw.ports || !cfg.sw.routing_table.empty() || !cfg.single_switch()) return cfg;
  config::Config c = cfg;
  c.sw.ports = ports;
  c.traffic.pattern = traffic::Pattern::kUniform;
  c.traffic.shift = 1;
  c.traffic.hotspot_ports = {0};
  c.traffic.incast_target = 0;
  c.traffic.incast_sources = 0;
  config::validate(c);
  return c;
}

uint64_t p2p_zero_load_cycles(const config::Config& cfg, const P2pPoint& p) {
  TxnFabric f(cfg, false);
  Completions done;
  const uint64_t t0 = f.now();
  f.endpoints().submit(0, request_for(cfg, p, f.endpoints().address_map().window_base(1), &done), t0);
  // Far more than the transfer needs; the watchdog reports a stuck fabric long before.
  const uint64_t limit = 1'000'000 + 1000 * p.bytes;
  if (!f.run_until_idle(limit) || done.done != 1)
    throw std::logic_error("p2p: " + point_name(p) + " did not complete on an idle fabric");
  require_okay(cfg, done, p);
  require_txn_conservation(f);
  return done.last_cycle - t0;
}

BandwidthResult p2p_pair_bandwidth(const config::Config& cfg, const P2pPoint& p, uint64_t warmup, uint64_t measure) {
  TxnFabric f(cfg, false);
  endpoint::AcceleratorEndpoints& e = f.endpoints();
  // A backlog the initiator cannot finish before the window ends: it issues at most one request
  // per issue interval and port of the initiator, and a transfer has p2p_requests() of them.
  const uint64_t interval = static_cast<uint64_t>(cfg.accel.issue_interval_cycles);
  const uint64_t ports = static_cast<uint64_t>(f.network().topology().endpoint_first_port(1));
  const uint64_t transfers = ((warmup + measure) / interval + 2) * ports / p2p_requests(p) + 2;
  // Consecutive addresses in endpoint 1's window, wrapping within the workload's footprint.
  const uint64_t footprint = std::max<uint64_t>(cfg.txn.footprint_bytes, p.bytes);
  const uint64_t slots = footprint / p.bytes;
  Completions done;
  const uint64_t base = e.address_map().window_base(1);
  // The backlog is held as queued transfers (about 150 B each, measured with --pair-measure-cycles
  // 4000000 on tiny): a window too long for this machine is refused before it is queued, and a
  // stop request is honoured while queueing.
  config::check_memory(cfg, {{"p2p pair stream backlog (transfers queued for the window)",
                              static_cast<double>(transfers) * 160.0}});
  for (uint64_t k = 0; k < transfers; ++k) {
    if (k % 4096 == 0) core::poll_interrupt();
    e.submit(0, request_for(cfg, p, base + (k % slots) * p.bytes, &done), 0);
  }

  const int cls = data_class(p.op);
  if (f.run_until_idle(warmup)) throw std::logic_error("p2p: pair stream of " + point_name(p) + " ran dry in the warm-up");
  const endpoint::TxnResult& r = e.result();
  const uint64_t t0 = f.now(), bytes0 = r.ports[0].completed_bytes;
  const uint64_t flits0 = r.window_flits[static_cast<size_t>(cls)], payload0 = r.window_payload[static_cast<size_t>(cls)];
  if (f.run_until_idle(measure)) throw std::logic_error("p2p: pair stream of " + point_name(p) + " ran dry");
  require_okay(cfg, done, p);
  BandwidthResult out;
  out.window_cycles = f.now() - t0;
  out.payload_bytes_per_cycle =
      static_cast<double>(r.ports[0].completed_bytes - bytes0) / static_cast<double>(out.window_cycles);
  const uint64_t flits = r.window_flits[static_cast<size_t>(cls)] - flits0;
  const uint64_t payload = r.window_payload[static_cast<size_t>(cls)] - payload0;
  out.efficiency = flits ? static_cast<double>(payload) / (kTlFlitBytes * static_cast<double>(flits)) : 0.0;
  return out;
}

BandwidthResult p2p_uniform_random(const config::Config& cfg, const P2pPoint& p, uint64_t warmup, uint64_t measure) {
  if (!uniform_random_supported(p))
    throw std::logic_error("p2p: the synthetic workload cannot generate " + point_name(p));
  config::Config c = cfg;
  const uint64_t size = tl::is_atomic(p.op) ? static_cast<uint64_t>(p.elem_bytes) : p.bytes;
  config::set_param(c, "txn.mix", std::string(tl::opcode_name(p.op)) + ":1");
  config::set_param(c, "txn.sizes", std::to_string(size) + ":1");
  if (p.elem_bytes) config::set_param(c, "txn.atomic_bytes", std::to_string(p.elem_bytes));
  config::set_param(c, "traffic.pattern", "uniform");
  config::set_param(c, "traffic.exclude_self", "true");
  config::set_param(c, "sim.warmup_cycles", std::to_string(warmup));
  config::set_param(c, "sim.measure_cycles", std::to_string(measure));
  // Only the window's throughput is used: no drain, no flush.
  config::set_param(c, "sim.max_drain_cycles", "0");
  config::set_param(c, "sim.flush", "false");
  // Full offered load, or as much of it as one transfer per port per cycle allows.
  const double link_bytes = c.flit_bytes * c.link_flits_per_cycle();
  double load = std::min(1.0, static_cast<double>(size) / link_bytes);
  while (load * link_bytes / static_cast<double>(size) > 1.0) load = std::nextafter(load, 0.0);
  c.txn.load = load;
  config::validate(c);

  TxnFabric f(c, true);
  run_on_one_thread(f, [](uint64_t) { core::poll_interrupt(); });  // windows on a network
  const endpoint::TxnResult& r = f.endpoints().result();
  if (r.statuses[static_cast<size_t>(tl::Status::kCompletionTimeout)] != 0)
    timed_out(cfg, "uniform random traffic of " + point_name(p));
  for (int s = 1; s < tl::kStatuses; ++s)
    if (r.statuses[static_cast<size_t>(s)] != 0)
      throw std::logic_error("p2p: uniform random traffic of " + point_name(p) + ": " + std::to_string(r.statuses[static_cast<size_t>(s)]) +
                             " requests completed with status " + tl::status_name(static_cast<tl::Status>(s)));
  uint64_t bytes = 0;
  for (const endpoint::TxnPortResult& pr : r.ports) bytes += pr.completed_bytes;
  BandwidthResult out;
  out.window_cycles = r.window_cycles;
  out.payload_bytes_per_cycle =
      static_cast<double>(bytes) / static_cast<double>(f.network().endpoint_ports()) / static_cast<double>(r.window_cycles);
  const auto cls = static_cast<size_t>(data_class(p.op));
  out.efficiency = r.window_flits[cls]
                       ? static_cast<double>(r.window_payload[cls]) / (kTlFlitBytes * static_cast<double>(r.window_flits[cls]))
                       : 0.0;
  return out;
}

P2pTable measure_p2p_table(const config::Config& cfg, const P2pOptions& opt) {
  check_p2p_inputs(cfg, opt);
  P2pTable t;
  t.cfg = cfg;
  t.opt = opt;
  const config::Config pcfg = pair_config(cfg, opt.pair_ports);
  t.pair_ports = pcfg.sw.ports;
  const std::vector<P2pPoint> pts = p2p_points(opt.ops, opt.max_bytes, cfg.txn.atomic_op);
  t.rows.resize(pts.size());
  const double link_bytes = cfg.flit_bytes * cfg.link_flits_per_cycle();

  auto measure_row = [&](size_t i) {
    P2pRow& row = t.rows[i];
    const P2pPoint& p = pts[i];
    row.point = p;
    row.requests = p2p_requests(p);
    row.latency_cycles = p2p_zero_load_cycles(pcfg, p);
    row.latency_ns = static_cast<double>(row.latency_cycles) / cfg.clock_ghz;
    const BandwidthResult pair = p2p_pair_bandwidth(pcfg, p, opt.pair_warmup_cycles, opt.pair_measure_cycles);
    row.pair_gbytes_per_s = pair.payload_bytes_per_cycle * cfg.clock_ghz;
    row.efficiency = pair.efficiency;
    if (opt.uniform_random && uniform_random_supported(p)) {
      // A few times the time one transfer takes at the link's rate, so that large transfers reach
      // a steady state inside the warm-up and are counted over several of them.
      const auto transfer_cycles = static_cast<uint64_t>(std::ceil(static_cast<double>(p.bytes) / link_bytes));
      row.random_warmup_cycles = std::max(opt.random_warmup_cycles, opt.random_transfer_times_warmup * transfer_cycles);
      row.random_measure_cycles = std::max(opt.random_measure_cycles, opt.random_transfer_times_measure * transfer_cycles);
      const BandwidthResult rnd = p2p_uniform_random(cfg, p, row.random_warmup_cycles, row.random_measure_cycles);
      row.uniform_random_gbytes_per_s = rnd.payload_bytes_per_cycle * cfg.clock_ghz;
      row.uniform_random_efficiency = rnd.efficiency;
    }
  };

  // Rows are independent, so they may run on several threads; the first failing row (in table
  // order) is reported, as a single thread would. Interrupted, the completed rows are kept.
  t.interrupted = measure_rows(t.rows, opt.jobs, measure_row);
  return t;
}

const P2pRow* best_write_pair(const P2pTable& t) {
  const P2pRow* best = nullptr;
  for (const P2pRow& r : t.rows)
    if ((r.point.op == tl::Opcode::kWrite || r.point.op == tl::Opcode::kWriteFull) &&
        (!best || r.pair_gbytes_per_s > best->pair_gbytes_per_s))
      best = &r;
  return best;
}

nlohmann::ordered_json p2p_json(const P2pTable& t) {
  using json = nlohmann::ordered_json;
  const config::Config& c = t.cfg;
  const double link_bytes = c.flit_bytes * c.link_flits_per_cycle();
  json meta;
  meta["tool"] = "upswitch p2p";
  meta["upswitch_version"] = UPSWITCH_VERSION;
  meta["preset"] = c.preset.empty() ? "default" : c.preset;
  meta["interrupted"] = t.interrupted;  // Ctrl-C: only the rows completed before it
  meta["summary"] = {
      {"switch_ports", c.sw.ports},
      {"vcs", c.sw.vcs},
      {"clock_ghz", c.clock_ghz},
      {"link_gbytes_per_s", round_to(link_bytes * c.clock_ghz, kGbDigits)},
      {"link_flits_per_cycle", c.link_flits_per_cycle()},
      {"link_latency_cycles", c.link_latency_cycles},
      {"switch_pipeline_cycles",
       c.sw.routing_cycles + c.sw.sw_alloc_cycles + c.sw.xbar_cycles + c.sw.egress_cycles},
      {"mem_latency_cycles", c.accel.mem_latency_cycles},
      {"mem_bytes_per_cycle", c.accel.mem_bytes_per_cycle},
      {"max_outstanding", c.accel.max_outstanding},
      {"completer_queue", c.accel.completer_queue},
      {"compression", c.accel.compression},
      {"strict_order", c.accel.strict_order},
      {"atomic_op", tl::atomic_op_name(c.txn.atomic_op)},
      {"seed", c.measure.seed},
  };
  json ops = json::array();
  std::vector<tl::Opcode> list = t.opt.ops;
  if (list.empty())
    for (int i = 0; i < tl::kPointOpcodes; ++i) list.push_back(static_cast<tl::Opcode>(i));
  for (tl::Opcode op : list) ops.push_back(tl::opcode_name(op));
  meta["ops"] = ops;
  meta["max_bytes"] = t.opt.max_bytes;
  meta["columns"] = {"op", "bytes", "elem_bytes", "requests", "latency_cycles", "latency_ns", "pair_gbytes_per_s",
                     "efficiency", "uniform_random_gbytes_per_s", "uniform_random_efficiency"};
  meta["units"] = {
      {"bytes", "payload bytes per transfer"},
      {"elem_bytes", "atomic element size in bytes; 0 for reads and writes"},
      {"requests", "requests of at most 256 B one transfer becomes"},
      {"latency_cycles", "core clock cycles"},
      {"latency_ns", "ns (cycles / switch.clock_ghz)"},
      {"pair_gbytes_per_s", "GB/s (1e9 payload bytes per second)"},
      {"efficiency", "payload bytes / (TL flits x 64 B), data-carrying direction"},
      {"uniform_random_gbytes_per_s", "GB/s per port (1e9 payload bytes per second); null: not measured"},
      {"uniform_random_efficiency", "payload bytes / (TL flits x 64 B), data-carrying direction; null: not measured"},
  };
  meta["method"] = {
      {"latency",
       "zero load: one transfer submitted at endpoint 0 to the start of endpoint 1's window on an idle fabric; "
       "cycles from submission to the arrival of its last response (a round trip for every operation: writes "
       "and atomic_nr complete with their write response)"},
      {"pair",
       "endpoint 0 streams transfers to consecutive addresses of endpoint 1 (wrapping within txn.footprint_bytes), "
       "queued at cycle 0 so a request is issued whenever a tag is free; payload completed at endpoint 0 over cycles "
       "[pair_warmup, pair_warmup + pair_measure) (bandwidth_windows)"},
      {"uniform_random",
       "not the collective all-to-all (upswitch coll): independent transfers from every endpoint to uniformly random "
       "other endpoints, so destinations collide. The synthetic workload: traffic.pattern = uniform with traffic.exclude_self = true, txn.mix = OP:1, "
       "txn.sizes = BYTES:1 (atomics: the element size, txn.atomic_bytes), txn.load = min(1, BYTES / link bytes "
       "per cycle) (the one-transfer-per-port-per-cycle limit); payload completed at the initiators over the "
       "measurement window, per port, on the configured fabric. Warm-up = max(uniform_random_warmup, " +
           std::to_string(t.opt.random_transfer_times_warmup) + " x T), window = max(uniform_random_measure, " +
           std::to_string(t.opt.random_transfer_times_measure) +
           " x T), T = ceil(BYTES / link bytes per cycle). At this load the run is saturated: the number is the "
           "throughput saturated uniform random traffic sustains, within about 2% (5% from 256 KiB up, where few transfers "
           "are in flight). Multi-element atomics: null (the synthetic workload issues single-element atomics)"},
      {"efficiency",
       "from the pair stream's window: payload bytes / (flits x 64 B) of the direction that carries the payload "
       "(responses for read; requests for write, writefull and atomics, whose operands are the payload)"},
  };
  meta["bandwidth_windows"] = {
      {"pair_warmup_cycles", t.opt.pair_warmup_cycles},
      {"pair_measure_cycles", t.opt.pair_measure_cycles},
      {"uniform_random_warmup_cycles", t.opt.random_warmup_cycles},
      {"uniform_random_measure_cycles", t.opt.random_measure_cycles},
      {"uniform_random_transfer_times_warmup", t.opt.random_transfer_times_warmup},
      {"uniform_random_transfer_times_measure", t.opt.random_transfer_times_measure},
  };
  meta["pair_fabric_ports"] = t.pair_ports;
  meta["pair_fabric_note"] =
      t.pair_ports == c.sw.ports
          ? "latency and pair runs on the configured fabric"
          : "latency and pair runs on a " + std::to_string(t.pair_ports) +
                "-port copy of the configuration: one pair's traffic meets no other, so the answer is the same "
                "(tests/unit/p2p_table_test.cpp checks it against switch.ports = 72)";
  meta["targets"] = {
      {"source", "UALink 1.0 (shared/reference/ualink-nvswitch-facts.md 1.10)"},
      {"round_trip_ns_below", 1000},
      {"round_trip_payloads", "64 B and 640 B"},
      {"effective_bandwidth_fraction", 0.93},
  };
  meta["config"] = json::parse(config::config_to_json(c).dump());

  json rows = json::array();
  for (const P2pRow& r : t.rows) {
    json j;
    j["op"] = tl::opcode_name(r.point.op);
    j["bytes"] = r.point.bytes;
    j["elem_bytes"] = r.point.elem_bytes;
    j["requests"] = r.requests;
    j["latency_cycles"] = r.latency_cycles;
    j["latency_ns"] = round_to(r.latency_ns, kNsDigits);
    j["pair_gbytes_per_s"] = round_to(r.pair_gbytes_per_s, kGbDigits);
    j["efficiency"] = round_to(r.efficiency, kEffDigits);
    j["uniform_random_gbytes_per_s"] =
        r.uniform_random_gbytes_per_s ? json(round_to(*r.uniform_random_gbytes_per_s, kGbDigits)) : json(nullptr);
    j["uniform_random_efficiency"] =
        r.uniform_random_efficiency ? json(round_to(*r.uniform_random_efficiency, kEffDigits)) : json(nullptr);
    rows.push_back(j);
  }
  return json{{"meta", meta}, {"rows", rows}};
}

std::string p2p_csv(const P2pTable& t) {
  std::string s =
      "op,bytes,elem_bytes,requests,latency_cycles,latency_ns,pair_gbytes_per_s,efficiency,uniform_random_gbytes_per_s,"
      "uniform_random_efficiency\n";
  for (const P2pRow& r : t.rows) {
    s += std::string(tl::opcode_name(r.point.op)) + "," + std::to_string(r.point.bytes) + "," +
         std::to_string(r.point.elem_bytes) + "," + std::to_string(r.requests) + "," + std::to_string(r.latency_cycles) +
         "," + fixed(r.latency_ns, kNsDigits) + "," + fixed(r.pair_gbytes_per_s, kGbDigits) + "," +
         fixed(r.efficiency, kEffDigits) + "," +
         (r.uniform_random_gbytes_per_s ? fixed(*r.uniform_random_gbytes_per_s, kGbDigits) : "") + "," +
         (r.uniform_random_efficiency ? fixed(*r.uniform_random_efficiency, kEffDigits) : "") + "\n";
  }
  return s;
}

std::string p2p_text(const P2pTable& t) {
  const config::Config& c = t.cfg;
  const double link_gb = c.flit_bytes * c.link_flits_per_cycle() * c.clock_ghz;
  char buf[256];
  std::string s;
  std::snprintf(buf, sizeof buf,
                "upswitch p2p: preset %s, %d ports, %.3g GHz, link %.3f GB/s per direction; latency and pair on %d "
                "ports, uniform random on %d\n",
                c.preset.empty() ? "default" : c.preset.c_str(), c.sw.ports, c.clock_ghz, link_gb, t.pair_ports,
                c.sw.ports);
  s += buf;
  std::snprintf(buf, sizeof buf, "%-10s %9s %4s %5s %9s %11s %9s %6s %9s %8s\n", "op", "bytes", "elem", "reqs",
                "lat_cyc", "lat_ns", "pair_GB/s", "eff", "rand_GB/s", "rand_eff");
  s += buf;
  for (const P2pRow& r : t.rows) {
    const std::string elem = r.point.elem_bytes ? std::to_string(r.point.elem_bytes) : "-";
    const std::string rnd = r.uniform_random_gbytes_per_s ? fixed(*r.uniform_random_gbytes_per_s, kGbDigits) : "-";
    const std::string rnd_eff = r.uniform_random_efficiency ? fixed(*r.uniform_random_efficiency, kEffDigits) : "-";
    std::snprintf(buf, sizeof buf, "%-10s %9llu %4s %5llu %9llu %11s %9s %6s %9s %8s\n", tl::opcode_name(r.point.op),
                  static_cast<unsigned long long>(r.point.bytes), elem.c_str(),
                  static_cast<unsigned long long>(r.requests), static_cast<unsigned long long>(r.latency_cycles),
                  fixed(r.latency_ns, kNsDigits).c_str(), fixed(r.pair_gbytes_per_s, kGbDigits).c_str(),
                  fixed(r.efficiency, kEffDigits).c_str(), rnd.c_str(), rnd_eff.c_str());
    s += buf;
  }
  std::snprintf(buf, sizeof buf,
                "UALink targets (facts 1.10): round trip < 1000 ns for 64 B and 640 B; ~93%% effective bandwidth "
                "(%.1f GB/s of this link)\n",
                0.93 * link_gb);
  s += buf;
  return s;
}

}  // namespace upswitch::top
