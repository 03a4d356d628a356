// Round-robin pick, included inside a module that defines RrW (vector width) and RrIdxW
// (index width): the first set bit of req at or after ptr, cyclically. found = 0 when req is 0.
// This is the "first at or after p" rule of doc/architecture.md.
function automatic logic [RrIdxW:0] rr_first(logic [RrW-1:0] req, logic [RrIdxW-1:0] ptr);
  logic [RrW-1:0]    upper;
  logic [RrW-1:0]    pool;
  logic [RrIdxW-1:0] idx;
  upper = req & ({RrW{1'b1}} << ptr);
  pool  = (|upper) ? upper : req;
  idx   = '0;
  for (int k = RrW - 1; k >= 0; k--) begin
    if (pool[k]) idx = RrIdxW'(k);
  end
  return {|req, idx};
endfunction
