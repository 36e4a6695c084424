// SPDX-License-Identifier: BSD-3-Clause
// The feature tests of a late round-down addition of c: two-stage or
// single-stage, its cut-off, and the product sum under a dominant c = 0.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "probe/detect_probe.h"

namespace mmaemu::probe::detail {

// c dominating the product sum P in the late RD addition, as PA
// Algorithm 1 (two-stage) or the toolbox/MMA-Sim (single-stage) describe:
// the predictions of the two hypotheses.
double Probe::late_dominant(double P, double c, int e_c, LateRd mode) const {
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
std::vector<int> Probe::group0() const {
  std::vector<int> g;
  const bool oe = f_.grouping.known && f_.grouping.value == Grouping::odd_even;
  for (int j : W_)
    if (!oe || j % 2 == 0) g.push_back(j);
  return g;
}

// Places -(sum of 2^-b for b in bits) * L as products of at most man+1
// significant bits at the given positions.
void Probe::place_negative_bits(Vec& v, const std::vector<int>& bits, const std::vector<int>& pos) {
  std::size_t p = 0;
  for (std::size_t i = 0; i < bits.size();) {
    double chunk = 0;
    const int top = bits[i];
    while (i < bits.size() && bits[i] - top <= fin_.man_bits) chunk += p2(-bits[i++]);
    if (p >= pos.size()) throw Unrealisable("not enough positions for the product sum");
    lab_.set(v, pos[p++], -chunk * L_);
  }
}

// --- late RD: two-stage vs single-stage (PA K15) -------------------------
void Probe::late_rd() {
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

// --- late c cut-off (PA N3) -----------------------------------------------
void Probe::late_cutoff() {
  if (!late() || F_ == 0) return;
  const double w = L_ * p2(-F_);
  const double with = lab_.round_out(-(L_ + 2 * w), final_round_, q_);
  const double without = lab_.round_out(-(L_ + w), final_round_, q_);
  if (with == without) {
    f_.cutoff.na("a rounded-down c is not visible at this F and q");
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
      f_.cutoff.set(last, "p = -1, -2^-F, c = -2^-d: c rounded down for d <= " +
                                     std::to_string(last) + ", dropped beyond");
      return;
    } else {
      anomaly("late cut-off test gave an unexpected value");
      return;
    }
  }
  f_.cutoff.set(-1, "c = -2^-d is rounded down for every d up to " + std::to_string(dmax));
}

// --- late RD with c = 0 dominating: exact product sum? (PA L3, i = 23) ----
void Probe::late_exact_zero_c() {
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

}  // namespace mmaemu::probe::detail
