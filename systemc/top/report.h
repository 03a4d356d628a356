// Turns a finished run into its outputs: the summary JSON (the CLI contract, see README), the
// per-port CSV and the latency histogram CSV, each written atomically (temporary file, rename).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "core/switch_stats.h"
#include "stats/histogram.h"
#include "traffic/run_result.h"
#include "traffic/saturation.h"

namespace upswitch::top {

class Fabric;

struct RunTiming {
  double wall_seconds = 0;
  std::string kernel;  // "systemc" or "plain"
};

// A latency histogram as the summaries report it (cycles and ns; nulls when not valid or empty).
nlohmann::json latency_json(const stats::Histogram& h, bool valid, double ns_per_cycle);
// The switch's buffer, crossbar and credit-stall figures over `port_cycles` (window x ports).
nlohmann::json switch_summary_json(const core::SwitchStats& s, int ports, double port_cycles);

nlohmann::json build_summary(const Fabric& f, const RunTiming& timing,
                             const std::vector<std::string>& conservation_violations);
// summary.json /flows: offered and accepted flits of the hot and cold destination classes (hot =
// traffic.hotspot_ports under the hotspot pattern) over a window of `window` cycles.
nlohmann::json flows_json(const Fabric& f, double window);
// summary.json /fairness: accepted throughput per source and per destination endpoint and Jain's
// index over each.
nlohmann::json fairness_json(const traffic::RunResult& r, double window);
std::string ports_csv(const Fabric& f);
// links.csv (top/network_report.h): every direction of every link.
std::string links_csv(const Fabric& f);
std::string latency_histogram_csv(const Fabric& f);
// Zero-load packet latency in cycles for a packet of `flits` flits (doc/architecture.md).
uint64_t zero_load_latency_cycles(const config::Config& c, int flits);
uint64_t zero_load_latency_cycles(const Fabric& f, int flits);

// The saturation verdict's evidence (summary.json /saturation): sample windows, the backlog's
// least-squares growth over the window and its t value, the latency trend per window (cycles),
// the backlog samples and each window's mean latency (flits and cycles for packets, bytes for
// transactions).
nlohmann::json saturation_json(const traffic::SaturationEvidence& e);

// Writes `text` to `path`, checking every step (a full disk is an error, not a short file);
// throws std::runtime_error naming the path and the reason.
void write_file(const std::string& path, const std::string& text);
// Writes `text` to `path` through a temporary file and a rename.
void write_file_atomic(const std::string& path, const std::string& text);

}  // namespace upswitch::top
