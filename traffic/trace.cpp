#include "traffic/trace.h"

#include <algorithm>
#include <climits>
#include <cmath>
#include <iterator>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "config/config.h"
#include "config/input_file.h"

namespace upswitch::traffic {
namespace {

using json = nlohmann::json;

const char* const kCommon[] = {"id", "op", "at_us", "after", "delay_us"};
const char* const kCollFields[] = {"algo", "protocol", "channels", "ranks", "bytes", "type", "redop", "root", "pair_bytes"};
const char* const kTxnFields[] = {"src", "dst", "bytes", "offset", "atomic"};
const char* const kTxnOps[] = {"read", "write", "writefull", "atomic_r", "atomic_nr"};
const char* const kComputeFields[] = {"rank", "duration_us"};

bool known_anywhere(const std::string& k) {
  const auto in = [&k](const auto& list) { return std::find(std::begin(list), std::end(list), k) != std::end(list); };
  return in(kCommon) || in(kCollFields) || in(kTxnFields) || in(kComputeFields);
}

class LineParser {
 public:
  LineParser(const std::string& name, const std::vector<std::string>& lines, int line, const json& j)
      : name_(name), lines_(lines), line_(line), j_(j) {}

  [[noreturn]] void bad(const std::string& what) const {
    throw config::ConfigError("trace '" + name_ + "' line " + std::to_string(line_) + ": " + what);
  }
  [[noreturn]] void bad_field(const char* key, const json& v, const std::string& allowed) const {
    std::string text = v.dump();
    if (text.size() > 48) text = text.substr(0, 45) + "...";
    bad(std::string("field '") + key + "' = " + text + ": " + allowed);
  }

  const json* find(const char* key) const {
    const auto it = j_.find(key);
    return it == j_.end() ? nullptr : &*it;
  }
  const json& require(const char* key, const char* what) const {
    const json* v = find(key);
    if (!v) bad(std::string("missing field '") + key + "' (" + what + ")");
    return *v;
  }

  std::string text(const char* key, const std::string& fallback, const std::string& allowed) const {
    const json* v = find(key);
    if (!v) return fallback;
    if (!v->is_string()) bad_field(key, *v, allowed);
    return v->get<std::string>();
  }
  double us(const char* key) const {
    const json* v = find(key);
    if (!v) return 0;
    const char* allowed = "expected a number of microseconds, 0 .. 1e9";
    if (!v->is_number()) bad_field(key, *v, allowed);
    const double x = v->get<double>();
    if (!std::isfinite(x) || x < 0 || x > kTraceMaxUs) bad_field(key, *v, allowed);
    return x;
  }
  // A non-negative integer up to `max`.
  uint64_t count(const char* key, const json& v, uint64_t max, const std::string& allowed) const {
    if (!v.is_number_unsigned() || v.get<uint64_t>() > max) bad_field(key, v, allowed);
    return v.get<uint64_t>();
  }
  int accelerator(const char* key, const json& v) const {
    return static_cast<int>(count(key, v, INT_MAX, "expected an accelerator id (an integer >= 0)"));
  }

  int line() const { return line_; }
  const std::string& name() const { return name_; }
  const std::vector<std::string>& lines() const { return lines_; }
  const json& object() const { return j_; }

 private:
  const std::string& name_;
  const std::vector<std::string>& lines_;
  int line_;
  const json& j_;
};

bool ignored(const std::string& s) {
  const size_t first = s.find_first_not_of(" \t\r");
  return first == std::string::npos || s[first] == '#';
}

// The line after `from` (0-based index) whose object has id `id`, or 0.
int later_line(const std::vector<std::string>& lines, size_t from, const std::string& id) {
  for (size_t k = from + 1; k < lines.size(); ++k) {
    if (ignored(lines[k])) continue;
    const json j = json::parse(lines[k], nullptr, false);
    if (j.is_object() && j.contains("id") && j["id"].is_string() && j["id"].get<std::string>() == id)
      return static_cast<int>(k + 1);
  }
  return 0;
}

bool valid_id(const std::string& id) {
  if (id.empty() || id.size() > 64) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '.' || c == ':' || c == '/';
  });
}

void check_fields(const LineParser& p, const TraceOp& op) {
  // Plain C strings: GCC 12 with LTO warns falsely (-Wstringop-overflow) on a vector of strings here.
  std::vector<const char*> allowed(std::begin(kCommon), std::end(kCommon));
  if (op.compute) {
    for (const char* f : kComputeFields) allowed.push_back(f);
  } else if (op.collective) {
    for (const char* f : {"algo", "protocol", "channels", "ranks", "bytes", "type", "redop"}) allowed.push_back(f);
    if (op.spec.coll == coll::Collective::kBroadcast) allowed.push_back("root");
    if (op.spec.coll == coll::Collective::kAllToAll) allowed.push_back("pair_bytes");
  } else {
    for (const char* f : {"src", "dst", "bytes", "offset"}) allowed.push_back(f);
    if (tl::is_atomic(op.opcode)) allowed.push_back("atomic");
  }
  for (const auto& item : p.object().items()) {
    const std::string& k = item.key();
    if (std::any_of(allowed.begin(), allowed.end(), [&](const char* a) { return k == a; })) continue;
    std::string list;
    for (const char* a : allowed) list += (list.empty() ? "" : ", ") + std::string(a);
    p.bad((known_anywhere(k) ? "field '" + k + "' does not apply to " + op.op : "unknown field '" + k + "'") +
          " (allowed: " + list + ")");
  }
}

void parse_collective(const LineParser& p, TraceOp& op) {
  coll::CollectiveSpec& s = op.spec;
  const bool a2a = s.coll == coll::Collective::kAllToAll;
  const std::string algo = p.text("algo", "auto", "expected auto, ring, oneshot or switch");
  op.algo_given = algo != "auto";
  s.algo = a2a ? coll::Algorithm::kOneShot : coll::Algorithm::kRing;
  if (op.algo_given && !coll::parse_algorithm(algo, s.algo))
    p.bad_field("algo", *p.find("algo"), "expected auto, ring, oneshot or switch");
  if (!coll::algorithm_applies(s.coll, s.algo)) p.bad_field("algo", *p.find("algo"), "all_to_all runs oneshot only");
  const std::string protocol = p.text("protocol", "auto", "expected auto, simple, ll128 or ll");
  op.protocol_given = protocol != "auto";
  if (op.protocol_given && !coll::parse_protocol(protocol, s.protocol))
    p.bad_field("protocol", *p.find("protocol"), "expected auto, simple, ll128 or ll");
  op.channels = 0;
  if (const json* c = p.find("channels"))
    op.channels = static_cast<int>(p.count("channels", *c, 64, "expected 0 (auto) .. 64"));

  const json& ranks = p.require("ranks", "an array of accelerator ids");
  if (!ranks.is_array() || ranks.empty()) p.bad_field("ranks", ranks, "expected a non-empty array of accelerator ids");
  for (const json& r : ranks) {
    if (!r.is_number_unsigned() || r.get<uint64_t>() > INT_MAX)
      p.bad_field("ranks", ranks, "expected a non-empty array of accelerator ids (integers >= 0)");
    const int id = r.get<int>();
    if (std::find(s.ranks.begin(), s.ranks.end(), id) != s.ranks.end())
      p.bad_field("ranks", ranks, "accelerator " + std::to_string(id) + " listed twice");
    s.ranks.push_back(id);
  }
  const auto n = static_cast<int>(s.ranks.size());

  const std::string type = p.text("type", "f32", "expected f32, f16, bf16, f64, s32, s64, u32 or u64");
  if (!tl::parse_red_type(type.c_str(), s.type))
    p.bad_field("type", *p.find("type"), "expected f32, f16, bf16, f64, s32, s64, u32 or u64");
  const std::string redop = p.text("redop", "sum", "expected sum, min, max, and, or or xor");
  if (!tl::parse_red_op(redop.c_str(), s.op)) p.bad_field("redop", *p.find("redop"), "expected sum, min, max, and, or or xor");
  if (coll::reduces(s.coll) && !tl::red_supported(s.type, s.op))
    p.bad_field("redop", *p.find("redop"), std::string("not defined on ") + tl::red_type_name(s.type) +
                                               " (and, or, xor need an integer type)");
  const auto elem = static_cast<uint64_t>(std::max(4, tl::red_type_bytes(s.type)));
  const std::string multiple = "a multiple of 4 and of the " + std::string(tl::red_type_name(s.type)) + " element";

  if (const json* pb = p.find("pair_bytes")) {
    const auto want = static_cast<size_t>(n) * static_cast<size_t>(n);
    const std::string allowed = "expected " + std::to_string(want) + " byte counts (ranks x ranks, row i: what rank i sends "
                                "each rank), each " + multiple;
    if (!pb->is_array() || pb->size() != want) p.bad_field("pair_bytes", *pb, allowed);
    for (const json& b : *pb) {
      const uint64_t v = p.count("pair_bytes", b, kTraceMaxCollBytes, allowed);
      if (v % elem) p.bad_field("pair_bytes", *pb, allowed);
      s.pair_bytes.push_back(v);
    }
  }
  uint64_t row_max = 0;
  for (int i = 0; i < n && !s.pair_bytes.empty(); ++i) {
    uint64_t row = 0;
    for (int j = 0; j < n; ++j) row += s.pair_bytes[static_cast<size_t>(i * n + j)];
    row_max = std::max(row_max, row);
  }
  const std::string size_rule = "expected a positive byte count up to 2^40, " + multiple;
  if (const json* b = p.find("bytes")) {
    s.bytes = p.count("bytes", *b, kTraceMaxCollBytes, size_rule);
    if (s.bytes == 0 || s.bytes % elem) p.bad_field("bytes", *b, size_rule);
    if (!s.pair_bytes.empty() && s.bytes != row_max)
      p.bad_field("bytes", *b, "with pair_bytes, the largest row sum (" + std::to_string(row_max) + ") or absent");
  } else if (!s.pair_bytes.empty()) {
    s.bytes = row_max;
  } else {
    p.require("bytes", "the nccl-tests size in bytes");
  }
  if (const json* root = p.find("root")) {
    if (!root->is_number_unsigned() || root->get<uint64_t>() >= static_cast<uint64_t>(n))
      p.bad_field("root", *root, "expected a rank index, 0 .. " + std::to_string(n - 1));
    s.root = root->get<int>();
  }
  const std::string bad = coll::check_spec(s, INT_MAX);
  if (!bad.empty()) p.bad(op.op + ": " + bad);
}

void parse_transaction(const LineParser& p, TraceOp& op) {
  op.src = p.accelerator("src", p.require("src", "the initiating accelerator"));
  op.dst = p.accelerator("dst", p.require("dst", "the target accelerator"));
  const bool atomic = tl::is_atomic(op.opcode);
  const json& b = p.require("bytes", atomic ? "4 or 8" : "the transfer size");
  const std::string rule = atomic ? "an atomic is one element: expected 4 or 8"
                                  : "expected a positive multiple of 4 up to 2^30 (requests move whole doublewords)";
  op.bytes = p.count("bytes", b, kTraceMaxTxnBytes, rule);
  if (op.bytes == 0 || op.bytes % 4 || (atomic && op.bytes != 4 && op.bytes != 8)) p.bad_field("bytes", b, rule);
  if (const json* off = p.find("offset")) op.offset = p.count("offset", *off, uint64_t{1} << 50, "expected a byte offset 0 .. 2^50");
  const std::string names = "expected add, and, or, xor, min_s, max_s, min_u, max_u, swap, cas or fadd";
  const std::string aop = p.text("atomic", "add", names);
  if (!tl::parse_atomic_op(aop.c_str(), op.atomic)) p.bad_field("atomic", *p.find("atomic"), names);
}

void parse_compute(const LineParser& p, TraceOp& op) {
  op.rank = p.accelerator("rank", p.require("rank", "the computing accelerator"));
  if (!p.find("duration_us")) p.require("duration_us", "microseconds, 0 .. 1e9");
  op.duration_us = p.us("duration_us");
}

TraceOp parse_line(const LineParser& p, const std::map<std::string, size_t>& ids, const std::vector<TraceOp>& ops) {
  TraceOp op;
  op.line = p.line();
  const json& id = p.require("id", "a unique name");
  if (!id.is_string() || !valid_id(id.get<std::string>()))
    p.bad_field("id", id, "expected a string of 1 .. 64 letters, digits, _ - . : /");
  op.id = id.get<std::string>();
  if (const auto it = ids.find(op.id); it != ids.end())
    p.bad_field("id", id, "already the id of line " + std::to_string(ops[it->second].line));

  const char* op_names = "expected all_reduce, reduce_scatter, all_gather, broadcast, all_to_all, read, write, "
                         "writefull, atomic_r, atomic_nr or compute";
  const json& name = p.require("op", "a collective or transaction name");
  if (!name.is_string()) p.bad_field("op", name, op_names);
  op.op = name.get<std::string>();
  if (coll::parse_collective(op.op, op.spec.coll)) {
    op.collective = true;
  } else if (op.op == "compute") {
    op.compute = true;
  } else if (std::find(std::begin(kTxnOps), std::end(kTxnOps), op.op) != std::end(kTxnOps)) {
    tl::parse_opcode(op.op.c_str(), op.opcode);
  } else {
    p.bad_field("op", name, op_names);
  }
  check_fields(p, op);

  op.at_us = p.us("at_us");
  op.delay_us = p.us("delay_us");
  if (const json* after = p.find("after")) {
    const char* rule = "expected an array of ids of earlier lines";
    if (!after->is_array()) p.bad_field("after", *after, rule);
    for (const json& a : *after) {
      if (!a.is_string()) p.bad_field("after", *after, rule);
      const std::string& want = a.get_ref<const std::string&>();
      const auto it = ids.find(want);
      if (it == ids.end()) {
        if (want == op.id) p.bad_field("after", *after, "'" + want + "' is this line's own id; " + rule);
        const int later = later_line(p.lines(), static_cast<size_t>(p.line() - 1), want);
        p.bad_field("after", *after, "'" + want + "' " +
                                         (later ? "is defined later, on line " + std::to_string(later)
                                                : std::string("is not the id of any line")) +
                                         "; " + rule);
      }
      if (std::find(op.after.begin(), op.after.end(), it->second) == op.after.end()) op.after.push_back(it->second);
    }
  }
  if (op.collective)
    parse_collective(p, op);
  else if (op.compute)
    parse_compute(p, op);
  else
    parse_transaction(p, op);
  return op;
}

}  // namespace

Trace parse_trace(std::istream& in, const std::string& name) {
  std::vector<std::string> lines;
  for (std::string s; std::getline(in, s);) lines.push_back(std::move(s));
  Trace t;
  t.name = name;
  std::map<std::string, size_t> ids;
  for (size_t k = 0; k < lines.size(); ++k) {
    if (ignored(lines[k])) continue;
    const int line = static_cast<int>(k + 1);
    json j;
    try {
      j = json::parse(lines[k]);
    } catch (const json::parse_error& e) {
      throw config::ConfigError("trace '" + name + "' line " + std::to_string(line) + ": invalid JSON at column " +
                                std::to_string(e.byte) + " (expected one object per line)");
    } catch (const json::exception&) {  // a number too large for a double (found by fuzz_trace)
      throw config::ConfigError("trace '" + name + "' line " + std::to_string(line) +
                                ": a number is out of range (expected one object per line with finite numbers)");
    }
    if (!j.is_object())
      throw config::ConfigError("trace '" + name + "' line " + std::to_string(line) + ": expected a JSON object, got " +
                                j.type_name());
    const LineParser p(name, lines, line, j);
    TraceOp op = parse_line(p, ids, t.ops);
    ids.emplace(op.id, t.ops.size());
    t.ops.push_back(std::move(op));
  }
  return t;
}

Trace read_trace(const std::string& path) {
  std::istringstream in(config::read_input_file("trace", path, config::kMaxTraceFileBytes));
  return parse_trace(in, path);
}

std::vector<uint8_t> trace_data(const TraceOp& op) {
  std::vector<uint8_t> d(op.bytes);
  for (size_t i = 0; i < d.size(); ++i) d[i] = static_cast<uint8_t>((i + static_cast<size_t>(op.line)) & 0xff);
  return d;
}

}  // namespace upswitch::traffic
