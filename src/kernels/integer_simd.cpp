// SPDX-License-Identifier: BSD-3-Clause
// The SIMD kernels of the integer units (docs/models.md §11, "Integer
// units"; the reference is src/ref/integer.cpp): the step kernel
// simd_integer_run16 (16 output columns, one or two A rows, in the one
// StepKernel prototype of kernels/simd.h) and the register-blocked tile
// simd_integer_tile (integer_simd.h: up to kTileRows rows x kTileGroups
// lane groups of 16 columns per block, the steps nest's fast path). Both
// run the one block routine below, so their bits are one code path's.
//
// Operands are the codes' values as int16 (s8/u8/s4/u4 all fit): A's row
// k contiguous (RowPanel::i16), B's 16 lanes of a group in pairs along k
// (LanePanel::i16: element l of lane j at [(l/2)*32 + 2j + l%2]), so that
// one widening multiply-add of int16 pairs (hn::ReorderWidenMulAccumulate:
// x86 `pmaddwd`) gives a[l]*b[l][j] + a[l+1]*b[l+1][j] in int32 lane j.
// Every such pair sum is exact: |a*b| <= 255*255 < 2^16.
//
// Partial sums S of at most kFlush products stay below 2^30 in magnitude:
// exact in int32, never overflowing (no signed wrap anywhere). Then, per
// overflow rule (PTX ISA, "Warp Level Matrix Multiply-Accumulate
// Instructions", mma, "Integer operations"):
//   wrap: acc = acc + S modulo 2^32, added as uint32. Why this is the
//     reference's bits (ref::integer_step: per instruction t, the exact sum
//     of its products P_t in int64, d_t = (d_{t-1} + P_t) mod 2^32, read as
//     s32): reduction modulo 2^32 is a ring homomorphism from the integers,
//     (x + y) mod 2^32 = ((x mod 2^32) + (y mod 2^32)) mod 2^32, so by
//     induction over the instructions d_t = (c + P_1 + ... + P_t) mod 2^32:
//     the chain's result depends only on c and the sum of all its products
//     modulo 2^32, in any order and grouping. The kernel adds exact partial
//     sums S (each a sum of whole products, together every product once)
//     to c in uint32 arithmetic, which is addition modulo 2^32 (C++
//     unsigned arithmetic; x86 `paddd` on every lane): the same residue,
//     and both are codes in [0, 2^32), so the same bits. Hence one exact
//     partial sum per kFlush products (not per instruction), kept in
//     registers across instructions.
//   satfinite, sat_point = instruction: per instruction, S = the exact sum
//     of its k products (k <= 2^14 by the envelope in plan.cpp), then
//     d = clamp(c + S) to [MIN_INT32, MAX_INT32]: c + S computed modulo
//     2^32; it overflowed iff c and S have the same sign and the sum the
//     other one, and then the clamp is MAX_INT32 (c >= 0) or MIN_INT32.
//   satfinite, sat_point = addition: t = clamp(t + a_l*b_l) for each
//     product in k order. The same widening multiply-add with A's pair
//     masked to (a_l, 0) and (0, a_{l+1}) gives the single products, then
//     the same saturating addition: two multiply-adds and two clamps a pair.
// Zero padding (the last instruction, k not a multiple of step) adds
// products of 0, which change no bits under any rule.
//
// Register blocking (the block routine): R rows x G lane groups of
// partial sums in registers (AVX-512: 4 x 4 vectors of 16 int32 lanes,
// 64 columns; AVX2: 4 x 2; SSE4: 2 x 4), B's vector for a pair of k loaded
// once for the R rows, A's pair broadcast once for the G groups. Per pair
// of k and block, AVX-512: 16 `vpmaddwd` + 16 `vpaddd` (512 products),
// 4 loads of B and 4 broadcasts of A: 40 instructions, ~0.08 per product
// (~0.04 per operation of 2mnk); the 16 `vpmaddwd`, one per cycle on a
// core that splits 512-bit multiplies in two (AMD Zen 4), bound it at 32
// products a cycle. satfinite per instruction adds a load, the clamp
// (~6 instructions) and a store per vector and instruction; sat_point =
// addition runs one row and group at a time (two multiply-adds and two
// clamps per pair and vector).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/integer_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "kernels/integer_simd.h"
#include "kernels/simd.h"

#ifndef MMAEMU_INTEGER_SIMD_ONCE
#define MMAEMU_INTEGER_SIMD_ONCE
namespace mmaemu::kernels::integer_detail {
// Products per exact int32 partial sum: 2^14 * 255^2 < 2^30.
inline constexpr int kFlush = 1 << 14;
}  // namespace mmaemu::kernels::integer_detail
#endif

HWY_BEFORE_NAMESPACE();
namespace mmaemu {
namespace kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr std::size_t L = kSimdLanes;
using integer_detail::kFlush;

#if HWY_TARGET == HWY_SCALAR
// One lane per vector: no int16 pairs. Plain int64 arithmetic, the same
// rules (the reference's arithmetic), one row and column at a time.
void IntTileRun(const SimdParams& p, int step, int steps, const IntTile& t) {
  for (int r = 0; r < t.rows; ++r)
    for (int g = 0; g < t.groups; ++g)
      for (std::size_t j = 0; j < L; ++j) {
        const int16_t* a = t.a + r * t.a_stride;
        const int16_t* b = t.b + g * t.b_stride + 2 * j;  // element i at b[(i/2)*2L + i%2]
        uint32_t& acc = t.acc[r * t.ldc + g * L + j];
        int64_t c = static_cast<int32_t>(acc);
        for (int s = 0; s < steps; ++s) {
          int64_t sum = 0;
          for (int i = s * step; i < (s + 1) * step; i += 2) {
            const int16_t* bi = b + static_cast<std::size_t>(i) * L;
            const int64_t p0 = int64_t{a[i]} * bi[0], p1 = int64_t{a[i + 1]} * bi[1];
            if (p.sat_each)
              c = std::clamp<int64_t>(std::clamp<int64_t>(c + p0, INT32_MIN, INT32_MAX) + p1, INT32_MIN, INT32_MAX);
            else
              sum += p0 + p1;
          }
          if (!p.sat_each)
            c = p.satfinite ? std::clamp<int64_t>(c + sum, INT32_MIN, INT32_MAX)
                            : static_cast<int32_t>(static_cast<uint32_t>(c + sum));
        }
        acc = static_cast<uint32_t>(static_cast<int32_t>(c));
      }
}
#else
using D32 = hn::ScalableTag<int32_t>;
using V32 = hn::Vec<D32>;
using DW = hn::Repartition<int16_t, D32>;
using VW = hn::Vec<DW>;
using DU = hn::RebindToUnsigned<D32>;

constexpr std::size_t N = hn::MaxLanes(D32());  // int32 lanes per vector
constexpr std::size_t GV = L / N;                // vectors per lane group
// The block: kTileRows x kTileGroups, partial sums in at most ~16 (16
// registers: SSE4, AVX2) or 16 of 32 registers (AVX-512), the rest for B's
// vectors and A's broadcasts.
constexpr std::size_t kTileGroups = GV == 1 ? 4 : GV == 2 ? 2 : 1;
constexpr std::size_t kTileRows = GV == 4 ? 2 : 4;

// c + s modulo 2^32 (uint32 addition: no signed overflow).
HWY_INLINE V32 WrapAdd(V32 c, V32 s) {
  const D32 d;
  const DU du;
  return hn::BitCast(d, hn::Add(hn::BitCast(du, c), hn::BitCast(du, s)));
}

// clamp(c + s) to the s32 range (the file's comment).
HWY_INLINE V32 SatAdd(V32 c, V32 s) {
  const D32 d;
  const V32 sum = WrapAdd(c, s);
  const auto overflow = hn::Lt(hn::And(hn::Xor(c, sum), hn::Xor(s, sum)), hn::Zero(d));
  const V32 bound = hn::Xor(hn::ShiftRight<31>(c), hn::Set(d, INT32_MAX));  // c >= 0: MAX; c < 0: MIN
  return hn::IfThenElse(overflow, bound, sum);
}

// A's pair at a (two int16) broadcast to every int32 lane, as int16 lanes;
// `mask` keeps one of the two.
HWY_INLINE VW PairOf(const int16_t* a, uint32_t mask = ~0u) {
  uint32_t pair;
  std::memcpy(&pair, a, 4);
  return hn::BitCast(DW(), hn::Set(D32(), static_cast<int32_t>(pair & mask)));
}

// a[2i]*b[2i] + a[2i+1]*b[2i+1] in int32 lane i (x86: one `pmaddwd`).
HWY_INLINE V32 PairSums(VW a, VW b) {
  const D32 d;
  V32 s1 = hn::Zero(d);
  const V32 s0 = hn::ReorderWidenMulAccumulate(d, a, b, hn::Zero(d), s1);
  return hn::RearrangeToOddPlusEven(s0, s1);
}

// Vector v (of G*GV) of B's pair of k at l: group v / GV, its lanes
// (v % GV)*N onwards.
HWY_INLINE const int16_t* BAt(const IntTile& t, std::size_t v, int l) {
  return t.b + (v / GV) * t.b_stride + static_cast<std::size_t>(l) * L + (v % GV) * 2 * N;
}

// The block at (row r0, group g0): R rows x G groups. Per chunk of k
// (satfinite: one instruction; wrap: kFlush products) the exact partial
// sums in registers, then added to acc (modulo 2^32, or clamped).
template <std::size_t R, std::size_t G>
HWY_NOINLINE void Block(const SimdParams& p, int step, int total, const IntTile& t, std::size_t r0, std::size_t g0) {
  const D32 d;
  constexpr std::size_t NV = G * GV;
  IntTile at = t;
  at.a = t.a + r0 * t.a_stride, at.b = t.b + g0 * t.b_stride, at.acc = t.acc + r0 * t.ldc + g0 * L;
  const int chunk = p.satfinite ? step : kFlush;
  for (int l0 = 0; l0 < total; l0 += chunk) {
    const int l1 = std::min(total, l0 + chunk);
    V32 s[R][NV];
    for (std::size_t r = 0; r < R; ++r)
      for (std::size_t v = 0; v < NV; ++v) s[r][v] = hn::Zero(d);
    for (int l = l0; l < l1; l += 2) {
      VW pa[R];
      for (std::size_t r = 0; r < R; ++r) pa[r] = PairOf(at.a + r * at.a_stride + l);
      for (std::size_t v = 0; v < NV; ++v) {
        const VW bv = hn::LoadU(DW(), BAt(at, v, l));
        for (std::size_t r = 0; r < R; ++r) s[r][v] = hn::Add(s[r][v], PairSums(pa[r], bv));
      }
    }
    for (std::size_t r = 0; r < R; ++r)
      for (std::size_t v = 0; v < NV; ++v) {
        int32_t* c = reinterpret_cast<int32_t*>(at.acc + r * at.ldc + v * N);
        const V32 sum = s[r][v];
        const V32 c0 = hn::LoadU(d, c);
        hn::StoreU(p.satfinite ? SatAdd(c0, sum) : WrapAdd(c0, sum), d, c);
      }
  }
}

// satfinite, sat_point = addition: one product at a time in k order, row
// r0 and group g0.
HWY_NOINLINE void SatEach(int total, const IntTile& t, std::size_t r0, std::size_t g0) {
  const D32 d;
  const int16_t* a = t.a + r0 * t.a_stride;
  int32_t* acc = reinterpret_cast<int32_t*>(t.acc + r0 * t.ldc + g0 * L);
  V32 c[GV];
  for (std::size_t v = 0; v < GV; ++v) c[v] = hn::LoadU(d, acc + v * N);
  for (int l = 0; l < total; l += 2) {
    const int16_t* bl = t.b + g0 * t.b_stride + static_cast<std::size_t>(l) * L;
    for (const uint32_t mask : {0x0000FFFFu, 0xFFFF0000u}) {
      const VW pa = PairOf(a + l, mask);
      for (std::size_t v = 0; v < GV; ++v) {
        c[v] = SatAdd(c[v], PairSums(pa, hn::LoadU(DW(), bl + 2 * v * N)));
      }
    }
  }
  for (std::size_t v = 0; v < GV; ++v) hn::StoreU(c[v], d, acc + v * N);
}

// Block<R', G'> for the block's actual rows r <= R and groups g <= G.
template <std::size_t R, std::size_t G>
HWY_INLINE void AnyBlock(std::size_t r, std::size_t g, const SimdParams& p, int step, int total, const IntTile& t,
                         std::size_t r0, std::size_t g0) {
  if constexpr (R > 1)
    if (r < R) return AnyBlock<R - 1, G>(r, g, p, step, total, t, r0, g0);
  if constexpr (G > 1)
    if (g < G) return AnyBlock<R, G - 1>(r, g, p, step, total, t, r0, g0);
  Block<R, G>(p, step, total, t, r0, g0);
}

// Groups outer, then k in slices of whole instructions (a slice of B's
// block of groups, 16 KiB at kKSlice, and of the rows, 8 KiB for 32 rows,
// stay in a 32 KiB L1 together), rows inner.
constexpr int kKSlice = 128;
void IntTileRun(const SimdParams& p, int step, int steps, const IntTile& t) {
  const int total = step * steps, slice = std::max(1, kKSlice / step) * step;
  const std::size_t rows = static_cast<std::size_t>(t.rows), groups = static_cast<std::size_t>(t.groups);
  for (std::size_t g0 = 0; g0 < groups; g0 += kTileGroups) {
    const std::size_t gn = std::min(kTileGroups, groups - g0);
    if (p.sat_each) {  // one row and group at a time, the whole run
      for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t g = g0; g < g0 + gn; ++g) SatEach(total, t, r, g);
      continue;
    }
    for (int l0 = 0; l0 < total; l0 += slice) {
      IntTile at = t;
      at.a = t.a + l0, at.b = t.b + static_cast<std::size_t>(l0) * L;
      for (std::size_t r0 = 0; r0 < rows; r0 += kTileRows)
        AnyBlock<kTileRows, kTileGroups>(std::min(kTileRows, rows - r0), gn, p, step, std::min(slice, total - l0), at,
                                         r0, g0);
    }
  }
}
#endif

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace mmaemu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mmaemu {
namespace kernels {

HWY_EXPORT(IntTileRun);

namespace {
void check_step(int step) {
  if (step <= 0 || step % 2 != 0)
    throw std::invalid_argument("integer kernel: step " + std::to_string(step) + " is not even");
}
}  // namespace

int simd_integer_run16(const SimdParams& p, StepRun run, RowPanel a, LanePanel b, uint32_t* acc) {
  check_rows(a);
  check_step(run.step);
  IntTile t;
  t.a = a.i16, t.a_stride = a.stride, t.b = b.i16, t.acc = acc, t.ldc = kSimdLanes, t.rows = a.rows, t.groups = 1;
  if (run.steps > 0) HWY_DYNAMIC_DISPATCH(IntTileRun)(p, run.step, run.steps, t);
  return run.steps;
}

void simd_integer_tile(const SimdParams& p, StepRun run, const IntTile& t) {
  check_step(run.step);
  if (t.rows < 0 || t.groups < 0)
    throw std::invalid_argument("integer tile: " + std::to_string(t.rows) + " rows, " + std::to_string(t.groups) +
                                " groups");
  if (run.steps > 0 && t.rows > 0 && t.groups > 0) HWY_DYNAMIC_DISPATCH(IntTileRun)(p, run.step, run.steps, t);
}

}  // namespace kernels
}  // namespace mmaemu
#endif  // HWY_ONCE
