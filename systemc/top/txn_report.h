// The outputs of a synthetic transaction run (`upswitch run` with traffic.kind = transactions):
// summary JSON (README documents the fields), per-port CSV and per-operation latency histograms.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "top/report.h"

namespace upswitch::top {

class TxnFabric;

nlohmann::json build_txn_summary(const TxnFabric& f, const RunTiming& timing,
                                 const std::vector<std::string>& conservation_violations);
std::string txn_ports_csv(const TxnFabric& f);
// links.csv of a transaction run (top/network_report.h): one row per direction of every link.
std::string txn_links_csv(const TxnFabric& f);
// One row per (operation, latency bucket): op, latency_cycles, count, network_count.
std::string txn_latency_histogram_csv(const TxnFabric& f);

}  // namespace upswitch::top
