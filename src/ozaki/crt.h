// SPDX-License-Identifier: BSD-3-Clause
// Scheme II's moduli and the Chinese remainder reconstruction
// (docs/ozaki.md, "Scheme II").
#pragma once

#include <cstdint>
#include <vector>

#include "ozaki/fast_mod.h"

namespace mmaemu::ozaki {

/// An unsigned integer of 192 bits (the product of 20 moduli <= 256 is
/// below 2^160), limbs least significant first.
struct Wide {
  uint64_t limb[3] = {0, 0, 0};
};

/// The moduli of scheme II and the constants of the reconstruction.
struct Moduli {
  std::vector<int> p;  // p_1 > p_2 > ... pairwise coprime, p_1 = 256
  Wide product;        // P = p_1 ... p_N
  int product_log2 = 0;  // floor(log2 P)
  // Garner's algorithm: radix[l][j] = (p_1 ... p_j) mod p_(l+1) for j < l,
  // inverse[l] = ((p_1 ... p_l) mod p_(l+1))^-1 mod p_(l+1) (0-based l).
  std::vector<std::vector<int>> radix;
  std::vector<int> inverse;
  std::vector<FastMod> by;  // remainders by p_l without a division
  bool fits_u128 = false;   // P < 2^127: Horner and the sign test in unsigned __int128
};

/// The first `count` moduli: the integers from 256 down, each kept when
/// coprime to all kept before (256, 255, 253, 251, 247, 241, ...), as in
/// Ozaki, Uchino & Imamura (2025) for int8. count in [1, 20].
Moduli make_moduli(int count);

/// The integer x with x = r_l mod p_l for every l and |x| < P/2 (residues
/// r_l in [0, p_l)), rounded once to fp64 (to nearest, ties to even).
/// Exact: Garner's mixed-radix digits in small integers, the value in 192
/// bits, one rounding.
double reconstruct(const Moduli& m, const uint8_t* residues, std::size_t stride);

/// reconstruct(m, residues + e, plane) into out[e] for e < count (the
/// residue by p_l of element e at residues[l plane + e]): the same bits, the
/// Garner digits of a block of elements at a time in vectorisable 32-bit
/// loops.
void reconstruct_many(const Moduli& m, const uint8_t* residues, std::size_t plane, std::size_t count, double* out);

/// t mod p for t < 2^26 and 128 < p <= 256 (every scheme II modulus), in
/// 32- and 64-bit steps that vectorise: t - p floor(t c / 2^34) with
/// c = ceil(2^34 / p) < 2^27. Exact (Barrett): c = (2^34 + e) / p with
/// 0 <= e < p, so t c / 2^34 = t / p + t e / (p 2^34), and t e < 2^34 keeps
/// the excess below 1 / p; t / p = Q + j / p with j <= p - 1, so the floor
/// stays Q = floor(t / p), the same integer as `%` gives.
class SmallMod {
 public:
  explicit SmallMod(int p) : p_(static_cast<uint32_t>(p)), c_(((uint64_t{1} << 34) + p_ - 1) / p_) {}
  uint32_t operator()(uint32_t t) const { return t - static_cast<uint32_t>((t * c_) >> 34) * p_; }
  uint32_t divisor() const { return p_; }

 private:
  uint32_t p_;
  uint64_t c_;
};

}  // namespace mmaemu::ozaki
