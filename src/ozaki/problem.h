// SPDX-License-Identifier: BSD-3-Clause
// The fp64 product the schemes compute: D = op(A) op(B), m x n x k, each
// operand a strided view of doubles.
#pragma once

#include <cstddef>

#include "ozaki/scheme.h"

namespace mmaemu::ozaki {

/// Element (i, j) at data[i*rs + j*cs].
struct View {
  const double* data;
  std::ptrdiff_t rs, cs;
  double operator()(std::size_t i, std::size_t j) const {
    return data[static_cast<std::ptrdiff_t>(i) * rs + static_cast<std::ptrdiff_t>(j) * cs];
  }
};

struct Problem {
  std::size_t m, n, k;
  View a;  // m x k
  View b;  // k x n
};

struct RunOptions {
  int threads = 0;     // 0: MMA_NUM_THREADS, OMP_NUM_THREADS, all cores
  bool check = false;  // the exactness check (Stats)
};

/// D (m x n, row-major, contiguous) = op(A) op(B) by scheme I on the unit.
/// Non-finite entries of A and B are read as zero (ozaki/dgemm.h restores
/// IEEE results for the elements they reach). k >= 1.
void scheme1_product(const Unit& unit, const Scheme& scheme, const RunOptions& opt, const Problem& p, double* d,
                     Stats& stats);
/// The same by scheme II (the int8 unit).
void scheme2_product(const Unit& unit, const Scheme& scheme, const RunOptions& opt, const Problem& p, double* d,
                     Stats& stats);

/// The bits of each scheme I slice for this unit and k (docs/ozaki.md): the
/// integer unit's magnitude bits (int8: 7, int4: 3); on a floating-point
/// unit min(p, floor((24 - ceil(log2 kc)) / 2)), p its significand bits and
/// kc the k chunk (at most kFloatChunk), the papers' condition for exact
/// sums in an IEEE binary32 accumulator.
int slice_bits(const Unit& unit, std::size_t k);
/// A floating-point unit's longest k chunk.
inline constexpr std::size_t kFloatChunk = std::size_t{1} << 16;

}  // namespace mmaemu::ozaki
