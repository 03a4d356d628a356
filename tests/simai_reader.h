// SimAI's two bus-bandwidth inputs read the way SimAI reads them, written for the tests from the
// rules its documentation and readers state (doc/workloads.md, "SimAI"), not from upswitch's writer:
//   busbw.yaml: the first line is a name and skipped; blank lines and lines starting with '#'
//     (after leading spaces) are skipped; a line ending in ':' opens a section (TP, DP, EP, PP);
//     otherwise "key: value", the key cut at its first ',' and the value's first word, "null"
//     meaning unset. Values in SimAI's GB/s (2^30 B/s).
//   *_ratio.csv: the first line is a header and skipped; each row is a size and one value per
//     scale column, an empty cell reading as 1.
#pragma once

#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace upswitch_simai {

// section -> key -> value; unset (null) keys are absent.
using Busbw = std::map<std::string, std::map<std::string, double>>;

inline Busbw read_busbw_yaml(const std::string& text) {
  Busbw out;
  std::istringstream in(text);
  std::string line, section;
  std::getline(in, line);  // the name
  while (std::getline(in, line)) {
    const size_t a = line.find_first_not_of(' ');
    if (a == std::string::npos) continue;
    line = line.substr(a, line.find_last_not_of(' ') - a + 1);
    if (line[0] == '#') continue;
    if (line.back() == ':') {
      section = line.substr(0, line.size() - 1);
      continue;
    }
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string key = line.substr(0, colon);
    key = key.substr(0, key.find(','));
    while (!key.empty() && key.back() == ' ') key.pop_back();
    std::istringstream v(line.substr(colon + 1));
    std::string word;
    v >> word;
    if (!word.empty() && word != "null") out[section][key] = std::stod(word);
  }
  return out;
}

struct RatioRow {
  double size = 0;
  std::vector<double> cells;  // column 1 onwards; empty cells read as 1
};

inline std::vector<RatioRow> read_ratio_csv(const std::string& text) {
  std::vector<RatioRow> rows;
  std::istringstream in(text);
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::istringstream cells(line);
    std::string cell;
    RatioRow r;
    bool first = true;
    while (std::getline(cells, cell, ',')) {
      const double v = cell.empty() ? 1.0 : std::stod(cell);
      if (first) r.size = v;
      else r.cells.push_back(v);
      first = false;
    }
    rows.push_back(r);
  }
  return rows;
}

}  // namespace upswitch_simai
