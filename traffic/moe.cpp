#include "traffic/moe.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "config/config.h"
#include "config/input_file.h"
#include "traffic/rng.h"

namespace upswitch::traffic {
namespace {

constexpr uint64_t kMoeStream = 0x4d6f45ULL << 32;  // "MoE": apart from the packet sources' streams

// Picks `k` distinct experts with probabilities `cdf` (cumulative, last = 1) by drawing again on a
// repeat; uniform when `cdf` is empty.
void pick(Rng& rng, const std::vector<double>& cdf, int experts, int k, int32_t* out) {
  for (int i = 0; i < k; ++i) {
    while (true) {
      int32_t e;
      if (cdf.empty()) {
        e = static_cast<int32_t>(rng.below(static_cast<uint32_t>(experts)));
      } else {
        const double u = rng.unit();
        e = static_cast<int32_t>(std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
        e = std::min(e, experts - 1);
      }
      if (std::find(out, out + i, e) == out + i) {
        out[i] = e;
        break;
      }
    }
  }
}

std::vector<double> gating_cdf(const MoeParams& p) {
  std::vector<double> w(static_cast<size_t>(p.experts), 0.0);
  if (p.gating == Gating::kUniform) return {};
  if (p.gating == Gating::kZipf) {
    for (int e = 0; e < p.experts; ++e) w[static_cast<size_t>(e)] = 1.0 / std::pow(e + 1.0, p.zipf_s);
  } else {  // hot
    const auto hot = static_cast<double>(p.hot_experts.size());
    const double cold = static_cast<double>(p.experts) - hot;
    for (int e = 0; e < p.experts; ++e) w[static_cast<size_t>(e)] = cold > 0 ? (1.0 - p.hot_fraction) / cold : 0.0;
    for (int e : p.hot_experts) w[static_cast<size_t>(e)] = p.hot_fraction / hot;
  }
  double sum = 0;
  for (double& x : w) x = (sum += x);
  for (double& x : w) x /= sum;
  return w;
}

[[noreturn]] void bad_line(const std::string& path, int line, const std::string& what) {
  throw config::ConfigError("moe.assignment_file '" + path + "' line " + std::to_string(line) + ": " + what);
}

}  // namespace

MoeParams resolve_moe(const MoeParams& p, int accelerators) {
  MoeParams r = p;
  if (r.ranks == 0) r.ranks = accelerators;
  if (r.experts == 0) r.experts = r.ranks * r.experts_per_rank;
  return r;
}

std::string check_moe(const MoeParams& given, int accelerators) {
  const MoeParams p = resolve_moe(given, accelerators);
  const int ranks = p.ranks;
  if (ranks < 2 || ranks > accelerators)
    return "moe.ranks = " + std::to_string(given.ranks) + ": expected 2 .. " + std::to_string(accelerators) +
           " (the accelerators), or 0 for all";
  if (p.experts > ranks * p.experts_per_rank)
    return "moe.experts = " + std::to_string(p.experts) + ": " + std::to_string(ranks) + " ranks x moe.experts_per_rank " +
           std::to_string(p.experts_per_rank) + " host at most " + std::to_string(ranks * p.experts_per_rank);
  if (p.top_k > p.experts)
    return "moe.top_k = " + std::to_string(p.top_k) + ": expected at most moe.experts (" + std::to_string(p.experts) + ")";
  if ((static_cast<uint64_t>(p.hidden) * static_cast<uint64_t>(p.elem_bytes)) % 4 != 0)
    return "moe.hidden = " + std::to_string(p.hidden) + ": a token (moe.hidden x moe.elem_bytes = " +
           std::to_string(p.hidden * p.elem_bytes) + " B) must be a multiple of 4 B";
  if (p.gating == Gating::kHot) {
    if (p.hot_experts.empty()) return "moe.hot_experts = []: the hot gating needs at least one expert";
    for (int e : p.hot_experts)
      if (e >= p.experts)
        return "moe.hot_experts: expert " + std::to_string(e) + " is not below moe.experts (" + std::to_string(p.experts) + ")";
    std::vector<int> h = p.hot_experts;
    std::sort(h.begin(), h.end());
    if (std::adjacent_find(h.begin(), h.end()) != h.end()) return "moe.hot_experts: an expert is listed twice";
    if (static_cast<int>(h.size()) < p.top_k && p.hot_fraction >= 1.0)
      return "moe.hot_fraction = 1 with fewer hot experts than moe.top_k: tokens could not pick distinct experts";
  }
  if (p.gating == Gating::kFile && p.assignment_file.empty())
    return "moe.gating = file: set moe.assignment_file";
  return "";
}

MoeAssignment draw_assignment(const MoeParams& p, uint64_t seed, uint64_t layer) {
  MoeAssignment a;
  a.ranks = p.ranks;
  a.tokens = p.tokens;
  a.top_k = p.top_k;
  a.expert.resize(static_cast<size_t>(p.ranks) * static_cast<size_t>(p.tokens) * static_cast<size_t>(p.top_k));
  const std::vector<double> cdf = gating_cdf(p);
  Rng rng(seed, kMoeStream + layer);
  for (int r = 0; r < p.ranks; ++r)
    for (int t = 0; t < p.tokens; ++t) pick(rng, cdf, p.experts, p.top_k, &a.at(r, t, 0));
  return a;
}

MoeAssignment read_assignment(const MoeParams& p, const std::string& path) {
  std::istringstream in(config::read_input_file("moe.assignment_file", path, config::kMaxAssignmentFileBytes));
  return read_assignment(p, in, path);
}

MoeAssignment read_assignment(const MoeParams& p, std::istream& in, const std::string& path) {
  MoeAssignment a;
  a.ranks = p.ranks;
  a.tokens = p.tokens;
  a.top_k = p.top_k;
  a.expert.assign(static_cast<size_t>(p.ranks) * static_cast<size_t>(p.tokens) * static_cast<size_t>(p.top_k), -2);
  std::string text;
  int line = 0;
  uint64_t seen = 0;
  while (std::getline(in, text)) {
    ++line;
    const size_t hash = text.find('#');
    if (hash != std::string::npos) text.resize(hash);
    std::istringstream fields(text);
    std::vector<long long> v;
    std::string word;
    while (fields >> word) {
      size_t pos = 0;
      long long x = -1;
      try {
        x = std::stoll(word, &pos);
      } catch (const std::exception&) {
        pos = 0;
      }
      if (pos != word.size() || word.empty()) bad_line(path, line, "'" + word + "' is not an integer");
      v.push_back(x);
    }
    if (v.empty()) continue;
    if (v.size() != static_cast<size_t>(2 + p.top_k))
      bad_line(path, line, "expected RANK TOKEN and " + std::to_string(p.top_k) + " experts (moe.top_k), got " +
                                std::to_string(v.size()) + " numbers");
    if (v[0] < 0 || v[0] >= p.ranks)
      bad_line(path, line, "rank " + std::to_string(v[0]) + " is not in 0 .. " + std::to_string(p.ranks - 1));
    if (v[1] < 0 || v[1] >= p.tokens)
      bad_line(path, line, "token " + std::to_string(v[1]) + " is not in 0 .. " + std::to_string(p.tokens - 1) +
                               " (moe.tokens)");
    const int r = static_cast<int>(v[0]), t = static_cast<int>(v[1]);
    if (a.at(r, t, 0) != -2)
      bad_line(path, line, "rank " + std::to_string(r) + " token " + std::to_string(t) + " appears twice");
    for (int i = 0; i < p.top_k; ++i) {
      const long long e = v[static_cast<size_t>(2 + i)];
      if (e < 0 || e >= p.experts)
        bad_line(path, line, "expert " + std::to_string(e) + " is not in 0 .. " + std::to_string(p.experts - 1));
      for (int k = 0; k < i; ++k)
        if (a.at(r, t, k) == e) bad_line(path, line, "expert " + std::to_string(e) + " picked twice by one token");
      a.at(r, t, i) = static_cast<int32_t>(e);
    }
    ++seen;
  }
  const uint64_t want = static_cast<uint64_t>(p.ranks) * static_cast<uint64_t>(p.tokens);
  if (seen != want)
    throw config::ConfigError("moe.assignment_file '" + path + "': has " + std::to_string(seen) + " tokens; moe.ranks x " +
                              "moe.tokens = " + std::to_string(want) + " (one line per token)");
  return a;
}

uint64_t expert_capacity(const MoeParams& p) {
  if (p.capacity_factor <= 0) return UINT64_MAX;
  const double picks = static_cast<double>(p.ranks) * p.tokens * p.top_k;
  return static_cast<uint64_t>(std::ceil(p.capacity_factor * picks / p.experts - 1e-9));
}

void apply_capacity(const MoeParams& p, MoeAssignment& a) {
  const uint64_t cap = expert_capacity(p);
  if (cap == UINT64_MAX) return;
  std::vector<uint64_t> load(static_cast<size_t>(p.experts), 0);
  for (int t = 0; t < a.tokens; ++t)
    for (int r = 0; r < a.ranks; ++r)
      for (int i = 0; i < a.top_k; ++i) {
        int32_t& e = a.at(r, t, i);
        if (e < 0) continue;
        if (load[static_cast<size_t>(e)] >= cap) {
          e = -1;
          ++a.dropped;
        } else {
          ++load[static_cast<size_t>(e)];
        }
      }
}

std::vector<uint64_t> dispatch_bytes(const MoeParams& p, const MoeAssignment& a) {
  const auto n = static_cast<size_t>(a.ranks);
  const uint64_t token = static_cast<uint64_t>(p.hidden) * static_cast<uint64_t>(p.elem_bytes);
  std::vector<uint64_t> bytes(n * n, 0);
  std::vector<int> dests;
  for (int r = 0; r < a.ranks; ++r)
    for (int t = 0; t < a.tokens; ++t) {
      dests.clear();
      for (int i = 0; i < a.top_k; ++i) {
        const int32_t e = a.at(r, t, i);
        if (e < 0) continue;
        const int d = expert_rank(p, e);
        if (p.dedup && std::find(dests.begin(), dests.end(), d) != dests.end()) continue;
        dests.push_back(d);
        bytes[static_cast<size_t>(r) * n + static_cast<size_t>(d)] += token;
      }
    }
  return bytes;
}

}  // namespace upswitch::traffic
