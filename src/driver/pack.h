// SPDX-License-Identifier: BSD-3-Clause
// Packing: op(A) rows and op(B) columns converted to the unit's input
// format and laid out as the kernels read them (docs/kernels.md, "pack
// schemas"). Three schemas, one per macro-kernel:
//   Panel       steps macro: bit patterns (reference fallback), decoded
//               integer operands (scalar kernels), float values and
//               significands (SIMD kernels), B also lane-interleaved.
//   chain       FMA-chain tiles: BLIS micro-panels of host floats/doubles.
//   ExactPanel  CDNA1 exact kernel: doubles and per-block exponent bounds.
#pragma once

#include <cstddef>
#include <algorithm>
#include <cstdint>
#include <new>
#include <vector>

#include "hwy/aligned_allocator.h"

#include "driver/gemm.h"
#include "driver/scratch.h"
#include "formats/fast_convert.h"
#include "formats/narrow_table.h"
#include "kernels/simd.h"

namespace mmaemu::driver {

// One packed operand panel: `count` vectors of `kp` elements (rows of A or
// columns of B), each vector contiguous along k.
struct Panel {
  std::size_t kp = 0, steps = 0;
  std::vector<uint64_t> bits;    // row.in bit patterns, for the reference fallback
  std::vector<int32_t> sig, exp; // fast-kernel operands (pack_element)
  std::vector<uint8_t> special;  // per (vector, step): NaN/Inf present
  // SIMD kernels: values and significands as floats (A); B holds them
  // lane-interleaved instead (groups of 16 vectors, element l of lane j at
  // l*16 + j).
  std::vector<float> fval, fsig, lane_val, lane_sig;
  std::vector<int32_t> lane_exp;
  std::vector<uint8_t> group_special;  // per (group, step)
  // SimdKind::interleaved: the fast arrays hold each instruction's k
  // permuted (pair_position); `bits` keep the model's order.
  bool interleave = false;

  void resize(std::size_t count, bool simd, bool lanes) {
    shape(count, simd, lanes);
    clear_vectors(0, count);
    for (std::size_t g = 0; g * kernels::kSimdLanes < count && !lane_sig.empty(); ++g) clear_group(g);
  }

  // Sizes the arrays for `count` vectors without filling them (they may
  // stay larger; the layout follows kp and steps). Arrays a call does not
  // use are emptied, as pack_vector() fills those that are not empty. A
  // panel reused across calls or chunks is then cleared vector by vector
  // (clear_vectors, clear_group) by the threads that pack it.
  void shape(std::size_t count, bool simd, bool lanes) {
    const std::size_t n = count * kp, groups = (count + kernels::kSimdLanes - 1) / kernels::kSimdLanes;
    grow(bits, n), grow(sig, n), grow(exp, n), grow(special, count * steps);
    if (simd && !lanes) grow(fsig, n), grow(fval, n);
    else fsig.clear(), fval.clear();
    if (simd && lanes) {
      const std::size_t nl = groups * kp * kernels::kSimdLanes;
      grow(lane_sig, nl), grow(lane_val, nl), grow(lane_exp, nl), grow(group_special, groups * steps);
    } else {
      lane_sig.clear(), lane_val.clear(), lane_exp.clear(), group_special.clear();
    }
  }
  // Zero operands in vectors [v0, v1) (B's lane arrays: clear_group).
  void clear_vectors(std::size_t v0, std::size_t v1) { clear_vectors(v0, v1, 0, kp); }
  // The same for positions [l0, l1) of each vector (whole steps).
  void clear_vectors(std::size_t v0, std::size_t v1, std::size_t l0, std::size_t l1) {
    const std::size_t s0 = step_of(l0), s1 = step_of(l1);
    for (std::size_t v = v0; v < v1; ++v) {
      const std::size_t a = v * kp + l0, b = v * kp + l1;
      std::fill(bits.begin() + a, bits.begin() + b, 0);
      std::fill(sig.begin() + a, sig.begin() + b, 0);
      std::fill(exp.begin() + a, exp.begin() + b, kernels::kZeroExp);
      std::fill(special.begin() + v * steps + s0, special.begin() + v * steps + s1, 0);
      if (!fsig.empty()) {
        std::fill(fsig.begin() + a, fsig.begin() + b, 0.0f);
        std::fill(fval.begin() + a, fval.begin() + b, 0.0f);
      }
    }
  }
  // Readies vectors [v0, v1) (and, with lanes, their groups' lanes) for
  // packing positions [l0, l1) of a chunk of kc k (whole steps): packing
  // writes every position of the whole steps below kc, so only the flags
  // and a last, partial step (which packing fills in part, permuted when
  // interleaved) are cleared. Lanes of a group past v1 are filled by
  // replicate_lane0().
  void clear_for_pack(std::size_t v0, std::size_t v1, std::size_t l0, std::size_t l1, std::size_t kc) {
    const std::size_t step = steps ? kp / steps : 1, tail = std::clamp(kc / step * step, l0, l1);
    clear_vectors(v0, v1, tail, l1);
    for (std::size_t v = v0; v < v1; ++v)
      std::fill(special.begin() + v * steps + step_of(l0), special.begin() + v * steps + step_of(tail), 0);
    if (lane_sig.empty()) return;
    for (std::size_t g = v0 / kernels::kSimdLanes; g * kernels::kSimdLanes < v1; ++g) {
      clear_group(g, tail, l1);
      std::fill(group_special.begin() + g * steps + step_of(l0), group_special.begin() + g * steps + step_of(tail), 0);
    }
  }
  // Lanes [count, 16) of group g, positions [l0, l1), as copies of lane 0:
  // a short group's unused lanes then take the kernels' paths of a real
  // column (zero operands would send every block to the general path);
  // their results are never stored.
  void replicate_lane0(std::size_t g, std::size_t count, std::size_t l0, std::size_t l1) {
    for (std::size_t l = l0; l < l1; ++l) {
      const std::size_t at = (g * kp + l) * kernels::kSimdLanes;
      std::fill(lane_sig.begin() + at + count, lane_sig.begin() + at + kernels::kSimdLanes, lane_sig[at]);
      std::fill(lane_val.begin() + at + count, lane_val.begin() + at + kernels::kSimdLanes, lane_val[at]);
      std::fill(lane_exp.begin() + at + count, lane_exp.begin() + at + kernels::kSimdLanes, lane_exp[at]);
    }
  }
  // Zero operands in lane group g (all 16 lanes) and its flags.
  void clear_group(std::size_t g) { clear_group(g, 0, kp); }
  // The same for positions [l0, l1) (whole steps).
  void clear_group(std::size_t g, std::size_t l0, std::size_t l1) {
    const std::size_t a = (g * kp + l0) * kernels::kSimdLanes, b = (g * kp + l1) * kernels::kSimdLanes;
    std::fill(lane_sig.begin() + a, lane_sig.begin() + b, 0.0f);
    std::fill(lane_val.begin() + a, lane_val.begin() + b, 0.0f);
    std::fill(lane_exp.begin() + a, lane_exp.begin() + b, kernels::kZeroExp);
    std::fill(group_special.begin() + g * steps + step_of(l0), group_special.begin() + g * steps + step_of(l1), 0);
  }

  // The bytes the panel holds (the scratch arena's trim rule, scratch.h).
  std::size_t held_bytes() const {
    return scratch_bytes(bits, sig, exp, special, fval, fsig, lane_val, lane_sig, lane_exp, group_special);
  }

 private:
  std::size_t step_of(std::size_t l) const { return kp ? l * steps / kp : 0; }  // l: a whole number of steps
  template <typename T>
  static void grow(std::vector<T>& v, std::size_t n) {
    if (v.size() < n) v.resize(n);
  }
};

// A growable 64-byte aligned buffer (contents not kept on growth).
template <typename T>
struct AlignedBuf {
  hwy::AlignedFreeUniquePtr<T[]> p;
  std::size_t cap = 0;
  T* get(std::size_t count) {
    if (count > cap || !p) {
      p = hwy::AllocateAligned<T>(std::max<std::size_t>(count, 1));
      if (!p) throw std::bad_alloc();  // the C API reports it
      cap = std::max<std::size_t>(count, 1);
    }
    return p.get();
  }
  std::size_t held_bytes() const { return cap * sizeof(T); }  // scratch.h
};

// ---------------------------------------------------------------------------
// Exact rows (CDNA1) on simd_exact_run16: operands as doubles (exact), per
// block the power-of-two bounds of exact_bounds() and NaN/Inf flags.
struct ExactPanel {
  std::size_t kp = 0, steps = 0, count = 0, groups = 0;
  AlignedBuf<double> val, lo, hi;      // A: val[v*kp + l], lo/hi[v*steps + s]
                                       // B: val[(g*kp + l)*16 + j], lo/hi[(g*steps + s)*16 + j]
  std::vector<uint8_t> special;        // per (vector, step)
  std::vector<uint8_t> group_special;  // B: per (group, step)

  void resize(std::size_t n, std::size_t kp_, std::size_t steps_, bool lanes) {
    count = n, kp = kp_, steps = steps_;
    groups = (n + kernels::kSimdLanes - 1) / kernels::kSimdLanes;
    const std::size_t vecs = lanes ? groups * kernels::kSimdLanes : n;
    val.get(vecs * kp);
    lo.get(vecs * steps);
    hi.get(vecs * steps);
    special.assign(n * steps, 0);
    if (lanes) group_special.assign(groups * steps, 0);
  }
  // The bytes the panel holds (the scratch arena's trim rule, scratch.h).
  std::size_t held_bytes() const { return scratch_bytes(val, lo, hi, special, group_special); }
};

// One unit-format element decoded for the steps kernels: pack_element()'s
// sig and exp; the SIMD fields fsig = sig as float and fval = the value
// (real operands: fval = the fp32 value, fsig = 0).
struct Decoded {
  int32_t sig, exp;
  float fsig, fval;
};
// The reference decoding (pack_element, ldexp); finite: false for NaN/Inf.
// pack_vector() gives exactly these fields by faster means.
Decoded decode_operand(const ModelRow& row, uint64_t bits, bool& finite);

// Unit formats of up to 16 bits decode through a table of every code, built
// once per distinct decoding (the row facts pack_element() reads) by
// decode_operand() itself, so its entries are those bits by construction.
struct DecodeTable {
  std::vector<Decoded> d;
  std::vector<uint8_t> finite;
  std::vector<int32_t> nonfinite;  // !finite as words, for SIMD gathers (kernels::PackDecode)
};
// kernels::PackDecode reads the decoded fields as 4 words per code.
static_assert(sizeof(Decoded) == 16 && offsetof(Decoded, exp) == 4 && offsetof(Decoded, fsig) == 8 &&
              offsetof(Decoded, fval) == 12);
// The row's table (kept for the life of the process); null for wider formats.
const DecodeTable* decode_table(const ModelRow& row);

// Where element j of an instruction of 2*half elements goes in the
// interleaved HMMA path's packing: its two groups contiguous.
//
//   position j:  0 1 2 3 4 5 6 7 ...      j % 4 < 2: first group
//   packed at:   0 1 h h+1 2 3 h+2 h+3    (h = half)
inline std::size_t pair_position(std::size_t j, std::size_t half) {
  return (j % 4 < 2 ? 0 : half) + (j / 4) * 2 + (j % 2);
}

// The storage -> unit-format conversion of one element while packing:
// convert(storage, in, bits, r, ov), the usual sgemm cases without the
// generic decode: fp32 -> fp16/bf16/tf32 by bit arithmetic, fp32 -> fp8 by
// the table of formats/narrow_table.h (every rounding and overflow policy).
// The fp32 -> fp16/bf16/tf32 cases need the host in round-to-nearest
// without FTZ/DAZ (kernels/fp_env.h); NaN goes the generic way (its pattern)
// except through the table, which holds convert()'s NaN.
enum class InputPath : uint8_t { same, fp32_fp16_rne, fp32_bf16_rne, fp32_tf32_rne, fp32_tf32_rz, fp32_table, generic };
struct InputConv {
  InputPath path = InputPath::generic;
  const uint8_t* table = nullptr;  // fp32_table: fp32_narrow_table(in, r, ov)
};
InputConv input_conv(Fmt storage, Fmt in, Round r, Overflow ov);

inline uint64_t convert_packed(const InputConv& conv, Fmt storage, Fmt in, uint64_t raw, Round r, Overflow ov) {
  const uint32_t b = static_cast<uint32_t>(raw);
  const bool nan = (b & 0x7FFFFFFFu) > 0x7F800000u;
  switch (conv.path) {
    case InputPath::same: return raw;
    case InputPath::fp32_fp16_rne: if (!nan) return f32_to_f16_rne(b); break;
    case InputPath::fp32_bf16_rne: if (!nan) return f32_to_bf16_rne(b); break;
    // tf32 = fp32 with 10 fraction bits, the same exponent range: RNE on
    // the low 13 bits (a carry into the exponent gives the next binade or
    // Inf, as round_pack does).
    case InputPath::fp32_tf32_rne: if (!nan) return (b + 0xFFFu + ((b >> 13) & 1u)) & 0xFFFFE000u; break;
    case InputPath::fp32_tf32_rz: if (!nan) return b & 0xFFFFE000u; break;
    case InputPath::fp32_table: return fp32_narrow(conv.table, b);
    case InputPath::generic: break;
  }
  return convert_input(storage, in, raw, r, ov);
}

// How pack_vectors() converts and decodes: best = the SIMD conversion and
// decode (kernels/pack_simd.h) where it applies (fp32 storage to fp16, bf16
// or tf32 without interleave; to an fp8 format, any panel), else element by
// element; scalar = element by
// element always (the tests' reference for the SIMD one).
enum class PackMode : uint8_t { best, scalar };

// Packs vectors v0 .. v0+count-1 of the panel from op(X) vectors index0 ..
// index0+count-1 (rows of A or columns of B), k elements from k0 on, at
// the panel's positions pos0 .. pos0+k-1 (pos0 a whole number of steps);
// the vectors are read together (contiguous rows of B when k is strided).
// Both modes give the same panel, bit for bit.
void pack_vectors(const ModelRow& row, const GemmSpec& spec, const Operand& X, bool is_a, std::size_t index0,
                  std::size_t count, std::size_t k0, std::size_t k, Panel& p, std::size_t v0, std::size_t pos0 = 0,
                  PackMode mode = PackMode::best);

// Whether pack_vectors(..., PackMode::best) takes the SIMD conversion and
// decode for this row, policy, storage and panel.
bool pack_simd_applies(const ModelRow& row, const GemmSpec& spec, Fmt storage, const Panel& p);

// Packs vector v of the panel from op(X) row/column `index`, k elements
// from k0 on.
void pack_vector(const ModelRow& row, const GemmSpec& spec, const Operand& X, bool is_a,
                 std::size_t index, std::size_t k0, std::size_t k, Panel& p, std::size_t v);

// ---------------------------------------------------------------------------
// FMA-chain rows (fp32 SFMA, fp64 DMMA / f64 MFMA): operands are the unit's
// IEEE values, packed BLIS-style for simd_chain_tile: A in micro-panels of
// kChainMR rows (a[l*MR + r]), B in micro-panels of NR columns (b[l*NR + j]),
// zero-padded. fp32 storage for an fp32 unit (fp64 for fp64) is copied as is.

// Packs vectors first .. first+count-1 of op(X) (k0 .. k0+kc-1) into
// micro-panels of `width` vectors: dst[(p*kc + l)*width + q].
template <typename T>
void pack_chain(const ModelRow& row, const GemmSpec& spec, const Operand& X, bool is_a, std::size_t first,
                std::size_t count, std::size_t k0, std::size_t kc, std::size_t width, T* dst);

// Packs vector v of an exact panel from op(X) vector `index` (k0 .. k0+kc-1),
// its steps [s0, s1) (all of them, or one thread's slice of the chunk).
void pack_exact(const ModelRow& row, const GemmSpec& spec, const Operand& X, bool is_a, std::size_t index,
                std::size_t k0, std::size_t kc, ExactPanel& p, std::size_t v, std::size_t s0 = 0,
                std::size_t s1 = SIZE_MAX);

// Lane group g of an exact B panel (vectors 16g .. 16g+15 below p.count,
// from op(X) vectors index0 ..) over its steps [s0, s1): the SIMD packer
// (kernels::exact_pack_lanes) for fp32 storage rounded to fp16 or bf16 with
// RNE, the blocks it lists and every other case by pack_exact(); then the
// group's NaN/Inf flags for those steps. The same fields as pack_exact().
void pack_exact_group(const ModelRow& row, const GemmSpec& spec, const Operand& X, std::size_t index0,
                      std::size_t k0, std::size_t kc, ExactPanel& p, std::size_t g, std::size_t s0, std::size_t s1);

// A's vectors 0 .. count-1 of an exact panel from op(X) vectors index0 ..
// (k0 .. k0+kc-1): fp32 storage rounded to fp16 or bf16 with RNE by the
// SIMD converters (fewer than 16 rows with k contiguous: a row at a time,
// then each block's bounds; else 16 rows at a time as the lanes of
// exact_pack_lanes(), moved to the row layout); the blocks with an odd element and every other case
// by pack_exact(). The same fields as pack_exact() of each vector.
void pack_exact_rows(const ModelRow& row, const GemmSpec& spec, const Operand& X, std::size_t index0,
                     std::size_t count, std::size_t k0, std::size_t kc, ExactPanel& p);

// B lanes past the panel's last column: zero operands, neutral bounds
// (steps [s0, s1) only).
void pad_exact_lanes(const ModelRow& row, ExactPanel& p, std::size_t s0 = 0, std::size_t s1 = SIZE_MAX);

// An integer significand and exponent of a finite double with at most
// man+1 significant bits, as pack_element() gives them (value sig * 2^(exp-man)).
void split_exact(double x, int man, int32_t& sig, int32_t& exp);

}  // namespace mmaemu::driver
