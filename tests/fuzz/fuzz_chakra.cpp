// libFuzzer target: any bytes as a Chakra execution-trace file (`upswitch replay --chakra`,
// doc/trace.md), read and converted as a one-rank trace. Only a trace whose every `after` names an
// earlier operation, or a one-line ConfigError, is acceptable.
#include <cstddef>
#include <cstdint>
#include <string>

#include "chakra/chakra_trace.h"
#include "config/config.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    upswitch::chakra::ChakraTrace c;
    c.prefix = "fuzz";
    c.ranks.push_back(upswitch::chakra::parse_rank_trace(std::string(reinterpret_cast<const char*>(data), size), "fuzz.0.et"));
    const upswitch::traffic::Trace t = upswitch::chakra::to_trace(c);
    for (size_t i = 0; i < t.ops.size(); ++i)
      for (size_t a : t.ops[i].after)
        if (a >= i) __builtin_trap();
  } catch (const upswitch::config::ConfigError& e) {
    if (std::string(e.what()).find('\n') != std::string::npos) __builtin_trap();
  }
  return 0;
}
