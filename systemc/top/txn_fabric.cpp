#include "top/txn_fabric.h"

#include <algorithm>

#include "config/link_faults.h"
#include "core/interrupt.h"
#include "network/topology_metrics.h"
#include "top/conservation.h"
#include "top/link_layers.h"
#include "top/parallel_run.h"

namespace upswitch::top {

endpoint::LaneLayout txn_lanes(const config::Config& cfg) {
  endpoint::LaneLayout l;
  l.vcs = cfg.sw.vcs;
  l.reserved = cfg.sw.vc_buffer_flits;
  l.shared = cfg.sw.shared_buffer_flits;
  l.rx_lane_flits = cfg.endpoint_rx.vc_flits;
  l.cmd_reserved = cfg.sw.cmd_vc_credits;
  l.cmd_shared = cfg.sw.cmd_shared_credits;
  l.rx_cmd_lane = cfg.endpoint_rx.cmd_vc;
  l.rx_cmd_shared = cfg.endpoint_rx.cmd_shared;
  return l;
}

namespace {

// The reduction engine's placement (doc/reduction.md "Across many switches"): `reduce.units`
// units in every switch that accelerators attach to (0: one per accelerator port of that
// switch), each an endpoint of its own behind an extra switch port, on an internal link of one
// flit per cycle and one cycle each way. An accelerator port's multicast requests go to a unit of
// the switch at the port's other end, spread over its units by address, starting from the port's
// place among that switch's accelerator ports (AcceleratorEndpoints::unit_for). With `tree` (two
// tiers, reduce.hierarchy = tree; endpoint/engine_tree.h) every leaf gets as many units again to
// serve the spines, and every spine `reduce.units` (0: one per port).
struct EnginePlacement {
  network::Topology topo;
  std::vector<int> unit_for_port;  // per accelerator port: the first engine unit (endpoint id) serving it
  std::vector<int> units_for_port;  // per accelerator port: how many, from that one
  std::vector<int> slot_of_port;    // per accelerator port: its place among its switch's accelerator ports
  std::vector<std::pair<int, int>> unit_at;  // per unit: (switch, port)
  std::vector<int> contexts;                 // per unit: a topology file's reduce_contexts (0: reduce.contexts)
  endpoint::EngineTree tree;
};

// The engine tree's switch-level tables (engine_tree.h) before any unit is placed: each switch's
// plane, and each accelerator's leaf on every plane.
endpoint::EngineTree tree_frame(const network::Topology& t) {
  endpoint::EngineTree tr;
  const size_t S = t.switches.size();
  const int n = t.num_endpoints();
  tr.units.assign(S, {});
  tr.out_at.assign(S, UINT64_MAX);
  for (size_t s = 0; s < S; ++s) {
    tr.plane.push_back(t.switches[s].plane);
    tr.planes = std::max(tr.planes, t.switches[s].plane + 1);
  }
  tr.plane_spines.assign(static_cast<size_t>(tr.planes), {});
  tr.member_leaf.assign(static_cast<size_t>(n) * static_cast<size_t>(tr.planes), -1);
  for (int a = 0; a < n; ++a)
    for (int k = 0; k < t.endpoints[static_cast<size_t>(a)].ports; ++k) {
      const network::PortRef r = t.peer(network::PortRef{false, a, k});
      tr.member_leaf[static_cast<size_t>(a) * static_cast<size_t>(tr.planes) +
                     static_cast<size_t>(t.switches[static_cast<size_t>(r.id)].plane)] = r.id;
    }
  return tr;
}

EnginePlacement place_engine(const network::Topology& base, int units_param, bool enable, bool tree) {
  EnginePlacement e{base, {}, {}, {}, {}, {}, {}};
  if (!enable) return e;
  network::Topology& t = e.topo;
  const int n = t.num_endpoints();
  const size_t S = t.switches.size();
  std::vector<std::vector<int>> ports_at(S);  // accelerator ports per switch, in order
  for (int a = 0; a < n; ++a)
    for (int k = 0; k < t.endpoints[static_cast<size_t>(a)].ports; ++k) {
      const network::PortRef r = t.peer(network::PortRef{false, a, k});
      if (r.is_switch) ports_at[static_cast<size_t>(r.id)].push_back(t.endpoint_first_port(a) + k);
    }
  std::vector<int> at_switch;
  std::vector<int> first_unit(S, 0), count(S, 0);
  endpoint::EngineTree& tr = e.tree;
  auto add_unit = [&](size_t s, endpoint::EngineTree::Role role) {
    const int id = n + static_cast<int>(at_switch.size());
    e.unit_at.emplace_back(static_cast<int>(s), 0);  // its port: below
    e.contexts.push_back(t.switches[s].reduce_contexts);
    at_switch.push_back(static_cast<int>(s));
    if (tree) {
      tr.role.push_back(role);
      tr.unit_switch.push_back(static_cast<int>(s));
    }
    return id;
  };
  if (tree) tr = tree_frame(t);
  for (size_t s = 0; s < S; ++s) {
    const int base_port = t.switches[s].ports;
    const size_t before = at_switch.size();
    if (!ports_at[s].empty()) {
      const int units = t.switches[s].reduce_units >= 0 ? t.switches[s].reduce_units : units_param;  // (a file's own)
      count[s] = units == 0 ? static_cast<int>(ports_at[s].size()) : units;
      first_unit[s] = n + static_cast<int>(at_switch.size());
      for (int u = 0; u < count[s]; ++u) add_unit(s, endpoint::EngineTree::kLeaf);
      if (tree)
        for (int u = 0; u < count[s]; ++u) tr.units[s].push_back(add_unit(s, endpoint::EngineTree::kLeafDown));
    } else if (tree && t.switches[s].level == 1) {
      const int su = t.switches[s].reduce_units >= 0 ? t.switches[s].reduce_units : units_param;  // (a file's own)
      const int c = su == 0 ? t.switches[s].ports : su;
      for (int u = 0; u < c; ++u) tr.units[s].push_back(add_unit(s, endpoint::EngineTree::kSpine));
      tr.plane_spines[static_cast<size_t>(t.switches[s].plane)].push_back(static_cast<int>(s));
    }
    for (size_t u = before; u < at_switch.size(); ++u)  // the units' ports follow the switch's own
      e.unit_at[u].second = base_port + static_cast<int>(u - before);
  }
  e.unit_for_port.assign(static_cast<size_t>(t.endpoint_ports()), -1);
  e.units_for_port.assign(static_cast<size_t>(t.endpoint_ports()), 0);
  e.slot_of_port.assign(static_cast<size_t>(t.endpoint_ports()), 0);
  for (size_t s = 0; s < S; ++s)
    for (size_t i = 0; i < ports_at[s].size(); ++i) {
      const auto port = static_cast<size_t>(ports_at[s][i]);
      e.unit_for_port[port] = first_unit[s];
      e.units_for_port[port] = count[s];
      e.slot_of_port[port] = static_cast<int>(i);
    }
  network::attach_endpoints(t, at_switch, 1, 1);
  e.unit_for_port.resize(static_cast<size_t>(t.endpoint_ports()), -1);  // the units' own ports
  e.units_for_port.resize(static_cast<size_t>(t.endpoint_ports()), 0);
  e.slot_of_port.resize(static_cast<size_t>(t.endpoint_ports()), 0);
  return e;
}

}  // namespace

TxnFabric::TxnFabric(const config::Config& cfg, bool synthetic) : cfg_(cfg) {
  if (cfg_.sw.classes != 2 || cfg_.sw.queueing == core::Queueing::kFifo)
    throw std::logic_error("TxnFabric: the configuration must be validated with traffic.kind = transactions");
  const int n = cfg_.endpoints();
  // Synthetic mixes never address a multicast window, so their fabrics are built without the
  // reduction engine's units.
  const endpoint::ReduceParams& rp = cfg_.accel.reduce;
  const bool tree = rp.hierarchy == 0 && network::two_level_clos(cfg_.network());
  const EnginePlacement engine = place_engine(cfg_.network(), rp.units, !synthetic && rp.enable, tree);
  const int units = static_cast<int>(engine.unit_at.size());
  core::SwitchParams sp = cfg_.sw;
  sp.watchdog_cycles = cfg_.watchdog_window();
  sp.path_choice = static_cast<core::PathChoice>(cfg_.topo.multipath);
  if (units && !sp.routing_table.empty())  // single: units behind ports n .. n + units - 1
    for (int u = 0; u < units; ++u) sp.routing_table.push_back(n + u);
  network_ = std::make_unique<network::Network>(
      engine.topo, sp, cfg_.endpoint_rx, cfg_.flit_bytes * cfg_.clock_ghz,
      [this](int p, core::Link& up, core::Link& down) {  // accelerator links (the units' come after them)
        if (p < cfg_.network().endpoint_ports()) attach_link_layers(cfg_, p, up, down);
      },
      [this](int l, core::Link& ab, core::Link& ba) {  // the engine adds links to endpoints only, after these
        attach_switch_link_layers(cfg_, l, ab, ba);
      });
  const int ports = network_->endpoint_ports();
  endpoint::AccelPorts layout;
  layout.accelerators = n;
  for (int p = 0; p < ports; ++p) layout.owner.push_back(network_->owner(p));
  layout.select = static_cast<traffic::PortSelect>(cfg_.port_select);
  layout.interleave_bytes = cfg_.interleave_bytes;
  layout.inject_vcs = network_->topology().vc_classes == 2 ? cfg_.sw.vcs / 2 : cfg_.sw.vcs;
  layout.engine_unit = engine.unit_for_port;
  layout.engine_units = engine.units_for_port;
  layout.engine_slot = engine.slot_of_port;
  layout.engine_tree = engine.tree;
  layout.unit_contexts = engine.contexts;
  for (const auto& [s, q] : engine.unit_at)  // each unit's receive buffer is its own (reduce.rx_shared_flits)
    network_->sw(s).set_output_buffer(q, cfg_.endpoint_rx.vc_flits, rp.rx_shared_flits);
  const double rate = cfg_.link_flits_per_cycle();
  endpoints_ = std::make_unique<endpoint::AcceleratorEndpoints>(cfg_.accel, txn_lanes(cfg_), layout,
                                                                synthetic ? &cfg_.txn : nullptr, cfg_.traffic,
                                                                cfg_.measure, cfg_.flit_bytes * rate, cfg_.watchdog_window());
  for (int p = 0; p < ports; ++p) endpoints_->connect(p, &network_->uplink(p), &network_->downlink(p));
  // Partitions and port faults (doc/reliability.md): every switch holds the same partition rules
  // and its own ports' down windows; on a network, a request to an accelerator whose port in its
  // plane is down is rejected at its first switch, as a partition rule is. Each switch reports the
  // packets it does not forward on one reject line per endpoint port, answered after its output
  // pipeline and the port's downlink.
  std::vector<int> plane_of;
  for (const network::SwitchSpec& spec : cfg_.network().switches) plane_of.push_back(spec.plane);
  for (int s = 0; s < network_->switches(); ++s)
    network_->sw(s).set_faults(cfg_.single_switch() ? cfg_.faults : cfg_.faults.on_switch(s, plane_of));
  if (cfg_.faults.partitioned()) endpoints_->set_pods(cfg_.faults.pods);
  for (const core::SwitchDown& d : cfg_.faults.switch_down) take_out(d);
  route_around_links_down();
  if (!cfg_.faults.any()) return;
  for (int p = 0; p < ports; ++p) {
    const network::PortRef at = network_->switch_end(p);
    rejects_.push_back(std::make_unique<core::RejectLine>(static_cast<uint32_t>(sp.output_pipeline_cycles()) +
                                                          network_->downlink(p).latency()));
    network_->sw(at.id).connect_rejects(at.port, rejects_.back().get());
    endpoints_->connect_rejects(p, rejects_.back().get());
  }
}

// faults.switch_down (doc/reliability.md "Switch down"): the accelerators stop using their ports
// into the switch, and every neighbour stops routing into it where it has another route.
void TxnFabric::take_out(const core::SwitchDown& d) {
  for (int p = 0; p < network_->endpoint_ports(); ++p)
    if (network_->owner(p) < cfg_.endpoints() && network_->switch_end(p).id == d.sw)  // (an engine unit is inside its switch)
      endpoints_->take_out_port(p, d.at);
  endpoints_->engine_switch_out(d.sw, d.at);  // two tiers: leaves stop sending to a lost spine's units
  network_->avoid_switch_at(d.sw, d.at);
}

// faults.link_down on links between switches (doc/reliability.md "Routing around a link that is
// down"): every switch takes the routes around the links down at each change, and the
// accelerators fence, as at a switch taken out, so that no request overtakes an older one.
void TxnFabric::route_around_links_down() {
  const std::vector<network::RouteChange> plan =
      network::plan_reroutes(network_->topology(), config::switch_links_down(cfg_));
  network_->plan_route_changes(plan);
  for (const network::RouteChange& c : plan) endpoints_->paths_change_at(c.at);
}

void TxnFabric::run_plain(const std::function<void(uint64_t)>& on_cycle) {
  const uint64_t check = cfg_.check_interval_cycles;
  uint64_t next_check = now_ + check;
  while (true) {
    network_->tick(now_);
    endpoints_->tick(now_);
    if (endpoints_->done()) break;
    if (check && now_ >= next_check) {
      require_txn_conservation(*this);
      next_check = now_ + check;
    }
    if (on_cycle) on_cycle(now_);
    now_ = std::min(network_->next_activity(now_), endpoints_->next_activity(now_));
  }
  ++now_;
}

void TxnFabric::use_threads(int threads) {
  if (const std::string why = parallel_refusal(cfg_, threads); !why.empty()) throw ParallelError(why);
  plan_ = threads > 1 ? plan_parallel(*this, threads) : ParallelPlan{};
}

void TxnFabric::use_windows_on_one_thread() { plan_ = plan_one_thread(*this); }

bool TxnFabric::run_until_idle(uint64_t max_cycles, CycleHook* hook) {
  const uint64_t limit = max_cycles > UINT64_MAX - now_ ? UINT64_MAX : now_ + max_cycles;
  if (plan_.groups > 1) return run_parallel_until_idle(*this, plan_, now_, limit, hook, &now_);
  const uint64_t check = cfg_.check_interval_cycles;
  uint64_t next_check = now_ + check;
  while (now_ < limit) {
    core::poll_interrupt();
    if (hook) hook->before_cycle(now_);
    network_->tick(now_);
    endpoints_->tick(now_);
    if (check && now_ >= next_check) {
      require_txn_conservation(*this);
      next_check = now_ + check;
    }
    uint64_t next = std::min(network_->next_activity(now_), endpoints_->next_activity(now_));
    if (hook) next = std::min(next, hook->next_activity(now_));
    if (next == UINT64_MAX) {
      ++now_;
      return true;
    }
    now_ = next;
  }
  return false;
}

// Every channel of the network (top/conservation.h), with what the endpoints' receive buffers
// hold; then flits, requests and messages overall.
std::vector<std::string> check_txn_conservation(const TxnFabric& f) {
  std::vector<std::string> bad;
  const config::Config& cfg = f.config();
  const network::Network& net = f.network();
  const endpoint::AcceleratorEndpoints& e = f.endpoints();
  const uint64_t in_links = check_channels(
      net, [&](int p) -> uint64_t { return e.source_credits(p).total(); }, [&](int p) { return e.rx_held(p); },
      [&](const network::Network::Channel& c) {
        uint64_t capacity = net.receiver_capacity(c);
        if (!c.to.is_switch && c.to.id >= e.accelerators())  // an engine unit's own receive buffer
          capacity += static_cast<uint64_t>(cfg.accel.reduce.rx_shared_flits) -
                      static_cast<uint64_t>(cfg.endpoint_rx.shared_flits);
        return capacity;
      },
      "credits + in flight + pipeline + endpoint receive buffer", bad);
  const endpoint::TxnResult& r = e.result();
  uint64_t discarded = 0;
  for (int s = 0; s < net.switches(); ++s) discarded += net.sw(s).stats().flits_discarded;
  const uint64_t accounted = r.flits_received + in_links + net.flits_inside() + discarded;
  if (accounted != r.flits_sent)
    bad.push_back("flits: sent " + std::to_string(r.flits_sent) + " != received + in flight + discarded " +
                  std::to_string(accounted));
  if (r.requests_issued != r.requests_answered + e.tags_in_use())
    bad.push_back("requests: issued " + std::to_string(r.requests_issued) + " != answered " +
                  std::to_string(r.requests_answered) + " + outstanding " + std::to_string(e.tags_in_use()));
  // A unit's member requests are messages once they are packed (AcceleratorEndpoints::Queued).
  if (e.messages_in_use() + e.member_requests_unmade() !=
      e.tags_in_use() + e.tags_timed_out() + e.member_requests_in_flight())
    bad.push_back("messages: " + std::to_string(e.messages_in_use()) + " alive and " +
                  std::to_string(e.member_requests_unmade()) + " queued to be made for " +
                  std::to_string(e.tags_in_use()) + " outstanding requests, " + std::to_string(e.tags_timed_out()) +
                  " timed-out ones and " + std::to_string(e.member_requests_in_flight()) +
                  " reduction-engine member requests");
  return bad;
}

std::vector<std::string> check_txn_drained(const TxnFabric& f) {
  std::vector<std::string> bad = check_txn_conservation(f);
  const network::Network& net = f.network();
  const endpoint::AcceleratorEndpoints& e = f.endpoints();
  const bool many = net.switches() > 1;
  for (int p = 0; p < net.endpoint_ports(); ++p) {
    const std::string who = "endpoint " + std::to_string(e.owner(p)) +
                            (e.endpoint_ports() != e.endpoints() ? " port " + std::to_string(p) : std::string());
    const core::CreditPool& s = e.source_credits(p);
    if (s.total() != s.capacity())
      bad.push_back(who + ": " + std::to_string(s.total()) + " of " + std::to_string(s.capacity()) + " credits home");
    const core::CreditPool& sc = e.source_cmd_credits(p);
    if (sc.total() != sc.capacity())
      bad.push_back(who + ": " + std::to_string(sc.total()) + " of " + std::to_string(sc.capacity()) +
                    " command credits home");
  }
  for (int sw = 0; sw < net.switches(); ++sw)
    for (int o = 0; o < net.sw(sw).ports(); ++o) {
      const std::string who = "switch " + (many ? std::to_string(sw) + " " : std::string()) + "output " + std::to_string(o);
      const core::CreditPool& oc = net.sw(sw).output_credits(o);
      if (oc.total() != oc.capacity())
        bad.push_back(who + ": " + std::to_string(oc.total()) + " of " + std::to_string(oc.capacity()) + " credits home");
      const core::CreditPool& occ = net.sw(sw).output_cmd_credits(o);
      if (occ.total() != occ.capacity())
        bad.push_back(who + ": " + std::to_string(occ.total()) + " of " + std::to_string(occ.capacity()) +
                      " command credits home");
    }
  if (e.transfers_in_flight() != 0) bad.push_back(std::to_string(e.transfers_in_flight()) + " transfers still in flight");
  if (e.tags_in_use() != 0) bad.push_back(std::to_string(e.tags_in_use()) + " requests still unanswered");
  if (e.tags_timed_out() != 0)
    bad.push_back(std::to_string(e.tags_timed_out()) + " timed-out requests whose late response is still due");
  if (e.member_requests_in_flight() != 0)
    bad.push_back(std::to_string(e.member_requests_in_flight()) + " reduction-engine member requests still unanswered");
  return bad;
}

void require_txn_conservation(const TxnFabric& f) {
  const std::vector<std::string> bad = check_txn_conservation(f);
  if (bad.empty()) return;
  std::string msg = "conservation violated: " + bad[0];
  if (bad.size() > 1) msg += " (and " + std::to_string(bad.size() - 1) + " more)";
  throw ConservationError(msg);
}

}  // namespace upswitch::top
