// SPDX-License-Identifier: BSD-3-Clause
// Product panels of the batched instructions (docs/batch.md), packed with
// SIMD for units of formats up to 16 bits: 16 lanes of independent (a, b) pairs, each
// lane's products a_l*b_l formed as the step kernels form them from a row
// panel and a lane panel (docs/kernels.md): value times value, significand
// times significand (floats), exponent plus exponent (pairwise rows: the
// values as read), every operand decoded from its bit fields exactly as
// pack_element() and the driver's decode_operand() give it
// (tests/driver/batch_test.cpp compares every code of every unit format).
#pragma once

#include <cstddef>
#include <cstdint>

namespace mmaemu::kernels {

/// How a unit reads the codes of its input format (up to 16 bits; the
/// format's bit fields and the row facts pack_element() reads).
struct CodeDecode {
  enum class Specials : uint8_t { ieee, e4m3fn, fnuz };  // formats/format.h's
  int width, exp_bits, man_bits, bias;
  Specials specials;
  bool fp16;           // the value by the host's fp16 -> fp32 conversion
  bool bf16;           // the value is the code as the top half of a binary32
  bool real;           // Decoding::real: the value as read (pairwise rows)
  bool in_sub;  // false: subnormal inputs read as zero
  bool keep_sign;      // real: a flushed input keeps its sign (flush_sign = keep), else +0
  bool pos_zero;       // real: -0 reads as +0 (neg_zero = positive)
  bool as_fp16;        // integer operands decomposed as fp16 (fp8 read as fp16)
};

/// Positions l = 0 .. kc-1 of 16 lanes, codes position-major (lane j's
/// element l at ca[l*16 + j], cb likewise): with the decoded operands of
/// lane j,
///   val[pos[l]*16 + j] = val_a * val_b,  sig[...] = sig_a * sig_b,
///   exp[...] = exp_a + exp_b  (real: 0, sig 0)
/// (binary32 products rounded to nearest: the caller holds FpEnvGuard).
/// Returns the lanes (bit j) with a NaN or Inf input, whose entries are
/// then not meaningful.
uint32_t simd_code_products16(const CodeDecode& d, const uint16_t* ca, const uint16_t* cb, std::size_t kc,
                              const uint32_t* pos, float* val, float* sig, int32_t* exp);

/// out[l*16 + j] = rows[j][l] for l < kc and j < 16: 16 lanes' contiguous
/// codes in the position-major order of simd_code_products16.
void simd_transpose_codes16(const uint16_t* const* rows, std::size_t kc, uint16_t* out);
void simd_transpose_codes16(const uint8_t* const* rows, std::size_t kc, uint16_t* out);

/// The decoded fields of `count` codes (val, sig, exp as the driver's
/// decode_operand gives them; special: NaN or Inf), for the tests.
void simd_code_decode(const CodeDecode& d, const uint16_t* codes, std::size_t count, float* val, float* sig,
                      int32_t* exp, uint8_t* special);

}  // namespace mmaemu::kernels
