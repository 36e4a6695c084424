// SPDX-License-Identifier: BSD-3-Clause
// The feature tests of the bottom of the output range -- an exponent floor
// of the alignment and c = 0 as a term -- and of inputs read as fp16.
#include <algorithm>
#include <climits>
#include <optional>
#include <string>
#include <vector>

#include "probe/detect_probe.h"

namespace mmaemu::probe::detail {

// --- E-floor and c = 0 (PN A2/A3, H2/H3; PA L3) ---------------------------
// Observation kept(es): is a term 2^es kept next to a base X whose largest
// product is 2^eb, eb just below the output's smallest subnormal g? X is
// chosen per rounding mode so that the two answers round differently.
Probe::Base Probe::base(int es) const {
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
std::optional<bool> Probe::kept(int es) {
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

void Probe::floor_and_zero_c() {
  if (!aligned() || F_ == 0 || !f_.round.known) return;
  if (!have(f_.out_sub)) {
    const std::string why = f_.out_sub.known
                                ? "results below the normal range are flushed"
                                : "no subnormal result could be formed, and the floor shows "
                                  "only there";
    f_.floor.na(why);
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
    f_.floor.na(why);
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
    f_.floor.set(kNoFloor, why);
    f_.zero_c.set(ZeroC{}, why);
    return;
  }
  const int A = lsb + F_;  // alignment exponent of a plain window
  const std::string seen = "c = 0, products from 2^" + std::to_string(eb) +
                           " down: the lowest kept is 2^" + std::to_string(lsb);
  if (A <= eb) {
    f_.floor.set(kNoFloor, seen + ": aligned at the largest product, no floor above 2^" +
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
        f_.floor.set(kNoFloor, "hidden below the c = 0 term");
        return;
      }
    }
    f_.floor.set(A, seen + ": alignment exponent " + std::to_string(A));
    f_.zero_c.set(ZeroC{}, "c = 0 is not a term");
    return;
  }
  // Early c: a floor acts with any c, a c = 0 term only when c = 0. A
  // nonzero c below the floor separates them (fp16 outputs). A unit whose
  // c never enters the window (late addition, C not read) sums its
  // products from an internal zero: floor and zero term act alike there.
  const double cmin = g;
  const int e_c = std::max(ilog2(cmin), -126);  // c is aligned from its fp32 encoding
  const bool early = f_.c.known && f_.c.value == CEntry::early;
  if (early && final_round_ == Round::rne && e_c < A - 1 &&
      lab_.realisable(p2(lsb - 1))) {
    Vec v = lab_.zero();
    lab_.setc(v, cmin);
    lab_.set(v, W_[0], -g / 2);
    lab_.set(v, W_[1], p2(lsb - 1));
    const double d = lab_.runv(v);
    if (d == 0) {
      f_.floor.set(A, seen + ", also with c = g != 0: floor " + std::to_string(A));
      f_.zero_c.set(ZeroC{}, "c = 0 does not move the alignment beyond the floor");
      return;
    }
    if (d == g) {
      f_.floor.set(kNoFloor, "the alignment exponent is raised only when c = 0");
      f_.zero_c.set(ZeroC{true, A}, seen + ": c = 0 is a term at 2^" + std::to_string(A));
      return;
    }
    anomaly("floor vs c = 0 test gave an unexpected value");
    return;
  }
  f_.floor_zero_c_ambiguous = true;
  f_.floor.set(A, seen + ": alignment exponent " + std::to_string(A) +
                            " when c = 0 (a floor, or c = 0 as a term there: the same for "
                            "every input of this unit)");
  f_.zero_c.set(ZeroC{}, "not a term (or a term at the floor: indistinguishable here)");
}

// --- fp8 read as fp16 (PN §4.1.6) ------------------------------------------
void Probe::as_fp16() {
  const Fmt in = lab_.in();
  if (in == Fmt::fp16) {
    f_.as_fp16.na("the inputs are fp16");
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
    if (d == 1) f_.as_fp16.set(false, how + "1");
    else f_.as_fp16.set(true, how + "not 1, the input went through fp16");
    return;
  }
  // (b) a value whose alignment exponent differs in fp16 (subnormal in one).
  if (!aligned() || F_ == 0) {
    f_.as_fp16.na("every input is an fp16 value; its exponent would show only in "
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
      if (d == s) f_.as_fp16.set(e_h < e_in, how + "p2 kept");
      else if (d == 0) f_.as_fp16.set(e_h > e_in, how + "p2 lost");
      else anomaly("fp16-conversion test gave an unexpected value");
      return;
    }
  }
  f_.as_fp16.na("converting the inputs to fp16 would change no product or exponent "
                       "this unit can show");
}

}  // namespace mmaemu::probe::detail
