// SPDX-License-Identifier: BSD-3-Clause
// SIMD kernel for the CDNA1 exact path (Accumulation::exact: MI100 fp16 and
// bf16): the products of a block and c summed exactly, one RNE rounding to
// fp32 (docs/models.md §2.8, exact; exact_step() in src/ref/reference.cpp). 16 output
// columns at a time, each lane one output element.
//
// The exact sum is formed in binary64 whenever that is provably exact, from
// bounds on the operands' exponents known at packing time:
//
//   x (an input: at most man+1 significant bits, leading bit 2^e):
//       |x| < 2^(e+1),  x a multiple of 2^(e-man)
//   p = a*b:  |p| < 2^(ea+eb+2),  p a multiple of 2^(ea+eb-2man)
//   c (fp32): |c| < 2^(ec+1),     c a multiple of 2^Lc  (Lc = ec-23, or -149)
//
// With lo = min ea + min eb and hi = max ea + max eb over the block's nonzero
// elements (A's row, B's column), and L = min(lo - 2man, Lc), every term is a
// multiple of 2^L, and if
//
//   (a) hi + cb - 50 <= lo - 2man     (cb = ceil(log2 step): step products)
//   (b) |c| < 2^(lo - 2man + 52)
//   (c) c = 0, or hi + cb - 50 <= Lc   (implied by |c| >= 2^(hi + cb - 27))
//
// then sum |terms| < step * 2^(hi+2) + |c| <= 2^(L+52) + 2^(L+52) = 2^(L+53):
// every partial sum is an integer below 2^53 times 2^L, i.e. a double, so
// the products and c summed in any order (here (a0 b0 + a1 b1) + (a2 b2 +
// a3 b3), then c; each a*b and each MulAdd is exact too) give the exact sum
// S, and one double -> float conversion is the RNE rounding of S (subnormal
// results included: MXCSR is round-to-nearest without FTZ/DAZ, the driver's
// FpEnvGuard sees to it).
//
//      2^(L+53)                      2^(hi+2)         2^L
//         |                              |              |
//         v                              v              v
//   [ 0 0 0 ...  c c c c c c c c c c c c c c c c c c c c c c c c ]   c: 24 bits
//   [ 0 0 0 ... 0 0 0 0 0 0 0 0 0 p p p p p p p p p p p p p p p p ]   products
//   <------------------------- 53 bits --------------------------->
//
// The tests are products of powers of two made at packing time (exact, no
// exponent arithmetic in the kernel):
//
//   T_hi = lo_a * lo_b = 2^(lo - 2man + 52)      lo_x = 2^(min e - man + 26)
//   T_lo = hi_a * hi_b = 2^(hi + cb - 27)        hi_a = 2^(max e_a),
//                                                hi_b = 2^(max e_b + cb - 27)
//   (a) T_lo * 2^29 <= T_hi   (b) |c| < T_hi   (c) c = 0 or |c| >= T_lo
//
// lo_a and lo_b are clamped to 2^63 (which only makes (a) and (b) stricter),
// so T_hi <= 2^126 and |S| < step * 2^(hi+2) + |c| <= 2 T_hi <= 2^127: the
// conversion never overflows (some targets' conversions would saturate).
// A block with no nonzero element on one side has bounds 2^63 and
// 2^-(400 + ...): its products are zero and the tests pass. A NaN or Inf c
// fails (b): such lanes, and the rare lanes whose exponents are spread too
// far, go back to the caller (`bad`), which runs the scalar exact kernel.
// Blocks with NaN/Inf inputs never come here. An exact zero sum is +0 as in
// the reference: (P + 0.0) + c is never -0 under RNE.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/exact_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>

#include "kernels/simd.h"

HWY_BEFORE_NAMESPACE();
namespace mmaemu {
namespace kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One block for all 16 lanes; kLen > 0: a block of exactly kLen products.
// Returns true if every lane passed (c updated); otherwise c is untouched,
// `next` holds the results and `bad` the failing lanes.
template <int kLen>
HWY_INLINE bool ExactBlock16(int len, const double* HWY_RESTRICT a, double alo, double ahi,
                             const double* HWY_RESTRICT b, const double* HWY_RESTRICT blo,
                             const double* HWY_RESTRICT bhi, hn::Vec<hn::ScalableTag<double>>* c, double* next,
                             uint32_t* bad) {
  const hn::ScalableTag<double> d;
  const hn::Rebind<float, decltype(d)> df;
  using V = hn::Vec<decltype(d)>;
  constexpr std::size_t N = hn::MaxLanes(d);
  constexpr std::size_t NV = kSimdLanes / N;
  const V zero = hn::Zero(d), two29 = hn::Set(d, 0x1p29);
  const V Alo = hn::Set(d, alo), Ahi = hn::Set(d, ahi);
  const int n = kLen > 0 ? kLen : len;
  (void)n;
  V res[NV];
  using M = decltype(hn::Eq(zero, zero));
  M oks[NV];
  M ok_all = hn::Eq(zero, zero);
#pragma GCC unroll 16
  for (std::size_t v = 0; v < NV; ++v) {
    const V Thi = hn::Mul(Alo, hn::LoadU(d, blo + v * N));
    const V Tlo = hn::Mul(Ahi, hn::LoadU(d, bhi + v * N));
    const V ac = hn::Abs(c[v]);
    M ok = hn::And(hn::Lt(ac, Thi), hn::Le(hn::Mul(Tlo, two29), Thi));
    ok = hn::And(ok, hn::Or(hn::Ge(ac, Tlo), hn::Eq(c[v], zero)));
    // The products in two independent pairs, then c: the chain from one
    // block's c to the next is two additions and the conversions.
    auto B = [&](int l) { return hn::LoadU(d, b + l * kSimdLanes + v * N); };
    V P;
    if (kLen == 4) {
      const V p01 = hn::MulAdd(hn::Set(d, a[1]), B(1), hn::Mul(hn::Set(d, a[0]), B(0)));
      const V p23 = hn::MulAdd(hn::Set(d, a[3]), B(3), hn::Mul(hn::Set(d, a[2]), B(2)));
      P = hn::Add(p01, p23);
    } else if (kLen == 2) {
      P = hn::MulAdd(hn::Set(d, a[1]), B(1), hn::Mul(hn::Set(d, a[0]), B(0)));
    } else {
      P = zero;
      for (int l = 0; l < n; ++l) P = hn::MulAdd(hn::Set(d, a[l]), B(l), P);
    }
    // (P + 0) + c: an exact zero sum is +0, never -0 (RNE).
    const V sum = hn::Add(hn::Add(P, zero), c[v]);
    res[v] = hn::PromoteTo(d, hn::DemoteTo(df, sum));
    oks[v] = ok;
    ok_all = hn::And(ok_all, ok);
  }
  if (HWY_LIKELY(hn::AllTrue(d, ok_all))) {
#pragma GCC unroll 16
    for (std::size_t v = 0; v < NV; ++v) c[v] = res[v];
    return true;
  }
  uint32_t mask = 0;
  for (std::size_t v = 0; v < NV; ++v) {
    hn::StoreU(res[v], d, next + v * N);
    HWY_ALIGN double okv[N];
    hn::Store(hn::VecFromMask(d, oks[v]), d, okv);
    for (std::size_t j = 0; j < N; ++j)
      if (std::bit_cast<uint64_t>(okv[j]) == 0) mask |= 1u << (v * N + j);
  }
  *bad = mask;
  return false;
}

int ExactRun16(int steps, int step, int last_len, const double* av, const double* alo, const double* ahi,
               const double* bv, const double* blo, const double* bhi, double* acc, double* next, uint32_t* bad) {
  const hn::ScalableTag<double> d;
  using V = hn::Vec<decltype(d)>;
  constexpr std::size_t N = hn::MaxLanes(d);
  constexpr std::size_t NV = kSimdLanes / N;
  V c[NV];
  for (std::size_t v = 0; v < NV; ++v) c[v] = hn::LoadU(d, acc + v * N);
  int s = 0;
  for (; s < steps; ++s) {
    const int len = s + 1 == steps ? last_len : step;
    const std::size_t a = static_cast<std::size_t>(s) * step, q = static_cast<std::size_t>(s) * kSimdLanes;
    const double* bb = bv + a * kSimdLanes;
    bool ok;
    if (len == 4) ok = ExactBlock16<4>(4, av + a, alo[s], ahi[s], bb, blo + q, bhi + q, c, next, bad);
    else if (len == 2) ok = ExactBlock16<2>(2, av + a, alo[s], ahi[s], bb, blo + q, bhi + q, c, next, bad);
    else ok = ExactBlock16<0>(len, av + a, alo[s], ahi[s], bb, blo + q, bhi + q, c, next, bad);
    if (!ok) break;
  }
  for (std::size_t v = 0; v < NV; ++v) hn::StoreU(c[v], d, acc + v * N);
  return s;
}

// ---------------------------------------------------------------- packing

#if HWY_TARGET != HWY_SCALAR

using DU32 = hn::ScalableTag<uint32_t>;
using VU32 = hn::Vec<DU32>;

// Lanes [0, valid) of src (the rest zeros): AVX2 and AVX-512 masked loads.
HWY_INLINE VU32 LoadLanes(const uint32_t* HWY_RESTRICT src, std::size_t valid) {
  const DU32 du;
  if (valid == hn::Lanes(du)) return hn::LoadU(du, src);
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
  return hn::MaskedLoad(hn::FirstN(du, valid), du, src);
#else
  HWY_ALIGN uint32_t buf[kSimdLanes] = {};
  for (std::size_t q = 0; q < valid; ++q) buf[q] = src[q];
  return hn::Load(du, buf);
#endif
}

// fp32 patterns rounded to the unit's fp16 (or bf16) with RNE and widened
// back, exactly: f32_to_f16_rne() then fp16_to_fp32() (f32_to_bf16_rne()
// << 16) of formats/fast_round.h, lane by lane; `special` where the unit
// value is Inf or NaN or the stored pattern is a NaN (the caller packs those
// elements by the scalar path). Host in round-to-nearest (FpEnvGuard).
HWY_INLINE VU32 RoundWiden(bool bf16, VU32 b, hn::Mask<DU32>& special) {
  const DU32 du;
  const hn::RebindToSigned<DU32> di;
  const hn::RebindToFloat<DU32> df;
  const VU32 a = hn::And(b, hn::Set(du, 0x7FFFFFFFu));
  const auto ai = hn::BitCast(di, a);
  const auto nan = hn::RebindMask(du, hn::Gt(ai, hn::Set(di, 0x7F800000)));
  VU32 w;
  if (bf16) {
    w = hn::ShiftLeft<16>(hn::ShiftRight<16>(hn::Add(b, hn::Add(hn::Set(du, 0x7FFFu), hn::And(hn::ShiftRight<16>(b), hn::Set(du, 1u))))));
  } else {
    const VU32 sign = hn::And(b, hn::Set(du, 0x80000000u));
    // Normal fp16: the fp32 bits rounded at bit 13 (a carry moves into the
    // exponent); from 2^16 on: Inf (65520 and up round there too).
    const VU32 rnd = hn::And(hn::Add(hn::Add(a, hn::Set(du, 0xFFFu)), hn::And(hn::ShiftRight<13>(a), hn::Set(du, 1u))),
                             hn::Set(du, 0xFFFFE000u));
    const auto big = hn::RebindMask(du, hn::Gt(hn::BitCast(di, rnd), hn::Set(di, 0x477FE000)));
    // Below 2^-14: the subnormal grid by one float addition at 2^-1.
    const VU32 magic = hn::Set(du, 0x3F000000u);
    const auto sub = hn::BitCast(du, hn::Sub(hn::Add(hn::BitCast(df, a), hn::BitCast(df, magic)), hn::BitCast(df, magic)));
    const auto small = hn::RebindMask(du, hn::Lt(ai, hn::Set(di, static_cast<int32_t>(113u << 23))));
    w = hn::Or(sign, hn::IfThenElse(small, sub, hn::IfThenElse(big, hn::Set(du, 0x7F800000u), rnd)));
  }
  const VU32 e = hn::And(w, hn::Set(du, 0x7F800000u));
  special = hn::Or(nan, hn::Eq(e, hn::Set(du, 0x7F800000u)));
  // bf16 subnormals are fp32 subnormals: their exponent is not w's field.
  if (bf16) special = hn::Or(special, hn::AndNot(hn::Eq(hn::And(w, hn::Set(du, 0x7FFFFFFFu)), hn::Zero(du)),
                                                hn::Eq(e, hn::Zero(du))));
  return w;
}

std::size_t ExactPackLanes(bool bf16, bool is_a, const uint32_t* src, std::ptrdiff_t k_stride,
                           std::ptrdiff_t lane_stride, std::size_t lanes, std::size_t s0, std::size_t s1,
                           std::size_t step, std::size_t kc, int man, double* val, double* lo, double* hi,
                           std::size_t* todo) {
  const DU32 du;
  const hn::RebindToSigned<DU32> di;
  const hn::RebindToFloat<DU32> df;
  const hn::Half<decltype(df)> dfh;
  const hn::Rebind<double, decltype(dfh)> dd;
  const hn::Half<decltype(di)> dih;
  const hn::Rebind<int64_t, decltype(dih)> d64;
  const std::size_t N = hn::Lanes(du), H = hn::Lanes(dd);
  const int cb = std::bit_width(static_cast<unsigned>(step > 1 ? step - 1 : 0));  // ceil(log2 step)
  // exact_bounds(): 2^min(lo_e - man + 26, 63) and 2^hi_e (A), 2^(hi_e + cb - 27) (B).
  const int hi_shift = is_a ? 0 : cb - 27;
  auto store_pow2 = [&](hn::Vec<decltype(di)> e, double* dst) {
    const auto bits_lo = hn::ShiftLeft<52>(hn::Add(hn::PromoteTo(d64, hn::LowerHalf(dih, e)), hn::Set(d64, 1023)));
    const auto bits_hi = hn::ShiftLeft<52>(hn::Add(hn::PromoteTo(d64, hn::UpperHalf(dih, e)), hn::Set(d64, 1023)));
    hn::StoreU(hn::BitCast(dd, bits_lo), dd, dst);
    hn::StoreU(hn::BitCast(dd, bits_hi), dd, dst + H);
  };
  std::size_t count = 0;
  HWY_ALIGN uint32_t gathered[kSimdLanes];
  for (std::size_t q0 = 0; q0 < lanes; q0 += N) {
    const std::size_t valid = lanes - q0 < N ? lanes - q0 : N;
    for (std::size_t s = s0; s < s1; ++s) {
      auto lo_e = hn::Set(di, kExactNone), hi_e = hn::Set(di, -kExactNone);
      auto special = hn::FirstN(du, 0);
      for (std::size_t l = s * step; l < (s + 1) * step; ++l) {
        double* v = val + l * kSimdLanes + q0;
        if (l >= kc) {
          hn::StoreU(hn::Zero(dd), dd, v);
          hn::StoreU(hn::Zero(dd), dd, v + H);
          continue;
        }
        const uint32_t* x = src + static_cast<std::ptrdiff_t>(l) * k_stride + static_cast<std::ptrdiff_t>(q0) * lane_stride;
        VU32 b;
        if (lane_stride == 1) {
          b = LoadLanes(x, valid);
        } else {
          for (std::size_t q = 0; q < N; ++q) gathered[q] = q < valid ? x[static_cast<std::ptrdiff_t>(q) * lane_stride] : 0u;
          b = hn::Load(du, gathered);
        }
        hn::Mask<DU32> sp;
        const VU32 w = RoundWiden(bf16, b, sp);
        special = hn::Or(special, sp);
        const auto f = hn::BitCast(df, w);
        hn::StoreU(hn::PromoteTo(dd, hn::LowerHalf(dfh, f)), dd, v);
        hn::StoreU(hn::PromoteTo(dd, hn::UpperHalf(dfh, f)), dd, v + H);
        // floor(log2 |x|) of the nonzero finite values (w is normal in fp32).
        const auto e = hn::Sub(hn::BitCast(di, hn::ShiftRight<23>(hn::And(w, hn::Set(du, 0x7F800000u)))), hn::Set(di, 127));
        const auto use = hn::RebindMask(di, hn::AndNot(sp, hn::Ne(hn::And(w, hn::Set(du, 0x7FFFFFFFu)), hn::Zero(du))));
        lo_e = hn::IfThenElse(use, hn::Min(lo_e, e), lo_e);
        hi_e = hn::IfThenElse(use, hn::Max(hi_e, e), hi_e);
      }
      store_pow2(hn::Min(hn::Add(lo_e, hn::Set(di, 26 - man)), hn::Set(di, 63)), lo + s * kSimdLanes + q0);
      store_pow2(hn::Add(hi_e, hn::Set(di, hi_shift)), hi + s * kSimdLanes + q0);
      if (!hn::AllFalse(du, special)) {
        HWY_ALIGN uint32_t flags[kSimdLanes];
        hn::Store(hn::VecFromMask(du, special), du, flags);
        for (std::size_t q = 0; q < valid; ++q)
          if (flags[q]) todo[count++] = s * kSimdLanes + q0 + q;
      }
    }
  }
  return count;
}

void ExactConvertRow(bool bf16, const uint32_t* src, std::size_t n, double* val, int32_t* elo, int32_t* ehi,
                     uint8_t* special) {
  const DU32 du;
  const hn::RebindToSigned<DU32> di;
  const hn::RebindToFloat<DU32> df;
  const hn::Half<decltype(df)> dfh;
  const hn::Rebind<double, decltype(dfh)> dd;
  const std::size_t N = hn::Lanes(du), H = hn::Lanes(dd);
  HWY_ALIGN double vbuf[kSimdLanes];
  HWY_ALIGN int32_t lbuf[kSimdLanes], hbuf[kSimdLanes];
  HWY_ALIGN uint32_t fbuf[kSimdLanes];
  for (std::size_t i = 0; i < n; i += N) {
    const std::size_t valid = n - i < N ? n - i : N;
    hn::Mask<DU32> sp;
    const VU32 w = RoundWiden(bf16, LoadLanes(src + i, valid), sp);
    const auto f = hn::BitCast(df, w);
    const auto e = hn::Sub(hn::BitCast(di, hn::ShiftRight<23>(hn::And(w, hn::Set(du, 0x7F800000u)))), hn::Set(di, 127));
    const auto use = hn::RebindMask(di, hn::AndNot(sp, hn::Ne(hn::And(w, hn::Set(du, 0x7FFFFFFFu)), hn::Zero(du))));
    const auto lo = hn::IfThenElse(use, e, hn::Set(di, kExactNone)), hi = hn::IfThenElse(use, e, hn::Set(di, -kExactNone));
    const bool full = valid == N;
    double* v = full ? val + i : vbuf;
    hn::StoreU(hn::PromoteTo(dd, hn::LowerHalf(dfh, f)), dd, v);
    hn::StoreU(hn::PromoteTo(dd, hn::UpperHalf(dfh, f)), dd, v + H);
    hn::StoreU(lo, di, full ? elo + i : lbuf);
    hn::StoreU(hi, di, full ? ehi + i : hbuf);
    hn::Store(hn::VecFromMask(du, sp), du, fbuf);
    for (std::size_t q = 0; q < valid; ++q) special[i + q] = fbuf[q] != 0;
    if (!full)
      for (std::size_t q = 0; q < valid; ++q) val[i + q] = vbuf[q], elo[i + q] = lbuf[q], ehi[i + q] = hbuf[q];
  }
}

#else  // HWY_SCALAR: every block to the caller's scalar path

std::size_t ExactPackLanes(bool, bool, const uint32_t*, std::ptrdiff_t, std::ptrdiff_t, std::size_t lanes,
                           std::size_t s0, std::size_t s1, std::size_t, std::size_t, int, double*, double*, double*,
                           std::size_t* todo) {
  std::size_t count = 0;
  for (std::size_t s = s0; s < s1; ++s)
    for (std::size_t q = 0; q < lanes; ++q) todo[count++] = s * kSimdLanes + q;
  return count;
}

void ExactConvertRow(bool, const uint32_t*, std::size_t n, double*, int32_t*, int32_t*, uint8_t* special) {
  for (std::size_t i = 0; i < n; ++i) special[i] = 1;
}

#endif  // HWY_TARGET != HWY_SCALAR

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace mmaemu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mmaemu {
namespace kernels {

HWY_EXPORT(ExactRun16);

int simd_exact_run16(StepRun run, ExactRowPanel a, ExactLanePanel b, double* acc, double* next, uint32_t* bad) {
  return HWY_DYNAMIC_DISPATCH(ExactRun16)(run.steps, run.step, run.last_len, a.val, a.lo, a.hi, b.val, b.lo, b.hi,
                                          acc, next, bad);
}

HWY_EXPORT(ExactPackLanes);

std::size_t exact_pack_lanes(const ExactPackSource& src, std::size_t lanes, std::size_t s0, std::size_t s1,
                             std::size_t step, std::size_t kc, int man, double* val, double* lo, double* hi,
                             std::size_t* todo) {
  return HWY_DYNAMIC_DISPATCH(ExactPackLanes)(src.bf16, src.is_a, src.data, src.k_stride, src.lane_stride, lanes, s0,
                                              s1, step, kc, man, val, lo, hi, todo);
}

HWY_EXPORT(ExactConvertRow);

void exact_convert_row(const uint32_t* src, std::size_t n, bool bf16, double* val, int32_t* elo, int32_t* ehi,
                       uint8_t* special) {
  HWY_DYNAMIC_DISPATCH(ExactConvertRow)(bf16, src, n, val, elo, ehi, special);
}

void exact_bounds(bool is_a, int lo_e, int hi_e, int man, int step, double& lo, double& hi) {
  const int cb = std::bit_width(static_cast<unsigned>(step > 1 ? step - 1 : 0));  // ceil(log2 step)
  // Exponents within [-430, 63] (kExactNone = 400): normal doubles.
  auto pow2 = [](int e) { return std::bit_cast<double>(static_cast<uint64_t>(e + 1023) << 52); };
  lo = pow2(std::min(lo_e - man + 26, 63));
  hi = pow2(is_a ? hi_e : hi_e + cb - 27);
}

}  // namespace kernels
}  // namespace mmaemu
#endif  // HWY_ONCE
