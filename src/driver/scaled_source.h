// SPDX-License-Identifier: BSD-3-Clause
// Where the block-scaled GEMM (driver/scaled_gemm.cpp) reads an operand from,
// a few lines at a time: the rows of op(A) or the columns of op(B) ("lines"),
// k along each, as element codes one per byte and scale codes. The GEMM
// asks for the lines of one panel when it packs that panel, so no operand is
// ever copied whole (docs/block-scaled.md, "Speed"):
// - CanonicalLines: codes already by lines, k contiguous (the reference's
//   layout, ref::ScaledGemm);
// - StridedCodes: codes and scales where the C API's caller keeps them
//   (CBLAS layout, transpose, leading dimension, fp4 pairs along k);
// - QuantisedLines: fp32 op(X) in its CBLAS layout, quantised line by line
//   as the sgemm policies do (OCP MX per block, or NVFP4 with the tensor's
//   global scale, computed beforehand: operand_amax).
#pragma once

#include <cstddef>
#include <cstdint>

#include "formats/format.h"

namespace mmaemu::driver {

class ScaledSource {
 public:
  virtual ~ScaledSource() = default;
  /// Lines [r0, r0 + count): line r's k codes at codes[(r - r0) * k], its
  /// k / block scale codes at scales[(r - r0) * (k / block)] (none when
  /// the unit has no scales). k is the GEMM's.
  virtual void lines(std::size_t r0, std::size_t count, uint8_t* codes, uint8_t* scales) const = 0;
};

class CanonicalLines final : public ScaledSource {
 public:
  /// Lines from `first` on: line r's codes at codes[(r - first) * k].
  CanonicalLines(const uint8_t* codes, const uint8_t* scales, std::size_t k, std::size_t nb, std::size_t first = 0)
      : codes_(codes), scales_(scales), k_(k), nb_(nb), first_(first) {}
  void lines(std::size_t r0, std::size_t count, uint8_t* codes, uint8_t* scales) const override;

 private:
  const uint8_t* codes_;
  const uint8_t* scales_;
  std::size_t k_, nb_, first_;
};

/// One stored matrix in CBLAS terms: op(X) is `rows` x `cols`.
struct Strided {
  const void* data;
  std::size_t ld;
  bool row_major, trans;
  /// Offset of op(X)(r, c) in elements.
  std::size_t at(std::size_t r, std::size_t c) const {
    if (trans) {
      const std::size_t t = r;
      r = c, c = t;
    }
    return row_major ? r * ld + c : c * ld + r;
  }
};

class StridedCodes final : public ScaledSource {
 public:
  /// k_along_cols: op(X) is A (line = row, k along columns), else B (line
  /// = column). packed: two e2m1 codes per byte along k, element 2i in the
  /// low nibble. Codes are taken as they are (checked beforehand).
  StridedCodes(Strided codes, Strided scales, bool k_along_cols, bool packed, std::size_t k, std::size_t nb)
      : codes_(codes), scales_(scales), k_cols_(k_along_cols), packed_(packed), k_(k), nb_(nb) {}
  void lines(std::size_t r0, std::size_t count, uint8_t* codes, uint8_t* scales) const override;

 private:
  std::size_t at(const Strided& s, std::size_t line, std::size_t l) const {
    return k_cols_ ? s.at(line, l) : s.at(l, line);
  }
  Strided codes_, scales_;
  bool k_cols_, packed_;
  std::size_t k_, nb_;
};

/// How the sgemm policies quantise: OCP MX (UE8M0 per `block`) or NVFP4
/// (UE4M3 per 16 with the tensor's encode scale).
struct LineQuantiser {
  Fmt element;
  std::size_t block;
  bool nvfp4;
  float encode;  // NVFP4: nvfp4_global_of_amax(operand_amax(...)).encode
};

class QuantisedLines final : public ScaledSource {
 public:
  /// op(X) fp32 with k real elements per line, quantised as k_padded (a
  /// whole number of blocks; zeros past k, so every block's scale is the
  /// short block's).
  QuantisedLines(Strided x, bool k_along_cols, std::size_t k, std::size_t k_padded, LineQuantiser q)
      : x_(x), k_cols_(k_along_cols), k_(k), kp_(k_padded), q_(q) {}
  void lines(std::size_t r0, std::size_t count, uint8_t* codes, uint8_t* scales) const override;

 private:
  Strided x_;
  bool k_cols_;
  std::size_t k_, kp_;
  LineQuantiser q_;
};

/// The largest |x| over the finite elements of op(X) (rows x cols, fp32),
/// read in place: what nvfp4_global_scale() reads of the whole tensor.
float operand_amax(Strided x, std::size_t rows, std::size_t cols, int threads);

}  // namespace mmaemu::driver
