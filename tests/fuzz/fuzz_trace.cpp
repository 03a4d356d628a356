// libFuzzer target: any bytes as a JSON Lines trace (`upswitch replay`, doc/trace.md). Only a
// parsed trace whose every `after` names an earlier line, or a one-line ConfigError, is acceptable.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "config/config.h"
#include "traffic/trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    const upswitch::traffic::Trace t = upswitch::traffic::parse_trace(in, "fuzz");
    for (size_t i = 0; i < t.ops.size(); ++i)
      for (size_t a : t.ops[i].after)
        if (a >= i) __builtin_trap();
  } catch (const upswitch::config::ConfigError& e) {
    if (std::string(e.what()).find('\n') != std::string::npos) __builtin_trap();
  }
  return 0;
}
