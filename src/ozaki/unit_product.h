// SPDX-License-Identifier: BSD-3-Clause
// One product of two digit planes on the unit (ozaki/planes.h), over k in
// chunks short enough for the unit to hold the sums exactly (docs/ozaki.md,
// "Exact slice products"), and, for the exactness check, the same product in
// exact integer arithmetic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ozaki/planes.h"
#include "ozaki/scheme.h"

namespace mmaemu::ozaki {

/// A chunk [k0, k0 + len) of k.
struct Chunk {
  std::size_t k0, len;
};

/// k in consecutive chunks of `most` (the last one shorter); none for k = 0.
/// `most` even, so that every chunk of int4 codes starts on a byte.
std::vector<Chunk> chunks_of(std::size_t k, std::size_t most);

/// The longest chunk in which int32 sums of products of digits of magnitude
/// at most `digit_max` cannot overflow: floor((2^31 - 1) / digit_max^2),
/// rounded down to even (ozIMMU splits k likewise; Ootomo et al. 2024, §4).
std::size_t integer_chunk(int digit_max);

class UnitProduct {
 public:
  UnitProduct(const Unit& unit, int threads, bool check, std::size_t m, std::size_t n);

  /// Runs chunk c of the product of plane pa of A (m x k) and plane pb of B
  /// (n x k, op(B) transposed) on the unit; then value(i*n + j) is the
  /// unit's result (int32 or fp32) as a double and, with the check,
  /// exact(i*n + j) whether it equals the exact integer product.
  void run(const Planes& a, std::size_t pa, const Planes& b, std::size_t pb, const Chunk& c);
  double value(std::size_t e) const { return unit_.integer() ? int_out_[e] : value_[e]; }
  /// The int32 results of an integer unit, i*n + j.
  const int32_t* int_values() const { return int_out_.data(); }
  bool exact(std::size_t e) const { return exact_[e] != 0; }
  bool checking() const { return check_; }

 private:
  void run_unit(const Planes& a, std::size_t pa, const Planes& b, std::size_t pb, const Chunk& c);
  void run_exact(const Planes& a, std::size_t pa, const Planes& b, std::size_t pb, const Chunk& c);

  const Unit& unit_;
  int threads_;
  bool check_;
  std::size_t m_, n_;
  std::vector<int32_t> int_out_;
  std::vector<float> float_out_;
  std::vector<double> value_;  // floating-point units
  std::vector<uint8_t> exact_;
};

}  // namespace mmaemu::ozaki
