// SPDX-License-Identifier: BSD-3-Clause
// The SIMD step kernels (Highway, dispatched at run time). A kernel computes
// steps for kSimdLanes output columns whose B operands are packed
// lane-interleaved: element l of lane j at l*16 + j. The steps kernels share
// one prototype (StepKernel); which one serves a row is plan()'s decision
// (kernels/plan.h); the contract is docs/kernels.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/scalar.h"
#include "models/model.h"

namespace mmaemu::kernels {

inline constexpr std::size_t kSimdLanes = 16;

/// Which SIMD step kernel serves a row: data for plan(), which names the
/// kernel (KernelPlan::kernel), and for packing (interleaved: each
/// instruction's two groups contiguous).
enum class SimdKind : uint8_t {
  aligned,      // NVIDIA block FMA, c early
  late,         // CDNA3 late c with round-down
  pairwise,     // CDNA2 fp32 tree
  interleaved,  // HMMA fp8 path: two aligned sub-blocks from 0, then c by one RNE add
  st,           // block-scaled T-FDPA and ST-FDPA (scaled_simd.h)
  gst,          // block-scaled GST-FDPA (scaled_simd.h)
  integer,      // integer units: exact int16 products into s32 (integer_simd.cpp)
};

struct SimdParams {
  SimdKind kind;
  int32_t frac;       // F: alignment window fraction bits
  int32_t man2;       // fraction bits of a product's significand (2 * man)
  int32_t floor;      // alignment exponent floor (st, gst: the unit's e_zero)
  bool rz;            // RZ (else RNE, or rd/ru)
  bool rd, ru;        // aligned, fp32 results: RD or RU (general path only)
  bool out16;         // aligned: fp16 results, RNE (acc holds fp16 bits)
  int32_t nan16;      // aligned, out16: the unit's fp16 NaN
  int32_t frac_mask;  // clears result bits beyond out_frac_bits
  int32_t pair_group;    // pairwise: products per tree
  bool keep_sign;        // pairwise: FTZ of products and c keeps the sign
  bool out_sub;   // pairwise: false = FTZ
  bool normal_products;  // pairwise: products and their sums are zero or normal fp32 (fp16 inputs)
  bool pos_zero;         // pairwise: neg_zero = positive (a -0 c reads as +0)
  bool sub_c_emin;       // aligned, out16: a subnormal fp16 c aligns at 2^-14 (sub_c = emin)
  int32_t nan32;         // the unit's NaN
  bool odd_even;         // late: CDNA3 fp8 odd/even groups
  bool exact_zero_c;     // late: ModelRow::late_exact_zero_c
  int32_t cutoff;        // late: c dropped more than this many binades below (-1: never)
  int32_t block;         // gst: elements per scale
  bool satfinite;        // integer: overflow = satfinite (else wrap)
  bool sat_each;         // integer, satfinite: sat_point = addition (clamp after each product)
};

/// A run of steps: `steps` consecutive blocks of `step` elements, the last
/// of `last_len` (the rest zero-padded in the panels).
struct StepRun {
  int steps, step, last_len;
};

/// A's rows from the run's first k (docs/kernels.md, "row panel"): `rows`
/// rows (1 or kMaxRows) against the same lanes, element l of row r at
/// [r*stride + l]. val: the unit's value as float; sig: the integer
/// significand as float; exp: the decomposition exponent (pack_element).
/// Pairwise rows: val is the operand as read (a flushed input: its zero); sig, exp unused.
/// The block-scaled kernels (SimdKind st, gst; one row) read val (st:
/// the element's value; gst: twice the e2m1 value) and the fields below
/// (scaled_simd.h).
struct RowPanel {
  const float* val;
  const float* sig;
  const int32_t* exp;
  int rows = 1;            // A rows in the call: 1 or kMaxRows
  std::size_t stride = 0;  // elements from one row to the next (rows > 1)
  const int16_t* exp16 = nullptr;     // st: alignment exponents (docs/block-scaled.md §1.3)
  const int32_t* scale_exp = nullptr; // st: per step; gst: per scale block
  const uint32_t* nz = nullptr;       // gst: per group of 16, bit i: element i nonzero
  const double* scale = nullptr;      // gst: the scale's value per block
  const int16_t* i16 = nullptr;       // integer: the codes' values, k contiguous
};

/// The most A rows one step-kernel call covers: two independent chains per
/// lane for the kernels to interleave (docs/kernels.md).
inline constexpr int kMaxRows = 2;

/// RowPanel::rows outside [1, kMaxRows]: std::invalid_argument.
inline void check_rows(const RowPanel& a) {
  if (a.rows < 1 || a.rows > kMaxRows)
    throw std::invalid_argument("step kernel: " + std::to_string(a.rows) + " A rows in one call (1 to " +
                                std::to_string(kMaxRows) + ")");
}

/// B's 16 columns from the run's first k, lane-interleaved: element l of
/// lane j at [l*16 + j] (docs/kernels.md, "lane panel"). Fields as RowPanel.
struct LanePanel {
  const float* val;
  const float* sig;
  const int32_t* exp;
  const int16_t* exp16 = nullptr;     // st: in pairs, element l of lane j at [(l/2)*32 + 2j + l%2]
  const int32_t* scale_exp = nullptr; // st: [s*16 + j]; gst: [t*16 + j]
  const uint32_t* nz = nullptr;       // gst: [g*16 + j]
  const double* scale = nullptr;      // gst: [t*16 + j]
  const int16_t* i16 = nullptr;       // integer: the codes' values in pairs, element l of lane j at
                                      // [(l/2)*32 + 2j + l%2]
};

/// The one step-kernel prototype (docs/kernels.md, "The step-kernel
/// prototype"): `run` from the panels' first k for 16 lanes and a.rows A
/// rows, acc: c in, d out, row r's 16 accumulators at acc + 16*r (the
/// row's output bits: fp32, or fp16 in the low half with p.out16). Returns
/// the number of steps done for every row: run.steps, or fewer when the
/// kernel hands a step back (every row's acc then holds the state before
/// it, and the caller runs that step of every row on the scalar kernel).
/// No input is NaN or Inf; a NaN or Inf c is handled. a.rows outside
/// [1, kMaxRows]: std::invalid_argument. plan() names the kernel of a row
/// (KernelPlan::kernel); the macro-kernels call it without a switch.
using StepKernel = int (*)(const SimdParams& p, StepRun run, RowPanel a, LanePanel b, uint32_t* acc);

/// The aligned, c-early path (SimdKind::aligned): fp32 results (RZ, RNE, RD
/// or RU) or, with p.out16, fp16 results (RNE). Does every step.
int simd_aligned_run16(const SimdParams& p, StepRun run, RowPanel a, LanePanel b, uint32_t* acc);

/// The interleaved HMMA fp8 path (SimdKind::interleaved), one instruction
/// (step = the instruction's k, packed with its two groups contiguous; the
/// last one zero-padded, run.last_len unused) after the other: the two
/// groups as aligned blocks from +0, then acc + t with RNE: fp32 (host
/// arithmetic: the caller holds FpEnvGuard; NaN bits are the host's) or,
/// with p.out16, fp16 (exact integer sum, one rounding; NaN: p.nan16).
/// Does every step.
int simd_interleaved_run16(const SimdParams& p, StepRun run, RowPanel a, LanePanel b, uint32_t* acc);

/// The CDNA3 late-c path (SimdKind::late: two-stage round-down, contiguous
/// or odd/even groups). Hands back a block whose products may reach 2^128.
int simd_late_run16(const SimdParams& p, StepRun run, RowPanel a, LanePanel b, uint32_t* acc);

/// CDNA2 pairwise steps (SimdKind::pairwise; panels: val only, a flushed
/// input is its zero). acc holds fp32 bits, read and written as floats:
/// IEEE arithmetic, NaN and Inf need no special care (NaN bits are the
/// host's). Does every step.
int simd_pairwise_run16(const SimdParams& p, StepRun run, RowPanel a, LanePanel b, uint32_t* acc);

/// The integer units (SimdKind::integer; docs/models.md §11): panels' i16
/// only (the codes' values), run.step even, each instruction zero-padded
/// (run.last_len unused: zero products change no bits); acc holds s32
/// codes. Wrap, or with p.satfinite the clamp per instruction or (p.sat_each)
/// per product in k order: ref::step's bits. One or two A rows (two: each
/// B vector loaded once for both). Does every step.
int simd_integer_run16(const SimdParams& p, StepRun run, RowPanel a, LanePanel b, uint32_t* acc);

/// Register-blocked FMA chain tiles (BLIS-style micro-kernel): kChainMR
/// rows x kChainNR columns (fp64: kChainNR64), over kc consecutive k:
///   c[r*ldc + j] = fma(a[l*kChainMR + r], b[l*NR + j], c[r*ldc + j]), l = 0..kc-1
/// in order for every element: A packed row-interleaved, B column-interleaved.
inline constexpr std::size_t kChainMR = 8, kChainNR = 32, kChainNR64 = 16;
void simd_chain_tile(int kc, const float* a, const float* b, float* c, std::size_t ldc);
void simd_chain_tile64(int kc, const double* a, const double* b, double* c, std::size_t ldc);

/// CDNA1 exact blocks (Accumulation::exact, fp32 result, RNE) for 16 lanes,
/// summed in binary64 where that sum is provably exact (exact_simd.cpp).
/// Operands as doubles: av (A's row from the first block's first k), bv (B
/// lane-interleaved, element l of lane j at l*16 + j). Per block s: alo[s],
/// ahi[s] (A) and blo[s*16 + j], bhi[s*16 + j] (B) are the power-of-two
/// bounds of exact_bounds(). acc: the 16 accumulators (fp32 values held as
/// doubles), in and out. Returns the number of blocks done; when fewer than
/// `steps`, acc holds the state before the next block, `next` the kernel's
/// result of that block, valid in the lanes not set in `bad` (bit j: lane j
/// failed the exactness check: the caller computes it another way).
struct ExactRowPanel {  // A: val[l], lo[s], hi[s]
  const double* val;
  const double* lo;
  const double* hi;
};
struct ExactLanePanel {  // B: val[l*16 + j], lo[s*16 + j], hi[s*16 + j]
  const double* val;
  const double* lo;
  const double* hi;
};
int simd_exact_run16(StepRun run, ExactRowPanel a, ExactLanePanel b, double* acc, double* next, uint32_t* bad);

/// The power-of-two bounds of one block's operands for simd_exact_run16,
/// A side (is_a) or B side: lo_e = min, hi_e = max over the block's nonzero
/// elements of floor(log2 |x|) (no nonzero element: lo_e = kExactNone,
/// hi_e = -kExactNone); man = fraction bits of the unit's input format,
/// step = products per block.
inline constexpr int kExactNone = 400;
void exact_bounds(bool is_a, int lo_e, int hi_e, int man, int step, double& lo, double& hi);

/// The fp32 storage for exact_pack_lanes(): element l of lane q at
/// data[l*k_stride + q*lane_stride], rounded to the unit's fp16 (or, bf16,
/// bf16) with RNE; is_a: A's bounds (else B's).
struct ExactPackSource {
  const uint32_t* data;
  std::ptrdiff_t k_stride, lane_stride;
  bool bf16, is_a;
};
/// One lane group of an exact panel (`lanes` <= 16 vectors: B's columns,
/// or A's rows as lanes) over blocks [s0, s1) of `step` elements, kc of
/// them valid (zeros after): val[l*16 + q] the unit's value as a double,
/// lo/hi[s*16 + q] the bounds of exact_bounds() (man: the unit's fraction
/// bits), the lane
/// positions past `lanes` unspecified. Blocks with an element whose unit
/// value is Inf or NaN or a bf16 subnormal (or that is a NaN in storage)
/// are listed in todo[] as s*16 + q (room for (s1 - s0)*16), their fields
/// unspecified, for the caller's scalar path; returns how many. Host in
/// round-to-nearest without FTZ/DAZ (kernels/fp_env.h).
std::size_t exact_pack_lanes(const ExactPackSource& src, std::size_t lanes, std::size_t s0, std::size_t s1,
                             std::size_t step, std::size_t kc, int man, double* val, double* lo, double* hi,
                             std::size_t* todo);
/// n contiguous fp32 patterns src[0 .. n) rounded to the unit's fp16 (or,
/// bf16, bf16) with RNE: val[i] the value as a double, elo[i] and ehi[i]
/// its floor(log2 |x|) (a zero: kExactNone and -kExactNone), special[i]
/// set where the unit value is Inf or NaN or a bf16 subnormal or the
/// pattern a NaN (val, elo, ehi then unspecified). Host in round-to-nearest
/// without FTZ/DAZ.
void exact_convert_row(const uint32_t* src, std::size_t n, bool bf16, double* val, int32_t* elo, int32_t* ehi,
                       uint8_t* special);

/// The instruction set the dispatcher chose ("AVX3", "AVX2", ...).
const char* simd_target_name();

}  // namespace mmaemu::kernels
