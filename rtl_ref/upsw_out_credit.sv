// A switch output's credits for the receiver buffer behind it: reserved credits per VC plus a
// shared pool. Returned credits are usable in the cycle they arrive; a grant takes a reserved
// credit of its VC if there is one, else a pool credit, and says which (doc/architecture.md,
// switch steps 1 and 8, and "Flow control").
module upsw_out_credit import upsw_pkg::*; #(
  parameter int unsigned NumVcs        = 2,
  parameter int unsigned VcCredits     = 8,
  parameter int unsigned SharedCredits = 16,
  localparam int unsigned VcW          = (NumVcs > 1) ? $clog2(NumVcs) : 1
) (
  input  logic              clk_i,
  input  logic              rst_ni,
  input  credit_t           credit_i,       // returned by the receiver this cycle
  output logic [NumVcs-1:0] avail_o,        // VC v can take a credit this cycle
  input  logic              take_i,         // a flit leaves through this output ...
  input  logic [VcW-1:0]    take_vc_i,      // ... on this VC
  output logic              take_shared_o   // it took a pool credit
);

  localparam int unsigned RW = $clog2(VcCredits + 1);
  localparam int unsigned SW = (SharedCredits > 0) ? $clog2(SharedCredits + 1) : 1;

  logic [RW-1:0] res_q [NumVcs];
  logic [RW-1:0] res_eff [NumVcs];
  logic [SW-1:0] sh_q, sh_eff;

  always_comb begin
    for (int v = 0; v < NumVcs; v++) begin
      res_eff[v] = res_q[v] + RW'(credit_i.valid && !credit_i.shared && int'(credit_i.vc) == v);
      avail_o[v] = (res_eff[v] != '0) || (sh_eff != '0);
    end
  end
  assign sh_eff        = sh_q + SW'(credit_i.valid && credit_i.shared);
  assign take_shared_o = res_eff[take_vc_i] == '0;

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      res_q <= '{default: RW'(VcCredits)};
      sh_q  <= SW'(SharedCredits);
    end else begin
      for (int v = 0; v < NumVcs; v++) begin
        res_q[v] <= res_eff[v] - RW'(take_i && !take_shared_o && int'(take_vc_i) == v);
      end
      sh_q <= sh_eff - SW'(take_i && take_shared_o);
    end
  end

  // ---- assertions -------------------------------------------------------------------------
  // (check signals are computed outside the properties: Verilator 5.006 cannot index arrays
  // inside a property)
  logic overflow_vc, overflow_shared, underflow, vc_out_of_range;
  assign overflow_vc     = credit_i.valid && !credit_i.shared &&
                           res_q[credit_i.vc[VcW-1:0]] == RW'(VcCredits);
  assign overflow_shared = credit_i.valid && credit_i.shared &&
                           {1'b0, sh_q} == (SW + 1)'(SharedCredits);
  assign underflow       = take_i && !avail_o[take_vc_i];
  assign vc_out_of_range = credit_i.valid && int'(credit_i.vc) >= NumVcs;

  `include "upsw_assert.svh"
  // Overflow: the receiver returned a credit the sender never took.
  `UPSW_ASSERT(CreditOverflowVc_A, !overflow_vc)
  `UPSW_ASSERT(CreditOverflowShared_A, !overflow_shared)
  // Underflow: a flit left without a credit.
  `UPSW_ASSERT(CreditUnderflow_A, !underflow)
  `UPSW_ASSERT(CreditVcInRange_A, !vc_out_of_range)

endmodule
