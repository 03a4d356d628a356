// One input port: the routing stage, then virtual output queues (one per output and VC) kept
// as linked lists over a shared slot buffer, the request vector for the switch allocator and
// the VC choice on a grant (first eligible VC at/after the input's VC pointer).
// Cycle rules: doc/architecture.md, "The cycle of one flit", switch steps 2, 3, 5, 7 and 8.
module upsw_input import upsw_pkg::*; #(
  parameter int unsigned NumPorts    = 8,
  parameter int unsigned NumVcs      = 2,
  parameter int unsigned BufSlots    = 32,  // >= the credits the upstream sender holds
  parameter int unsigned RouteCycles = 1,   // arrival to queue; >= 1
  localparam int unsigned IdxW       = $clog2(NumPorts),
  localparam int unsigned VcW        = (NumVcs > 1) ? $clog2(NumVcs) : 1
) (
  input  logic                clk_i,
  input  logic                rst_ni,
  input  flit_t               flit_i,                // arriving from the input link
  input  logic [NumPorts-1:0] usable_i   [NumVcs],   // output VCs this input may use now
  output logic [NumPorts-1:0] req_o,                 // outputs this input requests
  input  logic                gnt_i,                 // granted this cycle ...
  input  logic [IdxW-1:0]     gnt_port_i,            // ... to this output
  output flit_t               flit_o,                // the flit leaving on the grant
  output credit_t             credit_o               // its credit, back to the sender
);

  localparam int unsigned NumQueues = NumPorts * NumVcs;
  localparam int unsigned QW        = $clog2(NumQueues);
  localparam int unsigned SlotW     = $clog2(BufSlots);
  localparam int unsigned CntW      = $clog2(BufSlots + 1);
  localparam logic [SlotW-1:0] LastSlot = SlotW'(BufSlots - 1);
  localparam logic [VcW-1:0]   LastVc   = VcW'(NumVcs - 1);

  localparam int unsigned RrW    = NumVcs;
  localparam int unsigned RrIdxW = VcW;
  `include "upsw_rr_first.svh"

  // What a slot keeps: the output port and VC are implied by the queue it is in.
  typedef struct packed {
    logic              head;
    logic              tail;
    logic              shared;
    logic [PktIdW-1:0] pkt;
  } slot_t;

  // ---- routing stage: RouteCycles - 1 cycles of pipe, then the queue write ----------------
  flit_t rt_flit;
  logic  rt_valid;
  upsw_delay #(
    .Width ($bits(flit_t)),
    .Depth (RouteCycles - 1)
  ) u_route (
    .clk_i,
    .rst_ni,
    .valid_i (flit_i.valid),
    .data_i  (flit_i),
    .valid_o (rt_valid),
    .data_o  (rt_flit)
  );

  // ---- queue state ------------------------------------------------------------------------
  slot_t               slot_q  [BufSlots];
  logic [SlotW-1:0]    next_q  [BufSlots];
  logic [SlotW-1:0]    qhead_q [NumQueues];
  logic [SlotW-1:0]    qtail_q [NumQueues];
  logic [NumPorts-1:0] ne_q    [NumVcs];  // ne_q[v][o]: queue (o, v) holds a flit
  // Free slots: slots never used yet are handed out in order (fresh_q), so the free FIFO needs
  // no reset; after that, slots come back through the FIFO in the order they were freed.
  logic [CntW-1:0]     fresh_q;
  logic [SlotW-1:0]    free_q  [BufSlots];
  logic [SlotW-1:0]    free_rd_q, free_wr_q;
  logic [CntW-1:0]     free_cnt_q;  // fresh + FIFO
  logic [VcW-1:0]      vc_ptr_q;
  logic [CntW-1:0]     occ_q;  // arrivals - departures

  // ---- requests ---------------------------------------------------------------------------
  always_comb begin
    req_o = '0;
    for (int v = 0; v < NumVcs; v++) req_o |= ne_q[v] & usable_i[v];
  end

  // ---- dequeue on a grant: VC choice and the leaving flit ----------------------------------
  logic [NumVcs-1:0] cand;
  logic [VcW:0]      vc_pick;
  logic [VcW-1:0]    deq_vc;
  logic [QW-1:0]     deq_q;
  logic [SlotW-1:0]  deq_slot;
  logic              deq_last;
  slot_t             deq_data;

  always_comb begin
    for (int v = 0; v < NumVcs; v++) cand[v] = ne_q[v][gnt_port_i] & usable_i[v][gnt_port_i];
    vc_pick  = rr_first(cand, vc_ptr_q);
    deq_vc   = vc_pick[VcW-1:0];
    deq_q    = QW'(gnt_port_i) * QW'(NumVcs) + QW'(deq_vc);
    deq_slot = qhead_q[deq_q];
    deq_last = deq_slot == qtail_q[deq_q];
    deq_data = slot_q[deq_slot];
  end

  logic deq;
  assign deq = gnt_i;

  always_comb begin
    flit_o        = '0;
    credit_o      = '0;
    flit_o.valid  = deq;
    flit_o.head   = deq_data.head;
    flit_o.tail   = deq_data.tail;
    flit_o.shared = deq_data.shared;  // the output rewrites it for the next hop
    flit_o.vc     = VcIdW'(deq_vc);
    flit_o.dst    = PortIdW'(gnt_port_i);
    flit_o.pkt    = deq_data.pkt;
    credit_o.valid  = deq;
    credit_o.shared = deq_data.shared;
    credit_o.vc     = VcIdW'(deq_vc);
    if (!deq) begin
      flit_o   = '0;
      credit_o = '0;
    end
  end

  // ---- enqueue at the end of the routing stage ---------------------------------------------
  logic [IdxW-1:0]  enq_port;
  logic [VcW-1:0]   enq_vc;
  logic [QW-1:0]    enq_q;
  logic [SlotW-1:0] enq_slot;
  logic             enq, enq_into_empty, enq_fresh;
  assign enq      = rt_valid;
  assign enq_port = rt_flit.dst[IdxW-1:0];
  assign enq_vc   = rt_flit.vc[VcW-1:0];
  assign enq_q    = QW'(enq_port) * QW'(NumVcs) + QW'(enq_vc);
  assign enq_fresh = fresh_q != CntW'(BufSlots);
  assign enq_slot  = enq_fresh ? fresh_q[SlotW-1:0] : free_q[free_rd_q];
  // The target queue is empty after this cycle's dequeue (same queue, last flit) or already.
  assign enq_into_empty = !ne_q[enq_vc][enq_port] || (deq && deq_q == enq_q && deq_last);

  // Queue memories: no reset needed, validity is in ne_q and the free list.
  always_ff @(posedge clk_i) begin
    if (deq && !deq_last) qhead_q[deq_q] <= next_q[deq_slot];
    if (deq) free_q[free_wr_q] <= deq_slot;
    if (enq) begin
      slot_q[enq_slot] <= '{head: rt_flit.head, tail: rt_flit.tail, shared: rt_flit.shared,
                            pkt: rt_flit.pkt};
      if (enq_into_empty) qhead_q[enq_q] <= enq_slot;
      else                next_q[qtail_q[enq_q]] <= enq_slot;
      qtail_q[enq_q] <= enq_slot;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      fresh_q    <= '0;
      free_rd_q  <= '0;
      free_wr_q  <= '0;
      free_cnt_q <= CntW'(BufSlots);
      ne_q       <= '{default: '0};
      vc_ptr_q   <= '0;
      occ_q      <= '0;
    end else begin
      if (deq) begin
        if (deq_last) ne_q[deq_vc][gnt_port_i] <= 1'b0;
        free_wr_q         <= (free_wr_q == LastSlot) ? '0 : free_wr_q + 1'b1;
        vc_ptr_q          <= (deq_vc == LastVc) ? '0 : deq_vc + 1'b1;
      end
      if (enq) begin
        ne_q[enq_vc][enq_port] <= 1'b1;
        if (enq_fresh) fresh_q   <= fresh_q + 1'b1;
        else           free_rd_q <= (free_rd_q == LastSlot) ? '0 : free_rd_q + 1'b1;
      end
      free_cnt_q <= free_cnt_q + CntW'(deq) - CntW'(enq);
      occ_q      <= occ_q + CntW'(flit_i.valid) - CntW'(deq);
    end
  end

  // ---- assertions -------------------------------------------------------------------------
  `include "upsw_assert.svh"
  // A grant only for an output this input requested, and it always finds a flit.
  logic gnt_ok;
  assign gnt_ok = req_o[gnt_port_i] && vc_pick[VcW];
  `UPSW_ASSERT(GntRequested_A, !gnt_i || gnt_ok)
  // Buffer overflow: the sender used more credits than the buffer has slots.
  `UPSW_ASSERT(BufOverflow_A, !enq || free_cnt_q != '0)
  `UPSW_ASSERT(OccBound_A, occ_q <= CntW'(BufSlots))
  // Flit conservation: every flit that arrived and has not left is in a slot or in the
  // routing stage (at most RouteCycles flits).
  `UPSW_ASSERT(Conservation_A,
      {1'b0, occ_q} >= {1'b0, CntW'(BufSlots) - free_cnt_q} &&
      {1'b0, occ_q} <= {1'b0, CntW'(BufSlots) - free_cnt_q} + (CntW + 1)'(RouteCycles))
  `UPSW_ASSERT(RouteValid_A, rt_valid == rt_flit.valid)
  // Flits name an existing output and VC.
  logic flit_out_of_range;
  assign flit_out_of_range = flit_i.valid && (int'(flit_i.dst) >= NumPorts || int'(flit_i.vc) >= NumVcs);
  `UPSW_ASSERT(FlitInRange_A, !flit_out_of_range)

endmodule
