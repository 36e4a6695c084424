// SPDX-License-Identifier: BSD-3-Clause
// The probe's report: one line per feature, the value (or n/a) and how the
// test vectors showed it.
#include <cstdio>
#include <ostream>
#include <string>

#include "probe/probe.h"

namespace mmaemu::probe {

const char* name(Accumulation a) {
  switch (a) {
    case Accumulation::aligned: return "aligned block FMA";
    case Accumulation::exact: return "exact sum (Kulisch), one rounding";
    case Accumulation::pairwise: return "pairwise tree of rounded additions";
    case Accumulation::fma_chain: return "chain of IEEE FMAs";
    case Accumulation::integer: return "exact integer sum into s32";
  }
  return "?";
}
const char* name(CEntry c) {
  switch (c) {
    case CEntry::early: return "early (a term of the first sum)";
    case CEntry::late_rd: return "late, round-down alignment";
    case CEntry::late_rne: return "late, separate rounded addition";
    case CEntry::last: return "last (added to the tree's sum)";
  }
  return "?";
}
const char* name(Grouping g) {
  switch (g) {
    case Grouping::contiguous: return "contiguous";
    case Grouping::odd_even: return "odd/even groups";
    case Grouping::pair_interleave: return "interleaved pairs, two chained sub-blocks";
  }
  return "?";
}
const char* name(ProductForm p) {
  switch (p) {
    case ProductForm::denormalised: return "denormalised (significand in [1,4))";
    case ProductForm::normalised: return "normalised";
    case ProductForm::fp32_rne: return "rounded to fp32 (RNE)";
  }
  return "?";
}
const char* name(LateRd l) {
  return l == LateRd::two_stage ? "two-stage (RD 32, normalise, RD 31)" : "single-stage (RD 31)";
}
const char* name(AlignRound a) {
  switch (a) {
    case AlignRound::truncate: return "truncation (toward zero, per term)";
    case AlignRound::down: return "round down";
    case AlignRound::up: return "round up";
    case AlignRound::nearest: return "round to nearest";
  }
  return "?";
}
const char* name(FlushSign s) { return s == FlushSign::keep ? "sign kept" : "+0"; }
const char* name(Round r) { return round_name(r); }

namespace {

std::string str(bool b) { return b ? "yes" : "no"; }
std::string str(int v) { return std::to_string(v); }
template <typename E>
std::string str(E e) { return name(e); }

struct Printer {
  std::ostream& os;
  template <typename T, typename F>
  void line(const char* label, const Det<T>& d, F&& show) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "  %-27s ", label);
    os << buf;
    if (d.known) {
      const std::string v = show(d.value);
      os << v;
      if (!d.note.empty()) os << std::string(v.size() < 34 ? 34 - v.size() : 1, ' ') << "[" << d.note << "]";
    } else {
      os << "n/a" << std::string(31, ' ') << "[" << d.note << "]";
    }
    os << "\n";
  }
  template <typename T>
  void line(const char* label, const Det<T>& d) {
    line(label, d, [](const T& v) { return str(v); });
  }
};

}  // namespace

void print(std::ostream& os, const Features& f, const std::string& title) {
  os << title << ": " << info(f.in).name << " -> " << info(f.out).name << ", k = " << f.k << " ("
     << f.calls << " black-box calls)\n";
  Printer p{os};
  os << " special values\n";
  p.line("NaN produced", f.nan, [&](uint64_t b) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%0*llX", info(f.out).width / 4, static_cast<unsigned long long>(b));
    return std::string(buf);
  });
  p.line("Inf operand -> Inf", f.inf_operand);
  p.line("+Inf + -Inf -> NaN", f.inf_minus_inf_nan);
  p.line("0 * Inf -> NaN", f.zero_times_inf_nan);
  p.line("overflow -> Inf", f.overflow_inf);
  p.line("product >= 2^128 -> Inf", f.prd_ovf);
  os << " subnormals\n";
  p.line("subnormal inputs", f.in_sub);
  p.line("subnormal results", f.out_sub);
  p.line("flush-to-zero sign", f.flush_sign);
  os << " structure\n";
  p.line("C read", f.reads_c);
  p.line("accumulation", f.accum);
  p.line("block FMA size N", f.block);
  p.line("grouping", f.grouping);
  p.line("pairwise group", f.pair_group);
  p.line("inputs read as fp16", f.as_fp16);
  os << " alignment and rounding\n";
  p.line("window fraction bits F", f.frac, [](int F) {
    return std::to_string(F) + " (neab " + (F >= 23 ? "+" : "") + std::to_string(F - 23) + ")";
  });
  p.line("bits below the window", f.alignment);
  p.line("carries kept, one rounding", f.exact_normalisation);
  p.line("products", f.product);
  p.line("result fraction bits", f.out_frac);
  p.line("final rounding", f.round);
  p.line("alignment floor", f.floor, [](int e) {
    return e == kNoFloor ? std::string("none") : std::to_string(e);
  });
  p.line("c = 0", f.zero_c, [](const ZeroC& z) {
    return z.term ? "a term at exponent " + std::to_string(z.exp) : std::string("ignored");
  });
  os << " the accumulator c\n";
  p.line("c enters", f.c);
  p.line("late RD rule", f.late_rd);
  p.line("late addition rounding", f.late_round);
  p.line("late c cut-off (binades)", f.cutoff, [](int c) {
    return c < 0 ? std::string("none") : std::to_string(c);
  });
  p.line("c = 0: exact sum to RD", f.late_exact_zero_c);
  for (const std::string& a : f.anomalies) os << "  unexplained: " << a << "\n";
}

}  // namespace mmaemu::probe
