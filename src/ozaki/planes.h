// SPDX-License-Identifier: BSD-3-Clause
// Digit planes: the slices (scheme I) or residues (scheme II) of an operand,
// `count` integer matrices of rows x k with k contiguous, stored as the
// unit's GEMM reads them: int8 codes, int4 codes packed two per byte along k
// (element 2l in the low nibble), or fp32 values for a floating-point unit
// (converted exactly to its input format: every digit fits it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "formats/format.h"

namespace mmaemu::ozaki {

class Planes {
 public:
  Planes(Fmt input, std::size_t count, std::size_t rows, std::size_t k);

  void set(std::size_t plane, std::size_t row, std::size_t l, int digit);
  int64_t get(std::size_t plane, std::size_t row, std::size_t l) const;
  /// The int8 codes of (plane, row), k of them (input s8 only): for writers
  /// that fill a row at a time, with exactly what set() would store.
  int8_t* s8_row(std::size_t plane, std::size_t row) { return bytes_.data() + index(plane, row, 0); }
  /// The first element of (plane, row 0) at column l0 (l0 even for int4).
  const void* at(std::size_t plane, std::size_t l0) const;
  /// The leading dimension of a plane, in elements of its storage (bytes for int4).
  std::size_t ld() const { return ld_; }
  std::size_t rows() const { return rows_; }
  std::size_t k() const { return k_; }
  Fmt input() const { return input_; }

 private:
  std::size_t index(std::size_t plane, std::size_t row, std::size_t l) const {
    return (plane * rows_ + row) * ld_ + (input_ == Fmt::s4 ? l / 2 : l);
  }
  Fmt input_;
  std::size_t rows_, k_, ld_;
  std::vector<int8_t> bytes_;  // s8, s4
  std::vector<float> values_;  // floating-point units
};

}  // namespace mmaemu::ozaki
