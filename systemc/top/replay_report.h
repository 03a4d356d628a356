// The outputs of a trace replay (`upswitch replay`, doc/trace.md): the per-operation table as
// text, CSV and JSON (with the version and the resolved configuration and its hash).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "top/trace_replay.h"

namespace upswitch::top {

std::string replay_text(const ReplayResult& r);  // id, op, start_us, end_us, time_us, status
std::string replay_csv(const ReplayResult& r);
nlohmann::ordered_json replay_json(const ReplayResult& r);

}  // namespace upswitch::top
