// SwitchCore: partitions and port faults (doc/reliability.md). At the end of the routing stage a
// head flit gets its packet's verdict from its (input port, output port) pair, the ports' state
// and, on a network, whether its target accelerator's port in this plane is down; a packet that is not forwarded is consumed at its input flit by flit (each flit's buffer
// slot freed and its credit returned upstream, in a cycle in which the input returns no granted
// flit's credit), and its tail leaves a record on the input's reject line.
#include "core/switch_core.h"

#include <algorithm>
#include <stdexcept>

namespace upswitch::core {

void SwitchCore::set_faults(const FaultParams& f) {
  faults_ = f;
  filtering_ = f.any();
  if (rejects_.empty()) rejects_.assign(static_cast<size_t>(n_), nullptr);
  if (!filtering_) return;
  const auto lanes = static_cast<size_t>(n_) * static_cast<size_t>(v_);
  verdict_.assign(lanes, Reject::kForwarded);
  discard_ring_.assign(static_cast<size_t>(n_) * static_cast<size_t>(p_.buffer_flits()), Credit{});
  discard_head_.assign(static_cast<size_t>(n_), 0);
  discard_count_.assign(static_cast<size_t>(n_), 0);
  credit_sent_at_.assign(static_cast<size_t>(n_), UINT64_MAX);
}

// The verdict on a packet whose head leaves input `i`'s routing stage at `t`. Only requests are
// checked against the partition, by their source and destination accelerators, so every switch
// on a path holds the same rule (the first one rejects); a response answers a request that was
// let through.
uint8_t SwitchCore::classify(int i, const Flit& head, uint64_t t) const {
  const int o = head.out;
  const bool request = head.vc < p_.vcs;  // lanes [0, vcs) are the request class
  if (faults_.down(i, t)) return Reject::kDropped;
  if (request && faults_.target_is_down(head.dst, t)) return Reject::kTargetDown;  // a network's first switch
  if (faults_.down(o, t)) return request ? Reject::kTargetDown : Reject::kDropped;
  if (request && !faults_.same_pod(head.src, head.dst)) return Reject::kProtection;
  return Reject::kForwarded;
}

// Returns true when `f` is consumed here instead of joining a queue.
bool SwitchCore::discard(int i, const Flit& f, uint64_t t) {
  uint8_t& state = verdict_[static_cast<size_t>(i * v_ + f.vc)];
  if (f.head()) state = classify(i, f, t);
  const uint8_t verdict = state;
  if (f.tail()) state = Reject::kForwarded;
  if (verdict == Reject::kForwarded) return false;

  Credit up{f.vc, f.shared_credit()};
  up.out = f.out;
  if (cmd_ && f.tail()) {  // the packet's command slots go back with its tail's credit, as in commit()
    up.cmds = f.msgs;
    up.cmd_shared = f.cmd_shared;
  }
  const auto cap = static_cast<uint32_t>(p_.buffer_flits());
  uint32_t& count = discard_count_[static_cast<size_t>(i)];
  if (count == cap) throw std::logic_error("SwitchCore: more discarded flits than input buffer slots");
  uint32_t slot = discard_head_[static_cast<size_t>(i)] + count;
  if (slot >= cap) slot -= cap;
  discard_ring_[static_cast<size_t>(i) * cap + slot] = up;
  ++count;
  ++discard_pending_;

  if (f.head()) {
    if (verdict == Reject::kProtection) stats_.protection_violations[static_cast<size_t>(i)] += f.msgs;
    if (verdict == Reject::kTargetDown) stats_.target_aborts[static_cast<size_t>(i)] += f.msgs;
    if (verdict == Reject::kDropped) ++stats_.dropped_packets[static_cast<size_t>(i)];
  }
  RejectLine* line = rejects_[static_cast<size_t>(i)];
  if (f.tail() && line) line->push(t, Reject{f.payload, verdict});
  return true;
}

// One waiting credit per input whose link carried no credit of a granted flit this cycle.
void SwitchCore::send_discard_credits(uint64_t t) {
  const auto cap = static_cast<uint32_t>(p_.buffer_flits());
  for (int i = 0; i < n_ && discard_pending_; ++i) {
    const auto ii = static_cast<size_t>(i);
    if (discard_count_[ii] == 0 || credit_sent_at_[ii] == t) continue;
    const Credit c = discard_ring_[ii * cap + discard_head_[ii]];
    if (++discard_head_[ii] == cap) discard_head_[ii] = 0;
    --discard_count_[ii];
    --discard_pending_;
    --occupancy_[i];
    --total_occupancy_;
    ++stats_.flits_discarded;
    if (drop_credit_[i])
      drop_credit_[i] = 0;
    else
      in_links_[i]->send_credit(t, c);
  }
}

void SwitchCore::avoid_ports(const std::vector<char>& lost) {
  if (route_begin_.empty()) return;  // a single switch's table: no neighbour to avoid
  auto is_lost = [&](int o) { return o < static_cast<int>(lost.size()) && lost[static_cast<size_t>(o)]; };
  std::vector<uint32_t> begin{0};
  std::vector<uint16_t> ports;
  const size_t dests = route_begin_.size() - 1;
  for (size_t d = 0; d < dests; ++d) {
    const size_t before = ports.size();
    for (uint32_t j = route_begin_[d]; j < route_begin_[d + 1]; ++j)
      if (!is_lost(route_ports_[j])) ports.push_back(route_ports_[j]);
    if (ports.size() == before)  // no other way: keep the routes (only what drains goes there)
      ports.insert(ports.end(), route_ports_.begin() + route_begin_[d], route_ports_.begin() + route_begin_[d + 1]);
    begin.push_back(static_cast<uint32_t>(ports.size()));
    if (begin[d + 1] > begin[d]) route_[d] = ports[begin[d]];
  }
  route_begin_ = std::move(begin);
  route_ports_ = std::move(ports);
}

void SwitchCore::avoid_ports_at(uint64_t at, std::vector<char> lost) {
  avoid_plan_.emplace_back(at, std::move(lost));
  std::stable_sort(avoid_plan_.begin(), avoid_plan_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  next_avoid_ = std::min(next_avoid_, avoid_plan_.front().first);
}

void SwitchCore::set_routes_at(uint64_t at, std::vector<uint32_t> begin, std::vector<uint16_t> ports) {
  if (route_begin_.empty() || begin.size() != route_begin_.size())
    throw std::invalid_argument("SwitchCore::set_routes_at: a network switch's table, one set per destination");
  for (uint16_t q : ports)
    if (q >= n_) throw std::invalid_argument("SwitchCore::set_routes_at: route to a port beyond the switch");
  if (!multipath_) {  // from the start, so that a body always follows its head's output
    multipath_ = true;
    lane_out_.assign(static_cast<size_t>(n_ * v_), 0);
    rr_.assign(static_cast<size_t>(n_), 0);
  }
  table_plan_.push_back(RouteTable{at, std::move(begin), std::move(ports)});
  std::stable_sort(table_plan_.begin(), table_plan_.end(), [](const auto& a, const auto& b) { return a.at < b.at; });
  next_avoid_ = std::min(next_avoid_, table_plan_.front().at);
}

void SwitchCore::install_routes(std::vector<uint32_t> begin, std::vector<uint16_t> ports) {
  route_begin_ = std::move(begin);
  route_ports_ = std::move(ports);
  for (size_t d = 0; d + 1 < route_begin_.size(); ++d)
    route_[d] = route_begin_[d + 1] > route_begin_[d] ? route_ports_[route_begin_[d]] : -1;
}

// The changes due by cycle t: the newest route table due (with the ports avoided so far taken
// out of it again), then the neighbours lost by now.
void SwitchCore::apply_route_changes(uint64_t t) {
  size_t k = 0;
  while (k < table_plan_.size() && table_plan_[k].at <= t) ++k;
  if (k) {
    install_routes(std::move(table_plan_[k - 1].begin), std::move(table_plan_[k - 1].ports));
    table_plan_.erase(table_plan_.begin(), table_plan_.begin() + static_cast<std::ptrdiff_t>(k));
    for (const std::vector<char>& lost : avoided_) avoid_ports(lost);
  }
  size_t j = 0;
  for (; j < avoid_plan_.size() && avoid_plan_[j].first <= t; ++j) {
    avoid_ports(avoid_plan_[j].second);
    avoided_.push_back(std::move(avoid_plan_[j].second));
  }
  avoid_plan_.erase(avoid_plan_.begin(), avoid_plan_.begin() + static_cast<std::ptrdiff_t>(j));
  next_avoid_ = UINT64_MAX;
  if (!avoid_plan_.empty()) next_avoid_ = avoid_plan_.front().first;
  if (!table_plan_.empty()) next_avoid_ = std::min(next_avoid_, table_plan_.front().at);
}

}  // namespace upswitch::core
