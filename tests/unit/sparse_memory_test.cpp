// Sparse memory's generated regions and shared pages (tl/sparse_memory.h, tl/page_store.h),
// against a byte-per-address reference: whatever is stored or shared, every
// memory must read back exactly the bytes written to it, and a region given to a source exactly
// the source's bytes until written over.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "tl/page_source.h"
#include "tl/page_store.h"
#include "tl/sparse_memory.h"

namespace upswitch::tl {
namespace {

constexpr uint64_t kPage = SparseMemory::kPageBytes;

// Byte at `addr` of a source: an affine function of the address and a salt.
uint8_t pattern(uint64_t addr, uint8_t salt) { return static_cast<uint8_t>(addr * 7 + 3 + salt * 31); }

class PatternSource : public PageSource {
 public:
  PatternSource(uint8_t salt, uint64_t* calls = nullptr) : salt_(salt), calls_(calls) {}
  void fill(uint64_t addr, uint8_t* out, uint64_t len) const override {
    if (calls_) ++*calls_;
    for (uint64_t i = 0; i < len; ++i) out[i] = pattern(addr + i, salt_);
  }

 private:
  uint8_t salt_;
  uint64_t* calls_;
};

// The memory a sequence of writes and generate() calls must read as, byte by byte.
struct Reference {
  std::vector<uint8_t> bytes;  // from address 0; zeros past the end
  uint8_t at(uint64_t a) const { return a < bytes.size() ? bytes[a] : 0; }
  void set(uint64_t a, uint8_t v) {
    if (a >= bytes.size()) bytes.resize(a + 1, 0);
    bytes[a] = v;
  }
};

void expect_reads(const SparseMemory& m, const Reference& ref, uint64_t from, uint64_t to) {
  std::vector<uint8_t> got(to - from);
  m.read(from, got.data(), got.size());
  for (uint64_t a = from; a < to; ++a)
    if (got[a - from] != ref.at(a)) FAIL() << "address " << a << ": read " << int{got[a - from]} << ", want " << int{ref.at(a)};
  // peek of a single byte, and of the rest of its page, agree with read
  for (uint64_t a = from; a < to; a += 97)
    if (m.peek(a, 1)[0] != ref.at(a) || m.peek(a)[0] != ref.at(a)) FAIL() << "peek at " << a;
}

TEST(SparseMemory, GeneratedRegionReadsAsItsSourceAndTakesPagesOnlyWhereWritten) {
  SparseMemory m;
  Reference ref;
  uint64_t calls = 0;
  const uint64_t begin = 100, end = 3 * kPage + 50;  // partial page 0, whole pages 1 and 2, partial page 3
  m.generate(begin, end, std::make_shared<PatternSource>(1, &calls));
  for (uint64_t a = begin; a < end; ++a) ref.set(a, pattern(a, 1));
  EXPECT_EQ(m.pages(), 2u);  // the two partial pages were written; whole pages stay generated
  expect_reads(m, ref, 0, 5 * kPage);
  EXPECT_EQ(m.pages(), 2u);  // reading takes nothing
  EXPECT_GT(calls, 0u);
  // Writing one byte of a generated page stores that page, with the source's other bytes.
  const uint8_t one = 0xee;
  m.write(kPage + 10, &one, 1);
  ref.set(kPage + 10, one);
  EXPECT_EQ(m.pages(), 3u);
  calls = 0;
  expect_reads(m, ref, kPage, 2 * kPage);
  EXPECT_EQ(calls, 0u);  // a written page is read from memory
  expect_reads(m, ref, 0, 5 * kPage);
  // bytes() of a generated page gives the source's bytes, writable.
  uint8_t* p = m.bytes(2 * kPage + 5);
  EXPECT_EQ(p[0], pattern(2 * kPage + 5, 1));
  p[1] = 0x11;
  ref.set(2 * kPage + 6, 0x11);
  EXPECT_EQ(m.pages(), 4u);
  expect_reads(m, ref, 0, 5 * kPage);
}

TEST(SparseMemory, ANewerSourceReplacesWrittenAndGeneratedBytes) {
  SparseMemory m;
  Reference ref;
  m.generate(0, 8 * kPage, std::make_shared<PatternSource>(1));
  for (uint64_t a = 0; a < 8 * kPage; ++a) ref.set(a, pattern(a, 1));
  std::vector<uint8_t> w(3 * kPage, 0x5a);
  m.write(2 * kPage + 7, w.data(), w.size());  // pages 2..5 written
  for (uint64_t a = 2 * kPage + 7; a < 5 * kPage + 7; ++a) ref.set(a, 0x5a);
  EXPECT_EQ(m.pages(), 4u);
  expect_reads(m, ref, 0, 9 * kPage);
  // A second source over pages 3..6 (and part of 7): its bytes win, written pages are dropped.
  m.generate(3 * kPage, 7 * kPage + 9, std::make_shared<PatternSource>(2));
  for (uint64_t a = 3 * kPage; a < 7 * kPage + 9; ++a) ref.set(a, pattern(a, 2));
  EXPECT_EQ(m.pages(), 2u);  // page 2 (written) and page 7 (partial, written with the new source)
  expect_reads(m, ref, 0, 9 * kPage);
  // A third source covering the first wholly: the first is no longer consulted anywhere.
  m.generate(0, 8 * kPage, std::make_shared<PatternSource>(3));
  for (uint64_t a = 0; a < 8 * kPage; ++a) ref.set(a, pattern(a, 3));
  EXPECT_EQ(m.pages(), 0u);
  expect_reads(m, ref, 0, 9 * kPage);
}

TEST(SparseMemory, FullPagesWithTheSameBytesAreStoredOnceAndCopiedOnWrite) {
  const auto store = std::make_shared<PageStore>();
  SparseMemory a(store), b(store), c(store);
  std::vector<uint8_t> page(kPage);
  for (uint64_t i = 0; i < kPage; ++i) page[i] = static_cast<uint8_t>(i * 13 + 1);
  a.write(5 * kPage, page.data(), kPage);
  // b writes the same bytes in 256 B pieces through bytes() and wrote(), as a completer does.
  for (uint64_t k = 0; k < kPage; k += 256) {
    std::memcpy(b.bytes(9 * kPage + k), page.data() + k, 256);
    b.wrote(9 * kPage + k, 256);
  }
  EXPECT_EQ(a.shared_pages(), 1u);
  EXPECT_EQ(b.shared_pages(), 1u);
  EXPECT_EQ(store->shared_pages(), 1u);     // one copy of the bytes
  EXPECT_EQ(store->allocated_pages(), 2u);  // b's own page went back to the free list
  EXPECT_EQ(store->free_pages(), 1u);
  // A page written only in part is not offered: c keeps its own.
  c.write(5 * kPage, page.data(), kPage - 4);
  EXPECT_EQ(c.shared_pages(), 0u);
  EXPECT_EQ(c.pages(), 1u);
  // Writing a shared page gives the writer its own copy; the other holder still reads the old bytes.
  const uint8_t x = 0xff;
  a.write(5 * kPage + 17, &x, 1);
  EXPECT_EQ(a.shared_pages(), 0u);
  EXPECT_EQ(b.shared_pages(), 1u);
  std::vector<uint8_t> got(kPage);
  b.read(9 * kPage, got.data(), kPage);
  EXPECT_EQ(got, page);
  a.read(5 * kPage, got.data(), kPage);
  page[17] = x;
  EXPECT_EQ(got, page);
  // The last holder writing in place takes the page back without a copy.
  const size_t before = store->allocated_pages();
  b.bytes(9 * kPage)[0] = 0;
  EXPECT_EQ(store->shared_pages(), 0u);
  EXPECT_EQ(store->allocated_pages(), before);
}

TEST(SparseMemory, DroppedMemoriesGiveTheirPagesBack) {
  const auto store = std::make_shared<PageStore>();
  std::vector<uint8_t> page(kPage, 7);
  {
    SparseMemory a(store), b(store);
    a.write(0, page.data(), kPage);  // shared
    b.write(0, page.data(), kPage);  // shared, same page
    a.bytes(kPage)[0] = 1;           // private
    EXPECT_EQ(store->shared_pages(), 1u);
  }
  EXPECT_EQ(store->shared_pages(), 0u);
  EXPECT_EQ(store->free_pages(), store->allocated_pages());
  // A fresh page from the free list reads as zeros.
  SparseMemory c(store);
  const uint8_t* p = c.bytes(0);
  for (uint64_t i = 0; i < kPage; ++i) ASSERT_EQ(p[i], 0) << i;
}

// Three memories on one store, random writes of whole pages (few distinct contents, so many are
// shared), partial writes, in-place updates through bytes(), and generated regions, each checked
// against its own reference after every step.
TEST(SparseMemory, SharedStoreRandomAgainstReference) {
  std::mt19937_64 rng(21);
  const auto store = std::make_shared<PageStore>();
  std::vector<SparseMemory> mems;
  for (int i = 0; i < 3; ++i) mems.emplace_back(store);
  std::vector<Reference> refs(3);
  const uint64_t span = 24 * kPage;
  for (int step = 0; step < 400; ++step) {
    const size_t k = rng() % 3;
    SparseMemory& m = mems[k];
    Reference& ref = refs[k];
    const uint64_t page = rng() % 24;
    switch (rng() % 6) {
      case 0:
      case 1: {  // a whole page of one of four contents, in pieces like a completer
        const auto salt = static_cast<uint8_t>(rng() % 4);
        for (uint64_t off = 0; off < kPage; off += 512) {
          uint8_t* p = m.bytes(page * kPage + off);
          for (uint64_t i = 0; i < 512; ++i) p[i] = pattern(off + i, salt);
          m.wrote(page * kPage + off, 512);
        }
        for (uint64_t i = 0; i < kPage; ++i) ref.set(page * kPage + i, pattern(i, salt));
        break;
      }
      case 2: {  // a few bytes across a page boundary
        const uint64_t at = page * kPage + kPage - 3 - rng() % 5;
        std::vector<uint8_t> w(8);
        for (auto& v : w) v = static_cast<uint8_t>(rng());
        m.write(at, w.data(), w.size());
        for (size_t i = 0; i < w.size(); ++i) ref.set(at + i, w[i]);
        break;
      }
      case 3: {  // an update in place (an atomic): no wrote()
        const uint64_t at = page * kPage + rng() % kPage;
        uint8_t* p = m.bytes(at);
        p[0] = static_cast<uint8_t>(p[0] + 1);
        ref.set(at, static_cast<uint8_t>(ref.at(at) + 1));
        break;
      }
      case 4: {  // a generated region
        const uint64_t from = page * kPage + rng() % 300, to = std::min(span, from + (rng() % 5) * kPage + rng() % 100);
        const auto salt = static_cast<uint8_t>(rng() % 3);
        m.generate(from, to, std::make_shared<PatternSource>(salt));
        for (uint64_t a = from; a < to; ++a) ref.set(a, pattern(a, salt));
        break;
      }
      default: break;  // reads only
    }
    for (size_t j = 0; j < 3; ++j) expect_reads(mems[j], refs[j], 0, span);
    if (::testing::Test::HasFatalFailure()) return;
  }
  EXPECT_GT(store->shared_pages(), 0u);
  // No more pages than the memories map, plus those freed for reuse.
  size_t mapped = 0;
  for (const auto& m : mems) mapped += m.pages() - m.shared_pages();
  EXPECT_EQ(store->allocated_pages(), mapped + store->shared_pages() + store->free_pages());
}

}  // namespace
}  // namespace upswitch::tl
