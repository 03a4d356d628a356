// Assertion macro in the spirit of OpenTitan's prim_assert: checked at every rising clock edge
// outside reset, on the values before the edge; compiled out for synthesis. It is an immediate
// assertion in a clocked block rather than `assert property`, because Verilator 5.006 cannot
// compile the $sampled copies that concurrent assertions make of top-level port arrays.
`ifndef UPSW_ASSERT_SVH
`define UPSW_ASSERT_SVH
`ifndef SYNTHESIS
`define UPSW_ASSERT(__name, __prop) \
  always_ff @(posedge clk_i) begin \
    if (rst_ni) begin \
      __name: assert (__prop) else $error("assertion %s failed", `"__name`"); \
    end \
  end
`else
`define UPSW_ASSERT(__name, __prop)
`endif
`endif
