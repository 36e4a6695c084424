// SPDX-License-Identifier: BSD-3-Clause
// The GEMM driver: converts and packs operands, runs the fast step kernels
// over output tiles on threads, applies the BLAS epilogue.
//
// Threads and blocking partition only M x N; the k order of every output
// element is the model's chain, so results never depend on them.
#pragma once

#include <cstddef>
#include <cstdint>

#include "driver/parallel.h"
#include "formats/container.h"
#include "models/model.h"
#include "models/scaled_units.h"

namespace mmaemu::kernels {
struct KernelPlan;  // kernels/plan.h
}  // namespace mmaemu::kernels

namespace mmaemu::driver {

struct LineQuantiser;  // driver/scaled_decode.h

/// A matrix operand in memory: element (i, j) of op(X) is at
/// data + (trans ? j*ld + i : i*ld + j) elements (row-major view).
/// A block-scaled GEMM's operand: `storage` is the element format, data
/// its codes, one per byte or (fp4_packed) two e2m1 codes per byte along k,
/// (an integer unit's operand: s8/u8/s4/u4 codes, one per byte, or with
/// fp4_packed two int4 codes per byte in the same order)
/// element 2i in the low nibble (op(A)(i, l) in byte (i, l/2) of the view,
/// op(B)(l, j) in byte (l/2, j)); `scales` the scale codes of op(X), k/block
/// of them along k, in the same view with leading dimension scale_ld. With
/// `quantise`, data holds fp32 values instead, quantised as the sgemm
/// policies do (docs/block-scaled.md, "Speed").
struct Operand {
  Fmt storage;
  const void* data;
  std::ptrdiff_t ld;
  bool trans;
  const uint8_t* scales = nullptr;
  std::ptrdiff_t scale_ld = 0;
  bool fp4_packed = false;
  const LineQuantiser* quantise = nullptr;
};

/// A block-scaled unit's GEMM (docs/block-scaled.md §4) in place of a
/// block-FMA row: block-scaled operands, fp32 C.
struct ScaledSpec {
  const ScaledUnit* unit;
  float g_a = 1, g_b = 1;       // per-tensor decode scales, folded into alpha (§4.4)
  std::size_t block_bytes = 0;  // of B's chunk per N panel at most; 0: the steps nest's rule (tests: smaller)
};

struct GemmSpec {
  const ModelRow* row = nullptr;
  Round input_round = Round::rne;       // storage -> row.in (block-FMA rows only)
  Overflow input_overflow = Overflow::ieee;  // (block-FMA rows only)
  bool accumulate_into_c = false;       // MMAEMU_ACC_INTO_C semantics
  int threads = 0;                      // 0: MMA_NUM_THREADS, OMP_NUM_THREADS, all
  std::size_t work_per_thread = 0;      // multiply-adds per thread, 0: kWorkPerThread (tests: 1)
  bool use_reference = false;           // run every step on ref::step (tests)
  bool simd_off = false;                // scalar kernels only (tests)
  const ScaledSpec* scaled = nullptr;   // a block-scaled GEMM: row, input_round and input_overflow refused
};

/// D (m x n, row-major view with leading dimension ldc, storage c_storage) =
///   gpu-blas:        fma(alpha, acc, beta*C), acc = chain from +0
///   into-c:          alpha * acc, acc = chain from beta*C
/// C is read only when beta != 0. The one entry of both kinds of unit: a
/// block-FMA row (spec.row) or a block-scaled unit (spec.scaled, whose
/// epilogue is docs/block-scaled.md §4.4; throws std::invalid_argument for
/// a k or element format the unit does not take, and for a field of spec
/// the block-scaled path does not read set to other than its default).
void gemm(const GemmSpec& spec, std::size_t m, std::size_t n, std::size_t k, double alpha,
          const Operand& A, const Operand& B, double beta, Fmt c_storage, void* C,
          std::ptrdiff_t ldc);

/// The plan of a GEMM (the one call of kernels::plan per call): its
/// block-scaled unit's or its row's, with spec's test options.
kernels::KernelPlan plan_of(const GemmSpec& spec);

/// driver::gemm on a plan the caller made once with plan_of(spec): the
/// schedules run their pieces on the plan of their call. m, n > 0 and, for a
/// block-scaled GEMM, check_scaled passed.
void gemm_on_plan(const GemmSpec& spec, const kernels::KernelPlan& plan, std::size_t m, std::size_t n, std::size_t k,
                  double alpha, const Operand& A, const Operand& B, double beta, Fmt c_storage, void* C,
                  std::ptrdiff_t ldc);

/// The least multiply-adds (m*n*k) a GEMM gives each of its threads: a
/// product too small to feed thread_count() threads runs on fewer (one
/// below 2 * kWorkPerThread, about 162^3). Measured with mmaemu-bench (docs/performance.md,
/// "Threads under load"): at 128^3 a second thread gains about 10 % on
/// an idle machine and loses 20-30 % beside one busy process; from 160^3
/// to 192^3 it loses under 20 %, from 256^3 nothing (steps kernels and the
/// FMA-chain tiles alike). The bits never depend on it (threads partition
/// only M x N).
inline constexpr std::size_t kWorkPerThread = std::size_t{1} << 21;

/// The threads a GEMM of m x n x k runs on: thread_count(spec.threads),
/// fewer for small products (kWorkPerThread).
int gemm_threads(const GemmSpec& spec, std::size_t m, std::size_t n, std::size_t k);

/// The rule itself, for every engine: thread_count(requested), at most one
/// thread per `per` multiply-adds of m x n x k (0: kWorkPerThread), at
/// least one.
int work_threads(int requested, std::size_t m, std::size_t n, std::size_t k, std::size_t per = 0);

/// Element access by container (formats/container.h), as driver::load/store.
using mmaemu::load;
using mmaemu::store;

}  // namespace mmaemu::driver
