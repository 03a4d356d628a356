// The reference switch block: NumPorts inputs with virtual output queues, per-output credit
// counters, a switch allocator (iSLIP or separable input-first), the crossbar and the output
// pipeline. It implements the reference cycle semantics of doc/architecture.md for `voq`
// queueing, so a Verilated build agrees with the C++ model cycle for cycle (tb/cosim/).
//
// Timing at the ports, for a flit arriving on in_flit_i in cycle t (all outputs are
// combinational from the state and this cycle's inputs; state changes on the rising edge):
//   * it joins its queue at the end of cycle t + RouteCycles - 1 and can win allocation from
//     cycle t + RouteCycles;
//   * when it wins allocation in cycle g, its credit appears on in_credit_o in cycle g and the
//     flit appears on out_flit_o in cycle g + OutCycles (switch.sw_alloc + xbar + egress);
//   * a credit on out_credit_i in cycle t is usable by the allocation of cycle t.
// Port words and their fields: upsw_pkg; interface contract: doc/cosim.md.
module upsw_switch import upsw_pkg::*; #(
  parameter int unsigned NumPorts          = 8,
  parameter int unsigned NumVcs            = 2,
  parameter int unsigned BufSlots          = 32,  // input buffer slots per port
  parameter int unsigned RouteCycles       = 2,   // switch.routing_cycles, >= 1
  parameter int unsigned OutCycles         = 3,   // sw_alloc + xbar + egress cycles
  parameter int unsigned DownVcCredits     = 8,   // endpoint.rx_vc_flits
  parameter int unsigned DownSharedCredits = 16,  // endpoint.rx_shared_flits
  parameter int unsigned AllocKind         = 0,   // an upsw_pkg::alloc_e value (int for -G)
  parameter int unsigned AllocIters        = 4    // iSLIP iterations
) (
  input  logic    clk_i,
  input  logic    rst_ni,
  input  flit_t   in_flit_i    [NumPorts],  // input links: flits in
  output credit_t in_credit_o  [NumPorts],  // input links: credits back to the senders
  output flit_t   out_flit_o   [NumPorts],  // output links: flits out
  input  credit_t out_credit_i [NumPorts]   // output links: credits from the receivers
);

  localparam int unsigned IdxW  = $clog2(NumPorts);
  localparam int unsigned VcW   = (NumVcs > 1) ? $clog2(NumVcs) : 1;
  localparam alloc_e      Alloc = alloc_e'(AllocKind);

  // ---- output credit state ----------------------------------------------------------------
  logic [NumVcs-1:0]   out_avail  [NumPorts];  // per output
  logic [NumPorts-1:0] avail      [NumVcs];    // per VC: outputs with a credit
  logic [NumPorts-1:0] take_shared;
  logic [NumPorts-1:0] egress_valid;
  flit_t               xbar       [NumPorts];  // per output: the flit crossing this cycle

  for (genvar o = 0; o < NumPorts; o++) begin : g_out
    upsw_out_credit #(
      .NumVcs        (NumVcs),
      .VcCredits     (DownVcCredits),
      .SharedCredits (DownSharedCredits)
    ) u_credit (
      .clk_i,
      .rst_ni,
      .credit_i      (out_credit_i[o]),
      .avail_o       (out_avail[o]),
      .take_i        (xbar[o].valid),
      .take_vc_i     (xbar[o].vc[VcW-1:0]),
      .take_shared_o (take_shared[o])
    );

    flit_t egress_in;
    always_comb begin
      egress_in        = xbar[o];
      egress_in.shared = xbar[o].valid && take_shared[o];
    end
    upsw_delay #(
      .Width ($bits(flit_t)),
      .Depth (OutCycles)
    ) u_egress (
      .clk_i,
      .rst_ni,
      .valid_i (egress_in.valid),
      .data_i  (egress_in),
      .valid_o (egress_valid[o]),
      .data_o  (out_flit_o[o])
    );
  end

  always_comb begin
    for (int v = 0; v < NumVcs; v++) begin
      for (int o = 0; o < NumPorts; o++) avail[v][o] = out_avail[o][v];
    end
  end

  // ---- wormhole hold: an output VC belongs to one input from head grant to tail grant ------
  logic [NumPorts-1:0] held_q    [NumVcs];            // held_q[v][o]
  logic [NumPorts-1:0] held_d    [NumVcs];
  logic [NumPorts-1:0] held_by_q [NumPorts][NumVcs];  // held_by_q[i][v][o]
  logic [NumPorts-1:0] held_by_d [NumPorts][NumVcs];

  // ---- inputs -----------------------------------------------------------------------------
  logic [NumPorts-1:0] req      [NumPorts];
  logic [NumPorts-1:0] in_match;
  logic [IdxW-1:0]     in_port  [NumPorts];
  logic [NumPorts-1:0] out_match;
  logic [IdxW-1:0]     out_port [NumPorts];
  flit_t               leaving  [NumPorts];  // per input: the flit it sends on its grant

  for (genvar i = 0; i < NumPorts; i++) begin : g_in
    logic [NumPorts-1:0] usable [NumVcs];
    always_comb begin
      for (int v = 0; v < NumVcs; v++) usable[v] = avail[v] & (~held_q[v] | held_by_q[i][v]);
    end
    upsw_input #(
      .NumPorts    (NumPorts),
      .NumVcs      (NumVcs),
      .BufSlots    (BufSlots),
      .RouteCycles (RouteCycles)
    ) u_input (
      .clk_i,
      .rst_ni,
      .flit_i      (in_flit_i[i]),
      .usable_i    (usable),
      .req_o       (req[i]),
      .gnt_i       (in_match[i]),
      .gnt_port_i  (in_port[i]),
      .flit_o      (leaving[i]),
      .credit_o    (in_credit_o[i])
    );
  end

  // ---- switch allocation ------------------------------------------------------------------
  if (Alloc == AllocIslip) begin : g_islip
    upsw_alloc_islip #(
      .NumPorts (NumPorts),
      .Iters    (AllocIters)
    ) u_alloc (
      .clk_i,
      .rst_ni,
      .req_i       (req),
      .in_match_o  (in_match),
      .in_port_o   (in_port),
      .out_match_o (out_match),
      .out_port_o  (out_port)
    );
  end else begin : g_sep_if
    upsw_alloc_sep_if #(
      .NumPorts (NumPorts)
    ) u_alloc (
      .clk_i,
      .rst_ni,
      .req_i       (req),
      .in_match_o  (in_match),
      .in_port_o   (in_port),
      .out_match_o (out_match),
      .out_port_o  (out_port)
    );
  end

  // ---- crossbar and hold updates ----------------------------------------------------------
  always_comb begin
    held_d    = held_q;
    held_by_d = held_by_q;
    for (int o = 0; o < NumPorts; o++) begin
      xbar[o] = out_match[o] ? leaving[out_port[o]] : '0;
      if (xbar[o].valid && xbar[o].head && !xbar[o].tail) begin
        held_d[xbar[o].vc[VcW-1:0]][o]                    = 1'b1;
        held_by_d[out_port[o]][xbar[o].vc[VcW-1:0]][o]    = 1'b1;
      end else if (xbar[o].valid && xbar[o].tail && !xbar[o].head) begin
        held_d[xbar[o].vc[VcW-1:0]][o]                    = 1'b0;
        held_by_d[out_port[o]][xbar[o].vc[VcW-1:0]][o]    = 1'b0;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      held_q    <= '{default: '0};
      held_by_q <= '{default: '{default: '0}};
    end else begin
      held_q    <= held_d;
      held_by_q <= held_by_d;
    end
  end

  // ---- assertions -------------------------------------------------------------------------
  `include "upsw_assert.svh"
  logic [NumPorts-1:0] xbar_ok;
  always_comb begin
    for (int o = 0; o < NumPorts; o++) begin
      xbar_ok[o] = !xbar[o].valid || (int'(xbar[o].dst) == o && egress_valid[o] == out_flit_o[o].valid);
    end
  end
  // The crossbar delivers to the output the flit was routed to.
  `UPSW_ASSERT(XbarDst_A, &xbar_ok)

  // Flit conservation over the whole block: granted - departed = flits in the output pipelines.
  logic [31:0] granted_q, departed_q, granted_d, departed_d, in_pipes;
  always_comb begin
    granted_d  = granted_q;
    departed_d = departed_q;
    for (int p = 0; p < NumPorts; p++) begin
      granted_d  = granted_d + 32'(out_match[p]);
      departed_d = departed_d + 32'(egress_valid[p]);
    end
  end
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      granted_q  <= '0;
      departed_q <= '0;
    end else begin
      granted_q  <= granted_d;
      departed_q <= departed_d;
    end
  end
  assign in_pipes = granted_q - departed_q;
  `UPSW_ASSERT(EgressConservation_A, in_pipes <= 32'(NumPorts * OutCycles))

endmodule
