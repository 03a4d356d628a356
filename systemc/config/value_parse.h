// Strict text-to-value parsing for configuration values: the whole text must be consumed, and
// every failure is a ConfigError naming the key, the value and what is allowed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace upswitch::config {

int64_t parse_int(const std::string& key, const std::string& text, int64_t lo, int64_t hi);
double parse_float(const std::string& key, const std::string& text, double lo, double hi);
bool parse_bool(const std::string& key, const std::string& text);
// Returns the index of `text` in `choices`.
int parse_choice(const std::string& key, const std::string& text, const std::vector<std::string>& choices);
// Comma-separated integers, optionally in [ ]; "" or "[]" is the empty list.
std::vector<int> parse_int_list(const std::string& key, const std::string& text, int64_t lo, int64_t hi);

std::string join(const std::vector<std::string>& items, const char* sep);
// `s` without leading and trailing blanks (spaces, tabs).
std::string trim(const std::string& s);
// The comma-separated items of `text`, each trimmed; a trailing comma gives a last empty item.
std::vector<std::string> split_list(const std::string& text);
std::string format_float(double v);

}  // namespace upswitch::config
