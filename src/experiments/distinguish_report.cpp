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
  if (info(f).is_integer()) return std::to_string(int_value(f, code));
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
  if (info(fout).is_integer()) {  // the token is the code
    out << "    d " << na << std::string(w - na.size(), ' ') << ": " << code_hex(fout, v.d_first) << "   ("
        << code_value(fout, v.d_first) << ")\n";
    out << "    d " << nb << std::string(w - nb.size(), ' ') << ": " << code_hex(fout, v.d_second) << "   ("
        << code_value(fout, v.d_second) << ")\n";
    return;
  }
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

// The integer units' "again" lines: one mmaemu dot per pair of formats.
std::string integer_dot_lines(const Model& ma, const Model& mb, const DistinguishConfig& cfg, const TestVector& v) {
  auto line = [&](const std::string& models, Fmt a_fmt, Fmt b_fmt) {
    std::string a, b;
    for (std::size_t i = 0; i < v.a.size(); ++i) {
      if (i) a += ',', b += ',';
      a += code_hex(a_fmt, v.a[i]);
      b += code_hex(b_fmt, v.b[i]);
    }
    std::string in = info(a_fmt).name;
    if (b_fmt != a_fmt) in += std::string(",") + info(b_fmt).name;
    return "mmaemu dot " + models + " --input " + in + " --a " + a + " --b " + b + " --c " + code_hex(Fmt::s32, v.c);
  };
  if (cfg.in == cfg.second_in && cfg.in_b == cfg.second_in_b)
    return line("'" + ma.name + "' '" + mb.name + "'", cfg.in, cfg.in_b);
  return line("'" + ma.name + "'", cfg.in, cfg.in_b) + "\n         " + line("'" + mb.name + "'", cfg.second_in, cfg.second_in_b);
}

std::string integer_formats(Fmt a, Fmt b) { return std::string(info(a).name) + " x " + info(b).name; }

}  // namespace

std::string distinguish_report(const Model& ma, const Model& mb, const DistinguishConfig& cfg,
                               const DistinguishResult& r) {
  std::ostringstream out;
  const bool integer = info(cfg.in).is_integer();
  if (integer)
    out << "distinguish: " << ma.name << " (" << integer_formats(cfg.in, cfg.in_b) << ") vs " << mb.name << " ("
        << integer_formats(cfg.second_in, cfg.second_in_b) << "), -> s32 (k = " << r.k << "), seed " << cfg.seed
        << ": the same codes, each unit reading them under its formats\n";
  else
    out << "distinguish: " << ma.name << " vs " << mb.name << ", " << info(cfg.in).name << " -> "
        << info(cfg.out).name << " (k = " << r.k << "), seed " << cfg.seed << "\n";
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
  auto size = [&](const TestVector& v) {
    return integer ? integer_vector_size(cfg.in, cfg.in_b, v) : vector_size(cfg.in, cfg.out, v);
  };
  const VectorSize s0 = size(r.first), s = size(r.shortest);
  out << "  found after " << r.samples << " samples (" << r.found_by << "): " << s0.terms << " terms, exponent range "
      << s0.exponent_range << "\n";
  print_vector(out, cfg.in, cfg.out, ma.name, mb.name, r.first);
  out << "  shortest (" << r.shrink_evaluations << " candidates tried): " << s.terms << " terms, exponent range "
      << s.exponent_range << "\n";
  print_vector(out, cfg.in, cfg.out, ma.name, mb.name, r.shortest);
  out << "  again: " << (integer ? integer_dot_lines(ma, mb, cfg, r.shortest) : dot_line(ma, mb, cfg.in, cfg.out, r.shortest))
      << "\n";
  return out.str();
}

}  // namespace mmaemu::experiments
