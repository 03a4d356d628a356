// The parameter table, its parsers and error messages, YAML loading, presets, and the generated
// config reference in doc/config.md.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

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
            "--config '/nonexistent.yaml': no such file");
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
  EXPECT_EQ(error_of([&] { apply_preset(c, "huge"); }),
            "--preset 'huge': expected one of ualink-x4, tiny, slotted, nvl72-plane, nvl72-rack, dgx-h100, ualink-pod, "
            "superpod-256");
}

// nvl72-plane against the facts sheet's numbers, not the preset table: one NVLink5 switch chip of a
// GB200 NVL72 rack (facts 2.1, 2.3, 3.1) with the UALink DL efficiency of the default (facts 1.8).
TEST(Config, PresetNvl72PlaneIsOneNvlink5SwitchChip) {
  const double lane_gbit_per_s = 200.0;                      // NVLink5: 200 Gb/s per lane (2.1)
  const double raw_gbytes_per_port = 2 * lane_gbit_per_s / 8;  // x2 link, per direction: 50 GB/s
  const double chip_tbytes_per_direction = 3.6;             // 7.2 TB/s bidirectional (2.3)
  const double dl_efficiency = 628.0 / 640.0;               // TL payload of a 640 B DL flit (1.8)
  ASSERT_DOUBLE_EQ(raw_gbytes_per_port, 50.0);

  Config c = default_config();
  apply_preset(c, "nvl72-plane");
  validate(c);
  EXPECT_EQ(c.preset, "nvl72-plane");
  EXPECT_EQ(c.sw.ports, 72);
  // The resolved per-port TL flit rate (GB/s) the model runs at: flits per core cycle x bytes x GHz.
  const double port_gbytes = c.link_flits_per_cycle() * c.flit_bytes * c.clock_ghz;
  EXPECT_NEAR(port_gbytes, raw_gbytes_per_port * dl_efficiency, 1e-9);
  EXPECT_NEAR(c.sw.ports * port_gbytes, chip_tbytes_per_direction * 1000 * dl_efficiency, 1e-6);
  // Half the per-port rate of the default 72 x UALink x4 switch (3.1).
  Config d = default_config();
  validate(d);
  EXPECT_NEAR(port_gbytes / (d.link_flits_per_cycle() * d.flit_bytes * d.clock_ghz), 0.5, 1e-12);
  // Reduction ALU at line rate (2.3, 5): the fewest 32-bit lanes per cycle that keep up with a port.
  const double alu_gbytes = 4.0 * c.accel.reduce.alu_elems_per_cycle * c.clock_ghz;
  EXPECT_GE(alu_gbytes, port_gbytes);
  EXPECT_LT(4.0 * (c.accel.reduce.alu_elems_per_cycle - 1) * c.clock_ghz, port_gbytes);
  // The same offered load as a fraction of the link as the default.
  EXPECT_NEAR(c.traffic.rate / c.link_flits_per_cycle(), d.traffic.rate / d.link_flits_per_cycle(), 1e-3);
  // Nothing public says the clock, pipeline, link latency or buffers differ: defaults (2.6, 3.3).
  EXPECT_DOUBLE_EQ(c.clock_ghz, d.clock_ghz);
  EXPECT_EQ(c.sw.routing_cycles + c.sw.output_pipeline_cycles(), d.sw.routing_cycles + d.sw.output_pipeline_cycles());
  EXPECT_EQ(c.link_latency_cycles, d.link_latency_cycles);
  EXPECT_EQ(c.credit_delay_cycles, d.credit_delay_cycles);
  EXPECT_EQ(c.sw.vc_buffer_flits, d.sw.vc_buffer_flits);
  EXPECT_EQ(c.sw.shared_buffer_flits, d.sw.shared_buffer_flits);
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

// --- transaction traffic (traffic.kind = transactions; accel.*, tl.*, txn.*)

Config txn_config() {
  Config c = default_config();
  set_param(c, "traffic.kind", "transactions");
  return c;
}

TEST(ConfigTxn, DefaultsParseAndValidate) {
  Config c = default_config();
  validate(c);
  EXPECT_EQ(c.kind, Config::TrafficKind::kPackets);
  EXPECT_EQ(c.sw.classes, 1);
  EXPECT_EQ(c.accel.max_outstanding, 512);
  EXPECT_EQ(c.accel.issue_interval_cycles, 1);
  EXPECT_EQ(c.accel.mem_latency_cycles, 192);
  EXPECT_EQ(c.accel.mem_bytes_per_cycle, 2048);
  EXPECT_EQ(c.accel.completer_queue, 64);
  EXPECT_EQ(c.accel.window_base, 0u);
  EXPECT_EQ(c.accel.window_bytes, uint64_t{1} << 37);
  EXPECT_EQ(c.accel.memory_bytes, uint64_t{1} << 37);
  for (bool s : c.accel.atomic_supported) EXPECT_TRUE(s);
  EXPECT_TRUE(c.accel.compression);
  EXPECT_EQ(c.accel.address_cache_entries, 128);
  EXPECT_EQ(c.accel.max_messages_per_packet, 8);
  EXPECT_FALSE(c.accel.strict_order);
  EXPECT_DOUBLE_EQ(c.txn.load, 0.5);
  ASSERT_EQ(c.txn.mix.size(), 2u);
  EXPECT_EQ(c.txn.mix[0].first, tl::Opcode::kRead);
  EXPECT_EQ(c.txn.mix[1].first, tl::Opcode::kWrite);
  EXPECT_DOUBLE_EQ(c.txn.mix[1].second, 1.0);
  EXPECT_EQ(c.txn.sizes, (std::vector<std::pair<int, double>>{{256, 1.0}}));
  EXPECT_EQ(c.txn.atomic_op, tl::AtomicOp::kAdd);
  EXPECT_EQ(c.txn.atomic_bytes, 8);
  EXPECT_EQ(c.txn.footprint_bytes, 1048576u);

  Config t = txn_config();
  EXPECT_NO_THROW(validate(t));
  const nlohmann::json j = config_to_json(t);
  EXPECT_EQ(j["traffic"]["kind"], "transactions");
  EXPECT_EQ(j["accel"]["window_bytes"], uint64_t{1} << 37);
  EXPECT_EQ(j["txn"]["atomic_op"], "add");
}

TEST(ConfigTxn, NetworksRefuseWhatWouldBreakTheOrderingRules) {
  for (const auto& [key, value, what] :
       std::vector<std::tuple<std::string, std::string, std::string>>{
           {"endpoint.port_select", "least_loaded", "endpoint.port_select = least_loaded with traffic.kind = transactions"},
           {"endpoint.interleave_bytes", "128", "endpoint.interleave_bytes = 128 with traffic.kind = transactions"},
           {"routing.multipath", "round_robin", "routing.multipath = round_robin with traffic.kind = transactions"},
           {"accel.max_outstanding", "2048", "exceed the 16-bit tag space"}}) {
    Config c = default_config();
    apply_preset(c, "nvl72-rack");
    set_param(c, "traffic.kind", "transactions");
    if (key == "accel.max_outstanding") {  // 36 GPUs with 2 links on each of 18 planes: 36 ports each
      set_param(c, "topology.endpoints", "36");
      set_param(c, "topology.links_per_plane", "2");
    }
    set_param(c, key, value);
    EXPECT_NE(error_of([&] { validate(c); }).find(what), std::string::npos) << key;
    // The same keys are fine for packets, and on one switch.
    set_param(c, "traffic.kind", "packets");
    if (key != "accel.max_outstanding") {
      EXPECT_NO_THROW(validate(c)) << key;
    }
  }
}

TEST(ConfigTxn, ClassesAreTwoForTransactions) {
  Config c = txn_config();
  validate(c);
  EXPECT_EQ(c.sw.classes, 2);
  set_param(c, "traffic.kind", "packets");
  validate(c);
  EXPECT_EQ(c.sw.classes, 1);
  for (const Preset& p : presets()) {
    Config pc = default_config();
    apply_preset(pc, p.name);
    set_param(pc, "traffic.kind", "transactions");
    EXPECT_NO_THROW(validate(pc)) << p.name;  // every preset, rack networks included
    EXPECT_EQ(pc.sw.classes, 2) << p.name;
  }
}

TEST(ConfigTxn, BadValuesNameTheKey) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"traffic.kind", "bogus"},
      {"accel.max_outstanding", "0"},
      {"accel.max_outstanding", "2049"},
      {"accel.issue_interval_cycles", "0"},
      {"accel.mem_latency_cycles", "-1"},
      {"accel.mem_bytes_per_cycle", "2"},
      {"accel.completer_queue", "5000"},
      {"accel.window_base", "-4096"},
      {"accel.window_base", "144115188075855872"},  // 2^57
      {"accel.window_bytes", "6000"},               // not a power of two
      {"accel.window_bytes", "2048"},
      {"accel.window_bytes", "2251799813685248"},  // 2^51
      {"accel.memory_bytes", "1024"},
      {"tl.compression", "maybe"},
      {"tl.address_cache_entries", "4097"},
      {"tl.max_messages_per_packet", "9"},
      {"tl.strict_order", "1"},
      {"txn.load", "1.5"},
      {"txn.atomic_op", "mul"},
      {"txn.atomic_bytes", "2"},
      {"txn.atomic_bytes", "16"},
      {"txn.footprint_bytes", "128"},
      {"txn.footprint_bytes", "1099511627777"},
  };
  for (const auto& kv : bad) {
    Config c = default_config();
    const std::string e = error_of([&] { set_param(c, kv.first, kv.second); });
    EXPECT_EQ(e.rfind(kv.first + " = '" + kv.second + "': expected ", 0), 0u) << kv.first << "=" << kv.second << ": " << e;
  }
  Config c = default_config();
  EXPECT_EQ(error_of([&] { set_param(c, "traffic.kind", "bogus"); }),
            "traffic.kind = 'bogus': expected one of packets, transactions");
  EXPECT_EQ(error_of([&] { set_param(c, "accel.window_bytes", "6000"); }),
            "accel.window_bytes = '6000': expected a power of two from 4096 to 1125899906842624");
  EXPECT_EQ(error_of([&] { set_param(c, "txn.atomic_bytes", "2"); }), "txn.atomic_bytes = '2': expected one of 4, 8");

  // Lists parsed by validate(), whatever traffic.kind is.
  const std::vector<std::pair<std::string, std::string>> bad_lists = {
      {"txn.mix", "read:1,copy:1"}, {"txn.mix", "read"},    {"txn.mix", "read:0"},  {"txn.mix", "read:x"},
      {"txn.mix", ""},              {"txn.mix", "read:1,"}, {"txn.sizes", "256"},   {"txn.sizes", "6:1"},
      {"txn.sizes", "2:1"},         {"txn.sizes", "2147483648:1"}, {"txn.sizes", "256:-1"}, {"txn.sizes", ""},
      {"accel.atomic_ops", "add,mul"}, {"accel.atomic_ops", ""},
  };
  for (const auto& kv : bad_lists) {
    Config lc = default_config();
    set_param(lc, kv.first, kv.second);
    const std::string e = error_of([&] { validate(lc); });
    EXPECT_EQ(e.rfind(kv.first + " = '" + kv.second + "': ", 0), 0u) << kv.first << "=" << kv.second << ": " << e;
  }
}

TEST(ConfigTxn, CrossChecksNameTheKeys) {
  Config c = txn_config();
  set_param(c, "accel.memory_bytes", "8192");
  set_param(c, "accel.window_bytes", "4096");
  EXPECT_EQ(error_of([&] { validate(c); }),
            "accel.memory_bytes = 8192: expected at most accel.window_bytes = 4096 (the memory sits inside the "
            "accelerator's window)");
  c = txn_config();
  set_param(c, "accel.memory_bytes", "65536");
  set_param(c, "txn.footprint_bytes", "131072");
  EXPECT_EQ(error_of([&] { validate(c); }), "txn.footprint_bytes = 131072: expected at most accel.memory_bytes = 65536");
  c = txn_config();
  set_param(c, "reduce.groups", "1");
  set_param(c, "accel.window_bytes", "1125899906842624");  // 2^50: 64 groups after 72 windows overflow 2^57
  EXPECT_NO_THROW(validate(c));                             // 73 x 2^50 fits
  set_param(c, "reduce.groups", "64");
  EXPECT_NE(error_of([&] { validate(c); }).find("reduce.groups = 64: the multicast windows end at"), std::string::npos);
  set_param(c, "reduce.enable", "false");  // no engine, no multicast windows: 129 windows overflow 2^57
  EXPECT_NO_THROW(validate(c));                             // 72 x 2^50 fits
  set_param(c, "switch.ports", "129");
  EXPECT_NE(error_of([&] { validate(c); }).find("accel.window_base + switch.ports x accel.window_bytes"),
            std::string::npos);
  set_param(c, "switch.ports", "128");  // 128 x 2^50 = 2^57 exactly
  EXPECT_NO_THROW(validate(c));
  set_param(c, "accel.window_base", "4096");
  EXPECT_NE(error_of([&] { validate(c); }).find("expected at most 2^57"), std::string::npos);
  c = txn_config();
  set_param(c, "accel.window_base", "100");
  EXPECT_EQ(error_of([&] { validate(c); }), "accel.window_base = 100: expected a multiple of 4096");
  // One transfer per port per cycle at most: 1.0 x 64 B x (98.125 / 102.4) / 32 B = 1.92.
  c = txn_config();
  set_param(c, "txn.load", "1");
  set_param(c, "txn.sizes", "32:1");
  const std::string e = error_of([&] { validate(c); });
  EXPECT_EQ(e.rfind("txn.load = 1 with a mean transfer of 32 B", 0), 0u) << e;
  EXPECT_NE(e.find("raise txn.sizes or lower txn.load"), std::string::npos) << e;
  set_param(c, "txn.sizes", "32:1,4096:1");
  EXPECT_NO_THROW(validate(c));
  // The same values are not checked against the switch in packet runs.
  c = default_config();
  set_param(c, "txn.load", "1");
  set_param(c, "txn.sizes", "4:1");
  set_param(c, "switch.queueing", "fifo");
  EXPECT_NO_THROW(validate(c));
}

TEST(ConfigTxn, FifoQueueingIsRejected) {
  Config c = txn_config();
  set_param(c, "switch.queueing", "fifo");
  const std::string e = error_of([&] { validate(c); });
  EXPECT_EQ(e.rfind("switch.queueing = fifo with traffic.kind = transactions", 0), 0u) << e;
  EXPECT_NE(e.find("responses would wait behind requests"), std::string::npos) << e;
  set_param(c, "switch.queueing", "vc");
  EXPECT_NO_THROW(validate(c));
}

TEST(ConfigTxn, WriteFullNeedsSizesInWholeBeats) {
  Config c = txn_config();
  set_param(c, "txn.mix", "writefull:1,read:2");
  set_param(c, "txn.sizes", "64:1,256:1,4096:1");
  EXPECT_NO_THROW(validate(c));
  set_param(c, "txn.sizes", "64:1,100:1");
  EXPECT_EQ(error_of([&] { validate(c); }),
            "txn.sizes = '64:1,100:1' has 100 B with writefull in txn.mix: expected multiples of 64 B (WriteFull "
            "writes whole 64 B beats)");
  set_param(c, "txn.mix", "write:1,atomic_r:1,atomic_nr:1");
  EXPECT_NO_THROW(validate(c));
  EXPECT_EQ(c.txn.mix.size(), 3u);
  EXPECT_EQ(c.txn.mix[2].first, tl::Opcode::kAtomicNR);
}

TEST(ConfigTxn, AtomicOpsParse) {
  Config c = default_config();
  set_param(c, "accel.atomic_ops", "add, cas,fadd");
  validate(c);
  for (int i = 0; i < tl::kAtomicOps; ++i) {
    const auto op = static_cast<tl::AtomicOp>(i);
    EXPECT_EQ(c.accel.atomic_supported[static_cast<size_t>(i)],
              op == tl::AtomicOp::kAdd || op == tl::AtomicOp::kCas || op == tl::AtomicOp::kFAdd)
        << tl::atomic_op_name(op);
  }
  set_param(c, "accel.atomic_ops", "none");
  validate(c);
  for (bool s : c.accel.atomic_supported) EXPECT_FALSE(s);
  set_param(c, "accel.atomic_ops", "all");
  validate(c);
  for (bool s : c.accel.atomic_supported) EXPECT_TRUE(s);
  set_param(c, "accel.atomic_ops", "add,mul");
  EXPECT_EQ(error_of([&] { validate(c); }),
            "accel.atomic_ops = 'add,mul': unknown atomic 'mul'; expected all, none, or a comma-separated list of "
            "add, and, or, xor, min_s, max_s, min_u, max_u, swap, cas, fadd");
  set_param(c, "accel.atomic_ops", "all");
  set_param(c, "txn.atomic_op", "min_u");
  set_param(c, "txn.atomic_bytes", "4");
  validate(c);
  EXPECT_EQ(c.txn.atomic_op, tl::AtomicOp::kMinU);
  EXPECT_EQ(c.txn.atomic_bytes, 4);
}

TEST(ConfigTxn, YamlSetsTransactionKeys) {
  Config c = default_config();
  load_yaml_text(c,
                 "traffic:\n  kind: transactions\naccel:\n  max_outstanding: 256\n  atomic_ops: add,swap\n"
                 "tl.compression: false\ntxn:\n  mix: read:3,atomic_r:1\n  sizes: 64:1,1024:1\n",
                 "t.yaml");
  validate(c);
  EXPECT_EQ(c.kind, Config::TrafficKind::kTransactions);
  EXPECT_EQ(c.accel.max_outstanding, 256);
  EXPECT_FALSE(c.accel.compression);
  EXPECT_TRUE(c.accel.atomic_supported[static_cast<size_t>(tl::AtomicOp::kSwap)]);
  EXPECT_FALSE(c.accel.atomic_supported[static_cast<size_t>(tl::AtomicOp::kCas)]);
  // Mean payload per transfer: reads carry (64 + 1024) / 2 = 544 B, the atomic its 8 B element:
  // (3 x 544 + 8) / 4.
  EXPECT_DOUBLE_EQ(c.txn.mean_bytes(), 410.0);
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
