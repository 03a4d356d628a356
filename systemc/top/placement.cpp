#include "top/placement.h"

#include <algorithm>

namespace upswitch::top {

bool parse_placement(const std::string& text, Placement& out, std::string& error) {
  out = Placement{};
  if (text == "packed") return true;
  if (text == "spread") {
    out.kind = Placement::Kind::kSpread;
    return true;
  }
  out.kind = Placement::Kind::kList;
  size_t i = 0;
  while (i <= text.size()) {
    const size_t comma = std::min(text.find(',', i), text.size());
    const std::string item = text.substr(i, comma - i);
    if (item.empty() || item.size() > 6 || item.find_first_not_of("0123456789") != std::string::npos) {
      error = "expected packed, spread or a comma-separated list of endpoint ids such as 0,9,18,27";
      return false;
    }
    out.list.push_back(std::stoi(item));
    i = comma + 1;
  }
  return true;
}

const char* placement_name(const Placement& p) {
  switch (p.kind) {
    case Placement::Kind::kPacked: return "packed";
    case Placement::Kind::kSpread: return "spread";
    case Placement::Kind::kList: break;
  }
  return "list";
}

int leaf_of(const network::Topology& t, int e) {
  const network::PortRef r = t.peer(network::PortRef{false, e, 0});
  return r.is_switch ? r.id : -1;
}

std::vector<int> place_ranks(const network::Topology& t, int n, const Placement& p, std::string& error) {
  const int E = t.num_endpoints();
  error.clear();
  std::vector<int> out;
  if (p.kind == Placement::Kind::kList) {
    if (static_cast<int>(p.list.size()) != n) {
      error = "the list names " + std::to_string(p.list.size()) + " endpoints for a group of " + std::to_string(n);
      return {};
    }
    std::vector<char> seen(static_cast<size_t>(E), 0);
    for (int e : p.list) {
      if (e < 0 || e >= E) {
        error = "endpoint " + std::to_string(e) + " is not in the topology (0 .. " + std::to_string(E - 1) + ")";
        return {};
      }
      if (seen[static_cast<size_t>(e)]++) {
        error = "endpoint " + std::to_string(e) + " listed twice";
        return {};
      }
    }
    return p.list;
  }
  if (n < 1 || n > E) {
    error = "expected 1 .. " + std::to_string(E) + " ranks (the topology's endpoints)";
    return {};
  }
  if (p.kind == Placement::Kind::kPacked) {
    for (int e = 0; e < n; ++e) out.push_back(e);
  } else {
    std::vector<std::vector<int>> by_leaf(t.switches.size());
    for (int e = 0; e < E; ++e) by_leaf[static_cast<size_t>(std::max(0, leaf_of(t, e)))].push_back(e);
    by_leaf.erase(std::remove_if(by_leaf.begin(), by_leaf.end(), [](const auto& v) { return v.empty(); }), by_leaf.end());
    for (size_t round = 0; static_cast<int>(out.size()) < n; ++round)
      for (const auto& members : by_leaf)
        if (round < members.size() && static_cast<int>(out.size()) < n) out.push_back(members[round]);
  }
  std::stable_sort(out.begin(), out.end(), [&](int a, int b) { return leaf_of(t, a) < leaf_of(t, b); });
  return out;
}

std::string endpoint_list(const std::vector<int>& e) {
  std::string out;
  for (size_t i = 0; i < e.size();) {
    size_t j = i;
    while (j + 1 < e.size() && e[j + 1] == e[j] + 1) ++j;
    out += (out.empty() ? "" : ",") + std::to_string(e[i]) + (j > i ? "-" + std::to_string(e[j]) : "");
    i = j + 1;
  }
  return out;
}

std::vector<int> place_workload_ranks(const network::Topology& t, const std::string& text, int n, std::string& error) {
  Placement p;
  if (!parse_placement(text, p, error)) return {};
  if (p.kind != Placement::Kind::kPacked) return place_ranks(t, n, p, error);
  error.clear();
  if (n > t.num_endpoints()) {
    error = "expected at most " + std::to_string(t.num_endpoints()) + " ranks (the topology's endpoints)";
    return {};
  }
  std::vector<int> out;
  for (int e = 0; e < n; ++e) out.push_back(e);
  return out;
}

}  // namespace upswitch::top
