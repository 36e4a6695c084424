// SPDX-License-Identifier: BSD-3-Clause
// SIMD block quantisation (kernels/quantise_simd.h). Per block: the largest
// |v| from the fp32 bits (integer maximum of the magnitudes; a NaN or Inf
// block goes to the scalar quantiser), the scale by the scalar quantiser's
// own step (mx_shared_exponent, nvfp4_block_scale), then every element:
//
//   OCP MX: y = |v| * 2^-X in fp32, exact (a power of two; a y below
//     fp32's normals is below half the element's least subnormal and
//     rounds to 0 both ways). y at or above the element's least normal:
//     RNE of the bits to `man` fraction bits (the carry runs into the
//     exponent), rebiased; below: RNE(y * 2^(man - emin)) counts the
//     subnormal steps (the next normal's code when it rounds up), by the
//     host's round to nearest (y * 2^(man - emin) + 2^23). Then
//     min(code, top) saturates, as encode_element() does.
//   NVFP4: num = |v| * encode exactly in binary64 and, as encode_element()
//     decides, the code is the number of midpoints m between consecutive
//     e2m1 values with num > m * scale, or num = m * scale where the lower
//     value's code is odd (ties to even). m * scale has at most 3 + 4
//     significant bits: every product and comparison is exact.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/quantise_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>

#include "formats/block_quantise.h"
#include "kernels/quantise_simd.h"

#ifndef MMAEMU_QUANTISE_SIMD_PARAMS
#define MMAEMU_QUANTISE_SIMD_PARAMS
namespace mmaemu::kernels::detail {

// An MX element format's constants for the per-element steps above.
struct MxElem {
  int shift;          // 23 - man
  uint32_t rebias;    // (127 - bias) << man
  uint32_t normal;    // the fp32 bits of 2^emin, the least normal
  uint32_t top;       // the largest finite code
  int sign_shift;     // width - 1
  float sub_mul;      // 2^(man - emin)
};

// NVFP4's midpoints between consecutive e2m1 values (7 of them).
constexpr int kMids = 7;

}  // namespace mmaemu::kernels::detail
#endif

HWY_BEFORE_NAMESPACE();
namespace mmaemu {
namespace kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DU = hn::ScalableTag<uint32_t>;
using DI = hn::RebindToSigned<DU>;
using DF = hn::RebindToFloat<DU>;
using D8 = hn::Rebind<uint8_t, DU>;
using VU = hn::Vec<DU>;
using DD = hn::ScalableTag<double>;
using DU64 = hn::RebindToUnsigned<DD>;
using DFH = hn::Rebind<float, DD>;
using D8D = hn::Rebind<uint8_t, DD>;

// The largest fp32 magnitude bits of v[0, len) (len a multiple of the lanes).
HWY_INLINE uint32_t AbsMaxBits(const float* HWY_RESTRICT v, std::size_t len) {
  const DU du;
  const DF df;
  const std::size_t N = hn::Lanes(du);
  VU m = hn::Zero(du);
  for (std::size_t i = 0; i < len; i += N)
    m = hn::Max(m, hn::And(hn::BitCast(du, hn::LoadU(df, v + i)), hn::Set(du, 0x7FFFFFFFu)));
  return hn::GetLane(hn::MaxOfLanes(du, m));
}

// Whether the block [b0, b0 + len) goes the SIMD way: whole vectors of
// both lane widths, all values finite (amax_bits: its largest magnitude).
HWY_INLINE bool SimdBlock(const float* HWY_RESTRICT v, std::size_t len, uint32_t& amax_bits) {
  if (len == 0 || len % hn::Lanes(DU()) != 0 || len % hn::Lanes(DD()) != 0) return false;
  amax_bits = AbsMaxBits(v, len);
  return amax_bits < 0x7F800000u;
}

HWY_INLINE void MxElements(const detail::MxElem& e, float f, const float* HWY_RESTRICT v, std::size_t len,
                           uint8_t* HWY_RESTRICT codes) {
  const DU du;
  const DI di;
  const DF df;
  const D8 d8;
  const std::size_t N = hn::Lanes(du);
  const VU half = hn::Set(du, (1u << (e.shift - 1)) - 1);
  for (std::size_t i = 0; i < len; i += N) {
    const VU b = hn::BitCast(du, hn::LoadU(df, v + i));
    const auto y = hn::Mul(hn::Abs(hn::BitCast(df, b)), hn::Set(df, f));
    const VU yb = hn::BitCast(du, y);
    const VU odd = hn::And(hn::ShiftRightSame(yb, e.shift), hn::Set(du, 1u));
    const VU normal = hn::Sub(hn::ShiftRightSame(hn::Add(yb, hn::Add(half, odd)), e.shift), hn::Set(du, e.rebias));
    // Rounded to an integer by adding 2^23 (whose ulp is 1); clamped first,
    // as a normal lane's product may be large.
    const auto steps = hn::Min(hn::Mul(y, hn::Set(df, e.sub_mul)), hn::Set(df, 256.0f));
    const VU sub = hn::Sub(hn::BitCast(du, hn::Add(steps, hn::Set(df, 8388608.0f))), hn::Set(du, 0x4B000000u));
    const auto is_normal = hn::RebindMask(du, hn::Gt(hn::BitCast(di, yb), hn::Set(di, static_cast<int32_t>(e.normal) - 1)));
    const VU code = hn::Min(hn::IfThenElse(is_normal, normal, sub), hn::Set(du, e.top));
    const VU sign = hn::ShiftLeftSame(hn::ShiftRight<31>(b), e.sign_shift);
    hn::StoreU(hn::TruncateTo(d8, hn::Or(code, sign)), d8, codes + i);
  }
}

void MxLine(const detail::MxElem& e, Fmt elem, std::size_t block, const float* HWY_RESTRICT v, std::size_t n,
            uint8_t* HWY_RESTRICT codes, uint8_t* HWY_RESTRICT scales) {
  for (std::size_t b0 = 0, t = 0; b0 < n; b0 += block, ++t) {
    const std::size_t len = n - b0 < block ? n - b0 : block;
    uint32_t amax = 0;
    if (!SimdBlock(v + b0, len, amax)) {
      quantise_mx(elem, block, v + b0, len, codes + b0, scales + t);
      continue;
    }
    const int X = mx_shared_exponent(elem, std::bit_cast<float>(amax));
    scales[t] = static_cast<uint8_t>(X + 127);
    MxElements(e, std::ldexp(1.0f, -X), v + b0, len, codes + b0);
  }
}

HWY_INLINE void Nvfp4Elements(const double* mids, double scale, float encode, const float* HWY_RESTRICT v,
                              std::size_t len, uint8_t* HWY_RESTRICT codes) {
  const DD dd;
  const DU64 du;
  const DFH dfh;
  const D8D d8;
  const std::size_t N = hn::Lanes(dd);
  for (std::size_t i = 0; i < len; i += N) {
    const auto x = hn::PromoteTo(dd, hn::LoadU(dfh, v + i));
    const auto num = hn::Mul(hn::Abs(x), hn::Set(dd, static_cast<double>(encode)));
    auto code = hn::Zero(du);
    for (int m = 0; m < detail::kMids; ++m) {  // the lower value's code is m: ties go up where m is odd
      const auto t = hn::Set(dd, mids[m] * scale);
      const auto up = (m & 1) ? hn::Ge(num, t) : hn::Gt(num, t);
      code = hn::Sub(code, hn::VecFromMask(du, hn::RebindMask(du, up)));
    }
    const auto sign = hn::And(hn::ShiftRight<60>(hn::BitCast(du, x)), hn::Set(du, uint64_t{8}));
    hn::StoreU(hn::TruncateTo(d8, hn::Or(code, sign)), d8, codes + i);
  }
}

// A scale of 0: every code is the e2m1 zero with v's sign.
HWY_INLINE void Nvfp4Zeros(const float* HWY_RESTRICT v, std::size_t len, uint8_t* HWY_RESTRICT codes) {
  const DU du;
  const DF df;
  const D8 d8;
  const std::size_t N = hn::Lanes(du);
  for (std::size_t i = 0; i < len; i += N) {
    const VU b = hn::BitCast(du, hn::LoadU(df, v + i));
    hn::StoreU(hn::TruncateTo(d8, hn::And(hn::ShiftRight<28>(b), hn::Set(du, 8u))), d8, codes + i);
  }
}

void Nvfp4Line(const double* mids, const float* scale_values, const float* HWY_RESTRICT v, std::size_t n,
               float encode, uint8_t* HWY_RESTRICT codes, uint8_t* HWY_RESTRICT scales) {
  constexpr std::size_t kBlock = 16;
  for (std::size_t b0 = 0, t = 0; b0 < n; b0 += kBlock, ++t) {
    const std::size_t len = n - b0 < kBlock ? n - b0 : kBlock;
    uint32_t amax = 0;
    if (!SimdBlock(v + b0, len, amax)) {
      quantise_nvfp4(v + b0, len, encode, codes + b0, scales + t);
      continue;
    }
    const uint8_t sc = nvfp4_block_scale(std::bit_cast<float>(amax), encode);
    scales[t] = sc;
    if (sc == 0) Nvfp4Zeros(v + b0, len, codes + b0);
    else Nvfp4Elements(mids, scale_values[sc], encode, v + b0, len, codes + b0);
  }
}

// Finite magnitudes order as their bits; Inf and NaN (above 0x7F7FFFFF) count as 0.
uint32_t FiniteAbsMaxBits(const float* HWY_RESTRICT v, std::size_t n) {
  const DU du;
  const DI di;
  const DF df;
  const std::size_t N = hn::Lanes(du);
  VU m = hn::Zero(du);
  std::size_t i = 0;
  for (; i + N <= n; i += N) {
    const VU a = hn::And(hn::BitCast(du, hn::LoadU(df, v + i)), hn::Set(du, 0x7FFFFFFFu));
    const auto finite = hn::RebindMask(du, hn::Lt(hn::BitCast(di, a), hn::Set(di, 0x7F800000)));
    m = hn::Max(m, hn::IfThenElseZero(finite, a));
  }
  uint32_t r = hn::GetLane(hn::MaxOfLanes(du, m));
  for (; i < n; ++i) {
    const uint32_t a = std::bit_cast<uint32_t>(v[i]) & 0x7FFFFFFFu;
    if (a < 0x7F800000u && a > r) r = a;
  }
  return r;
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace mmaemu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mmaemu {
namespace kernels {

HWY_EXPORT(MxLine);
HWY_EXPORT(Nvfp4Line);
HWY_EXPORT(FiniteAbsMaxBits);

namespace {

float fp32_of(Fmt f, uint64_t code) { return std::bit_cast<float>(static_cast<uint32_t>(to_fp32_bits(f, code))); }

detail::MxElem mx_elem(Fmt elem) {
  const FormatInfo& fi = info(elem);
  const int emin = 1 - fi.bias;
  return {23 - fi.man_bits,
          static_cast<uint32_t>(127 - fi.bias) << fi.man_bits,
          static_cast<uint32_t>(emin + 127) << 23,
          static_cast<uint32_t>(element_top_code(elem)),
          fi.width - 1,
          std::ldexp(1.0f, fi.man_bits - emin)};
}

// The e2m1 midpoints and the values of the ue4m3 scale codes (0x7F: NaN,
// never a finite block's scale).
struct Nvfp4Tables {
  double mids[detail::kMids];
  float scale[128];
  Nvfp4Tables() {
    for (int m = 0; m < detail::kMids; ++m)
      mids[m] = (static_cast<double>(fp32_of(Fmt::e2m1, m)) + fp32_of(Fmt::e2m1, m + 1)) / 2;
    for (int c = 0; c < 127; ++c) scale[c] = fp32_of(Fmt::ue4m3, c);
    scale[127] = 0;
  }
};

}  // namespace

void quantise_mx_simd(Fmt elem, std::size_t block, const float* v, std::size_t n, uint8_t* codes,
                      uint8_t* scales) {
  const detail::MxElem e = mx_elem(elem);  // (throws for a format that is not an MX element)
  HWY_DYNAMIC_DISPATCH(MxLine)(e, elem, block, v, n, codes, scales);
}

void quantise_nvfp4_simd(const float* v, std::size_t n, float encode, uint8_t* codes, uint8_t* scales) {
  static const Nvfp4Tables t;
  HWY_DYNAMIC_DISPATCH(Nvfp4Line)(t.mids, t.scale, v, n, encode, codes, scales);
}

float finite_abs_max(const float* v, std::size_t n) {
  return std::bit_cast<float>(HWY_DYNAMIC_DISPATCH(FiniteAbsMaxBits)(v, n));
}

}  // namespace kernels
}  // namespace mmaemu
#endif  // HWY_ONCE
