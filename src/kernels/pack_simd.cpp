// SPDX-License-Identifier: BSD-3-Clause
// SIMD conversion and decode for packing (kernels/pack_simd.h). Each lane
// repeats the scalar operations of the driver's packing:
//
//   fp32 -> fp16 RNE (formats/fast_round.h, f32_to_f16_rne): |x| >= 2^16
//     gives Inf; below 2^-14 the subnormal grid by one float addition
//     (x + 2^-1, the host's RNE); else integer rounding of the rebiased bits.
//   fp32 -> bf16 RNE: (b + 0x7FFF + bit 16 of b) >> 16.
//   fp32 -> tf32: RNE (b + 0xFFF + bit 13 of b), RZ; the low 13 bits cleared.
//   fp32 -> fp8 (any rounding and overflow policy): a gather from the
//     conversion's table (formats/narrow_table.h), then gathers of the
//     decoded fields from the row's table of every code (LanesTable).
//
// then widen the unit's code to its fp32 pattern w (exact) and, for a
// normal w, read sign, exponent and significand from it (pack_element's
// decoding of normal values). Zeros take the caller's decoded zeros; a NaN
// in storage (whose pattern the scalar conversion keeps by the generic
// code) and a subnormal, infinite or NaN unit value are listed as odd.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/pack_simd.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/cache_control.h"
#include "hwy/highway.h"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "kernels/pack_simd.h"

HWY_BEFORE_NAMESPACE();
namespace mmaemu {
namespace kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

using DU = hn::ScalableTag<uint32_t>;
using DI = hn::RebindToSigned<DU>;
using DF = hn::RebindToFloat<DU>;
using VU = hn::Vec<DU>;
using VI = hn::Vec<DI>;

constexpr std::size_t kMaxLanes = HWY_MAX_BYTES / sizeof(uint32_t);

// One vector converted: the unit's code (as the bits array holds it), its
// fp32 pattern w (meaningful for normal values), and the lanes' classes.
struct Converted {
  VU code, w;
  hn::Mask<DU> zero, odd;
};

// Lanes whose value is neither zero nor normal: exponent field e of the
// code 0 with a nonzero magnitude, or all ones.
HWY_INLINE Converted Classify(VU code, VU w, VU mag, VU e, uint32_t emax, hn::Mask<DU> nan) {
  const DU du;
  const auto zero = hn::Eq(mag, hn::Zero(du));
  const auto odd = hn::Or(nan, hn::Or(hn::AndNot(zero, hn::Eq(e, hn::Zero(du))), hn::Eq(e, hn::Set(du, emax))));
  return {code, w, zero, odd};
}

HWY_INLINE Converted Convert(PackConv conv, VU b) {
  const DU du;
  const DI di;
  const DF df;
  const VU a = hn::And(b, hn::Set(du, 0x7FFFFFFFu));
  const VI ai = hn::BitCast(di, a);  // |b| as a nonnegative int32: signed compares
  const auto nan = hn::RebindMask(du, hn::Gt(ai, hn::Set(di, 0x7F800000)));
  switch (conv) {
    case PackConv::fp16_rne: {
      const VU sign16 = hn::And(hn::ShiftRight<16>(b), hn::Set(du, 0x8000u));
      const auto big = hn::RebindMask(du, hn::Gt(ai, hn::Set(di, static_cast<int32_t>((143u << 23) - 1))));
      const auto small = hn::RebindMask(du, hn::Lt(ai, hn::Set(di, static_cast<int32_t>(113u << 23))));
      const VU magic = hn::Set(du, 0x3F000000u);  // 2^-1: its ulp is 2^-24, fp16's subnormal step
      const VU sub = hn::Sub(hn::BitCast(du, hn::Add(hn::BitCast(df, a), hn::BitCast(df, magic))), magic);
      const VU bias = hn::Set(du, ((15u - 127u) << 23) + 0xFFFu);
      const VU rnd = hn::ShiftRight<13>(hn::Add(hn::Add(a, bias), hn::And(hn::ShiftRight<13>(a), hn::Set(du, 1u))));
      const VU code = hn::Or(sign16, hn::IfThenElse(big, hn::Set(du, 0x7C00u), hn::IfThenElse(small, sub, rnd)));
      const VU mag = hn::And(code, hn::Set(du, 0x7FFFu));
      const VU w = hn::Or(hn::And(b, hn::Set(du, 0x80000000u)), hn::Add(hn::ShiftLeft<13>(mag), hn::Set(du, 112u << 23)));
      return Classify(code, w, mag, hn::ShiftRight<10>(mag), 31u, nan);
    }
    case PackConv::bf16_rne: {
      const VU bias = hn::Add(hn::Set(du, 0x7FFFu), hn::And(hn::ShiftRight<16>(b), hn::Set(du, 1u)));
      const VU code = hn::ShiftRight<16>(hn::Add(b, bias));
      const VU w = hn::ShiftLeft<16>(code);
      const VU mag = hn::And(w, hn::Set(du, 0x7FFFFFFFu));
      return Classify(code, w, mag, hn::ShiftRight<23>(mag), 255u, nan);
    }
    case PackConv::tf32_rne:
    case PackConv::tf32_rz:
    case PackConv::fp8_table: break;  // (fp8_table: LanesTable)
  }
  const VU up = conv == PackConv::tf32_rz
                    ? b
                    : hn::Add(b, hn::Add(hn::Set(du, 0xFFFu), hn::And(hn::ShiftRight<13>(b), hn::Set(du, 1u))));
  const VU code = hn::And(up, hn::Set(du, 0xFFFFE000u));
  const VU mag = hn::And(code, hn::Set(du, 0x7FFFFFFFu));
  return Classify(code, code, mag, hn::ShiftRight<23>(mag), 255u, nan);
}

// Partial vectors (the last of a row; B's rows are a group's vectors, up to
// 16): AVX2 and AVX-512 load and store them masked, other targets through
// a buffer.
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_AVX2
constexpr bool kMasked = true;
#else
constexpr bool kMasked = false;
#endif

// Stores v's first `valid` lanes at dst (all of them: one StoreU).
template <class D, class V, typename T>
HWY_INLINE void StoreFirst(D d, V v, std::size_t valid, T* HWY_RESTRICT dst) {
  if (valid == hn::Lanes(d)) return hn::StoreU(v, d, dst);
  if constexpr (kMasked) {
    hn::BlendedStore(v, hn::FirstN(d, valid), d, dst);
  } else {
    alignas(HWY_MAX_BYTES) T buf[kMaxLanes];
    hn::StoreU(v, d, buf);
    std::memcpy(dst, buf, valid * sizeof(T));
  }
}

HWY_INLINE void StoreBits(VU code, std::size_t valid, uint64_t* HWY_RESTRICT dst) {
#if HWY_TARGET == HWY_SCALAR
  if (valid) dst[0] = hn::GetLane(code);
#else
  const DU du;
  const hn::Half<DU> dh;
  const hn::Repartition<uint64_t, DU> d64;
  const std::size_t half = hn::Lanes(d64);
  const auto lo = hn::PromoteTo(d64, hn::LowerHalf(dh, code)), hi = hn::PromoteTo(d64, hn::UpperHalf(dh, code));
  if (valid == hn::Lanes(du)) {
    hn::StoreU(lo, d64, dst);
    hn::StoreU(hi, d64, dst + half);
    return;
  }
  StoreFirst(d64, lo, valid < half ? valid : half, dst);
  if (valid > half) StoreFirst(d64, hi, valid - half, dst + half);
#endif
}

HWY_INLINE VU LoadFirst(const uint32_t* HWY_RESTRICT src, std::size_t valid) {
  const DU du;
  if (valid == hn::Lanes(du)) return hn::LoadU(du, src);
  if constexpr (kMasked) return hn::MaskedLoad(hn::FirstN(du, valid), du, src);
  alignas(HWY_MAX_BYTES) uint32_t buf[kMaxLanes] = {};  // zeros: not odd
  std::memcpy(buf, src, valid * sizeof(uint32_t));
  return hn::Load(du, buf);
}

// Appends base + j to odd[] for the lanes j < valid of mask m; returns how many.
HWY_INLINE std::size_t ListOdd(hn::Mask<DU> m, std::size_t valid, std::size_t base, std::size_t* HWY_RESTRICT odd) {
  const DU du;
  if (hn::AllFalse(du, m)) return 0;
  alignas(HWY_MAX_BYTES) uint32_t flags[kMaxLanes];
  hn::Store(hn::VecFromMask(du, m), du, flags);
  std::size_t count = 0;
  for (std::size_t j = 0; j < valid; ++j)
    if (flags[j]) odd[count++] = base + j;
  return count;
}

// Lanes [0, valid) of src: converted, decoded, stored; odd lanes appended
// to odd[] as base + lane. Lanes past `valid` are zeros (not odd).
template <PackConv kConv, bool kReal>
HWY_INLINE std::size_t Lanes1(const PackDecode& p, const uint32_t* HWY_RESTRICT src, std::size_t valid,
                              uint64_t* HWY_RESTRICT bits, int32_t* HWY_RESTRICT sig, int32_t* HWY_RESTRICT exp,
                              float* HWY_RESTRICT fsig, float* HWY_RESTRICT fval, std::size_t base,
                              std::size_t* HWY_RESTRICT odd) {
  const DU du;
  const DI di;
  const DF df;
  const Converted c = Convert(kConv, LoadFirst(src, valid));
  const auto neg = hn::RebindMask(di, hn::Lt(hn::BitCast(di, c.w), hn::Zero(di)));
  const auto zero = hn::RebindMask(di, c.zero);
  VI s, e;
  hn::Vec<DF> fs;
  if constexpr (kReal) {
    s = hn::BitCast(di, c.w), e = hn::Zero(di), fs = hn::Zero(df);
  } else {
    constexpr int man = kConv == PackConv::bf16_rne ? 7 : 10;
    const VI m = hn::BitCast(di, hn::Or(hn::ShiftRight<23 - man>(hn::And(c.w, hn::Set(du, 0x7FFFFFu))),
                                        hn::Set(du, 1u << man)));
    s = hn::IfThenElse(neg, hn::Sub(hn::Zero(di), m), m);
    e = hn::Sub(hn::BitCast(di, hn::ShiftRight<23>(hn::And(c.w, hn::Set(du, 0x7FFFFFFFu)))), hn::Set(di, 127));
    fs = hn::ConvertTo(df, s);
  }
  // Zeros: the caller's decoded +0 / -0 by the code's sign (w's sign bit).
  s = hn::IfThenElse(zero, hn::IfThenElse(neg, hn::Set(di, p.zero_sig[1]), hn::Set(di, p.zero_sig[0])), s);
  e = hn::IfThenElse(zero, hn::IfThenElse(neg, hn::Set(di, p.zero_exp[1]), hn::Set(di, p.zero_exp[0])), e);
  const auto zf = hn::RebindMask(df, c.zero), nf = hn::RebindMask(df, neg);
  fs = hn::IfThenElse(zf, hn::IfThenElse(nf, hn::Set(df, p.zero_fsig[1]), hn::Set(df, p.zero_fsig[0])), fs);
  const hn::Vec<DF> fv =
      hn::IfThenElse(zf, hn::IfThenElse(nf, hn::Set(df, p.zero_fval[1]), hn::Set(df, p.zero_fval[0])),
                     hn::BitCast(df, c.w));
  StoreBits(c.code, valid, bits);
  StoreFirst(di, s, valid, sig);
  StoreFirst(di, e, valid, exp);
  if (fsig) StoreFirst(df, fs, valid, fsig);
  if (fval) StoreFirst(df, fv, valid, fval);
  return ListOdd(c.odd, valid, base, odd);
}

// fp32 -> fp8 by the table of formats/narrow_table.h (its index: sign,
// exponent, four fraction bits, sticky), then every field from the row's
// table of decoded codes; lanes whose code is NaN or Inf are listed (their
// fields are the table's, complete). Lanes past `valid` are zeros.
HWY_INLINE std::size_t LanesTable(const PackDecode& p, const uint32_t* HWY_RESTRICT src, std::size_t valid,
                                  uint64_t* HWY_RESTRICT bits, int32_t* HWY_RESTRICT sig, int32_t* HWY_RESTRICT exp,
                                  float* HWY_RESTRICT fsig, float* HWY_RESTRICT fval, std::size_t base,
                                  std::size_t* HWY_RESTRICT odd) {
  const DU du;
  const DI di;
  const DF df;
  const VU b = LoadFirst(src, valid);
  // (t + 0x7FFFFFFF) >> 31 for the 19 low bits t: 1 exactly when t != 0.
  const VU sticky = hn::ShiftRight<31>(hn::Add(hn::And(b, hn::Set(du, 0x7FFFFu)), hn::Set(du, 0x7FFFFFFFu)));
  const VU index = hn::Or(hn::ShiftLeft<1>(hn::ShiftRight<19>(b)), sticky);
  // A 32-bit word at the entry's byte offset (the table is padded for it):
  // its first byte in memory is the code.
  const VU word = hn::BitCast(du, hn::GatherOffset(di, reinterpret_cast<const int32_t*>(p.narrow), hn::BitCast(di, index)));
  const VU code = std::endian::native == std::endian::little ? hn::And(word, hn::Set(du, 0xFFu)) : hn::ShiftRight<24>(word);
  // PackDecode::decoded: 16 bytes per code, read by byte offsets (words
  // copied as bytes where the target emulates gathers: two of them floats).
  const VI at = hn::BitCast(di, hn::ShiftLeft<4>(code));
  StoreBits(code, valid, bits);
  StoreFirst(di, hn::GatherOffset(di, p.decoded, at), valid, sig);
  StoreFirst(di, hn::GatherOffset(di, p.decoded + 1, at), valid, exp);
  if (fsig) StoreFirst(df, hn::BitCast(df, hn::GatherOffset(di, p.decoded + 2, at)), valid, fsig);
  if (fval) StoreFirst(df, hn::BitCast(df, hn::GatherOffset(di, p.decoded + 3, at)), valid, fval);
  const auto special = hn::Ne(hn::GatherIndex(di, p.nonfinite, hn::BitCast(di, code)), hn::Zero(di));
  return ListOdd(hn::RebindMask(du, special), valid, base, odd);
}

constexpr std::size_t kAhead = 32;

template <PackConv kConv, bool kReal>
std::size_t Rows(const PackDecode& p, const uint32_t* src, std::size_t src_stride, std::size_t rows, std::size_t n,
                 const PackDest& dst, std::size_t* odd) {
  const std::size_t N = hn::Lanes(DU());
  std::size_t count = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    const uint32_t* s = src + r * src_stride;
    // Rows far apart in memory (B's positions, a row of the matrix each):
    // the row kAhead on requested now, as the hardware's prefetchers do
    // not follow such strides.
    if (r + kAhead < rows) hwy::Prefetch(s + kAhead * src_stride);
    const std::size_t rd = dst.row_at ? dst.row_at[r] : r, b = rd * dst.bs, l = rd * dst.ls;
    for (std::size_t i = 0; i < n; i += N) {
      const std::size_t valid = n - i < N ? n - i : N;
      float* fs = dst.fsig ? dst.fsig + l + i : nullptr;
      float* fv = dst.fval ? dst.fval + l + i : nullptr;
      if constexpr (kConv == PackConv::fp8_table)
        count += LanesTable(p, s + i, valid, dst.bits + b + i, dst.sig + b + i, dst.exp + l + i, fs, fv, r * n + i,
                            odd + count);
      else
        count += Lanes1<kConv, kReal>(p, s + i, valid, dst.bits + b + i, dst.sig + b + i, dst.exp + l + i, fs, fv,
                                      r * n + i, odd + count);
    }
  }
  return count;
}

std::size_t PackConvert(const PackDecode& p, const uint32_t* src, std::size_t src_stride, std::size_t rows,
                        std::size_t n, const PackDest& dst, std::size_t* odd) {
  switch (p.conv) {
    case PackConv::fp16_rne:
      return p.real ? Rows<PackConv::fp16_rne, true>(p, src, src_stride, rows, n, dst, odd)
                    : Rows<PackConv::fp16_rne, false>(p, src, src_stride, rows, n, dst, odd);
    case PackConv::bf16_rne:
      return p.real ? Rows<PackConv::bf16_rne, true>(p, src, src_stride, rows, n, dst, odd)
                    : Rows<PackConv::bf16_rne, false>(p, src, src_stride, rows, n, dst, odd);
    case PackConv::tf32_rne: return Rows<PackConv::tf32_rne, false>(p, src, src_stride, rows, n, dst, odd);
    case PackConv::tf32_rz: return Rows<PackConv::tf32_rz, false>(p, src, src_stride, rows, n, dst, odd);
    case PackConv::fp8_table: return Rows<PackConv::fp8_table, false>(p, src, src_stride, rows, n, dst, odd);
  }
  return 0;
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace mmaemu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace mmaemu {
namespace kernels {

HWY_EXPORT(PackConvert);

std::size_t pack_convert(const PackDecode& p, const uint32_t* src, std::size_t src_stride, std::size_t rows,
                         std::size_t n, const PackDest& dst, std::size_t* odd) {
  return HWY_DYNAMIC_DISPATCH(PackConvert)(p, src, src_stride, rows, n, dst, odd);
}

}  // namespace kernels
}  // namespace mmaemu
#endif  // HWY_ONCE
