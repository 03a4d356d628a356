// The transaction layer's operation set (UALink 1.0 UPLI commands, facts §1.3-1.4): reads,
// writes with byte enables, full-line writes, and atomics with or without a returned value.
#pragma once

#include <cstdint>

namespace upswitch::tl {

enum class Opcode : uint8_t {
  kRead,       // ReqCmd 0x03: data comes back on the read-response channel
  kWrite,      // 0x28: per-byte enables travel in a 32 B byte-enable half-flit
  kWriteFull,  // 0x29: all bytes enabled, 64 B aligned, a multiple of 64 B, no byte-enable half-flit
  kAtomicR,    // 0x30: returns the old values (read-response channel)
  kAtomicNR,   // 0x32: status only (write-response channel)
  // A reduction applied at the target (NVLS multimem.red, facts §2.4): mem = op(mem, operand)
  // element by element, in the message's reduction type; status only. Not a UALink 1.0 command:
  // the reduction engine issues it to every member of a multicast group, and a user may send it
  // to one target.
  kReduce,
};
constexpr int kOpcodes = 6;
// The operations of the default point-to-point table (kReduce is asked for by name).
constexpr int kPointOpcodes = 5;

// Atomic operations on 4 B or 8 B elements (OpType; the UALink encodings are not public, facts
// §1.4, so this is the usual GPU/NVSHMEM set).
enum class AtomicOp : uint8_t {
  kAdd, kAnd, kOr, kXor, kMinS, kMaxS, kMinU, kMaxU, kSwap, kCas, kFAdd,
};
constexpr int kAtomicOps = 11;

// Completion status (UALink response status codes, facts §1.3).
enum class Status : uint8_t {
  kOkay,
  kDecodeError,   // the address is in no accelerator window, or beyond the target's memory
  kUnsupported,   // the completer does not implement this atomic (SLVERR)
  kMisaligned,    // address not aligned to a doubleword (or to the atomic element size)
  kBadLength,     // length not 4..256 B in doublewords, or crossing a 256 B boundary
  kBadByteEnable, // WriteFull without all bytes enabled, or not 64 B aligned / sized
  // Faults and isolation (doc/reliability.md):
  kTargetAbort,          // the switch port of the target is down (faults.port_down)
  kProtectionViolation,  // requester and target are in different virtual pods (partition.pods)
  kCompletionTimeout,    // no response within endpoint.completion_timeout_ns (given by the requester)
};
constexpr int kStatuses = 9;

const char* opcode_name(Opcode op);
const char* atomic_op_name(AtomicOp op);
const char* status_name(Status s);
bool parse_opcode(const char* text, Opcode& out);
bool parse_atomic_op(const char* text, AtomicOp& out);

inline bool is_atomic(Opcode op) { return op == Opcode::kAtomicR || op == Opcode::kAtomicNR; }
inline bool carries_request_data(Opcode op) { return op != Opcode::kRead; }
// Whether the response carries data: reads and value-returning atomics.
inline bool returns_data(Opcode op) { return op == Opcode::kRead || op == Opcode::kAtomicR; }

}  // namespace upswitch::tl
