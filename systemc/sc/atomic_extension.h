// The TLM-2.0 extension that turns a generic payload into an atomic (UALink AtomicR/AtomicNR,
// facts §1.4) at the accelerator sockets (sc/accelerator_sockets.h). Without it a payload is a
// plain read or write.
//
// With it, the payload's data array holds the operands, one element of `elem_bytes` after the
// other (little-endian), and its address and length select the elements; byte enables, if any,
// must switch whole elements on or off. `returns_old` chooses AtomicR: the target then writes the
// old values back into the same data array (an exception to the TLM rule that a write leaves the
// array untouched; use TLM_WRITE_COMMAND, or TLM_READ_COMMAND if your interconnect insists that
// the target writes the array). For compare-and-swap (op = kCas), the data array holds the swap
// values and `compare` points at the compare values, as many bytes as the payload's data length.
//
// The extension does not own `compare`: the initiator keeps it valid until the response, like the
// data array. clone() and copy_from() copy the pointer, not the bytes.
#pragma once

#include <cstdint>

#include <tlm>

#include "tl/ops.h"

namespace upswitch::sc {

class AtomicExtension : public tlm::tlm_extension<AtomicExtension> {
 public:
  AtomicExtension() = default;
  AtomicExtension(tl::AtomicOp op_, uint8_t elem_bytes_, bool returns_old_, const uint8_t* compare_ = nullptr)
      : op(op_), elem_bytes(elem_bytes_), returns_old(returns_old_), compare(compare_) {}

  tlm::tlm_extension_base* clone() const override { return new AtomicExtension(*this); }
  void copy_from(const tlm::tlm_extension_base& other) override {
    *this = static_cast<const AtomicExtension&>(other);
  }

  tl::AtomicOp op = tl::AtomicOp::kAdd;
  uint8_t elem_bytes = 8;          // 4 or 8 (others: TLM_COMMAND_ERROR_RESPONSE)
  bool returns_old = true;         // AtomicR (old values returned) or AtomicNR (status only)
  const uint8_t* compare = nullptr;  // kCas only: compare values, data-length bytes
};

}  // namespace upswitch::sc
