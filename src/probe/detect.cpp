// SPDX-License-Identifier: BSD-3-Clause
// The feature tests (GNFT, PN §3.1 and PA §4), generalised to any pair of
// formats and any instruction k, run against a black box only.
//
// Every test builds a vector whose exact result under each hypothesis is
// known, calls the unit and compares bits. Values are scaled to L = 2^e0, a
// power of two high in the ranges of both formats, so the same test works
// for fp16, bf16, tf32, fp8 and fp32/fp64 inputs; u = 2^-q is the ulp of 1 in
// the unit's result precision q. The order follows the papers: special
// values and subnormals, result precision, which positions are fused (N_FMA),
// the kind of accumulation, the window F and its rounding, product form,
// final rounding, where c enters, then the finer late-c, floor and zero-c
// rules. A test that needs a value the formats cannot hold reports n/a.
#include <algorithm>
#include <climits>
#include <array>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "probe/lab.h"

namespace mmaemu::probe {
namespace {

std::string hex(uint64_t x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llX", static_cast<unsigned long long>(x));
  return buf;
}

// floor(x / 2^g) * 2^g: rounding down to the grid 2^g (exact in double for
// the values used: their bits span fewer than 53 binades above 2^g).
double floor_grid(double x, int g) { return std::floor(std::ldexp(x, -g)) * p2(g); }

class Probe {
 public:
  explicit Probe(const BlackBox& box) : lab_(box), fin_(info(box.in)), fout_(info(box.out)) {
    f_.in = box.in;
    f_.out = box.out;
    f_.k = box.k;
    e0_ = std::min(2 * fin_.emax() - 1, fout_.emax() - 4);
    L_ = p2(e0_);
  }

  Features run() {
    guard(&Probe::specials);
    guard(&Probe::in_subnormals);
    guard(&Probe::reads_c);
    guard(&Probe::out_subnormals);
    guard(&Probe::precision);
    if (q_ > 0) {
      guard(&Probe::structure);
      guard(&Probe::accumulation);
      guard(&Probe::window);
      guard(&Probe::alignment_and_grouping);
      guard(&Probe::product_form);
      guard(&Probe::rounding);
      guard(&Probe::c_entry);
      guard(&Probe::late_rd);
      guard(&Probe::late_cutoff);
      guard(&Probe::floor_and_zero_c);
      guard(&Probe::late_exact_zero_c);
      guard(&Probe::product_overflow);
      guard(&Probe::normalisation);
    }
    guard(&Probe::inputs_as_fp16);
    fill_na();
    f_.calls = lab_.calls();
    return f_;
  }

 private:
  // A test that needs values the formats cannot hold is abandoned; the
  // features it would have set stay n/a with fill_na's reason.
  void guard(void (Probe::*step)()) {
    try {
      (this->*step)();
    } catch (const Unrealisable& e) {
      last_unrealisable_ = e.what();
    }
  }

  void anomaly(const std::string& what) { f_.anomalies.push_back(what); }

  bool is(double d, double v) const { return d == v && std::signbit(d) == std::signbit(v); }
  bool aligned() const { return f_.accum.known && f_.accum.value == Accumulation::aligned; }
  bool have(const Det<bool>& d) const { return d.known && d.value; }

  // --- special values (PN §4.1.6 list, PA §4.1) ----------------------------
  void specials() {
    const Fmt in = lab_.in(), out = lab_.out();
    {
      Vec v = lab_.zero();
      v.a[0] = default_nan(in);
      v.b[0] = lab_.in_bits(1);
      const uint64_t d = lab_.run(v);
      if (is_nan(out, d))
        f_.nan.set(d, "a1 = NaN, b1 = 1 gives " + hex(d));
      else
        anomaly("a NaN input gave the non-NaN " + hex(d));
    }
    if (fin_.specials == Specials::ieee) {
      Vec v = lab_.zero();
      v.a[0] = inf_bits(in, false);
      v.b[0] = lab_.in_bits(1);
      const double pos = lab_.runv(v);
      v.a[0] = inf_bits(in, true);
      const double neg = lab_.runv(v);
      f_.inf_operand.set(pos == HUGE_VAL && neg == -HUGE_VAL, "a1 = +-Inf, b1 = 1");
      v = lab_.zero();
      v.a[0] = inf_bits(in, false);
      v.a[1] = inf_bits(in, true);
      v.b[0] = v.b[1] = lab_.in_bits(1);
      f_.inf_minus_inf_nan.set(std::isnan(lab_.runv(v)), "a1 = +Inf, a2 = -Inf, b = 1");
      v = lab_.zero();
      v.a[0] = inf_bits(in, false);
      f_.zero_times_inf_nan.set(std::isnan(lab_.runv(v)), "a1 = Inf, b1 = 0");
    } else {
      const char* why = "the input format has no infinity";
      f_.inf_operand.na(why);
      f_.inf_minus_inf_nan.na(why);
      f_.zero_times_inf_nan.na(why);
    }
    // Overflow: only observable when one product exceeds the output range.
    const double mx = value(in, max_finite_bits(in, false));
    if (mx * mx >= p2(fout_.emax() + 1)) {
      Vec v = lab_.zero();
      for (int i = 0; i < lab_.k(); ++i) lab_.set2(v, i, mx, mx);
      const uint64_t d = lab_.run(v);
      if (d == inf_bits(out, false))
        f_.overflow_inf.set(true, "k products max_in^2 give +Inf");
      else if (d == max_finite_bits(out, false))
        f_.overflow_inf.set(false, "k products max_in^2 saturate");
      else
        anomaly("k products max_in^2 gave " + hex(d));
    } else {
      f_.overflow_inf.na("the largest product, max_in^2, is inside the output range");
    }
  }

  // --- subnormals (PN §3.1 examples) -------------------------------------
  void in_subnormals() {
    const double x = p2(fin_.emin() - fin_.man_bits);  // smallest subnormal input
    const double y = p2(fin_.emax());
    const double p = x * y;
    Vec v = lab_.zero();
    lab_.set2(v, 0, x, y);
    lab_.out_bits(p);
    const double d = lab_.runv(v);
    const std::string how = "a1 = 2^" + std::to_string(ilog2(x)) + " (subnormal), b1 = 2^" +
                            std::to_string(ilog2(y));
    if (d == p) f_.in_subnormals.set(true, how + ": exact product");
    else if (d == 0) {
      f_.in_subnormals.set(false, how + ": 0");
      lab_.normal_factors_only(true);  // every later test uses normal inputs
    }
    else anomaly(how + " gave an unexpected value");
  }

  void reads_c() {
    Vec v = lab_.zero();
    lab_.set(v, 0, 1);
    lab_.setc(v, 1);
    const double d = lab_.runv(v);
    if (d == 2) f_.reads_c.set(true, "c = 1, p1 = 1 gives 2");
    else if (d == 1) f_.reads_c.set(false, "c = 1, p1 = 1 gives 1: D = A*B");
    else anomaly("c = 1, p1 = 1 gave an unexpected value");
  }

  // A subnormal output from normal inputs (a1 = 2^i, b1 = 2^j), else from c.
  void out_subnormals() {
    const int te = fout_.emin() - 1;
    const double t = p2(te);
    int i = te / 2, j = te - i;
    if (j < fin_.emin()) j = fin_.emin(), i = te - j;
    const bool normal = i >= fin_.emin() && i <= fin_.emax() && j >= fin_.emin() && j <= fin_.emax();
    if (normal) {
      sub_by_products_ = true;
      sub_i_ = i;
      sub_j_ = j;
      Vec v = lab_.zero();
      lab_.set2(v, 0, p2(i), p2(j));
      const double d = lab_.runv(v);
      const std::string how = "p1 = 2^" + std::to_string(te) + " from normal inputs";
      if (d == t) f_.out_subnormals.set(true, how + ": kept");
      else if (d == 0) f_.out_subnormals.set(false, how + ": flushed");
      else anomaly(how + " gave an unexpected value");
    } else if (have(f_.reads_c)) {
      Vec v = lab_.zero();
      lab_.setc(v, t);
      const double d = lab_.runv(v);
      const std::string how = "c = 2^" + std::to_string(te) + ", no products";
      if (d == t) f_.out_subnormals.set(true, how + ": kept");
      else if (d == 0) f_.out_subnormals.set(false, how + ": flushed");
      else anomaly(how + " gave an unexpected value");
    } else {
      f_.out_subnormals.na("products cannot be subnormal in the output and C is not read");
      f_.flush_sign.na("no subnormal result can be formed");
    }
    if (f_.out_subnormals.known && f_.out_subnormals.value) {
      f_.flush_sign.na("nothing is flushed");
    } else if (f_.out_subnormals.known && sub_by_products_) {
      // -t alone, every other product -0 and c = -0: a flushed -t is -0 if
      // the sign is kept, else +0.
      Vec v = lab_.zero();
      for (int k = 1; k < lab_.k(); ++k) v.b[static_cast<std::size_t>(k)] = lab_.in_bits(-1);
      v.c = zero_bits(lab_.out(), true);
      lab_.set2(v, 0, -p2(sub_i_), p2(sub_j_));
      const uint64_t d = lab_.run(v);
      if (d == zero_bits(lab_.out(), true)) f_.flush_sign.set(FlushSign::keep, "-2^emin/2 flushes to -0");
      else if (d == zero_bits(lab_.out(), false)) f_.flush_sign.set(FlushSign::positive, "-2^emin/2 flushes to +0");
      else anomaly("a flushed negative subnormal gave " + hex(d));
    } else if (f_.out_subnormals.known) {
      f_.flush_sign.na("no negative subnormal result can be formed from products");
    }
  }

  // --- result precision: p1 = L, p2 = L*2^-t is exact for t <= q ---------
  void precision() {
    int q = 0;
    for (int t = 1; t <= fout_.man_bits; ++t) {
      Vec v = lab_.zero();
      lab_.set(v, 0, L_);
      lab_.set(v, 1, L_ * p2(-t));
      if (lab_.runv(v) != L_ * (1 + p2(-t))) break;
      q = t;
    }
    if (q == 0) {
      anomaly("1 + 1/2 is not exact: no result precision found");
      return;
    }
    q_ = q;
    u_ = p2(-q);
    f_.out_frac_bits.set(q, "p1 = 1, p2 = 2^-t exact for t <= " + std::to_string(q));
  }

  // --- which positions are fused with position 0 -------------------------
  //
  // C test (PA G5 / K2 idea, carry form, needs only F >= q):
  //   c = 1+u, p1 = 1, p_j = -1.  Fused: 1+u exactly. If p_j is added after
  //   a rounding, 2+u was rounded first (to 2 or 2+2u) and the result is 1
  //   or 1+2u.
  // H test (PN H5, needs F >= q+1):
  //   p1 = 1, p2 = u/2, p_j = u/2.  Fused: 1+u; else 1 or 1+2u.
  // K test (carry form without c, for units that do not read C):
  //   p1 = p2 = 1, p3 = u, p_j = -1.  Fused: 1+u.
  bool test_c(int j) {
    Vec v = lab_.zero();
    lab_.setc(v, L_ * (1 + u_));
    lab_.set(v, 0, L_);
    lab_.set(v, j, -L_);
    return lab_.runv(v) == L_ * (1 + u_);
  }
  bool test_h(int j) {
    Vec v = lab_.zero();
    lab_.set(v, 0, L_);
    lab_.set(v, 1, L_ * u_ / 2);
    lab_.set(v, j, L_ * u_ / 2);
    return lab_.runv(v) == L_ * (1 + u_);
  }
  bool test_k(int j) {
    Vec v = lab_.zero();
    lab_.set(v, 0, L_);
    lab_.set(v, 1, L_);
    lab_.set(v, 2, L_ * u_);
    lab_.set(v, j, -L_);
    return lab_.runv(v) == L_ * (1 + u_);
  }

  void structure() {
    const int k = lab_.k();
    std::vector<bool> C(k, false), H(k, false), K(k, false);
    bool hvalid = false;
    try {
      for (int j = 2; j < k; ++j) hvalid |= (H[j] = test_h(j));
    } catch (const Unrealisable&) {
      hvalid = false;
    }
    auto lead = [&](const std::vector<bool>& m, int from) {
      int n = 0;
      for (int j = from; j < k && m[j]; ++j) ++n;
      return n;
    };
    auto rest_false = [&](const std::vector<bool>& m, int from) {
      for (int j = from; j < k; ++j)
        if (m[j]) return false;
      return true;
    };
    bool interleave = hvalid && k % 4 == 0;
    for (int j = 2; j < k && interleave; ++j) interleave = H[j] == (j % 4 < 2);

    std::string how;
    if (have(f_.reads_c)) {
      for (int j = 1; j < k; ++j) C[j] = test_c(j);
      const int nc = 1 + lead(C, 1);
      if (nc == k && interleave) {
        N_ = k / 2;
        for (int j = 0; j < k; ++j)
          if (j % 4 < 2) W_.push_back(j);
        f_.grouping.set(Grouping::pair_interleave,
                        "c test fuses all k, p1 = 1, p2 = p_j = u/2 fuses only j mod 4 in {0,1} "
                        "(PN H5): two chained sub-blocks of alternating pairs");
        how = "two interleaved sub-blocks of " + std::to_string(N_);
      } else if (rest_false(C, nc)) {
        N_ = nc;
        for (int j = 0; j < N_; ++j) W_.push_back(j);
        how = "c = 1+u, p1 = 1, p_j = -1 gives 1+u for j <= " + std::to_string(N_);
      } else {
        anomaly("the positions fused with c and p1 are not contiguous");
        return;
      }
    } else {
      if (hvalid) {
        if (interleave) {
          N_ = k / 2;
          for (int j = 0; j < k; ++j)
            if (j % 4 < 2) W_.push_back(j);
          f_.grouping.set(Grouping::pair_interleave, "p1 = 1, p2 = p_j = u/2 fuses j mod 4 in {0,1}");
          how = "two interleaved sub-blocks of " + std::to_string(N_);
        } else {
          N_ = 2 + lead(H, 2);
          if (!rest_false(H, N_)) {
            anomaly("the positions fused with p1 are not contiguous");
            return;
          }
          how = "p1 = 1, p2 = p_j = u/2 gives 1+u for j <= " + std::to_string(N_);
        }
      } else {
        for (int j = 3; j < k; ++j) K[j] = test_k(j);
        if (k < 4 || !K[3]) {
          anomaly("no fusion test applies (C is not read and F = q)");
          return;
        }
        N_ = 3 + lead(K, 3);
        if (!rest_false(K, N_)) {
          anomaly("the positions fused with p1 are not contiguous");
          return;
        }
        how = "p1 = p2 = 1, p3 = u, p_j = -1 gives 1+u for j <= " + std::to_string(N_);
      }
      if (W_.empty())
        for (int j = 0; j < N_; ++j) W_.push_back(j);
    }
    if (k % N_ != 0) anomaly("N = " + std::to_string(N_) + " does not divide k");
    block_how_ = how + (N_ * (f_.grouping.known ? 2 : 1) == k ? " (the whole instruction)" : "");
    if (W_.size() >= 3) z_ = W_[2];
  }

  // --- kind of accumulation within the fused positions W -----------------
  void accumulation() {
    if (N_ == 0) return;
    const int m = fin_.man_bits;
    if (N_ == 1) {
      // IEEE FMA: (1+2^-m)^2 - (1+2^(1-m)) = 2^-2m exactly (PA 4.1.1).
      Vec v = lab_.zero();
      const double x = 1 + p2(-m);
      lab_.set2(v, 0, x, x);
      lab_.setc(v, -(1 + p2(1 - m)));
      if (lab_.runv(v) == p2(-2 * m))
        f_.accum.set(Accumulation::fma_chain,
                     "N = 1 and c + a1*b1 is exact before one rounding: a chain of FMAs");
      else
        anomaly("N = 1 but c + a1*b1 is not an exact FMA");
      return;
    }
    // Survival of a tiny s next to a cancelling pair +-L. In a window of F
    // bits relative to 2^e0, s = L*2^-D (D > F) is truncated.
    int D = 60;
    while (D > 1 && !(lab_.realisable(L_ * p2(-D)) && lab_.representable(L_ * p2(-D)))) --D;
    const double s = L_ * p2(-D);
    const double h = L_ * u_ / 2;
    bool survive = false;
    if (W_.size() >= 3) {
      Vec v = lab_.zero();
      lab_.set(v, W_[0], L_);
      lab_.set(v, W_[1], -L_);
      lab_.set(v, W_[2], s);
      const double d = lab_.runv(v);
      if (d != s && d != 0) {
        anomaly("L - L + s gave neither s nor 0");
        return;
      }
      survive = d == s;
    } else if (have(f_.reads_c)) {
      Vec v = lab_.zero();
      lab_.set(v, 0, L_);
      lab_.set(v, 1, -L_);
      lab_.setc(v, s);
      survive = lab_.runv(v) == s;
    } else {
      anomaly("two fused positions and C not read: accumulation unknown");
      return;
    }
    const std::string sv = "p = L, -L, L*2^-" + std::to_string(D) + " fused: ";
    if (!survive) {
      f_.accum.set(Accumulation::aligned, sv + "the small term is lost, a window of F bits");
      return;
    }
    // Exact vs rounded additions: L + u/2 + u/2 is exact only without a
    // rounding in between (a pairwise tree rounds L + u/2 to L).
    double d = 0;
    if (W_.size() >= 3) {
      Vec v = lab_.zero();
      lab_.set(v, W_[0], L_);
      lab_.set(v, W_[1], h);
      lab_.set(v, W_[2], h);
      d = lab_.runv(v);
    } else {
      Vec v = lab_.zero();
      lab_.set(v, 0, L_);
      lab_.set(v, 1, h);
      lab_.setc(v, h);
      d = lab_.runv(v);
    }
    if (d == L_ * (1 + u_)) {
      f_.accum.set(Accumulation::exact, sv + "kept; 1 + u/2 + u/2 = 1+u: exact sum, one rounding");
    } else {
      f_.accum.set(Accumulation::pairwise,
                   sv + "kept; 1 + u/2 + u/2 != 1+u: every addition rounded (pairwise tree)");
    }
  }

  // --- F: p = L, L*2^-m, -L keeps L*2^-m for m <= F ----------------------
  void window() {
    if (!aligned() || z_ < 0) return;
    int F = 0;
    bool ended = false;
    for (int m = 1; m <= 64; ++m) {
      const double s = L_ * p2(-m);
      if (!lab_.realisable(s) || !lab_.representable(s)) break;
      Vec v = lab_.zero();
      lab_.set(v, 0, L_);
      lab_.set(v, W_[1], s);
      lab_.set(v, z_, -L_);
      const double d = lab_.runv(v);
      if (d == s) {
        F = m;
      } else if (d == 0) {
        ended = true;
        break;
      } else {
        anomaly("L + L*2^-m - L gave neither 2^-m nor 0");
        return;
      }
    }
    if (!ended) {
      f_.frac_bits.na("F >= " + std::to_string(F) + ": the inputs cannot form smaller terms");
      return;
    }
    F_ = F;
    f_.frac_bits.set(F, "p = L, L*2^-m, -L keeps L*2^-m for m <= " + std::to_string(F) +
                            " (neab = " + std::to_string(F - 23) + ")");
  }

  // --- rounding at alignment and grouping --------------------------------
  // x = +-1.5*2^-F at position j next to L - L: truncation gives +-2^-F, RD
  // (+1, -2), RU (+2, -1), nearest +-2 (in units of 2^-F). In odd/even groups
  // (PA §4.3.4) a term alone in the other group is combined with RD.
  AlignRound align_mode(int j) {
    const double x = 1.5 * L_ * p2(-F_), w = L_ * p2(-F_);
    double r[2];
    for (int sgn = 0; sgn < 2; ++sgn) {
      Vec v = lab_.zero();
      lab_.set(v, 0, L_);
      lab_.set(v, z_, -L_);
      lab_.set(v, j, sgn ? -x : x);
      r[sgn] = lab_.runv(v) / w;
    }
    if (r[0] == 1 && r[1] == -1) return AlignRound::truncate;
    if (r[0] == 1 && r[1] == -2) return AlignRound::down;
    if (r[0] == 2 && r[1] == -1) return AlignRound::up;
    if (r[0] == 2 && r[1] == -2) return AlignRound::nearest;
    throw Unrealisable("alignment rounding: unexpected result");
  }

  void alignment_and_grouping() {
    if (!aligned() || F_ == 0) return;
    std::vector<std::pair<int, AlignRound>> modes;
    for (int j : W_) {
      if (j == 0 || j == z_) continue;
      modes.emplace_back(j, align_mode(j));
      if (modes.size() >= 8) break;
    }
    bool same = true, odd_even = (z_ % 2 == 0);
    for (const auto& [j, mo] : modes) {
      same &= mo == modes[0].second;
      odd_even &= mo == (j % 2 ? AlignRound::down : AlignRound::truncate);
    }
    if (same) {
      f_.alignment.set(modes[0].second, "x = +-1.5*2^-F next to L - L at positions in the block");
      if (!f_.grouping.known)
        f_.grouping.set(Grouping::contiguous, "the rounding at alignment is the same at every position");
    } else if (odd_even) {
      f_.alignment.set(AlignRound::truncate, "x = +-1.5*2^-F in the group of L: truncated");
      f_.grouping.set(Grouping::odd_even,
                      "x = -1.5*2^-F is rounded down at odd positions, truncated at even ones: "
                      "odd and even positions summed apart, combined with RD (PA N1)");
    } else {
      anomaly("the rounding at alignment depends on the position in no known pattern");
    }
  }

  // --- product form (PN V1): 1.5*1.5 keeps exponent e0 only if denormalised
  void product_form() {
    if (!aligned() || F_ == 0) return;
    const int i = e0_ / 2, j = e0_ - i;
    Vec v = lab_.zero();
    lab_.set2(v, 0, 1.5 * p2(i), 1.5 * p2(j));
    lab_.set2(v, z_, -1.5 * p2(i), 1.5 * p2(j));
    lab_.set(v, W_[1], L_ * p2(-F_));
    const double d = lab_.runv(v);
    const std::string how = "p1 = 1.5*1.5 (2.25), p2 = 2^-F, p3 = -(1.5*1.5): 2^-F ";
    if (d == L_ * p2(-F_)) f_.product.set(ProductForm::denormalised, how + "kept: 2.25 aligned at 2^0");
    else if (d == 0) f_.product.set(ProductForm::normalised, how + "lost: 2.25 aligned at 2^1");
    else anomaly("product-form test gave an unexpected value");
  }

  // --- rounding modes ------------------------------------------------------
  // Sums 2+u, 2+3u and -(2+u) (all in the window) rounded to q bits at 2^1:
  //   RNE (2, 2+4u, -2), RZ (2, 2+2u, -2), RU (2+2u, 2+4u, -2),
  //   RD (2, 2+2u, -2-2u), RNA (2+2u, 2+4u, -2-2u).
  std::optional<Round> classify(double r1, double r2, double r3) const {
    const double a = r1 / L_, b = r2 / L_, c = r3 / L_, u = u_;
    const std::pair<Round, std::array<double, 3>> table[] = {
        {Round::rne, {2, 2 + 4 * u, -2}},         {Round::rz, {2, 2 + 2 * u, -2}},
        {Round::ru, {2 + 2 * u, 2 + 4 * u, -2}},  {Round::rd, {2, 2 + 2 * u, -2 - 2 * u}},
        {Round::rna, {2 + 2 * u, 2 + 4 * u, -2 - 2 * u}}};
    for (const auto& [r, t] : table)
      if (a == t[0] && b == t[1] && c == t[2]) return r;
    return std::nullopt;
  }

  // Products only: p1 = p2 = +-1, p3 = +-u or 3u (positions in W).
  std::optional<Round> rounding_by_products() {
    double r[3];
    const double tails[3] = {u_, 3 * u_, -u_};
    for (int i = 0; i < 3; ++i) {
      const double sg = tails[i] < 0 ? -1 : 1;
      Vec v = lab_.zero();
      lab_.set(v, W_[0], sg * L_);
      lab_.set(v, W_[1], sg * L_);
      lab_.set(v, W_[2], tails[i] * L_);
      r[i] = lab_.runv(v);
    }
    return classify(r[0], r[1], r[2]);
  }
  // With c: c = +-(1+u) or 1+3u, p1 = +-1.
  std::optional<Round> rounding_by_c() {
    double r[3];
    const double cs[3] = {1 + u_, 1 + 3 * u_, -(1 + u_)};
    for (int i = 0; i < 3; ++i) {
      Vec v = lab_.zero();
      lab_.set(v, 0, cs[i] < 0 ? -L_ : L_);
      lab_.setc(v, cs[i] * L_);
      r[i] = lab_.runv(v);
    }
    return classify(r[0], r[1], r[2]);
  }

  void rounding() {
    if (!f_.accum.known) return;
    std::optional<Round> r;
    std::string how;
    if (W_.size() >= 3 && f_.accum.value != Accumulation::fma_chain) {
      r = rounding_by_products();
      how = "p = 1, 1, u / 1, 1, 3u / -1, -1, -u (sums 2+u, 2+3u, -(2+u))";
    } else if (have(f_.reads_c)) {
      r = rounding_by_c();
      how = "c = 1+u, 1+3u, -(1+u) with p1 = +-1";
    }
    if (r) {
      final_round_ = *r;
      f_.final_round.set(*r, how);
    } else {
      anomaly("the rounding of the results matches no rounding mode");
    }
  }

  // --- where c enters -------------------------------------------------------
  void c_entry() {
    if (!f_.reads_c.known) return;
    if (!f_.reads_c.value) {
      f_.c_entry.na("C is not read");
      return;
    }
    if (!f_.accum.known) return;
    const double h = L_ * u_ / 2;
    switch (f_.accum.value) {
      case Accumulation::fma_chain:
        f_.c_entry.na("part of the FMA chain: it starts from c ((c + p1) is rounded before p2)");
        return;
      case Accumulation::exact: {
        Vec v = lab_.zero();
        lab_.setc(v, h);
        lab_.set(v, W_[0], L_);
        lab_.set(v, W_[1], h);
        if (lab_.runv(v) == L_ * (1 + u_))
          f_.c_entry.na("part of the exact sum (c = u/2, p = 1, u/2 gives 1+u)");
        else
          anomaly("exact accumulation but c is not part of the exact sum");
        return;
      }
      case Accumulation::pairwise: {
        Vec v = lab_.zero();
        lab_.setc(v, L_);
        lab_.set(v, W_[0], h);
        lab_.set(v, W_[1], h);
        if (lab_.runv(v) == L_ * (1 + u_))
          f_.c_entry.na("part of the pairwise tree: added to the tree's sum (c = 1, p = u/2, u/2 "
                        "gives 1+u)");
        else
          anomaly("pairwise tree but c is not added last");
        return;
      }
      case Accumulation::aligned: break;
    }
    if (F_ == 0 || z_ < 0) return;
    // p = L, -L and c = -1.25*2^-F (PA K7): early c is truncated with the
    // products (-2^-F), late RD alignment gives -2^(1-F), a late addition
    // keeps c whole.
    const double w = L_ * p2(-F_);
    Vec v = lab_.zero();
    lab_.set(v, 0, L_);
    lab_.set(v, z_, -L_);
    lab_.setc(v, -1.25 * w);
    const double d = lab_.runv(v);
    const std::string how = "p = L, -L, c = -1.25*2^-F: ";
    if (d == -w) {
      f_.c_entry.set(CEntry::early, how + "-2^-F, c truncated in the products' window");
    } else if (d == -2 * w) {
      f_.c_entry.set(CEntry::late_rd, how + "-2^(1-F), c added after the products, rounded down");
    } else if (d == -1.25 * w) {
      f_.c_entry.set(CEntry::late_rne, how + "c whole: added after the products' rounding");
      std::optional<Round> r = rounding_by_c();
      if (r) f_.late_round.set(*r, "c = 1+u, 1+3u, -(1+u) with p1 = +-1 (the late addition)");
      else anomaly("the late addition matches no rounding mode");
    } else {
      anomaly("c-entry test gave an unexpected value");
    }
  }

  bool late() const { return f_.c_entry.known && f_.c_entry.value == CEntry::late_rd; }

  // c dominating the product sum P in the late RD addition, as PA
  // Algorithm 1 (two-stage) or the toolbox/MMA-Sim (single-stage) describe:
  // the predictions of the two hypotheses.
  double late_dominant(double P, double c, int e_c, LateRd mode) const {
    double S;
    if (mode == LateRd::single_stage) {
      S = floor_grid(P, e_c - F_ - 7) + c;
    } else {
      S = floor_grid(P, e_c - F_ - 8) + c;
      if (S != 0) {
        const int lead = std::max(ilog2(std::fabs(S)), fout_.emin());
        S = floor_grid(S, lead - 31);
      }
    }
    return lab_.round_out(S, final_round_, q_);
  }

  // Positions in the group of position 0 (all of W unless odd/even).
  std::vector<int> group0() const {
    std::vector<int> g;
    const bool oe = f_.grouping.known && f_.grouping.value == Grouping::odd_even;
    for (int j : W_)
      if (!oe || j % 2 == 0) g.push_back(j);
    return g;
  }

  // Places -(sum of 2^-b for b in bits) * L as products of at most man+1
  // significant bits at the given positions.
  void place_negative_bits(Vec& v, const std::vector<int>& bits, const std::vector<int>& pos) {
    std::size_t p = 0;
    for (std::size_t i = 0; i < bits.size();) {
      double chunk = 0;
      const int top = bits[i];
      while (i < bits.size() && bits[i] - top <= fin_.man_bits) chunk += p2(-bits[i++]);
      if (p >= pos.size()) throw Unrealisable("not enough positions for the product sum");
      lab_.set(v, pos[p++], -chunk * L_);
    }
  }

  // --- late RD: two-stage vs single-stage (PA K15) -----------------------
  void late_rd() {
    if (!late() || F_ == 0) return;
    std::vector<int> bits = {F_};
    for (int l = F_ + 2; l <= F_ + 8; ++l) bits.push_back(l);
    double P = 0;
    for (int b : bits) P -= p2(-b) * L_;
    const double two = late_dominant(P, L_, e0_, LateRd::two_stage);
    const double one = late_dominant(P, L_, e0_, LateRd::single_stage);
    if (two == one) {
      f_.late_rd.na("the K15 vector does not separate the two rules at this F and q");
      return;
    }
    Vec v = lab_.zero();
    lab_.setc(v, L_);
    place_negative_bits(v, bits, group0());
    const double d = lab_.runv(v);
    const std::string how = "c = 1, sum p = -(2^-F + 2^-(F+2) + ... + 2^-(F+8)) (PA K15): ";
    if (d == two) f_.late_rd.set(LateRd::two_stage, how + "RD at F+8 bits, normalise, RD at 31 bits");
    else if (d == one) f_.late_rd.set(LateRd::single_stage, how + "one RD at F+7 bits");
    else anomaly("late RD test matches neither rule");
  }

  // --- late c cut-off (PA N3) ---------------------------------------------
  void late_cutoff() {
    if (!late() || F_ == 0) return;
    const double w = L_ * p2(-F_);
    const double with = lab_.round_out(-(L_ + 2 * w), final_round_, q_);
    const double without = lab_.round_out(-(L_ + w), final_round_, q_);
    if (with == without) {
      f_.late_c_cutoff.na("a rounded-down c is not visible at this F and q");
      return;
    }
    const int dmax = std::min(e0_ - fout_.emin(), 200);
    int last = -1;
    for (int d = F_ + 1; d <= dmax; ++d) {
      Vec v = lab_.zero();
      lab_.set(v, W_[0], -L_);
      lab_.set(v, W_[1], -w);
      lab_.setc(v, -L_ * p2(-d));
      const double r = lab_.runv(v);
      if (r == with) {
        last = d;
      } else if (r == without) {
        f_.late_c_cutoff.set(last, "p = -1, -2^-F, c = -2^-d: c rounded down for d <= " +
                                       std::to_string(last) + ", dropped beyond");
        return;
      } else {
        anomaly("late cut-off test gave an unexpected value");
        return;
      }
    }
    f_.late_c_cutoff.set(-1, "c = -2^-d is rounded down for every d up to " + std::to_string(dmax));
  }

  // --- E-floor and c = 0 (PN A2/A3, H2/H3; PA L3) -------------------------
  // Observation kept(es): is a term 2^es kept next to a base X whose largest
  // product is 2^eb, eb just below the output's smallest subnormal g? X is
  // chosen per rounding mode so that the two answers round differently.
  struct Base {
    std::vector<double> terms;  // products of X
    double yes, no;             // results if 2^es is kept / lost
  };
  Base base(int es) const {
    const double g = lab_.round_out(p2(fout_.emin() - q_), Round::rne, q_);
    Base b;
    auto spread = [&](double lo, double hi) {  // products summing to hi - lo, bits es..
      std::vector<double> t;
      double rest = hi - lo;
      while (rest > 0) {
        const int top = ilog2(rest);
        const double chunk = floor_grid(rest, std::max(top - fin_.man_bits, es));
        t.push_back(chunk);
        rest -= chunk;
      }
      return t;
    };
    switch (final_round_) {
      case Round::rne: b.terms = {g / 2}; b.yes = g; b.no = 0; break;
      case Round::ru: b.terms = {g}; b.yes = 2 * g; b.no = g; break;
      case Round::rna: b.terms = spread(p2(es), g / 2); b.yes = g; b.no = 0; break;
      case Round::rz:
      case Round::rd: b.terms = spread(p2(es), g); b.yes = g; b.no = 0; break;
    }
    return b;
  }
  std::optional<bool> kept(int es) {
    const Base b = base(es);
    if (b.terms.size() + 1 > W_.size()) return std::nullopt;
    Vec v = lab_.zero();
    for (std::size_t i = 0; i < b.terms.size(); ++i) {
      if (!lab_.realisable(b.terms[i])) return std::nullopt;
      lab_.set(v, W_[i], b.terms[i]);
    }
    if (!lab_.realisable(p2(es))) return std::nullopt;
    lab_.set(v, W_[b.terms.size()], p2(es));
    const double d = lab_.runv(v);
    if (d == b.yes) return true;
    if (d == b.no) return false;
    return std::nullopt;
  }

  void floor_and_zero_c() {
    if (!aligned() || F_ == 0 || !f_.final_round.known) return;
    if (!have(f_.out_subnormals)) {
      const std::string why = f_.out_subnormals.known
                                  ? "results below the normal range are flushed"
                                  : "no subnormal result could be formed, and the floor shows "
                                    "only there";
      f_.align_floor.na(why);
      f_.zero_c.na(why);
      return;
    }
    const double g = lab_.round_out(p2(fout_.emin() - q_), Round::rne, q_);
    const int eb = ilog2(g) - 1;
    auto first = kept(eb - 1);
    if (!first) {
      const std::string why = "the inputs cannot form products near 2^" + std::to_string(eb) +
                              ", the bottom of the output range, where an exponent floor or "
                              "a c = 0 term would show";
      f_.align_floor.na(why);
      f_.zero_c.na(why);
      return;
    }
    int lsb = eb - 1;
    bool lost = false;
    if (*first) {
      for (int es = eb - 2; es > eb - 200; --es) {
        auto k = kept(es);
        if (!k) break;
        if (!*k) {
          lost = true;
          break;
        }
        lsb = es;
      }
    } else {
      // The window ends above 2^(eb-1): find its end with a cancelling
      // pair 2^eb - 2^eb and a term 2^es that is itself a result.
      lost = true;
      lsb = INT_MAX;
      for (int es = eb + 60; es >= ilog2(g); --es) {
        Vec v = lab_.zero();
        lab_.set(v, W_[0], p2(eb));
        lab_.set(v, z_, -p2(eb));
        lab_.set(v, W_[1], p2(es));
        const double d = lab_.runv(v);
        if (d == p2(es)) lsb = es;
        else if (d == 0) break;
        else throw Unrealisable("floor test: unexpected value");
      }
      if (lsb == INT_MAX) {
        anomaly("floor test: no term next to 2^" + std::to_string(eb) + " is kept");
        return;
      }
    }
    if (!lost) {
      const std::string why = "c = 0, products from 2^" + std::to_string(eb) +
                              " down: every term the inputs can form (down to 2^" +
                              std::to_string(lsb) + ") is kept, no floor or c = 0 term shows";
      f_.align_floor.set(kNoFloor, why);
      f_.zero_c.set(ZeroC{}, why);
      return;
    }
    const int A = lsb + F_;  // alignment exponent of a plain window
    const std::string seen = "c = 0, products from 2^" + std::to_string(eb) +
                             " down: the lowest kept is 2^" + std::to_string(lsb);
    if (A <= eb) {
      f_.align_floor.set(kNoFloor, seen + ": aligned at the largest product, no floor above 2^" +
                                       std::to_string(eb));
      f_.zero_c.set(ZeroC{}, seen + ": c = 0 does not move the alignment");
      return;
    }
    if (late()) {
      // c = 0 as a term dominating the products: its RD alignment shows as a
      // round-down of a negative sum (PA L3, negative side); a floor would
      // truncate symmetrically.
      if (final_round_ == Round::rne) {
        Vec v = lab_.zero();
        lab_.set(v, W_[0], -g / 2);
        lab_.set(v, W_[1], -p2(lsb - 1));
        const double d = lab_.runv(v);
        if (d == -g) {
          // The product sum is rounded down at F+7 bits below 2^zc (single
          // stage), or at F+8 bits and again at 31 bits below the leading
          // one, never below 2^emin (two-stage): the second grid hides zc
          // when the lowest kept term sits at emin - 31.
          int zc = lsb + F_ + 7;
          std::string more;
          if (!f_.late_rd.known || f_.late_rd.value == LateRd::two_stage) {
            zc = lsb + F_ + 8;
            if (lsb <= fout_.emin() - 31) {
              zc = fout_.emin();
              f_.zero_c_exp_ambiguous = true;
              more = " (this test gives the same outputs for every exponent <= " +
                     std::to_string(lsb + F_ + 8) + "; read as the subnormal exponent, as PA does)";
            }
          }
          f_.zero_c.set(ZeroC{true, zc}, seen + "; -(g/2 + tiny) rounds down to -g: c = 0 is a "
                                               "term at 2^" + std::to_string(zc) + more +
                                               " (RD, PA L3)");
          f_.align_floor.set(kNoFloor, "hidden below the c = 0 term");
          return;
        }
      }
      f_.align_floor.set(A, seen + ": alignment exponent " + std::to_string(A));
      f_.zero_c.set(ZeroC{}, "c = 0 is not a term");
      return;
    }
    // Early c: a floor acts with any c, a c = 0 term only when c = 0. A
    // nonzero c below the floor separates them (fp16 outputs). A unit whose
    // c never enters the window (late addition, C not read) sums its
    // products from an internal zero: floor and zero term act alike there.
    const double cmin = g;
    const int e_c = std::max(ilog2(cmin), -126);  // c is aligned from its fp32 encoding
    const bool early = f_.c_entry.known && f_.c_entry.value == CEntry::early;
    if (early && final_round_ == Round::rne && e_c < A - 1 &&
        lab_.realisable(p2(lsb - 1))) {
      Vec v = lab_.zero();
      lab_.setc(v, cmin);
      lab_.set(v, W_[0], -g / 2);
      lab_.set(v, W_[1], p2(lsb - 1));
      const double d = lab_.runv(v);
      if (d == 0) {
        f_.align_floor.set(A, seen + ", also with c = g != 0: floor " + std::to_string(A));
        f_.zero_c.set(ZeroC{}, "c = 0 does not move the alignment beyond the floor");
        return;
      }
      if (d == g) {
        f_.align_floor.set(kNoFloor, "the alignment exponent is raised only when c = 0");
        f_.zero_c.set(ZeroC{true, A}, seen + ": c = 0 is a term at 2^" + std::to_string(A));
        return;
      }
      anomaly("floor vs c = 0 test gave an unexpected value");
      return;
    }
    f_.floor_zero_c_ambiguous = true;
    f_.align_floor.set(A, seen + ": alignment exponent " + std::to_string(A) +
                              " when c = 0 (a floor, or c = 0 as a term there: the same for "
                              "every input of this unit)");
    f_.zero_c.set(ZeroC{}, "not a term (or a term at the floor: indistinguishable here)");
  }

  // --- late RD with c = 0 dominating: exact product sum? (PA L3, i = 23) --
  void late_exact_zero_c() {
    if (!late()) return;
    if (!f_.zero_c.known) {
      f_.late_exact_zero_c.na("c = 0 could not be seen as a term (" + f_.zero_c.note + ")");
      return;
    }
    if (!f_.zero_c.value.term) {
      f_.late_exact_zero_c.na("c = 0 is not a term");
      return;
    }
    const int zc = f_.zero_c.value.exp;
    const double p1 = -p2(zc - F_), p2v = -p2(zc - 2 * F_ - 2);
    if (!lab_.realisable(p1) || !lab_.realisable(p2v)) {
      f_.late_exact_zero_c.na("the inputs cannot form products below 2^" + std::to_string(zc));
      return;
    }
    const double exact = late_dominant(p1 + p2v, 0, zc, f_.late_rd.known ? f_.late_rd.value
                                                                          : LateRd::two_stage);
    const double trunc = late_dominant(p1, 0, zc, f_.late_rd.known ? f_.late_rd.value
                                                                   : LateRd::two_stage);
    if (exact == trunc) {
      f_.late_exact_zero_c.na("the test cannot separate the two rules at this F and q");
      return;
    }
    Vec v = lab_.zero();
    lab_.set(v, W_[0], p1);
    lab_.set(v, W_[1], p2v);
    const double d = lab_.runv(v);
    const std::string how = "c = 0, p = -2^(zc-F), -2^(zc-2F-2): ";
    if (d == exact) f_.late_exact_zero_c.set(true, how + "the term below the window reaches the RD");
    else if (d == trunc) f_.late_exact_zero_c.set(false, how + "truncated before the RD");
    else anomaly("late exact zero-c test gave an unexpected value");
  }

  // --- products >= 2^128 (PA H5 / L1) -------------------------------------
  void product_overflow() {
    if (!f_.accum.known) return;
    const double big = p2(129);
    if (!lab_.realisable(big)) {
      f_.product_overflow.na("products stay below 2^128");
      return;
    }
    if (f_.accum.value == Accumulation::fma_chain) {
      f_.product_overflow.na("IEEE FMAs: a product is never formed apart from the addition");
      return;
    }
    Vec v = lab_.zero();
    lab_.set(v, W_[0], big);
    lab_.set(v, W_.size() > 1 ? W_[1] : 1, -big);
    const double d = lab_.runv(v);
    const std::string how = "p1 = 2^129, p2 = -2^129: ";
    if (f_.accum.value == Accumulation::pairwise) {
      if (std::isnan(d))
        f_.product.set(ProductForm::fp32_rne, how + "NaN: products rounded to the output "
                                                    "format (to +-Inf) before the tree");
      f_.product_overflow.na("implied by products rounded to fp32 before the additions");
      return;
    }
    if (d == 0) f_.product_overflow.set(false, how + "0: products beyond 2^128 are kept");
    else if (std::isnan(d)) f_.product_overflow.set(true, how + "NaN: |p| >= 2^128 is Inf");
    else anomaly("product overflow test gave an unexpected value");
  }

  // --- block result: carries kept, one rounding --------------------------
  void normalisation() {
    if (!aligned() || F_ == 0 || !f_.final_round.known) return;
    const int m = fin_.man_bits;
    if (2 * m > F_) {
      f_.exact_normalisation.na("the largest products have bits below the window");
      return;
    }
    const int n = static_cast<int>(W_.size());
    const int i = std::min(fin_.emax(), (fout_.emax() - 3 - ilog2(n)) / 2);
    const double x = std::min((2 - p2(-m)) * p2(i), value(lab_.in(), max_finite_bits(lab_.in(), false)));
    Vec v = lab_.zero();
    for (int j : W_) lab_.set2(v, j, x, x);
    const double expect = lab_.round_out(n * x * x, final_round_, q_);
    if (lab_.runv(v) == expect)
      f_.exact_normalisation.set(true, std::to_string(n) + " products (2-2^-m)^2: the exact "
                                       "sum with its carries, rounded once");
    else
      f_.exact_normalisation.set(false, "the sum of the largest products is not the exact sum "
                                        "rounded once");
  }

  // --- fp8 read as fp16 (PN §4.1.6) ----------------------------------------
  void inputs_as_fp16() {
    const Fmt in = lab_.in();
    if (in == Fmt::fp16) {
      f_.inputs_as_fp16.na("the inputs are fp16");
      return;
    }
    const FormatInfo& h = info(Fmt::fp16);
    // (a) an input value fp16 cannot hold: 2^t * 2^-t, both normal inputs.
    for (int t = std::min(fin_.emax(), -fin_.emin()); t > h.emax(); t = -1) {
      if (encode(Fmt::fp16, p2(t))) continue;
      Vec v = lab_.zero();
      lab_.set2(v, 0, p2(t), p2(-t));
      const double d = lab_.runv(v);
      const std::string how = "a1 = 2^" + std::to_string(t) + " (not an fp16 value), b1 = 2^" +
                              std::to_string(-t) + ": ";
      if (d == 1) f_.inputs_as_fp16.set(false, how + "1");
      else f_.inputs_as_fp16.set(true, how + "not 1, the input went through fp16");
      return;
    }
    // (b) a value whose alignment exponent differs in fp16 (subnormal in one).
    if (!aligned() || F_ == 0) {
      f_.inputs_as_fp16.na("every input is an fp16 value; its exponent would show only in "
                           "an aligned window");
      return;
    }
    for (int t = fin_.emin() - fin_.man_bits; t <= fin_.emax(); ++t) {
      if (!encode(Fmt::fp16, p2(t))) continue;
      const int e_in = std::max(t, fin_.emin()), e_h = std::max(t, h.emin());
      if (e_in == e_h) continue;
      for (int j = std::min(fin_.emax(), h.emax()); j >= std::max(fin_.emin(), h.emin()); --j) {
        const int lo = std::min(e_in, e_h) + j;
        const double s = p2(lo - F_);
        // -V from two factors normal in both formats.
        int i1 = (t + j) / 2, i2 = t + j - i1;
        const int nmin = std::max(fin_.emin(), h.emin()), nmax = std::min(fin_.emax(), h.emax());
        if (i1 < nmin || i1 > nmax || i2 < nmin || i2 > nmax) continue;
        if (!lab_.realisable(s) || !lab_.representable(s)) continue;
        Vec v = lab_.zero();
        lab_.set2(v, 0, p2(t), p2(j));
        lab_.set2(v, z_, -p2(i1), p2(i2));
        lab_.set(v, W_[1], s);
        const double d = lab_.runv(v);
        const std::string how = "p1 = 2^" + std::to_string(t) + " * 2^" + std::to_string(j) +
                                " (exponent " + std::to_string(e_in + j) + " as read, " +
                                std::to_string(e_h + j) + " in fp16), p2 = 2^" +
                                std::to_string(lo - F_) + ", p3 = -p1: ";
        if (d == s) f_.inputs_as_fp16.set(e_h < e_in, how + "p2 kept");
        else if (d == 0) f_.inputs_as_fp16.set(e_h > e_in, how + "p2 lost");
        else anomaly("fp16-conversion test gave an unexpected value");
        return;
      }
    }
    f_.inputs_as_fp16.na("converting the inputs to fp16 would change no product or exponent "
                         "this unit can show");
  }

  // Features no test reached get the reason they are n/a.
  void fill_na() {
    auto na = [](auto& d, const std::string& why) {
      if (!d.known && d.note.empty()) d.na(why);
    };
    const bool al = aligned();
    const bool acc = f_.accum.known;
    const std::string kind = acc ? std::string("not an aligned block (") + name(f_.accum.value) + ")"
                                 : "the accumulation was not recognised";
    if (acc && f_.accum.value == Accumulation::pairwise)
      f_.pair_group.set(N_, block_how_ + ": fp32 pairwise tree of " + std::to_string(N_));
    else
      na(f_.pair_group, "not a pairwise tree");
    if (acc && (f_.accum.value == Accumulation::aligned || f_.accum.value == Accumulation::exact))
      f_.block.set(N_, block_how_);
    else
      na(f_.block, acc ? std::string("no block FMA: ") + name(f_.accum.value) : kind);
    for (Det<int>* d : {&f_.frac_bits, &f_.align_floor}) na(*d, al ? "test failed" : kind);
    na(f_.alignment, al ? "test failed" : kind);
    na(f_.exact_normalisation, al ? "test failed" : kind);
    na(f_.grouping, al ? "test failed" : kind);
    na(f_.zero_c, al ? "test failed" : kind);
    if (acc && f_.accum.value != Accumulation::aligned)
      na(f_.product, "no alignment window: the form of a product cannot change a sum that is "
                     "exact or made of exact fp32 products");
    na(f_.product, "test failed");
    na(f_.final_round, "test failed");
    na(f_.out_frac_bits, "test failed");
    na(f_.accum, "test failed");
    na(f_.product_overflow, "test failed");
    na(f_.c_entry, "test failed");
    na(f_.inputs_as_fp16, "test failed");
    const std::string nl = "c is not added late with round-down";
    na(f_.late_rd, late() ? "test failed" : nl);
    na(f_.late_c_cutoff, late() ? "test failed" : nl);
    na(f_.late_exact_zero_c, late() ? "test failed" : nl);
    na(f_.late_round, "c is not added by a separate late addition");
    na(f_.in_subnormals, "test failed");
    na(f_.out_subnormals, "test failed");
    na(f_.flush_sign, "test failed");
    na(f_.reads_c, "test failed");
    na(f_.nan, "test failed");
    if (!last_unrealisable_.empty())
      for (auto* d : {&f_.frac_bits, &f_.align_floor})
        if (!d->known && d->note == "test failed") d->note += " (" + last_unrealisable_ + ")";
  }

  Lab lab_;
  const FormatInfo& fin_;
  const FormatInfo& fout_;
  Features f_;
  int e0_ = 0;
  double L_ = 1;
  int q_ = 0;
  double u_ = 0;
  int N_ = 0;
  int F_ = 0;
  int z_ = -1;
  std::vector<int> W_;
  Round final_round_ = Round::rne;
  std::string block_how_;
  bool sub_by_products_ = false;
  int sub_i_ = 0, sub_j_ = 0;
  std::string last_unrealisable_;
};

}  // namespace

Features detect(const BlackBox& box) { return Probe(box).run(); }

}  // namespace mmaemu::probe
