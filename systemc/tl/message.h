// One request or response message of the transaction layer, with its real bytes. Messages live
// in a MessagePool (blocks reused through a free list) and travel as 32-bit handles, so moving a
// transaction through the fabric allocates nothing once the pool has grown to the number of
// messages in flight.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "tl/huge_pages.h"
#include "tl/ops.h"
#include "tl/reduce_alu.h"

namespace upswitch::tl {

constexpr int kMaxRequestBytes = 256;  // UALink: at most four 64 B beats per request
constexpr uint32_t kNoMessage = UINT32_MAX;

// A message takes six whole cache lines (blocks of them are page-aligned): the header fields in
// the first, the data in the next four, the byte enables and compare values (which only writes
// and atomics read) in the last. A request without data touches one line and a 256 B read
// response five, where a message at any offset took two and up to seven.
struct alignas(64) Message {
  Opcode op = Opcode::kRead;
  AtomicOp aop = AtomicOp::kAdd;
  uint8_t elem_bytes = 8;  // atomics: 4 or 8
  Status status = Status::kOkay;
  bool response = false;
  bool compressed = false;  // header sent in the compressed format (facts §1.6)
  bool mc = false;          // addressed to a multicast group: served by the switch's reduction engine
  // A synthetic read or write whose bytes nobody looks at (no data source or destination, no
  // observer): its timing is the same, but the bytes are neither generated nor moved in memory.
  bool no_data = false;
  RedType rtype = RedType::kF32;  // kReduce, and a Read of a multicast address (load-reduce)
  RedOp rop = RedOp::kSum;
  uint8_t vc = 0;           // VC within its message class (the request's VC; the response keeps it)
  uint8_t port = 0;         // completer's port (index among its own) the request arrived on: the response leaves there
  uint16_t src = 0;         // initiator endpoint id
  uint16_t dst = 0;         // completer endpoint id
  uint16_t tag = 0;         // initiator's tag
  uint16_t len = 0;         // bytes, 4 .. 256, a multiple of 4
  // A write's protocol flags beyond its data, in data half-flits (32 B): a collective protocol's
  // lines (coll/protocol.h) put flags beside the data on the wire; memory sees only the data.
  uint8_t flag_halves = 0;
  uint64_t addr = 0;
  uint64_t issued = 0;      // cycle the request was issued (took its tag)
  uint64_t executed = 0;    // cycle the completer executed it (scoreboards)
  uint32_t transfer = 0;    // the initiator's transfer (a transfer may span several requests)
  alignas(64) std::array<uint8_t, kMaxRequestBytes> data{};  // write data, atomic operands, read data, old values
  std::array<uint64_t, 4> byte_enable{};   // Write: bit b of the 256-bit mask = byte addr+b
  std::array<uint8_t, 32> compare{};       // CAS: the compare values (one per element)

  // Every field but the data and compare bytes back to its initial value (a reused message).
  void reset_header() {
    op = Opcode::kRead;
    aop = AtomicOp::kAdd;
    elem_bytes = 8;
    status = Status::kOkay;
    response = compressed = mc = no_data = false;
    rtype = RedType::kF32;
    rop = RedOp::kSum;
    vc = port = 0;
    src = dst = tag = len = 0;
    flag_halves = 0;
    addr = issued = executed = 0;
    transfer = 0;
    byte_enable.fill(0);
  }
  bool byte_enabled(int b) const { return (byte_enable[b >> 6] >> (b & 63)) & 1; }
  // The bits of byte_enable word `w` (bytes 64w to 64w + 63) that stand for bytes below len.
  uint64_t len_mask(int w) const {
    const int n = len - 64 * w;
    return n >= 64 ? ~uint64_t{0} : n <= 0 ? 0 : (uint64_t{1} << n) - 1;
  }
  // Whether bytes [0, len) are all enabled.
  bool all_enabled() const {
    for (int w = 0; w < 4; ++w) {
      const uint64_t want = len_mask(w);
      if ((byte_enable[static_cast<size_t>(w)] & want) != want) return false;
    }
    return true;
  }
  void enable_all() {
    for (int w = 0; w < 4; ++w) byte_enable[static_cast<size_t>(w)] = len_mask(w);
  }
};
static_assert(offsetof(Message, data) == 64 && sizeof(Message) == 384, "tl::Message: expected the header in its first cache line, the data in the next four, 384 B in all");

class MessagePool {
 public:
  uint32_t acquire() {
    if (free_.empty()) {
      if (size_ % kBlock == 0) {
        if (limit_ != 0 && blocks_.size() == limit_)
          throw std::length_error("MessagePool: more than " + std::to_string(limit_ * kBlock) + " messages");
        blocks_.emplace_back(map_huge(kHugePageBytes, true));
      }
      ++in_use_;
      return static_cast<uint32_t>(size_++);
    }
    const uint32_t h = free_.back();
    free_.pop_back();
    (*this)[h].reset_header();  // the bytes are always written before they are read
    ++in_use_;
    return h;
  }
  void release(uint32_t h) {
    if (h >= size_) throw std::logic_error("MessagePool: bad handle");
    free_.push_back(h);
    --in_use_;
  }
  Message& operator[](uint32_t h) { return blocks_[h / kBlock].at[h % kBlock]; }
  const Message& operator[](uint32_t h) const { return blocks_[h / kBlock].at[h % kBlock]; }
  size_t in_use() const { return in_use_; }
  // Fixes the table of blocks at room for at most `messages` (whole blocks, at least one), so that
  // growing the pool never moves it: another thread may then read the pool's messages while this
  // one acquires (the accelerator endpoints split over threads, top/parallel_run.h). Handles stay
  // below `messages`; acquiring more throws std::length_error.
  void reserve(size_t messages) {
    limit_ = std::max<size_t>(1, messages / kBlock);
    blocks_.reserve(limit_);
  }
  size_t capacity() const { return size_; }  // messages ever made: the most in flight at once

 private:
  // Messages live in blocks that are never moved or reallocated: growing the pool to the number
  // of messages in flight (hundreds of thousands for a 72-rank in-switch collective) copies
  // nothing and never holds an old and a new copy of the slab at once. A block is one huge page
  // (tl/huge_pages.h): messages are touched at random over hundreds of MiB, and on 4 KiB pages
  // nearly every touch missed the TLB (a 72-rank 4 MiB in-switch all-reduce ran up to 35% slower,
  // depending on where the allocator placed the blocks).
  static_assert(std::is_trivially_destructible_v<Message>, "MessagePool unmaps its blocks without destructors");
  static constexpr size_t kBlock = kHugePageBytes / sizeof(Message);
  struct Block {
    Message* at = nullptr;
    HugeRegion region;
    explicit Block(HugeRegion r) : at(reinterpret_cast<Message*>(r.data)), region(r) {
      for (size_t k = 0; k < kBlock; ++k) new (at + k) Message();
    }
    Block(Block&& o) noexcept : at(o.at), region(o.region) {
      o.at = nullptr;
      o.region = HugeRegion{};
    }
    Block(const Block&) = delete;
    Block& operator=(const Block&) = delete;
    Block& operator=(Block&&) = delete;
    ~Block() { unmap_huge(region); }
  };
  std::vector<Block> blocks_;
  std::vector<uint32_t> free_;
  size_t size_ = 0;
  size_t in_use_ = 0;
  size_t limit_ = 0;  // blocks (reserve); 0 = none
};

}  // namespace upswitch::tl
