#include "top/table_fits.h"

#include <cstdio>
#include <map>
#include <tuple>

namespace upswitch::top {
namespace {

// Points grouped by key, groups in the order their first point appears.
template <class Key>
class Groups {
 public:
  std::vector<SizeTime>& at(const Key& k) {
    auto [it, fresh] = index_.emplace(k, points_.size());
    if (fresh) {
      keys_.push_back(k);
      points_.emplace_back();
    }
    return points_[it->second];
  }
  size_t size() const { return keys_.size(); }
  const Key& key(size_t i) const { return keys_[i]; }
  const std::vector<SizeTime>& points(size_t i) const { return points_[i]; }

 private:
  std::map<Key, size_t> index_;
  std::vector<Key> keys_;
  std::vector<std::vector<SizeTime>> points_;
};

double gbytes_per_s(const AlphaBetaFit& f) { return *f.beta / 1000.0; }  // bytes per us -> 1e9 B/s

}  // namespace

std::vector<TableFit> coll_fits(const CollTable& t) {
  using Key = std::tuple<int, int, int>;
  Groups<Key> g;
  // --algo auto rows are their own group, "auto", whatever each size picked.
  for (const CollRow& r : t.rows)
    g.at(Key{static_cast<int>(r.coll), r.chosen ? coll::kAlgorithms : static_cast<int>(r.algo), r.ranks})
        .push_back(SizeTime{static_cast<double>(r.bytes), r.time_us});
  std::vector<TableFit> out;
  for (size_t i = 0; i < g.size(); ++i) {
    const auto [c, a, n] = g.key(i);
    for (const AlphaBetaFit& f : fit_alpha_beta_pieces(g.points(i), kFitTargetError))
      out.push_back(TableFit{"coll", coll::collective_name(static_cast<coll::Collective>(c)),
                             a == coll::kAlgorithms ? "auto" : coll::algorithm_name(static_cast<coll::Algorithm>(a)), n, 0, f});
  }
  return out;
}

std::vector<TableFit> p2p_fits(const P2pTable& t) {
  using Key = std::pair<int, int>;
  Groups<Key> g;
  for (const P2pRow& r : t.rows)
    g.at(Key{static_cast<int>(r.point.op), r.point.elem_bytes})
        .push_back(SizeTime{static_cast<double>(r.point.bytes), r.latency_ns / 1000.0});
  std::vector<TableFit> out;
  for (size_t i = 0; i < g.size(); ++i)
    for (const AlphaBetaFit& f : fit_alpha_beta_pieces(g.points(i), kFitTargetError))
      out.push_back(TableFit{"p2p", tl::opcode_name(static_cast<tl::Opcode>(g.key(i).first)), "", 2, g.key(i).second, f});
  return out;
}

std::string fits_csv(const std::vector<TableFit>& fits) {
  std::string s =
      "kind,operation,algorithm,ranks,elem_bytes,points,min_bytes,max_bytes,alpha_us,beta_gbytes_per_s,r2,"
      "max_rel_error\n";
  char buf[512];
  for (const TableFit& f : fits) {
    const AlphaBetaFit& a = f.fit;
    char beta[32] = "", r2[32] = "";
    if (a.beta) std::snprintf(beta, sizeof beta, "%.4f", gbytes_per_s(a));
    if (a.r2) std::snprintf(r2, sizeof r2, "%.6f", *a.r2);
    std::snprintf(buf, sizeof buf, "%s,%s,%s,%d,%d,%zu,%.0f,%.0f,%.6f,%s,%s,%.6f\n", f.kind.c_str(), f.operation.c_str(),
                  f.algorithm.c_str(), f.ranks, f.elem_bytes, a.points, a.min_bytes, a.max_bytes, a.alpha, beta, r2,
                  a.max_rel_error);
    s += buf;
  }
  return s;
}

nlohmann::ordered_json fits_json(const std::vector<TableFit>& fits) {
  using json = nlohmann::ordered_json;
  json rows = json::array();
  for (const TableFit& f : fits) {
    const AlphaBetaFit& a = f.fit;
    rows.push_back({{"kind", f.kind},
                    {"operation", f.operation},
                    {"algorithm", f.algorithm},
                    {"ranks", f.ranks},
                    {"elem_bytes", f.elem_bytes},
                    {"points", a.points},
                    {"min_bytes", a.min_bytes},
                    {"max_bytes", a.max_bytes},
                    {"alpha_us", a.alpha},
                    {"beta_gbytes_per_s", a.beta ? json(gbytes_per_s(a)) : json(nullptr)},
                    {"r2", a.r2 ? json(*a.r2) : json(nullptr)},
                    {"max_rel_error", a.max_rel_error}});
  }
  return {{"model", "time_us = alpha_us + bytes / (beta_gbytes_per_s x 1000); beta null: no growth with size"},
          {"method",
           "least squares on the relative error (weights 1 / time^2) over every measured size of the group, alpha and "
           "1/beta kept non-negative; where that fit is more than 5% off a point, the sizes are split in two at the "
           "point that gives the smaller worst error (both halves keep it) and each half is fitted the same way: one row "
           "per piece, min_bytes..max_bytes its range, neighbouring pieces sharing a boundary size; coll: the collective's time_us against its size; p2p: the zero-load round trip "
           "(latency_ns / 1000) against the transfer size. r2: 1 - SS_res / SS_tot of the times (null when all are "
           "equal); max_rel_error: the largest |fit - measured| / measured over the points"},
          {"rows", rows}};
}

}  // namespace upswitch::top
