// SPDX-License-Identifier: BSD-3-Clause
// The test vectors of docs/block-scaled.md §5: 61 instructions and 6 GEMMs.
// Element codes are sparse "index:code" / "first..last:code" lists (hex
// codes, unlisted elements 0); "packed XX" is one packed fp4 byte (G20).
// Expected bits come from the specification, not from hardware.
#pragma once

#include <cstdint>
#include <vector>

#include "formats/format.h"

namespace bs_test {

using mmaemu::Fmt;

struct InstrVector {
  const char* id;
  const char* instruction;
  Fmt out;
  Fmt fa, fb;
  const char* a;
  const char* b;
  std::vector<uint8_t> sa, sb;
  uint32_t c, expected;
  const char* what;
};

inline const InstrVector kInstrVectors[] = {
    {"SC1", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e4m3, Fmt::e4m3, "0:38 1:40 2:44", "0:38 1:40 2:44", {0x7F}, {0x7F}, 0x3F000000, 0x41680000, "1·1 + 2·2 + 3·3 + 0.5 = 14.5"},
    {"SC2", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e4m3, Fmt::e4m3, "0:38 1:01", "0:38 1:01", {0x7F}, {0x7F}, 0x0, 0x3F800020, "1 + 2^−18 kept (E = 0, window 2^−25)"},
    {"SC3", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e4m3, Fmt::e4m3, "0:78 1:01", "0:78 1:01", {0x7F}, {0x7F}, 0x0, 0x47800000, "256·256 + 2^−18: truncated (E = 16)"},
    {"SC4", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e4m3, Fmt::e4m3, "0:54 1:07 2:01", "0:5C 1..2:01", {0x7F}, {0x7F}, 0x0, 0x43900001, "12·24 (product significand 2.25, exp 7) + small terms"},
    {"SC5", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e4m3, Fmt::e4m3, "0:59 1:07 2:01", "0:58 1..2:01", {0x7F}, {0x7F}, 0x0, 0x43900000, "18·16 (significand 1.125, exp 8): one bit less kept"},
    {"SC6", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e5m2, Fmt::e5m2, "0:3C 1:08", "0:3C 1:0C", {0x7F}, {0x7F}, 0x0, 0x3F800000, "S = 2^25 + 1, RZ output"},
    {"SC7", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e4m3, Fmt::e4m3, "0:01", "0:38", {0x07}, {0x7F}, 0x0, 0x100000, "2^−9·2^−120 = 2^−129: fp32 subnormal"},
    {"SC8", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e4m3, Fmt::e4m3, "0:81", "0:38", {0x00}, {0x6E}, 0x0, 0x80000000, "−2^−153 kept (floor −133), RZ underflow keeps the sign — S1, Sd: +0"},
    {"SC9", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e4m3, Fmt::e4m3, "0:82", "0:02", {0x00}, {0x6E}, 0x0, 0x0, "−2^−160 under the window of E = −133: +0"},
    {"SC10", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e4m3, Fmt::e4m3, "0:38", "0:38", {0x7F}, {0x7F}, 0x4B800000, 0x4B800000, "c = 2^24 swamps 1·1 (early c)"},
    {"SC11", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e4m3, Fmt::e4m3, "", "", {0x7F}, {0x7F}, 0x0, 0x0, "all zero: +0"},
    {"SC12", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e4m3, Fmt::e4m3, "0:38", "0:38", {0xFF}, {0x7F}, 0x0, 0x7FFFFFFF, "ue8m0 NaN scale"},
    {"SC13", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e4m3, Fmt::e4m3, "0:7F", "0:38", {0x7F}, {0x7F}, 0x0, 0x7FFFFFFF, "e4m3 NaN element"},
    {"SC14", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e5m2, Fmt::e5m2, "0:7C", "", {0x7F}, {0x7F}, 0x0, 0x7FFFFFFF, "Inf · 0"},
    {"SC15", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e5m2, Fmt::e5m2, "0:7C 1:FC", "0..1:3C", {0x7F}, {0x7F}, 0x0, 0x7FFFFFFF, "+Inf + −Inf"},
    {"SC16", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e5m2, Fmt::e5m2, "0:7C", "0:3C", {0x7F}, {0x7F}, 0x0, 0x7F800000, "+Inf survives"},
    {"T8a", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e5m2, Fmt::e5m2, "0:F0 1:B8 2:B4 3:B0", "0:64 1..3:3C", {0x7F}, {0x7F}, 0x4B000000, 0xBF400000, "2^23 − 2^23 − 0.5 − 0.25 − 0.125: the 0.125 is truncated (paper: −0.75)"},
    {"T8b", "tcgen05.mma.kind::mxf4nvf4.block16.ue8m0", Fmt::fp32, Fmt::e2m1, Fmt::e2m1, "0:0E 16..17:0A 18:09", "0:06 16:02 17..18:01", {0x8A, 0x7F, 0x7F, 0x7F}, {0x87, 0x7E, 0x7F, 0x7F}, 0x4B000000, 0xBF600000, "the same sum as fp4 groups: exact (paper: −0.875)"},
    {"ST1", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e4m3, Fmt::e4m3, "0:38", "0:38", {0xFE}, {0xFE}, 0x0, 0x7F800000, "scales 2^127·2^127: 2^254 overflows → +Inf under RZ"},
    {"ST2", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e4m3, Fmt::e4m3, "0:38", "0:38", {0x00}, {0xFE}, 0x0, 0x3F800000, "2^−127·2^127 = 1"},
    {"ST3", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e4m3, Fmt::e4m3, "0:38", "0:38", {0x00}, {0x00}, 0x0, 0x0, "2^−254 under the −133 floor: +0"},
    {"ST4", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e4m3, Fmt::e4m3, "0:38", "0:38", {0x00}, {0x76}, 0x0, 0x2000, "2^−136 inside the window: fp32 subnormal"},
    {"ST5", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e4m3, Fmt::e4m3, "0:7E 1:FE", "0..1:38", {0xFE}, {0xFE}, 0x3F800000, 0x0, "±448·2^254 cancel; E = 262 so c = 1 is truncated; exact 0 → +0"},
    {"ST6", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e4m3, Fmt::e4m3, "0..31:7E", "0..31:7E", {0xB3}, {0xB3}, 0x0, 0x7EC40000, "32·448²·2^104 < 2^128: finite"},
    {"ST7", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e4m3, Fmt::e4m3, "0..31:7E", "0..31:7E", {0xB4}, {0xB4}, 0x0, 0x7F800000, "with 2^106: overflow → +Inf"},
    {"ST8", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e5m2, Fmt::e5m2, "0:3C 1..4:0C", "0:3C 1..4:08", {0x7F}, {0x7F}, 0x0, 0x3F800001, "1 + 4·2^−25 (each on the last window bit)"},
    {"ST9", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e5m2, Fmt::e5m2, "0:3C 1..4:0C", "0:3C 1..4:04", {0x7F}, {0x7F}, 0x0, 0x3F800000, "1 + 4·2^−26: each truncated"},
    {"ST10", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e5m2, Fmt::e5m2, "0:3C 1..4:0C", "0:3C 1..4:08", {0xE3}, {0x1B}, 0x0, 0x3F800001, "ST8 with scales 2^100·2^−100: identical"},
    {"ST11", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e2m3, Fmt::e2m3, "0:1F 1:3F", "0..1:1F", {0x7F}, {0x7F}, 0x3F800000, 0x3F800000, "fp6 e2m3 max 7.5: 7.5² − 7.5² + 1"},
    {"ST12", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e3m2, Fmt::e2m3, "0:1F", "0:1F", {0x7F}, {0x7F}, 0x0, 0x43520000, "e3m2 max 28 × e2m3 max 7.5 = 210 (mixed fp6)"},
    {"ST13", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e3m2, Fmt::e3m2, "0:1F 1:01", "0:1F 1:01", {0x7F}, {0x7F}, 0x0, 0x44440040, "28·28 + subnormal² 2^−8 (E = 8): kept"},
    {"ST14", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e2m3, Fmt::e3m2, "0:01", "0:01", {0x7F}, {0x7F}, 0x30800000, 0x3C000000, "fp6 subnormals 0.125·0.0625 align at exponent −2, so c = 2^−30 is truncated (normalised: 3C000001)"},
    {"ST15", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e4m3, Fmt::e2m1, "0:7E 1:38", "0:07 1:01", {0x7F}, {0x7F}, 0x0, 0x45280800, "mixed e4m3 × e2m1: 448·6 + 1·0.5"},
    {"ST16", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::fp32, Fmt::e2m1, Fmt::e2m1, "0:07 1:01", "0:07 1:01", {0x93}, {0x7C}, 0x0, 0x4A910000, "MXFP4 on the ST unit: (36 + 0.25)·2^17"},
    {"G1", "tcgen05.mma.kind::mxf4.block32.ue8m0", Fmt::fp32, Fmt::e2m1, Fmt::e2m1, "0..15:07", "0..15:07", {0x7F, 0x7F}, {0x7F, 0x7F}, 0x0, 0x44100000, "exact group sum 16·36 = 576"},
    {"G2", "tcgen05.mma.kind::mxf4nvf4.block16.ue8m0", Fmt::fp32, Fmt::e2m1, Fmt::e2m1, "0..31:07", "0..15:07 16..31:0F", {0x7F, 0x7F, 0x7F, 0x7F}, {0x7F, 0x7F, 0x7F, 0x7F}, 0x2EC00000, 0x2EC00000, "576 − 576 + c = 3·2^−35: E = 0 from the scales, c kept"},
    {"G3", "tcgen05.mma.kind::mxf4nvf4.block16.ue8m0", Fmt::fp32, Fmt::e2m1, Fmt::e2m1, "0..31:07", "0..15:07 16..31:0F", {0x7F, 0x7F, 0x7F, 0x7F}, {0x7F, 0x7F, 0x7F, 0x7F}, 0x2D800000, 0x0, "same with c = 2^−36: truncated → +0"},
    {"G4", "tcgen05.mma.kind::mxf4nvf4.block16.ue8m0", Fmt::fp32, Fmt::e2m1, Fmt::e2m1, "0:02 16:02 48:0A", "0:02 16:02 48:02", {0x7F, 0x5C, 0x7F, 0x7F}, {0x7F, 0x7F, 0x7F, 0x7F}, 0x0, 0x2E000000, "1 − 1 + 2^−35: on the F = 35 edge, kept"},
    {"G5", "tcgen05.mma.kind::mxf4nvf4.block16.ue8m0", Fmt::fp32, Fmt::e2m1, Fmt::e2m1, "0:02 16:02 48:0A", "0:02 16:02 48:02", {0x7F, 0x5B, 0x7F, 0x7F}, {0x7F, 0x7F, 0x7F, 0x7F}, 0x0, 0x0, "same with 2^−36: truncated → +0"},
    {"G6", "tcgen05.mma.kind::mxf4.block32.ue8m0", Fmt::fp32, Fmt::e2m1, Fmt::e2m1, "0:02", "0:02", {0x7F, 0xFE}, {0x7F, 0xFE}, 0x0, 0x3F800000, "empty block with scale 2^254 is a zero term (e_zero) — S1: +0"},
    {"G7", "tcgen05.mma.kind::mxf4.block32.ue8m0", Fmt::fp32, Fmt::e2m1, Fmt::e2m1, "0:02 32:02 33:0A", "0:02 32..33:02", {0x7F, 0xFE}, {0x7F, 0xFE}, 0x0, 0x0, "cancelled group (1 − 1) keeps exponent 254 → everything truncated — Sd: 3F800000"},
    {"G8", "tcgen05.mma.kind::mxf4.block32.ue8m0", Fmt::fp32, Fmt::e2m1, Fmt::e2m1, "0:02", "0:02", {0x00, 0x7F}, {0x00, 0x7F}, 0x0, 0x0, "2^−254 with c = 0: E = −139 → +0"},
    {"G9", "tcgen05.mma.kind::mxf4.block32.ue8m0", Fmt::fp32, Fmt::e2m1, Fmt::e2m1, "0:02", "0:02", {0x14, 0x7F}, {0x14, 0x7F}, 0x0, 0x0, "2^−214: still under the window → +0"},
    {"G10", "tcgen05.mma.kind::mxf4.block32.ue8m0", Fmt::fp32, Fmt::e2m1, Fmt::e2m1, "0:02", "0:02", {0x00, 0x7F}, {0x74, 0x7F}, 0x0, 0x800, "2^−138: inside, fp32 subnormal — S1: +0"},
    {"G11", "tcgen05.mma.kind::mxf4.block32.ue8m0", Fmt::fp32, Fmt::e2m1, Fmt::e2m1, "0..31:07", "0..31:07", {0xFE, 0x7F}, {0xFE, 0x7F}, 0x0, 0x7F800000, "1152·2^254 overflows → +Inf"},
    {"G12", "tcgen05.mma.kind::mxf4nvf4.block16.ue4m3", Fmt::fp32, Fmt::e2m1, Fmt::e2m1, "0..63:07", "0..63:07", {0x7E, 0x7E, 0x7E, 0x7E}, {0x7E, 0x7E, 0x7E, 0x7E}, 0x0, 0x4DDC8000, "NVFP4 maximum: 4·576·448²"},
    {"G13", "tcgen05.mma.kind::mxf4nvf4.block16.ue4m3", Fmt::fp32, Fmt::e2m1, Fmt::e2m1, "0:02", "0:02", {0xB8, 0x38, 0x38, 0x38}, {0x38, 0x38, 0x38, 0x38}, 0x0, 0x3F800000, "ue4m3 sign bit ignored: 0xB8 = 1.0"},
    {"G14", "tcgen05.mma.kind::mxf4nvf4.block16.ue4m3", Fmt::fp32, Fmt::e2m1, Fmt::e2m1, "0:02", "0:02", {0x38, 0x38, 0xFF, 0x38}, {0x38, 0x38, 0x38, 0x38}, 0x0, 0x7FFFFFFF, "ue4m3 0xFF (→ 0x7F) is NaN although its group is empty"},
    {"G15", "tcgen05.mma.kind::mxf4nvf4.block16.ue4m3", Fmt::fp32, Fmt::e2m1, Fmt::e2m1, "0:07 16:02", "0:07 16:02", {0x00, 0x38, 0x38, 0x38}, {0x38, 0x38, 0x38, 0x38}, 0x0, 0x3F800000, "ue4m3 zero scale: group 0 (36) vanishes, zero term"},
    {"G16", "tcgen05.mma.kind::mxf4nvf4.block16.ue4m3", Fmt::fp32, Fmt::e2m1, Fmt::e2m1, "0:02", "0:02", {0x01, 0x38, 0x38, 0x38}, {0x01, 0x38, 0x38, 0x38}, 0x3F800000, 0x3F800020, "ue4m3 subnormal scales 2^−9·2^−9 (exponents −6, −6) + c = 1"},
    {"G17", "tcgen05.mma.kind::mxf4nvf4.block16.ue4m3", Fmt::fp32, Fmt::e2m1, Fmt::e2m1, "0:02", "0:02", {0x38, 0x38, 0x38, 0x38}, {0x38, 0x38, 0x38, 0x38}, 0x7FC00000, 0x7FFFFFFF, "c NaN → canonical NaN"},
    {"G18", "tcgen05.mma.kind::mxf4nvf4.block16.ue4m3", Fmt::fp32, Fmt::e2m1, Fmt::e2m1, "0:02", "0:02", {0x38, 0x38, 0x38, 0x38}, {0x38, 0x38, 0x38, 0x38}, 0xFF800000, 0xFF800000, "c = −Inf → −Inf — S1 raises an exception"},
    {"G19", "tcgen05.mma.kind::mxf4nvf4.block16.ue4m3", Fmt::fp32, Fmt::e2m1, Fmt::e2m1, "", "", {0x38, 0x38, 0x38, 0x38}, {0x38, 0x38, 0x38, 0x38}, 0x80000000, 0x0, "all zero, c = −0 → +0"},
    {"G20", "tcgen05.mma.kind::mxf4.block32.ue8m0", Fmt::fp32, Fmt::e2m1, Fmt::e2m1, "packed 71", "packed 17", {0x7F, 0x7F}, {0x7F, 0x7F}, 0x0, 0x40C00000, "low nibble first: a = (0.5, 6), b = (6, 0.5) → 3 + 3"},
    {"G21", "tcgen05.mma.kind::mxf4.block32.ue8m0", Fmt::fp32, Fmt::e2m1, Fmt::e2m1, "0:0A", "0:02", {0x00, 0x7F}, {0x54, 0x7F}, 0x0, 0x80000000, "−2^−170 with c = 0: E = −139, kept, RZ → −0 — S1, Sd: +0"},
    {"T1", "tcgen05.mma.kind::f8f6f4", Fmt::fp32, Fmt::e4m3, Fmt::e2m1, "0:7E 1:38", "0:07 1:01", {}, {}, 0x3F800000, 0x45281800, "unscaled mixed fp8 × fp4: 2688 + 0.5 + 1"},
    {"T2", "tcgen05.mma.kind::f8f6f4", Fmt::fp32, Fmt::e2m1, Fmt::e3m2, "0:01", "0:01", {}, {}, 0x31800000, 0x3D000000, "0.5·0.0625 aligned at 0 + (−2): c = 2^−28 truncated (normalised: 3D000001)"},
    {"T3", "tcgen05.mma.kind::f8f6f4", Fmt::fp16, Fmt::e4m3, Fmt::e2m1, "0:40 1:01", "0:02 1:01", {}, {}, 0x0, 0x4000, "fp16 out: 2 + 2^−10 is a tie → 2"},
    {"T3b", "tcgen05.mma.kind::f8f6f4", Fmt::fp16, Fmt::e4m3, Fmt::e2m1, "0:40 1..3:01", "0:02 1..3:01", {}, {}, 0x0, 0x4002, "fp16 out: 2 + 3·2^−10 is a tie → 2 + 2^−8"},
    {"T4", "tcgen05.mma.kind::f8f6f4", Fmt::fp16, Fmt::e4m3, Fmt::e2m1, "0..31:7E", "0..31:07", {}, {}, 0x0, 0x7C00, "fp16 out: 32·2688 = 86016 → +Inf"},
    {"T5", "tcgen05.mma.kind::f8f6f4", Fmt::fp16, Fmt::e5m2, Fmt::e2m1, "0:FC", "0:02", {}, {}, 0x3C00, 0xFC00, "fp16 out: −Inf·1 + 1 → −Inf"},
};

struct GemmVector {
  const char* id;
  const char* instruction;
  Fmt fa, fb;
  int K;
  const char* a;
  const char* b;
  std::vector<uint8_t> sa, sb;
  uint32_t c;
  float alpha, beta, g_a, g_b;
  bool into_c;
  uint32_t expected;
  const char* what;
};

inline const GemmVector kGemmVectors[] = {
    {"GM1", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::e4m3, Fmt::e4m3, 64, "0..63:38", "0..63:38", {0x7F, 0x7F}, {0x7F, 0x7F}, 0x3F800000, 0.5f, 2.0f, 1.0f, 1.0f, false, 0x42080000, "two ST steps: acc 64, D = fma(0.5, 64, 2·1) = 34"},
    {"GM2", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::e4m3, Fmt::e4m3, 64, "0:38 32:38", "0:38 32:38", {0x7F, 0x7F}, {0x7F, 0x7F}, 0x4B800000, 1.0f, 1.0f, 1.0f, 1.0f, false, 0x4B800001, "acc = 2 from +0; epilogue adds C = 2^24: 2^24 + 2"},
    {"GM3", "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0", Fmt::e4m3, Fmt::e4m3, 64, "0:38 32:38", "0:38 32:38", {0x7F, 0x7F}, {0x7F, 0x7F}, 0x4B800000, 1.0f, 1.0f, 1.0f, 1.0f, true, 0x4B800000, "C is the first accumulator; each step's RZ drops the +1"},
    {"GM4", "tcgen05.mma.kind::mxf4nvf4.block16.ue4m3", Fmt::e2m1, Fmt::e2m1, 128, "0:07 64:07", "0:07 64:07", {0x38, 0x38, 0x38, 0x38, 0x38, 0x38, 0x38, 0x38}, {0x38, 0x38, 0x38, 0x38, 0x38, 0x38, 0x38, 0x38}, 0x0, 1.0f, 0.0f, 0.125f, 3.0f, false, 0x41D80000, "NVFP4 with per-tensor scales: 72 · 0.375 = 27"},
    {"GM5", "tcgen05.mma.kind::mxf4.block32.ue8m0", Fmt::e2m1, Fmt::e2m1, 64, "0:07", "0:07", {0xFE, 0x7F}, {0xFE, 0x7F}, 0x3F800000, 1.0f, 1.0f, 1.0f, 1.0f, false, 0x7F800000, "the unit overflows (36·2^254); Inf + 1 = Inf"},
    {"GM6", "tcgen05.mma.kind::mxf4.block32.ue8m0", Fmt::e2m1, Fmt::e2m1, 64, "0:07", "0:07", {0x7F, 0x7F}, {0x7F, 0x7F}, 0x7FC00000, 1.0f, 0.0f, 1.0f, 1.0f, false, 0x42100000, "beta = 0: C (a NaN) is never read"},
};

}  // namespace bs_test
