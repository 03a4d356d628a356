// Comma-separated lists on the command line (--ranks 2,8,72; --coll all_reduce,all_gather).
#pragma once

#include <string>
#include <vector>

namespace upswitch::app {

inline std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    out.push_back(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace upswitch::app
