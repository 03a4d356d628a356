#include "chakra/chakra_trace.h"

#include <algorithm>
#include <climits>
#include <fstream>
#include <map>
#include <queue>
#include <set>

#include <nlohmann/json.hpp>

#include "coll/collective.h"
#include "coll/plan.h"
#include "config/config.h"
#include "config/input_file.h"
#include "tl/reduce_alu.h"

namespace upswitch::chakra {
namespace {

using Groups = std::vector<std::pair<std::string, std::vector<int>>>;

std::string rank_file(const std::string& prefix, int r) { return prefix + "." + std::to_string(r) + ".et"; }

bool exists(const std::string& path) { return std::ifstream(path).good(); }

// A node of one rank's file.
struct Ref {
  int rank = 0;
  size_t index = 0;  // into ranks[rank].nodes
};

class Converter {
 public:
  explicit Converter(const ChakraTrace& c) : c_(c) {}

  traffic::Trace run() {
    index_nodes();
    order_ranks();
    match_collectives();
    match_messages();
    return emit();
  }

 private:
  const Node& node(const Ref& r) const { return c_.ranks[static_cast<size_t>(r.rank)].nodes[r.index]; }
  [[noreturn]] void bad(const Ref& r, const std::string& what) const {
    const Node& n = node(r);
    throw config::ConfigError("chakra trace '" + rank_file(c_.prefix, r.rank) + "' node " + std::to_string(r.index + 1) +
                              " (id " + std::to_string(n.id) + ", " + node_type_name(n.type) + "): " + what);
  }
  std::vector<uint64_t> deps(const Node& n) const {
    std::vector<uint64_t> d = n.ctrl_deps;
    d.insert(d.end(), n.data_deps.begin(), n.data_deps.end());
    std::sort(d.begin(), d.end());
    d.erase(std::unique(d.begin(), d.end()), d.end());
    return d;
  }

  void index_nodes() {
    by_id_.resize(c_.ranks.size());
    for (size_t r = 0; r < c_.ranks.size(); ++r) {
      const auto& nodes = c_.ranks[r].nodes;
      for (size_t i = 0; i < nodes.size(); ++i) {
        const auto [it, fresh] = by_id_[r].emplace(nodes[i].id, i);
        if (!fresh)
          bad({static_cast<int>(r), i}, "id " + std::to_string(nodes[i].id) + " is already the id of node " +
                                            std::to_string(it->second + 1));
      }
      for (size_t i = 0; i < nodes.size(); ++i)
        for (uint64_t d : deps(nodes[i]))
          if (!by_id_[r].count(d))
            bad({static_cast<int>(r), i}, "depends on id " + std::to_string(d) + ", which is no node of this file");
    }
  }

  // Each rank's nodes in dependency order, ties by position in the file (a cycle is an error).
  void order_ranks() {
    order_.resize(c_.ranks.size());
    for (size_t r = 0; r < c_.ranks.size(); ++r) {
      const auto& nodes = c_.ranks[r].nodes;
      std::vector<int> waiting(nodes.size(), 0);
      std::vector<std::vector<size_t>> next(nodes.size());
      for (size_t i = 0; i < nodes.size(); ++i)
        for (uint64_t d : deps(nodes[i])) {
          next[by_id_[r].at(d)].push_back(i);
          ++waiting[i];
        }
      std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
      for (size_t i = 0; i < nodes.size(); ++i)
        if (waiting[i] == 0) ready.push(i);
      while (!ready.empty()) {
        const size_t i = ready.top();
        ready.pop();
        order_[r].push_back(i);
        for (size_t n : next[i])
          if (--waiting[n] == 0) ready.push(n);
      }
      if (order_[r].size() != nodes.size())
        for (size_t i = 0; i < nodes.size(); ++i)
          if (waiting[i] > 0) bad({static_cast<int>(r), i}, "its dependencies form a cycle");
    }
  }

  const std::vector<int>& group_of(const Ref& r) {
    const std::string& pg = node(r).pg_name;
    if (c_.groups.empty() || pg.empty()) {
      if (world_.empty())
        for (size_t k = 0; k < c_.ranks.size(); ++k) world_.push_back(static_cast<int>(k));
      return world_;
    }
    for (const auto& [name, members] : c_.groups)
      if (name == pg) return members;
    std::string names;
    for (const auto& g : c_.groups) names += (names.empty() ? "" : ", ") + g.first;
    bad(r, "pg_name '" + pg + "' is not a communicator group of the groups file (" + names + ")");
  }

  // The k-th collective node of a group on each member is one collective.
  void match_collectives() {
    std::map<std::pair<std::string, size_t>, size_t> instance;  // (group, k) -> colls_
    std::map<std::pair<int, std::string>, size_t> count;       // (rank, group) -> collectives so far
    for (size_t r = 0; r < c_.ranks.size(); ++r)
      for (size_t i : order_[r]) {
        const Ref ref{static_cast<int>(r), i};
        if (node(ref).type != NodeType::kCommColl) continue;
        const std::vector<int>& members = group_of(ref);
        const std::string key = c_.groups.empty() ? "" : node(ref).pg_name;
        if (std::find(members.begin(), members.end(), static_cast<int>(r)) == members.end())
          bad(ref, "rank " + std::to_string(r) + " is not a member of its communicator group '" + key + "'");
        const size_t k = count[{static_cast<int>(r), key}]++;
        const auto [it, fresh] = instance.emplace(std::make_pair(key, k), colls_.size());
        if (fresh) colls_.push_back({key, members, {}});
        colls_[it->second].refs.push_back(ref);
        unit_of_[{ref.rank, i}] = Unit{Unit::kColl, it->second};
      }
    for (const Coll& c : colls_)
      if (c.refs.size() != c.members.size()) {
        for (int m : c.members)
          if (std::none_of(c.refs.begin(), c.refs.end(), [m](const Ref& x) { return x.rank == m; })) {
            const Ref& first = c.refs.front();
            bad(first, "collective " + std::to_string(count_before(first)) + " of group '" + c.group +
                           "' on this rank has no counterpart on rank " + std::to_string(m) +
                           " (each member must call the group's collectives in the same order)");
          }
      }
  }
  size_t count_before(const Ref& r) const {
    size_t k = 0;
    for (size_t i : order_[static_cast<size_t>(r.rank)]) {
      if (i == r.index) break;
      if (c_.ranks[static_cast<size_t>(r.rank)].nodes[i].type == NodeType::kCommColl) ++k;
    }
    return k;
  }

  // The k-th send from s to d with tag t is the k-th receive at d from s with tag t.
  void match_messages() {
    std::map<std::tuple<int64_t, int64_t, int64_t>, std::vector<Ref>> sends, recvs;
    for (size_t r = 0; r < c_.ranks.size(); ++r)
      for (size_t i : order_[r]) {
        const Ref ref{static_cast<int>(r), i};
        const Node& n = node(ref);
        const auto nranks = static_cast<int64_t>(c_.ranks.size());
        if (n.type == NodeType::kCommSend) {
          if (!n.has_comm_dst || n.comm_dst < 0 || n.comm_dst >= nranks || n.comm_dst == static_cast<int64_t>(r))
            bad(ref, "comm_dst: expected another rank, 0 .. " + std::to_string(nranks - 1));
          sends[{static_cast<int64_t>(r), n.comm_dst, n.comm_tag}].push_back(ref);
        } else if (n.type == NodeType::kCommRecv) {
          if (!n.has_comm_src || n.comm_src < 0 || n.comm_src >= nranks || n.comm_src == static_cast<int64_t>(r))
            bad(ref, "comm_src: expected another rank, 0 .. " + std::to_string(nranks - 1));
          recvs[{n.comm_src, static_cast<int64_t>(r), n.comm_tag}].push_back(ref);
        }
      }
    for (const auto& [key, list] : sends) {
      const auto it = recvs.find(key);
      const size_t matched = it == recvs.end() ? 0 : it->second.size();
      for (size_t k = 0; k < list.size(); ++k) {
        if (k >= matched)
          bad(list[k], "send " + std::to_string(k) + " to rank " + std::to_string(std::get<1>(key)) + " with tag " +
                           std::to_string(std::get<2>(key)) + " has no matching receive there");
        const Ref& recv = it->second[k];
        const Node& s = node(list[k]);
        const Node& v = node(recv);
        if (!s.has_comm_size || s.comm_size <= 0 || s.comm_size % 4 || s.comm_size > static_cast<int64_t>(traffic::kTraceMaxTxnBytes))
          bad(list[k], "comm_size = " + std::to_string(s.comm_size) +
                           ": expected a positive multiple of 4 up to 2^30 (a write moves whole doublewords)");
        if (v.has_comm_size && v.comm_size != s.comm_size)
          bad(recv, "comm_size = " + std::to_string(v.comm_size) + " but the matching send (rank " +
                        std::to_string(list[k].rank) + ", id " + std::to_string(s.id) + ") sends " + std::to_string(s.comm_size));
        const size_t m = messages_++;
        unit_of_[{list[k].rank, list[k].index}] = Unit{Unit::kMessage, m};
        recv_of_[{recv.rank, recv.index}] = m;
      }
    }
    for (const auto& [key, list] : recvs) {
      const auto it = sends.find(key);
      const size_t matched = it == sends.end() ? 0 : it->second.size();
      if (list.size() > matched)
        bad(list[matched], "receive " + std::to_string(matched) + " from rank " + std::to_string(std::get<0>(key)) +
                               " with tag " + std::to_string(std::get<2>(key)) + " has no matching send there");
    }
  }

  // Units of the global graph: an operation (compute, collective, message) or a node that passes
  // its dependencies on. A unit is done when the operations in its `done` set are.
  struct Unit {
    enum Kind { kNode, kColl, kMessage } kind = kNode;
    size_t index = 0;  // colls_, or the message's number (kNode: unused)
  };
  struct Coll {
    std::string group;
    std::vector<int> members;
    std::vector<Ref> refs;  // one per member, in rank order of discovery
  };

  traffic::TraceOp collective_op(const Coll& c) const {
    traffic::TraceOp op;
    op.collective = true;
    const Ref& first = c.refs.front();
    const Node& f = node(first);
    coll::CollectiveSpec& s = op.spec;
    switch (f.comm_type) {
      case CommType::kAllReduce: s.coll = coll::Collective::kAllReduce; break;
      case CommType::kAllGather: s.coll = coll::Collective::kAllGather; break;
      case CommType::kReduceScatter: s.coll = coll::Collective::kReduceScatter; break;
      case CommType::kBroadcast: s.coll = coll::Collective::kBroadcast; break;
      case CommType::kAllToAll: s.coll = coll::Collective::kAllToAll; break;
      default:
        bad(first, std::string("comm_type ") + comm_type_name(f.comm_type) +
                       ": not modelled (expected ALL_REDUCE, ALL_GATHER, REDUCE_SCATTER, BROADCAST or ALL_TO_ALL)");
    }
    if (!f.has_comm_type) bad(first, "a collective without a comm_type attribute");
    op.op = coll::collective_name(s.coll);
    s.ranks = c.members;
    // Absent or auto: chosen at replay as `--algo auto` chooses, as a trace line's fields are.
    const std::string algo = f.upswitch_algo.empty() ? "auto" : f.upswitch_algo;
    op.algo_given = algo != "auto";
    s.algo = s.coll == coll::Collective::kAllToAll ? coll::Algorithm::kOneShot : coll::Algorithm::kRing;
    if ((op.algo_given && !coll::parse_algorithm(algo, s.algo)) || !coll::algorithm_applies(s.coll, s.algo))
      bad(first, "upswitch_algo = '" + algo + "': expected auto, ring, oneshot or switch (all_to_all: auto or oneshot)");
    const std::string protocol = f.upswitch_protocol.empty() ? "auto" : f.upswitch_protocol;
    op.protocol_given = protocol != "auto";
    if (op.protocol_given && !coll::parse_protocol(protocol, s.protocol))
      bad(first, "upswitch_protocol = '" + protocol + "': expected auto, simple, ll128 or ll");
    op.channels = static_cast<int>(f.upswitch_channels);  // 0: auto (read_chakra checked 0 .. 64)
    const std::string type = f.upswitch_dtype.empty() ? "f32" : f.upswitch_dtype;
    if (!tl::parse_red_type(type.c_str(), s.type))
      bad(first, "upswitch_dtype = '" + type + "': expected f32, f16, bf16, f64, s32, s64, u32 or u64");
    const auto n = c.members.size();
    const auto elem = static_cast<int64_t>(std::max(4, tl::red_type_bytes(s.type)));
    // Every member's node, by its position in the group.
    std::vector<const Node*> at(n, nullptr);
    for (const Ref& r : c.refs) {
      const Node& x = node(r);
      if (!x.has_comm_type || x.comm_type != f.comm_type || x.upswitch_algo != f.upswitch_algo ||
          x.upswitch_dtype != f.upswitch_dtype || x.upswitch_protocol != f.upswitch_protocol ||
          x.upswitch_channels != f.upswitch_channels)
        bad(r, "its collective is " + std::string(comm_type_name(x.comm_type)) + " but rank " + std::to_string(first.rank) +
                   "'s counterpart (id " + std::to_string(f.id) + ") is " + comm_type_name(f.comm_type) +
                   " (or their upswitch_algo / upswitch_dtype / upswitch_protocol / upswitch_channels differ)");
      const bool a2a = s.coll == coll::Collective::kAllToAll;  // a rank may send nothing
      if (!x.has_comm_size || x.comm_size < (a2a ? 0 : 1) || x.comm_size % elem || x.comm_size > static_cast<int64_t>(traffic::kTraceMaxCollBytes))
        bad(r, "comm_size = " + std::to_string(x.comm_size) + ": expected a positive byte count up to 2^40, a multiple of 4 and of the " +
                   tl::red_type_name(s.type) + " element");
      const size_t pos = static_cast<size_t>(std::find(c.members.begin(), c.members.end(), r.rank) - c.members.begin());
      at[pos] = &x;
    }
    bool uneven = false;
    for (const Node* x : at) uneven = uneven || x->comm_size != f.comm_size || !x->upswitch_pair_bytes.empty();
    if (uneven && s.coll != coll::Collective::kAllToAll)
      for (const Ref& r : c.refs)
        if (node(r).comm_size != f.comm_size)
          bad(r, "comm_size = " + std::to_string(node(r).comm_size) + " but rank " + std::to_string(first.rank) +
                     "'s counterpart (id " + std::to_string(f.id) + ") has " + std::to_string(f.comm_size));
    if (!uneven) {
      s.bytes = static_cast<uint64_t>(f.comm_size);
    } else {  // an all-to-all whose ranks send different amounts: the matrix, row i = rank i's sends
      for (size_t i = 0; i < n; ++i) {
        const Node& x = *at[i];
        const Ref& r = *std::find_if(c.refs.begin(), c.refs.end(), [&](const Ref& y) { return &node(y) == &x; });
        int64_t row = 0;
        if (!x.upswitch_pair_bytes.empty()) {
          if (x.upswitch_pair_bytes.size() != n)
            bad(r, "upswitch_pair_bytes has " + std::to_string(x.upswitch_pair_bytes.size()) + " entries: expected one per member (" +
                       std::to_string(n) + ")");
          for (int64_t b : x.upswitch_pair_bytes) {
            if (b < 0 || b % elem) bad(r, "upswitch_pair_bytes: " + std::to_string(b) + " is not a multiple of the element");
            s.pair_bytes.push_back(static_cast<uint64_t>(b));
            row += b;
          }
          if (row != x.comm_size)
            bad(r, "upswitch_pair_bytes sum to " + std::to_string(row) + ", not comm_size = " + std::to_string(x.comm_size));
        } else {
          if (x.comm_size % (elem * static_cast<int64_t>(n)))
            bad(r, "comm_size = " + std::to_string(x.comm_size) + ": an all-to-all splits it evenly over the " +
                       std::to_string(n) + " members, so expected a multiple of " + std::to_string(elem * static_cast<int64_t>(n)));
          for (size_t j = 0; j < n; ++j) s.pair_bytes.push_back(static_cast<uint64_t>(x.comm_size) / n);
        }
        s.bytes = std::max(s.bytes, static_cast<uint64_t>(x.comm_size));
      }
    }
    const std::string wrong = coll::check_spec(s, INT_MAX);
    if (!wrong.empty()) bad(first, op.op + ": " + wrong);
    op.id = "r" + std::to_string(first.rank) + "." + std::to_string(f.id);
    return op;
  }

  traffic::Trace emit() {
    // Units: one per operation (collective instance, message, compute node) and per other node.
    std::map<std::pair<int, size_t>, size_t> unit;  // (rank, node) -> unit id
    std::vector<Unit> units;
    std::vector<Ref> unit_ref;  // a node of the unit (the first member of a collective)
    std::map<size_t, size_t> coll_unit, msg_unit;  // collective / message number -> unit id
    for (size_t r = 0; r < c_.ranks.size(); ++r)
      for (size_t i : order_[r]) {
        const auto key = std::make_pair(static_cast<int>(r), i);
        const auto u = unit_of_.find(key);
        std::map<size_t, size_t>* shared =
            u == unit_of_.end() ? nullptr : (u->second.kind == Unit::kColl ? &coll_unit : &msg_unit);
        if (shared) {
          const auto [it, fresh] = shared->emplace(u->second.index, units.size());
          if (fresh) {
            units.push_back(u->second);
            unit_ref.push_back({static_cast<int>(r), i});
          }
          unit[key] = it->second;
        } else {
          unit[key] = units.size();
          units.push_back(Unit{});
          unit_ref.push_back({static_cast<int>(r), i});
        }
      }
    // Edges: a node's dependencies precede its unit; a message precedes its receive, so a receive
    // is done when the message and the receive's own dependencies are.
    std::vector<std::set<size_t>> pred(units.size());
    for (size_t r = 0; r < c_.ranks.size(); ++r)
      for (size_t i = 0; i < c_.ranks[r].nodes.size(); ++i) {
        const size_t me = unit.at({static_cast<int>(r), i});
        const Node& n = c_.ranks[r].nodes[i];
        const bool recv = recv_of_.count({static_cast<int>(r), i}) > 0;
        for (uint64_t d : deps(n)) {
          const size_t from = unit.at({static_cast<int>(r), by_id_[r].at(d)});
          if (from != me) pred[me].insert(from);
        }
        if (recv) pred[me].insert(msg_unit.at(recv_of_.at({static_cast<int>(r), i})));
      }
    std::vector<std::vector<size_t>> succ(units.size());
    std::vector<size_t> waiting(units.size());
    for (size_t u = 0; u < units.size(); ++u) {
      waiting[u] = pred[u].size();
      for (size_t p : pred[u]) succ[p].push_back(u);
    }
    std::priority_queue<size_t, std::vector<size_t>, std::greater<size_t>> ready;
    for (size_t u = 0; u < units.size(); ++u)
      if (waiting[u] == 0) ready.push(u);
    traffic::Trace t;
    t.name = c_.prefix;
    std::vector<std::vector<size_t>> done(units.size());  // trace ops that make the unit done
    size_t emitted = 0;
    while (!ready.empty()) {
      const size_t u = ready.top();
      ready.pop();
      ++emitted;
      std::vector<size_t> before;
      for (size_t p : pred[u]) before.insert(before.end(), done[p].begin(), done[p].end());
      std::sort(before.begin(), before.end());
      before.erase(std::unique(before.begin(), before.end()), before.end());
      traffic::TraceOp op;
      bool is_op = true;
      const Ref& ref = unit_ref[u];
      const Node& n = node(ref);
      if (units[u].kind == Unit::kColl) {
        op = collective_op(colls_[units[u].index]);
      } else if (units[u].kind == Unit::kMessage) {
        op.op = "write";
        op.opcode = tl::Opcode::kWrite;
        op.src = ref.rank;
        op.dst = static_cast<int>(n.comm_dst);
        op.bytes = static_cast<uint64_t>(n.comm_size);
        op.id = "r" + std::to_string(ref.rank) + "." + std::to_string(n.id);
      } else if (n.type == NodeType::kComp && (n.upswitch_duration_ns >= 0 ? n.upswitch_duration_ns > 0 : n.duration_micros > 0)) {
        op.op = "compute";
        op.compute = true;
        op.rank = ref.rank;
        op.duration_us = n.upswitch_duration_ns >= 0 ? static_cast<double>(n.upswitch_duration_ns) / 1000.0
                                                      : static_cast<double>(n.duration_micros);
        if (op.duration_us > traffic::kTraceMaxUs)
          bad(ref, "duration_micros = " + std::to_string(n.duration_micros) + ": expected at most 1e9");
        op.id = "r" + std::to_string(ref.rank) + "." + std::to_string(n.id);
      } else {
        is_op = false;
      }
      if (is_op) {
        op.line = static_cast<int>(t.ops.size()) + 1;
        op.after = before;
        done[u] = {t.ops.size()};
        t.ops.push_back(std::move(op));
      } else {
        done[u] = std::move(before);
      }
      for (size_t s : succ[u])
        if (--waiting[s] == 0) ready.push(s);
    }
    if (emitted != units.size())
      for (size_t u = 0; u < units.size(); ++u)
        if (waiting[u] > 0)
          bad(unit_ref[u], "waits, through collectives or messages of other ranks, for itself (the ranks call "
                           "their collectives or messages in orders that deadlock)");
    // Writes land above every collective buffer of their target (doc/trace.md, "Memory").
    uint64_t buffers = 0;
    for (const traffic::TraceOp& op : t.ops)
      if (op.collective) buffers += (coll::make_layout(op.spec, 0).end() + 4095) / 4096 * 4096;
    for (traffic::TraceOp& op : t.ops)
      if (op.transaction()) op.offset = buffers;
    return t;
  }

  const ChakraTrace& c_;
  std::vector<std::map<uint64_t, size_t>> by_id_;
  std::vector<std::vector<size_t>> order_;
  std::vector<int> world_;
  std::vector<Coll> colls_;
  size_t messages_ = 0;  // send/receive pairs matched
  std::map<std::pair<int, size_t>, Unit> unit_of_;    // collective and send nodes
  std::map<std::pair<int, size_t>, size_t> recv_of_;  // receive node -> its message's number
};

}  // namespace

Groups parse_groups(const std::string& text, const std::string& name) {
  const auto bad = [&](const std::string& what) {
    throw config::ConfigError("chakra groups '" + name + "': " + what);
  };
  const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object())
    bad("expected a JSON object of communicator groups, {\"name\": [rank, ...], ...}");
  Groups out;
  for (const auto& item : j.items()) {
    const std::string allowed = "expected a non-empty array of distinct ranks (integers >= 0)";
    if (!item.value().is_array() || item.value().empty()) bad("group '" + item.key() + "': " + allowed);
    std::vector<int> members;
    for (const auto& r : item.value()) {
      if (!r.is_number_unsigned() || r.get<uint64_t>() > INT_MAX) bad("group '" + item.key() + "': " + allowed);
      if (std::find(members.begin(), members.end(), r.get<int>()) != members.end())
        bad("group '" + item.key() + "': rank " + std::to_string(r.get<int>()) + " listed twice");
      members.push_back(r.get<int>());
    }
    out.emplace_back(item.key(), std::move(members));
  }
  return out;
}

std::string groups_json(const Groups& groups) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [name, members] : groups) j[name] = members;
  return j.dump() + "\n";
}

ChakraTrace read_chakra(const std::string& prefix, const std::string& groups_path) {
  ChakraTrace c;
  c.prefix = prefix;
  if (!exists(rank_file(prefix, 0)))
    throw config::ConfigError("chakra trace '" + prefix + "': no file '" + rank_file(prefix, 0) +
                              "' (expected one file per rank, PREFIX.0.et, PREFIX.1.et, ...)");
  const std::string groups = !groups_path.empty() ? groups_path : prefix + ".groups.json";
  if (!groups_path.empty() || exists(groups))
    c.groups = parse_groups(config::read_input_file("chakra groups", groups, config::kMaxConfigFileBytes), groups);
  size_t nodes = 0;  // so far, all ranks: at most kMaxChakraNodes together
  for (int r = 0; exists(rank_file(prefix, r)); ++r) {
    c.ranks.push_back(read_rank_trace(rank_file(prefix, r), kMaxChakraNodes - nodes));
    nodes += c.ranks.back().nodes.size();
  }
  for (const auto& [name, members] : c.groups)
    for (int m : members)
      if (m >= static_cast<int>(c.ranks.size()))
        throw config::ConfigError("chakra groups '" + groups + "': group '" + name + "' names rank " + std::to_string(m) +
                                  ", but the trace has ranks 0 .. " + std::to_string(c.ranks.size() - 1));
  return c;
}

traffic::Trace to_trace(const ChakraTrace& c) { return Converter(c).run(); }

}  // namespace upswitch::chakra
