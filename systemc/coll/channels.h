// Channels (doc/nccl.md, "Channels"): a collective on `channels` concurrent channels is that many
// runs over the same ranks in the same order, each over its contiguous share of the buffer and
// each issued by one SM on every rank, as NCCL's nChannels split a buffer.
#pragma once

#include <vector>

#include "coll/collective.h"

namespace upswitch::coll {

// The shares of `s` over `channels` channels: contiguous parts of the buffer in 256 B units
// (chunk_begin; an all-to-all with pair_bytes: of every pair's bytes, and `bytes` the largest row
// of the share), each with sms = 1; a share that comes out empty is left out (an empty collective
// keeps one), so there are from 1 to `channels` shares, empty ones only at the end.
std::vector<CollectiveSpec> channel_shares(const CollectiveSpec& s, int channels);

}  // namespace upswitch::coll
