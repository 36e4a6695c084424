// SPDX-License-Identifier: BSD-3-Clause
// Batched instructions: a stack of independent tiles (or dot products, the
// tiles of one output element) on the SIMD step kernels, each output
// element exactly ref::dot of its row of A, its column of B and its c
// (docs/batch.md). The kernels compute one row of A against 16 columns of
// B; here each of the 16 lanes has its own a and b, so the engine hands the
// kernel the exact products instead: B's lanes hold a_l*b_l as the kernel
// would form it (value, significand and exponent), A's row is the
// multiplicative identity (docs/batch.md, "product panels").
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "formats/format.h"
#include "kernels/product_pack.h"
#include "models/model.h"
#include "models/scaled_units.h"

namespace mmaemu::driver {

/// How the codes of A, B, C and D are held in memory.
enum class BatchStorage : uint8_t {
  native,  // the storage types of the formats (mmaemu_tile's: uint8_t, uint16_t, float, double)
  codes,   // uint64_t bit patterns, one per element (mmaemu validate's samples)
};

/// `count` tiles D_t = A_t * B_t + C_t of one row: A_t m x k, B_t k x n,
/// C_t and D_t m x n, row-major and contiguous, tile t at t*m*k, t*k*n and
/// t*m*n elements; A and B hold row.in, C and D row.out. C and D may be the
/// same array. Dot products are tiles with m = n = 1.
///
/// Integer units (accum = integer): A holds row.in codes and B row.in_b
/// codes, one per byte, C and D int32 (native storage); with int4_packed
/// (s4/u4 units) two codes per byte along k, element 2i in the low nibble:
/// A_t's rows are ceil(k/2) bytes, B_t is ceil(k/2) x n bytes (byte (i, c)
/// holds rows 2i and 2i + 1 of column c), as mmaemu_gemm_int packs them.
struct BatchProblem {
  std::size_t count = 0, m = 1, n = 1, k = 0;
  const void* A = nullptr;
  const void* B = nullptr;
  const void* C = nullptr;
  void* D = nullptr;
  BatchStorage storage = BatchStorage::native;
  bool int4_packed = false;
};

struct BatchOptions {
  int threads = 0;             // as the GEMM: driver::thread_count(threads)
  bool use_reference = false;  // every element on ref::dot (tests)
  bool simd_off = false;       // the scalar step kernels only (tests)
};

/// Every output element of every tile: d = ref::dot(row, k, a, b, c) bit
/// for bit (c is not read where row.ignores_c). Integer units run on the
/// integer plug-in (run_integer_batch).
void run_batch(const ModelRow& row, const BatchProblem& p, const BatchOptions& o = {});

/// run_batch of an integer unit (driver/integer_batch.cpp): the products of
/// each lane's codes on the integer step kernel against the identity row,
/// or ref::dot element by element where the plan has no kernel. int4_packed
/// with other than s4/u4 operands, or with codes storage:
/// std::invalid_argument.
void run_integer_batch(const ModelRow& row, const BatchProblem& p, const BatchOptions& o = {});
/// Whether run_integer_batch runs the row on the SIMD kernel.
bool integer_batch_simd(const ModelRow& row, const BatchOptions& o = {});

/// The engine run_batch uses for a row: "simd" (product panels on the SIMD
/// step kernels), "exact" (the CDNA1 exact kernel), "scalar", "fp64" or
/// "reference" (one element at a time).
const char* batch_engine(const ModelRow& row, const BatchOptions& o = {});

/// How the SIMD packer decodes the row's input codes (width 0: it does
/// not; the scalar packer with decode_operand's fields runs instead).
kernels::CodeDecode batch_code_decode(const ModelRow& row);

/// `count` tiles of m x n outputs, k deep, of a block-scaled or
/// narrow-format `unit`: A_t m x k element codes (one per byte), SA_t m x
/// k/block scale codes, B_t k x n, SB_t k/block x n, C_t and D_t m x n
/// values of `out` (float, or uint16_t fp16 bits), row-major and
/// contiguous, tile t at t times each operand's size. Dot products are
/// tiles with m = n = 1 (A and B then count x k). k a multiple of the block
/// (any k without scales); the last instruction is padded with zero
/// elements and neutral scales. C and D may alias.
struct ScaledBatch {
  const ScaledUnit* unit = nullptr;
  Fmt fa = Fmt::e4m3, fb = Fmt::e4m3, out = Fmt::fp32;
  std::size_t count = 0, m = 1, n = 1, k = 0;
  const uint8_t* A = nullptr;
  const uint8_t* SA = nullptr;
  const uint8_t* B = nullptr;
  const uint8_t* SB = nullptr;
  const void* C = nullptr;
  void* D = nullptr;
};

/// Every output element: ref::scaled_chain(unit, out, fa, fb, k, a, sa, b,
/// sb, c), bit for bit, on the batched engine with the block-scaled
/// plug-in (driver/scaled_kind.cpp). threads as the GEMM; use_reference:
/// every element on the reference (tests).
void run_scaled_batch(const ScaledBatch& b, int threads = 0, bool use_reference = false);

/// The identity row of the batched engines' product panels (batch.cpp,
/// scaled_kind.cpp, integer_batch.cpp): each lane of B holds its own operands' products, read
/// against this row, every entry an identity of the kernel's operation
/// (value and significand 1, exponents 0, every element nonzero, scale 1);
/// kIdentityEntries entries of each field.
struct IdentityRow {
  static constexpr std::size_t kIdentityEntries = 1024;
  std::vector<float> one = std::vector<float>(kIdentityEntries, 1.0f);
  std::vector<int16_t> zero16 = std::vector<int16_t>(kIdentityEntries, 0);
  std::vector<int16_t> one16 = std::vector<int16_t>(kIdentityEntries, 1);  // integer values
  std::vector<int32_t> zero32 = std::vector<int32_t>(kIdentityEntries, 0);
  std::vector<uint32_t> all = std::vector<uint32_t>(kIdentityEntries, ~0u);
  std::vector<double> one64 = std::vector<double>(kIdentityEntries, 1.0);
};
const IdentityRow& identity_row();

/// The batched engine's one parallel loop: body(i) for i in [0, tasks) on
/// thread_count(threads) threads (at most `tasks`), each thread holding the
/// kernels' floating-point environment (kernels/fp_env.h).
void batch_parallel(std::size_t tasks, int threads, void (*body)(void* ctx, std::size_t i), void* ctx);

}  // namespace mmaemu::driver
