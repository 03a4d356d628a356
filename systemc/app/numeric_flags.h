// Ranges for the numeric command-line flags (issue 58 item 2, "Numbers nobody checked"). Each
// helper attaches a CLI11 validator to an option and shows the range in --help as the option's
// type, e.g. `--packets INT in [1 - 10000000]`. A value outside it (negative, zero where not
// allowed, too large, not a number, a fraction for a whole number, past the type) is refused
// while the command line is parsed, before anything runs or is written: the validator throws
// config::ConfigError("--FLAG VALUE: expected ..."), which main() prints as its one error line
// with exit status 2. The parsers are plain functions so that tests can call them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace upswitch::app {

// The ranges the flags share. Byte counts: at most 1T = 2^40 B (transfers: 1G, the txn.sizes
// limit); cycles: at most 2^40, as sim.warmup_cycles and sim.measure_cycles; seeds: sim.seed's
// 0 .. 2^62; threads and jobs: 1 .. 1024; ranks and rank indices: topology.endpoints' 4096.
constexpr uint64_t kMaxFlagBytes = uint64_t{1} << 40;
constexpr uint64_t kMaxTransferFlagBytes = uint64_t{1} << 30;
constexpr int64_t kMaxFlagCycles = int64_t{1} << 40;
constexpr int64_t kMaxSeed = int64_t{1} << 62;
constexpr int64_t kMaxThreads = 1024;
constexpr int64_t kMaxRanks = 4096;

// A whole number in [lo, hi] (optional sign, decimal digits, nothing else). Help: INT in [lo - hi].
CLI::Option* whole_number(CLI::Option* opt, int64_t lo, int64_t hi);

// A real number in [lo, hi], or (lo, hi] when `lo_open` (finite; no nan, inf or hex). Help:
// FLOAT in [lo - hi] or FLOAT in (lo - hi].
CLI::Option* real_number(CLI::Option* opt, double lo, double hi, bool lo_open = false);

// A byte count: digits with an optional K, M, G or T suffix (powers of 1024), in [lo, hi]; the
// value reaches the option as plain digits. `auto_word` also accepts that word, unchanged.
// Help: SIZE in [lo - hi] (with K/M/G/T where exact), or auto|SIZE in [...].
CLI::Option* byte_size(CLI::Option* opt, uint64_t lo, uint64_t hi, const char* auto_word = nullptr);

// A comma-separated list of whole numbers, each in [lo, hi]. Help: INT,... in [lo - hi].
CLI::Option* whole_number_list(CLI::Option* opt, int64_t lo, int64_t hi);

// A comma-separated list of real numbers, each in [lo, hi]. Help: FLOAT,... in [lo - hi].
CLI::Option* real_number_list(CLI::Option* opt, double lo, double hi);

// The parsers behind them: the value, or nothing when `text` is not of that form or out of range.
std::optional<int64_t> parse_whole_number(const std::string& text, int64_t lo, int64_t hi);
std::optional<double> parse_real_number(const std::string& text, double lo, double hi, bool lo_open);
std::optional<uint64_t> parse_byte_size(const std::string& text, uint64_t lo, uint64_t hi);

// 1048576 -> "1M", 256 -> "256" (the largest exact K/M/G/T unit).
std::string size_text(uint64_t bytes);

}  // namespace upswitch::app
