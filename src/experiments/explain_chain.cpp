// SPDX-License-Identifier: BSD-3-Clause
// mmaemu explain: the IEEE paths, CDNA2's pairwise tree of fp32 additions
// (docs/models.md §2.8) and the FMA chain of fp32/fp64 inputs (§2.11).
#include <bit>

#include "experiments/distinguish.h"
#include "experiments/explain_kit.h"
#include "models/row_facts.h"
#include "ref/reference.h"

namespace mmaemu::experiments::explain_detail {
namespace {

// One IEEE operation of the pairwise path in binary64, rounded once to the
// output format (binary64 holds every product of fp16/bf16 inputs exactly,
// and rounding a binary64 sum of two fp32 values to fp32 is the correctly
// rounded fp32 sum: 53 >= 2*24 + 2).
struct Tree {
  const ModelRow& row;

  double value(Fmt f, uint64_t x) const { return std::bit_cast<double>(to_fp64_bits(f, x)); }
  uint64_t rne(double v) const {
    return convert(Fmt::fp64, row.out, std::bit_cast<uint64_t>(v), Round::rne, Overflow::ieee);
  }
  uint64_t flush(uint64_t x, bool keep_sign) const {
    const Unpacked u = decode(row.out, x);
    return !row.out_sub && is_subnormal(row.out, u) ? zero_bits(row.out, keep_sign && u.neg) : x;
  }
  uint64_t add(uint64_t x, uint64_t y) const { return flush(rne(value(row.out, x) + value(row.out, y)), true); }
  uint64_t positive(Fmt f, uint64_t x) const {
    return row.neg_zero == NegZero::positive && decode(f, x).cls == Class::zero ? 0 : x;
  }
  uint64_t read_input(uint64_t x) const {
    const Unpacked u = decode(row.in, x);
    const bool flush_in = !row.in_sub && is_subnormal(row.in, u);
    return positive(row.in, flush_in ? zero_bits(row.in, row.flush_sign == FlushSign::keep && u.neg) : x);
  }
};

}  // namespace

uint64_t pairwise_step(Stepper& s, const uint64_t* a, const uint64_t* b, uint64_t c) {
  const ModelRow& row = s.row;
  const Tree op{row};
  const bool keep = row.flush_sign == FlushSign::keep;
  products(s, a, b);
  ExplainStage st{s.prefix + "pairwise tree of " + info(row.out).name + " RNE additions, c added last", {}, ""};
  auto name = [&](std::size_t i) { return std::string("p").append(std::to_string(s.base + i + 1)); };
  uint64_t p[4] = {0, 0, 0, 0};
  const std::size_t g = static_cast<std::size_t>(row.pair_group);
  for (std::size_t i = 0; i < g; ++i) {
    const uint64_t x = op.read_input(i < s.k ? a[i] : 0), y = op.read_input(i < s.k ? b[i] : 0);
    p[i] = op.flush(op.rne(op.value(row.in, x) * op.value(row.in, y) + -0.0), keep);
    st.lines.push_back("  " + name(i) + " rounded: " + code_text(row.out, p[i]));
  }
  c = op.positive(row.out, op.flush(c, keep));
  const std::string left = name(0) + " + " + name(1), right = name(2) + " + " + name(3);
  uint64_t t = op.add(p[0], p[1]);
  st.lines.push_back("  " + left + " = " + code_text(row.out, t));
  if (g == 4) {
    const uint64_t u = op.add(p[2], p[3]);
    t = op.add(t, u);
    st.lines.push_back("  " + right + " = " + code_text(row.out, u) + "; (" + left + ") + (" + right +
                       ") = " + code_text(row.out, t));
  }
  uint64_t d = op.add(c, t);
  if (is_nan(row.out, d)) d = nan_result(row);
  st.lines.push_back("  c + tree = " + code_text(row.out, d) + (row.out_sub ? "" : " (subnormals flushed at every step)"));
  st.bits = code_hex(row.out, d);
  s.out.push_back(st);
  return d;
}

uint64_t fma_step(Stepper& s, const uint64_t* a, const uint64_t* b, uint64_t c) {
  const ModelRow& row = s.row;
  ExplainStage st{s.prefix + "chain of IEEE fused multiply-adds d = fma(a_i, b_i, d)", {}, ""};
  uint64_t d = c;
  for (std::size_t i = 0; i < s.k; ++i) {
    d = ref::step(row, 1, a + i, b + i, d);
    if (decode(row.in, a[i]).cls == Class::zero || decode(row.in, b[i]).cls == Class::zero) continue;
    st.lines.push_back("  " + std::to_string(s.base + i + 1) + ": fma(" + code_text(row.in, a[i]) + ", " +
                       code_text(row.in, b[i]) + ", d) = " + code_text(row.out, d));
  }
  if (st.lines.empty()) st.lines.push_back("  every product is zero: d = " + code_text(row.out, d));
  st.bits = code_hex(row.out, d);
  s.out.push_back(st);
  return d;
}

}  // namespace mmaemu::experiments::explain_detail
