#include "sc/accelerator_sockets.h"

#include <algorithm>
#include <string>

#include "sc/atomic_extension.h"
#include "tl/sparse_memory.h"

namespace upswitch::sc {
namespace {

constexpr const char* kMsgType = "/upswitch/accelerator_sockets";

bool all_enabled(const tlm::tlm_generic_payload& gp) {
  const unsigned char* be = gp.get_byte_enable_ptr();
  if (!be) return true;
  for (unsigned i = 0; i < gp.get_byte_enable_length(); ++i)
    if (be[i] != TLM_BYTE_ENABLED) return false;
  return true;
}

}  // namespace

tlm::tlm_response_status to_tlm_response(tl::Status s) {
  switch (s) {
    case tl::Status::kOkay: return tlm::TLM_OK_RESPONSE;
    case tl::Status::kDecodeError: return tlm::TLM_ADDRESS_ERROR_RESPONSE;
    case tl::Status::kUnsupported: return tlm::TLM_COMMAND_ERROR_RESPONSE;
    case tl::Status::kMisaligned: return tlm::TLM_GENERIC_ERROR_RESPONSE;
    case tl::Status::kBadLength: return tlm::TLM_BURST_ERROR_RESPONSE;
    case tl::Status::kBadByteEnable: return tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE;
    case tl::Status::kProtectionViolation: return tlm::TLM_ADDRESS_ERROR_RESPONSE;
    case tl::Status::kTargetAbort: return tlm::TLM_GENERIC_ERROR_RESPONSE;
    case tl::Status::kCompletionTimeout: return tlm::TLM_GENERIC_ERROR_RESPONSE;
  }
  return tlm::TLM_GENERIC_ERROR_RESPONSE;
}

AcceleratorSockets::AcceleratorSockets(const sc_core::sc_module_name& name, sc_core::sc_time period,
                                       TxnEndpointsModule& endpoints)
    : sc_core::sc_module(name), period_(period), eps_(endpoints) {
  const int n = endpoints.endpoints().accelerators();  // engine units have no socket
  sockets_.reserve(static_cast<size_t>(n));
  ports_.resize(static_cast<size_t>(n));
  for (int e = 0; e < n; ++e) {
    sockets_.push_back(std::make_unique<Socket>(("socket_" + std::to_string(e)).c_str()));
    Socket& s = *sockets_.back();
    s.register_b_transport(this, &AcceleratorSockets::b_transport, e);
    s.register_nb_transport_fw(this, &AcceleratorSockets::nb_transport_fw, e);
    s.register_get_direct_mem_ptr(this, &AcceleratorSockets::get_direct_mem_ptr, e);
    s.register_transport_dbg(this, &AcceleratorSockets::transport_dbg, e);
  }
  SC_HAS_PROCESS(AcceleratorSockets);
  SC_METHOD(respond);
  dont_initialize();
  sensitive << respond_event_;
}

// The first cycle boundary at or after now + delay, and after the current cycle.
uint64_t AcceleratorSockets::entry_cycle(const sc_core::sc_time& delay) const {
  const uint64_t at = (sc_core::sc_time_stamp() + delay).value();
  const uint64_t p = period_.value();
  return std::max((at + p - 1) / p, eps_.earliest_entry());
}

uint32_t AcceleratorSockets::acquire(int socket, tlm::tlm_generic_payload& gp, bool nonblocking) {
  uint32_t h;
  if (free_.empty()) {
    records_.emplace_back();
    h = static_cast<uint32_t>(records_.size() - 1);
  } else {
    h = free_.back();
    free_.pop_back();
  }
  Record& rec = records_[h];
  rec.gp = &gp;
  rec.socket = socket;
  rec.nonblocking = nonblocking;
  rec.done = false;
  rec.status = tl::Status::kOkay;
  rec.next = kNone;
  rec.bounce.clear();  // keeps its capacity
  ++in_flight_;
  return h;
}

void AcceleratorSockets::release(uint32_t h) {
  records_[h].gp = nullptr;
  free_.push_back(h);
  --in_flight_;
}

tlm::tlm_response_status AcceleratorSockets::translate(tlm::tlm_generic_payload& gp, Record& rec,
                                                       endpoint::TransferRequest& r) const {
  const unsigned len = gp.get_data_length();
  if (len == 0 || !gp.get_data_ptr()) return tlm::TLM_GENERIC_ERROR_RESPONSE;
  if (gp.get_streaming_width() < len) return tlm::TLM_BURST_ERROR_RESPONSE;
  unsigned char* data = gp.get_data_ptr();
  r = endpoint::TransferRequest{};
  r.addr = gp.get_address();
  r.bytes = len;
  if (gp.get_byte_enable_ptr()) {
    r.byte_enable = gp.get_byte_enable_ptr();
    r.byte_enable_len = gp.get_byte_enable_length() ? gp.get_byte_enable_length() : len;
  }
  if (const AtomicExtension* ext = gp.get_extension<AtomicExtension>()) {
    r.op = ext->returns_old ? tl::Opcode::kAtomicR : tl::Opcode::kAtomicNR;
    r.aop = ext->op;
    r.elem_bytes = ext->elem_bytes;
    r.data = data;
    r.result = ext->returns_old ? data : nullptr;  // each request's operands are copied at issue
    r.compare = ext->compare;
    if (ext->op == tl::AtomicOp::kCas && !ext->compare) return tlm::TLM_GENERIC_ERROR_RESPONSE;
  } else if (gp.is_read()) {
    r.op = tl::Opcode::kRead;
    r.result = data;
    if (r.byte_enable) {
      // The completer returns every byte; TLM leaves disabled bytes of the array alone, so the
      // data lands in the record's buffer and finish() copies the enabled bytes.
      rec.bounce.resize(len);
      r.result = rec.bounce.data();
      r.byte_enable = nullptr;
      r.byte_enable_len = 0;
    }
  } else {
    r.op = r.addr % 64 == 0 && len % 64 == 0 && all_enabled(gp) ? tl::Opcode::kWriteFull : tl::Opcode::kWrite;
    r.data = data;
  }
  return tlm::TLM_INCOMPLETE_RESPONSE;
}

void AcceleratorSockets::finish(uint32_t h) {
  Record& rec = records_[h];
  tlm::tlm_generic_payload& gp = *rec.gp;
  gp.set_response_status(to_tlm_response(rec.status));
  if (!rec.bounce.empty() && rec.status == tl::Status::kOkay) {
    const unsigned char* be = gp.get_byte_enable_ptr();
    const unsigned be_len = gp.get_byte_enable_length() ? gp.get_byte_enable_length() : gp.get_data_length();
    unsigned char* data = gp.get_data_ptr();
    for (size_t b = 0; b < rec.bounce.size(); ++b)
      if (be[b % be_len] == TLM_BYTE_ENABLED) data[b] = rec.bounce[b];
  }
}

void AcceleratorSockets::b_transport(int id, tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  if (gp.is_write() || gp.is_read() || gp.get_extension<AtomicExtension>()) {
    const uint32_t h = acquire(id, gp, false);
    Record& rec = records_[h];  // a deque element: stays put while the pool grows
    endpoint::TransferRequest r;
    const tlm::tlm_response_status reject = translate(gp, rec, r);
    if (reject != tlm::TLM_INCOMPLETE_RESPONSE) {
      gp.set_response_status(reject);
      release(h);
      return;
    }
    r.client = this;
    r.cookie = h;
    eps_.submit(id, r, entry_cycle(delay));
    while (!rec.done) sc_core::wait(rec.done_event);
    finish(h);
    release(h);
    delay = sc_core::SC_ZERO_TIME;  // the completion time is now
    return;
  }
  // TLM_IGNORE_COMMAND: nothing to carry; say whether the address would have been accepted.
  const bool mapped = eps_.endpoints().address_map().owner(gp.get_address()) >= 0;
  gp.set_response_status(mapped ? tlm::TLM_OK_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE);
}

tlm::tlm_sync_enum AcceleratorSockets::nb_transport_fw(int id, tlm::tlm_generic_payload& gp, tlm::tlm_phase& phase,
                                                       sc_core::sc_time& delay) {
  if (phase == tlm::BEGIN_REQ) {
    if (!gp.is_write() && !gp.is_read() && !gp.get_extension<AtomicExtension>()) {
      const bool mapped = eps_.endpoints().address_map().owner(gp.get_address()) >= 0;
      gp.set_response_status(mapped ? tlm::TLM_OK_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE);
      return tlm::TLM_COMPLETED;
    }
    const uint32_t h = acquire(id, gp, true);
    endpoint::TransferRequest r;
    const tlm::tlm_response_status reject = translate(gp, records_[h], r);
    if (reject != tlm::TLM_INCOMPLETE_RESPONSE) {
      gp.set_response_status(reject);
      release(h);
      return tlm::TLM_COMPLETED;
    }
    if (gp.has_mm()) gp.acquire();
    r.client = this;
    r.cookie = h;
    eps_.submit(id, r, entry_cycle(delay));
    phase = tlm::END_REQ;  // accepted at the annotated time: delay stays as given
    return tlm::TLM_UPDATED;
  }
  if (phase == tlm::END_RESP) {
    PortState& port = ports_[static_cast<size_t>(id)];
    if (port.responding == kNone || records_[port.responding].gp != &gp) {
      SC_REPORT_ERROR(kMsgType, (std::string(name()) + ": END_RESP for a transaction with no response pending on socket " +
                                 std::to_string(id)).c_str());
      return tlm::TLM_COMPLETED;
    }
    const uint32_t h = port.responding;
    port.responding = kNone;
    release(h);
    if (gp.has_mm()) gp.release();
    port.free_at = sc_core::sc_time_stamp() + delay;
    respond_event_.notify(delay);  // the next response on this socket, if any
    return tlm::TLM_COMPLETED;
  }
  SC_REPORT_ERROR(kMsgType, (std::string(name()) + ": unexpected phase " + phase.get_name() +
                             " on nb_transport_fw of socket " + std::to_string(id))
                                .c_str());
  return tlm::TLM_COMPLETED;
}

bool AcceleratorSockets::get_direct_mem_ptr(int, tlm::tlm_generic_payload&, tlm::tlm_dmi& dmi) {
  // The memory is remote, across the switch: no DMI, anywhere (so the initiator need not ask again).
  dmi.allow_none();
  dmi.set_start_address(0);
  dmi.set_end_address(~static_cast<sc_dt::uint64>(0));
  return false;
}

unsigned int AcceleratorSockets::transport_dbg(int, tlm::tlm_generic_payload& gp) {
  endpoint::AcceleratorEndpoints& eps = eps_.endpoints();
  const tl::AddressMap& map = eps.address_map();
  const uint64_t addr = gp.get_address();
  const int owner = map.owner(addr);
  unsigned char* data = gp.get_data_ptr();
  if (owner < 0 || gp.is_read() == gp.is_write() || !data) {
    gp.set_response_status(owner < 0 ? tlm::TLM_ADDRESS_ERROR_RESPONSE : tlm::TLM_COMMAND_ERROR_RESPONSE);
    return 0;
  }
  // Only the backed part of the owner's window: [offset, memory).
  const uint64_t off = map.offset(addr);
  const uint64_t n = off < map.memory ? std::min<uint64_t>(gp.get_data_length(), map.memory - off) : 0;
  tl::SparseMemory& mem = eps.memory(owner);
  if (gp.is_read())
    mem.read(off, data, n);
  else
    mem.write(off, data, n);
  gp.set_response_status(n ? tlm::TLM_OK_RESPONSE : tlm::TLM_ADDRESS_ERROR_RESPONSE);
  return static_cast<unsigned int>(n);
}

// Called by the endpoints inside their tick, in the completion cycle.
void AcceleratorSockets::transfer_done(uint64_t cookie, tl::Status status, uint64_t) {
  Record& rec = records_[static_cast<size_t>(cookie)];
  rec.status = status;
  rec.done = true;
  if (!rec.nonblocking) {
    rec.done_event.notify();  // the thread in b_transport resumes in this evaluation phase
    return;
  }
  // Non-blocking: BEGIN_RESP goes out from respond(), outside the endpoints' tick, in this cycle.
  PortState& port = ports_[static_cast<size_t>(rec.socket)];
  const auto h = static_cast<uint32_t>(cookie);
  if (port.tail == kNone)
    port.head = h;
  else
    records_[port.tail].next = h;
  port.tail = h;
  respond_event_.notify(sc_core::SC_ZERO_TIME);
}

// Sends BEGIN_RESP for completed non-blocking transactions, one at a time per socket.
void AcceleratorSockets::respond() {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  sc_core::sc_time retry = sc_core::SC_ZERO_TIME;
  for (size_t s = 0; s < ports_.size(); ++s) {
    PortState& port = ports_[s];
    while (port.head != kNone && port.responding == kNone) {
      if (port.free_at > now) {  // an END_RESP's delay has not elapsed yet
        if (retry == sc_core::SC_ZERO_TIME || port.free_at - now < retry) retry = port.free_at - now;
        break;
      }
      const uint32_t h = port.head;
      Record& rec = records_[h];
      port.head = rec.next;
      if (port.head == kNone) port.tail = kNone;
      finish(h);
      tlm::tlm_generic_payload& gp = *rec.gp;
      tlm::tlm_phase phase = tlm::BEGIN_RESP;
      sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
      port.responding = h;
      const tlm::tlm_sync_enum sync = (*sockets_[s])->nb_transport_bw(gp, phase, delay);
      if (port.responding != h) continue;  // END_RESP already came in on the forward path
      if (sync == tlm::TLM_COMPLETED || (sync == tlm::TLM_UPDATED && phase == tlm::END_RESP)) {
        port.responding = kNone;
        release(h);
        if (gp.has_mm()) gp.release();
        port.free_at = now + delay;
      } else if (sync != tlm::TLM_ACCEPTED) {
        SC_REPORT_ERROR(kMsgType, (std::string(name()) + ": BEGIN_RESP answered with TLM_UPDATED and phase " +
                                   phase.get_name() + " on socket " + std::to_string(s))
                                      .c_str());
      }
    }
  }
  if (retry != sc_core::SC_ZERO_TIME) respond_event_.notify(retry);
}

}  // namespace upswitch::sc
