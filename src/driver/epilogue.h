// SPDX-License-Identifier: BSD-3-Clause
// The BLAS epilogue of the GEMM driver: from the chain's accumulators to
// the stored D, in fp32 (fp64 rows: fp64) as a vendor BLAS does it.
//
//   gpu-blas (default):  acc = chain from +0
//                        beta = 0: D = alpha*acc; else D = fma(alpha, acc, beta*C)
//   into-c:              acc = chain from beta*C rounded once to the unit's output
//                        format (initial_acc); D = alpha*acc
//
// NaN results are stored as the unit's NaN (vendor pattern) in any storage
// format; C is read only when beta != 0.
//
// A block-scaled GEMM (spec.scaled, fp32 C) takes the same steps with the
// rules of docs/block-scaled.md §4.4: alpha is alpha_eff =
// RNE32(alpha*g_a*g_b) (one rounding; 0: D = beta*C), every NaN is
// 0x7FFFFFFF, and an exact zero of fma(alpha_eff, acc, beta*C) is +0.
//
// An integer unit (s32 results, docs/models.md §11): D = A*B + C as
// cublasGemmEx and oneDNN's s8s8s32 GEMM define it, alpha = 1 and beta 0
// or 1 only, C and D s32. The chain starts from C (beta = 1: C is the
// first instruction's c, as an mma chain loaded with C) or from 0, and D
// is the last accumulator itself: no rounding. Anything else is
// std::invalid_argument.
#pragma once

#include <cstddef>
#include <cstdint>

#include "driver/gemm.h"

namespace mmaemu::driver {

class Epilogue {
 public:
  Epilogue(const GemmSpec& spec, double alpha, double beta, Fmt c_storage, void* C, std::ptrdiff_t ldc);

  /// alpha as applied (block-scaled: alpha_eff); 0: scale_only().
  double alpha() const { return alpha_; }
  /// True when every chain starts from +0 (C is not read before the epilogue).
  bool zero_init() const { return zero_init_; }
  /// The chain's first accumulator of element (i, j): +0, or beta*C (into-c).
  uint64_t initial_acc(std::size_t i, std::size_t j) const {
    return integer_ && zero_init_ ? 0 : initial_acc_other(i, j);  // (the integer units' usual start inline)
  }

  /// Stores row i, columns j0 .. j0+nc-1, from accumulators given as bit
  /// patterns of the row's output format (uint32_t: fp32 or fp16; uint64_t:
  /// fp64) or as host values (float: fp32 output, double: fp64 output).
  template <typename V>
  void store_row(const V* acc, std::size_t i, std::size_t j0, std::size_t nc) const;

  /// alpha() = 0: D = beta*C (BLAS), never reading C when beta = 0.
  void scale_only(std::size_t m, std::size_t n, int threads) const;

 private:
  uint64_t initial_acc_other(std::size_t i, std::size_t j) const;
  void store_one(uint64_t acc, std::size_t i, std::size_t j) const;
  // beta*C rounded once to f (RNE); NaN: f's default NaN (block-scaled: 0x7FFFFFFF).
  uint64_t beta_c(std::size_t i, std::size_t j, Fmt f) const;
  std::ptrdiff_t at(std::size_t i, std::size_t j) const {
    return static_cast<std::ptrdiff_t>(i) * ldc_ + static_cast<std::ptrdiff_t>(j);
  }

  Fmt out_;                   // the unit's output format
  double alpha_, beta_;
  Fmt c_storage_;
  void* C_;
  std::ptrdiff_t ldc_;
  Fmt epi_;                   // epilogue arithmetic: fp32, or fp64 for fp64 rows
  uint64_t alpha_e_, beta_e_;  // alpha and beta in epi_
  uint64_t nan_store_;         // the unit's NaN in c_storage_
  bool scaled_;               // the block-scaled rules
  bool read_c_, use_c_, zero_init_;
  bool integer_ = false;       // s32 results: the accumulator is stored as it is
};

}  // namespace mmaemu::driver
