// SPDX-License-Identifier: BSD-3-Clause
// The feature tests of the structure of the sum: result precision, which
// positions are fused (N_FMA), the kind of accumulation, the window F and its
// rounding at alignment, grouping, product form and normalisation.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "probe/detect_probe.h"

namespace mmaemu::probe::detail {

// --- result precision: p1 = L, p2 = L*2^-t is exact for t <= q -----------
void Probe::precision() {
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
  f_.out_frac.set(q, "p1 = 1, p2 = 2^-t exact for t <= " + std::to_string(q));
}

// --- which positions are fused with position 0 ---------------------------
//
// C test (PA G5 / K2 idea, carry form, needs only F >= q):
//   c = 1+u, p1 = 1, p_j = -1.  Fused: 1+u exactly. If p_j is added after
//   a rounding, 2+u was rounded first (to 2 or 2+2u) and the result is 1
//   or 1+2u.
// H test (PN H5, needs F >= q+1):
//   p1 = 1, p2 = u/2, p_j = u/2.  Fused: 1+u; else 1 or 1+2u.
// K test (carry form without c, for units that do not read C):
//   p1 = p2 = 1, p3 = u, p_j = -1.  Fused: 1+u.
bool Probe::test_c(int j) {
  Vec v = lab_.zero();
  lab_.setc(v, L_ * (1 + u_));
  lab_.set(v, 0, L_);
  lab_.set(v, j, -L_);
  return lab_.runv(v) == L_ * (1 + u_);
}
bool Probe::test_h(int j) {
  Vec v = lab_.zero();
  lab_.set(v, 0, L_);
  lab_.set(v, 1, L_ * u_ / 2);
  lab_.set(v, j, L_ * u_ / 2);
  return lab_.runv(v) == L_ * (1 + u_);
}
bool Probe::test_k(int j) {
  Vec v = lab_.zero();
  lab_.set(v, 0, L_);
  lab_.set(v, 1, L_);
  lab_.set(v, 2, L_ * u_);
  lab_.set(v, j, -L_);
  return lab_.runv(v) == L_ * (1 + u_);
}

void Probe::structure() {
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

// --- kind of accumulation within the fused positions W -------------------
void Probe::accumulation() {
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

// --- F: p = L, L*2^-m, -L keeps L*2^-m for m <= F ------------------------
void Probe::window() {
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
    f_.frac.na("F >= " + std::to_string(F) + ": the inputs cannot form smaller terms");
    return;
  }
  F_ = F;
  f_.frac.set(F, "p = L, L*2^-m, -L keeps L*2^-m for m <= " + std::to_string(F) +
                          " (neab = " + std::to_string(F - 23) + ")");
}

// --- rounding at alignment and grouping ----------------------------------
// x = +-1.5*2^-F at position j next to L - L: truncation gives +-2^-F, RD
// (+1, -2), RU (+2, -1), nearest +-2 (in units of 2^-F). In odd/even groups
// (PA §4.3.4) a term alone in the other group is combined with RD.
AlignRound Probe::align_mode(int j) {
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

void Probe::alignment_and_grouping() {
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
void Probe::product_form() {
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

// --- block result: carries kept, one rounding ----------------------------
void Probe::normalisation() {
  if (!aligned() || F_ == 0 || !f_.round.known) return;
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

}  // namespace mmaemu::probe::detail
