// SPDX-License-Identifier: BSD-3-Clause
// The reference block-FMA engine (docs/models.md §2). Plain integer arithmetic, one
// function per step of the papers' algorithms; speed is not a goal here.
#include "ref/reference.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <climits>
#include <vector>

#include "formats/wide_accumulator.h"
#include "models/row_facts.h"
#include "ref/integer.h"

namespace mmaemu::ref {
namespace {

// A finite nonzero term of a block: (-1)^neg * sig * 2^(e - frac).
// |m| = sig / 2^frac is the significand of the papers' decomposition
// x = m * 2^e, e.g. a normal fp16 value has frac = 10 and 1 <= |m| < 2.
struct Term {
  bool neg;
  int e;
  uint64_t sig;
  int frac;
};

int bit_length(uint64_t x) { return 64 - std::countl_zero(x); }

// Exponent of the leading one of a term's value.
int lead_exp(const Term& t) { return t.e - t.frac + bit_length(t.sig) - 1; }

Term term_of(Fmt f, const Unpacked& u) {
  const int man = info(f).man_bits;
  return {u.neg, u.exp + man, u.sig, man};
}

bool is_subnormal(Fmt f, const Unpacked& u) {
  return u.cls == Class::finite && u.sig < (1ull << info(f).man_bits);
}

// ---------------------------------------------------------------------------
// Special values (docs/models.md §2.10): decided over one step before any arithmetic.
//   any NaN input, 0 * Inf, or +Inf and -Inf together -> NaN (NaN first);
//   otherwise an infinite product or c -> that infinity.
// A subnormal input the unit flushes (in_sub = 0) is a zero here: flushed
// 0 * Inf or NaN is NaN (docs/models.md §2.2 step 1). `overflow` adds the
// infinities of overflowing products (ovf_inf = ieee, §2.2 step 4).

struct Special {
  bool hit = false;
  uint64_t bits = 0;
};

// The signs of the infinities met in one step.
struct InfSigns {
  bool pos = false, neg = false;
  void note(bool n) { (n ? neg : pos) = true; }
};

Class read_class(const ModelRow& row, Fmt in, const Unpacked& x) {
  return !row.in_sub && is_subnormal(in, x) ? Class::zero : x.cls;
}

Special specials(const ModelRow& row, Fmt in, std::size_t k, const uint64_t* a,
                 const uint64_t* b, const Unpacked& c, InfSigns infs = {}) {
  bool nan = c.cls == Class::nan;
  if (c.cls == Class::inf) infs.note(c.neg);
  for (std::size_t i = 0; i < k; ++i) {
    const Unpacked x = decode(in, a[i]), y = decode(in, b[i]);
    const Class cx = read_class(row, in, x), cy = read_class(row, in, y);
    if (cx == Class::nan || cy == Class::nan) nan = true;
    if (cx == Class::inf || cy == Class::inf) {
      if (cx == Class::zero || cy == Class::zero) nan = true;
      else infs.note(x.neg != y.neg);
    }
  }
  if (nan || (infs.pos && infs.neg)) return {true, nan_result(row)};
  if (infs.pos || infs.neg) return {true, inf_bits(row.out, infs.neg)};
  return {};
}

// The products a_i*b_i of one step as the unit forms them (docs/models.md §2.3).
// Zero products are dropped: they never take part in the alignment.
// `index` keeps each product's k position (for odd/even and pair grouping).
struct Product {
  Term t;
  std::size_t index;
};

std::vector<Product> products(const ModelRow& row, Fmt in, std::size_t k, const uint64_t* a,
                              const uint64_t* b) {
  std::vector<Product> ps;
  for (std::size_t i = 0; i < k; ++i) {
    const Unpacked x = decode(in, a[i]), y = decode(in, b[i]);
    if (x.cls != Class::finite || y.cls != Class::finite) continue;
    if (!row.in_sub && (is_subnormal(in, x) || is_subnormal(in, y))) continue;
    const Term tx = term_of(in, x), ty = term_of(in, y);
    Term p{tx.neg != ty.neg, tx.e + ty.e, tx.sig * ty.sig, tx.frac + ty.frac};
    if (row.product == ProductForm::normalised && p.sig >> (p.frac + 1)) {
      ++p.frac;  // m in [2,4) -> m/2 in [1,2), exponent + 1: same value
      ++p.e;
    }
    ps.push_back({p, i});
  }
  return ps;
}

// CDNA2/CDNA3 product overflow (docs/models.md §2.2 item 4): the signs of the
// products with |p| >= 2^128, each of which reads as its signed infinity.
InfSigns overflow_signs(const std::vector<Product>& ps) {
  InfSigns s;
  for (const Product& p : ps)
    if (lead_exp(p.t) >= 128) s.note(p.t.neg);
  return s;
}

// The special values of one step, product overflow included (§2.10): with
// ovf_inf = ieee an overflowing product is one more infinity of the step;
// with inputs_first the infinite inputs and c decide first.
Special step_specials(const ModelRow& row, Fmt in, std::size_t k, const uint64_t* a, const uint64_t* b,
                      const Unpacked& c, const std::vector<Product>& ps) {
  const InfSigns ovf = row.prd_ovf ? overflow_signs(ps) : InfSigns{};
  if (row.ovf_inf == OverflowInf::ieee) return specials(row, in, k, a, b, c, ovf);
  if (Special s = specials(row, in, k, a, b, c); s.hit) return s;
  if (ovf.pos && ovf.neg) return {true, nan_result(row)};
  if (ovf.pos || ovf.neg) return {true, inf_bits(row.out, ovf.neg)};
  return {};
}

// The accumulator as a term (docs/models.md §2.4 step 2): decomposed in its
// own format, so a subnormal c sits at the format's minimum normal exponent
// (-126 for fp32, -14 for fp16) with a significand below 1; with sub_c = lead
// an fp16 c is read through its fp32 encoding, a subnormal at its leading bit.
std::optional<Term> c_term(const ModelRow& row, uint64_t c) {
  const bool widen = row.out == Fmt::fp16 && row.sub_c == SubnormalC::lead;
  const Fmt f = widen ? Fmt::fp32 : row.out;
  const Unpacked u = decode(f, widen ? to_fp32_bits(row.out, c) : c);
  if (u.cls != Class::finite) return std::nullopt;
  return term_of(f, u);
}

// ---------------------------------------------------------------------------
// Aligned summation (docs/models.md §2.4 steps 3-5).
//
//   2^E                    2^(E-F)
//    |                        |
//   II.FFFFFFFFFFFFFFFFFFFFFFFFF|xxxx   each term placed in a window of
//                               ^cut  2 integer and F fraction bits
//                                     relative to the largest exponent E;
//                                     bits below are truncated per term
//                                     (sign-magnitude), no guard or sticky.

// |m_t| * 2^(F - (E - e_t)), truncated toward zero.
uint64_t align(const Term& t, int E, int F) {
  const int sh = F - t.frac - (E - t.e);
  if (sh >= 0) {
    assert(bit_length(t.sig) + sh < 63);
    return t.sig << sh;
  }
  return -sh >= 64 ? 0 : t.sig >> -sh;
}

// A partial sum: value = S * 2^(E - F). `empty` when no term was present.
struct Partial {
  bool empty = true;
  int E = 0;
  int64_t S = 0;
};

Partial align_sum(const std::vector<Term>& ts, int F, int floor, std::optional<int> extra_e = {}) {
  Partial p;
  if (ts.empty() && !extra_e) return p;
  p.empty = false;
  p.E = extra_e ? *extra_e : INT_MIN;
  for (const Term& t : ts) p.E = std::max(p.E, t.e);
  p.E = std::max(p.E, floor);
  for (const Term& t : ts) {
    const int64_t s = static_cast<int64_t>(align(t, p.E, F));
    p.S += t.neg ? -s : s;
  }
  return p;
}

// Signed floor(x / 2^d): the round-down alignment of CDNA3.
int64_t shift_rd(int64_t x, int d) {
  if (d <= 0) return x;
  if (d >= 63) return x < 0 ? -1 : 0;
  return x >> d;  // arithmetic shift = floor for negative x (C++20)
}

// Flushes a result below the normal range when the unit has no subnormal
// outputs.
uint64_t flush_out(const ModelRow& row, uint64_t bits) {
  if (row.out_sub) return bits;
  const Unpacked u = decode(row.out, bits);
  if (is_subnormal(row.out, u))
    return zero_bits(row.out, row.flush_sign == FlushSign::keep && u.neg);
  return bits;
}

// Rounds S * 2^(E - F) to the output format; an exact zero gives +0.
uint64_t round_partial(const ModelRow& row, int64_t S, int lsb_exp, Round r) {
  if (S == 0) return zero_bits(row.out, false);
  const uint64_t mag = S < 0 ? static_cast<uint64_t>(-S) : static_cast<uint64_t>(S);
  return flush_out(row, round_pack(row.out, S < 0, mag, lsb_exp, false, r, Overflow::inf,
                                   row.result_frac()));
}

// One fused block with c early (NVIDIA, docs/models.md §2.4): the terms are the
// products and c, unless c = 0 (which then does not move the alignment,
// or does at zero_c_exp when zero_c_is_term).
uint64_t fused_early(const ModelRow& row, const std::vector<Term>& prods, uint64_t c) {
  const Unpacked cu = decode(row.out, c);
  if (cu.cls == Class::nan) return nan_result(row);
  if (cu.cls == Class::inf) return c;
  std::vector<Term> ts = prods;
  std::optional<int> zero_c;
  if (auto t = c_term(row, c)) ts.push_back(*t);
  else if (row.zero_c_is_term && !ts.empty()) zero_c = row.zero_c_exp;
  if (ts.empty()) return zero_bits(row.out, false);  // empty block: +0
  const Partial p = align_sum(ts, row.frac, row.floor, zero_c);
  return round_partial(row, p.S, p.E - row.frac, row.round);
}

// Combines the odd and even groups of CDNA3 fp8 (docs/models.md §2.7): the
// group with the smaller exponent is shifted to the larger one and rounded
// down at F fraction bits.
Partial combine_rd(const Partial& x, const Partial& y) {
  if (x.empty) return y;
  if (y.empty) return x;
  Partial p;
  p.empty = false;
  p.E = std::max(x.E, y.E);
  p.S = shift_rd(x.S, p.E - x.E) + shift_rd(y.S, p.E - y.E);
  return p;
}

// c added after the product sum with round-down alignment (CDNA3, docs/models.md §2.6).
//
// Products dominate (E_p >= e_c): c is rounded down to the F-bit grid of
// 2^E_p, added exactly, and the sum rounded once (RNE).
// c dominates (E_p < e_c):
//   two_stage (PA Algorithm 1, the hardware): the product sum is rounded
//     down to F+8 = 32 fraction bits relative to 2^e_c, added to c, the sum
//     normalised (never below 2^-126) and rounded down to 31 fraction bits
//     below its leading one; then RNE.
//   single_stage (toolbox, MMA-Sim): both at F+7 = 31 bits relative to 2^e_c.
// late_exact_zero_c: when c = 0 dominates, the product sum rounded down is
// the exact sum of `terms` (PA L3, i = 23), not P.
uint64_t late_rd_add(const ModelRow& row, const Partial& P, uint64_t c, const std::vector<Term>& terms) {
  const int F = row.frac;
  const std::optional<Term> ct = c_term(row, c);
  if (P.empty && !ct) return zero_bits(row.out, false);
  if (!ct && !row.zero_c_is_term)
    return round_partial(row, P.S, P.E - F, row.round);
  if (P.empty) return round_partial(row, ct->neg ? -int64_t(ct->sig) : int64_t(ct->sig),
                                    ct->e - ct->frac, row.round);
  const int e_c = ct ? ct->e : row.zero_c_exp;
  int64_t s_c = ct ? static_cast<int64_t>(ct->sig) << (F - ct->frac) : 0;  // F fraction bits
  if (ct && ct->neg) s_c = -s_c;
  if (row.cutoff >= 0 && P.E - e_c > row.cutoff) s_c = 0;

  if (P.E >= e_c) {
    const int64_t S = P.S + shift_rd(s_c, P.E - e_c);
    return round_partial(row, S, P.E - F, row.round);
  }
  const int d = e_c - P.E;
  // The product sum rounded down to F + extra bits below 2^e_c.
  auto products_rd = [&](int extra) {
    if (!(row.late_exact_zero_c && !ct)) return shift_rd(P.S * (int64_t{1} << extra), d);
    WideAccumulator exact;
    for (const Term& t : terms) exact.add(t.neg, t.sig, t.e - t.frac);
    return exact.floor_scaled(e_c - F - extra);
  };
  if (row.late_rd == LateRd::single_stage) {
    const int64_t S = products_rd(7) + s_c * (int64_t{1} << 7);
    return round_partial(row, S, e_c - F - 7, row.round);
  }
  int64_t S = products_rd(8) + s_c * (int64_t{1} << 8);
  int lsb = e_c - F - 8;  // 32 fraction bits relative to 2^e_c
  if (S != 0) {
    const uint64_t mag = S < 0 ? static_cast<uint64_t>(-S) : static_cast<uint64_t>(S);
    const int lead = std::max(lsb + bit_length(mag) - 1, -126);
    const int cut = (lead - 31) - lsb;  // bits to drop for 31 fraction bits
    if (cut > 0) {
      S = shift_rd(S, cut);
      lsb += cut;
    }
  }
  return round_partial(row, S, lsb, row.round);
}

std::vector<Term> terms_where(const std::vector<Product>& ps, bool (*keep)(std::size_t)) {
  std::vector<Term> ts;
  for (const Product& p : ps)
    if (keep(p.index)) ts.push_back(p.t);
  return ts;
}

// Exact two-operand addition in the output format (the late c of §2.12).
uint64_t add_round(const ModelRow& row, uint64_t x, uint64_t y, Round r) {
  const Unpacked u = decode(row.out, x), v = decode(row.out, y);
  if (u.cls == Class::nan || v.cls == Class::nan) return nan_result(row);
  if (u.cls == Class::inf && v.cls == Class::inf && u.neg != v.neg) return nan_result(row);
  if (u.cls == Class::inf) return x;
  if (v.cls == Class::inf) return y;
  WideAccumulator acc;
  if (u.cls == Class::finite) acc.add(u.neg, u.sig, u.exp);
  if (v.cls == Class::finite) acc.add(v.neg, v.sig, v.exp);
  // IEEE: x + (-x) = +0 (-0 for RD); -0 + -0 = -0.
  const bool zero_neg = (u.cls == Class::zero && v.cls == Class::zero) ? (u.neg && v.neg)
                                                                        : r == Round::rd;
  return flush_out(row, acc.round(row.out, r, Overflow::inf, zero_neg, row.result_frac()));
}

// ---------------------------------------------------------------------------
// One step of each accumulation kind.

uint64_t aligned_step(const ModelRow& row, std::size_t k, const uint64_t* a, const uint64_t* b,
                      uint64_t c) {
  const Fmt in = row.as_fp16 ? Fmt::fp16 : row.in;
  std::vector<uint64_t> wa, wb;
  if (row.as_fp16) {  // exact widening of fp8 to fp16
    for (std::size_t i = 0; i < k; ++i) {
      wa.push_back(convert(row.in, Fmt::fp16, a[i], Round::rne));
      wb.push_back(convert(row.in, Fmt::fp16, b[i], Round::rne));
    }
    a = wa.data();
    b = wb.data();
  }
  const Unpacked cu = decode(row.out, c);
  // A late c (docs/models.md §2.12) is no term of the fused sum: it enters by a
  // separate IEEE addition, so a special product sum meets it there, and a
  // sum that overflows to +Inf plus c = -Inf is NaN, not c.
  const bool late_c = row.c == CEntry::late_rne || row.c == CEntry::last;
  auto finish = [&](uint64_t t) { return late_c ? add_round(row, t, c, row.late_round) : t; };
  const Unpacked c_in_sum = late_c ? decode(row.out, zero_bits(row.out, false)) : cu;
  const std::vector<Product> ps = products(row, in, k, a, b);
  if (Special s = step_specials(row, in, k, a, b, c_in_sum, ps); s.hit) return finish(s.bits);
  if (!row.out_sub && is_subnormal(row.out, cu)) c = zero_bits(row.out, false);

  switch (row.c) {
    case CEntry::early:
    case CEntry::last:
    case CEntry::late_rne: {
      const bool early = row.c == CEntry::early;
      const uint64_t c0 = early ? c : zero_bits(row.out, false);
      uint64_t t;
      if (row.grouping == Grouping::pair_interleave) {
        // Positions {0,1,4,5,...} then {2,3,6,7,...}, chained through the
        // output format (docs/models.md §2.12 steps 2-4).
        const uint64_t t1 = fused_early(row, terms_where(ps, [](std::size_t i) { return i % 4 < 2; }), c0);
        t = fused_early(row, terms_where(ps, [](std::size_t i) { return i % 4 >= 2; }), t1);
      } else {
        std::vector<Term> ts;
        for (const Product& p : ps) ts.push_back(p.t);
        t = fused_early(row, ts, c0);
      }
      return early ? t : finish(t);
    }
    case CEntry::late_rd: {
      Partial P;
      std::vector<Term> ts;
      for (const Product& p : ps) ts.push_back(p.t);
      if (row.grouping == Grouping::odd_even) {
        const Partial even = align_sum(terms_where(ps, [](std::size_t i) { return i % 2 == 0; }),
                                       row.frac, row.floor);
        const Partial odd = align_sum(terms_where(ps, [](std::size_t i) { return i % 2 == 1; }),
                                      row.frac, row.floor);
        P = combine_rd(even, odd);
      } else {
        P = align_sum(ts, row.frac, row.floor);
      }
      return late_rd_add(row, P, c, ts);
    }
  }
  return 0;
}

// CDNA1 (docs/models.md §2.8, exact): c and the block's products summed exactly, one RNE.
uint64_t exact_step(const ModelRow& row, std::size_t k, const uint64_t* a, const uint64_t* b,
                    uint64_t c) {
  const Unpacked cu = decode(row.out, c);
  const std::vector<Product> ps = products(row, row.in, k, a, b);
  if (Special s = step_specials(row, row.in, k, a, b, cu, ps); s.hit) return s.bits;
  WideAccumulator acc;
  bool any = false;
  for (const Product& p : ps) {
    acc.add(p.t.neg, p.t.sig, p.t.e - p.t.frac);
    any = true;
  }
  if (cu.cls == Class::finite && (row.out_sub || !is_subnormal(row.out, cu))) {
    acc.add(cu.neg, cu.sig, cu.exp);
    any = true;
  }
  if (!any) return zero_bits(row.out, false);
  return flush_out(row, acc.round(row.out, row.round, Overflow::inf, false,
                                  row.result_frac()));
}

// IEEE operations in the output format for the pairwise and FMA paths. NaN
// results are canonicalised by the caller.
struct Ieee {
  const ModelRow& row;
  Fmt f;

  uint64_t flush(uint64_t x, bool keep_sign) const {
    const Unpacked u = decode(f, x);
    if (!row.out_sub && is_subnormal(f, u)) return zero_bits(f, keep_sign && u.neg);
    return x;
  }
  // x*y + z, one rounding (x, y in format `in`; z in f).
  uint64_t fma(Fmt in, uint64_t x, uint64_t y, uint64_t z) const {
    const Unpacked u = decode(in, x), v = decode(in, y), w = decode(f, z);
    if (u.cls == Class::nan || v.cls == Class::nan || w.cls == Class::nan) return default_nan(f);
    const bool pneg = u.neg != v.neg;
    if (u.cls == Class::inf || v.cls == Class::inf) {
      if (u.cls == Class::zero || v.cls == Class::zero) return default_nan(f);
      if (w.cls == Class::inf && w.neg != pneg) return default_nan(f);
      return inf_bits(f, pneg);
    }
    if (w.cls == Class::inf) return z;
    WideAccumulator acc;
    if (u.cls == Class::finite && v.cls == Class::finite)
      acc.add(pneg, static_cast<unsigned __int128>(u.sig) * v.sig, u.exp + v.exp);
    if (w.cls == Class::finite) acc.add(w.neg, w.sig, w.exp);
    const bool pzero = u.cls == Class::zero || v.cls == Class::zero;
    const bool zero_neg = (pzero && w.cls == Class::zero) ? (pneg && w.neg) : false;
    return acc.round(f, Round::rne, Overflow::ieee, zero_neg);
  }
  uint64_t add(uint64_t x, uint64_t y) const {
    const uint64_t one = info(f).specials == Specials::ieee
                             ? round_pack(f, false, 1, 0, false, Round::rne, Overflow::ieee)
                             : 0;
    return fma(f, x, one, y);  // x*1 + y is exactly x + y rounded once
  }
};

// CDNA2 (docs/models.md §2.8, pairwise): products rounded to fp32, a pairwise tree of fp32
// additions, c added last; FTZ of inputs, c, products and every sum.
//
// An input the unit flushes is a zero (of its own sign under flush_sign =
// keep, else +0) multiplied as IEEE does: 0 * Inf or NaN = NaN, 0 * finite =
// a zero with the product's sign (docs/models.md §2.2 step 1). With
// neg_zero = positive, -0 inputs and c read as +0.
uint64_t pairwise_step(const ModelRow& row, std::size_t k, const uint64_t* a, const uint64_t* b,
                       uint64_t c) {
  const Ieee op{row, row.out};
  const bool keep = row.flush_sign == FlushSign::keep;
  const bool pos_zero = row.neg_zero == NegZero::positive;
  auto positive = [&](Fmt f, uint64_t x) { return pos_zero && decode(f, x).cls == Class::zero ? 0 : x; };
  auto read_input = [&](uint64_t x) {
    const Unpacked u = decode(row.in, x);
    return positive(row.in, !row.in_sub && is_subnormal(row.in, u) ? zero_bits(row.in, keep && u.neg) : x);
  };
  uint64_t p[4];
  const std::size_t g = static_cast<std::size_t>(row.pair_group);
  for (std::size_t i = 0; i < g; ++i) {
    const uint64_t x = read_input(i < k ? a[i] : 0), y = read_input(i < k ? b[i] : 0);
    p[i] = op.flush(op.fma(row.in, x, y, zero_bits(row.out, true)), keep);  // RNE32(a*b)
  }
  c = positive(row.out, op.flush(c, keep));
  uint64_t t = op.flush(op.add(p[0], p[1]), true);
  if (g == 4) t = op.flush(op.add(t, op.flush(op.add(p[2], p[3]), true)), true);
  uint64_t d = op.flush(op.add(c, t), true);
  return is_nan(row.out, d) ? nan_result(row) : d;
}

// fp32 / fp64 inputs (docs/models.md §2.11): d = fma(a_i, b_i, d), i = 1..k, IEEE.
uint64_t fma_step(const ModelRow& row, std::size_t k, const uint64_t* a, const uint64_t* b,
                  uint64_t c) {
  const Ieee op{row, row.out};
  uint64_t d = c;
  for (std::size_t i = 0; i < k; ++i) d = op.fma(row.in, a[i], b[i], d);
  return is_nan(row.out, d) ? nan_result(row) : d;
}

}  // namespace

uint64_t step(const ModelRow& row, std::size_t k, const uint64_t* a, const uint64_t* b,
              uint64_t c) {
  assert(k <= step_k(row));
  switch (row.accum) {
    case Accumulation::aligned: return aligned_step(row, k, a, b, c);
    case Accumulation::exact: return exact_step(row, k, a, b, c);
    case Accumulation::pairwise: return pairwise_step(row, k, a, b, c);
    case Accumulation::fma_chain: return fma_step(row, k, a, b, c);
    case Accumulation::integer: return integer_step(row, k, a, b, c);
  }
  return 0;
}

uint64_t dot(const ModelRow& row, std::size_t k, const uint64_t* a, const uint64_t* b,
             uint64_t c) {
  // wgmma with scale-d = 0 does not read C; the instructions that follow it
  // along k accumulate as usual.
  uint64_t d = row.ignores_c ? zero_bits(row.out, false) : c;
  const std::size_t s = step_k(row);
  for (std::size_t i = 0; i < k; i += s) d = step(row, std::min(s, k - i), a + i, b + i, d);
  return d;
}

void tile(const ModelRow& row, const uint64_t* A, const uint64_t* B, const uint64_t* C,
          uint64_t* D) {
  const std::size_t m = row.m, n = row.n, k = row.k;
  std::vector<uint64_t> col(k);
  for (std::size_t j = 0; j < n; ++j) {
    for (std::size_t l = 0; l < k; ++l) col[l] = B[l * n + j];
    for (std::size_t i = 0; i < m; ++i) D[i * n + j] = dot(row, k, A + i * k, col.data(), C[i * n + j]);
  }
}

}  // namespace mmaemu::ref
