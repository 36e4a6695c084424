// SPDX-License-Identifier: BSD-3-Clause
// Reference engine of the block-scaled units; section numbers refer to
// docs/block-scaled.md.
#include "ref/block_scaled.h"


#include <algorithm>
#include <bit>
#include <climits>
#include <stdexcept>
#include <string>
#include <vector>

namespace mmaemu::ref {
namespace {

// ---------------------------------------------------------------------------
// Terms and the fused truncated sum (§3.1).
//
// A term is (-1)^neg * mag * 2^lsb with alignment exponent e (not the value's
// true exponent). With E = the largest e (zero terms count as e_zero), every
// term is truncated to the window of F fraction bits below 2^E:
//
//        2^E                    2^(E-F)
//   ... | x | x x x x ... x x x |  dropped (no guard, no sticky)
//         t = floor(mag * 2^(lsb - (E - F)))
//
// and S = sum of the signed t is exact; the result is S * 2^(E-F), rounded once.

struct Term {
  bool neg;
  uint64_t mag;
  int lsb;
  int e;
};

class FusedSum {
 public:
  FusedSum(int F, int e_zero) : F_(F), e_zero_(e_zero) {}
  void add_zero() { E_ = std::max(E_, e_zero_); }
  void add(const Term& t) {
    terms_.push_back(t);
    E_ = std::max(E_, t.e);
  }
  // The exact sum of the truncated terms, in units of 2^(E - F).
  int64_t sum() const {
    int64_t s = 0;
    for (const Term& t : terms_) {
      const int sh = (E_ - F_) - t.lsb;  // >= 64: the term lies under the window
      const uint64_t v = sh >= 64 ? 0 : sh > 0 ? t.mag >> sh : t.mag << -sh;
      s += t.neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
    }
    return s;
  }
  int lsb() const { return E_ - F_; }

 private:
  int F_, e_zero_;
  int E_ = INT_MIN;
  std::vector<Term> terms_;
};

// Final rounding (§3.1): +0 for S = 0; otherwise one rounding of S * 2^q,
// overflow to +-Inf even under RZ, a result rounded to zero keeps S's sign.
uint64_t round_sum(int64_t S, int q, Fmt out, Round r) {
  if (S == 0) return zero_bits(out, false);
  const uint64_t mag = S < 0 ? 0 - static_cast<uint64_t>(S) : static_cast<uint64_t>(S);
  return round_pack(out, S < 0, mag, q, false, r, Overflow::inf);
}

// ---------------------------------------------------------------------------
// Decomposition for alignment (§1.3): x = +-sig * 2^lsb, alignment exponent
// e = lsb + m (subnormals clamped at emin); fp6/fp4 subnormals may instead be
// renormalised (e = exponent of the leading bit) when the row says so.

struct Split {
  bool neg;
  uint64_t sig;
  int lsb;
  int e;
};

Split split(Fmt f, const Unpacked& u, NarrowSubnormals ns) {
  const FormatInfo& fi = info(f);
  int e = u.exp + fi.man_bits;
  const bool narrow_subnormal = !fi.has_nan() && u.sig < (uint64_t{1} << fi.man_bits);
  if (ns == NarrowSubnormals::normalize && narrow_subnormal)
    e = u.exp + static_cast<int>(std::bit_width(u.sig)) - 1;
  return {u.neg, u.sig, u.exp, e};
}

// ---------------------------------------------------------------------------
// Special values (§2.2), gathered before any arithmetic.

struct Specials {
  bool nan = false, pos_inf = false, neg_inf = false;
  void inf(bool neg) { (neg ? neg_inf : pos_inf) = true; }
  // An element product: NaN factor, Inf * 0, or an infinite product.
  void product(const Unpacked& x, const Unpacked& y) {
    if (x.cls == Class::nan || y.cls == Class::nan) nan = true;
    const bool x_inf = x.cls == Class::inf, y_inf = y.cls == Class::inf;
    if (!x_inf && !y_inf) return;
    if (x.cls == Class::zero || y.cls == Class::zero) nan = true;
    else inf(x.neg != y.neg);
  }
  void addend(const Unpacked& c) {
    if (c.cls == Class::nan) nan = true;
    if (c.cls == Class::inf) inf(c.neg);
  }
  bool any() const { return nan || pos_inf || neg_inf; }
  uint64_t result(Fmt out) const {
    if (nan || (pos_inf && neg_inf)) return out == Fmt::fp16 ? 0x7FFF : 0x7FFFFFFF;
    return inf_bits(out, neg_inf);
  }
};

uint64_t nan_out(Fmt out) { return out == Fmt::fp16 ? 0x7FFF : 0x7FFFFFFF; }

// c is one more term of the fused sum (early c), or a zero term.
void add_c(FusedSum& sum, Fmt out, const Unpacked& c) {
  if (c.cls == Class::zero) return sum.add_zero();
  const Split s = split(out, c, NarrowSubnormals::clamp);
  sum.add({s.neg, s.sig, s.lsb, s.e});
}

// ---------------------------------------------------------------------------
// T-FDPA (§3.2) and ST-FDPA (§3.3): one term per product, A*B not
// renormalised; ST adds the scale exponent es to lsb and e alike.

uint64_t t_or_st_fdpa(const ScaledUnit& u, Fmt out, const ScaledStep& s) {
  Specials sp;
  int es = 0;
  if (u.algo == ScaledAlgo::st_fdpa) {
    const Unpacked sa = decode(u.scale, s.sa[0]), sb = decode(u.scale, s.sb[0]);
    if (sa.cls == Class::nan || sb.cls == Class::nan) return nan_out(out);  // NaN scale first
    es = sa.exp + sb.exp;  // ue8m0: sig 1, exp = code - 127
  }
  const Unpacked c = decode(out, s.c);
  sp.addend(c);
  std::vector<Unpacked> a(u.k), b(u.k);
  for (int i = 0; i < u.k; ++i) {
    a[i] = decode(s.fa, s.a[i]);
    b[i] = decode(s.fb, s.b[i]);
    sp.product(a[i], b[i]);
  }
  if (sp.any()) return sp.result(out);

  FusedSum sum(u.frac, e_zero_for(u, out));
  for (int i = 0; i < u.k; ++i) {
    if (a[i].cls == Class::zero || b[i].cls == Class::zero) {
      sum.add_zero();
      continue;
    }
    const Split x = split(s.fa, a[i], u.subnormals), y = split(s.fb, b[i], u.subnormals);
    sum.add({x.neg != y.neg, x.sig * y.sig, x.lsb + y.lsb + es, x.e + y.e + es});
  }
  add_c(sum, out, c);
  return round_sum(sum.sum(), sum.lsb(), out, out == Fmt::fp16 ? u.round16 : u.round);
}

// ---------------------------------------------------------------------------
// GST-FDPA (§3.4): exact group sums Q = sum of (2a)(2b) over 16 products, one
// term per group aligned at the scale exponents alone:
//   (sign Q, |Q| * SA * SB, eSA + eSB - fSA - fSB - 2, eSA + eSB).
// An all-zero group or a zero scale product is a zero term; a group that
// cancels to Q = 0 still raises E.

uint64_t gst_fdpa(const ScaledUnit& u, Fmt out, const ScaledStep& s) {
  const int blocks = u.k / u.block;
  for (int j = 0; j < blocks; ++j)  // any NaN scale, even over zero elements
    if (decode(u.scale, s.sa[j]).cls == Class::nan || decode(u.scale, s.sb[j]).cls == Class::nan)
      return nan_out(out);
  const Unpacked c = decode(out, s.c);
  Specials sp;
  sp.addend(c);
  if (sp.any()) return sp.result(out);

  FusedSum sum(u.frac, e_zero_for(u, out));
  for (int g = 0; g < u.k / u.group; ++g) {
    int64_t Q = 0;
    bool all_zero = true;
    for (int i = g * u.group; i < (g + 1) * u.group; ++i) {
      const Unpacked a = decode(s.fa, s.a[i]), b = decode(s.fb, s.b[i]);
      if (a.cls == Class::zero || b.cls == Class::zero) continue;
      all_zero = false;
      // 2a = sig << (exp + 1): an integer for e2m1 (exp >= -1).
      const int64_t p = static_cast<int64_t>((a.sig << (a.exp + 1)) * (b.sig << (b.exp + 1)));
      Q += a.neg != b.neg ? -p : p;
    }
    const int j = g * u.group / u.block;
    const Unpacked sa = decode(u.scale, s.sa[j]), sb = decode(u.scale, s.sb[j]);
    if (all_zero || sa.cls == Class::zero || sb.cls == Class::zero) {
      sum.add_zero();
      continue;
    }
    const int m = info(u.scale).man_bits;
    const uint64_t mag = static_cast<uint64_t>(Q < 0 ? -Q : Q) * sa.sig * sb.sig;
    sum.add({Q < 0, mag, sa.exp + sb.exp - 2, sa.exp + sb.exp + 2 * m});
  }
  add_c(sum, out, c);
  return round_sum(sum.sum(), sum.lsb(), out, u.round);
}

// A scale code that leaves a padded block neutral (§4.3): 1.0, not NaN.
uint8_t neutral_scale(Fmt scale) { return scale == Fmt::ue8m0 ? 0x7F : 0x38; }

}  // namespace

void check_formats(const ScaledUnit& u, Fmt fa, Fmt fb, Fmt out) {
  if (!(u.elements & fmt_bit(fa)) || !(u.elements & fmt_bit(fb)))
    throw std::invalid_argument(std::string(u.instruction) + " does not take " + info(fa).name + " x " +
                                info(fb).name);
  (void)e_zero_for(u, out);  // refuses an output the row does not have
}

uint64_t scaled_instruction(const ScaledUnit& unit, Fmt out, const ScaledStep& s) {
  check_formats(unit, s.fa, s.fb, out);
  return unit.algo == ScaledAlgo::gst_fdpa ? gst_fdpa(unit, out, s) : t_or_st_fdpa(unit, out, s);
}

// ---------------------------------------------------------------------------
// GEMM level (§4.2-§4.4).

uint64_t scaled_step(const ScaledUnit& u, Fmt out, ScaledStep s, std::size_t len) {
  const std::size_t step = static_cast<std::size_t>(u.k);
  if (len >= step) return scaled_instruction(u, out, s);
  // The last instruction of a chain: zero elements, neutral scales.
  std::vector<uint8_t> pa(step, 0), pb(step, 0), psa, psb;
  std::copy(s.a, s.a + len, pa.begin());
  std::copy(s.b, s.b + len, pb.begin());
  s.a = pa.data();
  s.b = pb.data();
  if (u.block) {
    const std::size_t block = static_cast<std::size_t>(u.block);
    psa.assign(step / block, neutral_scale(u.scale));
    psb.assign(step / block, neutral_scale(u.scale));
    std::copy(s.sa, s.sa + len / block, psa.begin());
    std::copy(s.sb, s.sb + len / block, psb.begin());
    s.sa = psa.data();
    s.sb = psb.data();
  }
  return scaled_instruction(u, out, s);
}

uint64_t scaled_chain(const ScaledUnit& u, Fmt out, Fmt fa, Fmt fb, std::size_t k, const uint8_t* a,
                      const uint8_t* sa, const uint8_t* b, const uint8_t* sb, uint64_t acc) {
  const std::size_t step = static_cast<std::size_t>(u.k);
  const std::size_t block = u.block ? static_cast<std::size_t>(u.block) : step;
  for (std::size_t i = 0; i < k; i += step) {  // increasing k; never an all-padding step
    const ScaledStep s{fa, fb, a + i, b + i, u.block ? sa + i / block : nullptr, u.block ? sb + i / block : nullptr,
                       acc};
    acc = scaled_step(u, out, s, std::min(step, k - i));
  }
  return acc;
}

}  // namespace mmaemu::ref
