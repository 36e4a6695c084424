// SPDX-License-Identifier: BSD-3-Clause
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <set>

#include "ensemble.h"
#include "independent.h"
#include "writer.h"

using namespace mmaemu::hwcheck;
using hwtest::val;

namespace {

int k_of(InFmt f) { return f == InFmt::tf32 ? 8 : (f == InFmt::e4m3 || f == InFmt::e5m2) ? 32 : 16; }

const SetRange& find_set(const Ensemble& e, const std::string& name) {
  for (const auto& s : e.sets)
    if (s.name == name) return s;
  FAIL("set not found: " << name);
  return e.sets.front();
}

bool is_special(uint32_t b) { return (b & 0x7f800000u) == 0x7f800000u; }
double prod(const Ensemble& e, size_t i, int l) {
  return static_cast<double>(val(e.a[i * e.k + l])) * static_cast<double>(val(e.b[i * e.k + l]));
}

}  // namespace

TEST_CASE("same seed gives the same bytes, another seed other bytes") {
  for (InFmt f : kAllInFmts) {
    const std::string fmt_name = info(f).folder;
    CAPTURE(fmt_name);
    const std::vector<SetKind> all(std::begin(kAllSetKinds), std::end(kAllSetKinds));
    const Ensemble x = generate(f, k_of(f), all, 300, 42);
    const Ensemble y = generate(f, k_of(f), all, 300, 42);
    const Ensemble z = generate(f, k_of(f), all, 300, 43);
    CHECK(format_hex_lines(x.a, x.size(), x.k) == format_hex_lines(y.a, y.size(), y.k));
    CHECK(format_hex_lines(x.b, x.size(), x.k) == format_hex_lines(y.b, y.size(), y.k));
    CHECK(format_bin_lines(x.c) == format_bin_lines(y.c));
    CHECK(x.a != z.a);
    CHECK(x.c != z.c);
  }
}

TEST_CASE("sample i does not depend on the set size") {
  const Ensemble small = generate_set(InFmt::bf16, 16, SetKind::em_normal, 50, 7);
  const Ensemble big = generate_set(InFmt::bf16, 16, SetKind::em_normal, 500, 7);
  CHECK(std::equal(small.a.begin(), small.a.end(), big.a.begin()));
  CHECK(std::equal(small.c.begin(), small.c.end(), big.c.begin()));
}

TEST_CASE("a fixed seed keeps giving the same first values (PRNG pinned)") {
  // Regression anchor: the generator is fully specified in ensemble.cpp, so
  // these values may change only together with a deliberate format change.
  Rng r(0);
  const uint64_t first = r.next();
  Rng r2(0);
  CHECK(r2.next() == first);
  uint64_t st = 0;
  CHECK(splitmix64(st) == 0xe220a8397b1dcdafull);  // published splitmix64 value for seed 0
}

TEST_CASE("every generated input is exactly representable in its format") {
  for (InFmt f : kAllInFmts)
    for (SetKind s : kAllSetKinds) {
      const std::string fmt_name = info(f).folder;
    CAPTURE(fmt_name);
      const std::string set_str = set_name(s);
      CAPTURE(set_str);
      const Ensemble e = generate_set(f, k_of(f), s, 1300, 5);
      for (uint32_t v : e.a) REQUIRE(hwtest::representable(f, v));
      for (uint32_t v : e.b) REQUIRE(hwtest::representable(f, v));
    }
}

TEST_CASE("exponent ranges as PA Algorithm 3 / 5.1 asks") {
  auto eq = [](ExpRange r, ExpRange w) { return r.a_lo == w.a_lo && r.a_hi == w.a_hi && r.c_lo == w.c_lo && r.c_hi == w.c_hi; };
  CHECK(eq(exp_range(InFmt::fp16, SetKind::em_normal), {-14, 15, -126, 127}));
  CHECK(eq(exp_range(InFmt::fp16, SetKind::em_subnormal), {-24, -14, -149, -126}));
  CHECK(eq(exp_range(InFmt::bf16, SetKind::em_normal), {-126, 63, -126, 127}));
  CHECK(eq(exp_range(InFmt::bf16, SetKind::em_subnormal), {-133, -126, -149, -126}));
  CHECK(eq(exp_range(InFmt::tf32, SetKind::em_subnormal), {-136, -126, -149, -126}));
  CHECK(eq(exp_range(InFmt::e4m3, SetKind::em_normal), {-6, 8, -126, 127}));
  CHECK(eq(exp_range(InFmt::e4m3, SetKind::em_subnormal), {-9, -6, -149, -126}));
  CHECK(eq(exp_range(InFmt::e5m2, SetKind::em_normal), {-14, 15, -126, 127}));
  CHECK(eq(exp_range(InFmt::e5m2, SetKind::em_subnormal), {-16, -14, -149, -126}));
  CHECK(eq(exp_range(InFmt::fp16, SetKind::em_cmatch), {-14, 15, -28, 31}));

  for (InFmt f : kAllInFmts)
    for (SetKind s : {SetKind::em_normal, SetKind::em_subnormal, SetKind::em_cmatch}) {
      const std::string fmt_name = info(f).folder;
    CAPTURE(fmt_name);
      const std::string set_str = set_name(s);
      CAPTURE(set_str);
      const ExpRange r = exp_range(f, s);
      const hwtest::Facts x = hwtest::facts(f);
      const Ensemble e = generate_set(f, k_of(f), s, 4000, 11);
      std::set<int> binades;
      bool below_normal = false;
      for (const auto* v : {&e.a, &e.b})
        for (uint32_t bits : *v) {
          if (val(bits) == 0) continue;
          const int b = hwtest::binade(bits);
          REQUIRE(b <= r.a_hi);
          // a value drawn in binade e >= a_lo may lose leading bits but keeps the grid of 2^(max(a_lo,emin)-(p-1))
          const double q = std::ldexp(std::fabs(double(val(bits))), -(std::max(r.a_lo, x.emin) - (x.p - 1)));
          REQUIRE(q == std::floor(q));
          binades.insert(b);
          below_normal |= b < x.emin;
        }
      CHECK(binades.count(r.a_hi) == 1);
      CHECK(binades.count(std::max(r.a_lo, x.emin)) == 1);
      if (s == SetKind::em_subnormal) CHECK(below_normal);
      std::set<int> cb;
      bool c_sub = false;
      for (uint32_t bits : e.c) {
        REQUIRE_FALSE(is_special(bits));
        if (val(bits) == 0) continue;
        const int b = hwtest::binade(bits);
        REQUIRE(b <= r.c_hi);
        REQUIRE(b >= std::max(r.c_lo, -126) - 23);
        cb.insert(b);
        c_sub |= (bits & 0x7f800000u) == 0;
      }
      CHECK(cb.count(r.c_hi) == 1);
      if (s == SetKind::em_subnormal) CHECK(c_sub);
    }
}

TEST_CASE("independent bits: no Inf/NaN, all exponent fields used") {
  for (InFmt f : kAllInFmts) {
    const std::string fmt_name = info(f).folder;
    CAPTURE(fmt_name);
    const Ensemble e = generate_set(f, k_of(f), SetKind::bits, 3000, 3);
    bool zero_or_sub = false, top_binade = false;
    for (uint32_t v : e.a) {
      REQUIRE_FALSE(std::isnan(val(v)));
      REQUIRE_FALSE(std::isinf(val(v)));
      zero_or_sub |= std::fabs(val(v)) < std::ldexp(1.0, hwtest::facts(f).emin);
      top_binade |= val(v) != 0 && hwtest::binade(v) == info(f).emax;
    }
    CHECK(zero_or_sub);
    CHECK(top_binade);
    for (uint32_t v : e.c) REQUIRE_FALSE(is_special(v));
  }
}

TEST_CASE("the edge-case sets of PN 4.2 are present and do what they say") {
  const auto& names = edge_case_names();
  REQUIRE(names.size() == 13);
  for (InFmt f : kAllInFmts) {
    const std::string fmt_name = info(f).folder;
    CAPTURE(fmt_name);
    const Ensemble e = generate_set(f, k_of(f), SetKind::edge, 13 * 200, 9);
    REQUIRE(e.sets.size() == names.size());
    for (size_t w = 0; w < names.size(); ++w) {
      CHECK(e.sets[w].name == "edge:" + names[w]);
      CHECK(e.sets[w].count == 200);
    }
    auto each = [&](const std::string& name, auto&& pred) {
      const SetRange& s = find_set(e, "edge:" + name);
      size_t hits = 0;
      for (size_t i = s.first; i < s.first + s.count; ++i) hits += pred(i) ? 1 : 0;
      return hits;
    };
    const size_t n = 200;
    CHECK(each("c-zero", [&](size_t i) { return val(e.c[i]) == 0; }) == n);
    CHECK(each("some-zero-products", [&](size_t i) {
            for (int l = 0; l < e.k; ++l) if (prod(e, i, l) == 0) return true;
            return false;
          }) > n * 9 / 10);
    CHECK(each("all-zero-products", [&](size_t i) {
            for (int l = 0; l < e.k; ++l) if (prod(e, i, l) != 0) return false;
            return true;
          }) == n);
    CHECK(each("all-zero-products", [&](size_t i) { return e.c[i] == 0x80000000u; }) > 0);
    CHECK(each("huge-c-tiny-products", [&](size_t i) { return std::fabs(val(e.c[i])) >= std::ldexp(1.0, 127); }) == n);
    CHECK(each("tiny-c-huge-products", [&](size_t i) { return std::fabs(val(e.c[i])) < std::ldexp(1.0, -125); }) == n);
    CHECK(each("subnormal-c", [&](size_t i) { return (e.c[i] & 0x7f800000u) == 0 && (e.c[i] & 0x7fffffu) != 0; }) == n);
    CHECK(each("cancel-huge-products", [&](size_t i) {
            for (int l = 0; l < e.k; ++l)
              for (int m = l + 1; m < e.k; ++m) {
                const double p = prod(e, i, l);
                if (p != 0 && p == -prod(e, i, m) && std::fabs(p) >= std::ldexp(1.0, 2 * info(f).emax - 6)) return true;
              }
            return false;
          }) == n);
    if (f == InFmt::bf16 || f == InFmt::tf32)
      CHECK(each("cancel-huge-products", [&](size_t i) {
              for (int l = 0; l < e.k; ++l) if (std::fabs(prod(e, i, l)) >= std::ldexp(1.0, 128)) return true;
              return false;
            }) == n);
    CHECK(each("inf-nan-inputs", [&](size_t i) {
            if (is_special(e.c[i])) return true;
            for (int l = 0; l < e.k; ++l) if (is_special(e.a[i * e.k + l]) || is_special(e.b[i * e.k + l])) return true;
            return false;
          }) == n);
    if (info(f).has_inf)
      CHECK(each("inf-nan-inputs", [&](size_t i) {
              for (int l = 0; l < e.k; ++l) if (std::isinf(val(e.a[i * e.k + l])) || std::isinf(val(e.b[i * e.k + l]))) return true;
              return false;
            }) > 0);
    CHECK(each("mixed-classes", [&](size_t i) {
            bool z = false, s = false, nrm = false;
            for (int l = 0; l < e.k; ++l) {
              const double v = std::fabs(double(val(e.a[i * e.k + l])));
              z |= v == 0;
              s |= v != 0 && v < std::ldexp(1.0, info(f).emin);
              nrm |= v >= std::ldexp(1.0, info(f).emin) && std::isfinite(v);
            }
            return z && s && nrm;
          }) > n / 2);
    CHECK(each("max-carries", [&](size_t i) {
            for (int l = 0; l < e.k; ++l) {
              const double q = std::fabs(double(val(e.a[i * e.k + l]))) * std::ldexp(1.0, -hwtest::binade(e.a[i * e.k + l]));
              if (q != 2.0 - std::ldexp(1.0, -info(f).man_bits) || e.a[i * e.k + l] != e.a[i * e.k]) return false;
            }
            return true;
          }) == n);
    if (f == InFmt::bf16 || f == InFmt::tf32)
      CHECK(each("overflow", [&](size_t i) {
              double s = 0;
              for (int l = 0; l < e.k; ++l) s += prod(e, i, l);
              return std::fabs(s) > 3.4028234663852886e38;
            }) == n);
    if (f == InFmt::fp16)
      CHECK(each("overflow", [&](size_t i) {
              double s = 0;
              for (int l = 0; l < e.k; ++l) s += prod(e, i, l);
              return std::fabs(s) > 65504.0;
            }) == n);
    CHECK(each("interleave-probe", [&](size_t i) {
            double big = 0, small = 0;
            int nz = 0;
            for (int l = 0; l < e.k; ++l) {
              const double p = prod(e, i, l);
              if (p == 0) continue;
              ++nz;
              big = std::max(big, p);
              small = small == 0 ? p : std::min(small, p);
            }
            return nz >= 2 && nz <= 5 && small == std::ldexp(big, -24);
          }) == n);
    CHECK(each("near-cancel-c", [&](size_t i) {
            double s = 0, mag = 0;
            for (int l = 0; l < e.k; ++l) {
              s += prod(e, i, l);
              mag += std::fabs(prod(e, i, l));
            }
            return val(e.c[i]) == 0 || std::fabs(s + val(e.c[i])) <= mag * std::ldexp(1.0, -20);
          }) == n);
  }
}

TEST_CASE("generate() concatenates the sets and records their ranges") {
  const Ensemble e = generate(InFmt::fp16, 16, {SetKind::em_normal, SetKind::bits, SetKind::edge}, 130, 1);
  REQUIRE(e.sets.size() == 2 + edge_case_names().size());
  CHECK(e.sets[0].name == "em-normal");
  CHECK(e.sets[0].first == 0);
  CHECK(e.sets[1].name == "bits");
  CHECK(e.sets[1].first == 130);
  CHECK(e.sets[2].first == 260);
  CHECK(e.size() == 260 + 13 * 10);
  CHECK(e.a.size() == e.size() * 16);
}
