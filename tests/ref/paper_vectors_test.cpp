// SPDX-License-Identifier: BSD-3-Clause
// The test vectors of docs/models.md §6, run through the reference engine.
//
// §6.1 NVIDIA (PN-*), §6.2 CDNA1 (F, G, H), §6.3 CDNA2 (I, J, J2n), §6.4 CDNA3
// (K, L, M, N), the model-derived vectors of §6.5, Turing T4 (PJ-*, §6.6)
// and the RTX 5090 probe (§6.7). The expected value is
// the "hardware d" column (hardware-observed wins over the MATLAB toolbox M and
// MMA-Sim S); vectors stated only as a property test that property.
// Parameterised families (j = ..., n = ..., permutations, both signs) are
// tested in full wherever the family is realisable in the input format.
//
// Conventions (docs/models.md §6): unlisted products are a_i = b_i = 0, c = +0, the
// result is compared bit for bit; products are realised with the factors of
// the "realisation" column (the factorisation changes the alignment on NVIDIA
// and CDNA3, docs/models.md §2.3). Positions in the helpers are 1-based like the spec.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/hex.h"
#include "formats/format.h"
#include "models/model.h"
#include "models/scaled_units.h"
#include "ref/block_scaled.h"
#include "ref/reference.h"

using namespace mmaemu;

namespace {

// ---------------------------------------------------------------------------
// Values and bit patterns

double p2(int e) { return std::ldexp(1.0, e); }

// True when x is exactly a value of format f; `bits` receives its pattern.
bool exact_in(Fmt f, double x, uint64_t& bits) {
  bits = convert(Fmt::fp64, f, std::bit_cast<uint64_t>(x), Round::rne);
  return to_fp64_bits(f, bits) == std::bit_cast<uint64_t>(x);
}

// The bit pattern of x in f; x must be exactly representable.
uint64_t num(Fmt f, double x) {
  uint64_t bits = 0;
  const bool ok = exact_in(f, x, bits);
  REQUIRE_MESSAGE(ok, "value " << x << " (" << std::hexfloat << x << std::defaultfloat
                               << ") is not exact in " << info(f).name);
  return bits;
}

uint64_t f32(double x) { return num(Fmt::fp32, x); }

constexpr uint64_t kNvNan32 = 0x7FFFFFFFu;
constexpr uint64_t kNvNan16 = 0x7FFFu;
constexpr uint64_t kAmdNan32 = 0xFFC00000u;

// ---------------------------------------------------------------------------
// Models and rows

const Model& model(const std::string& name) {
  static std::map<std::string, Model> cache;
  auto it = cache.find(name);
  if (it == cache.end()) it = cache.emplace(name, lookup_model(name)).first;
  return it->second;
}

struct Unit {
  std::string model;
  const ModelRow* row;
};

// The GEMM-default row of (model, in, out).
Unit unit(const std::string& m, Fmt in, Fmt out) {
  const ModelRow* r = model(m).find(in, out);
  REQUIRE_MESSAGE(r != nullptr, m << " has no row " << info(in).name << "->" << info(out).name);
  return {m, r};
}

// A named instruction's row.
Unit unit(const std::string& m, const char* instr, Fmt in, Fmt out) {
  const ModelRow* r = model(m).find_instr(instr, in, out);
  REQUIRE_MESSAGE(r != nullptr,
                  m << " has no " << instr << " row " << info(in).name << "->" << info(out).name);
  return {m, r};
}

std::string describe(const Unit& u) {
  return u.model + " " + u.row->instr + " " + info(u.row->in).name + "->" +
         info(u.row->out).name;
}

// The one comparison helper: vector ID, model, formats, got and want in hex.
void expect_bits(const std::string& id, const Unit& u, uint64_t got, uint64_t want) {
  CHECK_MESSAGE(got == want,
                id << " [" << describe(u) << "]: got " << hex(got) << " want " << hex(want));
}

// A property check (statements without a printed value).
void expect_that(const std::string& id, const Unit& u, bool ok, uint64_t got,
                 const char* property) {
  CHECK_MESSAGE(ok, id << " [" << describe(u) << "]: got " << hex(got) << ", expected "
                       << property);
}

// ---------------------------------------------------------------------------
// One dot product d = c + sum a_i b_i of the instruction's k.

struct Dot {
  Unit u;
  std::vector<uint64_t> a, b;
  uint64_t c;

  explicit Dot(const Unit& unit_, std::size_t k = 0)
      : u(unit_),
        a(k ? k : static_cast<std::size_t>(unit_.row->k), zero_bits(unit_.row->in, false)),
        b(a.size(), zero_bits(unit_.row->in, false)),
        c(zero_bits(unit_.row->out, false)) {}

  Fmt in() const { return u.row->in; }
  Fmt out() const { return u.row->out; }

  // Product at 1-based position i realised as x * y.
  Dot& p(std::size_t i, double x, double y) {
    REQUIRE(i >= 1);
    REQUIRE(i <= a.size());
    a[i - 1] = num(in(), x);
    b[i - 1] = num(in(), y);
    return *this;
  }
  Dot& p(std::size_t i, std::pair<double, double> f) { return p(i, f.first, f.second); }
  Dot& raw(std::size_t i, uint64_t x, uint64_t y) {
    a[i - 1] = x;
    b[i - 1] = y;
    return *this;
  }
  Dot& cv(double x) {
    c = num(out(), x);
    return *this;
  }
  Dot& cbits(uint64_t x) {
    c = x;
    return *this;
  }
  uint64_t run() const { return ref::dot(*u.row, a.size(), a.data(), b.data(), c); }
  void expect(const std::string& id, uint64_t want) const { expect_bits(id, u, run(), want); }
  // Expected value given as a number in the output format.
  void expect_val(const std::string& id, double want) const { expect(id, num(out(), want)); }
};

// ---------------------------------------------------------------------------
// Realising products

// Some x * y == v with x, y exact in f (both normal if possible). Used only
// where the factorisation cannot change the result (exact CDNA1 sums, and
// terms that are not the largest of their block on NVIDIA/CDNA3).
std::pair<double, double> factor(Fmt f, double v) {
  static std::map<std::pair<int, double>, std::pair<double, double>> cache;
  const auto key = std::make_pair(static_cast<int>(f), v);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  const FormatInfo& fi = info(f);
  const double mag = std::fabs(v);
  bool found_any = false;
  std::pair<double, double> any{}, best{};
  bool found_best = false;
  for (uint64_t bits = 1; bits < (uint64_t{1} << (fi.width - 1)) && !found_best; ++bits) {
    const Unpacked ua = decode(f, bits);
    if (ua.cls != Class::finite) continue;
    const double x = std::bit_cast<double>(to_fp64_bits(f, bits));
    const double y = mag / x;
    uint64_t yb = 0;
    if (y == 0 || !std::isfinite(y) || !exact_in(f, y, yb) || x * y != mag) continue;
    const bool normal = ua.sig >> fi.man_bits && decode(f, yb).sig >> fi.man_bits;
    const std::pair<double, double> r{v < 0 ? -x : x, y};
    if (normal) {
      best = r;
      found_best = true;
    } else if (!found_any) {
      any = r;
      found_any = true;
    }
  }
  REQUIRE_MESSAGE((found_best || found_any),
                  "cannot realise " << std::hexfloat << v << " as a product in " << fi.name);
  const auto r = found_best ? best : any;
  cache.emplace(key, r);
  return r;
}

// Can v be realised as one product in f?
bool factorable(Fmt f, double v) {
  const FormatInfo& fi = info(f);
  const double mag = std::fabs(v);
  for (uint64_t bits = 1; bits < (uint64_t{1} << (fi.width - 1)); ++bits) {
    if (decode(f, bits).cls != Class::finite) continue;
    const double x = std::bit_cast<double>(to_fp64_bits(f, bits));
    const double y = mag / x;
    uint64_t yb = 0;
    if (y != 0 && std::isfinite(y) && exact_in(f, y, yb) && x * y == mag) return true;
  }
  return false;
}

// Distinct permutations of `v` (sorted first, so duplicates appear once).
template <typename F>
void for_perms(std::vector<double> v, F&& f) {
  std::sort(v.begin(), v.end());
  do f(v);
  while (std::next_permutation(v.begin(), v.end()));
}

std::string idx(const std::string& id, const std::string& extra) { return id + " " + extra; }
std::string idx(const std::string& id, const char* name, long v) {
  return id + " " + name + "=" + std::to_string(v);
}
std::string sgn(int s) { return s > 0 ? "+" : "-"; }

const std::vector<std::string> kNvidia = {"V100", "T4",      "A100", "A2",   "A30",  "L40S",
                                          "RTX1000", "H100", "H200", "B200", "RTXPRO6000"};
const std::vector<std::string> kAmpereAda = {"A100", "A2", "A30", "L40S", "RTX1000"};
const std::vector<std::string> kAda = {"L40S", "RTX1000"};
const std::vector<std::string> kHopperBw = {"H100", "H200", "B200"};
const std::vector<std::string> kHopper = {"H100", "H200"};
const std::vector<std::string> kCdna2 = {"MI210", "MI250"};
const std::vector<std::string> kCdna3 = {"MI300A", "MI300X"};
const std::vector<std::string> kCdnaAll = {"MI100", "MI210", "MI250", "MI300A", "MI300X"};

// Volta and Turing have fp16 inputs only.
bool has_bf16(const std::string& g) { return model(g).find(Fmt::bf16, Fmt::fp32) != nullptr; }

// Frequently used values.
const double kX = p2(-23) + p2(-24);  // 2^-23 + 2^-24 = 1.5 ulp(1)
const double kInf = HUGE_VAL;
const double kNan = std::nan("");

}  // namespace

// ===========================================================================
// 6.1 NVIDIA (PN)
// ===========================================================================

TEST_CASE("PN-0a: subnormal fp16 inputs are read (d != 0 iff supported)") {
  // All NVIDIA units, MI100 and MI300 support subnormal inputs; CDNA2 does not.
  std::vector<Unit> units;
  for (const auto& g : kNvidia)
    for (Fmt out : {Fmt::fp32, Fmt::fp16}) units.push_back(unit(g, Fmt::fp16, out));
  for (const char* g : {"MI100", "MI300A", "MI300X"}) units.push_back(unit(g, Fmt::fp16, Fmt::fp32));
  for (const Unit& u : units)
    for (uint64_t s = 1; s < 0x400; ++s)
      for (uint64_t sign : {uint64_t{0}, uint64_t{0x8000}}) {
        Dot d(u);
        d.raw(1, s | sign, num(Fmt::fp16, 1.0));
        const uint64_t got = d.run();
        const Unpacked v = decode(u.row->out, got);
        expect_that(idx("PN-0a", "a1", long(s | sign)), u, v.cls == Class::finite,
                    got, "a nonzero finite d");
      }
  for (const auto& g : kCdna2) {
    const Unit u = unit(g, Fmt::fp16, Fmt::fp32);
    for (uint64_t s = 1; s < 0x400; ++s) {
      Dot d(u);
      d.raw(1, s, num(Fmt::fp16, 1.0));
      expect_bits(idx("PN-0a (CDNA2 flushes)", "a1", long(s)), u, d.run(), 0);
    }
  }
}

TEST_CASE("PN-0b: subnormal fp16 results are produced") {
  for (const auto& g : kNvidia) {
    const Unit u = unit(g, Fmt::fp16, Fmt::fp16);
    for (int e = 1; e <= 10; ++e) {  // 2^-14 * 2^-e: every subnormal binade of fp16
      Dot d(u);
      d.p(1, p2(-14), p2(-e));
      const uint64_t got = d.run();
      const Unpacked v = decode(Fmt::fp16, got);
      expect_that(idx("PN-0b", "b1=2^-", e), u, v.cls == Class::finite, got,
                  "a nonzero (subnormal) d");
    }
  }
}

TEST_CASE("PN-V1..V3: V100 denormalised products and c as a normalised term") {
  const Unit u = unit("V100", Fmt::fp16, Fmt::fp32);
  Dot v1(u);
  v1.p(1, 1.5, 1.5).p(2, p2(-12), p2(-11)).p(3, p2(-12), p2(-11));
  v1.expect("PN-V1", 0x40100001);
  Dot v2(u);
  v2.p(1, 1.0, 2.25).p(2, p2(-12), p2(-11)).p(3, p2(-12), p2(-11));
  v2.expect_val("PN-V2", 2.25);
  Dot v3(u);
  v3.cv(2.25).p(2, p2(-12), p2(-11)).p(3, p2(-12), p2(-11));
  v3.expect_val("PN-V3", 2.25);
}

TEST_CASE("PN-A1: A100 fp16 needs neab = 1 and the denormalised p1") {
  const Unit u = unit("A100", Fmt::fp16, Fmt::fp32);
  Dot d(u);
  d.p(1, 1.5, 1.5).p(2, p2(-12), p2(-11)).p(3, p2(-12), p2(-12)).p(4, p2(-12), p2(-12));
  d.expect("PN-A1", 0x40100001);
}

TEST_CASE("PN-A2..A4: Ampere/Ada bf16 and tf32 alignment floor -132") {
  for (const auto& g : kAmpereAda)
    for (Fmt in : {Fmt::bf16, Fmt::tf32}) {
      const Unit u = unit(g, in, Fmt::fp32);
      Dot a2(u);
      a2.p(1, 63.0 / 32 * p2(-75), p2(-75)).p(2, p2(-78), p2(-78)).p(3, p2(-78), p2(-78));
      a2.expect("PN-A2", 0x00000001);
      Dot a3(u);
      a3.p(1, 63.0 / 32 * p2(-75), p2(-75)).p(2, p2(-78), p2(-78)).p(3, p2(-78), p2(-79)).p(
          4, p2(-78), p2(-79));
      a3.expect("PN-A3", 0);
      Dot a4(u);
      a4.cv(p2(-127)).p(1, p2(-75), p2(-75)).p(2, p2(-75), p2(-76)).p(3, p2(-75), p2(-76));
      a4.expect("PN-A4", 0x00400000);
    }
}

TEST_CASE("PN-A5: c = 0 and largest product exponent in (-132, -126]: E = that exponent") {
  // p1 = 2^E, then block-1 terms t = (63/32) 2^-151 (bits 2^-151..2^-156).
  // Each t is truncated on the grid 2^(E-24); the subnormal fp32 result
  // (grid 2^-149) shows how many of those bits survived. With E = -126
  // (c = 0 as a term) every t would be lost.
  for (const auto& g : kAmpereAda)
    for (Fmt in : {Fmt::bf16, Fmt::tf32}) {
      const Unit u = unit(g, in, Fmt::fp32);
      const int n = u.row->block - 1;
      for (int E = -126; E >= -131; --E) {
        Dot d(u);
        d.p(1, p2(-64), p2(E + 64));
        for (int i = 2; i <= n + 1; ++i) d.p(i, 63.0 / 32 * p2(-75), p2(-76));
        const long g_units = 1L << (E + 132);  // grid in units of 2^-156
        const long kept = n * ((63 / g_units) * g_units);
        const double want = p2(E) + static_cast<double>(kept / 128) * p2(-149);
        d.expect_val(idx("PN-A5", "E", E), want);
      }
    }
}

TEST_CASE("PN-L1 / PN-H6: fp8 units with 13 fraction bits (Ada QMMA, H100 wgmma)") {
  std::vector<Unit> units;
  for (const auto& g : kAda)
    for (Fmt in : {Fmt::e4m3, Fmt::e5m2}) units.push_back(unit(g, in, Fmt::fp32));
  for (const auto& g : kHopper)
    for (Fmt in : {Fmt::e4m3, Fmt::e5m2}) units.push_back(unit(g, "wgmma", in, Fmt::fp32));
  for (const Unit& u : units) {
    const bool h = std::string(u.row->instr) == "wgmma";
    const int max_s = u.row->in == Fmt::e4m3 ? 18 : 32;  // smallest product 2^-18 / 2^-32
    for (int s = 13; s <= max_s; ++s) {  // p2 = p3 = 2^-s, neab = s - 23 = -10, -9, ...
      Dot d(u);
      d.p(1, 1.0, 1.0).p(2, factor(u.row->in, p2(-s))).p(3, factor(u.row->in, p2(-s)));
      d.expect(idx(h ? "PN-H6" : "PN-L1", "p=2^-", s), s == 13 ? 0x3F800800 : 0x3F800000);
    }
  }
}

TEST_CASE("PN-H6 / PN-L1: N_FMA 32 on H100 wgmma, 16 on Ada") {
  // 2^-14 at positions 1 and 2, 1 at position j: in one block the 2^-14 are
  // truncated (d = 1); summed in an earlier block they give 2^-13 (1+2^-13).
  std::vector<Unit> units;
  for (const auto& g : kHopper) units.push_back(unit(g, "wgmma", Fmt::e5m2, Fmt::fp32));
  for (const auto& g : kAda) units.push_back(unit(g, Fmt::e5m2, Fmt::fp32));
  for (const Unit& u : units) {
    const int n = u.row->block;
    for (int j = 3; j <= 32; ++j) {
      Dot d(u);
      d.p(1, p2(-7), p2(-7)).p(2, p2(-7), p2(-7)).p(j, 1.0, 1.0);
      d.expect(idx(n == 32 ? "PN-H6 (N 32)" : "PN-L1 (N 16)", "j", j),
               j <= n ? 0x3F800000 : 0x3F800400);
    }
  }
}

TEST_CASE("PN-L2: c is aligned with the products in the fp8 units") {
  std::vector<Unit> units;
  for (const auto& g : kAda)
    for (Fmt in : {Fmt::e4m3, Fmt::e5m2}) units.push_back(unit(g, in, Fmt::fp32));
  for (const auto& g : kHopper)
    for (Fmt in : {Fmt::e4m3, Fmt::e5m2}) units.push_back(unit(g, "wgmma", in, Fmt::fp32));
  for (const Unit& u : units) {
    Dot d(u);
    d.cv(1.0).p(1, p2(-7), p2(-7)).p(2, p2(-7), p2(-7));
    d.expect("PN-L2", 0x3F800000);
  }
  // "B200's fp8 unit would give 1+2^-13".
  for (Fmt in : {Fmt::e4m3, Fmt::e5m2}) {
    Dot d(unit("B200", "tcgen05.mma", in, Fmt::fp32));
    d.cv(1.0).p(1, p2(-7), p2(-7)).p(2, p2(-7), p2(-7));
    d.expect("PN-L2 (B200 tcgen05)", 0x3F800400);
  }
}

TEST_CASE("PN-H1: Hopper/Blackwell fp16 and bf16 keep exactly 25 fraction bits") {
  for (const auto& g : kHopperBw)
    for (Fmt in : {Fmt::fp16, Fmt::bf16}) {
      const Unit u = unit(g, in, Fmt::fp32);
      Dot d(u);
      d.p(1, 1.5, 1.5).p(2, 1.75 * p2(-12), p2(-11)).p(3, p2(-13), p2(-12));
      d.expect("PN-H1", 0x40100001);
      Dot e(u);
      e.p(1, 1.0, 2.25).p(2, 1.75 * p2(-12), p2(-11)).p(3, p2(-13), p2(-12));
      e.expect_val("PN-H1 (p1 = 1 x 2.25)", 2.25);
    }
}

TEST_CASE("PN-H2..H4: Hopper/Blackwell bf16 and tf32 alignment floor -133") {
  for (const auto& g : kHopperBw)
    for (Fmt in : {Fmt::bf16, Fmt::tf32}) {
      const Unit u = unit(g, in, Fmt::fp32);
      Dot h2(u);
      h2.p(1, 127.0 / 64 * p2(-75), p2(-75)).p(2, p2(-78), p2(-79)).p(3, p2(-79), p2(-79)).p(
          4, p2(-79), p2(-79));
      h2.expect("PN-H2", 0x00000001);
      Dot h3(u);
      h3.p(1, 127.0 / 64 * p2(-75), p2(-75)).p(2, 1.5 * p2(-78), p2(-79)).p(3, p2(-79), p2(-80)).p(
          4, p2(-79), p2(-80));
      h3.expect("PN-H3", 0);
      Dot h4(u);
      h4.cv(p2(-127)).p(1, p2(-75), p2(-76)).p(2, p2(-76), p2(-76)).p(3, p2(-76), p2(-76));
      h4.expect("PN-H4", 0x00400000);
      // The statement of PN-H4: with E = -126 the grid is 2^-151; products of
      // 2^-152 are truncated, products of 2^-151 are kept. Visible on the
      // fp32 subnormal grid (2^-149) with enough of them in the block.
      const int nb = u.row->block;
      Dot kept(u);
      kept.cv(p2(-127));
      for (int i = 1; i <= 4; ++i) kept.p(i, p2(-75), p2(-76));
      kept.expect_val("PN-H4 (2^-151 kept)", p2(-127) + p2(-149));
      if (nb >= 8) {
        Dot cut(u);
        cut.cv(p2(-127));
        for (int i = 1; i <= 8; ++i) cut.p(i, p2(-76), p2(-76));
        cut.expect_val("PN-H4 (2^-152 truncated)", p2(-127));
      }
    }
}

TEST_CASE("PN-H5: fp8 mma.sync on Hopper/Blackwell interleaves pairs") {
  for (const auto& g : kHopperBw) {
    const Unit u = unit(g, "mma.sync", Fmt::e5m2, Fmt::fp32);
    for (int j = 3; j <= 32; ++j) {
      Dot d(u);
      d.p(1, 1.0, 1.0).p(2, p2(-12), p2(-12)).p(j, p2(-12), p2(-12));
      const bool same_group = (j - 1) % 4 < 2;
      d.expect(idx("PN-H5", "j", j), same_group ? 0x3F800001 : 0x3F800000);
    }
  }
}

TEST_CASE("PN-B1: B200 tcgen05 fp8 has 25 fraction bits and N_FMA 32") {
  const Unit u = unit("B200", "tcgen05.mma", Fmt::e5m2, Fmt::fp32);
  Dot d(u);
  d.p(1, 1.0, 1.0);
  for (int i = 2; i <= 5; ++i) d.p(i, p2(-12), p2(-13));
  d.expect("PN-B1 (25 fraction bits)", 0x3F800001);
  // N_FMA 32: thirty-one 2^-26 and a 1 at position 32 in one block: every
  // 2^-26 is truncated (d = 1); with N 16 the first 15 would survive as c.
  Dot n(u);
  for (int i = 1; i <= 31; ++i) n.p(i, p2(-13), p2(-13));
  n.p(32, 1.0, 1.0);
  n.expect("PN-B1 (N_FMA 32)", 0x3F800000);
}

TEST_CASE("PN exceptional values: Inf - Inf, Inf x Inf, NaN, overflow to Inf") {
  for (const auto& g : kNvidia) {
    std::vector<Unit> units = {unit(g, Fmt::fp16, Fmt::fp32), unit(g, Fmt::fp16, Fmt::fp16)};
    if (has_bf16(g)) {
      units.push_back(unit(g, Fmt::bf16, Fmt::fp32));
      units.push_back(unit(g, Fmt::tf32, Fmt::fp32));
    }
    for (const Unit& u : units) {
      const Fmt in = u.row->in;
      const uint64_t nan = u.row->out == Fmt::fp16 ? kNvNan16 : kNvNan32;
      const uint64_t pinf = inf_bits(u.row->out, false), ninf = inf_bits(u.row->out, true);
      const uint64_t one = num(in, 1.0), i_p = inf_bits(in, false), i_n = inf_bits(in, true);
      Dot a(u);
      a.raw(1, i_p, one).raw(2, i_n, one);
      a.expect("PN inf-inf", nan);
      Dot b(u);
      b.raw(1, i_p, i_p).raw(2, i_n, i_p);
      b.expect("PN +(Inf x Inf) - (Inf x Inf)", nan);
      Dot c(u);
      c.raw(1, i_p, i_p);
      c.expect("PN Inf x Inf", pinf);
      Dot c2(u);
      c2.raw(1, i_n, i_p);
      c2.expect("PN -Inf x Inf", ninf);
      for (uint64_t inf : {i_p, i_n}) {
        Dot e(u);
        e.raw(1, default_nan(in), one).raw(2, inf, one);
        e.expect("PN NaN + Inf", nan);
      }
      for (int s : {1, -1}) {
        if (u.row->out == Fmt::fp16) {  // 256*256 + 256*256 = 2^17 > 65504
          Dot o(u);
          o.p(1, 256.0, s * 256.0).p(2, 256.0, s * 256.0);
          o.expect("PN overflow fp16 " + sgn(s), s > 0 ? pinf : ninf);
        } else if (in != Fmt::fp16) {  // 2^65 * 2^65 = 2^130, also with RZ
          Dot o(u);
          o.p(1, p2(65), s * p2(65));
          o.expect("PN overflow fp32 " + sgn(s), s > 0 ? pinf : ninf);
        }
      }
    }
  }
}

// ===========================================================================
// 6.2 AMD CDNA1 — MI100 (fp32 SFMA: PA says CDNA2 and CDNA3 behave the same)
// ===========================================================================

TEST_CASE("F1..F10: fp32 inputs, a chain of IEEE fp32 FMAs") {
  for (const auto& g : kCdnaAll) {
    const Unit u = unit(g, Fmt::fp32, Fmt::fp32);
    for (int s : {1, -1}) {
      Dot f1(u);
      f1.p(1, s * 1.0, 1.0).cv(s * kX);
      f1.expect_val("F1 " + sgn(s), s * (1 + p2(-22)));
      Dot f1b(u);
      f1b.p(1, s * 1.0, 1.0).cv(s * p2(-24));
      f1b.expect_val("F1 (c = 2^-24) " + sgn(s), s * 1.0);
    }
    // F2: permute {1, 2^-23, 2^-24} over (p1, p2, c).
    for_perms({1.0, p2(-23), p2(-24)}, [&](const std::vector<double>& v) {
      Dot d(u);
      d.p(1, v[0], 1.0).p(2, v[1], 1.0).cv(v[2]);
      d.expect_val(idx("F2", "p2", long(std::ilogb(v[1]))), v[1] == p2(-23) ? 1 + p2(-23) : 1 + p2(-22));
    });
    // F3: permute {1, x, x} over (p1, p2, p3), c = 0.
    for_perms({1.0, kX, kX}, [&](const std::vector<double>& v) {
      Dot d(u);
      d.p(1, v[0], 1.0).p(2, v[1], 1.0).p(3, v[2], 1.0);
      const bool last_one = v[2] == 1.0;
      d.expect_val(idx("F3", "pos of 1", v[0] == 1 ? 1 : v[1] == 1 ? 2 : 3),
                   last_one ? 1 + p2(-22) + p2(-23) : 1 + p2(-21));
    });
    for (int s : {1, -1}) {
      Dot f4(u);
      f4.p(1, s * (p2(-126) + p2(-127)), p2(-23));
      f4.expect_val("F4 " + sgn(s), s * p2(-148));
      Dot f7(u);
      const double mx = (2 - p2(-23)) * p2(127);
      f7.p(1, s * mx, 1.0).p(2, s * mx, 1.0);
      f7.expect("F7 " + sgn(s), inf_bits(Fmt::fp32, s < 0));
      Dot f9(u);
      f9.p(1, s * p2(-127), 1.0);
      f9.expect_val("F9 " + sgn(s), s * p2(-127));
      Dot f10(u);
      f10.p(1, p2(-65), s * p2(-65));
      f10.expect_val("F10 " + sgn(s), s * p2(-130));
    }
    Dot f5(u);
    f5.p(1, p2(-149), 1.0).p(2, p2(-126) + p2(-127), p2(-23));
    f5.expect_val("F5", p2(-148));
    Dot f6(u);
    f6.p(1, p2(-149), 1.0).p(2, 1.25 * p2(-125), p2(-23));
    f6.expect_val("F6", p2(-147));
    Dot f8(u);
    f8.p(1, kInf, 1.0).p(2, -kInf, 1.0);
    f8.expect("F8", kAmdNan32);
  }
}

TEST_CASE("G1..G3: MI100 fp16, exact accumulation") {
  const Unit u = unit("MI100", Fmt::fp16, Fmt::fp32);
  for (int s : {1, -1}) {
    Dot g1(u);
    g1.p(1, p2(-24), s * p2(-24));
    g1.expect_val("G1 " + sgn(s), s * p2(-48));
    for (int e = -126; e >= -149; --e) {
      Dot g2(u);
      g2.cv(s * p2(e));
      g2.expect_val(idx("G2 " + sgn(s), "e", e), s * p2(e));
    }
    Dot g3(u);
    g3.p(1, s * 1.0, 1.0).cv(s * kX);
    g3.expect_val("G3 " + sgn(s), s * (1 + p2(-22)));
    Dot g3b(u);
    g3b.p(1, s * 1.0, 1.0).cv(s * p2(-24));
    g3b.expect_val("G3 (c = 2^-24) " + sgn(s), s * 1.0);
  }
}

TEST_CASE("G4: MI100 fp16, F3's permutations give one rounding") {
  const Unit u = unit("MI100", Fmt::fp16, Fmt::fp32);
  for_perms({1.0, kX, kX}, [&](const std::vector<double>& v) {
    Dot d(u);
    for (int i = 0; i < 3; ++i)
      if (v[i] == 1.0) d.p(i + 1, 1.0, 1.0);
      else d.p(i + 1, 1.5 * p2(-12), p2(-11));
    d.expect_val(idx("G4", "pos of 1", v[0] == 1 ? 1 : v[1] == 1 ? 2 : 3), 1 + p2(-22) + p2(-23));
  });
}

TEST_CASE("G5 / H1: CDNA1 block size (fp16 N_FMA 4, bf16 N_FMA 2)") {
  for (Fmt in : {Fmt::fp16, Fmt::bf16}) {
    const Unit u = unit("MI100", in, Fmt::fp32);
    const int n = in == Fmt::fp16 ? 4 : 2;
    const char* id = in == Fmt::fp16 ? "G5" : "H1";
    for (int j = 2; j <= u.row->k; ++j) {
      const double want = j <= n ? 1 + p2(-22) + p2(-23) : 1 + p2(-21);
      Dot d(u);  // c = 1, p1 = p_j = x
      d.cv(1.0).p(1, 1.5 * p2(-12), p2(-11)).p(j, 1.5 * p2(-12), p2(-11));
      d.expect_val(idx(id, "j", j), want);
      Dot e(u);  // p1 = 1, c = x, p_j = x
      e.cv(kX).p(1, 1.0, 1.0).p(j, 1.5 * p2(-12), p2(-11));
      e.expect_val(idx(std::string(id) + " (p1 = 1, c = x)", "j", j), want);
    }
  }
}

TEST_CASE("G6: MI100 fp16, permute {1, 2^-24, 2^-25-n} over (c, p1, p2)") {
  const Unit u = unit("MI100", Fmt::fp16, Fmt::fp32);
  for (int n = 0; n <= 24; ++n)
    for_perms({1.0, p2(-24), p2(-25 - n)}, [&](const std::vector<double>& v) {
      // v[0] = c, v[1] = p1, v[2] = p2; 2^-49 is no fp16 product.
      if (v[1] < p2(-48) || v[2] < p2(-48)) return;
      Dot d(u);
      d.cv(v[0]).p(1, factor(Fmt::fp16, v[1])).p(2, factor(Fmt::fp16, v[2]));
      d.expect_val(idx("G6 c=2^" + std::to_string(std::ilogb(v[0])), "n", n), 1 + p2(-23));
    });
  // The two realisations the spec names.
  Dot a(u);
  a.cv(p2(-45)).p(1, 1.0, 1.0).p(2, p2(-12), p2(-12));
  a.expect_val("G6 (realisation 1)", 1 + p2(-23));
  Dot b(u);
  b.cv(1.0).p(1, p2(-12), p2(-12)).p(2, p2(-24), p2(-22));
  b.expect_val("G6 (realisation 2)", 1 + p2(-23));
}

TEST_CASE("G7: MI100 fp16, permute {1, x, -2^-25-n} over (c, p1, p2)") {
  const Unit u = unit("MI100", Fmt::fp16, Fmt::fp32);
  for (int n = 0; n <= 124; ++n)
    for_perms({1.0, kX, -p2(-25 - n)}, [&](const std::vector<double>& v) {
      // As a product the tiny term needs n <= 23 (2^-48); as c, n <= 124.
      if (std::fabs(v[1]) < p2(-48) || std::fabs(v[2]) < p2(-48)) return;
      Dot d(u);
      d.cv(v[0]).p(1, factor(Fmt::fp16, v[1])).p(2, factor(Fmt::fp16, v[2]));
      d.expect_val(idx("G7 c=" + std::to_string(v[0]), "n", n), 1 + p2(-23));
    });
  Dot d(u);
  d.cv(kX).p(1, 1.0, 1.0).p(2, -p2(-24), p2(-20));
  d.expect_val("G7 (realisation)", 1 + p2(-23));
}

TEST_CASE("G8: MI100 fp16, permute {1, 2^-23, sum 2^-25..2^-L, 2^-L} over (c, p1, p2, p3)") {
  const Unit u = unit("MI100", Fmt::fp16, Fmt::fp32);
  for (int L = 26; L <= 48; ++L) {
    double sum = 0;
    for (int l = 25; l <= L; ++l) sum += p2(-l);
    // The sum as fp16 products: one if possible, else two runs of ones.
    std::vector<double> pieces;
    if (factorable(Fmt::fp16, sum)) {
      pieces = {sum};
    } else {
      for (int cut = L - 1; cut > 25 && pieces.empty(); --cut) {
        double hi = 0, lo = 0;
        for (int l = 25; l <= cut; ++l) hi += p2(-l);
        for (int l = cut + 1; l <= L; ++l) lo += p2(-l);
        if (factorable(Fmt::fp16, hi) && factorable(Fmt::fp16, lo)) pieces = {hi, lo};
      }
    }
    REQUIRE_MESSAGE(!pieces.empty(), "G8: cannot realise the sum for L = " << L);
    for (int s : {1, -1})
      for_perms({1.0, p2(-23), sum, p2(-L)}, [&](const std::vector<double>& v) {
        Dot d(u);
        d.cv(s * v[0]);
        std::size_t pos = 1;
        for (int i = 1; i < 4; ++i) {
          if (v[i] == sum)
            for (double piece : pieces) d.p(pos++, factor(Fmt::fp16, s * piece));
          else
            d.p(pos++, factor(Fmt::fp16, s * v[i]));
        }
        REQUIRE(pos - 1 <= 4);  // one block
        d.expect_val(idx("G8 " + sgn(s) + " c=" + std::to_string(v[0]), "L", L),
                     s * (1 + p2(-22)));
      });
  }
}

TEST_CASE("G9 / H7: CDNA1 infinities") {
  for (Fmt in : {Fmt::fp16, Fmt::bf16}) {
    const Unit u = unit("MI100", in, Fmt::fp32);
    const char* id = in == Fmt::fp16 ? "G9" : "H7";
    for (int s : {1, -1}) {
      Dot d(u);
      d.raw(1, inf_bits(in, s < 0), num(in, 1.0));
      d.expect(std::string(id) + " Inf " + sgn(s), inf_bits(Fmt::fp32, s < 0));
    }
    Dot d(u);
    d.raw(1, inf_bits(in, false), num(in, 1.0)).raw(2, inf_bits(in, true), num(in, 1.0));
    d.expect(std::string(id) + " Inf - Inf", kAmdNan32);
  }
}

TEST_CASE("H2..H6: MI100 bf16") {
  const Unit u = unit("MI100", Fmt::bf16, Fmt::fp32);
  for (int s : {1, -1}) {
    Dot h2(u);
    h2.p(1, s * 1.5 * p2(-75), p2(-75)).p(2, s * p2(-75), p2(-74));
    h2.expect_val("H2 " + sgn(s), s * p2(-148));
    Dot h2b(u);
    h2b.p(1, s * 1.25 * p2(-74), p2(-74)).p(2, s * p2(-75), p2(-74));
    h2b.expect_val("H2b " + sgn(s), s * p2(-147));
    for (int n = 0; n <= 241; ++n) {
      Dot h3(u);
      const int e = -25 - n;
      h3.cv(s * 1.0).p(1, s * 1.5 * p2(-12), p2(-11)).p(2, -s * p2(e / 2), p2(e - e / 2));
      h3.expect_val(idx("H3 " + sgn(s), "n", n), s * (1 + p2(-23)));
    }
    Dot h4(u);
    h4.raw(1, inf_bits(Fmt::bf16, s < 0), num(Fmt::bf16, p2(-20)));
    h4.expect("H4 " + sgn(s), inf_bits(Fmt::fp32, s < 0));
    Dot h6(u);
    h6.cv(s * p2(-149)).p(1, s * 63.0 / 32 * p2(-75), p2(-76)).p(2, s * p2(-78), p2(-78));
    h6.expect_val("H6 " + sgn(s), s * p2(-148));
  }
  Dot h3r(u);  // the named realisation (n = 175)
  h3r.cv(1.0).p(1, 1.5 * p2(-12), p2(-11)).p(2, -p2(-100), p2(-100));
  h3r.expect_val("H3 (realisation)", 1 + p2(-23));
  Dot h5(u);
  h5.p(1, p2(65), p2(64)).p(2, p2(65), -p2(64));
  h5.expect("H5", 0);
}

// ===========================================================================
// 6.3 AMD CDNA2 — MI210/MI250
// ===========================================================================

TEST_CASE("I1..I7: CDNA2 fp16, pairwise fp32 tree, FTZ") {
  for (const auto& g : kCdna2) {
    const Unit u = unit(g, Fmt::fp16, Fmt::fp32);
    const auto x = std::make_pair(1.5 * p2(-12), p2(-11));
    for (int s : {1, -1}) {
      Dot i1(u);
      i1.cv(s * p2(-127));
      i1.expect("I1 (c subnormal) " + sgn(s), 0);
    }
    Dot i1b(u);
    i1b.p(1, p2(-24), 1.0);
    i1b.expect("I1 (a1 subnormal)", 0);
    for (int s : {1, -1}) {
      Dot i2(u);
      i2.p(1, s * 1.0, 1.0).cv(s * p2(-24));
      i2.expect_val("I2 " + sgn(s), s * 1.0);
      Dot i2b(u);
      i2b.p(1, s * 1.0, 1.0).cv(s * kX);
      i2b.expect_val("I2b " + sgn(s), s * (1 + p2(-22)));
    }
    // I3: permute {1, x, x} over (c, p1, p2).
    for_perms({1.0, kX, kX}, [&](const std::vector<double>& v) {
      Dot d(u);
      d.cv(v[0]);
      for (int i = 1; i <= 2; ++i)
        if (v[i] == 1.0) d.p(i, 1.0, 1.0);
        else d.p(i, x);
      d.expect_val(idx("I3", v[0] == 1.0 ? "c=1" : "c=x"),
                   v[0] == 1.0 ? 1 + p2(-22) + p2(-23) : 1 + p2(-21));
    });
    for (int j = 2; j <= 16; ++j) {
      Dot i4(u);
      i4.cv(1.0).p(1, x).p(j, x);
      i4.expect_val(idx("I4", "j", j), j < 5 ? 1 + p2(-22) + p2(-23) : 1 + p2(-21));
    }
    for (int one : {1, 2}) {
      Dot i5(u);
      i5.p(one, 1.0, 1.0).p(3, x).p(4, x);
      i5.expect_val(idx("I5", "one at", one), 1 + p2(-22) + p2(-23));
    }
    Dot i6(u);
    i6.p(1, 1.0, 1.0).p(2, x).p(3, 1.0, 1.0).p(4, x);
    i6.expect_val("I6", 2 + p2(-21));
    Dot i6b(u);
    i6b.cv(p2(-23) + p2(-25)).p(1, 1.0, 1.0).p(2, x).p(3, 1.0, 1.0).p(4, x);
    i6b.expect("I6 (with c)", 0x40000003);
    Dot i7(u);
    i7.p(1, 1.0, kInf).p(2, 1.0, -kInf);
    i7.expect("I7", kAmdNan32);
  }
}

TEST_CASE("J1..J4, J2n: CDNA2 bf16 (_1k groups of 4, older instruction pairs)") {
  for (const auto& g : kCdna2) {
    const Unit k1 = unit(g, "v_mfma_f32_16x16x16bf16_1k", Fmt::bf16, Fmt::fp32);
    const Unit k0 = unit(g, "v_mfma_f32_16x16x8bf16", Fmt::bf16, Fmt::fp32);
    for (int which = 0; which < 2; ++which) {
      const Unit& u = which == 0 ? k1 : k0;
      const int grp = which == 0 ? 4 : 2;
      const std::string tag = grp == 4 ? " (_1k)" : " (non-_1k)";
      for (int j = 2; j <= u.row->k; ++j) {
        Dot d(u);
        d.cv(1.0).p(1, 1.5 * p2(-12), p2(-11)).p(j, 1.5 * p2(-12), p2(-11));
        d.expect_val(idx("J1" + tag, "j", j), j <= grp ? 1 + p2(-22) + p2(-23) : 1 + p2(-21));
      }
      Dot j2(u);
      j2.p(1, p2(64), p2(64)).p(2, p2(64), -p2(64));
      j2.expect("J2" + tag, kAmdNan32);
      Dot j2n(u);
      j2n.p(1, p2(64), -p2(64));
      j2n.expect("J2n" + tag, inf_bits(Fmt::fp32, true));
      Dot j3(u);
      j3.p(1, p2(-64), p2(-63)).p(2, p2(-63), p2(-64));
      j3.expect("J3" + tag, 0);
      for (int s : {1, -1}) {
        Dot j4(u);
        j4.p(1, 1.0, s * kInf);
        j4.expect("J4 " + sgn(s) + tag, inf_bits(Fmt::fp32, s < 0));
        Dot j4b(u);
        j4b.p(1, 1.0, s * kInf).p(2, 1.0, -s * kInf);
        j4b.expect("J4b " + sgn(s) + tag, kAmdNan32);
      }
    }
  }
}

// ===========================================================================
// 6.4 AMD CDNA3 — MI300A/MI300X, fp16 unless stated
// ===========================================================================

namespace {
const std::pair<double, double> k24{p2(-12), p2(-12)};  // 2^-24 as fp16 product
}

TEST_CASE("K1..K3: CDNA3 fp16, c added after the products") {
  for (const auto& g : kCdna3) {
    const Unit u = unit(g, Fmt::fp16, Fmt::fp32);
    for (int s : {1, -1}) {
      for_perms({1.0, p2(-24), p2(-24)}, [&](const std::vector<double>& v) {
        Dot d(u);
        d.cv(s * v[0]);
        for (int i = 1; i <= 2; ++i)
          if (v[i] == 1.0) d.p(i, s * 1.0, 1.0);
          else d.p(i, s * p2(-12), p2(-12));
        d.expect_val(idx("K1 " + sgn(s), v[0] == 1 ? "c=1" : "c=2^-24"), s * (1 + p2(-23)));
      });
      for_perms({1.0, 0.0, 1.5 * p2(-24)}, [&](const std::vector<double>& v) {
        Dot d(u);
        for (int i = 0; i < 3; ++i)
          if (v[i] == 1.0) d.p(i + 1, s * 1.0, 1.0);
          else if (v[i] != 0.0) d.p(i + 1, s * 1.5 * p2(-12), p2(-12));
        d.expect_val(idx("K3 " + sgn(s), "pos of 1", v[0] == 1 ? 1 : v[1] == 1 ? 2 : 3), s * 1.0);
      });
    }
    for (int j = 2; j <= 16; ++j) {
      Dot d(u);
      d.cv(1.0).p(1, k24).p(j, k24);
      d.expect_val(idx("K2", "j", j), j <= 8 ? 1 + p2(-23) : 1.0);
    }
  }
}

TEST_CASE("K4..K9: CDNA3 fp16, truncation of products and round-down of c") {
  for (const auto& g : kCdna3) {
    const Unit u = unit(g, Fmt::fp16, Fmt::fp32);
    for (int s : {1, -1}) {
      // K4: p1 = 1, p2 = 2^-24 + 2^-24-j (one product where fp16 allows).
      for (int j = 1; j <= 24; ++j) {
        Dot d(u);
        d.p(1, s * 1.0, 1.0);
        const double v = p2(-24) + p2(-24 - j);
        if (j <= 10) d.p(2, s * (1 + p2(-j)) * p2(-12), p2(-12));
        else if (factorable(Fmt::fp16, v)) d.p(2, factor(Fmt::fp16, s * v));
        else d.p(2, s * p2(-12), p2(-12)).p(3, factor(Fmt::fp16, s * p2(-24 - j)));
        d.expect_val(idx("K4 " + sgn(s), "j", j), s * 1.0);
      }
      // K7: p1 = 1, c = 2^-24 + 2^-24-j (fp32 c: j <= 23).
      for (int j = 1; j <= 23; ++j) {
        Dot d(u);
        d.p(1, s * 1.0, 1.0).cv(s * (p2(-24) + p2(-24 - j)));
        d.expect_val(idx("K7 " + sgn(s), "j", j), s > 0 ? 1.0 : -(1 + p2(-23)));
      }
      // K9: c = 1, p1 = (1 + 2^-j) 2^-12 x 2^-12, j <= 10.
      for (int j = 1; j <= 10; ++j) {
        Dot d(u);
        d.cv(s * 1.0).p(1, s * (1 + p2(-j)) * p2(-12), p2(-12));
        const double want = s > 0 ? (j < 8 ? 1 + p2(-23) : 1.0) : -(1 + p2(-23));
        d.expect_val(idx("K9 " + sgn(s), "j", j), want);
      }
    }
    Dot k5(u);
    k5.p(1, 1.5, 1.5).p(2, p2(-12), p2(-11)).p(3, k24).p(4, k24);
    k5.expect("K5", 0x40100001);
    Dot k5b(u);
    k5b.p(1, 2.25, 1.0).p(2, p2(-12), p2(-11)).p(3, k24).p(4, k24);
    k5b.expect_val("K5 (p1 = 2.25 x 1)", 2.25);
    Dot k6(u);
    k6.cv(1.0).p(1, p2(-12), p2(-13)).p(2, p2(-12), p2(-13)).p(3, k24);
    k6.expect_val("K6", 1 + p2(-23));
    Dot k8(u);
    k8.cv(p2(-24)).p(1, 1.0, 1.0).p(2, k24);
    k8.expect_val("K8", 1 + p2(-23));
  }
}

TEST_CASE("K10, K11, K15: CDNA3 two-stage round-down after cancellation") {
  for (const auto& g : kCdna3) {
    const Unit u = unit(g, Fmt::fp16, Fmt::fp32);
    for (int j = 0; j <= 10; ++j) {
      // sum p = -(2^-24 + sum_{l=26..30+j} 2^-l): one product -(1.0111..1) 2^-24
      // while it fits fp16's 10 fraction bits (j <= 4), else a second product
      // with the ones below 2^-34.
      Dot d(u);
      d.cv(1.0);
      double m = 1;
      const int last = std::min(6 + j, 10);
      for (int l = 2; l <= last; ++l) m += p2(-l);
      d.p(1, -m * p2(-12), p2(-12));
      if (6 + j > 10) {
        double rest = 0;
        for (int l = 35; l <= 30 + j; ++l) rest += p2(-l);
        d.p(2, factor(Fmt::fp16, -rest));
      }
      d.expect(idx("K10", "j", j), j <= 2 ? 0x3F7FFFFF : 0x3F7FFFFE);
    }
    double m = 1;
    for (int l = 2; l <= 7; ++l) m += p2(-l);
    Dot k11(u);
    k11.cv(1.0).p(1, -m * p2(-12), p2(-12)).p(2, p2(-17), p2(-16));
    k11.expect("K11", 0x3F7FFFFF);
    double m15 = 1;
    for (int l = 2; l <= 8; ++l) m15 += p2(-l);
    Dot k15(u);
    k15.cv(1.0).p(1, -m15 * p2(-12), p2(-12));
    k15.expect("K15", 0x3F7FFFFF);
  }
}

TEST_CASE("K12, K13: CDNA3 round-down after normalisation (carry)") {
  for (const auto& g : kCdna3) {
    const Unit u = unit(g, Fmt::fp16, Fmt::fp32);
    for (int j = 24; j <= 32; ++j) {
      Dot d(u);
      d.cv(2 - p2(-22)).p(1, p2(-11), p2(-11)).p(2, p2(-12), p2(-11)).p(3, p2(-12), p2(12 - j));
      d.expect(idx("K12", "j", j), j <= 30 ? 0x40000001 : 0x40000000);
    }
    for (int j = 28; j <= 32; ++j) {
      Dot d(u);
      d.cv(-2 + p2(-21))
          .p(1, -p2(-11), p2(-10))
          .p(2, -p2(-11), p2(-11))
          .p(3, -(2 - p2(-(j - 24))) * p2(-12), p2(-12));
      d.expect_val(idx("K13", "j", j), j <= 30 ? -2 - p2(-22) : -2 - p2(-21));
    }
  }
}

TEST_CASE("K14, K16: CDNA3 subnormal factors; cancelled products set the exponent") {
  for (const auto& g : kCdna3) {
    const Unit u = unit(g, Fmt::fp16, Fmt::fp32);
    Dot k14a(u);
    k14a.cv(1.0).p(1, k24).p(2, p2(-12), p2(-19));
    k14a.expect_val("K14 j=31", 1 + p2(-23));
    Dot k14b(u);
    k14b.cv(1.0).p(1, k24).p(2, p2(-16), p2(-16));
    k14b.expect_val("K14 j=32", 1.0);
    const Unit b = unit(g, Fmt::bf16, Fmt::fp32);
    Dot k16(b);
    k16.cv(p2(10)).p(1, p2(20), p2(15)).p(2, p2(20), -p2(15));
    k16.expect("K16 (bf16)", 0);
  }
}

TEST_CASE("L1..L5: CDNA3 bf16") {
  for (const auto& g : kCdna3) {
    const Unit u = unit(g, Fmt::bf16, Fmt::fp32);
    for (int s : {1, -1}) {
      Dot l1(u);
      l1.p(1, p2(64), s * p2(64));
      l1.expect("L1 " + sgn(s), inf_bits(Fmt::fp32, s < 0));
    }
    Dot l2(u);
    l2.p(1, 1.5 * p2(64), 1.5 * p2(63)).p(2, 1.5 * p2(64), -1.5 * p2(63));
    l2.expect("L2", kAmdNan32);
    // L3: c = 0, p1 = 2^-150, p2 = 2^-152-i, i = 0..23. At i = 23 (negative)
    // p2 lies 25 binades below p1, beyond the 24 bits to which PA's
    // Algorithm 1 truncates each product, yet the hardware gives -2^-149:
    // with c = 0 dominating, the exact product sum reaches the round-down
    // (ModelRow::late_exact_zero_c). Elsewhere products are truncated first,
    // as PA's random hardware validation (Table 2) requires.
    for (int s = 1; s >= -1; s -= 2)
      for (int i = 0; i <= 23; ++i) {
        Dot l3(u);
        l3.p(1, s * p2(-75), p2(-75)).p(2, s * p2(-76), p2(-76 - i));
        const double want = s > 0 ? (i < 6 ? p2(-149) : 0.0) : -p2(-149);
        l3.expect_val(idx("L3 " + sgn(s), "i", i), want);
      }
    // L4: zero products (one factor 0) do not take part in the alignment,
    // whatever the other factor; only c = 0 acts as exponent -126.
    for (double big : {p2(100), p2(-100), -p2(120)}) {
      Dot l4(u);
      l4.p(1, 0.0, big).p(2, 1.0, 1.0).p(3, p2(-12), p2(-11));
      l4.expect_val("L4 (0 x " + std::to_string(std::ilogb(big)) + ")", 1 + p2(-23));
      Dot l4b(u);
      l4b.p(1, big, -0.0).p(2, 1.0, 1.0).p(3, p2(-12), p2(-11));
      l4b.expect_val("L4 (x * -0)", 1 + p2(-23));
    }
    for (int j = 0; j <= 10; ++j) {
      Dot l5(u);
      l5.cv(p2(-127) - p2(-140))
          .p(1, p2(-70), p2(-70))
          .p(2, p2(-75), p2(-75))
          .p(3, p2(-77), p2(-77 - j));
      l5.expect_val(idx("L5", "j", j), j <= 3 ? p2(-127) + p2(-149) : p2(-127));
    }
  }
}

TEST_CASE("M1, M2: CDNA3 xf32") {
  for (const auto& g : kCdna3) {
    const Unit u = unit(g, Fmt::tf32, Fmt::fp32);
    for (int s : {1, -1}) {
      // The unit reads the fp32 registers and keeps the top 10 fraction bits.
      Dot m1(u);
      m1.raw(1, f32(1 + p2(-10) + p2(-11)), f32(s * 1.0));
      m1.expect_val("M1 " + sgn(s), s * (1 + p2(-10)));
    }
    // M2: N_FMA 4 (K2 procedure) ...
    for (int j = 2; j <= u.row->k; ++j) {
      Dot d(u);
      d.cv(1.0).p(1, p2(-12), p2(-12)).p(j, p2(-12), p2(-12));
      d.expect_val(idx("M2 (N_FMA 4)", "j", j), j <= 4 ? 1 + p2(-23) : 1.0);
    }
    // ... and c = 0 has exponent -126 (L3 procedure).
    for (int s : {1, -1})
      for (int i = 0; i <= 23; ++i) {
        Dot d(u);
        d.p(1, s * p2(-75), p2(-75)).p(2, s * p2(-76), p2(-76 - i));
        const double want = s > 0 ? (i < 6 ? p2(-149) : 0.0) : -p2(-149);
        d.expect_val(idx("M2 (c = 0 at -126) " + sgn(s), "i", i), want);
      }
  }
}

TEST_CASE("N1..N7: CDNA3 fp8 (odd/even groups, c late)") {
  for (const auto& g : kCdna3) {
    const Unit bf8 = unit(g, Fmt::e5m2fnuz, Fmt::fp32);
    const Unit fp8 = unit(g, Fmt::e4m3fnuz, Fmt::fp32);
    for (int s : {1, -1}) {
      // N1: permute {1, 0, 1.5 2^-24} over (p1, p2, p3).
      for_perms({1.0, 0.0, 1.5 * p2(-24)}, [&](const std::vector<double>& v) {
        Dot d(bf8);
        for (int i = 0; i < 3; ++i)
          if (v[i] == 1.0) d.p(i + 1, s * 1.0, 1.0);
          else if (v[i] != 0.0) d.p(i + 1, s * 1.5 * p2(-12), p2(-12));
        const double want = v[1] == 0.0 ? s * 1.0 : (s > 0 ? 1.0 : -(1 + p2(-23)));
        d.expect_val(idx("N1 " + sgn(s), "pos of 1", v[0] == 1 ? 1 : v[1] == 1 ? 2 : 3), want);
      });
      // N2: permute {1, 2^-24 + 2^-24-i} over (c, p1).
      for (int i = 0; i <= 10; ++i) {
        const double v = p2(-24) + p2(-24 - i);
        Dot c_small(bf8);  // as K7
        c_small.p(1, s * 1.0, 1.0).cv(s * v);
        c_small.expect_val(idx("N2 (c small) " + sgn(s), "i", i),
                           s > 0 ? (i == 0 ? 1 + p2(-23) : 1.0) : -(1 + p2(-23)));
        Dot p_small(bf8);  // as K9
        p_small.cv(s * 1.0);
        if (i == 0) p_small.p(1, s * p2(-12), p2(-11));
        else if (i <= 2) p_small.p(1, s * (1 + p2(-i)) * p2(-12), p2(-12));
        else  // one fp8 product cannot hold it: two products in the same group
          p_small.p(1, s * p2(-12), p2(-12)).p(3, factor(Fmt::e5m2fnuz, s * p2(-24 - i)));
        p_small.expect_val(idx("N2 (p small) " + sgn(s), "i", i),
                           s > 0 ? (i < 8 ? 1 + p2(-23) : 1.0) : -(1 + p2(-23)));
      }
      // N3: p1 = 1, p2 = 2^-24, c = 2^-24-i: beyond 25 binades c is dropped.
      for (int i = 1; i <= 125; ++i) {
        Dot d(bf8);
        d.p(1, s * 1.0, 1.0).p(2, s * p2(-12), p2(-12)).cv(s * p2(-24 - i));
        const double want = i == 1 ? (s > 0 ? 1.0 : -(1 + p2(-23))) : s * 1.0;
        d.expect_val(idx("N3 " + sgn(s), "i", i), want);
      }
      // N4: p1 = 1, c = 2^-24 + 2^-25-i.
      for (int i = 0; i <= 22; ++i) {
        Dot d(bf8);
        d.p(1, s * 1.0, 1.0).cv(s * (p2(-24) + p2(-25 - i)));
        d.expect_val(idx("N4 " + sgn(s), "i", i), s > 0 ? 1.0 : -(1 + p2(-23)));
      }
      // N5: c = 1.5 2^-24, permute {1, 2^-25} over (p1, p2).
      for (int first_one : {1, 2}) {
        Dot d(bf8);
        d.cv(s * (p2(-24) + p2(-25)));
        d.p(first_one, s * 1.0, 1.0).p(3 - first_one, s * p2(-12), p2(-13));
        d.expect_val(idx("N5 " + sgn(s), "pos of 1", first_one), s > 0 ? 1.0 : -(1 + p2(-22)));
      }
    }
    // N6: the cancelled group {32, -32} keeps exponent 5 (E4M3fnuz; also bf8).
    for (const Unit& u : {fp8, bf8}) {
      Dot d(u);
      d.cv(p2(-20)).p(1, 1.0, 1.0).p(2, 32.0, 1.0).p(4, -32.0, 1.0);
      d.expect_val("N6", 1.0);
    }
    // N7: K16 scaled (2^10 is no E4M3fnuz value: bf8), cancelling pair in
    // different groups and in the same group.
    for (int second : {2, 3}) {
      Dot d(bf8);
      d.cv(p2(-6)).p(1, p2(10), p2(10)).p(second, p2(10), -p2(10));
      d.expect(idx("N7", "p2 at", second), 0);
    }
  }
}

// ===========================================================================
// 6.5 Model-derived vectors (not hardware-observed)
// ===========================================================================

TEST_CASE("6.5: fp8 fraction bits (B200 tcgen05 25, Ada and H100 wgmma 13)") {
  auto vec = [](const Unit& u) {
    Dot d(u);
    d.p(1, 1.0, 1.0);
    for (int i = 2; i <= 5; ++i) d.p(i, p2(-12), p2(-13));
    return d;
  };
  vec(unit("B200", "tcgen05.mma", Fmt::e5m2, Fmt::fp32)).expect("6.5 B200 tcgen05", 0x3F800001);
  for (const auto& g : kAda) vec(unit(g, Fmt::e5m2, Fmt::fp32)).expect("6.5 Ada QMMA", 0x3F800000);
  for (const auto& g : kHopper)
    vec(unit(g, "wgmma", Fmt::e5m2, Fmt::fp32)).expect("6.5 H100 wgmma", 0x3F800000);
}

TEST_CASE("6.5: fp8 mma.sync on Hopper/Blackwell adds c late with RNE") {
  for (const auto& g : kHopperBw) {
    Dot d(unit(g, "mma.sync", Fmt::e5m2, Fmt::fp32));
    d.cv(p2(-24)).p(1, 1.0, 1.0).p(2, p2(-12), p2(-12));
    d.expect("6.5 late c", 0x3F800000);
  }
  Dot early(unit("B200", "tcgen05.mma", Fmt::e5m2, Fmt::fp32));
  early.cv(p2(-24)).p(1, 1.0, 1.0).p(2, p2(-12), p2(-12));
  early.expect("6.5 late c (contrast: early c)", 0x3F800001);
}

TEST_CASE("6.5: NVIDIA cancellation, overflow, fp8->fp16, zero products, fp16 floors") {
  for (const auto& g : {"H100", "H200", "B200"}) {
    const Unit u = unit(g, Fmt::bf16, Fmt::fp32);
    Dot d(u);
    d.cv(1.0).p(1, p2(65), p2(64)).p(2, p2(65), -p2(64));
    d.expect("6.5 cancelled maximum", 0);
    Dot o(u);
    o.p(1, p2(65), p2(65));
    o.expect("6.5 bf16 overflow", 0x7F800000);
  }
  for (const auto& g : {"A100", "A2", "A30"}) {
    Dot o(unit(g, Fmt::fp16, Fmt::fp16));
    o.p(1, 256.0, 256.0).p(2, 256.0, 256.0);
    o.expect("6.5 fp16 overflow", 0x7C00);
  }
  for (const auto& g : kAda) {
    Dot d(unit(g, Fmt::e4m3, Fmt::fp16));
    d.cv(0.125).p(1, 1.5, 1.25).p(2, 0.25, 0.5);
    d.expect("6.5 Ada E4M3->fp16", 0x4040);
  }
  for (const auto& g : kNvidia) {
    if (!has_bf16(g)) continue;
    Dot d(unit(g, Fmt::bf16, Fmt::fp32));
    d.p(1, 0.0, p2(100)).p(2, p2(-60), p2(-60));
    d.expect_val("6.5 zero product ignored", p2(-120));
  }
  for (const auto& g : kNvidia) {
    const Unit u = unit(g, Fmt::fp16, Fmt::fp16);
    const bool hb = u.row->frac == 25;  // Hopper/Blackwell: floor -21, F 25
    Dot d(u);
    d.p(1, p2(-12), p2(-13)).p(2, p2(-24), hb ? p2(-23) : p2(-21));
    d.expect("6.5 fp16-output E-floor", 0);
  }
}

// ===========================================================================
// 6.6 Turing T4 (PJ: Fasi, Higham, Mikaitis & Pranesh, PeerJ CS 7:e330, 2021)
// ===========================================================================
//
// PJ's T4 experiments, in its four groups: A (subnormal numbers), B (accuracy
// of the dot products), C (rounding modes), D (features of the accumulator);
// numbered as in docs/models.md's source table. PJ ran them through a 16x16x16 WMMA call, which a T4
// executes as m16n8k8 HMMA instructions; every vector has at most four
// nonzero products, so each is run on the m16n8k8 row and on the m8n8k4 row.
// Expected values are the ones PJ's T4 program observes. Where PJ's V100
// observation differs (D1, D3, D5), the V100 row is checked against it too:
// these are the vectors that tell F = 24 (Turing) from F = 23 (Volta).

namespace {

// Both T4 rows; for fp16 results also MMA-Sim's floor (docs/models.md §9:
// PJ's vectors do not reach either floor, so both readings reproduce them).
std::vector<Unit> t4_units(Fmt out) {
  std::vector<Unit> u = {unit("T4", "mma.sync", Fmt::fp16, out), unit("T4", "mma.sync.m8n8k4", Fmt::fp16, out)};
  if (out == Fmt::fp16) u.push_back(unit("custom:base=T4,out=fp16,floor=-21", "mma.sync", Fmt::fp16, out));
  return u;
}

const double kBelowOne16 = 1.0 - p2(-11);  // largest fp16 below 1
const double kBelowOne32 = 1.0 - p2(-24);  // largest fp32 below 1

}  // namespace

TEST_CASE("PJ-A: T4 subnormal inputs and results, fp16 and fp32") {
  for (Fmt out : {Fmt::fp16, Fmt::fp32})
    for (const Unit& u : t4_units(out)) {
      Dot a1(u);  // A1/A2: fp16 subnormal inputs are read
      a1.p(1, p2(-24), 4.0);
      a1.expect_val("PJ-A1/A2", p2(-22));
      Dot a4(u);  // A4/A5: subnormal results from normal inputs, and with c
      a4.p(1, p2(-14), 0.5);
      a4.expect_val("PJ-A4/A5 product", p2(-15));
      Dot a4c(u);
      a4c.p(1, p2(-14), 1.0).cv(-p2(-15));
      a4c.expect_val("PJ-A4/A5 with c", p2(-15));
    }
  for (const Unit& u : t4_units(Fmt::fp32)) {
    Dot a3(u);  // A3: an fp32 subnormal c passes through
    a3.cv(p2(-149));
    a3.expect("PJ-A3", 0x00000001);
  }
}

TEST_CASE("PJ-B: T4 products are exact, small products vanish below the window") {
  for (const Unit& u : t4_units(Fmt::fp32)) {
    Dot b1(u);  // B1: (1 - 2^-11)^2 exactly, and four of them
    b1.p(1, kBelowOne16, kBelowOne16);
    b1.expect_val("PJ-B1 one product", 1.0 - p2(-10) + p2(-22));
    Dot b1x4(u);
    for (std::size_t i = 1; i <= 4; ++i) b1x4.p(i, kBelowOne16, kBelowOne16);
    b1x4.expect_val("PJ-B1 four products", 4.0 * (1.0 - p2(-10) + p2(-22)));
    Dot b3(u);  // B3: four products 2^-25 next to c = 1 are truncated away
    for (std::size_t i = 1; i <= 4; ++i) b3.p(i, 0.5, p2(-24));
    b3.cv(1.0);
    b3.expect_val("PJ-B3", 1.0);
    for (std::size_t j = 1; j <= 4; ++j) {  // B4: the largest term sets the window
      Dot b4(u);
      for (std::size_t i = 1; i <= 4; ++i) b4.p(i, 0.5, p2(-24));
      b4.p(j, 1.0, 1.0).cv(p2(-24));
      b4.expect_val(idx("PJ-B4", "j", static_cast<long>(j)), 1.0);
    }
  }
  for (const Unit& u : t4_units(Fmt::fp16)) {
    Dot b2(u);  // B2: exact products, fp16 result
    b2.p(1, kBelowOne16, kBelowOne16).p(2, kBelowOne16, p2(-11));
    b2.expect_val("PJ-B2", 1.0 - p2(-10) + p2(-11));
  }
}

TEST_CASE("PJ-C: T4 rounds fp32 results toward zero, fp16 results to nearest") {
  for (const Unit& u : t4_units(Fmt::fp32))
    for (int s : {1, -1}) {
      Dot c1(u);  // C1/C2: 2 + 1.5 ulp(1) gives 2 (RZ for both signs)
      c1.p(1, 1.0, s * 2.0).p(2, 1.0, s * kX);
      c1.expect_val("PJ-C1/C2 " + sgn(s), s * 2.0);
    }
  for (const Unit& u : t4_units(Fmt::fp16)) {
    Dot c3(u);  // C3: 2^-25 + 2^-26 rounds to nearest, 2^-24
    c3.p(1, p2(-24), 0.5).p(2, p2(-24), 0.25);
    c3.expect_val("PJ-C3", p2(-24));
  }
}

TEST_CASE("PJ-D1..D5: T4 accumulator: one extra alignment bit, carries, no normalisation") {
  const Unit v100 = unit("V100", Fmt::fp16, Fmt::fp32);
  for (const Unit& u : t4_units(Fmt::fp32)) {
    Dot d1(u);  // D1: 1 - (1 - 2^-24) keeps 2^-24: F = 24 (V100: 2^-23)
    d1.p(1, 1.0, 1.0).cv(-kBelowOne32);
    d1.expect_val("PJ-D1", p2(-24));
    Dot d2(u);  // D2: no normalisation between the terms of a sum
    for (std::size_t i = 1; i <= 4; ++i) d2.p(i, 1.0, p2(-24));
    d2.cv(kBelowOne32);
    d2.expect_val("PJ-D2", 1.0 + p2(-23));
    Dot d3(u);  // D3: 1 - 2^-24 - (1 - 2^-24) cancels exactly (V100: 2^-23)
    d3.p(1, 1.0, 1.0).p(2, 1.0, -p2(-24)).cv(-1.0 + p2(-24));
    d3.expect("PJ-D3", 0x00000000);
    for (std::size_t i = 1; i <= 4; ++i) {  // D4: carries out of the top bit are kept
      Dot d4(u);
      for (std::size_t j = 1; j <= 4; ++j) d4.p(j, 1.0, j == i ? p2(-23) : 1.0);
      d4.cv(1.0 + p2(-22) + p2(-23));
      d4.expect_val(idx("PJ-D4", "i", static_cast<long>(i)), 4.0 + p2(-21));
    }
    Dot d4b(u);
    d4b.p(1, 1.0, 1.0).p(2, 1.0, 1.5).p(3, 1.0, 1.75).p(4, 1.0, 1.875).cv(1.875);
    d4b.expect_val("PJ-D4 third carry bit", 8.0);
    for (int s : {1, -1}) {
      Dot d4r(u);
      for (std::size_t j = 1; j <= 4; ++j) d4r.p(j, 1.0, s * 1.0);
      d4r.cv(s * (1.0 + p2(-22) + p2(-23)));
      d4r.expect_val("PJ-D4 truncation after the carry " + sgn(s), s * 5.0);
    }
    // D5: a larger c gives a smaller result (no normalisation before the
    // alignment): c = 1 - 2^-24 gives 1 + 2^-23, c = 1 gives 1.
    Dot lo(u), hi(u);
    for (Dot* d : {&lo, &hi}) {
      for (std::size_t i = 1; i <= 3; ++i) d->p(i, 0.5, p2(-24));
      d->p(4, 0.5, kX);
    }
    lo.cv(kBelowOne32);
    hi.cv(1.0);
    lo.expect_val("PJ-D5 c = 1 - 2^-24", 1.0 + p2(-23));
    hi.expect_val("PJ-D5 c = 1", 1.0);
  }
  // PJ's V100 observations of D1, D3 and D5 (its V100 program's values).
  Dot d1(v100);
  d1.p(1, 1.0, 1.0).cv(-kBelowOne32);
  d1.expect_val("PJ-D1 V100", p2(-23));
  Dot d3(v100);
  d3.p(1, 1.0, 1.0).p(2, 1.0, -p2(-24)).cv(-1.0 + p2(-24));
  d3.expect_val("PJ-D3 V100", p2(-23));
  Dot lo(v100), hi(v100);
  for (Dot* d : {&lo, &hi})
    for (std::size_t i = 1; i <= 4; ++i) d->p(i, 1.0, p2(-24));
  lo.cv(kBelowOne32);
  hi.cv(1.0);
  lo.expect_val("PJ-D5 V100 c = 1 - 2^-24", 1.0 + p2(-23));
  hi.expect_val("PJ-D5 V100 c = 1", 1.0);
}

TEST_CASE("6.6 model-derived: T4 m16n8k8 fuses 8 products, m8n8k4 fuses 4") {
  // Not a hardware observation: MMA-Sim's Turing design (docs/models.md §10).
  // 2^16 - 2^16 in the first four positions, 2^-9 in the fifth: one block
  // of 8 aligns 2^-9 to 2^16, 25 binades down, and loses it (F = 24);
  // blocks of 4 keep it.
  for (Fmt out : {Fmt::fp32, Fmt::fp16}) {
    Dot fused(unit("T4", "mma.sync", Fmt::fp16, out));
    fused.p(1, 256.0, 256.0).p(2, 256.0, -256.0).p(5, p2(-5), p2(-4));
    fused.expect("6.6 T4 m16n8k8 N = 8", 0);
    Dot chained(unit("T4", "mma.sync.m8n8k4", Fmt::fp16, out), 8);
    chained.p(1, 256.0, 256.0).p(2, 256.0, -256.0).p(5, p2(-5), p2(-4));
    chained.expect_val("6.6 T4 m8n8k4 N = 4, two instructions", p2(-9));
  }
  // docs/models.md §9, class A carried to Turing: the fp16-result floor -20
  // drops the 2^-45 product, MMA-Sim's -21 keeps it (then rounds it to 2^-24).
  for (const char* m : {"T4", "custom:base=T4,out=fp16,floor=-21"}) {
    Dot a1(unit(m, "mma.sync", Fmt::fp16, Fmt::fp16));
    a1.raw(1, 0x1000, 0x0400).raw(2, 0x0008, 0x0001);
    a1.expect(std::string("6.6 class A1 on ") + m, std::string(m) == "T4" ? 0x0000 : 0x0001);
  }
}

// ===========================================================================
// 6.7 RTX 5090 (sm_120): a public probe of fp8/fp6/fp4 mma.sync m16n8k32
// ===========================================================================
//
// The probe (docs/models.md §10.3): A = B = 1 in all 32 positions, c = 2^s;
// the RTX 5090 returned d > c for s <= 25 (d = 2^25 + 32 at s = 25) and d = c
// for s = 26, for every fp8 pair and for fp6 and fp4 through kind::f8f6f4;
// chains of 2, 4, 8, 16 instructions keep the boundary at 25. Checked on
// RTXPRO6000 (the same GB202 chip): the QMMA rows for e4m3 and e5m2, and the
// kind::f8f6f4 T unit for the mixed pairs, fp6 and fp4.

namespace {

// d after `repeat` chained instructions of the probe, fp32 bits.
uint64_t probe_5090(Fmt fa, Fmt fb, bool t_unit, int shift, int repeat) {
  uint64_t acc = f32(p2(shift));
  for (int r = 0; r < repeat; ++r) {
    if (!t_unit) {
      const ModelRow* row = model("RTXPRO6000").find_instr("mma.sync", fa, Fmt::fp32);
      REQUIRE(row != nullptr);
      const std::vector<uint64_t> a(32, num(fa, 1.0));
      acc = ref::dot(*row, a.size(), a.data(), a.data(), acc);
    } else {
      const ScaledUnit& unit = scaled_unit("RTXPRO6000", "mma.sync.kind::f8f6f4");
      const std::vector<uint8_t> a(32, static_cast<uint8_t>(num(fa, 1.0)));
      const std::vector<uint8_t> b(32, static_cast<uint8_t>(num(fb, 1.0)));
      acc = ref::scaled_instruction(unit, Fmt::fp32, {fa, fb, a.data(), b.data(), nullptr, nullptr, acc});
    }
  }
  return acc;
}

}  // namespace

TEST_CASE("6.7: RTX 5090 probe, a 25-fraction-bit window per m16n8k32 instruction") {
  struct Variant {
    Fmt fa, fb;
    bool t_unit;
  };
  const Variant variants[] = {{Fmt::e4m3, Fmt::e4m3, false}, {Fmt::e5m2, Fmt::e5m2, false},
                              {Fmt::e4m3, Fmt::e4m3, true},  {Fmt::e5m2, Fmt::e5m2, true},
                              {Fmt::e4m3, Fmt::e5m2, true},  {Fmt::e5m2, Fmt::e4m3, true},
                              {Fmt::e2m3, Fmt::e2m3, true},  {Fmt::e3m2, Fmt::e3m2, true},
                              {Fmt::e2m1, Fmt::e2m1, true}};
  int cases = 0;
  for (const Variant& v : variants) {
    const std::string name = std::string(info(v.fa).name) + "x" + info(v.fb).name +
                             (v.t_unit ? " kind::f8f6f4" : " QMMA row");
    for (int repeat : {1, 2, 4, 8, 16}) {
      // The largest shift with d > c is 25 for every chain length.
      int max_changed = -1;
      for (int shift = 16; shift <= 40; ++shift, ++cases)
        if (std::bit_cast<float>(static_cast<uint32_t>(probe_5090(v.fa, v.fb, v.t_unit, shift, repeat))) >
            std::ldexp(1.0f, shift))
          max_changed = shift;
      CHECK_MESSAGE(max_changed == 25, "RTXPRO6000 " << name << " repeat " << repeat
                                                     << ": largest changed shift " << max_changed);
      // The probe's printed samples: 2^25 + 32*repeat at 25, 2^26 at 26.
      const uint64_t at25 = probe_5090(v.fa, v.fb, v.t_unit, 25, repeat);
      const uint64_t want25 = f32(p2(25) + 32.0 * repeat);
      CHECK_MESSAGE(at25 == want25, "RTXPRO6000 " << name << " repeat " << repeat << " shift 25: got "
                                                  << hex(at25) << " want " << hex(want25));
      const uint64_t at26 = probe_5090(v.fa, v.fb, v.t_unit, 26, repeat);
      CHECK_MESSAGE(at26 == 0x4C800000u, "RTXPRO6000 " << name << " repeat " << repeat
                                                       << " shift 26: got " << hex(at26) << " want 0x4C800000");
    }
  }
  MESSAGE(cases << " probe points");
}
