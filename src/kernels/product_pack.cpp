// SPDX-License-Identifier: BSD-3-Clause
// The SIMD product packer (kernels/product_pack.h): per position, the 16
// lanes' codes decoded from their bit fields as pack_element() in
// kernels/scalar.cpp does,
//
//   code:  s e..e m..m  (exp_bits, man_bits, bias of the format)
//   e = 0, m = 0:  zero                  sig 0,      exp kZeroExp, val +0
//   e = 0, m > 0:  subnormal             sig +-m,    exp 1 - bias  (FTZ units: as zero)
//   normal:        sig +-(2^man + m),    exp e - bias
//   NaN/Inf:       e all ones (ieee), S.1111.111 (e4m3fn), 0x80 (fnuz): flagged
//   val = sig * 2^(exp - man), exact (fp16: vcvtph2ps; bf16: the code as the
//   top half of a binary32)
//
// (real operands, the pairwise rows: val the value as read, a flushed
// subnormal its zero, exp 0; fp8 read as fp16: the value's fp16
// decomposition), then
// multiplied (added) and stored lane-interleaved.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/product_pack.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include <cstddef>
#include <cstdint>

#include "kernels/product_pack.h"
#include "kernels/scalar.h"

HWY_BEFORE_NAMESPACE();
namespace mmaemu {
namespace kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

constexpr std::size_t kLanes = 16;
using DI = hn::ScalableTag<int32_t>;
using DF = hn::Rebind<float, DI>;
using DU16 = hn::Rebind<uint16_t, DI>;
using VI = hn::Vec<DI>;
using VF = hn::Vec<DF>;

struct Decoded {
  VF val, sig;
  VI exp;
  hn::Mask<DI> special;
};

// 2^x (|x| < 127) as a float.
HWY_INLINE VF Pow2(VI x) { return hn::BitCast(DF(), hn::ShiftLeft<23>(hn::Add(x, hn::Set(DI(), 127)))); }

// One vector of codes (as int32; fp16 also as the codes at p) decoded.
template <bool kReal>
HWY_INLINE Decoded Decode(const CodeDecode& f, VI h, const uint16_t* p) {
  const DI di;
  const DF df;
  const int man = f.man_bits, emax = (1 << f.exp_bits) - 1;
  const VI e = hn::And(hn::ShiftRightSame(h, man), hn::Set(di, emax));
  const VI frac = hn::And(h, hn::Set(di, (1 << man) - 1));
  const auto e0 = hn::Eq(e, hn::Zero(di)), f0 = hn::Eq(frac, hn::Zero(di));
  const auto neg = hn::Ne(hn::And(h, hn::Set(di, 1 << (f.width - 1))), hn::Zero(di));
  Decoded d;
  switch (f.specials) {
    case CodeDecode::Specials::ieee: d.special = hn::Eq(e, hn::Set(di, emax)); break;
    case CodeDecode::Specials::e4m3fn: d.special = hn::Eq(hn::And(h, hn::Set(di, 0x7F)), hn::Set(di, 0x7F)); break;
    case CodeDecode::Specials::fnuz: d.special = hn::Eq(h, hn::Set(di, 0x80)); break;
  }
  // The decomposition: value = s * 2^(x - man), |s| = 2^man + frac or frac.
  const VI m = hn::IfThenElse(e0, frac, hn::Or(frac, hn::Set(di, 1 << man)));
  const VI x = hn::Sub(hn::Max(e, hn::Set(di, 1)), hn::Set(di, f.bias));
  const VI s = hn::IfThenElse(neg, hn::Neg(m), m);
  // The value, exact: bf16 as the top half of its binary32 (its subnormals
  // are binary32 subnormals), the others s * 2^(x - man) (normal floats).
  VF value;
  if (f.fp16) {
    value = hn::PromoteTo(df, hn::LoadU(hn::Rebind<hwy::float16_t, DI>(), reinterpret_cast<const hwy::float16_t*>(p)));
  } else if (f.bf16) {
    value = hn::BitCast(df, hn::ShiftLeft<16>(h));
  } else {
    const VF mag = hn::Mul(hn::ConvertTo(df, m), Pow2(hn::Sub(x, hn::Set(di, man))));
    value = hn::IfThenElse(hn::RebindMask(df, neg), hn::Neg(mag), mag);
  }
  const auto subnormal = hn::AndNot(f0, e0);
  if constexpr (kReal) {  // a flushed input is its zero; -0 reads as +0 with pos_zero (pack_element)
    VF v = value;
    if (!f.in_sub)
      v = hn::IfThenElse(hn::RebindMask(df, subnormal), f.keep_sign ? hn::And(value, hn::Set(df, -0.0f)) : hn::Zero(df),
                         v);
    d.val = f.pos_zero ? hn::Add(v, hn::Zero(df)) : v;  // -0 + +0 = +0; every other value unchanged
    d.sig = hn::Zero(df);
    d.exp = hn::Zero(di);
    return d;
  }
  if (f.as_fp16) {  // the value's decomposition as fp16: exponent max(floor(log2 |v|), -14)
    const VF av = hn::Abs(value);
    const auto nonzero = hn::Ne(av, hn::Zero(df));
    const VI x16 = hn::Max(hn::Sub(hn::ShiftRight<23>(hn::BitCast(di, av)), hn::Set(di, 127)), hn::Set(di, -14));
    const auto sub16 = hn::And(nonzero, hn::Lt(av, hn::Set(df, 0x1p-14f)));
    const auto zero = hn::Not(hn::RebindMask(di, f.in_sub ? nonzero : hn::AndNot(sub16, nonzero)));
    d.sig = hn::IfThenZeroElse(hn::RebindMask(df, zero), hn::Mul(value, Pow2(hn::Sub(hn::Set(di, 10), x16))));
    d.exp = hn::IfThenElse(zero, hn::Set(di, kZeroExp), x16);
    d.val = hn::IfThenZeroElse(hn::RebindMask(df, zero), value);
    return d;
  }
  const auto zero = f.in_sub ? hn::And(e0, f0) : e0;
  d.sig = hn::IfThenZeroElse(hn::RebindMask(df, zero), hn::ConvertTo(df, s));
  d.exp = hn::IfThenElse(zero, hn::Set(di, kZeroExp), x);
  d.val = hn::IfThenZeroElse(hn::RebindMask(df, zero), value);  // a zero is +0, as ldexp(0, .)
  return d;
}

// fp16 read as it is, integer operands with subnormals: the same fields
// from the value (vcvtph2ps, exact): x = max(floor(log2 |v|), -14) from its
// binary32 exponent, sig = v * 2^(10 - x) (an integer, exact), a zero
// (v + 0 turns -0 into +0, as ldexp(0, .)) at exponent kZeroExp.
HWY_INLINE Decoded DecodeHalf(const uint16_t* p) {
  const DI di;
  const DF df;
  const VI h = hn::PromoteTo(di, hn::LoadU(DU16(), p));
  Decoded d;
  d.special = hn::Eq(hn::And(h, hn::Set(di, 0x7C00)), hn::Set(di, 0x7C00));
  d.val = hn::Add(hn::PromoteTo(df, hn::LoadU(hn::Rebind<hwy::float16_t, DI>(), reinterpret_cast<const hwy::float16_t*>(p))),
                  hn::Zero(df));
  const VI x = hn::Max(hn::Sub(hn::ShiftRight<23>(hn::And(hn::BitCast(di, d.val), hn::Set(di, 0x7FFFFFFF))),
                               hn::Set(di, 127)),
                       hn::Set(di, -14));
  d.sig = hn::Mul(d.val, Pow2(hn::Sub(hn::Set(di, 10), x)));
  d.exp = hn::IfThenElse(hn::RebindMask(di, hn::Eq(d.val, hn::Zero(df))), hn::Set(di, kZeroExp), x);
  return d;
}

// OCP e4m3 (bias 7, NaN S.1111.111, no Inf), integer operands with
// subnormals: the fields of Decode() with the format's constants; the value
// of a normal code from its bits (rebias 7 -> 127, fraction moved up 20),
// of a subnormal m * 2^-9.
HWY_INLINE Decoded DecodeE4M3(const uint16_t* p) {
  const DI di;
  const DF df;
  const VI h = hn::PromoteTo(di, hn::LoadU(DU16(), p));
  const VI e = hn::And(hn::ShiftRight<3>(h), hn::Set(di, 15));
  const VI frac = hn::And(h, hn::Set(di, 7));
  const auto e0 = hn::Eq(e, hn::Zero(di));
  const auto neg = hn::Ne(hn::And(h, hn::Set(di, 0x80)), hn::Zero(di));
  Decoded d;
  d.special = hn::Eq(hn::And(h, hn::Set(di, 0x7F)), hn::Set(di, 0x7F));
  const VI m = hn::IfThenElse(e0, frac, hn::Or(frac, hn::Set(di, 8)));
  const VI s = hn::IfThenElse(neg, hn::Neg(m), m);
  const VF sf = hn::ConvertTo(df, s);
  // Normal: s eeee mmm -> s, e + 120, m << 20; subnormal: s * 2^-9.
  const VI bits = hn::Or(hn::ShiftLeft<24>(hn::And(h, hn::Set(di, 0x80))),
                         hn::Add(hn::ShiftLeft<20>(hn::And(h, hn::Set(di, 0x7F))), hn::Set(di, 120 << 23)));
  const auto zero = hn::And(e0, hn::Eq(frac, hn::Zero(di)));
  const VF value = hn::IfThenElse(hn::RebindMask(df, e0), hn::Mul(sf, hn::Set(df, 0x1p-9f)), hn::BitCast(df, bits));
  d.sig = hn::IfThenZeroElse(hn::RebindMask(df, zero), sf);
  d.exp = hn::IfThenElse(zero, hn::Set(di, kZeroExp), hn::Sub(hn::Max(e, hn::Set(di, 1)), hn::Set(di, 7)));
  d.val = hn::IfThenZeroElse(hn::RebindMask(df, zero), value);  // a zero is +0, as ldexp(0, .)
  return d;
}

// The decoders with a format's constants (kinds) and the general one.
enum class DecodeKind { general, half, e4m3 };

DecodeKind decode_kind(const CodeDecode& f) {
  if (f.real || f.as_fp16 || !f.in_sub) return DecodeKind::general;
  if (f.fp16) return DecodeKind::half;
  if (f.width == 8 && f.exp_bits == 4 && f.man_bits == 3 && f.bias == 7 && f.specials == CodeDecode::Specials::e4m3fn)
    return DecodeKind::e4m3;
  return DecodeKind::general;
}

template <bool kReal, DecodeKind kKind = DecodeKind::general>
HWY_INLINE Decoded Decode(const CodeDecode& f, const uint16_t* p) {
  if constexpr (kKind == DecodeKind::half) return DecodeHalf(p);
  if constexpr (kKind == DecodeKind::e4m3) return DecodeE4M3(p);
  if (!kReal && f.fp16 && f.in_sub && !f.as_fp16) return DecodeHalf(p);
  return Decode<kReal>(f, hn::PromoteTo(DI(), hn::LoadU(DU16(), p)), p);
}

template <bool kReal, DecodeKind kKind>
uint32_t Products(const CodeDecode& format, const uint16_t* ca, const uint16_t* cb, std::size_t kc, const uint32_t* pos,
                  float* HWY_RESTRICT val, float* HWY_RESTRICT sig, int32_t* HWY_RESTRICT exp) {
  const DI di;
  const DF df;
  const std::size_t N = hn::Lanes(di);
  const CodeDecode f = format;  // a local copy: the stores below cannot change it
  uint32_t special_lanes = 0;
  for (std::size_t v = 0; v < kLanes; v += N) {
    auto special = hn::FirstN(di, 0);
    for (std::size_t l = 0; l < kc; ++l) {
      const Decoded a = Decode<kReal, kKind>(f, ca + l * kLanes + v);
      const Decoded b = Decode<kReal, kKind>(f, cb + l * kLanes + v);
      const std::size_t o = static_cast<std::size_t>(pos[l]) * kLanes + v;
      hn::StoreU(hn::Mul(a.val, b.val), df, val + o);
      hn::StoreU(hn::Mul(a.sig, b.sig), df, sig + o);
      hn::StoreU(kReal ? hn::Or(a.exp, b.exp) : hn::Add(a.exp, b.exp), di, exp + o);
      special = hn::Or(special, hn::Or(a.special, b.special));
    }
    HWY_ALIGN int32_t flags[kLanes];
    hn::Store(hn::VecFromMask(di, special), di, flags);
    for (std::size_t j = 0; j < N; ++j)
      if (flags[j]) special_lanes |= 1u << (v + j);
  }
  return special_lanes;
}

uint32_t CodeProducts16(const CodeDecode& d, const uint16_t* ca, const uint16_t* cb, std::size_t kc,
                        const uint32_t* pos, float* val, float* sig, int32_t* exp) {
  if (d.real) return Products<true, DecodeKind::general>(d, ca, cb, kc, pos, val, sig, exp);
  switch (decode_kind(d)) {
    case DecodeKind::half: return Products<false, DecodeKind::half>(d, ca, cb, kc, pos, val, sig, exp);
    case DecodeKind::e4m3: return Products<false, DecodeKind::e4m3>(d, ca, cb, kc, pos, val, sig, exp);
    case DecodeKind::general: break;
  }
  return Products<false, DecodeKind::general>(d, ca, cb, kc, pos, val, sig, exp);
}

// out[l*16 + j] = rows[j][l] for l < kc: 8 x 8 blocks of codes (bytes
// widened) transposed in registers (three rounds of interleaves: 16-,
// 32-, 64-bit),
//   r_j = [x_j0 .. x_j7]  ->  c_l = [x_0l .. x_7l]
// and the tail (kc % 8 positions) one code at a time.
template <typename T>
void Transpose(const T* const* rows, std::size_t kc, uint16_t* out) {
  std::size_t l0 = 0;
#if HWY_TARGET != HWY_SCALAR
  const hn::Full128<uint16_t> d16;
  const hn::Rebind<T, decltype(d16)> dt;
  const hn::Full128<uint32_t> d32;
  const hn::Full128<uint64_t> d64;
  auto load = [&](const T* p) {
    if constexpr (sizeof(T) == 2) return hn::LoadU(d16, p);
    else return hn::PromoteTo(d16, hn::LoadU(dt, p));
  };
  for (; l0 + 8 <= kc; l0 += 8)
    for (std::size_t j0 = 0; j0 < kLanes; j0 += 8) {
      hn::Vec<decltype(d16)> r[8], t[8];
      hn::Vec<decltype(d32)> u[8];
      for (int j = 0; j < 8; ++j) r[j] = load(rows[j0 + j] + l0);
      for (int j = 0; j < 8; j += 2) {
        t[j] = hn::InterleaveLower(d16, r[j], r[j + 1]);
        t[j + 1] = hn::InterleaveUpper(d16, r[j], r[j + 1]);
      }
      for (int q = 0; q < 8; q += 4)
        for (int h = 0; h < 2; ++h) {
          const auto a = hn::BitCast(d32, t[q + h]), b = hn::BitCast(d32, t[q + h + 2]);
          u[q + 2 * h] = hn::InterleaveLower(d32, a, b);
          u[q + 2 * h + 1] = hn::InterleaveUpper(d32, a, b);
        }
      for (int c = 0; c < 4; ++c) {
        const auto a = hn::BitCast(d64, u[c]), b = hn::BitCast(d64, u[c + 4]);
        hn::StoreU(hn::BitCast(d16, hn::InterleaveLower(d64, a, b)), d16, out + (l0 + 2 * c) * kLanes + j0);
        hn::StoreU(hn::BitCast(d16, hn::InterleaveUpper(d64, a, b)), d16, out + (l0 + 2 * c + 1) * kLanes + j0);
      }
    }
#endif
  for (std::size_t j = 0; j < kLanes; ++j)
    for (std::size_t l = l0; l < kc; ++l) out[l * kLanes + j] = rows[j][l];
}

void TransposeCodes16(const uint16_t* const* rows, std::size_t kc, uint16_t* out) { Transpose(rows, kc, out); }
void TransposeCodes8(const uint8_t* const* rows, std::size_t kc, uint16_t* out) { Transpose(rows, kc, out); }

template <bool kReal, DecodeKind kKind>
void DecodeAll(const CodeDecode& f, const uint16_t* codes, std::size_t count, float* val, float* sig, int32_t* exp,
               uint8_t* special) {
  const DI di;
  const DF df;
  const std::size_t N = hn::Lanes(di);
  HWY_ALIGN uint16_t c[kLanes];
  HWY_ALIGN float v[kLanes], s[kLanes];
  HWY_ALIGN int32_t e[kLanes], g[kLanes];
  for (std::size_t i = 0; i < count; i += N) {
    for (std::size_t j = 0; j < N; ++j) c[j] = i + j < count ? codes[i + j] : 0;
    const Decoded d = Decode<kReal, kKind>(f, c);
    hn::Store(d.val, df, v), hn::Store(d.sig, df, s), hn::Store(d.exp, di, e);
    hn::Store(hn::VecFromMask(di, d.special), di, g);
    for (std::size_t j = 0; j < N && i + j < count; ++j)
      val[i + j] = v[j], sig[i + j] = s[j], exp[i + j] = e[j], special[i + j] = g[j] != 0;
  }
}

void CodeDecodeAll(const CodeDecode& d, const uint16_t* codes, std::size_t count, float* val, float* sig,
                   int32_t* exp, uint8_t* special) {
  if (d.real) return DecodeAll<true, DecodeKind::general>(d, codes, count, val, sig, exp, special);
  switch (decode_kind(d)) {
    case DecodeKind::half: return DecodeAll<false, DecodeKind::half>(d, codes, count, val, sig, exp, special);
    case DecodeKind::e4m3: return DecodeAll<false, DecodeKind::e4m3>(d, codes, count, val, sig, exp, special);
    case DecodeKind::general: break;
  }
  DecodeAll<false, DecodeKind::general>(d, codes, count, val, sig, exp, special);
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace mmaemu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mmaemu {
namespace kernels {

HWY_EXPORT(CodeProducts16);
HWY_EXPORT(CodeDecodeAll);
HWY_EXPORT(TransposeCodes16);
HWY_EXPORT(TransposeCodes8);

void simd_transpose_codes16(const uint16_t* const* rows, std::size_t kc, uint16_t* out) {
  HWY_DYNAMIC_DISPATCH(TransposeCodes16)(rows, kc, out);
}
void simd_transpose_codes16(const uint8_t* const* rows, std::size_t kc, uint16_t* out) {
  HWY_DYNAMIC_DISPATCH(TransposeCodes8)(rows, kc, out);
}

uint32_t simd_code_products16(const CodeDecode& d, const uint16_t* ca, const uint16_t* cb, std::size_t kc,
                              const uint32_t* pos, float* val, float* sig, int32_t* exp) {
  return HWY_DYNAMIC_DISPATCH(CodeProducts16)(d, ca, cb, kc, pos, val, sig, exp);
}

void simd_code_decode(const CodeDecode& d, const uint16_t* codes, std::size_t count, float* val, float* sig,
                      int32_t* exp, uint8_t* special) {
  HWY_DYNAMIC_DISPATCH(CodeDecodeAll)(d, codes, count, val, sig, exp, special);
}

}  // namespace kernels
}  // namespace mmaemu
#endif  // HWY_ONCE
