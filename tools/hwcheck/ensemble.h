// SPDX-License-Identifier: BSD-3-Clause
// Seeded, reproducible input ensembles for the hardware check:
//
//  * em-normal, em-subnormal: exponent-mantissa sampling, AMD paper (PA)
//    Algorithm 3 / §5.1. Every a_l, b_l = s * 2^e with e uniform on
//    [e-, e+] and s uniform on the grid of the format's significands in
//    (-2, 2); below the normal range the grid is the format's subnormal
//    quantum, so every value is exactly representable. c likewise in fp32.
//  * em-cmatch: as em-normal, but c drawn from the exponent range of the
//    products (so c and the products overlap and cancel).
//  * bits: independent random bits (PA §5.2); a field that encodes Inf or
//    NaN has its exponent redrawn (a and b in their format, c in fp32).
//  * edge: the edge cases of the NVIDIA paper (PN) §4.2 list, one named
//    sub-set per case (see edge_case_names()).
//
// Sample i of a set depends only on (seed, format, k, set, i): the same seed
// gives the same bytes whatever n, machine or compiler (own PRNG, no
// <random> distributions).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "formats.h"

namespace mmaemu::hwcheck {

/// xoshiro256** seeded through splitmix64; fully specified here.
class Rng {
 public:
  explicit Rng(uint64_t seed);
  uint64_t next();
  /// Uniform integer on [lo, hi] (inclusive), unbiased (rejection).
  int64_t uniform(int64_t lo, int64_t hi);
  /// Uniform on [0, 2^bits).
  uint64_t bits(int bits);
  bool coin() { return next() >> 63; }
  /// True with probability num/den.
  bool chance(uint64_t num, uint64_t den) { return static_cast<uint64_t>(uniform(0, den - 1)) < num; }

 private:
  uint64_t s_[4];
};

uint64_t splitmix64(uint64_t& state);
/// Seed of one (set, sample): mixes every ingredient through splitmix64.
uint64_t sample_seed(uint64_t seed, InFmt f, int k, const std::string& set, uint64_t index);

enum class SetKind : uint8_t { em_normal, em_subnormal, em_cmatch, bits, edge };
inline constexpr SetKind kAllSetKinds[] = {SetKind::em_normal, SetKind::em_subnormal,
                                           SetKind::em_cmatch, SetKind::bits, SetKind::edge};
const char* set_name(SetKind s);
bool parse_set_kind(const std::string& s, SetKind& out);

/// Exponent limits of an exponent-mantissa set (PA Algorithm 3).
struct ExpRange {
  int a_lo, a_hi;  // also used for b
  int c_lo, c_hi;  // c is fp32
};
/// em_normal: a,b on [emin, min(emax, 63)] (63 keeps |p| < 2^128 as in PA
/// §5.1.2), c on [-126, 127]. em_subnormal: a,b on [emin-(p-1), emin], c on
/// [-149, -126]. em_cmatch: a,b as em_normal, c on [2*a_lo, 2*a_hi+1]
/// clipped to [-149, 127].
ExpRange exp_range(InFmt f, SetKind s);

/// The edge-case sub-sets, in order (PN §4.2 "Edge Cases").
const std::vector<std::string>& edge_case_names();

struct SetRange {
  std::string name;  // e.g. "em-normal", "edge:c-zero"
  size_t first;
  size_t count;
};

/// A list of samples: a and b are row-major n x k fp32 bit patterns of
/// values exactly representable in `fmt`; c holds n fp32 bit patterns.
struct Ensemble {
  InFmt fmt = InFmt::fp16;
  int k = 0;
  std::vector<uint32_t> a, b, c;
  std::vector<SetRange> sets;
  size_t size() const { return c.size(); }
  void append(const Ensemble& o);
};

/// One set of n samples (edge: n is split over the edge cases, each gets
/// max(1, n / cases) samples).
Ensemble generate_set(InFmt f, int k, SetKind s, size_t n, uint64_t seed);
/// The sets one after the other, in the order given.
Ensemble generate(InFmt f, int k, const std::vector<SetKind>& sets, size_t n_per_set,
                  uint64_t seed);

// Building blocks, exposed for the tests.
/// Exponent-mantissa draw: exponent e uniform on [e_lo, e_hi], significand
/// uniform on the representable grid below 2^(e+1), random sign; redrawn if
/// beyond the largest finite value (e4m3 1.111*2^8).
uint32_t draw_em(Rng& r, InFmt f, int e_lo, int e_hi);
/// Same for fp32 (c).
uint32_t draw_em_fp32(Rng& r, int e_lo, int e_hi);
/// Independent random bits, Inf/NaN exponent fields redrawn.
uint32_t draw_bits(Rng& r, InFmt f);
uint32_t draw_bits_fp32(Rng& r);

}  // namespace mmaemu::hwcheck
