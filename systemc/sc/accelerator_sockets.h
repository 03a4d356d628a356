// TLM-2.0 target sockets on the accelerator endpoints: one module, one socket per endpoint, so a
// user's SystemC model (a GPU, a DMA engine, a traffic replayer) bound to socket e issues memory
// transactions as accelerator e. The payload's address is global: endpoint k owns the window
// [accel.window_base + k * accel.window_bytes, + accel.window_bytes) (tl/address_map.h); the
// transfer crosses the switch to the owner's memory and back, with the model's cycle timing.
//
//   TLM_READ_COMMAND              -> tl::Opcode::kRead
//   TLM_WRITE_COMMAND             -> kWriteFull when every byte is enabled and the payload is 64 B
//                                    aligned and a multiple of 64 B long, else kWrite
//   any command + AtomicExtension -> kAtomicR (returns_old) or kAtomicNR (sc/atomic_extension.h)
//
// Blocking transport (loosely timed): the transfer enters the initiator at the first cycle
// boundary at or after sc_time_stamp() + delay (and after the current cycle, whose tick may have
// run already), so temporal decoupling is honoured by submitting at the annotated time; the
// calling thread waits until the transfer completes, and delay comes back as zero because the
// completion time is the thread's current time.
//
// Non-blocking transport (approximately timed, base protocol, 4 phases): BEGIN_REQ is accepted
// at once (TLM_UPDATED, END_REQ; the initiator's transfer queue is unbounded, the outstanding-tag
// limit applies inside the model), the transfer enters at the annotated time as above, BEGIN_RESP
// goes out on nb_transport_bw in the completion cycle (one response at a time per socket, as the
// response exclusion rule requires), and END_RESP or a TLM_COMPLETED / TLM_UPDATED(END_RESP)
// answer ends the transaction. Payloads with a memory manager are acquired while held.
//
// Response status: okay -> TLM_OK_RESPONSE, decode_error -> TLM_ADDRESS_ERROR_RESPONSE,
// unsupported -> TLM_COMMAND_ERROR_RESPONSE, misaligned -> TLM_GENERIC_ERROR_RESPONSE,
// bad_length -> TLM_BURST_ERROR_RESPONSE, bad_byte_enable -> TLM_BYTE_ENABLE_ERROR_RESPONSE,
// protection_violation -> TLM_ADDRESS_ERROR_RESPONSE, target_abort and completion_timeout ->
// TLM_GENERIC_ERROR_RESPONSE.
// Payloads the switch cannot carry at all are answered at once, with no time passing: streaming
// width below the data length (TLM_BURST_ERROR_RESPONSE), no data array or zero length
// (TLM_GENERIC_ERROR_RESPONSE). TLM_IGNORE_COMMAND without the extension is answered at once too:
// OK inside a window, TLM_ADDRESS_ERROR_RESPONSE outside.
//
// DMI is refused (get_direct_mem_ptr returns false for the whole address space): the memory is
// remote, across the switch. transport_dbg reads and writes the owner's memory directly, without
// timing (test set-up, checking results); byte enables are ignored there.
//
// Bookkeeping uses a pool of records (each with its sc_event) reused across transactions, so a
// transaction allocates nothing once the pool has grown to the number in flight.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "endpoint/transfer.h"
#include "sc/txn_endpoints_module.h"

namespace upswitch::sc {

// The TLM response status for a transaction-layer completion status.
tlm::tlm_response_status to_tlm_response(tl::Status s);

class AcceleratorSockets : public sc_core::sc_module, public endpoint::TransferClient {
 public:
  // Bus width 32 (the TLM default), so a default tlm_utils::simple_initiator_socket binds as is;
  // the width carries no timing here. Unbound sockets are allowed.
  using Socket = tlm_utils::simple_target_socket_tagged_optional<AcceleratorSockets>;

  AcceleratorSockets(const sc_core::sc_module_name& name, sc_core::sc_time period, TxnEndpointsModule& endpoints);

  int size() const { return static_cast<int>(sockets_.size()); }
  Socket& socket(int endpoint) { return *sockets_[static_cast<size_t>(endpoint)]; }
  // Transactions accepted and not yet ended.
  uint64_t in_flight() const { return in_flight_; }

  void transfer_done(uint64_t cookie, tl::Status status, uint64_t cycle) override;

 private:
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Record {
    tlm::tlm_generic_payload* gp = nullptr;
    int socket = 0;
    bool nonblocking = false, done = false;
    tl::Status status = tl::Status::kOkay;
    uint32_t next = kNone;        // the socket's response queue (non-blocking)
    std::vector<uint8_t> bounce;  // reads with byte enables: data lands here first
    sc_core::sc_event done_event;  // blocking: the waiting thread's wake-up
  };
  struct PortState {
    uint32_t head = kNone, tail = kNone;  // completed, BEGIN_RESP not sent yet
    uint32_t responding = kNone;          // BEGIN_RESP sent, END_RESP awaited
    sc_core::sc_time free_at = sc_core::SC_ZERO_TIME;  // an END_RESP with a delay takes effect then
  };

  void b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  tlm::tlm_sync_enum nb_transport_fw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                     sc_core::sc_time& delay);
  bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& gp, tlm::tlm_dmi& dmi);
  unsigned int transport_dbg(int id, tlm::tlm_generic_payload& gp);
  void respond();

  // Fills `r` from the payload; returns TLM_INCOMPLETE_RESPONSE when it can be submitted, else the
  // status to answer with at once.
  tlm::tlm_response_status translate(tlm::tlm_generic_payload& gp, Record& rec, endpoint::TransferRequest& r) const;
  uint64_t entry_cycle(const sc_core::sc_time& delay) const;
  uint32_t acquire(int socket, tlm::tlm_generic_payload& gp, bool nonblocking);
  void finish(uint32_t h);  // sets the response status, copies bounced data
  void release(uint32_t h);

  sc_core::sc_time period_;
  TxnEndpointsModule& eps_;
  std::vector<std::unique_ptr<Socket>> sockets_;
  std::vector<PortState> ports_;
  std::deque<Record> records_;  // a deque: growing never moves a record (or its event)
  std::vector<uint32_t> free_;
  sc_core::sc_event respond_event_;
  uint64_t in_flight_ = 0;
};

}  // namespace upswitch::sc
