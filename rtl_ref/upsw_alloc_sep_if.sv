// Separable input-first switch allocator with round-robin arbiters: each input picks the first
// requested output at/after its pointer, each output grants the first of the inputs that picked
// it at/after its pointer; both pointers move to one past the partner only on a match.
module upsw_alloc_sep_if #(
  parameter int unsigned NumPorts = 8,
  localparam int unsigned IdxW    = $clog2(NumPorts)
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic [NumPorts-1:0] req_i       [NumPorts],  // req_i[i][o]: input i requests output o
  output logic [NumPorts-1:0] in_match_o,
  output logic [IdxW-1:0]     in_port_o   [NumPorts],
  output logic [NumPorts-1:0] out_match_o,
  output logic [IdxW-1:0]     out_port_o  [NumPorts]
);

  localparam int unsigned RrW    = NumPorts;
  localparam int unsigned RrIdxW = IdxW;
  `include "upsw_rr_first.svh"

  localparam logic [IdxW-1:0] LastIdx = IdxW'(NumPorts - 1);

  logic [IdxW-1:0] in_ptr_q  [NumPorts];
  logic [IdxW-1:0] in_ptr_d  [NumPorts];
  logic [IdxW-1:0] out_ptr_q [NumPorts];
  logic [IdxW-1:0] out_ptr_d [NumPorts];

  logic [NumPorts-1:0] picked_by [NumPorts];  // picked_by[o][i]: input i picked output o

  always_comb begin
    logic [IdxW:0] pick;
    picked_by   = '{default: '0};
    in_match_o  = '0;
    out_match_o = '0;
    in_port_o   = '{default: '0};
    out_port_o  = '{default: '0};
    in_ptr_d    = in_ptr_q;
    out_ptr_d   = out_ptr_q;
    for (int i = 0; i < NumPorts; i++) begin
      pick = rr_first(req_i[i], in_ptr_q[i]);
      if (pick[IdxW]) picked_by[pick[IdxW-1:0]][i] = 1'b1;
    end
    for (int o = 0; o < NumPorts; o++) begin
      pick = rr_first(picked_by[o], out_ptr_q[o]);
      if (pick[IdxW]) begin
        out_match_o[o]             = 1'b1;
        out_port_o[o]              = pick[IdxW-1:0];
        in_match_o[pick[IdxW-1:0]] = 1'b1;
        in_port_o[pick[IdxW-1:0]]  = IdxW'(o);
        in_ptr_d[pick[IdxW-1:0]]   = (IdxW'(o) == LastIdx) ? '0 : IdxW'(o) + 1'b1;
        out_ptr_d[o]               = (pick[IdxW-1:0] == LastIdx) ? '0 : pick[IdxW-1:0] + 1'b1;
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      in_ptr_q  <= '{default: '0};
      out_ptr_q <= '{default: '0};
    end else begin
      in_ptr_q  <= in_ptr_d;
      out_ptr_q <= out_ptr_d;
    end
  end

endmodule
