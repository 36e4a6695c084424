// SPDX-License-Identifier: BSD-3-Clause
#include "probe/lab.h"

#include <bit>
#include <cmath>
#include <cstring>

namespace mmaemu::probe {

double p2(int e) { return std::ldexp(1.0, e); }

int ilog2(double v) {
  int e = 0;
  std::frexp(v, &e);
  return e - 1;
}

double value(Fmt f, uint64_t bits) {
  const Unpacked u = decode(f, bits);
  switch (u.cls) {
    case Class::zero: return u.neg ? -0.0 : 0.0;
    case Class::inf: return u.neg ? -HUGE_VAL : HUGE_VAL;
    case Class::nan: return std::nan("");
    case Class::finite: break;
  }
  const double m = std::ldexp(static_cast<double>(u.sig), u.exp);  // sig < 2^53: exact
  return u.neg ? -m : m;
}

std::optional<uint64_t> encode(Fmt f, double v) {
  if (std::isnan(v)) return default_nan(f);
  if (v == 0) {
    if (std::signbit(v) && info(f).specials == Specials::fnuz) return std::nullopt;
    return zero_bits(f, std::signbit(v));
  }
  if (std::isinf(v)) {
    if (info(f).specials != Specials::ieee) return std::nullopt;
    return inf_bits(f, v < 0);
  }
  int e = 0;
  const double m = std::frexp(std::fabs(v), &e);  // |v| = m * 2^e, m in [0.5, 1)
  const uint64_t mag = static_cast<uint64_t>(std::ldexp(m, 53));
  const uint64_t bits = round_pack(f, v < 0, mag, e - 53, false, Round::rne, Overflow::ieee);
  if (value(f, bits) != v) return std::nullopt;
  return bits;
}

Lab::Lab(const BlackBox& box) : box_(box) {}

Vec Lab::zero() const {
  Vec v;
  v.a.assign(static_cast<std::size_t>(k()), zero_bits(in(), false));
  v.b = v.a;
  v.c = zero_bits(out(), false);
  return v;
}

uint64_t Lab::in_bits(double x) const {
  const auto e = encode(in(), x);
  if (!e) throw Unrealisable("input value not representable");
  return *e;
}

uint64_t Lab::out_bits(double x) const {
  const auto e = encode(out(), x);
  if (!e) throw Unrealisable("output value not representable");
  return *e;
}

// v = a * b with a, b in the input format. Prefers both factors normal (so
// that the product's significand is a's, in [1, 2): its alignment exponent is
// floor(log2 |v|)) and balanced exponents.
std::optional<std::pair<uint64_t, uint64_t>> Lab::factor(double v) const {
  uint64_t key = 0;
  std::memcpy(&key, &v, sizeof key);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  std::optional<std::pair<uint64_t, uint64_t>> best;
  if (v == 0) {
    best = {zero_bits(in(), false), zero_bits(in(), false)};
  } else {
    const FormatInfo& fi = info(in());
    const int lo = fi.emin() - fi.man_bits, hi = fi.emax();
    const int target = ilog2(v) / 2;
    int best_score = -1, best_dist = 1 << 30;
    for (int t = hi; t >= lo; --t) {
      const auto b = encode(in(), p2(t));
      const auto a = encode(in(), v / p2(t));  // exact: scaling by 2^t in range
      if (!a || !b || value(in(), *a) * p2(t) != v) continue;
      const bool an = decode(in(), *a).sig >> fi.man_bits;
      const bool bn = decode(in(), *b).sig >> fi.man_bits;
      if (normal_only_ && !(an && bn)) continue;
      const int score = int(an) + int(bn);
      const int dist = std::abs(t - target);
      if (score > best_score || (score == best_score && dist < best_dist)) {
        best_score = score;
        best_dist = dist;
        best = {*a, *b};
      }
    }
  }
  cache_[key] = best;
  return best;
}

bool Lab::realisable(double v) const { return factor(v).has_value(); }

void Lab::set(Vec& v, int i, double x) const {
  const auto f = factor(x);
  if (!f) throw Unrealisable("product not realisable");
  v.a[static_cast<std::size_t>(i)] = f->first;
  v.b[static_cast<std::size_t>(i)] = f->second;
}

void Lab::set2(Vec& v, int i, double x, double y) const {
  v.a[static_cast<std::size_t>(i)] = in_bits(x);
  v.b[static_cast<std::size_t>(i)] = in_bits(y);
}

void Lab::setc(Vec& v, double c) const { v.c = out_bits(c); }

uint64_t Lab::run(const Vec& v) {
  ++calls_;
  return box_.dot(v.a.data(), v.b.data(), v.c);
}

double Lab::round_out(double x, Round r, int prec) const {
  if (x == 0 || std::isinf(x) || std::isnan(x)) return x;
  int e = 0;
  const double m = std::frexp(std::fabs(x), &e);
  const uint64_t mag = static_cast<uint64_t>(std::ldexp(m, 53));
  return value(out(), round_pack(out(), x < 0, mag, e - 53, false, r, Overflow::inf, prec));
}

}  // namespace mmaemu::probe
