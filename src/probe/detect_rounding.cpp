// SPDX-License-Identifier: BSD-3-Clause
// The feature tests of the final rounding and of where c enters.
#include <array>
#include <optional>
#include <string>
#include <utility>

#include "probe/detect_probe.h"

namespace mmaemu::probe::detail {

// --- rounding modes --------------------------------------------------------
// Sums 2+u, 2+3u and -(2+u) (all in the window) rounded to q bits at 2^1:
//   RNE (2, 2+4u, -2), RZ (2, 2+2u, -2), RU (2+2u, 2+4u, -2),
//   RD (2, 2+2u, -2-2u), RNA (2+2u, 2+4u, -2-2u).
std::optional<Round> Probe::classify(double r1, double r2, double r3) const {
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
std::optional<Round> Probe::rounding_by_products() {
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
std::optional<Round> Probe::rounding_by_c() {
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

void Probe::rounding() {
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
    f_.round.set(*r, how);
  } else {
    anomaly("the rounding of the results matches no rounding mode");
  }
}

// --- where c enters ---------------------------------------------------------
void Probe::c() {
  if (!f_.reads_c.known) return;
  if (!f_.reads_c.value) {
    f_.c.na("C is not read");
    return;
  }
  if (!f_.accum.known) return;
  const double h = L_ * u_ / 2;
  switch (f_.accum.value) {
    case Accumulation::fma_chain:
      f_.c.na("part of the FMA chain: it starts from c ((c + p1) is rounded before p2)");
      return;
    case Accumulation::exact: {
      Vec v = lab_.zero();
      lab_.setc(v, h);
      lab_.set(v, W_[0], L_);
      lab_.set(v, W_[1], h);
      if (lab_.runv(v) == L_ * (1 + u_))
        f_.c.na("part of the exact sum (c = u/2, p = 1, u/2 gives 1+u)");
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
        f_.c.na("part of the pairwise tree: added to the tree's sum (c = 1, p = u/2, u/2 "
                      "gives 1+u)");
      else
        anomaly("pairwise tree but c is not added last");
      return;
    }
    case Accumulation::integer:  // the probe's floating-point experiments never classify a unit so
      f_.c.na("an exact integer sum: c is one of its terms");
      return;
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
    f_.c.set(CEntry::early, how + "-2^-F, c truncated in the products' window");
  } else if (d == -2 * w) {
    f_.c.set(CEntry::late_rd, how + "-2^(1-F), c added after the products, rounded down");
  } else if (d == -1.25 * w) {
    f_.c.set(CEntry::late_rne, how + "c whole: added after the products' rounding");
    std::optional<Round> r = rounding_by_c();
    if (r) f_.late_round.set(*r, "c = 1+u, 1+3u, -(1+u) with p1 = +-1 (the late addition)");
    else anomaly("the late addition matches no rounding mode");
  } else {
    anomaly("c-entry test gave an unexpected value");
  }
}

}  // namespace mmaemu::probe::detail
