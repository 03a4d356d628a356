#include "config/value_parse.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "config/config.h"

namespace upswitch::config {
namespace {

[[noreturn]] void fail(const std::string& key, const std::string& text, const std::string& allowed) {
  throw ConfigError(key + " = '" + text + "': expected " + allowed);
}

}  // namespace

std::string trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  const size_t b = s.find_last_not_of(" \t");
  return s.substr(a, b - a + 1);
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) items.push_back(trim(item));
  if (!text.empty() && text.back() == ',') items.push_back("");
  return items;
}

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

std::string format_float(double v) {
  std::ostringstream s;
  s.precision(10);
  s << v;
  return s.str();
}

int64_t parse_int(const std::string& key, const std::string& text, int64_t lo, int64_t hi) {
  const std::string allowed = "an integer from " + std::to_string(lo) + " to " + std::to_string(hi);
  const std::string t = trim(text);
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
  if (t.empty() || ec != std::errc() || end != t.data() + t.size() || v < lo || v > hi)
    fail(key, text, allowed);
  return v;
}

double parse_float(const std::string& key, const std::string& text, double lo, double hi) {
  const std::string allowed = "a number from " + format_float(lo) + " to " + format_float(hi);
  const std::string t = trim(text);
  if (t.empty()) fail(key, text, allowed);
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(t.c_str(), &end);
  if (errno || end != t.c_str() + t.size() || !std::isfinite(v) || v < lo || v > hi)
    fail(key, text, allowed);
  return v;
}

bool parse_bool(const std::string& key, const std::string& text) {
  const std::string t = trim(text);
  if (t == "true") return true;
  if (t == "false") return false;
  fail(key, text, "true or false");
}

int parse_choice(const std::string& key, const std::string& text, const std::vector<std::string>& choices) {
  const std::string t = trim(text);
  for (size_t i = 0; i < choices.size(); ++i)
    if (t == choices[i]) return static_cast<int>(i);
  fail(key, text, "one of " + join(choices, ", "));
}

std::vector<int> parse_int_list(const std::string& key, const std::string& text, int64_t lo, int64_t hi) {
  std::string t = trim(text);
  if (t.size() >= 2 && t.front() == '[' && t.back() == ']') t = trim(t.substr(1, t.size() - 2));
  std::vector<int> out;
  if (t.empty()) return out;
  std::stringstream ss(t);
  std::string item;
  while (std::getline(ss, item, ',')) {
    const std::string it = trim(item);
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(it.data(), it.data() + it.size(), v);
    if (it.empty() || ec != std::errc() || end != it.data() + it.size() || v < lo || v > hi)
      fail(key, text, "a comma-separated list of integers from " + std::to_string(lo) + " to " +
                          std::to_string(hi));
    out.push_back(static_cast<int>(v));
  }
  return out;
}

}  // namespace upswitch::config
