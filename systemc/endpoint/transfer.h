// A transfer: one operation as its user asked for it (a put, a get, a fetch-add), which the
// initiator splits into requests of at most 256 B that never cross a 256 B boundary. A transfer
// completes when every request has been answered; its status is the first non-OKAY one.
#pragma once

#include <cstdint>

#include "tl/message.h"

namespace upswitch::endpoint {

// Told when a transfer completes (TLM adapter, tests). `cookie` is the client's own value.
class TransferClient {
 public:
  virtual ~TransferClient() = default;
  virtual void transfer_done(uint64_t cookie, tl::Status status, uint64_t cycle) = 0;
};

struct TransferRequest {
  tl::Opcode op = tl::Opcode::kRead;
  tl::AtomicOp aop = tl::AtomicOp::kAdd;
  uint8_t elem_bytes = 8;
  // Reduce, and a Read of a multicast address (load-reduce): element type and operation.
  tl::RedType rtype = tl::RedType::kF32;
  tl::RedOp rop = tl::RedOp::kSum;
  uint64_t addr = 0;
  uint64_t bytes = 0;
  // Write data / atomic operands (bytes long); null = a generated pattern (synthetic traffic).
  const uint8_t* data = nullptr;
  // Where read data / old values go (bytes long); null = dropped.
  uint8_t* result = nullptr;
  // Per-byte enables, repeated every `byte_enable_len` bytes (TLM semantics); null = all.
  const uint8_t* byte_enable = nullptr;
  uint32_t byte_enable_len = 0;
  const uint8_t* compare = nullptr;  // CAS compare values (bytes long)
  // Collectives (a device's own buffers): write data / operands come from the initiator's own
  // memory at this offset, read as each request is issued (instead of `data`); read data goes to
  // its own memory at this offset as each response arrives (instead of `result`). kNoOffset = unused.
  static constexpr uint64_t kNoOffset = UINT64_MAX;
  uint64_t local_src = kNoOffset, local_dst = kNoOffset;
  TransferClient* client = nullptr;
  uint64_t cookie = 0;
  // Issued before the transfers already waiting at its endpoint (after earlier urgent ones): a
  // collective's synchronisation flag, which the GPU stores as soon as the data it guards is
  // complete, not behind the data its copy queue still holds (doc/nccl.md).
  bool urgent = false;
  // coll.data = timing: its requests move no payload (tl::Message::no_data): nothing is read from
  // or written to memory at either end, and the timing is the same.
  bool timing_only = false;
  // Collectives: requests carry at most this much data (a GPU's largest store; 0 = 256 B) and
  // never cross a multiple of it; with protocol lines (line_bytes > line_data > 0), every
  // line_data bytes of data take line_bytes on the wire (coll/protocol.h).
  uint16_t max_request = 0;
  uint16_t line_bytes = 0, line_data = 0;
};

struct Transfer {
  TransferRequest req;
  uint64_t created = 0;      // cycle the transfer was submitted
  uint64_t first_issue = 0;  // cycle its first request took a tag
  uint64_t issued_bytes = 0;
  uint32_t outstanding = 0;  // requests issued and not yet answered
  tl::Status status = tl::Status::kOkay;
  bool all_issued = false;
  bool measured = false;
  int port = 0;
};

}  // namespace upswitch::endpoint
