#include "config/presets.h"

#include "config/param_table.h"
#include "config/value_parse.h"

namespace upswitch::config {

namespace {

using Overrides = std::vector<std::pair<std::string, std::string>>;

// The GPU's fixed costs of NCCL on NVLink (src/graph/tuning.cc, facts 2.8, [N29]) less what the
// model simulates of them itself (doc/nccl.md, "The GPU's fixed costs"): the GPU presets' part.
Overrides with_nccl_nvlink_costs(Overrides o) {
  o.insert(o.end(), {{"accel.launch_us_simple", "8.4"},
                     {"accel.launch_us_ll128", "14"},
                     {"accel.launch_us_ll", "6.6"},
                     {"accel.nvls_launch_us", "23.7"},
                     {"accel.step_us_simple", "2.73"},
                     {"accel.step_us_ll128", "1.69"},
                     {"accel.step_us_ll", "0.37"}});
  return o;
}

}  // namespace

const std::vector<Preset>& presets() {
  static const std::vector<Preset> table = {
      {"ualink-x4",
       "72 ports of UALink x4 (4 x 200G = 800 Gb/s per direction), VOQ + 4-iteration iSLIP, 1.6 GHz, "
       "32-cycle core pipeline, 80 ns links (facts sheet section 5). The default.",
       {}},
      {"tiny",
       "8 ports, 2 VCs, short pipeline and links: quick tests and examples.",
       {{"switch.ports", "8"},
        {"switch.vcs", "2"},
        {"switch.vc_buffer_flits", "8"},
        {"switch.shared_buffer_flits", "16"},
        {"switch.routing_cycles", "2"},
        {"switch.sw_alloc_cycles", "1"},
        {"switch.xbar_cycles", "1"},
        {"switch.egress_cycles", "1"},
        {"link.latency_cycles", "4"},
        {"link.credit_delay_cycles", "4"},
        {"endpoint.rx_vc_flits", "8"},
        {"endpoint.rx_shared_flits", "16"},
        {"sim.warmup_cycles", "2000"},
        {"sim.measure_cycles", "5000"}}},
      {"slotted",
       "The textbook slotted switch used by the theory checks: 1 VC, single-flit packets, no pipeline, "
       "1-cycle links at one flit per cycle and deep buffers, so one cell moves per input and output per cycle.",
       {{"switch.vcs", "1"},
        {"switch.vc_buffer_flits", "256"},
        {"switch.shared_buffer_flits", "0"},
        {"switch.routing_cycles", "0"},
        {"switch.vc_alloc_cycles", "0"},
        {"switch.sw_alloc_cycles", "0"},
        {"switch.xbar_cycles", "0"},
        {"switch.egress_cycles", "0"},
        {"link.latency_cycles", "1"},
        {"link.credit_delay_cycles", "1"},
        {"link.gbytes_per_s", "0"},
        {"endpoint.rx_vc_flits", "256"},
        {"endpoint.rx_shared_flits", "0"},
        {"traffic.packet_flits", "1"}}},
      {"nvl72-plane",
       "One NVLink5 switch chip of a GB200 NVL72 rack: 72 ports, one per GPU (each GPU sends one link to each "
       "of the 18 chips), 50 GB/s per port and direction (2 lanes x 200 Gb/s; 72 x 50 GB/s = 3.6 TB/s per "
       "direction, 7.2 TB/s bidirectional), half the per-port rate of ualink-x4 (facts sheet sections 2.1, "
       "2.3, 3.1; [N4][N6][N7][N8]). Links carry 50 x 628/640 = 49.0625 GB/s of TL flits: NVLink5 framing is "
       "not public (2.6), so the default's UALink DL efficiency is kept [estimate]. Reduction ALU sized to "
       "line rate as in section 5: 8 lanes = 32 B per cycle per port, 72 x 51.2 GB/s = 3.7 TB/s of operands, "
       "matching the chip's 3.6 TFLOPS in-network compute read as FP8 (2.3, [N6]) [estimate]. traffic.rate "
       "0.25 offers the default's 52% of the link. Clock, pipeline, link latency and buffers stay at the "
       "defaults: NVLink latency and buffer sizes are not public (2.6, 3.3, [N17]).",
       {{"switch.ports", "72"},
        {"link.gbytes_per_s", "49.0625"},
        {"reduce.alu_elems_per_cycle", "8"},
        {"traffic.rate", "0.25"}}},
      {"nvl72-rack",
       "A GB200 NVL72 rack's NVLink domain: 72 GPUs on 18 NVLink5 switch chips, one link from every GPU to "
       "every chip, so 18 independent planes, each an nvl72-plane chip (72 ports, 50 GB/s per port and "
       "direction; 49.0625 GB/s of TL flits as in nvl72-plane). Per GPU 18 x 50 = 900 GB/s per direction "
       "(facts sheet sections 2.3, 2.7; [N4][N7][N8]). GPUs spread their traffic over the planes by address "
       "(endpoint.port_select, interleave 256 B [estimate]). traffic.rate 0.25 per link, as nvl72-plane. "
       "Collectives as a B200 issues them: SM stores of at most 128 B (coll.store_bytes; the SM limit of "
       "2.5, 2.6, [N11b], kept for Blackwell [estimate]) and at most 40 GB/s per channel's SM "
       "(accel.sm_gbytes_per_s: NCCL's per-channel cap for Blackwell, perChMaxRingLL128Bws, 2.8, [N29]). "
       "The GPU's fixed costs are NCCL's for NVLink (src/graph/tuning.cc, 2.8, [N29]): launch 8.4, 14 and "
       "6.6 us for Ring on Simple, LL128 and LL (accel.launch_us_*), and per ring step NCCL's 3.4, 1.9 and 0.6 us "
       "less what the model simulates of a step itself (0.67, 0.21 and 0.23 us on dgx-h100): accel.step_us_* 2.73, "
       "1.69 and 0.37; NVLS 25 us less the model's own 1.34 us (accel.nvls_launch_us 23.7; doc/nccl.md, \"The GPU's "
       "fixed costs\").",
       with_nccl_nvlink_costs({{"switch.ports", "72"},
        {"link.gbytes_per_s", "49.0625"},
        {"reduce.alu_elems_per_cycle", "8"},
        {"traffic.rate", "0.25"},
        {"topology.kind", "planes"},
        {"topology.endpoints", "72"},
        {"topology.planes", "18"},
        {"coll.store_bytes", "128"},
        {"accel.sm_gbytes_per_s", "40"}})},
      {"dgx-h100",
       "A DGX H100 node's NVLink domain: 8 H100 GPUs on 4 third-generation NVSwitch chips (64 NVLink4 ports each), "
       "each GPU's 18 NVLink4 links spread 5+4+4+5 over the chips, so 4 planes of unequal width "
       "(topology.plane_links; facts sheet sections 2.1, 2.2, 2.7; [N1][N3][N8]). 25 GB/s per link and direction "
       "(2 lanes x 100 Gb/s), 450 GB/s per GPU; links carry 25 x 628/640 = 24.53125 GB/s of TL flits, 441.6 GB/s "
       "per GPU: NVLink4 framing is not public (2.6), so the default's UALink DL efficiency is kept as in "
       "nvl72-plane [estimate]. GPUs spread their traffic over their 18 links by address (256 B interleave "
       "[estimate]) and each chip sends a destination's traffic out on the link at the same position as the one it "
       "came in on (routing.multipath = input), so every link carries 1/18 of a GPU's traffic. An NVLS reduction "
       "engine in every chip, its ALU sized to line rate: 4 lanes = 16 B per cycle per port, 64 x 25.6 GB/s = "
       "410 G FP32 adds/s against the quoted 400 GFLOPS (2.2, [N12]) [estimate]. traffic.rate 0.125 offers about "
       "half of each link. Clock, pipeline, link latency and buffers stay at the defaults: NVSwitch latency and "
       "buffer sizes are not public (2.2, 2.6, [N17]). Collectives as an H100 issues them: SMs store at most "
       "128 B per NVLink request (coll.store_bytes; 2.5, 2.6, [N11b]), and each channel's SM moves at most "
       "36.7 GB/s (accel.sm_gbytes_per_s: NCCL's per-channel cap for Hopper, perChMaxRingLL128Bws in "
       "src/graph/tuning.cc, 2.8, [N29]). The GPU's fixed costs as in nvl72-rack, calibrated on this preset.",
       with_nccl_nvlink_costs({{"switch.ports", "64"},
        {"link.gbytes_per_s", "24.53125"},
        {"reduce.alu_elems_per_cycle", "4"},
        {"traffic.rate", "0.125"},
        {"topology.kind", "planes"},
        {"topology.endpoints", "8"},
        {"topology.planes", "4"},
        {"topology.plane_links", "[5,4,4,5]"},
        {"routing.multipath", "input"},
        {"coll.store_bytes", "128"},
        {"accel.sm_gbytes_per_s", "36.7"}})},
      {"ualink-pod",
       "A UALink pod of 128 accelerators on 4 parallel switch planes of 128-port switches, one x4 port "
       "(4 x 200G, 98.125 GB/s of TL flits per direction, as ualink-x4) per accelerator per plane: 392.5 GB/s per "
       "accelerator and direction over one switch level (facts sheet sections 1.1, 1.11, 2.7; [U3][U15]). Scale "
       "to the spec's 1,024 accelerators with --set topology.endpoints=1024 --set switch.ports=1024.",
       {{"switch.ports", "128"},
        {"topology.kind", "planes"},
        {"topology.endpoints", "128"},
        {"topology.planes", "4"}}},
      {"superpod-256",
       "The 256-GPU H100 NVLink Switch System (DGX H100 SuperPOD) as 4 planes, each a two-tier fabric: 32 nodes "
       "of 8 GPUs, one leaf (a node's NVSwitch chip) per node and plane, 4 spines per plane. Each GPU's 18 "
       "NVLink4 links (25 GB/s each) are modelled as one 112.5 GB/s port per plane (the real 5+4+4+5 split "
       "over 4 chips is averaged), and each leaf sends 4 uplinks of the same rate to the spines: 450 GB/s up "
       "against 900 GB/s down, the published 2:1 taper (72 of 144 NVLinks per node leave it). Assumed "
       "[estimate]: the clock is raised to 1.8 GHz so a 64 B flit per cycle covers 112.5 GB/s (TL flits at "
       "98.125% as the other presets: 110.39 GB/s), GPU links of 80 ns (144 cycles) as the default's, one uplink "
       "from each leaf to each spine, and leaf-spine links of twice that latency (160 ns). Facts sheet sections 2.2, 2.7; [N1][N8][N23].",
       {{"switch.ports", "64"},
        {"switch.clock_ghz", "1.8"},
        {"link.gbytes_per_s", "110.390625"},
        {"topology.kind", "two_tier"},
        {"topology.planes", "4"},
        {"topology.leaves", "32"},
        {"topology.endpoints_per_leaf", "8"},
        {"topology.spines", "4"},
        {"topology.uplinks_per_leaf", "4"},
        {"link.latency_cycles", "144"},
        {"link.credit_delay_cycles", "162"},
        {"link.inter_switch_latency_cycles", "288"},
        {"link.inter_switch_credit_delay_cycles", "306"}}},
  };
  return table;
}

void apply_preset(Config& c, const std::string& name) {
  for (const Preset& p : presets()) {
    if (p.name != name) continue;
    // Presets do not stack: a second one would silently override part of the first, and the run
    // would be labelled with only one of them. Single keys go on top with --set or the file.
    if (!c.preset.empty() && c.preset != name)
      throw ConfigError("preset '" + name + "': preset '" + c.preset +
                        "' is already chosen; give one preset (--preset or the config file's preset key) and "
                        "override single keys with --set");
    for (const auto& [key, value] : p.overrides) set_param(c, key, value);
    c.preset = name;
    return;
  }
  std::vector<std::string> names;
  for (const Preset& p : presets()) names.push_back(p.name);
  throw ConfigError("--preset '" + name + "': expected one of " + join(names, ", "));
}

}  // namespace upswitch::config
