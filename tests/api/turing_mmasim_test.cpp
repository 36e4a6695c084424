// SPDX-License-Identifier: BSD-3-Clause
// MMA-Sim's Turing design, implemented here from its description, against the
// library's T4 units through the C API (docs/models.md §10.1).
//
// MMA-Sim (Xie, Wang, Yang & Yang, arXiv 2511.10909; v2.0.2) models every
// NVIDIA fp16 HMMA as a truncated fused dot-product-add of L products and c:
//   1. every a_i, b_i and c is s * 2^e with 1 <= |s| < 2, a subnormal at its
//      format's minimum normal exponent with |s| < 1 (c in the result's
//      format: fp32, or fp16 for fp16 results);
//   2. a product is s_a s_b * 2^(e_a + e_b), exact; a zero term (product or
//      c) has the exponent e_zero;
//   3. with e_max the largest exponent, each term's s * 2^(e - e_max) is
//      truncated toward zero to F fraction bits and the terms are summed
//      exactly;
//   4. sum * 2^e_max is rounded once: toward zero to fp32, or to nearest even
//      to fp16 (subnormals kept, an fp16 overflow Inf); an exact zero is +0;
//      a NaN (a NaN input, Inf * 0, Inf - Inf) is 0x7FFFFFFF or 0x7FFF and
//      an Inf input gives its Inf;
//   5. k > L: blocks of L in order, each block's result the next one's c (a
//      GEMM chains instructions the same way).
// Turing's parameters: F = 24; L = 8 for mma m16n8k8 (one block per
// instruction), and the Volta shape m8n8k4 that Turing keeps runs its 4
// products as one block; e_zero = -132 for fp32 results and, for fp16 results,
// -21 in MMA-Sim, -20 in the library's T4 rows (docs/models.md §9, class A),
// whose alternative custom:base=T4,out=fp16,floor=-21 is MMA-Sim's value.
//
// Nothing here reuses the library's code: the formats are decoded and the
// results rounded below with integer arithmetic.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "api_test_util.h"

using api_test::Handle;

namespace {

// ---------------------------------------------------------------------------
// Binary formats: fp16 (inputs, fp16 c and d) and fp32 (c and d).

struct Format {
  int exp_bits, man_bits;
  int bias() const { return (1 << (exp_bits - 1)) - 1; }
  int emin() const { return 1 - bias(); }
  int emax() const { return bias(); }
  uint32_t sign_bit() const { return 1u << (exp_bits + man_bits); }
  uint32_t exp_field_max() const { return (1u << exp_bits) - 1; }
  uint32_t inf() const { return exp_field_max() << man_bits; }
  uint32_t max_finite() const { return inf() - 1; }
  uint32_t nan() const { return man_bits == 10 ? 0x7FFFu : 0x7FFFFFFFu; }  // MMA-Sim's NaN
};
constexpr Format kFp16{5, 10};
constexpr Format kFp32{8, 23};

// One decoded code: a finite value is +-sig * 2^(e - man_bits) with e >= emin
// (a subnormal: e = emin and sig < 2^man_bits; zero: sig = 0).
struct Decoded {
  bool nan = false, inf = false, neg = false;
  uint64_t sig = 0;
  int e = 0;
};

Decoded decode(Format f, uint32_t code) {
  Decoded d;
  d.neg = (code & f.sign_bit()) != 0;
  const uint32_t field = (code >> f.man_bits) & f.exp_field_max();
  const uint32_t frac = code & ((1u << f.man_bits) - 1);
  if (field == f.exp_field_max()) {
    (frac ? d.nan : d.inf) = true;
    return d;
  }
  d.sig = field ? frac | (1u << f.man_bits) : frac;
  d.e = field ? static_cast<int>(field) - f.bias() : f.emin();
  return d;
}

// +-mag * 2^q rounded to f, toward zero or to nearest even, with gradual
// underflow (the sign kept on a zero) and overflow to Inf (nearest) or the
// largest finite value (toward zero).
uint32_t round_to(Format f, bool neg, uint64_t mag, int q, bool nearest) {
  const uint32_t sign = neg ? f.sign_bit() : 0;
  if (mag == 0) return sign;
  const int lead = 63 - std::countl_zero(mag);  // mag in [2^lead, 2^(lead + 1))
  int e = std::max(lead + q, f.emin());          // the result's exponent
  const int shift = (e - f.man_bits) - q;        // bits of mag below its last place
  uint64_t sig = 0;
  if (shift <= 0) {
    sig = mag << -shift;
  } else if (shift < 64) {
    sig = mag >> shift;
    const uint64_t rest = mag - (sig << shift), half = uint64_t{1} << (shift - 1);
    if (nearest && (rest > half || (rest == half && (sig & 1)))) ++sig;
  }
  if (sig >> (f.man_bits + 1)) {  // rounded up to the next binade
    sig >>= 1;
    ++e;
  }
  if (e > f.emax()) return sign | (nearest ? f.inf() : f.max_finite());
  const uint32_t field = (sig >> f.man_bits) ? static_cast<uint32_t>(e + f.bias()) : 0;
  return sign | field << f.man_bits | static_cast<uint32_t>(sig & ((uint64_t{1} << f.man_bits) - 1));
}

// ---------------------------------------------------------------------------
// The design.

struct Design {
  int F = 24;       // fraction bits of the alignment window
  int L = 8;        // products per block
  Format out = kFp32;
  int e_zero = -132;
  bool nearest() const { return out.man_bits == 10; }  // RNE to fp16, RZ to fp32
};

// A term of the block: +-sig * 2^(e - frac_bits), e the exponent of step 1
// (the sum of the factors' exponents for a product).
struct Term {
  bool neg;
  uint64_t sig;
  int frac_bits, e;
};

// One block: c + sum a_i b_i of at most L products; codes in, code out.
uint32_t block(const Design& d, const uint16_t* a, const uint16_t* b, int n, uint32_t c) {
  const Decoded dc = decode(d.out, c);
  bool nan = dc.nan, pos_inf = dc.inf && !dc.neg, neg_inf = dc.inf && dc.neg;
  std::vector<Term> terms;
  for (int i = 0; i < n; ++i) {
    const Decoded x = decode(kFp16, a[i]), y = decode(kFp16, b[i]);
    const bool neg = x.neg != y.neg;
    if (x.nan || y.nan || (x.inf && !y.inf && y.sig == 0) || (y.inf && !x.inf && x.sig == 0)) nan = true;
    if (x.inf || y.inf) (neg ? neg_inf : pos_inf) = true;
    if (!x.inf && !y.inf && !x.nan && !y.nan) terms.push_back({neg, x.sig * y.sig, 2 * kFp16.man_bits, x.e + y.e});
  }
  if (nan || (pos_inf && neg_inf)) return d.out.nan();
  if (pos_inf || neg_inf) return d.out.inf() | (neg_inf ? d.out.sign_bit() : 0);
  terms.push_back({dc.neg, dc.sig, d.out.man_bits, dc.e});
  for (Term& t : terms)
    if (t.sig == 0) t.e = d.e_zero;
  int e_max = terms.front().e;
  for (const Term& t : terms) e_max = std::max(e_max, t.e);
  int64_t sum = 0;
  for (const Term& t : terms) {
    const int sh = d.F + (t.e - e_max) - t.frac_bits;  // sig * 2^sh, truncated
    const uint64_t v = sh >= 0 ? t.sig << sh : (-sh < 64 ? t.sig >> -sh : 0);
    sum += t.neg ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
  }
  if (sum == 0) return 0;  // an exact zero: +0
  return round_to(d.out, sum < 0, sum < 0 ? static_cast<uint64_t>(-sum) : static_cast<uint64_t>(sum),
                  e_max - d.F, d.nearest());
}

// d = c + sum a_i b_i over k products: blocks of L, zero-padded.
uint32_t dot(const Design& d, std::vector<uint16_t> a, std::vector<uint16_t> b, uint32_t c) {
  const std::size_t padded = (a.size() + d.L - 1) / d.L * d.L;
  a.resize(padded, 0), b.resize(padded, 0);
  for (std::size_t i = 0; i < padded; i += d.L) c = block(d, &a[i], &b[i], d.L, c);
  return c;
}

// ---------------------------------------------------------------------------
// Inputs: random and edge cases.

enum class Kind { spread, bits, subnormal, cancel, overflow, specials, tiny, floor, kinds };
const char* kind_name(Kind k) {
  static const char* const n[] = {"spread", "bits", "subnormal", "cancel", "overflow", "specials", "tiny", "floor"};
  return n[static_cast<int>(k)];
}

struct Draw {
  std::mt19937_64 rng;
  int pick(int lo, int hi) { return lo + static_cast<int>(rng() % static_cast<uint64_t>(hi - lo + 1)); }
  uint32_t sign(Format f) { return rng() & 1 ? f.sign_bit() : 0; }
  // A normal value of f at exponent e (clamped to f's normal range).
  uint32_t at(Format f, int e) {
    e = std::clamp(e, f.emin(), f.emax());
    return sign(f) | static_cast<uint32_t>(e + f.bias()) << f.man_bits |
           static_cast<uint32_t>(rng() & ((1u << f.man_bits) - 1));
  }
  uint32_t subnormal(Format f) { return sign(f) | static_cast<uint32_t>(1 + rng() % ((1u << f.man_bits) - 1)); }
  uint32_t any_bits(Format f) { return static_cast<uint32_t>(rng() & (f.sign_bit() * 2 - 1)); }
  uint32_t special(Format f) {
    switch (rng() % 5) {
      case 0: return f.inf();
      case 1: return f.inf() | f.sign_bit();
      case 2: return f.inf() | static_cast<uint32_t>(1 + rng() % 7);  // a NaN
      case 3: return f.sign_bit();                                      // -0
      default: return 0;
    }
  }

  // k products and c of one dot product.
  void vector(Kind kind, Format out, std::size_t k, uint16_t* a, uint16_t* b, uint32_t& c) {
    const Format in = kFp16;
    auto in16 = [](uint32_t v) { return static_cast<uint16_t>(v); };
    for (std::size_t i = 0; i < k; ++i) a[i] = in16(at(in, pick(-14, 15))), b[i] = in16(at(in, pick(-14, 15)));
    c = at(out, pick(std::max(out.emin(), -40), std::min(out.emax(), 40)));
    switch (kind) {
      case Kind::spread:  // products 2^-28 .. 2^31 and c far from them
        if (rng() % 4 == 0) c = rng() % 2 ? 0 : out.sign_bit();
        break;
      case Kind::bits:
        for (std::size_t i = 0; i < k; ++i) a[i] = in16(any_bits(in)), b[i] = in16(any_bits(in));
        c = any_bits(out);
        break;
      case Kind::subnormal:
        for (std::size_t i = 0; i < k; ++i) {
          if (rng() % 2) a[i] = in16(subnormal(in));
          if (rng() % 2) b[i] = in16(rng() % 2 ? subnormal(in) : at(in, pick(-14, -10)));
        }
        c = rng() % 3 == 0 ? subnormal(out) : rng() % 2 ? at(out, out.emin() + pick(0, 3)) : 0;
        break;
      case Kind::cancel: {  // pairs p_{i+1} = -p_i at one exponent, small terms below
        const int e = pick(-6, 7);
        for (std::size_t i = 0; i + 1 < k; i += 2) {
          a[i] = in16(at(in, e + pick(-1, 1))), b[i] = in16(at(in, e + pick(-1, 1)));
          a[i + 1] = static_cast<uint16_t>(a[i] ^ in.sign_bit()), b[i + 1] = b[i];
        }
        for (int t = pick(0, 2); t > 0; --t) {
          const std::size_t i = rng() % k;
          a[i] = in16(rng() % 3 ? at(in, e - pick(1, 20)) : subnormal(in));
        }
        c = rng() % 3 == 0 ? 0 : at(out, 2 * e - pick(-2, 30));
        break;
      }
      case Kind::overflow:  // products near 65504^2, c near the top of fp16
        for (std::size_t i = 0; i < k; ++i)
          if (rng() % 4) a[i] = in16(at(in, pick(13, 15))), b[i] = in16(at(in, pick(13, 15)));
        c = out.man_bits == 10 ? at(out, pick(13, 15)) : at(out, pick(20, 127));
        break;
      case Kind::specials:
        for (int t = pick(1, 2); t > 0; --t) {
          const int where = pick(0, 2);
          if (where == 0) a[rng() % k] = in16(special(in));
          else if (where == 1) b[rng() % k] = in16(special(in));
          else c = special(out);
        }
        break;
      case Kind::tiny:  // sums near the bottom of the fp16 result range
        for (std::size_t i = 0; i < k; ++i) {
          const int ep = pick(-30, -12);
          const int ea = std::clamp(ep / 2 + pick(-3, 3), -14, 15);
          a[i] = in16(rng() % 4 ? at(in, ea) : subnormal(in));
          b[i] = in16(rng() % 3 ? at(in, std::clamp(ep - ea, -14, 15)) : 0);
        }
        c = rng() % 2 ? 0 : out.man_bits == 10 ? subnormal(out) : at(out, pick(-30, -12));
        break;
      case Kind::floor: {  // an fp16 tie (odd multiple of 2^-25) and a term 2^-48 .. 2^-41 (class A)
        std::fill(a, a + k, uint16_t{0}), std::fill(b, b + k, uint16_t{0});
        const std::size_t i = rng() % k, j = k > 1 ? (i + 1 + rng() % (k - 1)) % k : i;
        a[i] = static_cast<uint16_t>(sign(in) | (1 + 2 * (rng() % 8))), b[i] = 0x3800;  // m * 2^-24 * 2^-1
        a[j] = static_cast<uint16_t>(sign(in) | (1 + rng() % 15)), b[j] = static_cast<uint16_t>(1 + rng() % 15);
        c = rng() % 2 ? 0 : out.sign_bit();
        break;
      }
      case Kind::kinds: break;
    }
  }
};

// ---------------------------------------------------------------------------
// The C API: codes in, codes out (fp16 as uint16_t, fp32 as float).

mmaemu_format fmt_of(Format f) { return f.man_bits == 10 ? MMAEMU_FP16 : MMAEMU_FP32; }
std::size_t width_of(Format f) { return f.man_bits == 10 ? 2 : 4; }
std::string name_of(Format f) { return f.man_bits == 10 ? "fp16" : "fp32"; }

void put(Format f, std::vector<uint8_t>& buf, std::size_t i, uint32_t code) {
  if (f.man_bits == 10) {
    const uint16_t h = static_cast<uint16_t>(code);
    std::memcpy(&buf[2 * i], &h, 2);
  } else {
    std::memcpy(&buf[4 * i], &code, 4);
  }
}
uint32_t get(Format f, const std::vector<uint8_t>& buf, std::size_t i) {
  if (f.man_bits == 10) {
    uint16_t h;
    std::memcpy(&h, &buf[2 * i], 2);
    return h;
  }
  uint32_t v;
  std::memcpy(&v, &buf[4 * i], 4);
  return v;
}

struct Unit {
  const char* model;  // the model name given to mmaemu_model_lookup
  int L;              // products per block (= the instruction's k)
  Format out;
  int e_zero;
};

std::string vector_text(const std::vector<uint16_t>& a, const std::vector<uint16_t>& b, uint32_t c) {
  std::ostringstream s;
  s << "a =";
  for (uint16_t x : a) s << ' ' << hex(x);
  s << "; b =";
  for (uint16_t x : b) s << ' ' << hex(x);
  s << "; c = " << hex(c);
  return s.str();
}

// Tiles of one instruction (mmaemu_tile) against the design, every element:
// row i of A, column j of B and each c come from draws of one kind.
void check_tiles(const Unit& u, uint64_t seed, int tiles) {
  Handle h(u.model);
  int m = 0, n = 0, k = 0;
  REQUIRE(mmaemu_tile_shape(h.m, MMAEMU_FP16, fmt_of(u.out), &m, &n, &k) == MMAEMU_OK);
  REQUIRE(k == u.L);
  const Design d{24, u.L, u.out, u.e_zero};
  Draw draw{std::mt19937_64(seed)};
  std::vector<uint16_t> a(static_cast<std::size_t>(k)), b(a.size());
  uint32_t c = 0;
  std::size_t failures = 0;
  for (int t = 0; t < tiles; ++t) {
    const Kind kind = static_cast<Kind>(t % static_cast<int>(Kind::kinds));
    std::vector<uint16_t> A(static_cast<std::size_t>(m * k)), B(static_cast<std::size_t>(k * n));
    std::vector<uint8_t> C(static_cast<std::size_t>(m * n) * width_of(u.out)), D(C.size());
    for (int i = 0; i < m; ++i) {
      draw.vector(kind, u.out, k, a.data(), b.data(), c);
      std::copy(a.begin(), a.end(), &A[i * k]);
    }
    for (int j = 0; j < n; ++j) {
      draw.vector(kind, u.out, k, a.data(), b.data(), c);
      for (int l = 0; l < k; ++l) B[l * n + j] = b[l];
    }
    for (int e = 0; e < m * n; ++e) {
      draw.vector(kind, u.out, k, a.data(), b.data(), c);
      put(u.out, C, e, c);
    }
    REQUIRE(mmaemu_tile(h.m, MMAEMU_FP16, fmt_of(u.out), A.data(), B.data(), C.data(), D.data()) == MMAEMU_OK);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        for (int l = 0; l < k; ++l) a[l] = A[i * k + l], b[l] = B[l * n + j];
        const uint32_t ce = get(u.out, C, i * n + j), want = dot(d, a, b, ce), got = get(u.out, D, i * n + j);
        if (got != want && ++failures <= 5)
          FAIL_CHECK("seed " << seed << ", " << std::string(u.model) << " fp16 -> " << name_of(u.out)
                             << ", tile " << t << " (" << std::string(kind_name(kind)) << ") element (" << i << ", " << j
                             << "): " << vector_text(a, b, ce) << ": library " << hex(got)
                             << ", MMA-Sim's design " << hex(want));
      }
  }
  CHECK(failures == 0);
}

// Dot products chained along k (mmaemu_dot_batch: zero-padded to the
// instruction's k, longer k instruction after instruction) against the design.
void check_dots(const Unit& u, uint64_t seed, int k, int count) {
  Handle h(u.model);
  const Design d{24, u.L, u.out, u.e_zero};
  Draw draw{std::mt19937_64(seed)};
  std::vector<uint16_t> A(static_cast<std::size_t>(count * k)), B(A.size());
  std::vector<uint8_t> C(static_cast<std::size_t>(count) * width_of(u.out)), D(C.size());
  for (int s = 0; s < count; ++s) {
    uint32_t c;
    draw.vector(static_cast<Kind>(s % static_cast<int>(Kind::kinds)), u.out, k, &A[s * k], &B[s * k], c);
    put(u.out, C, s, c);
  }
  REQUIRE(mmaemu_dot_batch(h.m, MMAEMU_FP16, fmt_of(u.out), count, k, A.data(), B.data(), C.data(), D.data(), 1) ==
          MMAEMU_OK);
  std::size_t failures = 0;
  for (int s = 0; s < count; ++s) {
    const std::vector<uint16_t> a(&A[s * k], &A[s * k] + k), b(&B[s * k], &B[s * k] + k);
    const uint32_t c = get(u.out, C, s), want = dot(d, a, b, c), got = get(u.out, D, s);
    if (got != want && ++failures <= 5)
      FAIL_CHECK("seed " << seed << ", " << std::string(u.model) << " fp16 -> " << name_of(u.out)
                         << ", k = " << k << ", sample " << s << " ("
                         << std::string(kind_name(static_cast<Kind>(s % static_cast<int>(Kind::kinds)))) << "): "
                         << vector_text(a, b, c) << ": library " << hex(got) << ", MMA-Sim's design " << hex(want));
  }
  CHECK(failures == 0);
}

// The four T4 units, and MMA-Sim's fp16-result zero exponent on both shapes.
const Unit kUnits[] = {
    {"T4", 8, kFp32, -132},
    {"T4", 8, kFp16, -20},
    {"T4@mma.sync.m8n8k4", 4, kFp32, -132},
    {"T4@mma.sync.m8n8k4", 4, kFp16, -20},
    {"custom:base=T4,out=fp16,floor=-21", 8, kFp16, -21},
    {"custom:base=T4,out=fp16,floor=-21@mma.sync.m8n8k4", 4, kFp16, -21},
};

}  // namespace

TEST_CASE("the design's own arithmetic on hand-computed vectors") {
  // 1 + 2^-24 with F = 24: kept (1 - (1 - 2^-24) = 2^-24, PJ-D1 on a T4).
  const Design f32{24, 8, kFp32, -132};
  CHECK(dot(f32, {0x3C00}, {0x3C00}, 0xBF7FFFFFu) == 0x33800000u);
  // Truncation, not rounding, of an aligned term: 2 + 3 * 2^-24 -> 2 (PJ-C1).
  CHECK(dot(f32, {0x4000, 0x3C00}, {0x3C00, 0x0003}, 0) == 0x40000000u);
  // A negative sum truncated toward zero, and an exact zero +0.
  CHECK(dot(f32, {0xC000, 0x3C00}, {0x3C00, 0x8003}, 0) == 0xC0000000u);
  CHECK(dot(f32, {0x3C00, 0xBC00}, {0x3C00, 0x3C00}, 0) == 0u);
  // fp16 results: ties to even, an overflow Inf, a tiny negative sum -0.
  const Design f16{24, 8, kFp16, -20};
  CHECK(dot(f16, {0x0001, 0x0001}, {0x3800, 0x3400}, 0) == 0x0001u);  // 2^-25 + 2^-26 -> 2^-24 (PJ-C3)
  CHECK(dot(f16, {0x7BFF}, {0x7BFF}, 0) == 0x7C00u);
  CHECK(dot(f16, {0x8001}, {0x2C00}, 0) == 0x8000u);  // -2^-28 -> -0
  // Specials: NaN canonical, Inf - Inf NaN, 0 * Inf NaN, Inf kept.
  CHECK(dot(f32, {0x7E00}, {0x3C00}, 0) == 0x7FFFFFFFu);
  CHECK(dot(f32, {0x7C00, 0xFC00}, {0x3C00, 0x3C00}, 0) == 0x7FFFFFFFu);
  CHECK(dot(f32, {0x7C00}, {0x0000}, 0) == 0x7FFFFFFFu);
  CHECK(dot(f16, {0x3C00}, {0x3C00}, 0xFC00u) == 0xFC00u);
  // Blocks of L: four products of 2^-25, then 1 (c = 0). One block of 8
  // aligns them to the 1 and truncates them; blocks of 4 sum them exactly
  // to 2^-23 first, which the second block keeps: 1 + 2^-23.
  const std::vector<uint16_t> a = {0x0200, 0x0200, 0x0200, 0x0200, 0x3C00, 0, 0, 0},  // 2^-15 x4, 1
      b = {0x1400, 0x1400, 0x1400, 0x1400, 0x3C00, 0, 0, 0};                          // 2^-10 x4, 1
  CHECK(dot(f32, a, b, 0) == 0x3F800000u);
  const Design f32_4{24, 4, kFp32, -132};
  CHECK(dot(f32_4, a, b, 0) == 0x3F800001u);
}

TEST_CASE("T4 m16n8k8 and m8n8k4, fp32 and fp16 results, equal MMA-Sim's Turing design (tiles)") {
  const uint64_t seed = api_test::test_seed(75);
  for (const Unit& u : kUnits) {
    CAPTURE(u.model);
    check_tiles(u, seed, 140);
  }
}

TEST_CASE("T4 chained along k and zero-padded equals MMA-Sim's Turing design (dot products)") {
  const uint64_t seed = api_test::test_seed(76);
  for (const Unit& u : kUnits) {
    CAPTURE(u.model);
    for (int k : {u.L / 2 + 1, u.L, 2 * u.L, 3 * u.L + 3}) check_dots(u, seed + static_cast<uint64_t>(k), k, 6000);
  }
}
