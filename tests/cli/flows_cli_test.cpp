// summary.json's per-flow statistics (/flows, /fairness) on the real binary: present, consistent
// with the throughput and the registered counters, the same under both kernels, and printed.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_support.h"

using namespace upswitch_cli;  // NOLINT: test file

namespace {

nlohmann::json summary_without_timing(const fs::path& dir) {
  nlohmann::json s = nlohmann::json::parse(slurp(dir / "summary.json"));
  for (const char* k : {"wall_seconds", "cycles_per_second", "kernel"}) s["sim"].erase(k);
  return s;
}

TEST(FlowsCli, HotspotRemediesReportFlowsAndFairness) {
  const fs::path a = scratch("flows_sc"), b = scratch("flows_plain");
  const std::string args =
      "run --preset tiny --set traffic.pattern=hotspot --set traffic.hotspot_fraction=0.4 "
      "--set endpoint.injection_queues=per_destination --set switch.shared_buffer_output_cap=4 "
      "--set sim.check_interval_cycles=100 --out ";
  const Result r = run(args + a.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("  flows            hot offered"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  fairness         Jain"), std::string::npos) << r.out;
  ASSERT_EQ(run(args + b.string() + " --kernel plain --quiet").status, 0);
  const nlohmann::json s = summary_without_timing(a);
  EXPECT_EQ(s.dump(), summary_without_timing(b).dump());

  const nlohmann::json& f = s["flows"];
  EXPECT_EQ(f["hot_ports"], nlohmann::json::array({0}));
  EXPECT_EQ(f["hot"]["accepted_flits"], s["stats"]["endpoints.hot_accepted_flits"]["value"]);
  EXPECT_EQ(f["cold"]["offered_flits"], s["stats"]["endpoints.cold_offered_flits"]["value"]);
  const double window = s["sim"]["window_cycles"].get<double>();
  const double accepted = s["throughput"]["accepted"].get<double>() * 8;  // flits/cycle over the 8 ports
  EXPECT_NEAR((f["hot"]["accepted_flits"].get<double>() + f["cold"]["accepted_flits"].get<double>()) / window, accepted,
              1e-9);
  double by_source = 0, by_destination = 0;
  for (const auto& x : s["fairness"]["accepted_per_source"]) by_source += x.get<double>();
  for (const auto& x : s["fairness"]["accepted_per_destination"]) by_destination += x.get<double>();
  EXPECT_NEAR(by_source, accepted, 1e-9);
  EXPECT_NEAR(by_destination, accepted, 1e-9);
  EXPECT_EQ(s["fairness"]["accepted_per_destination"].size(), 8u);
  const double j = s["fairness"]["jain_destinations"].get<double>();
  EXPECT_GT(j, 1.0 / 8);
  EXPECT_LT(j, 1.0);  // the hot destination gets more than the others
  EXPECT_TRUE(s["conservation"]["ok"].get<bool>());
}

}  // namespace
