// The parameter table, its parsers and error messages, YAML loading, presets, and the generated
// config reference in doc/config.md.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "config/param_table.h"
#include "config/presets.h"
#include "config/yaml_loader.h"

namespace upswitch::config {
namespace {

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(Config, DefaultsAreValidAndDescribeTheUalinkSwitch) {
  Config c = default_config();
  validate(c);
  EXPECT_EQ(c.sw.ports, 72);
  EXPECT_EQ(c.sw.vcs, 4);
  EXPECT_EQ(c.sw.queueing, core::Queueing::kVoq);
  EXPECT_EQ(c.sw.allocator, "islip");
  EXPECT_DOUBLE_EQ(c.clock_ghz, 1.6);
  EXPECT_EQ(c.flit_bytes, 64);
  // 32-cycle core pipeline (facts sheet section 5) and 80 ns links at 1.6 GHz.
  EXPECT_EQ(c.sw.routing_cycles + c.sw.output_pipeline_cycles(), 32);
  EXPECT_EQ(c.link_latency_cycles, 128);
}

TEST(Config, EveryKeyHasTypeDefaultRangeAndDescription) {
  for (const ParamSpec& p : param_table()) {
    EXPECT_FALSE(p.type.empty()) << p.key;
    EXPECT_FALSE(p.allowed.empty()) << p.key;
    EXPECT_GT(p.description.size(), 10u) << p.key;
    Config c = default_config();
    EXPECT_NO_THROW(p.set(c, p.default_text)) << p.key;
  }
  for (const char* k : {"switch.ports", "switch.vcs", "switch.vc_buffer_flits", "switch.queueing", "switch.allocator",
                        "switch.allocator_iterations", "traffic.pattern", "traffic.rate", "traffic.packet_flits",
                        "sim.warmup_cycles", "sim.measure_cycles", "sim.seed"})
    EXPECT_NE(find_param(k), nullptr) << k;
}

TEST(Config, BadValuesNameTheKeyTheValueAndWhatIsAllowed) {
  Config c = default_config();
  EXPECT_EQ(error_of([&] { set_param(c, "switch.ports", "2000"); }),
            "switch.ports = '2000': expected an integer from 2 to 1024");
  EXPECT_EQ(error_of([&] { set_param(c, "switch.ports", "7.5"); }),
            "switch.ports = '7.5': expected an integer from 2 to 1024");
  EXPECT_EQ(error_of([&] { set_param(c, "switch.queueing", "oq"); }),
            "switch.queueing = 'oq': expected one of fifo, vc, voq");
  EXPECT_EQ(error_of([&] { set_param(c, "traffic.rate", "1.5"); }), "traffic.rate = '1.5': expected a number from 0 to 1");
  EXPECT_EQ(error_of([&] { set_param(c, "traffic.rate", "nan"); }), "traffic.rate = 'nan': expected a number from 0 to 1");
  EXPECT_EQ(error_of([&] { set_param(c, "sim.flush", "yes"); }), "sim.flush = 'yes': expected true or false");
  EXPECT_EQ(error_of([&] { set_param(c, "switch.prots", "8"); }),
            "unknown key 'switch.prots' (did you mean 'switch.ports'?); 'upswitch keys' lists them all");
  EXPECT_NE(error_of([&] { set_param(c, "switch.routing_table", "1,x"); }).find("switch.routing_table"),
            std::string::npos);
}

// Regression (fuzz_config_yaml): user text with newlines or raw bytes must not break the
// one-line error contract.
TEST(Config, ErrorsStayOnePrintableLine) {
  Config c = default_config();
  const std::string e1 = error_of([&] { load_yaml_text(c, std::string("switch:\n  queueing6:\0\n cvt\xff\x0e.25\n", 30), "t.yaml"); });
  const std::string e2 = error_of([&] { set_param(c, "switch.ports", "8\n9"); });
  for (const std::string& e : {e1, e2}) {
    ASSERT_FALSE(e.empty());
    for (unsigned char ch : e) EXPECT_TRUE(ch >= 0x20 && ch < 0x7f) << e;
  }
  EXPECT_EQ(e2, "switch.ports = '8\\n9': expected an integer from 2 to 1024");
}

TEST(Config, CrossChecksNameTheKey) {
  Config c = default_config();
  set_param(c, "switch.ports", "8");
  set_param(c, "traffic.hotspot_ports", "2,9");
  EXPECT_EQ(error_of([&] { validate(c); }),
            "traffic.hotspot_ports contains 9: expected ports 0 .. 7 (switch.ports = 8)");
  c = default_config();
  set_param(c, "switch.routing_table", "0,1,2");
  EXPECT_NE(error_of([&] { validate(c); }).find("switch.routing_table has 3 entries"), std::string::npos);
  c = default_config();
  set_param(c, "traffic.packet_mix", "1:0.5,4");
  EXPECT_NE(error_of([&] { validate(c); }).find("traffic.packet_mix = '1:0.5,4'"), std::string::npos);
}

TEST(Config, YamlNestedOrDottedAndErrorsWithLines) {
  Config c = default_config();
  load_yaml_text(c, "switch:\n  ports: 16\n  queueing: vc\ntraffic.rate: 0.25\ntraffic:\n  hotspot_ports: [1, 2]\n",
                 "t.yaml");
  EXPECT_EQ(c.sw.ports, 16);
  EXPECT_EQ(c.sw.queueing, core::Queueing::kVc);
  EXPECT_DOUBLE_EQ(c.traffic.rate, 0.25);
  EXPECT_EQ(c.traffic.hotspot_ports, (std::vector<int>{1, 2}));
  EXPECT_EQ(error_of([&] { load_yaml_text(c, "switch:\n  portz: 3\n", "t.yaml"); }),
            "t.yaml line 2: unknown key 'switch.portz' (did you mean 'switch.ports'?); 'upswitch keys' lists them all");
  EXPECT_EQ(error_of([&] { load_yaml_text(c, "switch:\n  ports: 1\n", "t.yaml"); }),
            "t.yaml line 2: switch.ports = '1': expected an integer from 2 to 1024");
  EXPECT_NE(error_of([&] { load_yaml_text(c, "switch: [\n", "t.yaml"); }).find("YAML syntax error"), std::string::npos);
  EXPECT_EQ(error_of([&] { load_yaml_file(c, "/nonexistent.yaml"); }),
            "--config '/nonexistent.yaml': cannot read the file");
  load_yaml_text(c, "preset: tiny\nswitch.vcs: 3\n", "t.yaml");
  EXPECT_EQ(c.sw.ports, 8);
  EXPECT_EQ(c.sw.vcs, 3);
}

TEST(Config, PresetsNameOnlyDeclaredKeysAndValidate) {
  for (const Preset& p : presets()) {
    Config c = default_config();
    EXPECT_NO_THROW(apply_preset(c, p.name)) << p.name;
    EXPECT_NO_THROW(validate(c)) << p.name;
  }
  Config c = default_config();
  EXPECT_EQ(error_of([&] { apply_preset(c, "huge"); }), "--preset 'huge': expected one of ualink-x4, tiny, slotted");
}

TEST(Config, ResolvedConfigJsonHasEveryKey) {
  const nlohmann::json j = config_to_json(default_config());
  for (const ParamSpec& p : param_table()) {
    std::string ptr = "/" + p.key;
    for (char& ch : ptr)
      if (ch == '.') ch = '/';
    EXPECT_TRUE(j.contains(nlohmann::json::json_pointer(ptr))) << p.key;
  }
  EXPECT_EQ(j["switch"]["queueing"], "voq");
}

TEST(Config, DocConfigMdIsTheGeneratedReference) {
  std::ifstream in(std::string(UPSWITCH_SOURCE_DIR) + "/doc/config.md");
  ASSERT_TRUE(in) << "doc/config.md is missing";
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_EQ(ss.str(), config_reference_markdown())
      << "doc/config.md is stale: regenerate it with `build/upswitch keys --markdown > doc/config.md`";
}

}  // namespace
}  // namespace upswitch::config
