// The point-to-point table (`upswitch p2p`, doc/p2p.md): per operation and transfer size, the
// zero-load round trip, the sustained bandwidth of one endpoint streaming to another, the
// protocol efficiency of that stream, and the per-port bandwidth of uniform random traffic at full
// offered load (every endpoint sending to random others: not the collective all-to-all of
// top/coll_table.h, whose schedule sends one block to every peer). Higher-level simulators (ASTRA-sim, SimAI) take it as their network model.
// Plain C++ over top::TxnFabric, so tests can call every measurement directly.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "tl/ops.h"

namespace upswitch::top {

// One row's operation: `elem_bytes` is the atomic element size (4 or 8), 0 for reads and writes.
struct P2pPoint {
  tl::Opcode op = tl::Opcode::kRead;
  uint64_t bytes = 0;
  int elem_bytes = 0;
};

struct P2pOptions {
  std::vector<tl::Opcode> ops;  // empty = all five, in opcode order
  uint64_t max_bytes = uint64_t{1} << 20;
  // Bandwidth runs: cycles before the measurement window and the window itself. A pair stream
  // settles within a round trip; uniform random traffic at full load takes a few thousand cycles to reach
  // its saturation throughput (its error is in the warm-up, not the window), and with large
  // transfers both windows stretch to a few transfer times T = bytes / link bytes per cycle.
  uint64_t pair_warmup_cycles = 2000, pair_measure_cycles = 10000;
  uint64_t random_warmup_cycles = 4000, random_measure_cycles = 4000;
  uint64_t random_transfer_times_warmup = 1, random_transfer_times_measure = 2;
  // Ports of the fabric the latency and pair runs use (one pair never depends on the others);
  // 0 = the configuration's switch.ports. The configuration's own size is used anyway when it
  // has a routing table.
  int pair_ports = 4;
  bool uniform_random = true;
  int jobs = 1;  // rows measured in parallel (each row is independent: results do not change)
};

struct P2pRow {
  P2pPoint point;
  uint64_t requests = 0;  // requests the initiator splits one transfer into
  uint64_t latency_cycles = 0;
  double latency_ns = 0;
  double pair_gbytes_per_s = 0;
  double efficiency = 0;  // of the pair stream's data-carrying direction
  std::optional<double> uniform_random_gbytes_per_s, uniform_random_efficiency;  // none: not measurable
  uint64_t random_warmup_cycles = 0, random_measure_cycles = 0;
};

struct P2pTable {
  config::Config cfg;
  P2pOptions opt;
  int pair_ports = 0;  // ports the latency and pair runs actually used
  std::vector<P2pRow> rows;
  bool interrupted = false;  // Ctrl-C: rows holds the rows completed before it, in table order
};

// The rows of the table, in order: per operation, reads and writes at 4 .. 256 B (one request)
// then 512 B .. max_bytes in powers of two; writefull from 64 B; atomics at 4 B elements (4 B,
// 64 B) and 8 B elements (8 B, 64 B; 32 B instead of 64 B for cas). Sizes above max_bytes are
// left out.
std::vector<P2pPoint> p2p_points(const std::vector<tl::Opcode>& ops, uint64_t max_bytes, tl::AtomicOp aop);
// Requests one aligned transfer of the point's size becomes (256 B each at most).
uint64_t p2p_requests(const P2pPoint& p);

// The checks `upswitch p2p` makes of its inputs; throws config::ConfigError (one line).
void check_p2p_inputs(const config::Config& cfg, const P2pOptions& opt);
// The configuration the latency and pair runs use: `cfg` shrunk to `ports` (when it has no
// routing table; the traffic pattern keys, unused by these runs, go back to their defaults).
config::Config pair_config(const config::Config& cfg, int ports);

// Zero-load round trip in cycles: one transfer submitted at endpoint 0 to endpoint 1's memory
// on an idle fabric, from submission to the cycle its last response arrives.
uint64_t p2p_zero_load_cycles(const config::Config& cfg, const P2pPoint& p);

struct BandwidthResult {
  double payload_bytes_per_cycle = 0;  // completed at the initiators, per port
  double efficiency = 0;               // payload / (flits x 64 B), data-carrying direction
  uint64_t window_cycles = 0;
};
// Endpoint 0 streams transfers of the point to endpoint 1 (a backlog queued at cycle 0, so the
// initiator always has a request to issue when it has a tag): payload completed at endpoint 0
// over [warmup, warmup + measure).
BandwidthResult p2p_pair_bandwidth(const config::Config& cfg, const P2pPoint& p, uint64_t warmup, uint64_t measure);
// Every endpoint offers transfers of the point to uniformly random other endpoints at the
// highest txn.load the one-transfer-per-cycle rule allows (the synthetic workload); payload
// completed per port over the measurement window.
BandwidthResult p2p_uniform_random(const config::Config& cfg, const P2pPoint& p, uint64_t warmup, uint64_t measure);
// Whether the synthetic workload can generate the point (its atomics are single elements).
bool uniform_random_supported(const P2pPoint& p);

// The whole table. Throws config::ConfigError on bad inputs (before simulating anything),
// core::DeadlockError or std::logic_error when the model fails.
P2pTable measure_p2p_table(const config::Config& cfg, const P2pOptions& opt);

// The write or writefull row with the highest pair bandwidth (what one endpoint's link delivers
// to one other in one direction); null when the table has none.
const P2pRow* best_write_pair(const P2pTable& t);

// Keys in insertion order: meta first, then the rows with their fields in the CSV's column order.
nlohmann::ordered_json p2p_json(const P2pTable& t);
std::string p2p_csv(const P2pTable& t);
std::string p2p_text(const P2pTable& t);  // the table as `upswitch p2p` prints it

}  // namespace upswitch::top
