// Invariant checks over a whole fabric at a cycle boundary: no flit lost or duplicated, and
// on every link sender credits + credits in flight + flits in flight + receiver occupancy ==
// receiver buffer size. At the end of a flushed run every credit must also be home.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace upswitch::top {

class Fabric;

class ConservationError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// Every violated invariant, one line each; empty when all hold.
std::vector<std::string> check_conservation(const Fabric& f);
// Additionally requires an empty fabric with every credit returned (after a flush).
std::vector<std::string> check_drained(const Fabric& f);
// Throws ConservationError with the first violations.
void require_conservation(const Fabric& f);

}  // namespace upswitch::top
