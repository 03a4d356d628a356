// Helpers shared by the SystemC transaction tests (tests/sc/txn_*_test.cpp): configurations, TLM
// payload set-up, and the completers' memory read and written directly. The kernel can be started
// once per process, so ctest runs each TEST in its own process (gtest_discover_tests) and each
// TEST runs one simulation; kernel_unused() says so when a TEST is not the first.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "sc/atomic_extension.h"
#include "sc/txn_sc_run.h"
#include "sc/txn_system.h"
#include "test_support.h"
#include "txn_support.h"

namespace upswitch::testing {

using sc::AtomicExtension;
using sc_core::sc_time;
using sc_core::sc_time_stamp;
using sc_core::SC_ZERO_TIME;
using tl::AtomicOp;

// The `tiny` preset (8 ports, 1.6 GHz, short pipeline and links) carrying transactions.
inline config::Config txn_config(std::vector<std::pair<std::string, std::string>> sets) {
  sets.insert(sets.begin(), {"traffic.kind", "transactions"});
  return make_config("tiny", sets);
}

// Each TEST must be the first simulation of its process.
inline ::testing::AssertionResult kernel_unused() {
  if (sc_core::sc_get_status() == sc_core::SC_ELABORATION) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "the SystemC kernel already ran in this process: run one TEST per "
                                          "process (--gtest_filter=...), as ctest does";
}

inline void set_payload(tlm::tlm_generic_payload& gp, tlm::tlm_command cmd, uint64_t addr, void* data, unsigned len) {
  gp.set_command(cmd);
  gp.set_address(addr);
  gp.set_data_ptr(static_cast<unsigned char*>(data));
  gp.set_data_length(len);
  gp.set_streaming_width(len);
  gp.set_byte_enable_ptr(nullptr);
  gp.set_byte_enable_length(0);
  gp.set_dmi_allowed(false);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
}

// The completers' memory, read and written directly (not through any socket): set-up and checks.
inline std::vector<uint8_t> memory_at(top::TxnFabric& f, uint64_t addr, size_t n) {
  const tl::AddressMap& map = f.endpoints().address_map();
  const tl::SparseMemory& mem = f.endpoints().memory(map.owner(addr));
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = *mem.peek(map.offset(addr) + i);
  return v;
}
inline void store_at(top::TxnFabric& f, uint64_t addr, const void* data, size_t n) {
  const tl::AddressMap& map = f.endpoints().address_map();
  tl::SparseMemory& mem = f.endpoints().memory(map.owner(addr));
  for (size_t i = 0; i < n; ++i) *mem.bytes(map.offset(addr) + i) = static_cast<const uint8_t*>(data)[i];
}
template <class T>
T load_at(top::TxnFabric& f, uint64_t addr) {
  T v;
  std::memcpy(&v, memory_at(f, addr, sizeof v).data(), sizeof v);
  return v;
}
template <class T, size_t N>
std::vector<uint8_t> bytes_of(const std::array<T, N>& a) {
  std::vector<uint8_t> v(sizeof a);
  std::memcpy(v.data(), a.data(), sizeof a);
  return v;
}

}  // namespace upswitch::testing
