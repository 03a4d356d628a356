#include "coll/plan.h"

#include <algorithm>

namespace upswitch::coll {
namespace {

uint64_t round_up(uint64_t v, uint64_t to) { return (v + to - 1) / to * to; }

tl::Opcode write_op(uint64_t remote, uint64_t bytes) {
  return remote % 64 == 0 && bytes % 64 == 0 ? tl::Opcode::kWriteFull : tl::Opcode::kWrite;
}

struct Builder {
  const CollectiveSpec& s;
  const Layout& l;
  Plan plan;
  int n;
  int elem;
  uint64_t slice = slice_of(s);

  uint64_t begin(int c) const { return chunk_begin(s.bytes, n, c, elem); }
  uint64_t size(int c) const { return begin(c + 1) - begin(c); }
  int slices(uint64_t bytes) const { return std::max<int>(1, static_cast<int>((bytes + slice - 1) / slice)); }
  // Slice j of [0, bytes): offset and length (0 past the end).
  uint64_t slice_off(int j) const { return static_cast<uint64_t>(j) * slice; }
  uint64_t slice_len(uint64_t bytes, int j) const {
    return slice_off(j) >= bytes ? 0 : std::min(slice, bytes - slice_off(j));
  }
  int add(PlanOp op) {
    plan.ops.push_back(op);
    return static_cast<int>(plan.ops.size() - 1);
  }
  void copy(int rank, uint64_t from, uint64_t to, uint64_t bytes) {
    if (bytes) plan.copies.push_back({rank, from, to, bytes});
  }
  PlanOp transfer(int rank, tl::Opcode op, int peer, uint64_t remote, uint64_t local, uint64_t bytes) const {
    PlanOp p;
    p.rank = rank;
    p.op = op == tl::Opcode::kWrite ? write_op(remote, bytes) : op;
    p.peer = peer;
    p.remote = remote;
    p.local = local;
    p.bytes = bytes;
    return p;
  }

  // Ring all-reduce / reduce-scatter / all-gather, as NCCL runs them: step k of rank i writes one
  // chunk into rank i+1's staging area (reduction steps) or its output (gather steps), slice by
  // slice; each slice waits for the flag of the same slice of step k-1, and a reduction step first
  // folds the staged slice into its own buffer.
  void ring_steps() {
    const bool ar = s.coll == Collective::kAllReduce, rs = s.coll == Collective::kReduceScatter;
    const int reduce_steps = ar || rs ? n - 1 : 0;
    const int steps = ar ? 2 * (n - 1) : n - 1;
    uint64_t max_chunk = 0;
    for (int c = 0; c < n; ++c) max_chunk = std::max(max_chunk, size(c));
    const int J = slices(max_chunk);
    for (int i = 0; i < n; ++i) {
      if (ar || rs)
        copy(i, l.in, l.out, s.bytes);
      else
        copy(i, l.in + begin(i), l.out + begin(i), size(i));
      // Steps 1 .. reduce_steps fold what arrived in the step before (with rs, a last step only folds).
      for (int k = 0; k < steps + (rs ? 1 : 0); ++k) {
        const bool reduce = k < reduce_steps;
        const int ch = reduce || rs ? ((i - 1 - k) % n + 2 * n) % n : ((i - (k - reduce_steps)) % n + 2 * n) % n;
        for (int j = 0; j < J; ++j) {
          const uint64_t off = begin(ch) + std::min(slice_off(j), size(ch)), len = slice_len(size(ch), j);
          PlanOp p = transfer(i, tl::Opcode::kWrite, (i + 1) % n, (reduce ? l.stage : l.out) + off, l.out + off, len);
          if (k == steps) p.bytes = 0;  // rs: the last fold
          p.wait_flag = k > 0 ? (k - 1) * J + j : -1;
          if (k > 0 && k <= reduce_steps) {
            p.fold_at = l.out + off;
            p.fold_from = l.stage + off;
            p.fold_bytes = len;
          }
          if (k + 1 < steps + (rs ? 1 : 0)) {
            p.notify_peer = (i + 1) % n;
            p.notify_flag = k * J + j;
          }
          add(p);
        }
      }
    }
  }

  void ring_broadcast() {
    const int J = slices(s.bytes);
    copy(s.root, l.in, l.out, s.bytes);
    for (int i = 0; i < n; ++i) {
      const int q = (i - s.root + n) % n;  // hops from the root
      if (q == n - 1) continue;
      for (int j = 0; j < J; ++j) {
        PlanOp p = transfer(i, tl::Opcode::kWrite, (i + 1) % n, l.out + slice_off(j), l.out + slice_off(j),
                            slice_len(s.bytes, j));
        p.wait_flag = q > 0 ? j : -1;
        if (q + 1 < n - 1) {
          p.notify_peer = (i + 1) % n;
          p.notify_flag = j;
        }
        add(p);
      }
    }
  }

  // All-to-all as NCCL's grouped send/recv (and DeepEP) run it: every peer progresses at once, so
  // each rank issues its blocks round-robin over the peers, a slice at a time; a large block to a
  // hot peer does not hold back the others behind it.
  void all_to_all() {
    for (int i = 0; i < n; ++i) {
      copy(i, l.in + send_displ(i, i), l.out + recv_displ(i, i), pair_bytes(s, i, i));
      uint64_t most = 0;
      for (int t = 0; t < n; ++t)
        if (t != i) most = std::max(most, pair_bytes(s, i, t));
      for (int j = 0; j < slices(most); ++j)
        for (int d = 1; d < n; ++d) {
          const int t = (i + d) % n;
          const uint64_t len = slice_len(pair_bytes(s, i, t), j);
          if (len == 0) continue;
          add(transfer(i, tl::Opcode::kWrite, t, l.out + recv_displ(i, t) + slice_off(j),
                       l.in + send_displ(i, t) + slice_off(j), len));
        }
    }
  }

  void oneshot() {
    if (s.coll == Collective::kAllToAll) {
      all_to_all();
      return;
    }
    for (int i = 0; i < n; ++i) {
      switch (s.coll) {
        case Collective::kAllReduce: copy(i, l.in, l.out, s.bytes); break;
        case Collective::kReduceScatter:
        case Collective::kAllGather: copy(i, l.in + begin(i), l.out + begin(i), size(i)); break;
        case Collective::kBroadcast: if (i == s.root) copy(i, l.in, l.out, s.bytes); break;
        case Collective::kAllToAll: break;  // all_to_all()
      }
      for (int d = 1; d < n; ++d) {
        const int t = (i + d) % n;
        PlanOp p;
        switch (s.coll) {
          case Collective::kAllReduce: p = transfer(i, tl::Opcode::kReduce, t, l.out, l.in, s.bytes); break;
          case Collective::kReduceScatter:
            p = transfer(i, tl::Opcode::kReduce, t, l.out + begin(t), l.in + begin(t), size(t));
            break;
          case Collective::kAllGather:
            p = transfer(i, tl::Opcode::kWrite, t, l.out + begin(i), l.in + begin(i), size(i));
            break;
          case Collective::kBroadcast:
            if (i != s.root) continue;
            p = transfer(i, tl::Opcode::kWrite, t, l.out, l.in, s.bytes);
            break;
          case Collective::kAllToAll: continue;  // all_to_all()
        }
        if (p.bytes) add(p);
      }
    }
  }

  // Multicast broadcast: the root multicast-stores the buffer slice by slice, and the switch
  // replicates every store to each member (the root included). Every link then carries the buffer
  // once: the root's uplink and each member's downlink. The engine spreads the root's stores over
  // all the switch's units by address (AcceleratorEndpoints::unit_for), so no one unit sends
  // every copy.
  void multicast_broadcast() {
    for (int j = 0; j < slices(s.bytes); ++j) {
      PlanOp st = transfer(s.root, tl::Opcode::kWrite, -1, l.out + slice_off(j), l.in + slice_off(j), slice_len(s.bytes, j));
      st.mc = true;
      add(st);
    }
  }

  // NCCL NVLS: each rank load-reduces its chunk through the engine (the reduced data lands in its
  // own output), then multicast-stores it to every member; slice j's store follows its load.
  void in_switch() {
    if (s.coll == Collective::kBroadcast) {
      multicast_broadcast();
      return;
    }
    for (int i = 0; i < n; ++i) {
      const bool reduce = reduces(s.coll);
      const uint64_t from = begin(i), bytes = size(i);
      std::vector<int> loads;
      for (int j = 0; j * slice < bytes; ++j) {
        const uint64_t off = from + slice_off(j), len = slice_len(bytes, j);
        int load = -1;
        if (reduce) {
          PlanOp p = transfer(i, tl::Opcode::kRead, -1, l.in + off, l.out + off, len);
          p.mc = true;
          if (j >= s.window) p.gate = loads[static_cast<size_t>(j - s.window)];
          load = add(p);
          loads.push_back(load);
          if (s.coll == Collective::kReduceScatter) continue;
        }
        PlanOp st = transfer(i, tl::Opcode::kWrite, -1, l.out + off, (reduce ? l.out : l.in) + off, len);
        st.mc = true;
        st.after = load;
        add(st);
      }
    }
  }

  uint64_t send_displ(int i, int j) const {
    uint64_t d = 0;
    for (int k = 0; k < j; ++k) d += pair_bytes(s, i, k);
    return d;
  }
  uint64_t recv_displ(int i, int j) const {  // where i's block lands at j
    uint64_t d = 0;
    for (int k = 0; k < i; ++k) d += pair_bytes(s, k, j);
    return d;
  }
};

}  // namespace

Layout make_layout(const CollectiveSpec& s, uint64_t base) {
  const int n = static_cast<int>(s.ranks.size());
  Layout l;
  l.in_bytes = l.out_bytes = s.bytes;
  if (s.coll == Collective::kAllToAll) {
    l.in_bytes = l.out_bytes = 0;
    for (int i = 0; i < n; ++i) {
      uint64_t sent = 0, got = 0;
      for (int j = 0; j < n; ++j) {
        sent += pair_bytes(s, i, j);
        got += pair_bytes(s, j, i);
      }
      l.in_bytes = std::max(l.in_bytes, sent);
      l.out_bytes = std::max(l.out_bytes, got);
    }
  }
  if (s.algo == Algorithm::kRing) {
    const int elem = tl::red_type_bytes(s.type);
    const uint64_t slice = slice_of(s);
    uint64_t max_chunk = 0;
    for (int c = 0; c < n; ++c) max_chunk = std::max(max_chunk, chunk_begin(s.bytes, n, c + 1, elem) - chunk_begin(s.bytes, n, c, elem));
    const uint64_t J = std::max<uint64_t>(1, (max_chunk + slice - 1) / slice);
    const uint64_t steps = s.coll == Collective::kAllReduce ? 2 * static_cast<uint64_t>(n) : static_cast<uint64_t>(n) + 1;
    l.flag_count = static_cast<int>(s.coll == Collective::kBroadcast
                                        ? std::max<uint64_t>(1, (s.bytes + slice - 1) / slice)
                                        : steps * J);
  } else if (s.algo == Algorithm::kSwitch && s.coll == Collective::kBroadcast) {
    // The multicast broadcast: one flag per slice of a rank's chunk (the root's scatter landed).
    const int elem = tl::red_type_bytes(s.type);
    const uint64_t slice = slice_of(s);
    uint64_t max_chunk = 0;
    for (int c = 0; c < n; ++c) max_chunk = std::max(max_chunk, chunk_begin(s.bytes, n, c + 1, elem) - chunk_begin(s.bytes, n, c, elem));
    l.flag_count = static_cast<int>(std::max<uint64_t>(1, (max_chunk + slice - 1) / slice));
  }
  l.in = base;
  l.out = round_up(l.in + l.in_bytes, 4096);
  l.stage = round_up(l.out + l.out_bytes, 4096);
  const bool staged = s.algo == Algorithm::kRing && reduces(s.coll);
  l.flags = round_up(l.stage + (staged ? s.bytes : 0), 4096);
  return l;
}

Plan make_plan(const CollectiveSpec& s, const Layout& l) {
  Builder b{s, l, {}, static_cast<int>(s.ranks.size()), tl::red_type_bytes(s.type), slice_of(s)};
  if (b.n == 1) {  // nothing to exchange: the result is the input
    b.copy(0, l.in, l.out, s.coll == Collective::kAllToAll ? pair_bytes(s, 0, 0) : s.bytes);
    return b.plan;
  }
  switch (s.algo) {
    case Algorithm::kRing:
      if (s.coll == Collective::kBroadcast)
        b.ring_broadcast();
      else
        b.ring_steps();
      break;
    case Algorithm::kOneShot: b.oneshot(); break;
    case Algorithm::kSwitch: b.in_switch(); break;
  }
  return b.plan;
}

}  // namespace upswitch::coll
