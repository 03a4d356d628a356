#include "top/replay_report.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "config/param_table.h"
#include "top/workload_run.h"
#include "version.h"

namespace upswitch::top {

std::string replay_text(const ReplayResult& r) {
  int id_w = 2, op_w = 2;
  for (const ReplayRow& x : r.rows) {
    id_w = std::max(id_w, static_cast<int>(x.id.size()));
    op_w = std::max(op_w, static_cast<int>(x.op.size()));
  }
  std::ostringstream o;
  char line[256];
  if (r.cfg.workload.placement != "packed")  // accelerator ids of the trace moved (top::place_trace)
    o << "# trace accelerator ids placed by workload.placement = " << r.cfg.workload.placement << "\n";
  std::snprintf(line, sizeof line, "%-*s  %-*s %11s %11s %11s  %-8s %s\n", id_w, "id", op_w, "op", "start_us",
                "end_us", "time_us", "status", "ran");
  o << line;
  for (const ReplayRow& x : r.rows) {
    const std::string ran =
        x.channels > 0 ? x.algorithm + "/" + x.protocol + "/" + std::to_string(x.channels) + "ch" : std::string("-");
    std::snprintf(line, sizeof line, "%-*s  %-*s %11.3f %11.3f %11.3f  %-8s %s\n", id_w, x.id.c_str(), op_w,
                  x.op.c_str(), x.start_us, x.end_us, x.time_us, tl::status_name(x.status), ran.c_str());
    o << line;
  }
  return o.str();
}

std::string replay_csv(const ReplayResult& r) {
  std::ostringstream o;
  o.precision(10);
  o << "line,id,op,bytes,algorithm,protocol,channels,start_cycle,end_cycle,start_us,end_us,time_us,status\n";
  for (const ReplayRow& x : r.rows)
    o << x.line << ',' << x.id << ',' << x.op << ',' << x.bytes << ',' << x.algorithm << ',' << x.protocol << ','
      << x.channels << ',' << x.start << ',' << x.end << ',' << x.start_us
      << ',' << x.end_us << ',' << x.time_us << ',' << tl::status_name(x.status) << '\n';
  return o.str();
}

nlohmann::ordered_json replay_json(const ReplayResult& r) {
  using json = nlohmann::ordered_json;
  json out;
  out["upswitch_version"] = UPSWITCH_VERSION;
  out["config_hash"] = config_hash(r.cfg);
  out["interrupted"] = r.interrupted;  // Ctrl-C: rows of the operations completed before it
  out["config"] = json::parse(config::config_to_json(r.cfg).dump());
  out["trace"] = r.trace;
  out["cycles"] = r.cycles;
  json rows = json::array();
  for (const ReplayRow& x : r.rows)
    rows.push_back({{"line", x.line}, {"id", x.id}, {"op", x.op}, {"bytes", x.bytes}, {"algorithm", x.algorithm},
                    {"protocol", x.protocol}, {"channels", x.channels}, {"start_cycle", x.start},
                    {"end_cycle", x.end}, {"start_us", x.start_us}, {"end_us", x.end_us}, {"time_us", x.time_us},
                    {"status", tl::status_name(x.status)}});
  out["rows"] = rows;
  return out;
}

}  // namespace upswitch::top
