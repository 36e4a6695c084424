// SPDX-License-Identifier: BSD-3-Clause
// The report of `mmaemu distinguish` (docs/distinguish.md), which the
// command and Python's mmaemu.distinguish print, and the harness tokens of
// codes.
#include <algorithm>
#include <bit>
#include <cstdio>
#include <ostream>
#include <sstream>

#include "experiments/distinguish.h"
#include "formats/fast_convert.h"

namespace mmaemu::experiments {

namespace {

std::string hex8(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "%08x", v);
  return b;
}
std::string bin32(uint32_t v) {
  std::string s(32, '0');
  for (int i = 0; i < 32; ++i) s[31 - i] = static_cast<char>('0' + ((v >> i) & 1));
  return s;
}

}  // namespace

std::string code_hex(Fmt f, uint64_t code) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%0*llx", info(f).width / 4, static_cast<unsigned long long>(code));
  return b;
}
std::string code_value(Fmt f, uint64_t code) {
  const double v = std::bit_cast<double>(convert(f, Fmt::fp64, code, Round::rne));
  char b[40];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}

// The harness's token of a code: the fp32 pattern in hex (inputs) or
// binary (c, d); the code itself for formats wider than fp32.
std::string harness_token(Fmt f, uint64_t code, bool binary) {
  uint32_t p;
  if (!harness_pattern(f, code, p)) return code_hex(f, code);
  return binary ? bin32(p) : hex8(p);
}

namespace {

void print_vector(std::ostream& out, Fmt in, Fmt fout, const std::string& na, const std::string& nb,
                  const TestVector& v) {
  std::string a, b;
  for (uint64_t x : v.a) a += harness_token(in, x, false) + " ";
  for (uint64_t x : v.b) b += harness_token(in, x, false) + " ";
  out << "    a: " << a << "\n    b: " << b << "\n    c: " << harness_token(fout, v.c, true) << "   ("
      << code_value(fout, v.c) << ")\n";
  const std::size_t w = std::max(na.size(), nb.size());
  out << "    d " << na << std::string(w - na.size(), ' ') << ": " << harness_token(fout, v.d_first, true) << "   ("
      << code_hex(fout, v.d_first) << " = " << code_value(fout, v.d_first) << ")\n";
  out << "    d " << nb << std::string(w - nb.size(), ' ') << ": " << harness_token(fout, v.d_second, true) << "   ("
      << code_hex(fout, v.d_second) << " = " << code_value(fout, v.d_second) << ")\n";
}

std::string dot_line(const Model& ma, const Model& mb, Fmt in, Fmt out, const TestVector& v) {
  std::string a, b;
  for (std::size_t i = 0; i < v.a.size(); ++i) {
    if (i) a += ',', b += ',';
    a += harness_token(in, v.a[i], false);
    b += harness_token(in, v.b[i], false);
  }
  return "mmaemu dot '" + ma.name + "' '" + mb.name + "' --input " + info(in).name + " --output " + info(out).name +
         " --a " + a + " --b " + b + " --c " + harness_token(out, v.c, false);
}

}  // namespace

std::string distinguish_report(const Model& ma, const Model& mb, const DistinguishConfig& cfg,
                               const DistinguishResult& r) {
  std::ostringstream out;
  out << "distinguish: " << ma.name << " vs " << mb.name << ", " << info(cfg.in).name << " -> " << info(cfg.out).name
      << " (k = " << r.k << "), seed " << cfg.seed << "\n";
  for (const DistributionCount& d : r.per_distribution)
    if (d.samples) out << "  " << d.name << ": " << d.samples << " samples, " << d.separating << " separating\n";
  if (!r.found) {
    char b[160];
    std::snprintf(b, sizeof b,
                  "  none found in %zu samples: P(a random sample separates them) <= %.3g (eps = %.0e, AMD paper "
                  "Sec. 5.4)\n",
                  r.samples, r.bound, r.eps);
    out << b;
    return out.str();
  }
  const VectorSize s0 = vector_size(cfg.in, cfg.out, r.first), s = vector_size(cfg.in, cfg.out, r.shortest);
  out << "  found after " << r.samples << " samples (" << r.found_by << "): " << s0.terms << " terms, exponent range "
      << s0.exponent_range << "\n";
  print_vector(out, cfg.in, cfg.out, ma.name, mb.name, r.first);
  out << "  shortest (" << r.shrink_evaluations << " candidates tried): " << s.terms << " terms, exponent range "
      << s.exponent_range << "\n";
  print_vector(out, cfg.in, cfg.out, ma.name, mb.name, r.shortest);
  out << "  again: " << dot_line(ma, mb, cfg.in, cfg.out, r.shortest) << "\n";
  return out.str();
}

}  // namespace mmaemu::experiments
