// TL flit packing (facts §1.6): header sectors, data halves, flits, protocol efficiency by hand.
// Checked against expectations worked out independently of the code: hand arithmetic, host
// float/double addition, and small references written here in a different style.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <deque>
#include <limits>
#include <list>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "endpoint/handle_ring.h"
#include "tl/address_cache.h"
#include "tl/address_map.h"
#include "tl/atomic_alu.h"
#include "tl/message.h"
#include "tl/ops.h"
#include "tl/packet_format.h"
#include "tl/request_rules.h"
#include "tl/sparse_memory.h"
#include "unit/tl_test_support.h"

namespace upswitch::tl {
namespace {

// ------------------------------------------------------------------------------------------
// Packet format

TEST(TlPacketFormat, HeaderSectors) {
  for (Opcode op : {Opcode::kRead, Opcode::kWrite, Opcode::kWriteFull, Opcode::kAtomicR, Opcode::kAtomicNR}) {
    Message m = make(op, 0, 64);
    EXPECT_EQ(header_sectors(m), 4) << opcode_name(op);  // uncompressed request
    m.response = true;
    EXPECT_EQ(header_sectors(m), 2) << opcode_name(op);  // uncompressed response
    m.compressed = true;
    EXPECT_EQ(header_sectors(m), 1) << opcode_name(op);  // compressed OKAY response
    for (Status s : {Status::kDecodeError, Status::kUnsupported, Status::kMisaligned, Status::kBadLength,
                     Status::kBadByteEnable}) {
      m.status = s;
      EXPECT_EQ(header_sectors(m), 2) << opcode_name(op) << " " << status_name(s);  // never compressed
    }
  }
  for (Opcode op : {Opcode::kRead, Opcode::kWrite, Opcode::kWriteFull}) {
    Message m = make(op, 128, 128);
    m.compressed = true;
    EXPECT_EQ(header_sectors(m), 2) << opcode_name(op);  // compressed request
  }
}

TEST(TlPacketFormat, Compressible) {
  EXPECT_TRUE(compressible(make(Opcode::kRead, 0, 64)));
  EXPECT_TRUE(compressible(make(Opcode::kRead, 0, 256)));
  EXPECT_TRUE(compressible(make(Opcode::kWrite, 128, 128)));
  EXPECT_TRUE(compressible(make(Opcode::kWriteFull, 192, 64)));
  EXPECT_TRUE(compressible(make(Opcode::kWriteFull, (uint64_t{1} << 56) + 64, 192)));
  EXPECT_FALSE(compressible(make(Opcode::kRead, 0, 4)));    // under 64 B
  EXPECT_FALSE(compressible(make(Opcode::kRead, 0, 60)));
  EXPECT_FALSE(compressible(make(Opcode::kRead, 0, 96)));   // not a multiple of 64 B
  EXPECT_FALSE(compressible(make(Opcode::kWrite, 32, 64)));  // not 64 B aligned
  EXPECT_FALSE(compressible(make(Opcode::kWrite, 4, 64)));
  EXPECT_FALSE(compressible(atomic(Opcode::kAtomicR, AtomicOp::kAdd, 8, 0, 64)));  // atomics never
  EXPECT_FALSE(compressible(atomic(Opcode::kAtomicNR, AtomicOp::kAdd, 8, 0, 64)));
}

TEST(TlPacketFormat, DataHalvesPerOp) {
  // Requests: 2 per 64 B beat touched, +1 byte-enable half for Write, 3 for any atomic.
  EXPECT_EQ(data_halves(make(Opcode::kRead, 0, 256)), 0);
  EXPECT_EQ(data_halves(make(Opcode::kWrite, 0, 4)), 3);
  EXPECT_EQ(data_halves(make(Opcode::kWrite, 60, 8)), 5);   // two beats
  EXPECT_EQ(data_halves(make(Opcode::kWrite, 0, 128)), 5);
  EXPECT_EQ(data_halves(make(Opcode::kWrite, 0, 256)), 9);
  EXPECT_EQ(data_halves(make(Opcode::kWriteFull, 0, 64)), 2);
  EXPECT_EQ(data_halves(make(Opcode::kWriteFull, 64, 192)), 6);
  EXPECT_EQ(data_halves(make(Opcode::kWriteFull, 0, 256)), 8);
  EXPECT_EQ(data_halves(atomic(Opcode::kAtomicR, AtomicOp::kAdd, 8, 0, 8)), 3);
  EXPECT_EQ(data_halves(atomic(Opcode::kAtomicNR, AtomicOp::kAdd, 4, 0, 64)), 3);
  EXPECT_EQ(data_halves(atomic(Opcode::kAtomicNR, AtomicOp::kCas, 8, 0, 32)), 3);
  // Responses: read data by beats, AtomicR one beat, the rest none; errors carry no data.
  auto response = [](const Message& request, Status s) {
    Message m = request;
    m.response = true;
    m.status = s;
    return m;
  };
  EXPECT_EQ(data_halves(response(make(Opcode::kRead, 0, 256), Status::kOkay)), 8);
  EXPECT_EQ(data_halves(response(make(Opcode::kRead, 0, 4), Status::kOkay)), 2);
  EXPECT_EQ(data_halves(response(make(Opcode::kRead, 60, 8), Status::kOkay)), 4);
  EXPECT_EQ(data_halves(response(make(Opcode::kRead, 128, 128), Status::kOkay)), 4);
  EXPECT_EQ(data_halves(response(make(Opcode::kRead, 0, 256), Status::kDecodeError)), 0);
  EXPECT_EQ(data_halves(response(make(Opcode::kWrite, 0, 256), Status::kOkay)), 0);
  EXPECT_EQ(data_halves(response(make(Opcode::kWriteFull, 0, 256), Status::kOkay)), 0);
  EXPECT_EQ(data_halves(response(atomic(Opcode::kAtomicR, AtomicOp::kAdd, 8, 0, 64), Status::kOkay)), 2);
  EXPECT_EQ(data_halves(response(atomic(Opcode::kAtomicR, AtomicOp::kAdd, 8, 0, 8), Status::kUnsupported)), 0);
  EXPECT_EQ(data_halves(response(atomic(Opcode::kAtomicNR, AtomicOp::kAdd, 8, 0, 64), Status::kOkay)), 0);
}

// The transmitter's and receiver's payload counters use the cheap predicate; it must agree with
// the half-flit arithmetic for every operation, direction and status.
TEST(TlPacketFormat, CarriesPayloadAgreesWithDataHalves) {
  for (int op = 0; op < kOpcodes; ++op)
    for (bool response : {false, true})
      for (int st = 0; st < kStatuses; ++st) {
        Message m;
        m.op = static_cast<Opcode>(op);
        m.response = response;
        m.status = static_cast<Status>(st);
        m.addr = 64;
        m.len = 64;
        EXPECT_EQ(carries_payload(m), data_halves(m) > 0) << opcode_name(m.op) << " response " << response << " status " << st;
      }
}

TEST(TlPacketFormat, PacketFlits) {
  // One control half-flit plus the data halves, two halves per 64 B flit, rounded up.
  for (int h = 0; h <= 80; ++h) {
    int halves = 1 + h, flits = 0;
    while (halves > 0) {
      ++flits;
      halves -= 2;
    }
    EXPECT_EQ(packet_flits(h), flits) << h;
  }
  EXPECT_EQ(packet_flits(0), 1);
  EXPECT_EQ(packet_flits(1), 1);
  EXPECT_EQ(packet_flits(32), 17);
  EXPECT_EQ(packet_flits(36), 19);
}

struct Packed {
  int sectors = 0, halves = 0, flits = 0, payload = 0;
};
Packed pack(const std::vector<Message>& ms) {
  Packed p;
  for (const Message& m : ms) {
    p.sectors += header_sectors(m);
    p.halves += data_halves(m);
    p.payload += m.len;
  }
  p.flits = packet_flits(p.halves);
  return p;
}

TEST(TlPacketFormat, ProtocolEfficiencyByHand) {
  // 4 x 256 B WriteFull, compressed: 4 x 2 = 8 sectors = one control half-flit; 4 x 8 = 32 data
  // halves; 1 + 32 = 33 halves = 17 flits; 1024 / (17 * 64) = 94.1%.
  {
    std::vector<Message> ms;
    for (int i = 0; i < 4; ++i) {
      Message m = make(Opcode::kWriteFull, 256 * static_cast<uint64_t>(i), 256);
      ASSERT_EQ(check_request(m), Status::kOkay);
      ASSERT_TRUE(compressible(m));
      m.compressed = true;
      ms.push_back(m);
    }
    const Packed p = pack(ms);
    EXPECT_EQ(p.sectors, 8);
    EXPECT_LE(p.sectors, kSectorsPerControl);
    EXPECT_EQ(p.halves, 32);
    EXPECT_EQ(p.flits, 17);
    EXPECT_NEAR(double(p.payload) / (p.flits * 64), 0.941, 0.0005);
  }
  // 2 x 256 B WriteFull, uncompressed: 2 x 4 = 8 sectors; 16 data halves; 1 + 16 = 17 halves =
  // 9 flits; 512 / 576 = 88.9%.
  {
    std::vector<Message> ms(2, make(Opcode::kWriteFull, 0, 256));
    const Packed p = pack(ms);
    EXPECT_EQ(p.sectors, 8);
    EXPECT_EQ(p.halves, 16);
    EXPECT_EQ(p.flits, 9);
    EXPECT_NEAR(double(p.payload) / (p.flits * 64), 0.889, 0.0005);
  }
  // 4 x 256 B Write with byte enables, compressed: 8 sectors; 4 x (8 + 1) = 36 halves; 1 + 36
  // = 37 halves = 19 flits; 1024 / 1216 = 84.2%.
  {
    std::vector<Message> ms;
    for (int i = 0; i < 4; ++i) {
      Message m = make(Opcode::kWrite, 0x100000 + 256 * static_cast<uint64_t>(i), 256);
      ASSERT_TRUE(compressible(m));
      m.compressed = true;
      ms.push_back(m);
    }
    const Packed p = pack(ms);
    EXPECT_EQ(p.sectors, 8);
    EXPECT_EQ(p.halves, 36);
    EXPECT_EQ(p.flits, 19);
    EXPECT_NEAR(double(p.payload) / (p.flits * 64), 0.842, 0.0005);
  }
  // 8 compressed OKAY responses without data (write responses, AtomicNR statuses): 1 sector
  // each, 8 sectors, no data: one flit.
  {
    std::vector<Message> ms;
    for (int i = 0; i < 8; ++i) {
      Message m = i % 2 ? make(Opcode::kWrite, 0, 256) : atomic(Opcode::kAtomicNR, AtomicOp::kAdd, 8, 0, 8);
      m.response = true;
      m.compressed = true;
      ms.push_back(m);
    }
    const Packed p = pack(ms);
    EXPECT_EQ(p.sectors, 8);
    EXPECT_EQ(static_cast<int>(ms.size()), kMaxMessagesPerPacket);
    EXPECT_EQ(p.halves, 0);
    EXPECT_EQ(p.flits, 1);
    // One of them an error instead: it needs the uncompressed 2 sectors, so 9 no longer fit.
    ms[3].status = Status::kDecodeError;
    EXPECT_EQ(pack(ms).sectors, 9);
  }
  // 4 compressed 256 B read responses: 4 sectors, 32 halves, 17 flits, 94.1%.
  {
    std::vector<Message> ms(4, make(Opcode::kRead, 0, 256));
    for (Message& m : ms) m.response = m.compressed = true;
    const Packed p = pack(ms);
    EXPECT_EQ(p.sectors, 4);
    EXPECT_EQ(p.flits, 17);
  }
}

}  // namespace
}  // namespace upswitch::tl
