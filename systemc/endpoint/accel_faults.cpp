// Faults at the accelerator endpoints (doc/reliability.md): answers the switch gives for the
// request packets it rejected (protection violation, target port down), the bookkeeping of
// packets it dropped, and the requesters' completion timeouts. A timed-out request counts as
// answered; its tag and message stay reserved until its late response (or the switch's record of
// its loss) comes back, so a tag is never reused while an answer for it may still arrive.
#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "endpoint/accelerators.h"

namespace upswitch::endpoint {

void AcceleratorEndpoints::connect_rejects(int port, core::RejectLine* line) {
  if (rejects_.empty()) rejects_.assign(ports_.size(), nullptr);
  rejects_.at(static_cast<size_t>(port)) = line;
  faults_on_ = true;
}

// The answer to request m of initiator p with status `st`, as its transfer sees it: status, read
// data, observer, counters. Returns the transfer, to be finished by answer_done() once the tag
// and message are settled. The message itself is left alone (a timed-out request may still be in
// the fabric).
uint32_t AcceleratorEndpoints::record_answer(int p, const tl::Message& m, tl::Status st, uint64_t t) {
  Node& port = nodes_[static_cast<size_t>(p)];
  Transfer& tr = transfers_[m.transfer];
  if (tr.status == tl::Status::kOkay) tr.status = st;
  if (st == tl::Status::kOkay && tl::returns_data(m.op) && !m.no_data) {
    if (tr.req.local_dst != TransferRequest::kNoOffset)
      port.memory.write(tr.req.local_dst + (m.addr - tr.req.addr), m.data.data(), m.len);
    else if (tr.req.result)
      std::memcpy(tr.req.result + (m.addr - tr.req.addr), m.data.data(), m.len);
  }
  if (observer_) {
    if (st == m.status && m.response) {
      observer_->answered(p, m);
    } else {  // a timeout: the observer sees the answer, the message in flight keeps its state
      tl::Message answer = m;
      answer.status = st;
      answer.response = true;
      observer_->answered(p, answer);
    }
  }
  ++result_.statuses[static_cast<size_t>(st)];
  ++result_.requests_answered;
  if (in_window(t)) result_.ports[p].completed_bytes += m.len;
  parts_[0].last_progress = t;  // (accelerators are part 0's)
  return m.transfer;
}

void AcceleratorEndpoints::answer_done(uint32_t th, uint64_t t) {
  Transfer& tr = transfers_[th];
  if (--tr.outstanding == 0 && tr.all_issued) finish_transfer(th, t);
}

// Tag and message of an answered request go back to the pools.
void AcceleratorEndpoints::free_tag(int p, uint16_t tag) {
  Node& port = nodes_[static_cast<size_t>(p)];
  msgs_.release(port.tag_msg[tag]);
  port.tag_msg[tag] = tl::kNoMessage;
  port.tag_flags[tag] = 0;
  port.free_tags.push_back(tag);
}

// Once per endpoint and cycle, after the flits from the switch were taken: the switch's reject
// records due now on each of its ports, then the requests whose deadline is now (an answer
// arriving in its deadline cycle is in time).
void AcceleratorEndpoints::faults_tick(int e, uint64_t t) {
  const Node& node = nodes_[static_cast<size_t>(e)];
  for (int p = node.first_port; p < node.first_port + node.nports; ++p) {
    core::RejectLine* line = reject_line(p);
    core::Reject r;
    if (line && !line->empty() && line->pop(t, r)) on_reject(p, r, t);
  }
  if (node.timer.next_deadline() <= t) expire(e, t);
}

uint64_t AcceleratorEndpoints::faults_next(int e) const {
  const Node& node = nodes_[static_cast<size_t>(e)];
  uint64_t next = node.timer.next_deadline();
  for (int p = node.first_port; p < node.first_port + node.nports; ++p) {
    const core::RejectLine* line = reject_line(p);
    if (line) next = std::min(next, line->next_due());
  }
  return next;
}

void AcceleratorEndpoints::expire(int p, uint64_t t) {
  Node& port = nodes_[static_cast<size_t>(p)];
  while (port.timer.next_deadline() <= t) {
    const uint16_t tag = port.timer.front();
    port.timer.disarm(tag);
    const uint32_t th = record_answer(p, msgs_[port.tag_msg[tag]], tl::Status::kCompletionTimeout, t);
    if (port.tag_flags[tag] & kTagLost) {
      free_tag(p, tag);  // nothing will come back for it
    } else {
      port.tag_flags[tag] |= kTagTimedOut;
      ++timed_out_total_;
    }
    answer_done(th, t);
  }
}

// Message h of initiator p will never come back (the switch dropped it): its tag is freed at its
// timeout, or now if that has passed.
void AcceleratorEndpoints::lose(int p, uint32_t h) {
  Node& port = nodes_[static_cast<size_t>(p)];
  const uint16_t tag = msgs_[h].tag;
  if (port.tag_msg[tag] != h)
    throw TxnIntegrityError("lost message for tag " + std::to_string(tag) + " at initiator " + std::to_string(p) +
                            " that has no such request in flight");
  if (port.tag_flags[tag] & kTagTimedOut) {
    --timed_out_total_;
    free_tag(p, tag);
  } else {
    port.tag_flags[tag] |= kTagLost;
  }
}

// A packet the switch did not forward, due back at endpoint port p (its sender) now. A rejected request
// packet is answered with the error status, one answer per request; a dropped packet answers
// nobody, except the reduction engine (inside the switch), which takes a member's dropped
// request or response as a target abort.
void AcceleratorEndpoints::on_reject(int p, const core::Reject& r, uint64_t t) {
  if (!is_bundle(r.payload))
    throw TxnIntegrityError("reject record for no packet at endpoint " + std::to_string(p));
  const Bundle b = bundle(r.payload);
  free_bundle(part_of(ports_[static_cast<size_t>(p)].owner), r.payload);
  const tl::Status st =
      r.reason == core::Reject::kProtection ? tl::Status::kProtectionViolation : tl::Status::kTargetAbort;
  for (int k = 0; k < b.count; ++k) {
    const uint32_t h = b.msg[k];
    tl::Message& m = msgs_[h];
    const int requester = m.src;
    if (r.reason == core::Reject::kDropped && requester < nacc_) {
      lose(requester, h);
      continue;
    }
    m.status = st;
    m.response = true;
    complete_request(requester, h, t);
  }
}

void AcceleratorEndpoints::take_out_port(int port, uint64_t at) {
  if (port < 0 || port >= static_cast<int>(ports_.size()) || ports_[port].owner >= nacc_)
    throw std::invalid_argument("AcceleratorEndpoints::take_out_port: not an accelerator port");
  outages_.add(at, port);
  next_outage_ = outages_.next();
}

void AcceleratorEndpoints::paths_change_at(uint64_t at) {
  outages_.add(at, -1);
  next_outage_ = outages_.next();
}

int AcceleratorEndpoints::ports_in_service(int e) const {
  const Node& node = nodes_[static_cast<size_t>(e)];
  return node.live.empty() ? node.nports : static_cast<int>(node.live.size());
}

// The outages due by cycle t, at the start of its tick (an endpoint that slept through the due
// cycle had nothing to issue or receive meanwhile, so applying them now is the same).
void AcceleratorEndpoints::take_out_ports(uint64_t t) {
  outages_.take_due(t, [&](int p) {
    if (p < 0) return;  // paths change: the fence below only
    Node& node = nodes_[static_cast<size_t>(ports_[p].owner)];
    core::PortOutages::remove_live(node.live, node.first_port, node.first_port + node.nports, p);
  });
  next_outage_ = outages_.next();
  // Paths change everywhere (planes, and the routes around a lost spine): every accelerator with
  // requests in flight holds its next ones until they are answered.
  for (int e = 0; e < nacc_; ++e) {
    Node& node = nodes_[static_cast<size_t>(e)];
    node.fenced = node.tag_msg.size() != node.free_tags.size();
  }
}

// Whether accelerator `node` still waits for its requests in flight before issuing more.
bool AcceleratorEndpoints::fence_holds(Node& node) {
  if (node.tag_msg.size() != node.free_tags.size()) return true;
  node.fenced = false;
  return false;
}

// Whether a multicast operation of `requester` on group g would leave the requester's pod.
bool AcceleratorEndpoints::spans_pods(int requester, int g) const {
  if (pods_.empty()) return false;
  const auto n = static_cast<int>(pods_.size());
  auto pod = [&](int e) { return e < n ? pods_[static_cast<size_t>(e)] : -1; };
  const int mine = pod(requester);
  for (uint16_t member : groups_[static_cast<size_t>(g)])
    if (pod(member) != mine) return true;
  return false;
}

}  // namespace upswitch::endpoint
