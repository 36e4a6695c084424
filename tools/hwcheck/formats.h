// SPDX-License-Identifier: BSD-3-Clause
// Input formats of the hardware harness and exact conversions between their
// encodings and fp32 bit patterns. Plain C++, no CUDA: the generator, the
// tile packer and the file writer all work on fp32 bit patterns, and the
// kernels receive the encodings produced here.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace mmaemu::hwcheck {

/// The input formats of the matrix instructions the harness runs.
enum class InFmt : uint8_t { fp16, bf16, tf32, e4m3, e5m2 };
inline constexpr InFmt kAllInFmts[] = {InFmt::fp16, InFmt::bf16, InFmt::tf32, InFmt::e4m3,
                                       InFmt::e5m2};

struct InFmtInfo {
  InFmt id;
  const char* folder;  // folder / file-name token: fp16 bf16 tf32 E4M3 E5M2
  int exp_bits;
  int man_bits;        // stored fraction bits; precision p = man_bits + 1
  int emin;            // exponent of the smallest normal number
  int emax;            // exponent of the largest finite binade
  bool has_inf;        // IEEE-like all-ones exponent (fp16 bf16 tf32 e5m2)
  int elem_bytes;      // bytes one element takes in a device tile (tf32: 4)
  uint32_t max_finite; // fp32 bit pattern of the largest finite value
};

const InFmtInfo& info(InFmt f);
inline int precision(InFmt f) { return info(f).man_bits + 1; }
/// Exponent of the smallest subnormal number, emin - (p - 1).
inline int min_sub_exp(InFmt f) { return info(f).emin - info(f).man_bits; }

/// Accepts the folder names and their lower-case spellings (e4m3, e5m2).
std::optional<InFmt> parse_infmt(std::string_view s);

/// Number of distinct encodings the device tile uses (2^width); tf32 has
/// 2^19 (sign, 8 exponent bits, 10 fraction bits in the top of an fp32).
/// Encodings: fp16/bf16 16-bit codes, e4m3/e5m2 8-bit codes, tf32 the fp32
/// bit pattern itself (low 13 bits zero).
uint32_t decode_to_fp32(InFmt f, uint32_t code);

/// The encoding of the value whose fp32 bit pattern is `bits`, if that value
/// is exactly representable; every NaN maps to the format's canonical quiet
/// NaN of the same sign. nullopt if the value is not representable.
std::optional<uint32_t> encode_from_fp32(InFmt f, uint32_t bits);

inline bool representable(InFmt f, uint32_t bits) { return encode_from_fp32(f, bits).has_value(); }

/// fp16 bits -> fp32 bits, exact (for widening fp16 results).
inline uint32_t fp16_to_fp32(uint16_t h) { return decode_to_fp32(InFmt::fp16, h); }

// fp32 bit-pattern helpers.
inline bool fp32_is_nan(uint32_t b) { return (b & 0x7f800000u) == 0x7f800000u && (b & 0x7fffffu); }
inline bool fp32_is_inf(uint32_t b) { return (b & 0x7fffffffu) == 0x7f800000u; }
inline constexpr uint32_t kFp32QNaN = 0x7fc00000u;
inline constexpr uint32_t kFp32Inf = 0x7f800000u;
uint32_t fp32_bits(float x);
float fp32_value(uint32_t b);
/// Exact m * 2^e as an fp32 bit pattern; the value must be representable in
/// fp32 (m < 2^24 and the result inside the fp32 range, subnormals allowed).
uint32_t fp32_from_scaled(bool negative, uint64_t m, int e);

}  // namespace mmaemu::hwcheck
