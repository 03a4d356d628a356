// The SystemC transaction tests' main: one simulation per process (see txn_sc_support.h).
#include <gtest/gtest.h>

#include <systemc>

int sc_main(int argc, char* argv[]) {
  ::testing::InitGoogleTest(&argc, argv);
  sc_core::sc_report_handler::set_actions("/OSCI/SystemC", sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  return RUN_ALL_TESTS();
}
