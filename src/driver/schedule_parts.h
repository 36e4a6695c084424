// SPDX-License-Identifier: BSD-3-Clause
// Building blocks of the schedules (schedule.h) and of the fine-grained
// scaled fp8 GEMM (scaled_fp8.h): unit pieces into a main-format scratch,
// binary32/64 additions, the epilogue on the main accumulator.
#pragma once

#include <cstddef>

#include "driver/schedule.h"
#include "kernels/plan.h"

namespace mmaemu::driver {

/// Columns j0 .. j0+nc-1 of all m rows; scratch arrays are m x nc, row-major.
struct Block {
  std::size_t m, j0, nc;
  int threads;
};

/// What the epilogue needs (the arguments of driver::gemm).
struct MainEpilogue {
  const ModelRow& row;
  double alpha, beta;
  bool into_c;
  Fmt c_storage;
  void* C;
  std::ptrdiff_t ldc;
  int threads;
};

/// out (m x nc, format F) = the unit's result of op(A)(:, r) * op(B)(r, block)
/// from +0 (driver::gemm_on_plan with alpha = 1, beta = 0): plan is
/// plan_of(spec), made once by the schedule's call.
void unit_piece(const GemmSpec& spec, const kernels::KernelPlan& plan, const Block& b, KRange r, const Operand& A,
                const Operand& B, Fmt F, void* out);

/// dst (m x nc, main format) += the unit's result of each piece of
/// `interval` k of r from r.k0 on (0: r in one piece), each from +0, in k
/// order, one RNE addition each: ((dst + p0) + p1) + ... On the steps
/// macro-kernel the additions run inside it, through an accumulator sink
/// (acc_sink.h). plan: plan_of(spec), made once by the schedule's call.
template <typename T>
void add_range(const GemmSpec& spec, const kernels::KernelPlan& plan, const Block& b, KRange r, std::size_t interval,
               const Operand& A, const Operand& B, T* dst);

/// True when add_range runs pieces of `interval` k over a range of `len`
/// inside the steps macro-kernel (one pass, no GEMM per piece).
bool in_kernel(const kernels::KernelPlan& plan, const ModelRow& row, std::size_t interval, std::size_t len);

/// Operand X seen from element (r, c) of op(X) on.
Operand shifted(const Operand& X, std::size_t r, std::size_t c);

template <typename T>
void fill_zero(const Block& b, T* dst);
/// dst = dst + src, one IEEE addition (RNE) per element.
template <typename T>
void add_into(const Block& b, T* dst, const T* src);
/// main = +0, or beta*C rounded once (accumulate-into-C, beta != 0).
template <typename T>
void init_main(const MainEpilogue& e, const Block& b, T* main);
/// D = the epilogue of main, stored into C's block.
template <typename T>
void store_main(const MainEpilogue& e, const Block& b, const T* main);

}  // namespace mmaemu::driver
