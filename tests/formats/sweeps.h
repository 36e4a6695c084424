// SPDX-License-Identifier: BSD-3-Clause
// Input generators and checking loops shared by the quick and full executables.
#pragma once

#include <limits>

#include "oracle.h"

namespace fmt_test {

template <class T>
struct Host;
template <>
struct Host<float> {
  using Bits = uint32_t;
  static constexpr Fmt fmt = Fmt::fp32;
};
template <>
struct Host<double> {
  using Bits = uint64_t;
  static constexpr Fmt fmt = Fmt::fp64;
};

// Distance from a nonnegative value of format t to the next one up, with an
// unbounded exponent (the "next" value after the largest finite one is the
// first value that overflows: 2^(emax+1) for IEEE formats, 480 for e4m3).
inline double ulp_above(const Spec& t, double v, int p) {
  const int e = v == 0 ? t.emin : std::max(std::ilogb(v), t.emin);
  return std::ldexp(1.0, e - p);
}

// Adds, as source-format (T) bit patterns, +-d and its two neighbours in T
// when d is exactly representable in T.
template <class T>
void add_with_neighbours(std::vector<uint64_t>& out, double d) {
  if (!(std::fabs(d) <= static_cast<double>(std::numeric_limits<T>::max()))) return;
  const T t = static_cast<T>(d);
  if (static_cast<double>(t) != d) return;
  const T inf = std::numeric_limits<T>::infinity();
  for (T x : {t, std::nextafter(t, -inf), std::nextafter(t, inf)}) {
    out.push_back(std::bit_cast<typename Host<T>::Bits>(x));
    out.push_back(std::bit_cast<typename Host<T>::Bits>(static_cast<T>(-x)));
  }
}

// Boundary inputs for the target values `vals` (nonnegative, representable in
// t with p fraction bits): each value, the midpoint to the next value up, and
// the source-format neighbours of both, with both signs.
template <class T>
void add_boundaries(std::vector<uint64_t>& out, const Spec& t, const std::vector<double>& vals,
                    int p) {
  for (double v : vals) {
    add_with_neighbours<T>(out, v);
    add_with_neighbours<T>(out, v + ulp_above(t, v, p) / 2);
  }
}

// Every nonnegative finite value of an 8/16-bit format.
inline std::vector<double> all_values(const Spec& t) {
  std::vector<double> v;
  for (const auto& e : value_table(t)) v.push_back(e.first);
  return v;
}

// The values of a wide format (tf32, fp32) with the given biased exponent
// fields: all fractions when `all_fracs`, otherwise edge and random ones.
inline std::vector<double> wide_values(const Spec& t, const std::vector<int>& bexps, bool all_fracs,
                                       std::mt19937_64& rng) {
  std::vector<double> v;
  const uint64_t fmax = (1ull << t.mbits) - 1;
  std::vector<uint64_t> fr;
  if (all_fracs) {
    for (uint64_t f = 0; f <= fmax; ++f) fr.push_back(f);
  } else {
    fr = {0, 1, 2, 3, 1ull << (t.mbits - 1), fmax - 2, fmax - 1, fmax};
  }
  for (int be : bexps) {
    std::vector<uint64_t> f2 = fr;
    if (!all_fracs)
      for (int i = 0; i < 6; ++i) f2.push_back(rng() & fmax);
    for (uint64_t f : f2) {
      const uint64_t bits = ((static_cast<uint64_t>(be) << t.mbits) | f) << t.shift;
      const Ref r = ref_decode(t, bits);
      if (r.cls == Class::finite || r.cls == Class::zero) v.push_back(r.mag);
    }
  }
  return v;
}

// Powers of two and their neighbours across the target's range and beyond
// (overflow threshold, subnormal/zero boundary), plus the source's extremes.
template <class T>
void add_range_edges(std::vector<uint64_t>& out, const Spec& t) {
  for (int k = t.emin - t.mbits - 4; k <= t.emax() + 4; ++k) {
    add_with_neighbours<T>(out, std::ldexp(1.0, k));
    add_with_neighbours<T>(out, std::ldexp(1.5, k));
    add_with_neighbours<T>(out, std::ldexp(1.75, k));
  }
  add_with_neighbours<T>(out, t.max_finite);
  add_with_neighbours<T>(out, t.max_finite + ulp_above(t, t.max_finite, t.mbits));
  add_with_neighbours<T>(out, t.max_finite + ulp_above(t, t.max_finite, t.mbits) / 2);
  add_with_neighbours<T>(out, t.min_subnormal / 2);
  add_with_neighbours<T>(out, t.min_subnormal / 4);
  add_with_neighbours<T>(out, t.min_subnormal * 1.5);
  add_with_neighbours<T>(out, std::numeric_limits<T>::max());
  add_with_neighbours<T>(out, std::numeric_limits<T>::min());
  add_with_neighbours<T>(out, std::numeric_limits<T>::denorm_min());
  add_with_neighbours<T>(out, 0.0);
}

// Special source patterns: NaNs (quiet, signalling, payloads), Inf, zeros.
inline std::vector<uint64_t> special_inputs(Fmt from) {
  if (from == Fmt::fp32)
    return {0x7FC00000, 0xFFC00000, 0x7F800001, 0xFF800001, 0x7FFFFFFF, 0xFFFFFFFF,
            0x7FA00000, 0x7F800000, 0xFF800000, 0x00000000, 0x80000000};
  return {0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0xFFF0000000000001,
          0x7FFFFFFFFFFFFFFF, 0x7FF0000000000000, 0xFFF0000000000000, 0x0,
          0x8000000000000000};
}

// Random source patterns: half uniform over all bit patterns, half with an
// exponent near the target's range (random sign and fraction).
inline std::vector<uint64_t> random_inputs(Fmt from, const Spec& t, size_t n, std::mt19937_64& rng) {
  const Spec& s = spec(from);
  std::vector<uint64_t> v;
  v.reserve(n);
  const int lo = std::max(0, s.bias + t.emin - t.mbits - 4);
  const int hi = std::min((1 << s.ebits) - 1, s.bias + t.emax() + 3);
  for (size_t i = 0; i < n; ++i) {
    uint64_t b = rng() & s.width_mask();
    if (i & 1) {
      const uint64_t e = static_cast<uint64_t>(lo + static_cast<int>(rng() % (hi - lo + 1)));
      b &= ~(((1ull << s.ebits) - 1) << s.mbits);
      b |= e << s.mbits;
    }
    v.push_back(b);
  }
  return v;
}

// convert(from, to) on every input in every mode and overflow policy.
inline void check_convert(Counter& c, Fmt from, Fmt to, const std::vector<uint64_t>& in,
                          uint64_t seed, const char* label) {
  const Spec& fs = spec(from);
  const Spec& ts = spec(to);
  for (uint64_t b : in) {
    const Ref src = ref_decode(fs, b);
    for (Round rm : kRounds) {
      Rounded x{};
      if (src.cls == Class::finite)
        x = ref_round(signed_value(src), ts.mbits, ts.emin, ts.max_finite, rm);
      for (Overflow ov : kOverflows) {
        const uint64_t want =
            src.cls == Class::finite ? expect_bits(ts, x, rm, ov) : expect_convert(src, ts, rm, ov);
        const uint64_t got = mmaemu::convert(from, to, b, rm, ov);
        c.eq(got, want, [&] {
          return std::string(label) + ": convert " + fs.name + "->" + ts.name + " in=" + hex(b) +
                 " (" + (src.cls == Class::finite ? hexf(signed_value(src)) : std::string("special")) +
                 ") mode=" + round_name(rm) + " ov=" + ov_name(ov) + " seed=" + hex(seed);
        });
      }
    }
  }
}

// Direct round_pack sweep: random (neg, mag, exp, sticky) in every mode and
// policy; the exact value is mag*2^exp, or (2*mag+1)*2^(exp-1) with sticky
// (sticky is only used where mag has at least one bit below the kept ones, so
// that every value in (mag, mag+1)*2^exp rounds the same way). `prec` < 0:
// the format's own precision.
inline void check_round_pack(Counter& c, Fmt f, int prec, size_t n, std::mt19937_64& rng,
                             uint64_t seed) {
  Spec t = spec(f);
  const int p = prec < 0 ? t.mbits : prec;
  if (prec >= 0) t.max_finite = std::ldexp(2.0 - std::ldexp(1.0, -p), t.emax());
  thread_local Mpfr x(192);
  for (size_t i = 0; i < n; ++i) {
    const bool neg = rng() & 1;
    uint64_t mag = rng() >> (rng() % 64);
    if (rng() % 8 == 0) mag &= ~0ull << (rng() % 64);  // few significant bits
    if (mag == 0) mag = 1;
    const int lead = 63 - std::countl_zero(mag);
    // Leading-bit exponent L mostly within [emin - p - 3, emax + 2].
    const int span = t.emax() - t.emin + p + 6;
    const int L = (rng() % 16 == 0) ? t.emin - p - 70 + static_cast<int>(rng() % (span + 140))
                                    : t.emin - p - 3 + static_cast<int>(rng() % span);
    const int exp = L - lead;
    const int q = std::max(L, t.emin) - p;
    const bool sticky = (q > exp) && (rng() & 1);
    mpfr_set_ui(x, mag, MPFR_RNDN);
    mpfr_mul_2ui(x, x, 1, MPFR_RNDN);
    if (sticky) mpfr_add_ui(x, x, 1, MPFR_RNDN);
    mpfr_mul_2si(x, x, exp - 1, MPFR_RNDN);
    if (neg) mpfr_neg(x, x, MPFR_RNDN);
    for (Round rm : kRounds) {
      const Rounded r = ref_round(x, p, t.emin, t.max_finite, rm);
      for (Overflow ov : kOverflows) {
        const uint64_t want = expect_bits(t, r, rm, ov);
        const uint64_t got = mmaemu::round_pack(f, neg, mag, exp, sticky, rm, ov, prec);
        c.eq(got, want, [&] {
          return std::string("round_pack ") + t.name + " prec=" + std::to_string(prec) +
                 " neg=" + std::to_string(neg) + " mag=" + hex(mag) + " exp=" + std::to_string(exp) +
                 " sticky=" + std::to_string(sticky) + " mode=" + round_name(rm) +
                 " ov=" + ov_name(ov) + " seed=" + hex(seed);
        });
      }
    }
  }
}

}  // namespace fmt_test
