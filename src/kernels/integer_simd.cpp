// SPDX-License-Identifier: BSD-3-Clause
// The SIMD step kernel of the integer units (docs/models.md §11, "Integer
// units"; the reference is src/ref/integer.cpp), 16 output columns at a
// time, in the one StepKernel prototype (kernels/simd.h).
//
// Operands are the codes' values as int16 (s8/u8/s4/u4 all fit): A's row
// k contiguous (RowPanel::i16), B's 16 lanes in pairs along k
// (LanePanel::i16: element l of lane j at [(l/2)*32 + 2j + l%2]), so that
// one widening multiply-add of int16 pairs (hn::ReorderWidenMulAccumulate:
// x86 `pmaddwd`) gives a[l]*b[l][j] + a[l+1]*b[l+1][j] in int32 lane j.
// Every such pair sum is exact: |a*b| <= 255*255 < 2^16.
//
// Partial sums S of at most kFlush products stay below 2^30 in magnitude:
// exact in int32, never overflowing (no signed wrap anywhere). Then, per
// overflow rule (PTX ISA, "Warp Level Matrix Multiply-Accumulate
// Instructions", mma, "Integer operations"):
//   wrap: acc = acc + S modulo 2^32, added as uint32. Addition modulo 2^32
//     is associative and commutative, so summing the run's products in
//     any grouping gives the bits of the row's chain order (ref::step's one
//     instruction after another): the kernel sums a whole run at once.
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
// Instructions per multiply-add (AVX-512, 16 lanes in one vector, wrap and
// satfinite/instruction): per pair of k and A row, one vpmaddwd (two
// products in each of the 16 lanes) and one vpaddd, a broadcast of A's
// pair, and B's vector loaded once for both rows of a two-row call: about
// 3.5 instructions per 32 products (~0.1 per product). AVX2 and SSE4 need
// two and four vectors for the 16 lanes. sat_point = addition: two
// multiply-adds and two clamps (~5 instructions) per pair and vector.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/integer_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

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
// rules (the reference's arithmetic).
void IntRun16(const SimdParams& p, int step, int steps, int rows, std::size_t stride, const int16_t* HWY_RESTRICT a,
              const int16_t* HWY_RESTRICT b, uint32_t* HWY_RESTRICT acc) {
  for (int r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < L; ++j) {
      int64_t t = static_cast<int32_t>(acc[r * L + j]);
      for (int s = 0; s < steps; ++s) {
        int64_t sum = 0;
        for (int i = s * step; i < (s + 1) * step; ++i) {
          const int64_t prod = int64_t{a[r * stride + i]} * b[(i / 2) * 2 * L + 2 * j + i % 2];
          if (p.sat_each) t = std::clamp<int64_t>(t + prod, INT32_MIN, INT32_MAX);
          else sum += prod;
        }
        if (!p.sat_each) t = p.satfinite ? std::clamp<int64_t>(t + sum, INT32_MIN, INT32_MAX)
                                         : static_cast<int32_t>(static_cast<uint32_t>(t + sum));
      }
      acc[r * L + j] = static_cast<uint32_t>(static_cast<int32_t>(t));
    }
}
#else
using D32 = hn::ScalableTag<int32_t>;
using V32 = hn::Vec<D32>;
using DW = hn::Repartition<int16_t, D32>;
using VW = hn::Vec<DW>;
using DU = hn::RebindToUnsigned<D32>;

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

// Elements [l0, l1) (l0, l1 even) of R rows (row r at a + r*stride)
// against the lanes, summed exactly into s0/s1 (their lane-wise sum,
// RearrangeToOddPlusEven, is the per-lane sum of products). Each B vector
// is loaded once for the R rows.
template <std::size_t R, std::size_t NV>
HWY_INLINE void Dot(const int16_t* HWY_RESTRICT a, std::size_t stride, const int16_t* HWY_RESTRICT b, int l0, int l1,
                    V32 (*s0)[NV], V32 (*s1)[NV]) {
  const D32 d;
  constexpr std::size_t N = hn::MaxLanes(d);
  for (int l = l0; l < l1; l += 2) {
    VW pa[R];
    for (std::size_t r = 0; r < R; ++r) pa[r] = PairOf(a + r * stride + l);
    const int16_t* bl = b + static_cast<std::size_t>(l) * L;
    for (std::size_t v = 0; v < NV; ++v) {
      const VW bv = hn::LoadU(DW(), bl + 2 * v * N);
      for (std::size_t r = 0; r < R; ++r) s0[r][v] = hn::ReorderWidenMulAccumulate(d, pa[r], bv, s0[r][v], s1[r][v]);
    }
  }
}

// R rows' chains (acc: row r's 16 lanes at bits + 16*r).
template <std::size_t R>
HWY_INLINE void Rows(const SimdParams& p, int step, int steps, std::size_t stride, const int16_t* HWY_RESTRICT a,
                     const int16_t* HWY_RESTRICT b, int32_t* HWY_RESTRICT bits) {
  const D32 d;
  constexpr std::size_t N = hn::MaxLanes(D32());
  constexpr std::size_t NV = L / N;
  const int total = step * steps;
  V32 c[R][NV];
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t v = 0; v < NV; ++v) c[r][v] = hn::LoadU(d, bits + r * L + v * N);
  if (p.sat_each) {
    // One product at a time, in k order.
    for (int l = 0; l < total; l += 2) {
      const int16_t* bl = b + static_cast<std::size_t>(l) * L;
      for (const uint32_t mask : {0x0000FFFFu, 0xFFFF0000u})
        for (std::size_t r = 0; r < R; ++r) {
          const VW pa = PairOf(a + r * stride + l, mask);
          for (std::size_t v = 0; v < NV; ++v) {
            V32 s1 = hn::Zero(d);
            const V32 s0 = hn::ReorderWidenMulAccumulate(d, pa, hn::LoadU(DW(), bl + 2 * v * N), hn::Zero(d), s1);
            c[r][v] = SatAdd(c[r][v], hn::RearrangeToOddPlusEven(s0, s1));
          }
        }
    }
  } else {
    // satfinite: one exact sum per instruction, then one clamp. Wrap: the
    // whole run, kFlush products per exact partial sum.
    const int chunk = p.satfinite ? step : kFlush;
    for (int l0 = 0; l0 < total; l0 += chunk) {
      V32 s0[R][NV], s1[R][NV];
      for (std::size_t r = 0; r < R; ++r)
        for (std::size_t v = 0; v < NV; ++v) s0[r][v] = s1[r][v] = hn::Zero(d);
      Dot<R, NV>(a, stride, b, l0, std::min(total, l0 + chunk), s0, s1);
      for (std::size_t r = 0; r < R; ++r)
        for (std::size_t v = 0; v < NV; ++v) {
          const V32 sum = hn::RearrangeToOddPlusEven(s0[r][v], s1[r][v]);
          c[r][v] = p.satfinite ? SatAdd(c[r][v], sum) : WrapAdd(c[r][v], sum);
        }
    }
  }
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t v = 0; v < NV; ++v) hn::StoreU(c[r][v], d, bits + r * L + v * N);
}

void IntRun16(const SimdParams& p, int step, int steps, int rows, std::size_t stride, const int16_t* HWY_RESTRICT a,
              const int16_t* HWY_RESTRICT b, uint32_t* HWY_RESTRICT acc) {
  int32_t* bits = reinterpret_cast<int32_t*>(acc);
  if (rows == 2) Rows<2>(p, step, steps, stride, a, b, bits);
  else Rows<1>(p, step, steps, stride, a, b, bits);
}
#endif

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace mmaemu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mmaemu {
namespace kernels {

HWY_EXPORT(IntRun16);

int simd_integer_run16(const SimdParams& p, StepRun run, RowPanel a, LanePanel b, uint32_t* acc) {
  check_rows(a);
  if (run.step <= 0 || run.step % 2 != 0)
    throw std::invalid_argument("integer step kernel: step " + std::to_string(run.step) + " is not even");
  if (run.steps > 0) HWY_DYNAMIC_DISPATCH(IntRun16)(p, run.step, run.steps, a.rows, a.stride, a.i16, b.i16, acc);
  return run.steps;
}

}  // namespace kernels
}  // namespace mmaemu
#endif  // HWY_ONCE
