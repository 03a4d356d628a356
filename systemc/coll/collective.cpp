#include "coll/collective.h"

#include <algorithm>

namespace upswitch::coll {
namespace {

const char* const kCollNames[kCollectives] = {"all_reduce", "reduce_scatter", "all_gather", "broadcast", "all_to_all"};
const char* const kAlgoNames[kAlgorithms] = {"ring", "oneshot", "switch"};

}  // namespace

const char* collective_name(Collective c) { return kCollNames[static_cast<int>(c)]; }
const char* algorithm_name(Algorithm a) { return kAlgoNames[static_cast<int>(a)]; }

bool parse_collective(const std::string& text, Collective& out) {
  for (int i = 0; i < kCollectives; ++i)
    if (text == kCollNames[i]) {
      out = static_cast<Collective>(i);
      return true;
    }
  return false;
}

bool parse_algorithm(const std::string& text, Algorithm& out) {
  for (int i = 0; i < kAlgorithms; ++i)
    if (text == kAlgoNames[i]) {
      out = static_cast<Algorithm>(i);
      return true;
    }
  return false;
}

bool algorithm_applies(Collective c, Algorithm a) { return c != Collective::kAllToAll || a == Algorithm::kOneShot; }

bool reduces(Collective c) { return c == Collective::kAllReduce || c == Collective::kReduceScatter; }

std::string check_spec(const CollectiveSpec& s, int accelerators) {
  const int n = static_cast<int>(s.ranks.size());
  if (n < 1) return "a collective needs at least one rank";
  for (int i = 0; i < n; ++i) {
    if (s.ranks[static_cast<size_t>(i)] < 0 || s.ranks[static_cast<size_t>(i)] >= accelerators)
      return "rank " + std::to_string(s.ranks[static_cast<size_t>(i)]) + " is not an endpoint (0 .. " +
             std::to_string(accelerators - 1) + ")";
    for (int j = 0; j < i; ++j)
      if (s.ranks[static_cast<size_t>(j)] == s.ranks[static_cast<size_t>(i)])
        return "rank " + std::to_string(s.ranks[static_cast<size_t>(i)]) + " listed twice";
  }
  if (!algorithm_applies(s.coll, s.algo))
    return std::string("algorithm ") + algorithm_name(s.algo) + " does not apply to " + collective_name(s.coll);
  const int e = tl::red_type_bytes(s.type);
  if (s.bytes % static_cast<uint64_t>(e))
    return "size " + std::to_string(s.bytes) + " B is not a multiple of the " + tl::red_type_name(s.type) + " element (" +
           std::to_string(e) + " B)";
  if (s.bytes % 4)
    return "size " + std::to_string(s.bytes) + " B is not a multiple of 4 B (requests move whole doublewords)";
  if (reduces(s.coll) && !tl::red_supported(s.type, s.op))
    return std::string("reduction ") + tl::red_op_name(s.op) + " is not defined on " + tl::red_type_name(s.type);
  if (s.coll == Collective::kBroadcast && (s.root < 0 || s.root >= n))
    return "root " + std::to_string(s.root) + " is not a rank index (0 .. " + std::to_string(n - 1) + ")";
  if (!s.pair_bytes.empty()) {
    if (s.coll != Collective::kAllToAll) return "per-pair sizes apply to all_to_all only";
    if (s.pair_bytes.size() != static_cast<size_t>(n) * static_cast<size_t>(n))
      return "per-pair sizes: expected " + std::to_string(n * n) + " entries, got " + std::to_string(s.pair_bytes.size());
    for (uint64_t b : s.pair_bytes)
      if (b % static_cast<uint64_t>(std::max(e, 4)))
        return "per-pair size " + std::to_string(b) + " B is not a multiple of the element and of 4 B";
  }
  if (s.window < 1) return "window " + std::to_string(s.window) + ": expected at least 1 slice in flight";
  if (s.slice_bytes % 256) return "slice " + std::to_string(s.slice_bytes) + " B: expected a multiple of 256 B";
  return "";
}

uint64_t default_slice(const CollectiveSpec& s) {
  if (s.algo == Algorithm::kSwitch) return 8192;
  const uint64_t n = std::max<uint64_t>(1, s.ranks.size());
  const uint64_t chunk = s.coll == Collective::kBroadcast ? s.bytes : s.bytes / n;
  return std::clamp<uint64_t>(chunk / 8 / 256 * 256, 4096, 65536);
}

double bus_factor(Collective c, int n) {
  switch (c) {
    case Collective::kAllReduce: return n > 1 ? 2.0 * (n - 1) / n : 0.0;
    case Collective::kReduceScatter:
    case Collective::kAllGather:
    case Collective::kAllToAll: return n > 1 ? static_cast<double>(n - 1) / n : 0.0;
    case Collective::kBroadcast: return 1.0;
  }
  return 1.0;
}

uint64_t chunk_begin(uint64_t bytes, int n, int c, int elem) {
  const uint64_t share = bytes / static_cast<uint64_t>(n);
  const uint64_t unit = share >= 256 ? 256 : static_cast<uint64_t>(std::max(elem, 4));  // whole doublewords
  const uint64_t per = (bytes / static_cast<uint64_t>(n) + (bytes % static_cast<uint64_t>(n) != 0) + unit - 1) / unit * unit;
  return std::min(bytes, per * static_cast<uint64_t>(c));
}

uint64_t pair_bytes(const CollectiveSpec& s, int i, int j) {
  const int n = static_cast<int>(s.ranks.size());
  if (!s.pair_bytes.empty()) return s.pair_bytes[static_cast<size_t>(i * n + j)];
  const int e = tl::red_type_bytes(s.type);
  return chunk_begin(s.bytes, n, j + 1, e) - chunk_begin(s.bytes, n, j, e);
}

}  // namespace upswitch::coll
