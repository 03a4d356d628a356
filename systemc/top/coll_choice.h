// `--algo auto` (doc/nccl.md, "Algorithm choice"): the algorithm, protocol and channel count a
// collective runs with when the user names none, chosen as NCCL chooses (the lowest predicted
// time of its cost model) with the model's own cost model (coll/cost_model.h).
#pragma once

#include <string>
#include <vector>

#include "coll/collective.h"
#include "coll/cost_model.h"
#include "config/config.h"

namespace upswitch::top {

// The cost model's parameters for a group on this configuration: the endpoint's links (all of
// them: a GPU spreads its traffic over its links by address), the zero-load hop of its first link.
coll::CostParams cost_params(const config::Config& cfg, const std::vector<int>& ranks);

struct CollChoice {
  coll::Algorithm algo = coll::Algorithm::kRing;
  coll::Protocol protocol = coll::Protocol::kSimple;
  int channels = 1;
  double predicted_cycles = 0;
};

// The channel count auto gives an algorithm (doc/nccl.md, "Algorithm choice"):
//  * the switch algorithm: enough channels that their slices in flight (a window of slices per
//    rank and channel) cover the endpoint's bandwidth-delay product, link bytes per cycle x the
//    zero-load round trip of a load-reduce; at most reduce.groups (a multicast group per channel);
//  * ring and chain: one channel per two of the endpoint's links (NCCL duplicates its rings over
//    the links of an NVSwitch system); the ring moves a whole step's chunk at once, so more
//    channels gain little in this model;
// a power of two, at most 32 (NCCL's MAXCHANNELS), and then halved while a channel's share would
// not fill its pipeline: a window of slices per rank (switch), eight 64 KiB slices per rank's chunk
// (ring; broadcast: of the root's buffer). NCCL trims channels for small messages the same way.
// With the GPU's issue limits (accel.sm_gbytes_per_s, accel.multimem_gbytes_per_s) the count is
// first doubled until the channels' SMs issue what the links carry; `trim` false: the count before
// the halving.
int auto_channels(const config::Config& cfg, const coll::CollectiveSpec& s, const coll::CostParams& params,
                  bool trim = true);

// What a caller fixes of a collective's choice, as NCCL_ALGO, NCCL_PROTO and a channel count do;
// what it leaves open is chosen.
struct ChoiceFixed {
  bool algo = false;      // base.algo is given
  bool protocol = false;  // base.protocol is given (ring and chain; oneshot and switch run simple)
  int channels = 0;       // > 0: given; 0: chosen
};

// The choice for `base` (its collective, ranks, size, type, root and slice; algorithm, protocol
// and channels are chosen unless `fixed` gives them): among the algorithms NCCL has for the
// collective on this switch (ring or chain with Simple, LL128 or LL; the switch engine when
// reduce.enable and reduce.groups > 0, as NVLS with Simple; one-shot only for all-to-all, NCCL's
// grouped send/receive), each on its auto_channels, the lowest predicted time. Every power of two
// from the trimmed count to the untrimmed one is weighed: the trim is a rule of thumb, and under
// issue limits a trimmed count may leave the SMs short (NCCL too weighs channels against the
// per-channel bandwidth). A fixed algorithm that does not apply to the collective is refused
// (std::invalid_argument).
CollChoice choose_collective(const config::Config& cfg, const coll::CollectiveSpec& base, const ChoiceFixed& fixed = {});

// coll.channels = 0 (auto) on a forced row: the channel count choose_collective would weigh best
// for the spec's own algorithm and protocol, as NCCL picks channels when NCCL_ALGO and NCCL_PROTO
// name the rest.
CollChoice choose_channels(const config::Config& cfg, const coll::CollectiveSpec& s);

// "ring/ll128/4ch" for messages and tables.
std::string choice_name(const CollChoice& c);

}  // namespace upswitch::top
