#include "app/numeric_flags.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "app/cli_lists.h"
#include "config/config.h"

namespace upswitch::app {
namespace {

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// The value as the error line shows it: bare when it looks like a number, else quoted.
std::string shown(const std::string& text) {
  bool bare = !text.empty();
  for (char c : text)
    if (!is_digit(c) && c != '-' && c != '+' && c != '.' && c != ',' && c != 'e' && c != 'E') bare = false;
  return bare ? text : "'" + text + "'";
}

std::string real_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// The validator: refuses with the one error line (see numeric_flags.h), or accepts (possibly
// rewriting the text) and returns "" as CLI11 expects.
template <class Check>
CLI::Option* attach(CLI::Option* opt, const std::string& type, const std::string& expected, Check check) {
  const std::string name = opt->get_name();
  opt->type_name(type);
  opt->transform(CLI::Validator(  // transform: a byte size reaches the option as digits
      [name, expected, check](std::string& text) -> std::string {
        if (!check(text)) throw config::ConfigError(name + " " + shown(text) + ": expected " + expected);
        return std::string();
      },
      "", "range"));
  return opt;
}

}  // namespace

std::optional<int64_t> parse_whole_number(const std::string& text, int64_t lo, int64_t hi) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
  if (i == text.size()) return std::nullopt;
  // Magnitudes past 2^63 are out of every range: stop counting there, keep checking the syntax.
  constexpr uint64_t kCap = uint64_t{1} << 63;
  uint64_t mag = 0;
  for (; i < text.size(); ++i) {
    if (!is_digit(text[i])) return std::nullopt;
    const auto d = static_cast<uint64_t>(text[i] - '0');
    if (mag <= kCap) mag = mag > (kCap - d) / 10 ? kCap + 1 : mag * 10 + d;
  }
  if (mag > kCap || (!negative && mag == kCap)) return std::nullopt;
  const int64_t v = negative ? (mag == kCap ? INT64_MIN : -static_cast<int64_t>(mag)) : static_cast<int64_t>(mag);
  if (v < lo || v > hi) return std::nullopt;
  return v;
}

std::optional<double> parse_real_number(const std::string& text, double lo, double hi, bool lo_open) {
  if (text.empty()) return std::nullopt;
  // Decimal notation only: digits, sign, point, exponent (strtod would take nan, inf, 0x1p3, spaces).
  for (char c : text)
    if (!is_digit(c) && c != '-' && c != '+' && c != '.' && c != 'e' && c != 'E') return std::nullopt;
  // Overflow is out of every range (inf); underflow is a number next to 0, as it reads.
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
  if (v > hi || v < lo || (lo_open && v == lo)) return std::nullopt;
  return v;
}

std::optional<uint64_t> parse_byte_size(const std::string& text, uint64_t lo, uint64_t hi) {
  size_t digits = 0;
  while (digits < text.size() && is_digit(text[digits])) ++digits;
  if (digits == 0) return std::nullopt;
  int shift = 0;
  const std::string suffix = text.substr(digits);
  if (suffix == "K" || suffix == "k") shift = 10;
  else if (suffix == "M" || suffix == "m") shift = 20;
  else if (suffix == "G" || suffix == "g") shift = 30;
  else if (suffix == "T" || suffix == "t") shift = 40;
  else if (!suffix.empty()) return std::nullopt;
  const std::optional<int64_t> n = parse_whole_number(text.substr(0, digits), 0, INT64_MAX);
  if (!n) return std::nullopt;
  const auto v = static_cast<uint64_t>(*n);
  if (v > (hi >> shift)) return std::nullopt;
  const uint64_t bytes = v << shift;
  if (bytes < lo || bytes > hi) return std::nullopt;
  return bytes;
}

std::string size_text(uint64_t bytes) {
  static const char* units[] = {"", "K", "M", "G", "T"};
  int u = 0;
  while (bytes != 0 && bytes % 1024 == 0 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return std::to_string(bytes) + units[u];
}

CLI::Option* whole_number(CLI::Option* opt, int64_t lo, int64_t hi) {
  const std::string range = std::to_string(lo) + " - " + std::to_string(hi);
  return attach(opt, "INT in [" + range + "]",
                "a whole number from " + std::to_string(lo) + " to " + std::to_string(hi),
                [lo, hi](std::string& text) { return parse_whole_number(text, lo, hi).has_value(); });
}

CLI::Option* real_number(CLI::Option* opt, double lo, double hi, bool lo_open) {
  const std::string type = std::string("FLOAT in ") + (lo_open ? "(" : "[") + real_text(lo) + " - " + real_text(hi) + "]";
  const std::string expected = lo_open ? "a number above " + real_text(lo) + " and at most " + real_text(hi)
                                       : "a number from " + real_text(lo) + " to " + real_text(hi);
  return attach(opt, type, expected, [lo, hi, lo_open](std::string& text) {
    return parse_real_number(text, lo, hi, lo_open).has_value();
  });
}

CLI::Option* byte_size(CLI::Option* opt, uint64_t lo, uint64_t hi, const char* auto_word) {
  const std::string range = "SIZE in [" + size_text(lo) + " - " + size_text(hi) + "]";
  const std::string word = auto_word ? auto_word : "";
  std::string expected = "a byte count from " + size_text(lo) + " to " + size_text(hi) +
                         " (digits with an optional K, M, G or T suffix, powers of 1024)";
  if (!word.empty()) expected = word + " or " + expected;
  return attach(opt, word.empty() ? range : word + "|" + range, expected, [lo, hi, word](std::string& text) {
    if (!word.empty() && text == word) return true;
    const std::optional<uint64_t> v = parse_byte_size(text, lo, hi);
    if (v) text = std::to_string(*v);
    return v.has_value();
  });
}

CLI::Option* whole_number_list(CLI::Option* opt, int64_t lo, int64_t hi) {
  const std::string range = std::to_string(lo) + " - " + std::to_string(hi);
  return attach(opt, "INT,... in [" + range + "]",
                "a comma-separated list of whole numbers from " + std::to_string(lo) + " to " + std::to_string(hi),
                [lo, hi](std::string& text) {
                  for (const std::string& item : split_list(text))
                    if (!parse_whole_number(item, lo, hi)) return false;
                  return true;
                });
}

CLI::Option* real_number_list(CLI::Option* opt, double lo, double hi) {
  return attach(opt, "FLOAT,... in [" + real_text(lo) + " - " + real_text(hi) + "]",
                "a comma-separated list of numbers from " + real_text(lo) + " to " + real_text(hi),
                [lo, hi](std::string& text) {
                  for (const std::string& item : split_list(text))
                    if (!parse_real_number(item, lo, hi, false)) return false;
                  return true;
                });
}

}  // namespace upswitch::app
