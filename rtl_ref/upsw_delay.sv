// A fixed-latency pipe of Depth cycles for a valid/data pair: what enters in cycle t leaves
// in cycle t + Depth. Depth 0 is a wire; Depth > 1 is a ring buffer (one write and one read
// per cycle), which is cheaper than a shift register in both area and simulation time.
module upsw_delay #(
  parameter int unsigned Width = 1,
  parameter int unsigned Depth = 1
) (
  input  logic             clk_i,
  input  logic             rst_ni,
  input  logic             valid_i,
  input  logic [Width-1:0] data_i,
  output logic             valid_o,
  output logic [Width-1:0] data_o
);

  if (Depth == 0) begin : g_wire
    logic unused_clk_rst;
    assign unused_clk_rst = clk_i ^ rst_ni;
    assign valid_o = valid_i;
    assign data_o  = data_i;
  end else if (Depth == 1) begin : g_reg
    logic             valid_q;
    logic [Width-1:0] data_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) valid_q <= 1'b0;
      else         valid_q <= valid_i;
    end
    always_ff @(posedge clk_i) begin
      if (valid_i) data_q <= data_i;
    end
    assign valid_o = valid_q;
    assign data_o  = valid_q ? data_q : '0;
  end else begin : g_ring
    localparam int unsigned PtrW = $clog2(Depth);
    localparam logic [PtrW-1:0] LastPtr = PtrW'(Depth - 1);
    logic [Depth-1:0] valid_q;
    logic [Width-1:0] mem_q [Depth];
    logic [PtrW-1:0]  ptr_q;
    always_ff @(posedge clk_i or negedge rst_ni) begin
      if (!rst_ni) begin
        valid_q <= '0;
        ptr_q   <= '0;
      end else begin
        valid_q[ptr_q] <= valid_i;
        ptr_q          <= (ptr_q == LastPtr) ? '0 : ptr_q + 1'b1;
      end
    end
    always_ff @(posedge clk_i) begin
      if (valid_i) mem_q[ptr_q] <= data_i;
    end
    // The slot about to be overwritten holds what was written Depth cycles ago.
    assign valid_o = valid_q[ptr_q];
    assign data_o  = valid_q[ptr_q] ? mem_q[ptr_q] : '0;
  end

endmodule
