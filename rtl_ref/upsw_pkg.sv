// Types shared by the reference switch block: the flit and credit words at its ports.
// Port-level words have fixed field widths (the documented interface, doc/cosim.md), so a
// harness can pack them without knowing the block's parameters; each is at most 64 bits.
package upsw_pkg;

  localparam int unsigned PortIdW = 10;  // output port field: up to 1024 ports
  localparam int unsigned VcIdW   = 4;   // VC field: up to 16 VCs
  localparam int unsigned PktIdW  = 32;  // packet tag: opaque to the switch, carried through

  // One flit on a link: only what timing needs (no payload). 50 bits.
  typedef struct packed {
    logic               valid;
    logic               head;
    logic               tail;
    logic               shared;  // the credit used on this hop came from the receiver's pool
    logic [VcIdW-1:0]   vc;
    logic [PortIdW-1:0] dst;     // output port (the routing table is applied upstream)
    logic [PktIdW-1:0]  pkt;
  } flit_t;

  // One credit on a link's reverse channel: which VC freed a slot, and of which kind. 6 bits.
  typedef struct packed {
    logic             valid;
    logic             shared;
    logic [VcIdW-1:0] vc;
  } credit_t;

  // Switch allocators (doc/architecture.md, "Allocators (exact rules)").
  typedef enum logic [0:0] {
    AllocIslip = 1'b0,  // iSLIP, AllocIters iterations
    AllocSepIf = 1'b1   // separable input-first, round-robin arbiters
  } alloc_e;

endpackage
