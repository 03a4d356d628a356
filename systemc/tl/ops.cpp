#include "tl/ops.h"

#include <cstring>

namespace upswitch::tl {
namespace {

const char* const kOpcodeNames[kOpcodes] = {"read", "write", "writefull", "atomic_r", "atomic_nr", "reduce"};
const char* const kAtomicNames[kAtomicOps] = {"add",  "and",  "or",   "xor", "min_s", "max_s",
                                              "min_u", "max_u", "swap", "cas", "fadd"};
const char* const kStatusNames[kStatuses] = {"okay",         "decode_error",         "unsupported",
                                             "misaligned",   "bad_length",           "bad_byte_enable",
                                             "target_abort", "protection_violation", "completion_timeout"};

}  // namespace

const char* opcode_name(Opcode op) { return kOpcodeNames[static_cast<int>(op)]; }
const char* atomic_op_name(AtomicOp op) { return kAtomicNames[static_cast<int>(op)]; }
const char* status_name(Status s) { return kStatusNames[static_cast<int>(s)]; }

bool parse_opcode(const char* text, Opcode& out) {
  for (int i = 0; i < kOpcodes; ++i)
    if (std::strcmp(text, kOpcodeNames[i]) == 0) {
      out = static_cast<Opcode>(i);
      return true;
    }
  return false;
}

bool parse_atomic_op(const char* text, AtomicOp& out) {
  for (int i = 0; i < kAtomicOps; ++i)
    if (std::strcmp(text, kAtomicNames[i]) == 0) {
      out = static_cast<AtomicOp>(i);
      return true;
    }
  return false;
}

}  // namespace upswitch::tl
