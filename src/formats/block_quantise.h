// SPDX-License-Identifier: BSD-3-Clause
// Quantisation of fp32 data to block-scaled formats and back
// (docs/block-scaled.md §4.6): OCP MX (shared power-of-two exponent per
// block) and NVFP4 (e2m1 with ue4m3 scales per 16 and a per-tensor fp32
// scale). Every step is one correct rounding of an exact value.
#pragma once

#include <cstddef>
#include <cstdint>

#include "formats/format.h"

namespace mmaemu {

/// OCP MX: for each block of `block` consecutive values (the last may be
/// shorter), X = floor(log2 amax) - emax(elem) clamped to [-127, 127],
/// scale code X + 127, elements RNE(v / 2^X) saturating. amax = 0 gives
/// X = -127; a NaN or Inf in a block gives scale 0xFF and element codes 0.
void quantise_mx(Fmt elem, std::size_t block, const float* v, std::size_t n, uint8_t* codes,
                 uint8_t* scales);

/// NVFP4's per-tensor scales: encode = RNE32(448*6 / amax) over the finite
/// values (1 when amax = 0, at most the largest fp32), decode = RNE32(1/encode).
struct Nvfp4Global {
  float encode, decode;
};
Nvfp4Global nvfp4_global_scale(const float* v, std::size_t n);
/// The same from amax, the largest |v| over the finite values (0 if none).
Nvfp4Global nvfp4_global_of_amax(float amax);

/// NVFP4: per block of 16, scale = RNE_ue4m3_saturating(amax/6 * encode),
/// elements RNE_e2m1_saturating(v * encode / scale) (scale 0: zeros keeping
/// the sign). A block with NaN or Inf gets the NaN scale 0x7F and codes 0.
void quantise_nvfp4(const float* v, std::size_t n, float encode, uint8_t* codes, uint8_t* scales);

/// The per-block steps of quantise_mx() and quantise_nvfp4(), for the SIMD
/// quantisers (kernels/quantise_simd.h) to share: X of a finite block with
/// largest |v| amax (its scale code is X + 127), and NVFP4's scale code of
/// a finite block.
int mx_shared_exponent(Fmt elem, float amax);
uint8_t nvfp4_block_scale(float amax, float encode);
/// The largest finite positive code of an element format (encode_element's
/// saturation bound); throws as encode_element() does.
int element_top_code(Fmt elem);

/// The element code of (-1)^neg * num / den rounded once, to nearest even
/// with saturation (num >= 0 and den > 0 exact binary64 values with at
/// most 48 and 4 significant bits): the conversion quantise_mx (den = 1)
/// and quantise_nvfp4 make per element. Throws std::invalid_argument for a
/// format other than e4m3, e5m2, e3m2, e2m3, e2m1.
uint8_t encode_element(Fmt elem, bool neg, double num, double den);

/// out[i] = RNE32(element * scale * g) with one rounding (NaN scale: NaN).
void dequantise(Fmt elem, Fmt scale, std::size_t block, const uint8_t* codes, const uint8_t* scales,
                std::size_t n, float g, float* out);

/// RNE32 of the exact product x*y*z (NaN, Inf*0 -> NaN).
float mul3_rne32(float x, float y, float z);

}  // namespace mmaemu
