// libFuzzer target: any bytes as an MoE token-to-expert assignment file (moe.assignment_file) for
// 4 ranks x 4 tokens, top-2 of 8 experts. Only an assignment that passes every rule or a one-line
// ConfigError is acceptable; an accepted one must give a dispatch matrix of whole tokens.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "config/config.h"
#include "traffic/moe.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  upswitch::traffic::MoeParams p;
  p.ranks = 4;
  p.tokens = 4;
  p.hidden = 16;
  p.elem_bytes = 2;
  p.experts = 8;
  p.experts_per_rank = 2;
  p.top_k = 2;
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    const upswitch::traffic::MoeAssignment a = upswitch::traffic::read_assignment(p, in, "fuzz");
    uint64_t total = 0;
    for (uint64_t b : upswitch::traffic::dispatch_bytes(p, a)) {
      if (b % 32) __builtin_trap();
      total += b;
    }
    if (total != 4 * 4 * 2 * 32) __builtin_trap();  // every pick of every token, no drops
  } catch (const upswitch::config::ConfigError& e) {
    if (std::string(e.what()).find('\n') != std::string::npos) __builtin_trap();
  }
  return 0;
}
