// The watchdogs' verdict: what() is one line, state() the blocking state behind it.
#pragma once

#include <stdexcept>
#include <string>

namespace upswitch::core {

class DeadlockError : public std::runtime_error {
 public:
  DeadlockError(const std::string& what, std::string state)
      : std::runtime_error(what), state_(std::move(state)) {}
  const std::string& state() const { return state_; }

 private:
  std::string state_;
};

}  // namespace upswitch::core
