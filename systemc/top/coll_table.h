// The nccl-tests-style collective table (doc/reduction.md): for each collective, algorithm,
// group size and message size, the time of one collective on an idle switch, algorithm and bus
// bandwidth (nccl-tests' definitions) and the number of wrong result elements against the host
// reference. Each point is its own run: a pure function of (configuration, point, seed).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "coll/collective.h"
#include "config/config.h"
#include "top/placement.h"

namespace upswitch::top {

struct CollTableOptions {
  std::vector<coll::Collective> colls = {coll::Collective::kAllReduce};
  std::vector<coll::Algorithm> algos;  // forced rows' algorithms; empty: every algorithm that applies
  bool forced_rows = true;  // rows of the algorithms in `algos`
  // Rows of the algorithm, protocol and channel count --algo auto picks (top/coll_choice.h), after
  // the forced rows of each collective.
  bool auto_rows = false;
  std::vector<coll::Protocol> protocols;  // the ring's; empty: the configuration's coll.protocol
  std::vector<int> group_sizes = {8};
  Placement placement;  // which endpoints a group of n ranks takes (top/placement.h)
  tl::RedType type = tl::RedType::kF32;
  tl::RedOp op = tl::RedOp::kSum;
  uint64_t min_bytes = 8, max_bytes = uint64_t{64} << 20;
  int step_factor = 2;  // sizes min, min*f, min*f^2, ... up to max
  uint64_t slice_bytes = 0;  // 0: each algorithm's default (coll::default_slice)
  int root = 0;
  bool check = true;  // compare every result element with the host reference
  int jobs = 2;       // points measured in parallel threads (the table is the same for any value)
  // Each point's network on this many threads (TxnFabric::use_threads; the same table); 0: the
  // cores --jobs leaves idle when the table has fewer points than jobs, for points that can be
  // split (else one).
  int threads = 1;
};

struct CollRow {
  coll::Collective coll;
  coll::Algorithm algo;
  coll::Protocol protocol = coll::Protocol::kSimple;  // as run: oneshot and switch use simple
  int channels = 1;                                   // concurrent runs the buffer was split into
  bool chosen = false;        // picked by --algo auto (else forced)
  double predicted_us = 0;    // the cost model's time for what ran (auto: the pick; top/coll_choice.h)
  int ranks = 0;
  uint64_t bytes = 0, count = 0;
  uint64_t cycles = 0;
  double time_us = 0, algbw = 0, busbw = 0;  // GB/s
  int64_t wrong = -1;                        // -1: not checked
  double max_error_ratio = 0;
  // Per-rank payload on the links, mean over ranks, excluding the ring's 8 B flags.
  double tx_bytes_per_rank = 0, rx_bytes_per_rank = 0;
  uint64_t flags = 0;
  std::vector<int> endpoints;  // the group, in ring order
};

struct CollTable {
  config::Config cfg;
  CollTableOptions opt;
  std::vector<CollRow> rows;
  bool interrupted = false;  // Ctrl-C: rows holds the points completed before it, in table order
};

// The endpoints of a group of n ranks under opt.placement, in ring order; a config::ConfigError
// naming --ranks or --placement when there are none.
std::vector<int> group_ranks(const config::Config& cfg, const CollTableOptions& opt, int n);

// The message sizes of the table (rounded down to whole elements; at least one element; each
// size once).
std::vector<uint64_t> coll_sizes(const CollTableOptions& opt);
// Throws config::ConfigError naming the option for anything the table cannot measure.
void check_coll_inputs(const config::Config& cfg, const CollTableOptions& opt);
// The threads each of `points` points gets (CollTableOptions::threads; 0: --jobs over the points
// measured at once).
int threads_per_point(const CollTableOptions& opt, size_t points);
// One point: a fresh fabric, one collective from cycle 0, on `threads` threads (at least 1);
// `optional`: one thread when the point cannot be split (instead of ParallelError).
// `channels`: concurrent runs the buffer is split into (0: coll.channels).
CollRow measure_coll_point(const config::Config& cfg, const coll::CollectiveSpec& spec, bool check, int threads = 1,
                           bool optional = false, int channels = 0);
CollTable measure_coll_table(const config::Config& cfg, const CollTableOptions& opt,
                             const std::function<void(size_t done, size_t total)>& progress = {});

// The row of the largest size measured for (collective, algorithm, group size) with a positive
// busbw; null when there is none (not measured, or one rank, whose bus factor is 0).
const CollRow* largest_row(const CollTable& t, coll::Collective c, coll::Algorithm a, int ranks);
// The same among --algo auto rows (whatever each size picked); nullptr when there are none.
const CollRow* largest_auto_row(const CollTable& t, coll::Collective c, int ranks);
// What a row ran, as choice_name gives it: "ring/ll128/4ch".
std::string run_name(const CollRow& r);

std::string coll_text(const CollTable& t);  // printed like nccl-tests
std::string coll_csv(const CollTable& t);
nlohmann::ordered_json coll_json(const CollTable& t);

}  // namespace upswitch::top
