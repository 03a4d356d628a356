// Everything `upswitch table` derives from its measured tables, as files and as table.json keys:
// the α-β fits (fits.csv), and for each group size N of at least 2 ranks the ASTRA-sim network
// file (astra_network_nN.yml) and SimAI's busbw inputs (simai_*_nN.*). None of them is written
// for an interrupted table.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "top/planner_table.h"

namespace upswitch::top {

// (file name, content); `csv_head` starts fits.csv (the version and configuration comment).
std::vector<std::pair<std::string, std::string>> planner_export_files(const PlannerTable& t,
                                                                      const std::string& csv_head);
// Adds "fits", "astra_network" and "simai" to table.json.
void add_exports_json(const PlannerTable& t, nlohmann::ordered_json& out);

}  // namespace upswitch::top
