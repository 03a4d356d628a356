#include "top/planner_exports.h"

#include "top/astra_export.h"
#include "top/simai_export.h"
#include "top/table_fits.h"

namespace upswitch::top {
namespace {

std::vector<TableFit> all_fits(const PlannerTable& t) {
  std::vector<TableFit> fits = coll_fits(t.coll);
  for (TableFit& f : p2p_fits(t.p2p)) fits.push_back(std::move(f));
  return fits;
}

}  // namespace

std::vector<std::pair<std::string, std::string>> planner_export_files(const PlannerTable& t,
                                                                      const std::string& csv_head) {
  std::vector<std::pair<std::string, std::string>> files = {{"fits.csv", csv_head + fits_csv(all_fits(t))}};
  for (int n : astra_group_sizes(t)) {
    files.emplace_back(astra_file_name(n), astra_network_yaml(t, astra_network(t, n)));
    for (auto& f : simai_files(t, n)) files.push_back(std::move(f));
  }
  return files;
}

void add_exports_json(const PlannerTable& t, nlohmann::ordered_json& out) {
  using json = nlohmann::ordered_json;
  out["fits"] = fits_json(all_fits(t));
  json astra = json::array(), simai = json::array();
  for (int n : astra_group_sizes(t)) {
    astra.push_back(astra_network_json(astra_network(t, n)));
    simai.push_back(simai_json(t, n));
  }
  out["astra_network"] = astra;
  out["simai"] = simai;
}

}  // namespace upswitch::top
