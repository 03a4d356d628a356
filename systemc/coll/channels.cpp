#include "coll/channels.h"

#include <algorithm>

namespace upswitch::coll {

std::vector<CollectiveSpec> channel_shares(const CollectiveSpec& s, int channels) {
  const int elem = tl::red_type_bytes(s.type);
  const auto part = [&](uint64_t bytes, int c) {
    return chunk_begin(bytes, channels, c + 1, elem) - chunk_begin(bytes, channels, c, elem);
  };
  const size_t n = s.ranks.size();
  std::vector<CollectiveSpec> out;
  for (int c = 0; c < channels; ++c) {
    CollectiveSpec share = s;
    share.sms = 1;
    share.bytes = part(s.bytes, c);
    if (!s.pair_bytes.empty()) {
      share.bytes = 0;
      for (size_t i = 0; i < n; ++i) {
        uint64_t row = 0;
        for (size_t j = 0; j < n; ++j) row += share.pair_bytes[i * n + j] = part(s.pair_bytes[i * n + j], c);
        share.bytes = std::max(share.bytes, row);
      }
    }
    if (share.bytes > 0) out.push_back(std::move(share));
  }
  if (out.empty()) {  // nothing to move: one channel, as the collective itself
    out.push_back(s);
    out.back().sms = 1;
  }
  return out;
}

}  // namespace upswitch::coll
