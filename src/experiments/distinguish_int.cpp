// SPDX-License-Identifier: BSD-3-Clause
// distinguish() for the integer units (docs/distinguish.md, "Integer
// units"; docs/models.md §11): both units read the same codes, each under
// its own formats (so u8 against s8 tells the readings apart), and their s32
// results are compared. The ensembles aim at what can differ between
// integer units: how a top-bit code reads, and what happens when the s32
// accumulator overflows (wrap or clamp, once per instruction or after each
// addition):
//   uniform:  every code and c uniform;
//   extremes: codes 0, 1, the largest and least of either reading, c at
//             or near 0 and the s32 bounds;
//   overflow: c within 2^17 of a bound, a third of the products the
//             extremes, the rest 0: sums that cross the bound, and come
//             back;
//   sparse:   one to three nonzero products, c from the extremes' set.
// A vector is shorter with fewer nonzero terms (products under the first
// unit's reading, and c), then a smaller range of their magnitudes' binary
// exponents, then fewer set bits in all the codes.
#include <algorithm>
#include <bit>
#include <cstdlib>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>

#include "experiments/distinguish_search.h"

namespace mmaemu::experiments {
namespace {

constexpr uint64_t kMax = 0x7FFFFFFFu, kMin = 0x80000000u;

struct IntSampler {
  std::mt19937_64 rng;
  uint64_t mask_a, mask_b;  // the operands' codes
  std::size_t k;

  // Codes 0, 1, the top-bit code, its neighbours, all ones (the extremes of
  // both readings).
  uint64_t extreme(uint64_t mask) {
    const uint64_t top = (mask >> 1) + 1;
    const uint64_t set[] = {0, 1, top, top - 1, top + 1, mask};
    return set[rng() % 6];
  }
  uint64_t c_extreme() {
    const uint64_t r = rng() % 65536;
    switch (rng() % 6) {
      case 0: return 0;
      case 1: return kMax - r;
      case 2: return kMin + r;
      case 3: return r;
      case 4: return (0 - r) & 0xFFFFFFFFu;
      default: return rng() & 0xFFFFFFFFu;
    }
  }
  TestVector draw(const std::string& dist) {
    TestVector v;
    v.a.assign(k, 0), v.b.assign(k, 0);
    if (dist == "uniform") {
      for (std::size_t i = 0; i < k; ++i) v.a[i] = rng() & mask_a, v.b[i] = rng() & mask_b;
      v.c = rng() & 0xFFFFFFFFu;
    } else if (dist == "extremes") {
      for (std::size_t i = 0; i < k; ++i) v.a[i] = extreme(mask_a), v.b[i] = extreme(mask_b);
      v.c = c_extreme();
    } else if (dist == "overflow") {
      for (std::size_t i = 0; i < k; ++i)
        if (rng() % 3 == 0) v.a[i] = extreme(mask_a), v.b[i] = extreme(mask_b);
      const uint64_t r = rng() % (1u << 17);
      v.c = rng() & 1 ? kMax - r : kMin + r;
    } else {  // sparse
      for (int t = 1 + static_cast<int>(rng() % 3); t > 0; --t) {
        const std::size_t i = rng() % k;
        v.a[i] = rng() & mask_a, v.b[i] = rng() & mask_b;
      }
      v.c = c_extreme();
    }
    return v;
  }
};

int log2_of(int64_t x) { return 63 - std::countl_zero(static_cast<uint64_t>(std::abs(x))); }

}  // namespace

VectorSize integer_vector_size(Fmt fa, Fmt fb, const TestVector& v) {
  VectorSize s;
  int lo = 0, hi = 0;
  auto term = [&](int64_t t) {
    const int e = log2_of(t);
    lo = s.terms ? std::min(lo, e) : e, hi = s.terms ? std::max(hi, e) : e;
    ++s.terms;
  };
  for (std::size_t i = 0; i < v.a.size(); ++i) {
    const int64_t p = int_value(fa, v.a[i]) * int_value(fb, v.b[i]);
    if (p != 0) term(p);
    s.bits += std::popcount(v.a[i]) + std::popcount(v.b[i]);  // (a zero product's codes too: dropped when they can be)
  }
  const int64_t c = int_value(Fmt::s32, v.c);
  if (c != 0) term(c), s.bits += std::popcount(v.c);
  s.exponent_range = hi - lo;
  return s;
}

namespace {

// Every vector one move smaller than v: a product dropped, an operand set
// to 1 or its lowest set bit cleared; c set to 0, to a bound, or its lowest
// set bit cleared.
std::vector<TestVector> int_moves(const TestVector& v) {
  std::vector<TestVector> cand;
  auto with = [&](auto&& change) {
    TestVector t = v;
    change(t);
    cand.push_back(std::move(t));
  };
  for (std::size_t i = 0; i < v.a.size(); ++i) {
    if (v.a[i] == 0 && v.b[i] == 0) continue;
    with([i](TestVector& t) { t.a[i] = t.b[i] = 0; });
    if (v.a[i] > 1) with([i](TestVector& t) { t.a[i] = 1; }), with([i](TestVector& t) { t.a[i] &= t.a[i] - 1; });
    if (v.b[i] > 1) with([i](TestVector& t) { t.b[i] = 1; }), with([i](TestVector& t) { t.b[i] &= t.b[i] - 1; });
  }
  if (v.c != 0) {
    with([](TestVector& t) { t.c = 0; });
    with([](TestVector& t) { t.c &= t.c - 1; });
    if (v.c != kMax) with([](TestVector& t) { t.c = kMax; });
    if (v.c != kMin) with([](TestVector& t) { t.c = kMin; });
  }
  return cand;
}

uint64_t mask_of(Fmt f) { return (uint64_t{1} << info(f).width) - 1; }

}  // namespace

const std::vector<std::string>& integer_distributions() {
  static const std::vector<std::string> d{"overflow", "extremes", "sparse", "uniform"};
  return d;
}

SearchKind integer_search(const ModelRow& first, const ModelRow& second, uint64_t seed, std::size_t k) {
  if (info(first.in).width != info(second.in).width || info(first.in_b).width != info(second.in_b).width)
    throw std::invalid_argument(std::string("the integer units read operands of different widths (") +
                                info(first.in).name + " x " + info(first.in_b).name + " against " +
                                info(second.in).name + " x " + info(second.in_b).name +
                                "): no codes are inputs of both");
  auto s = std::make_shared<IntSampler>(IntSampler{std::mt19937_64(seed), mask_of(first.in), mask_of(first.in_b), k});
  const Fmt fa = first.in, fb = first.in_b;
  SearchKind kind;
  kind.distributions = integer_distributions();
  kind.draw = [s](const std::string& dist) { return s->draw(dist); };
  kind.moves = int_moves;
  kind.size = [fa, fb](const TestVector& v) { return integer_vector_size(fa, fb, v); };
  return kind;
}

}  // namespace mmaemu::experiments
