// SPDX-License-Identifier: BSD-3-Clause
// The test-vector arguments of mmaemu dot and mmaemu explain.
#include "cli/vector_args.h"

#include <bit>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "experiments/common.h"
#include "experiments/distinguish.h"
#include "formats/fast_convert.h"

namespace mmaemu::experiments {
namespace {

bool is_hex8(const std::string& t) {
  if (t.size() != 8) return false;
  for (char ch : t)
    if (!std::isxdigit(static_cast<unsigned char>(ch))) return false;
  return true;
}

// An integer format's code: a 0x code (at most the format's width) or a
// decimal value in its range.
uint64_t parse_int_token(const std::string& option, const std::string& t, Fmt f) {
  const FormatInfo& fi = info(f);
  const int64_t lo = fi.integer == IntKind::twos_complement ? -(int64_t{1} << (fi.width - 1)) : 0;
  const int64_t hi = fi.integer == IntKind::twos_complement ? (int64_t{1} << (fi.width - 1)) - 1
                                                             : (int64_t{1} << fi.width) - 1;
  const uint64_t mask = (uint64_t{1} << fi.width) - 1;
  char* end = nullptr;
  errno = 0;
  if (t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
    const unsigned long long c = std::strtoull(t.c_str() + 2, &end, 16);
    if (*end || errno == ERANGE || c > mask)
      throw UsageError(option + ": '" + t + "' is not a code of " + fi.name + " (0x0 to " +
                       code_hex(f, mask) + ")");
    return c;
  }
  const long long v = std::strtoll(t.c_str(), &end, 10);
  if (end == t.c_str() || *end || errno == ERANGE || v < lo || v > hi)
    throw UsageError(option + ": '" + t + "' is not a value of " + fi.name + " (an integer in [" + std::to_string(lo) +
                     ", " + std::to_string(hi) + "], or a 0x code)");
  return static_cast<uint64_t>(v) & mask;
}

}  // namespace

// A token as a code of f: an fp32 pattern (8 hex digits; 32 binary digits),
// or a number; exact in f or an error naming the token.
uint64_t parse_token(const std::string& option, const std::string& t, Fmt f) {
  if (info(f).is_integer()) return parse_int_token(option, t, f);
  double v;
  if (is_hex8(t) || (t.size() == 32 && t.find_first_not_of("01") == std::string::npos)) {
    const uint32_t p = static_cast<uint32_t>(std::strtoul(t.c_str(), nullptr, t.size() == 8 ? 16 : 2));
    v = static_cast<double>(std::bit_cast<float>(p));
  } else {
    char* end = nullptr;
    errno = 0;
    v = std::strtod(t.c_str(), &end);
    if (end == t.c_str() || *end || errno == ERANGE)
      throw UsageError(option + ": '" + t + "' is neither a number nor an fp32 pattern (8 hex digits)");
  }
  const uint64_t code = convert_input(Fmt::fp64, f, std::bit_cast<uint64_t>(v), Round::rne, Overflow::ieee);
  const double back = std::bit_cast<double>(convert(f, Fmt::fp64, code, Round::rne));
  if (!(std::isnan(v) && std::isnan(back)) && (back != v || std::signbit(back) != std::signbit(v))) {
    char b[96];
    std::snprintf(b, sizeof b, "%.17g is not a value of %s (nearest: %.17g)", v, info(f).name, back);
    throw UsageError(option + ": '" + t + "': " + b);
  }
  return code;
}

std::vector<uint64_t> parse_list(const std::string& option, const std::string& list, Fmt f) {
  std::vector<uint64_t> v;
  std::string t;
  for (char ch : list + ",") {
    if (ch == ',' || ch == ' ') {
      if (!t.empty()) v.push_back(parse_token(option, t, f));
      t.clear();
    } else {
      t += ch;
    }
  }
  if (v.empty()) throw UsageError(option + " needs at least one value");
  return v;
}

std::string dot_line(const std::string& model, const ModelRow& row, std::size_t k, uint64_t d) {
  char line[320];
  if (row.accum == Accumulation::integer) {
    const std::string unit = std::string(row.instr) + " " + info(row.in).name + "x" + info(row.in_b).name + " " +
                             (row.overflow == IntOverflow::wrap ? "wrap" : "satfinite");
    std::snprintf(line, sizeof line, "  %-14s %-30s k %-4zu d = %s  (%s)\n", model.c_str(), unit.c_str(), k,
                  code_hex(row.out, d).c_str(), code_value(row.out, d).c_str());
    return line;
  }
  std::snprintf(line, sizeof line, "  %-14s %-30s k %-4zu d = %s  (%s = %s)\n", model.c_str(), row.instr, k,
                harness_token(row.out, d, true).c_str(), code_hex(row.out, d).c_str(), code_value(row.out, d).c_str());
  return line;
}

}  // namespace mmaemu::experiments
