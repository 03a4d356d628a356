// libFuzzer target: any bytes as `--set KEY=VALUE` arguments, one per line, applied in order and
// then validated, as `upswitch run` does (and, for transactions, checked as `upswitch workload`
// checks its keys). Only a valid configuration or a one-line ConfigError is
// acceptable.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "config/param_table.h"
#include "top/workload_run.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  upswitch::config::Config c = upswitch::config::default_config();
  std::string line;
  try {
    while (std::getline(in, line)) {
      const size_t eq = line.find('=');
      if (eq == std::string::npos || eq == 0) throw upswitch::config::ConfigError("--set '" + line + "': expected KEY=VALUE");
      upswitch::config::set_param(c, line.substr(0, eq), line.substr(eq + 1));
    }
    upswitch::config::validate(c);
    // (Not with file gating: the fuzzer must not read whatever path it names.)
    if (c.kind == upswitch::config::Config::TrafficKind::kTransactions &&
        c.workload.moe.gating != upswitch::traffic::Gating::kFile)
      upswitch::top::check_workload(c);
  } catch (const upswitch::config::ConfigError& e) {
    if (std::string(e.what()).find('\n') != std::string::npos) __builtin_trap();  // errors are one line
  }
  return 0;
}
