// SPDX-License-Identifier: BSD-3-Clause
// Format table, decoding, exact round trips and widening conversions.
#include "oracle.h"

using namespace fmt_test;
using mmaemu::convert;
using mmaemu::decode;
using mmaemu::round_pack;

namespace {

// Every pattern of the 8/16-bit formats; 2^17 random patterns of the wide ones.
std::vector<uint64_t> patterns(const Spec& s, uint64_t seed, int nrandom = 1 << 17) {
  std::vector<uint64_t> v;
  if (s.width <= 16) {
    for (uint64_t b = 0; b <= s.width_mask(); ++b) v.push_back(b);
    return v;
  }
  std::mt19937_64 rng(seed ^ static_cast<uint64_t>(s.fmt));
  for (int i = 0; i < nrandom; ++i) {
    uint64_t b = rng() & s.width_mask();
    if (s.shift) b &= ~((1ull << s.shift) - 1);  // tf32: a canonical tf32 pattern
    v.push_back(b);
  }
  // Fixed edge patterns: zeros, smallest/largest subnormal, smallest normal,
  // one, largest finite, Inf, NaNs.
  const uint64_t unit = 1ull << s.shift;
  const uint64_t expone = unit << s.mbits;
  const uint64_t eones = ((1ull << s.ebits) - 1) * expone;
  for (uint64_t sign : {uint64_t{0}, s.sign_bit()}) {
    for (uint64_t b : {uint64_t{0}, unit, expone - unit, expone, expone + unit,
                       static_cast<uint64_t>(s.bias) * expone, eones - unit, eones,
                       eones + unit, eones + (expone >> 1), eones + expone - unit})
      v.push_back(b | sign);
  }
  return v;
}

std::string ctx_pat(const Spec& s, uint64_t b) { return std::string(s.name) + " bits=" + hex(b); }

}  // namespace

TEST_CASE("info() matches the format table of docs/models.md §0") {
  Counter c("info table");
  for (const Spec& s : kSpecs) {
    const mmaemu::FormatInfo& fi = mmaemu::info(s.fmt);
    INFO("format " << std::string(s.name));
    CHECK(fi.id == s.fmt);
    CHECK(std::string(fi.name) == s.name);
    CHECK(fi.width == s.width);
    CHECK(fi.exp_bits == s.ebits);
    CHECK(fi.man_bits == s.mbits);
    CHECK(fi.bias == s.bias);
    CHECK(fi.frac_shift == s.shift);
    CHECK(fi.emin() == s.emin);
    CHECK(fi.emax() == s.emax());
    CHECK(s.emin == 1 - s.bias);
    // Encodings of the special constants.
    for (bool neg : {false, true}) {
      const uint64_t mx = mmaemu::max_finite_bits(s.fmt, neg);
      c.eq(mx, max_bits_ref(s, neg), [&] { return ctx_pat(s, mx) + " max_finite"; });
      const Ref r = ref_decode(s, mx);
      c.ok(r.cls == Class::finite && r.mag == s.max_finite && r.neg == neg,
           [&] { return ctx_pat(s, mx) + " max_finite value"; });
      c.eq(mmaemu::zero_bits(s.fmt, neg), zero_bits_ref(s, neg),
           [&] { return std::string(s.name) + " zero_bits neg=" + std::to_string(neg); });
      if (s.kind == Kind::ieee)
        c.eq(mmaemu::inf_bits(s.fmt, neg), inf_bits_ref(s, neg),
             [&] { return std::string(s.name) + " inf_bits neg=" + std::to_string(neg); });
    }
    c.eq(mmaemu::default_nan(s.fmt), nan_bits(s, false),
         [&] { return std::string(s.name) + " default_nan"; });
    c.ok(mmaemu::is_nan(s.fmt, mmaemu::default_nan(s.fmt)),
         [&] { return std::string(s.name) + " is_nan(default_nan)"; });
    // Smallest subnormal.
    const Ref sub = ref_decode(s, 1ull << s.shift);
    c.ok(sub.mag == s.min_subnormal, [&] { return std::string(s.name) + " min subnormal"; });
  }
  // Literal encodings quoted by the spec and the OCP / AMD documents.
  c.eq(mmaemu::default_nan(Fmt::fp32), 0x7FC00000, [] { return std::string("fp32 nan"); });
  c.eq(mmaemu::default_nan(Fmt::tf32), 0x7FC00000, [] { return std::string("tf32 nan"); });
  c.eq(mmaemu::default_nan(Fmt::fp16), 0x7E00, [] { return std::string("fp16 nan"); });
  c.eq(mmaemu::default_nan(Fmt::bf16), 0x7FC0, [] { return std::string("bf16 nan"); });
  c.eq(mmaemu::default_nan(Fmt::e4m3), 0x7F, [] { return std::string("e4m3 nan"); });
  c.eq(mmaemu::default_nan(Fmt::e5m2), 0x7E, [] { return std::string("e5m2 nan"); });
  c.eq(mmaemu::default_nan(Fmt::e4m3fnuz), 0x80, [] { return std::string("e4m3fnuz nan"); });
  c.eq(mmaemu::default_nan(Fmt::e5m2fnuz), 0x80, [] { return std::string("e5m2fnuz nan"); });
  c.eq(mmaemu::max_finite_bits(Fmt::tf32, false), 0x7F7FE000, [] { return std::string("tf32 max"); });
  c.eq(mmaemu::max_finite_bits(Fmt::fp16, true), 0xFBFF, [] { return std::string("fp16 -max"); });
  c.eq(mmaemu::max_finite_bits(Fmt::e5m2, false), 0x7B, [] { return std::string("e5m2 max"); });
  c.finish();
}

TEST_CASE("decode: classification and value against the field oracle") {
  const uint64_t seed = test_seed();
  Counter c("decode");
  for (const Spec& s : kSpecs) {
    for (uint64_t b : patterns(s, seed)) {
      const mmaemu::Unpacked u = decode(s.fmt, b);
      const Ref r = ref_decode(s, b);
      auto ctx = [&] {
        return ctx_pat(s, b) + " seed=" + hex(seed) + " decode={cls=" +
               std::to_string(static_cast<int>(u.cls)) + " neg=" + std::to_string(u.neg) +
               " exp=" + std::to_string(u.exp) + " sig=" + hex(u.sig) + "} ref={cls=" +
               std::to_string(static_cast<int>(r.cls)) + " mag=" + hexf(r.mag) + "}";
      };
      bool ok = u.cls == r.cls;
      if (ok && r.cls != Class::nan) ok = u.neg == r.neg;
      if (ok && s.kind == Kind::fnuz && r.cls == Class::zero) ok = !u.neg;  // no -0
      if (ok && r.cls == Class::finite) {
        // value and the canonical decomposition documented in format.h:
        // normal: 2^m <= sig < 2^(m+1); subnormal: exp = emin - m, sig < 2^m.
        ok = std::ldexp(static_cast<double>(u.sig), u.exp) == r.mag;
        const bool normal = r.mag >= std::ldexp(1.0, s.emin);
        if (normal)
          ok = ok && (u.sig >> s.mbits) == 1;
        else
          ok = ok && u.exp == s.emin - s.mbits && (u.sig >> s.mbits) == 0;
      }
      if (ok && r.cls == Class::nan) ok = mmaemu::is_nan(s.fmt, b);
      c.ok(ok, ctx);
      // Host cross-check for the IEEE formats the host has.
      if (s.fmt == Fmt::fp64 && r.cls == Class::finite)
        c.ok(std::bit_cast<double>(b) == signed_value(r), ctx);
      if ((s.fmt == Fmt::fp32 || s.fmt == Fmt::tf32) && r.cls == Class::finite)
        c.ok(std::bit_cast<float>(static_cast<uint32_t>(b)) == signed_value(r), ctx);
      if (s.fmt == Fmt::bf16 && r.cls == Class::finite)
        c.ok(std::bit_cast<float>(static_cast<uint32_t>(b << 16)) == signed_value(r), ctx);
#ifdef __FLT16_MAX__
      if (s.fmt == Fmt::fp16 && r.cls == Class::finite)
        c.ok(static_cast<double>(std::bit_cast<_Float16>(static_cast<uint16_t>(b))) ==
                 signed_value(r),
             ctx);
#endif
    }
  }
  // tf32 ignores the 13 low bits of its container.
  for (uint32_t b : {0x3F800001u, 0x3F801FFFu, 0x00001FFFu, 0xBF800FFFu}) {
    const mmaemu::Unpacked u = decode(Fmt::tf32, b);
    const mmaemu::Unpacked w = decode(Fmt::tf32, b & ~0x1FFFu);
    c.ok(u.cls == w.cls && u.neg == w.neg && u.exp == w.exp && u.sig == w.sig,
         [&] { return std::string("tf32 low bits ignored bits=") + hex(b); });
  }
  c.finish();
}

TEST_CASE("round trip: decode -> round_pack gives the same bits in every mode") {
  const uint64_t seed = test_seed();
  Counter c("round trip");
  std::mt19937_64 rng(seed);
  for (const Spec& s : kSpecs) {
    for (uint64_t b : patterns(s, seed)) {
      const Ref r = ref_decode(s, b);
      if (r.cls == Class::nan || r.cls == Class::inf) continue;
      const mmaemu::Unpacked u = decode(s.fmt, b);
      for (Round rm : kRounds) {
        for (Overflow ov : kOverflows) {
          auto ctx = [&](const char* how) {
            return [&, how] {
              return ctx_pat(s, b) + " " + how + " mode=" + round_name(rm) + " ov=" +
                     ov_name(ov) + " seed=" + hex(seed);
            };
          };
          c.eq(round_pack(s.fmt, u.neg, u.sig, u.exp, false, rm, ov), b, ctx("exact"));
          // The same value with an unnormalised significand.
          if (u.sig != 0) {
            const int room = std::countl_zero(u.sig);
            const int k = static_cast<int>(rng() % (room + 1));
            c.eq(round_pack(s.fmt, u.neg, u.sig << k, u.exp - k, false, rm, ov), b,
                 ctx("shifted"));
            // A value just beyond |b| (sticky below the last bit) truncates to b.
            const bool away = (rm == Round::rd && u.neg) || (rm == Round::ru && !u.neg);
            if (room >= 1 && !away) {
              const int k1 = 1 + static_cast<int>(rng() % room);
              c.eq(round_pack(s.fmt, u.neg, u.sig << k1, u.exp - k1, true, rm, ov), b,
                   ctx("sticky"));
            }
          }
          // Converting a format to itself is the identity on non-NaN values.
          c.eq(convert(s.fmt, s.fmt, b, rm, ov), b, ctx("convert to itself"));
        }
      }
    }
  }
  c.finish();
}

TEST_CASE("widening to fp32 / fp64 is exact") {
  const uint64_t seed = test_seed();
  Counter c("widening");
  const Spec& f32 = spec(Fmt::fp32);
  const Spec& f64 = spec(Fmt::fp64);
  for (const Spec& s : kSpecs) {
    if (s.fmt == Fmt::fp64) continue;
    for (uint64_t b : patterns(s, seed)) {
      const Ref r = ref_decode(s, b);
      // Expected: the same value (or the same special) in the wide format.
      uint64_t want32 = 0, want64 = 0;
      switch (r.cls) {
        case Class::nan:
          want32 = nan_bits(f32, r.neg);
          want64 = nan_bits(f64, r.neg);
          break;
        case Class::inf:
          want32 = inf_bits_ref(f32, r.neg);
          want64 = inf_bits_ref(f64, r.neg);
          break;
        case Class::zero:
        case Class::finite:
          want32 = std::bit_cast<uint32_t>(static_cast<float>(signed_value(r)));
          want64 = std::bit_cast<uint64_t>(signed_value(r));
          if (r.cls == Class::zero && r.neg) {
            want32 = 0x80000000u;
            want64 = 0x8000000000000000ull;
          }
          break;
      }
      // The fnuz NaN 0x80 has its sign bit set; either sign of the wide NaN is accepted.
      auto fix = [&](uint64_t got, uint64_t want, const Spec& w) {
        if (r.cls == Class::nan && s.kind == Kind::fnuz && (got & ~w.sign_bit()) == nan_bits(w, false))
          return want;
        return got;
      };
      // Host cross-checks where the host has the format.
      if (r.cls != Class::nan) {
        if (s.fmt == Fmt::bf16)
          c.eq(want32, b << 16, [&] { return ctx_pat(s, b) + " oracle vs host bf16<<16"; });
        if (s.fmt == Fmt::fp32 || s.fmt == Fmt::tf32)
          c.eq(want32, b, [&] { return ctx_pat(s, b) + " oracle vs host fp32"; });
#ifdef __FLT16_MAX__
        if (s.fmt == Fmt::fp16)
          c.eq(want32,
               std::bit_cast<uint32_t>(static_cast<float>(std::bit_cast<_Float16>(static_cast<uint16_t>(b)))),
               [&] { return ctx_pat(s, b) + " oracle vs host _Float16"; });
#endif
      }
      for (Round rm : kRounds) {
        for (Overflow ov : kOverflows) {
          auto ctx = [&](const char* to) {
            return [&, to] {
              return ctx_pat(s, b) + " -> " + to + " mode=" + round_name(rm) + " ov=" + ov_name(ov) +
                     " seed=" + hex(seed);
            };
          };
          const uint64_t g32 = convert(s.fmt, Fmt::fp32, b, rm, ov);
          const uint64_t g64 = convert(s.fmt, Fmt::fp64, b, rm, ov);
          c.eq(fix(g32, want32, f32), want32, ctx("fp32"));
          c.eq(fix(g64, want64, f64), want64, ctx("fp64"));
        }
      }
      c.eq(fix(mmaemu::to_fp32_bits(s.fmt, b), want32, f32), want32,
           [&] { return ctx_pat(s, b) + " to_fp32_bits"; });
      c.eq(fix(mmaemu::to_fp64_bits(s.fmt, b), want64, f64), want64,
           [&] { return ctx_pat(s, b) + " to_fp64_bits"; });
    }
  }
  c.finish();
}
