#include "traffic/tp.h"

#include "tl/reduce_alu.h"

namespace upswitch::traffic {

int tp_group_count(const TpParams& p, int accelerators) {
  return p.groups ? p.groups : accelerators / p.group_size;
}

std::string check_tp(const TpParams& p, int accelerators) {
  if (p.group_size > accelerators)
    return "tp.group_size = " + std::to_string(p.group_size) + ": expected at most the " + std::to_string(accelerators) +
           " accelerators";
  const int g = tp_group_count(p, accelerators);
  if (g < 1 || g * p.group_size > accelerators)
    return "tp.groups = " + std::to_string(p.groups) + ": " + std::to_string(g) + " groups of tp.group_size " +
           std::to_string(p.group_size) + " need " + std::to_string(g * p.group_size) + " accelerators; there are " +
           std::to_string(accelerators);
  const auto type = static_cast<tl::RedType>(p.dtype);
  if (!tl::red_is_float(type) || tl::red_type_bytes(type) > 4)
    return std::string("tp.dtype = ") + tl::red_type_name(type) + ": expected f32, f16 or bf16";
  const uint64_t bytes = tp_activation_bytes(p);
  if (bytes % 4)
    return "tp.hidden x tp.seq_len x tp.micro_batch x element = " + std::to_string(bytes) + " B: must be a multiple of 4 B";
  const auto algo = static_cast<coll::Algorithm>(p.algo);
  for (const TpStep& s : tp_layer_steps(p))
    if (p.algo != kTpAuto && !s.compute && !coll::algorithm_applies(s.coll, algo))
      return std::string("tp.algo = ") + coll::algorithm_name(algo) + ": does not run " + coll::collective_name(s.coll);
  return "";
}

std::vector<int> tp_group_ranks(const TpParams& p, int accelerators, int g) {
  const int groups = tp_group_count(p, accelerators);
  std::vector<int> r;
  for (int k = 0; k < p.group_size; ++k)
    r.push_back(p.placement == TpPlacement::kContiguous ? g * p.group_size + k : g + k * groups);
  return r;
}

uint64_t tp_activation_bytes(const TpParams& p) {
  return static_cast<uint64_t>(p.seq_len) * static_cast<uint64_t>(p.micro_batch) * static_cast<uint64_t>(p.hidden) *
         static_cast<uint64_t>(tl::red_type_bytes(static_cast<tl::RedType>(p.dtype)));
}

std::vector<TpStep> tp_layer_steps(const TpParams& p) {
  const uint64_t s = tp_activation_bytes(p);
  const double half = p.compute_us / 2;
  std::vector<TpStep> out;
  auto compute = [&] {
    if (half > 0) out.push_back({true, coll::Collective::kAllReduce, 0, half});
  };
  for (int block = 0; block < 2; ++block) {  // attention, then MLP
    if (p.sequence_parallel) {
      out.push_back({false, coll::Collective::kAllGather, s, 0});
      compute();
      out.push_back({false, coll::Collective::kReduceScatter, s, 0});
    } else {
      compute();
      out.push_back({false, coll::Collective::kAllReduce, s, 0});
    }
  }
  return out;
}

}  // namespace upswitch::traffic
