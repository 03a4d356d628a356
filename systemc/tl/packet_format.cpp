#include "tl/packet_format.h"

#include "tl/request_rules.h"

namespace upswitch::tl {

bool compressible(const Message& m) {
  if (m.op != Opcode::kRead && m.op != Opcode::kWrite && m.op != Opcode::kWriteFull) return false;
  if (m.op == Opcode::kRead && m.mc) return false;  // a load-reduce names its type and operation
  return m.addr % 64 == 0 && m.len % 64 == 0;
}

int header_sectors(const Message& m) {
  if (m.response) return m.compressed && m.status == Status::kOkay ? 1 : 2;
  return m.compressed ? 2 : 4;
}

int data_halves(const Message& m) {
  if (m.response) {
    if (m.status != Status::kOkay) return 0;
    if (m.op == Opcode::kRead) return 2 * data_beats(m.addr, m.len);
    return m.op == Opcode::kAtomicR ? 2 : 0;
  }
  switch (m.op) {
    case Opcode::kRead: return 0;
    case Opcode::kWrite: return 2 * data_beats(m.addr, m.len) + 1;
    case Opcode::kWriteFull: return 2 * data_beats(m.addr, m.len);
    case Opcode::kAtomicR:
    case Opcode::kAtomicNR: return 3;
    case Opcode::kReduce: return 2 * data_beats(m.addr, m.len);
  }
  return 0;
}

int payload_bytes(const Message& m) { return m.len; }

}  // namespace upswitch::tl
