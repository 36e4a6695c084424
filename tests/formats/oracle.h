// SPDX-License-Identifier: BSD-3-Clause
// Test oracles for src/formats, written independently of format.cpp:
//  * the format table is copied from docs/models.md §0 (not taken from info()),
//  * values are computed from the bit fields with ldexp,
//  * rounding is done by MPFR: x / 2^q is rounded to an integer with mpfr_rint
//    (mpfr_round for ties-away), q = max(floor(log2|x|), emin) - p, which is
//    exactly IEEE rounding with subnormals and an unbounded exponent; overflow
//    is then "rounded magnitude > largest finite" (IEEE 754 §7.4),
//  * expected bit patterns are found by looking the rounded value up in a
//    table of all values of the format (8/16-bit formats) or by the host's
//    exact float/double encoding (fp32, tf32, fp64).
#pragma once

#include <doctest/doctest.h>
#include <mpfr.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "common/hex.h"
#include "formats/format.h"

namespace fmt_test {

using mmaemu::Class;
using mmaemu::Fmt;
using mmaemu::Overflow;
using mmaemu::Round;

static_assert(sizeof(unsigned long) == 8, "the MPFR oracle passes 64-bit magnitudes as unsigned long");

enum class Kind : uint8_t { ieee, fn, fnuz };

// One row of docs/models.md §0.
struct Spec {
  Fmt fmt;
  const char* name;
  int width;
  int ebits;
  int mbits;
  int bias;
  int shift;  // zero bits below the fraction in the container
  Kind kind;
  int emin;              // exponent of the smallest normal
  double max_finite;     // largest finite value
  double min_subnormal;  // smallest positive value

  uint64_t sign_bit() const { return 1ull << (width - 1); }
  uint64_t width_mask() const { return width == 64 ? ~0ull : (1ull << width) - 1; }
  // Exponent of the leading bit of max_finite.
  int emax() const { return std::ilogb(max_finite); }
};

inline const Spec kSpecs[] = {
    {Fmt::fp64, "fp64", 64, 11, 52, 1023, 0, Kind::ieee, -1022, DBL_MAX, 0x1p-1074},
    {Fmt::fp32, "fp32", 32, 8, 23, 127, 0, Kind::ieee, -126, 0x1.fffffep127, 0x1p-149},
    {Fmt::tf32, "tf32", 32, 8, 10, 127, 13, Kind::ieee, -126, 0x1.ffcp127, 0x1p-136},
    {Fmt::bf16, "bf16", 16, 8, 7, 127, 0, Kind::ieee, -126, 0x1.fep127, 0x1p-133},
    {Fmt::fp16, "fp16", 16, 5, 10, 15, 0, Kind::ieee, -14, 65504.0, 0x1p-24},
    {Fmt::e4m3, "e4m3", 8, 4, 3, 7, 0, Kind::fn, -6, 448.0, 0x1p-9},
    {Fmt::e5m2, "e5m2", 8, 5, 2, 15, 0, Kind::ieee, -14, 57344.0, 0x1p-16},
    {Fmt::e4m3fnuz, "e4m3fnuz", 8, 4, 3, 8, 0, Kind::fnuz, -7, 240.0, 0x1p-10},
    {Fmt::e5m2fnuz, "e5m2fnuz", 8, 5, 2, 16, 0, Kind::fnuz, -15, 57344.0, 0x1p-17},
};

inline const Spec& spec(Fmt f) {
  for (const Spec& s : kSpecs)
    if (s.fmt == f) return s;
  throw std::logic_error("no spec row");
}

inline constexpr Round kRounds[] = {Round::rne, Round::rz, Round::rd, Round::ru, Round::rna};
inline constexpr Overflow kOverflows[] = {Overflow::ieee, Overflow::inf, Overflow::saturate};
inline constexpr Fmt kSmallFmts[] = {Fmt::bf16,     Fmt::fp16,    Fmt::e4m3,
                                     Fmt::e5m2,     Fmt::e4m3fnuz, Fmt::e5m2fnuz};

inline const char* ov_name(Overflow o) {
  switch (o) {
    case Overflow::ieee: return "ieee";
    case Overflow::inf: return "inf";
    case Overflow::saturate: return "saturate";
  }
  return "?";
}

inline std::string hexf(double v) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

// Seed of the random sweeps: MMAEMU_TEST_SEED or a fixed default.
inline uint64_t test_seed() {
  if (const char* s = std::getenv("MMAEMU_TEST_SEED")) return std::strtoull(s, nullptr, 0);
  return 0x6d6d61656d75ull;  // "mmaemu"
}

// ---------------------------------------------------------------------------
// Failure accounting: checking every case with CHECK would dominate the run
// time of the sweeps, so cases are counted here and only failures (the first
// few of each group) go to doctest, with a description built on demand.

struct Counter {
  const char* what;
  uint64_t cases = 0;
  uint64_t fails = 0;
  // Deferred counters (used from worker threads) keep the failure messages
  // and hand them to doctest in finish(), on the main thread.
  bool deferred = false;
  std::vector<std::string> pending;

  explicit Counter(const char* w, bool defer = false) : what(w), deferred(defer) {}

  template <class Ctx>
  void eq(uint64_t got, uint64_t want, Ctx&& ctx) {
    ++cases;
    if (got == want) return;
    if (++fails <= 12) fail(ctx() + " got=" + hex(got) + " want=" + hex(want));
  }
  template <class Ctx>
  void ok(bool cond, Ctx&& ctx) {
    ++cases;
    if (cond) return;
    if (++fails <= 12) fail(ctx());
  }
  void fail(const std::string& msg) {
    if (deferred)
      pending.push_back(msg);
    else
      FAIL_CHECK(msg);
  }
  void finish() {
    for (const std::string& m : pending) FAIL_CHECK(m);
    pending.clear();
    CHECK_MESSAGE(fails == 0, std::string(what) << ": " << fails << " of " << cases << " cases failed");
    MESSAGE(std::string(what) << ": " << cases << " cases");
  }
};

// ---------------------------------------------------------------------------
// Decoding oracle: the value from the bit fields, as docs/models.md §0 defines it:
// (-1)^s * 2^(E-bias) * (1 + F/2^m) for E > 0, (-1)^s * 2^(1-bias) * F/2^m for E = 0.

struct Ref {
  Class cls;
  bool neg;
  double mag;  // |value| for zero/finite
};

inline Ref ref_decode(const Spec& s, uint64_t bits) {
  bits &= s.width_mask();
  const bool neg = (bits >> (s.width - 1)) & 1;
  const uint64_t F = (bits >> s.shift) & ((1ull << s.mbits) - 1);
  const uint64_t E = (bits >> (s.shift + s.mbits)) & ((1ull << s.ebits) - 1);
  const uint64_t Eones = (1ull << s.ebits) - 1;
  const uint64_t Fones = (1ull << s.mbits) - 1;
  switch (s.kind) {
    case Kind::ieee:
      if (E == Eones) return {F ? Class::nan : Class::inf, neg, 0};
      break;
    case Kind::fn:
      if (E == Eones && F == Fones) return {Class::nan, neg, 0};
      break;
    case Kind::fnuz:
      if (bits == s.sign_bit()) return {Class::nan, neg, 0};
      break;
  }
  const double frac = std::ldexp(static_cast<double>(F), -s.mbits);  // exact
  if (E == 0) {
    if (F == 0) return {Class::zero, neg, 0};
    return {Class::finite, neg, std::ldexp(frac, 1 - s.bias)};
  }
  return {Class::finite, neg, std::ldexp(1.0 + frac, static_cast<int>(E) - s.bias)};
}

inline double signed_value(const Ref& r) { return r.neg ? -r.mag : r.mag; }

// All nonnegative finite values of an 8/16-bit format, ascending, with their
// bits (built once, thread-safely, for all formats).
inline const std::vector<std::pair<double, uint64_t>>& value_table(const Spec& s) {
  using Table = std::vector<std::pair<double, uint64_t>>;
  static const std::vector<Table> tables = [] {
    std::vector<Table> ts(std::size(kSpecs));
    for (const Spec& sp : kSpecs) {
      if (sp.width > 16) continue;
      Table& t = ts[static_cast<size_t>(sp.fmt)];
      for (uint64_t b = 0; b < sp.sign_bit(); ++b) {
        const Ref r = ref_decode(sp, b);
        if (r.cls == Class::zero || r.cls == Class::finite) t.emplace_back(r.mag, b);
      }
      std::sort(t.begin(), t.end());
    }
    return ts;
  }();
  if (s.width > 16) throw std::logic_error("value_table: format too wide");
  return tables[static_cast<size_t>(s.fmt)];
}

// Expected special encodings (docs/models.md §0 "specials" column).
inline uint64_t nan_bits(const Spec& s, bool neg) {
  switch (s.kind) {
    case Kind::ieee: {
      const uint64_t e = (1ull << s.ebits) - 1;
      return (((e << s.mbits) | (1ull << (s.mbits - 1))) << s.shift) | (neg ? s.sign_bit() : 0);
    }
    case Kind::fn: return 0x7F | (neg ? s.sign_bit() : 0);
    case Kind::fnuz: return 0x80;
  }
  return 0;
}
inline uint64_t inf_bits_ref(const Spec& s, bool neg) {
  const uint64_t e = (1ull << s.ebits) - 1;
  return ((e << s.mbits) << s.shift) | (neg ? s.sign_bit() : 0);
}
inline uint64_t zero_bits_ref(const Spec& s, bool neg) {
  return (neg && s.kind != Kind::fnuz) ? s.sign_bit() : 0;
}

// The bits of a representable magnitude (~0 when it is not representable).
inline uint64_t encode_mag(const Spec& s, double mag) {
  if (s.width <= 16) {
    const auto& t = value_table(s);
    auto it = std::lower_bound(t.begin(), t.end(), std::pair<double, uint64_t>(mag, 0));
    if (it == t.end() || it->first != mag) return ~0ull;
    return it->second;
  }
  if (s.width == 64) return std::bit_cast<uint64_t>(mag);
  const float f = static_cast<float>(mag);
  if (static_cast<double>(f) != mag) return ~0ull;
  const uint32_t b = std::bit_cast<uint32_t>(f);
  if (b & ((1u << s.shift) - 1)) return ~0ull;
  return b;
}
inline uint64_t max_bits_ref(const Spec& s, bool neg) {
  return encode_mag(s, s.max_finite) | (neg ? s.sign_bit() : 0);
}

// ---------------------------------------------------------------------------
// Rounding oracle.

struct Mpfr {
  mpfr_t v;
  explicit Mpfr(mpfr_prec_t p = 192) { mpfr_init2(v, p); }
  ~Mpfr() { mpfr_clear(v); }
  Mpfr(const Mpfr&) = delete;
  Mpfr& operator=(const Mpfr&) = delete;
  operator mpfr_ptr() { return v; }
};

struct Rounded {
  bool neg;
  bool overflow;  // |rounded value with unbounded exponent| > max finite
  double mag;     // rounded magnitude (0: a zero of sign neg); exact
};

// Rounds the exact value x to p fraction bits, normal exponent >= emin,
// unbounded above.
inline Rounded ref_round(mpfr_srcptr x, int p, int emin, double max_finite, Round r) {
  thread_local Mpfr t;
  const bool neg = mpfr_signbit(x) != 0;
  if (mpfr_zero_p(x)) return {neg, false, 0.0};
  const long e = static_cast<long>(mpfr_get_exp(x)) - 1;  // x = 0.1xx * 2^exp
  const long q = std::max<long>(e, emin) - p;
  mpfr_mul_2si(t, x, -q, MPFR_RNDN);  // exact
  switch (r) {
    case Round::rne: mpfr_rint(t, t, MPFR_RNDN); break;
    case Round::rz: mpfr_rint(t, t, MPFR_RNDZ); break;
    case Round::rd: mpfr_rint(t, t, MPFR_RNDD); break;
    case Round::ru: mpfr_rint(t, t, MPFR_RNDU); break;
    case Round::rna: mpfr_round(t, t); break;
  }
  mpfr_abs(t, t, MPFR_RNDN);
  mpfr_mul_2si(t, t, q, MPFR_RNDN);
  const double mag = mpfr_get_d(t, MPFR_RNDN);
  const bool overflow = mag > max_finite;
  if (!overflow && mpfr_cmp_d(t, mag) != 0) throw std::logic_error("ref_round: inexact double");
  return {neg, overflow, mag};
}

inline Rounded ref_round(double x, int p, int emin, double max_finite, Round r) {
  thread_local Mpfr m;
  mpfr_set_d(m, x, MPFR_RNDN);  // exact, keeps the sign of zero
  return ref_round(m, p, emin, max_finite, r);
}

// The expected bits of a rounded value in format s under rounding r and overflow policy ov.
inline uint64_t expect_bits(const Spec& s, const Rounded& x, Round r, Overflow ov) {
  if (x.overflow) {
    bool to_inf = true;
    if (ov == Overflow::saturate) to_inf = false;
    if (ov == Overflow::ieee)
      to_inf = r == Round::rne || r == Round::rna || (r == Round::rd && x.neg) ||
               (r == Round::ru && !x.neg);
    if (!to_inf) return max_bits_ref(s, x.neg);
    return s.kind == Kind::ieee ? inf_bits_ref(s, x.neg) : nan_bits(s, x.neg);
  }
  if (x.mag == 0) return zero_bits_ref(s, x.neg);
  const uint64_t b = encode_mag(s, x.mag);
  return b == ~0ull ? b : b | (x.neg ? s.sign_bit() : 0);
}

// What convert() must give for a decoded source value (any class).
inline uint64_t expect_convert(const Ref& src, const Spec& to, Round r, Overflow ov, int p = -1) {
  switch (src.cls) {
    case Class::nan: return nan_bits(to, src.neg);
    case Class::inf:
      if (to.kind == Kind::ieee) return inf_bits_ref(to, src.neg);
      return ov == Overflow::saturate ? max_bits_ref(to, src.neg) : nan_bits(to, src.neg);
    case Class::zero: return zero_bits_ref(to, src.neg);
    case Class::finite: break;
  }
  const Rounded x =
      ref_round(signed_value(src), p < 0 ? to.mbits : p, to.emin, to.max_finite, r);
  return expect_bits(to, x, r, ov);
}

// The next larger magnitude after a nonnegative finite value of an 8/16-bit
// format; above the largest finite value, the value the format would have
// with one more exponent code (or the missing S.1111.111 of e4m3).
inline double next_up_value(const Spec& s, double v) {
  const auto& t = value_table(s);
  auto it = std::upper_bound(t.begin(), t.end(), std::pair<double, uint64_t>(v, ~0ull));
  if (it != t.end()) return it->first;
  return s.max_finite + std::ldexp(1.0, s.emax() - s.mbits);
}

}  // namespace fmt_test
