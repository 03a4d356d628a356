// iSLIP switch allocator (McKeown 1999) with Iters grant/accept rounds over the still
// unmatched inputs and outputs. Grant and accept pointers move only for matches made in the
// first round. Exact rules: doc/architecture.md, "Allocators (exact rules)".
module upsw_alloc_islip #(
  parameter int unsigned NumPorts = 8,
  parameter int unsigned Iters    = 1,
  localparam int unsigned IdxW    = $clog2(NumPorts)
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  logic [NumPorts-1:0] req_i       [NumPorts],  // req_i[i][o]: input i requests output o
  output logic [NumPorts-1:0] in_match_o,              // input i is matched ...
  output logic [IdxW-1:0]     in_port_o   [NumPorts],  // ... to this output
  output logic [NumPorts-1:0] out_match_o,             // output o is matched ...
  output logic [IdxW-1:0]     out_port_o  [NumPorts]   // ... to this input
);

  localparam int unsigned RrW    = NumPorts;
  localparam int unsigned RrIdxW = IdxW;
  `include "upsw_rr_first.svh"

  localparam logic [IdxW-1:0] LastIdx = IdxW'(NumPorts - 1);

  logic [IdxW-1:0] gnt_ptr_q [NumPorts];  // per output
  logic [IdxW-1:0] gnt_ptr_d [NumPorts];
  logic [IdxW-1:0] acc_ptr_q [NumPorts];  // per input
  logic [IdxW-1:0] acc_ptr_d [NumPorts];

  logic [NumPorts-1:0] req_t [NumPorts];  // req_t[o][i]
  logic [NumPorts-1:0] offer [NumPorts];  // offer[i][o]: output o grants input i this round

  always_comb begin
    logic [NumPorts-1:0] in_free;
    logic [NumPorts-1:0] out_free;
    logic [IdxW:0]       pick;
    for (int o = 0; o < NumPorts; o++) begin
      for (int i = 0; i < NumPorts; i++) req_t[o][i] = req_i[i][o];
    end
    in_free     = '1;
    out_free    = '1;
    in_match_o  = '0;
    out_match_o = '0;
    in_port_o   = '{default: '0};
    out_port_o  = '{default: '0};
    gnt_ptr_d   = gnt_ptr_q;
    acc_ptr_d   = acc_ptr_q;
    for (int it = 0; it < int'(Iters); it++) begin
      offer = '{default: '0};
      // Grant: each unmatched output grants the first unmatched requester at/after its pointer.
      for (int o = 0; o < NumPorts; o++) begin
        pick = rr_first(req_t[o] & in_free, gnt_ptr_q[o]);
        if (out_free[o] && pick[IdxW]) offer[pick[IdxW-1:0]][o] = 1'b1;
      end
      // Accept: each input accepts the first granting output at/after its pointer.
      for (int i = 0; i < NumPorts; i++) begin
        pick = rr_first(offer[i], acc_ptr_q[i]);
        if (pick[IdxW]) begin
          in_match_o[i]               = 1'b1;
          in_port_o[i]                = pick[IdxW-1:0];
          out_match_o[pick[IdxW-1:0]] = 1'b1;
          out_port_o[pick[IdxW-1:0]]  = IdxW'(i);
          in_free[i]                  = 1'b0;
          out_free[pick[IdxW-1:0]]    = 1'b0;
          if (it == 0) begin
            acc_ptr_d[i]              = (pick[IdxW-1:0] == LastIdx) ? '0 : pick[IdxW-1:0] + 1'b1;
            gnt_ptr_d[pick[IdxW-1:0]] = (IdxW'(i) == LastIdx) ? '0 : IdxW'(i) + 1'b1;
          end
        end
      end
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      gnt_ptr_q <= '{default: '0};
      acc_ptr_q <= '{default: '0};
    end else begin
      gnt_ptr_q <= gnt_ptr_d;
      acc_ptr_q <= acc_ptr_d;
    end
  end

endmodule
