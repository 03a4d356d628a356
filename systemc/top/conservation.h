// Invariant checks over a whole fabric at a cycle boundary: no flit lost or duplicated, and
// on every link sender credits + credits in flight + flits in flight + receiver occupancy ==
// receiver buffer size. At the end of a flushed run every credit must also be home.
#pragma once

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "network/network.h"

namespace upswitch::top {

class Fabric;

class ConservationError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

// Every channel of a network, packets and transactions alike: the sender's credits (a switch
// output's, or `source_credits(endpoint port)`), the wire's credits and flits, the sender's output
// pipeline, and what the receiver holds (a switch input's occupancy, or `endpoint_held(endpoint
// port)`) add up to `capacity(channel)`. Appends one line per violated channel (`output_what`
// names the terms of a switch-to-endpoint channel) and returns the flits on the wires.
using EndpointPortCount = std::function<uint64_t(int endpoint_port)>;
uint64_t check_channels(const network::Network& net, const EndpointPortCount& source_credits,
                        const EndpointPortCount& endpoint_held,
                        const std::function<uint64_t(const network::Network::Channel&)>& capacity,
                        const char* output_what, std::vector<std::string>& bad);

// Every violated invariant, one line each; empty when all hold.
std::vector<std::string> check_conservation(const Fabric& f);
// Additionally requires an empty fabric with every credit returned (after a flush).
std::vector<std::string> check_drained(const Fabric& f);
// Throws ConservationError with the first violations.
void require_conservation(const Fabric& f);

}  // namespace upswitch::top
