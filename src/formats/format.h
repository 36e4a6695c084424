// SPDX-License-Identifier: BSD-3-Clause
// Number formats: descriptors, decoding to (sign, integer significand,
// exponent) and correctly rounded encoding from exact values.
//
// Every value handled by libmmaemu is a bit pattern in a container
// (uint64_t holds all of them). No host floating-point type is used to
// represent a format value; the host's float/double appear only in the
// IEEE-exact paths (fp32/fp64 FMA chains, CDNA2 fp32 additions).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace mmaemu {

/// Storage formats. The fnuz formats are AMD's MI300 "fp8" (e4m3fnuz) and
/// "bf8" (e5m2fnuz): no Inf, one NaN (0x80), no -0, bias one higher.
/// The OCP Microscaling element formats (fp6 e3m2/e2m3, fp4 e2m1) and the two
/// block-scale formats (ue8m0, ue4m3) are described in docs/block-scaled.md §1;
/// each code is stored one per byte in the low bits.
enum class Fmt : uint8_t {
  fp64,
  fp32,
  tf32,  // NVIDIA tf32 = AMD xf32: fp32 container, 10 fraction bits used
  bf16,
  fp16,
  e4m3,      // OCP E4M3 ("fn"): NaN = S.1111.111, no Inf, max 448
  e5m2,      // OCP E5M2: IEEE-like Inf/NaN, max 57344
  e4m3fnuz,  // AMD fp8
  e5m2fnuz,  // AMD bf8
  e3m2,      // OCP FP6 E3M2: every code finite, max 28
  e2m3,      // OCP FP6 E2M3: every code finite, max 7.5
  e2m1,      // OCP FP4 E2M1: every code finite, max 6
  ue8m0,     // OCP MX scale E8M0: 2^(code-127), 0xFF NaN, no sign, no zero
  ue4m3,     // NVFP4 scale: an e4m3 code whose sign bit is ignored
  // The integer formats of the integer matrix units (docs/models.md,
  // "Integer units"): binary integers, no exponent, no specials, one code per
  // uint64_t in the low bits (int4 storage packs two per byte, int4_packing.h).
  s8,   // two's complement, 8 bits
  u8,   // unsigned, 8 bits
  s4,   // two's complement, 4 bits
  u4,   // unsigned, 4 bits
  s32,  // two's complement, 32 bits: the accumulator and result
};
/// Every format, numbered as the C API's mmaemu_format names them
/// (include/mmaemu/mmaemu.h): the floating-point and scale formats, then the
/// integer ones (Fmt::s8 on).
inline constexpr int kFmtCount = 19;

/// How a format encodes Inf and NaN.
enum class Specials : uint8_t {
  ieee,    // all-ones exponent: Inf (fraction 0) or NaN
  e4m3fn,  // no Inf; S.1111.111 is NaN, the rest of exponent 1111 is finite
  fnuz,    // no Inf, no -0; 1.0000.000 (0x80) is the only NaN
  finite,  // no Inf, no NaN: every code is a number (OCP FP6/FP4); conversions
           // saturate, a NaN has no encoding
  ue8m0,   // unsigned powers of two: no sign, no zero, no subnormals; the
           // all-ones code is NaN
  ue4m3,   // e4m3fn read without its sign bit (the unit masks it): unsigned
};

/// Rounding of an exact value to a format.
enum class Round : uint8_t {
  rne,  // to nearest, ties to even
  rz,   // toward zero (truncation of the magnitude)
  rd,   // toward -infinity
  ru,   // toward +infinity
  rna,  // to nearest, ties away from zero (CUDA __float_to_tf32)
};

/// What happens to a value beyond the largest finite number.
enum class Overflow : uint8_t {
  ieee,      // IEEE 754: RNE/RNA -> Inf; RZ/RD/RU -> Inf or max finite by
             // direction. Formats without Inf give NaN instead of Inf.
  inf,       // always +-Inf, even for RZ (what matrix units do, PN 4.2.1)
  saturate,  // +-max finite (CUDA __NV_SATFINITE)
};

/// Whether a format is a binary integer, and how its sign is coded.
enum class IntKind : uint8_t {
  none,             // a floating-point or scale format
  twos_complement,  // s8, s4, s32
  unsigned_binary,  // u8, u4
};

struct FormatInfo {
  Fmt id;
  const char* name;  // canonical lower-case name
  int width;         // container bits (tf32 lives in 32)
  int exp_bits;
  int man_bits;  // fraction bits
  int bias;
  int frac_shift;  // zero bits below the fraction in the container (tf32: 13)
  Specials specials;  // integer formats: finite (no Inf, no NaN)
  IntKind integer = IntKind::none;

  constexpr bool is_integer() const { return integer != IntKind::none; }
  /// Exponent of the smallest normal (ue8m0: of the smallest value, code 0).
  constexpr int emin() const { return specials == Specials::ue8m0 ? -bias : 1 - bias; }
  /// Exponent of the largest finite value.
  constexpr int emax() const {
    return specials == Specials::ieee || specials == Specials::ue8m0
               ? (1 << exp_bits) - 2 - bias
               : (1 << exp_bits) - 1 - bias;
  }
  /// Scale formats have no sign: ue4m3 ignores its top bit, ue8m0 has none.
  constexpr bool is_unsigned() const {
    return specials == Specials::ue8m0 || specials == Specials::ue4m3;
  }
  /// The NaN-free formats (fp6, fp4).
  constexpr bool has_nan() const { return specials != Specials::finite; }
};

const FormatInfo& info(Fmt f);

/// Parses a format name (case-insensitive; aliases such as "half",
/// "binary16", "bfloat16", "xf32", "fp8"/"bf8" = the fnuz formats): the
/// floating-point and scale formats only (parse_int_fmt: the integer ones).
std::optional<Fmt> parse_fmt(std::string_view name);

/// Parses an integer format name (case-insensitive: s8, u8, s4, u4, s32, or
/// int8, uint8, int4, uint4, int32).
std::optional<Fmt> parse_int_fmt(std::string_view name);

/// The value of an integer format's code (the low `width` bits of `bits`;
/// two's complement codes sign-extended). Precondition: info(f).is_integer().
int64_t int_value(Fmt f, uint64_t bits);

/// "RNE", "RZ", "RD", "RU" or "RNA".
const char* round_name(Round r);

// ---------------------------------------------------------------------------
// Decoding

enum class Class : uint8_t { zero, finite, inf, nan };

/// A decoded value: (-1)^neg * sig * 2^exp for finite values (integer
/// formats: exp = 0, sig = the magnitude).
///
/// For a finite nonzero x the block-FMA decomposition of the papers,
/// x = m * 2^e with e = max(floor(log2|x|), emin), is obtained as
///   e = exp + man_bits,  |m| = sig / 2^man_bits
/// because a normal number has sig = 1.fff (hidden bit set) and a
/// subnormal one has sig = 0.fff at the clamped exponent emin.
struct Unpacked {
  Class cls;
  bool neg;
  int exp;
  uint64_t sig;
};

Unpacked decode(Fmt f, uint64_t bits);

inline bool is_nan(Fmt f, uint64_t bits) { return decode(f, bits).cls == Class::nan; }

// ---------------------------------------------------------------------------
// Encoding

/// The canonical quiet NaN of a format (positive where the format has a sign).
/// Throws std::domain_error for the NaN-free formats (fp6, fp4).
uint64_t default_nan(Fmt f);
uint64_t inf_bits(Fmt f, bool neg);  // precondition: format has Inf
uint64_t max_finite_bits(Fmt f, bool neg);  // unsigned formats: neg ignored
uint64_t zero_bits(Fmt f, bool neg);  // fnuz, ue4m3: always 0x00; ue8m0: none (throws)

/// Rounds the exact value (-1)^neg * mag * 2^exp to format f.
///
/// `sticky` says that the true value has further nonzero bits below the
/// last bit of `mag` (a "jammed" value as in SoftFloat); mag need not be
/// normalised. `prec` overrides the number of fraction bits kept (the
/// fp8 units of Ada/Hopper deliver fp32 results with 13 fraction bits); the
/// result is stored in f's container with the dropped bits zero.
/// Subnormal results are produced; a zero result keeps the sign `neg`.
///
/// The narrow formats (docs/block-scaled.md §1): fp6/fp4 have neither Inf nor
/// NaN, so an overflow saturates to the largest finite whatever `ov` says.
/// The unsigned scale formats give NaN for a negative nonzero value and +0 for
/// -0; ue8m0 has no zero: a value that rounds below 2^-127 gives code 0x00
/// (2^-127), and an exact zero gives NaN. ue8m0 keeps no fraction bits, so a
/// tie between 2^L and 2^(L+1) goes to 2^(L+1) under RNE.
uint64_t round_pack(Fmt f, bool neg, uint64_t mag, int exp, bool sticky, Round r,
                    Overflow ov, int prec = -1);

/// Converts a value between formats with the given rounding. NaN becomes the
/// target's default NaN (sign kept where the target has one); Inf becomes Inf,
/// or NaN/max finite for formats without Inf according to `ov` (fp6/fp4:
/// always max finite). A NaN into fp6/fp4 throws std::domain_error.
uint64_t convert(Fmt from, Fmt to, uint64_t bits, Round r, Overflow ov = Overflow::ieee);

/// Widens a finite or special value exactly into fp32 / fp64 bits.
uint32_t to_fp32_bits(Fmt f, uint64_t bits);
uint64_t to_fp64_bits(Fmt f, uint64_t bits);

}  // namespace mmaemu
