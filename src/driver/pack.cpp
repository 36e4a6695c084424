// SPDX-License-Identifier: BSD-3-Clause
#include "driver/pack.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "driver/scratch.h"
#include "formats/fast_convert.h"
#include "formats/fast_round.h"
#include "kernels/pack_simd.h"
#include "models/row_facts.h"

namespace mmaemu::driver {
namespace {

// Strides of vector `index` and of k in op(X) (A: rows, B: columns).
struct VecStrides {
  std::ptrdiff_t idx, k;
};
VecStrides vec_strides(const Operand& X, bool is_a) {
  const bool k_contig = is_a != X.trans;  // A(i, k) at i*ld + k; B^T(k, j) at j*ld + k
  return k_contig ? VecStrides{X.ld, 1} : VecStrides{1, X.ld};
}

// The unit's value of one stored element, as the chain reads it.
template <typename T>
T chain_value(const ModelRow& row, const GemmSpec& spec, const Operand& X, std::ptrdiff_t off) {
  const uint64_t bits = convert_input(X.storage, row.in, load(X.storage, X.data, off), spec.input_round, spec.input_overflow);
  if constexpr (sizeof(T) == 4)
    return std::bit_cast<float>(row.in == Fmt::fp32 ? static_cast<uint32_t>(bits) : to_fp32_bits(row.in, bits));
  else
    return std::bit_cast<double>(bits);  // row.in == fp64
}

// The unit-format element as a double (NaN/Inf kept; `special` set for them).
double exact_value(const ModelRow& row, uint64_t bits, bool& special) {
  uint32_t f;
  if (row.in == Fmt::fp16) f = fp16_to_fp32(static_cast<uint32_t>(bits));
  else if (row.in == Fmt::bf16) f = static_cast<uint32_t>(bits) << 16;
  else f = to_fp32_bits(row.in, bits);
  special = (f & 0x7F800000u) == 0x7F800000u;
  return static_cast<double>(std::bit_cast<float>(f));
}

}  // namespace

// The per-element decode of pack_vector(), as the generic path computes it.
Decoded decode_operand(const ModelRow& row, uint64_t bits, bool& finite) {
  Decoded d{};
  finite = kernels::pack_element(row, bits, d.sig, d.exp);
  if (kernels::decoding_of(row) == kernels::Decoding::real) {
    d.fval = std::bit_cast<float>(static_cast<uint32_t>(d.sig));  // the fp32 value; fsig unused
  } else {
    // The unit's operand value (fp8 already widened to fp16): exact in fp32.
    d.fsig = static_cast<float>(d.sig);
    d.fval = std::ldexp(d.fsig, d.exp - kernels::unit_man(row));
  }
  return d;
}

// in, kind, inputs_as_fp16, in_subnormals, flush_sign, neg_zero
using DecodeKey = std::tuple<Fmt, kernels::Decoding, bool, bool, FlushSign, NegZero>;

const DecodeTable* decode_table(const ModelRow& row) {
  if (info(row.in).width > 16) return nullptr;
  const DecodeKey key{row.in, kernels::decoding_of(row), row.as_fp16, row.in_sub, row.flush_sign,
                      row.neg_zero};
  thread_local DecodeKey last_key{};
  thread_local const DecodeTable* last = nullptr;
  if (last && key == last_key) return last;
  static std::mutex mu;
  static std::map<DecodeKey, std::unique_ptr<DecodeTable>> tables;  // a handful of keys, never freed
  const std::lock_guard<std::mutex> lock(mu);
  std::unique_ptr<DecodeTable>& t = tables[key];
  if (!t) {
    t = std::make_unique<DecodeTable>();
    const std::size_t codes = std::size_t{1} << info(row.in).width;
    t->d.resize(codes);
    t->finite.resize(codes);
    t->nonfinite.resize(codes);
    for (std::size_t c = 0; c < codes; ++c) {
      bool finite;
      t->d[c] = decode_operand(row, c, finite);
      t->finite[c] = finite;
      t->nonfinite[c] = !finite;
    }
  }
  last_key = key;
  last = t.get();
  return last;
}

namespace {

// fp32 and tf32 units (fp32 layout): normal values decoded here, the rest
// by decode_operand(). Integer operands: sig = +-1.f as an integer, value
// sig * 2^(exp - man); real operands: sig = the fp32 bits, exp = 0.
struct Fp32Layout {
  bool on = false, real = false;
  int man = 0, shift = 0;
};
Fp32Layout fp32_layout(const ModelRow& row) {
  Fp32Layout f;
  if ((row.in != Fmt::fp32 && row.in != Fmt::tf32) || row.as_fp16) return f;
  const kernels::Decoding kind = kernels::decoding_of(row);
  if (kind == kernels::Decoding::real64 || kernels::unit_man(row) != info(row.in).man_bits) return f;
  f.real = kind == kernels::Decoding::real;
  if (f.real && row.in != Fmt::fp32) return f;  // (tf32 real operands: the generic way)
  f.on = true;
  f.man = info(row.in).man_bits;
  f.shift = 23 - f.man;
  return f;
}

inline bool decode_fp32_normal(const Fp32Layout& f, uint32_t b, Decoded& d) {
  const uint32_t e = (b >> 23) & 255;
  if (e == 0 || e == 255) return false;
  if (f.real) {
    d = {static_cast<int32_t>(b), 0, 0.0f, std::bit_cast<float>(b)};
    return true;
  }
  const int32_t mag = static_cast<int32_t>((1u << f.man) | ((b & 0x7FFFFFu) >> f.shift));
  d.sig = b >> 31 ? -mag : mag;
  d.exp = static_cast<int32_t>(e) - 127;
  d.fsig = static_cast<float>(d.sig);
  d.fval = std::bit_cast<float>(b & ~((1u << f.shift) - 1));  // tf32: bits below its fraction are not read
  return true;
}

// Gathers op(X)'s vectors index0 .. index0+count-1, elements k0 .. k0+k-1,
// as storage bits: raw[q*k + l]. When k is not contiguous in memory the
// vectors are read together, element l of each in turn (contiguous reads
// across the vectors, not one stride of ld per element).
// pos_major: raw[l*count + q] instead (the lane-interleaved packing's order).
template <typename S>
void gather_stored(const Operand& X, bool is_a, std::size_t index0, std::size_t count, std::size_t k0,
                   std::size_t k, uint64_t* raw, bool pos_major) {
  const VecStrides st = vec_strides(X, is_a);
  const S* src = static_cast<const S*>(X.data) + static_cast<std::ptrdiff_t>(index0) * st.idx +
                 static_cast<std::ptrdiff_t>(k0) * st.k;
  const std::size_t qs = pos_major ? 1 : k, ls = pos_major ? count : 1;  // raw strides of q and l
  if (st.k == 1) {
    for (std::size_t q = 0; q < count; ++q)
      for (std::size_t l = 0; l < k; ++l)
        raw[q * qs + l * ls] = src[static_cast<std::ptrdiff_t>(q) * st.idx + static_cast<std::ptrdiff_t>(l)];
    return;
  }
  for (std::size_t l = 0; l < k; ++l) {
    const S* row_l = src + static_cast<std::ptrdiff_t>(l) * st.k;
    for (std::size_t q = 0; q < count; ++q) raw[q * qs + l * ls] = row_l[static_cast<std::ptrdiff_t>(q) * st.idx];
  }
}

void gather(const Operand& X, bool is_a, std::size_t index0, std::size_t count, std::size_t k0, std::size_t k,
            uint64_t* raw, bool pos_major) {
  switch (info(X.storage).width) {
    case 64: return gather_stored<uint64_t>(X, is_a, index0, count, k0, k, raw, pos_major);
    case 32: return gather_stored<uint32_t>(X, is_a, index0, count, k0, k, raw, pos_major);
    case 16: return gather_stored<uint16_t>(X, is_a, index0, count, k0, k, raw, pos_major);
    default: return gather_stored<uint8_t>(X, is_a, index0, count, k0, k, raw, pos_major);
  }
}

// One unit-format element decoded: from the row's table (units of up to 16
// bits), the fp32-layout fast path, or decode_operand(); false for NaN/Inf.
inline bool decode_packed(const ModelRow& row, uint64_t bits, const DecodeTable* table, const Fp32Layout& f32,
                          Decoded& d) {
  if (table && bits < table->d.size()) {  // (a sub-byte format's container may hold more bits)
    d = table->d[bits];
    return table->finite[bits];
  }
  if (f32.on && decode_fp32_normal(f32, static_cast<uint32_t>(bits), d)) return true;
  bool finite = true;
  d = decode_operand(row, bits, finite);
  return finite;
}

// Where position l of an instruction's k is stored in the fast arrays.
inline std::size_t fast_position(const Panel& p, std::size_t l, std::size_t step) {
  return p.interleave ? l - l % step + pair_position(l % step, step / 2) : l;
}

// Vector v of a panel without lanes (A, or a scalar plan's B) from its k
// storage elements raw[0 .. k-1], at positions pos0 .. pos0+k-1: each
// element to unit bits (convert_packed), then decode_packed().
void pack_raw(const ModelRow& row, const GemmSpec& spec, const InputConv& conv, Fmt storage, const uint64_t* raw,
              std::size_t k, Panel& p, std::size_t v, std::size_t pos0, const DecodeTable* table,
              const Fp32Layout& f32) {
  const std::size_t step = step_k(row);
  const bool simd = !p.fsig.empty();
  uint64_t* bits_out = p.bits.data() + v * p.kp;
  uint8_t* special = p.special.data() + v * p.steps;
  for (std::size_t l = pos0; l < pos0 + k; ++l) {
    const uint64_t bits = convert_packed(conv, storage, row.in, raw[l - pos0], spec.input_round, spec.input_overflow);
    bits_out[l] = bits;
    const std::size_t pos = fast_position(p, l, step), at = v * p.kp + pos;
    Decoded d;
    const bool finite = decode_packed(row, bits, table, f32, d);
    p.sig[at] = d.sig;
    p.exp[at] = d.exp;
    if (!finite) special[l / step] = 1;
    if (simd) p.fsig[at] = d.fsig, p.fval[at] = d.fval;
  }
}

// Vectors v0 .. v0+count-1 of one lane group (v0 % 16 + count <= 16) from
// raw[l*count + q], position by position: each position's lanes are
// written together (one cache line per array) rather than one vector's
// elements 64 bytes apart. The fields of pack_raw(), B's lane arrays in
// place of fsig/fval.
void pack_group(const ModelRow& row, const GemmSpec& spec, const InputConv& conv, Fmt storage, const uint64_t* raw,
                std::size_t count, std::size_t k, Panel& p, std::size_t v0, std::size_t pos0, const DecodeTable* table,
                const Fp32Layout& f32) {
  const std::size_t step = step_k(row), g = v0 / kernels::kSimdLanes, lane0 = v0 % kernels::kSimdLanes;
  for (std::size_t l = pos0; l < pos0 + k; ++l) {
    const std::size_t pos = fast_position(p, l, step), li = (g * p.kp + pos) * kernels::kSimdLanes + lane0;
    const uint64_t* in = raw + (l - pos0) * count;
    for (std::size_t q = 0; q < count; ++q) {
      const std::size_t v = v0 + q;
      const uint64_t bits = convert_packed(conv, storage, row.in, in[q], spec.input_round, spec.input_overflow);
      p.bits[v * p.kp + l] = bits;
      Decoded d;
      if (!decode_packed(row, bits, table, f32, d)) p.special[v * p.steps + l / step] = 1;
      p.sig[v * p.kp + pos] = d.sig;
      p.exp[v * p.kp + pos] = d.exp;
      p.lane_sig[li + q] = d.fsig, p.lane_val[li + q] = d.fval, p.lane_exp[li + q] = d.exp;
    }
  }
}

// One element by the scalar path, at position l of vector v (panels
// without interleave): the fields pack_raw() or pack_group() write.
void pack_scalar_element(const ModelRow& row, const GemmSpec& spec, const InputConv& conv, Fmt storage, uint64_t raw,
                         const DecodeTable* table, const Fp32Layout& f32, Panel& p, std::size_t v, std::size_t l) {
  const uint64_t bits = convert_packed(conv, storage, row.in, raw, spec.input_round, spec.input_overflow);
  const std::size_t at = v * p.kp + l;
  Decoded d;
  if (!decode_packed(row, bits, table, f32, d)) p.special[v * p.steps + l / step_k(row)] = 1;
  p.bits[at] = bits;
  p.sig[at] = d.sig;
  p.exp[at] = d.exp;
  if (!p.fsig.empty()) p.fsig[at] = d.fsig, p.fval[at] = d.fval;
  if (!p.lane_sig.empty()) {
    const std::size_t li = ((v / kernels::kSimdLanes) * p.kp + l) * kernels::kSimdLanes + v % kernels::kSimdLanes;
    p.lane_sig[li] = d.fsig, p.lane_val[li] = d.fval, p.lane_exp[li] = d.exp;
  }
}

// The SIMD conversion and decode (kernels/pack_simd.h) serves fp32 storage
// rounded to fp16 or bf16 (RNE) or tf32 (RNE, RZ) by the fast conversions,
// decoded by the table (fp16, bf16) or the fp32 layout (tf32, integer
// operands), into a panel without interleave; its zeros are
// decode_packed()'s. And fp32 storage converted to an fp8 format by its
// table (every policy), decoded by the row's table, into any panel.
bool simd_decode(const ModelRow& row, const InputConv& conv, Fmt storage, const Panel& p, const DecodeTable* table,
                 const Fp32Layout& f32, kernels::PackDecode& pd) {
  if (storage == Fmt::fp32 && conv.path == InputPath::fp32_table && table && table->d.size() == 256) {
    if (p.interleave && step_k(row) % 4 != 0) return false;  // (each_position's pairs)
    pd.conv = kernels::PackConv::fp8_table;  // (any panel: interleaved ones too)
    pd.narrow = conv.table;
    pd.decoded = reinterpret_cast<const int32_t*>(table->d.data());
    pd.nonfinite = table->nonfinite.data();
    return true;
  }
  const kernels::Decoding kind = kernels::decoding_of(row);
  if (storage != Fmt::fp32 || p.interleave || row.as_fp16 || kind == kernels::Decoding::real64) return false;
  uint64_t neg_zero = 0x8000u;
  switch (conv.path) {
    case InputPath::fp32_fp16_rne: pd.conv = kernels::PackConv::fp16_rne; break;
    case InputPath::fp32_bf16_rne: pd.conv = kernels::PackConv::bf16_rne; break;
    case InputPath::fp32_tf32_rne: pd.conv = kernels::PackConv::tf32_rne; break;
    case InputPath::fp32_tf32_rz: pd.conv = kernels::PackConv::tf32_rz; break;
    default: return false;
  }
  if (row.in == Fmt::tf32) {
    if (!f32.on || f32.real) return false;
    neg_zero = 0x80000000u;
  } else if (!table || (row.in != Fmt::fp16 && row.in != Fmt::bf16)) {
    return false;
  }
  pd.real = kind == kernels::Decoding::real;
  for (int s = 0; s < 2; ++s) {
    Decoded d;
    if (!decode_packed(row, s ? neg_zero : 0, table, f32, d)) return false;
    pd.zero_sig[s] = d.sig, pd.zero_exp[s] = d.exp, pd.zero_fsig[s] = d.fsig, pd.zero_fval[s] = d.fval;
  }
  return true;
}

// Elements per pack_convert() call: its scratch stays in the L1/L2 cache.
constexpr std::size_t kSimdChunk = 4096;

// pack_vectors_simd()'s gathered inputs, listed elements and transposed
// lane arrays: a slot of the thread's scratch arena (scratch.h).
struct SimdStaging {
  std::vector<uint32_t> in;
  std::vector<std::size_t> odd;
  std::vector<uint64_t> tbits;
  std::vector<int32_t> tsig;
  std::vector<std::size_t> row_at;  // B, interleaved: each row's fast position
  std::size_t held_bytes() const { return scratch_bytes(in, odd, tbits, tsig, row_at); }
};
// pack_vectors()'s gathered codes (scratch.h).
struct RawSlot;

// f(l, fast position of l) for positions l of a chunk of n (whole steps
// when interleaved): fast_position() relative to the chunk, without its
// divisions (pair_position of j = 4t + u: 2t + u for u < 2, else half + 2t
// + u - 2; interleaved steps are multiples of 4).
template <class F>
inline void each_position(bool interleave, std::size_t n, std::size_t step, F&& f) {
  if (!interleave) {
    for (std::size_t l = 0; l < n; ++l) f(l, l);
    return;
  }
  const std::size_t half = step / 2;
  for (std::size_t s = 0; s < n; s += step)
    for (std::size_t j = 0; j < step; j += 4) {
      const std::size_t lo = s + j / 2, hi = s + half + j / 2;
      f(s + j, lo), f(s + j + 1, lo + 1), f(s + j + 2, hi), f(s + j + 3, hi + 1);
    }
}

// pack_vectors_simd()'s source: op(X)'s vectors index0 .. from k0 on.
struct SimdSource {
  const uint32_t* base;
  VecStrides st;
  // Element l of source vector q.
  const uint32_t* at(std::size_t q, std::size_t l) const {
    return base + static_cast<std::ptrdiff_t>(q) * st.idx + static_cast<std::ptrdiff_t>(l) * st.k;
  }
};

// How pack_vectors_simd() runs for a row and panel.
struct SimdRun {
  const kernels::PackDecode& pd;
  std::size_t step;
  // The table path (fp8) writes every field of the elements it lists (NaN,
  // Inf): only their step's flag is left; the others are packed again.
  bool complete;
  // Interleaved panels (fp8 only): the source taken in the fast arrays'
  // order and the bits put back in the model's, whole steps at a time (a
  // last, partial step by the scalar way).
  bool perm;
  std::size_t whole_steps(std::size_t n) const { return perm ? std::max<std::size_t>(n / step, 1) * step : n; }
};

// Positions [kfull, k) of vectors v .. v+count-1 (source vectors q0 ..) by
// the scalar way: the last, partial step of an interleaved panel.
void pack_tail_scalar(const ModelRow& row, const GemmSpec& spec, const InputConv& conv, const Operand& X, bool is_a,
                      std::size_t index0, std::size_t count, std::size_t k0, std::size_t kfull, std::size_t k,
                      Panel& p, std::size_t v, std::size_t pos0, const DecodeTable* table, const Fp32Layout& f32) {
  const Scratch<std::vector<uint64_t>, RawSlot> raw_slot;
  std::vector<uint64_t>& raw = *raw_slot;
  const std::size_t n = k - kfull;
  raw.resize(count * n);
  const bool lanes = !p.lane_sig.empty();
  gather(X, is_a, index0, count, k0 + kfull, n, raw.data(), lanes);
  if (lanes) return pack_group(row, spec, conv, X.storage, raw.data(), count, n, p, v, pos0 + kfull, table, f32);
  for (std::size_t q = 0; q < count; ++q)
    pack_raw(row, spec, conv, X.storage, raw.data() + q * n, n, p, v + q, pos0 + kfull, table, f32);
}

// A panel without lanes: chunks of k for all vectors at once (row q of a
// call: vector v0+q).
void pack_rows_simd(const ModelRow& row, const GemmSpec& spec, const InputConv& conv, const SimdRun& run,
                    const SimdSource& src_of, std::size_t count, std::size_t k, Panel& p, std::size_t v0,
                    std::size_t pos0, const DecodeTable* table, const Fp32Layout& f32, SimdStaging& sg) {
  auto& [in, odd, tbits, tsig, row_at] = sg;
  const std::size_t step = run.step;
  const bool perm = run.perm;
  const std::size_t chunk = run.whole_steps(std::max<std::size_t>(kSimdChunk / std::max<std::size_t>(count, 1), 64));
  for (std::size_t l0 = 0; l0 < k; l0 += chunk) {
    const std::size_t n = std::min(chunk, k - l0);
    const uint32_t* src = src_of.at(0, l0);
    std::size_t stride = static_cast<std::size_t>(src_of.st.idx);
    if (src_of.st.k != 1 || perm) {  // k strided (the vectors read together) or interleaved: gathered
      in.resize(count * n);
      if (src_of.st.k == 1) {
        for (std::size_t q = 0; q < count; ++q) {
          const uint32_t* row_q = src_of.at(q, l0);
          uint32_t* to = in.data() + q * n;
          each_position(perm, n, step, [&](std::size_t l, std::size_t pl) { to[pl] = row_q[l]; });
        }
      } else {
        each_position(perm, n, step, [&](std::size_t l, std::size_t pl) {
          for (std::size_t q = 0; q < count; ++q) in[q * n + pl] = *src_of.at(q, l0 + l);
        });
      }
      src = in.data(), stride = n;
    }
    odd.resize(count * n);
    const std::size_t o = v0 * p.kp + pos0 + l0;
    const bool simd = !p.fsig.empty();
    // Interleaved: bits and sig staged (stride n), then sig copied and the
    // bits put back in the model's order.
    if (perm) tbits.resize(count * n), tsig.resize(count * n);
    const kernels::PackDest d{perm ? tbits.data() : p.bits.data() + o, perm ? tsig.data() : p.sig.data() + o,
                              perm ? n : p.kp, p.exp.data() + o, simd ? p.fsig.data() + o : nullptr,
                              simd ? p.fval.data() + o : nullptr, p.kp};
    const std::size_t nodd = kernels::pack_convert(run.pd, src, stride, count, n, d, odd.data());
    if (perm)
      for (std::size_t q = 0; q < count; ++q) {
        std::copy_n(tsig.data() + q * n, n, p.sig.data() + o + q * p.kp);
        uint64_t* to = p.bits.data() + o + q * p.kp;
        const uint64_t* from = tbits.data() + q * n;
        each_position(true, n, step, [&](std::size_t l, std::size_t pl) { to[l] = from[pl]; });
      }
    for (std::size_t j = 0; j < nodd; ++j) {
      const std::size_t q = odd[j] / n, l = odd[j] % n;
      if (run.complete) p.special[(v0 + q) * p.steps + (pos0 + l0 + l) / step] = 1;
      else pack_scalar_element(row, spec, conv, Fmt::fp32, src[q * stride + l], table, f32, p, v0 + q, pos0 + l0 + l);
    }
  }
}

// Vectors v .. v+n-1 of one lane group (source vectors from src_of.at(0, .)):
// a call's rows its positions and its elements the group's vectors, lane
// arrays written in place and bits/sig transposed after.
void pack_group_simd(const ModelRow& row, const GemmSpec& spec, const InputConv& conv, const SimdRun& run,
                     const SimdSource& src_of, std::size_t n, std::size_t k, Panel& p, std::size_t v,
                     std::size_t pos0, const DecodeTable* table, const Fp32Layout& f32, SimdStaging& sg) {
  auto& [in, odd, tbits, tsig, row_at] = sg;
  const std::size_t step = run.step;
  const bool perm = run.perm;
  const std::size_t g = v / kernels::kSimdLanes, lane0 = v % kernels::kSimdLanes;
  const std::size_t chunk = run.whole_steps(kSimdChunk / kernels::kSimdLanes);
  for (std::size_t l0 = 0; l0 < k; l0 += chunk) {
    const std::size_t rows = std::min(chunk, k - l0);
    const uint32_t* src = src_of.at(0, l0);
    std::size_t stride = static_cast<std::size_t>(src_of.st.k);
    if (src_of.st.idx != 1) {  // the group's vectors not adjacent: gathered
      in.resize(rows * n);
      for (std::size_t l = 0; l < rows; ++l)
        for (std::size_t q = 0; q < n; ++q) in[l * n + q] = *src_of.at(q, l0 + l);
      src = in.data(), stride = n;
    }
    // Interleaved: position l's row written at its fast position.
    if (perm) {
      row_at.resize(rows);
      each_position(true, rows, step, [&](std::size_t l, std::size_t pl) { row_at[l] = pl; });
    }
    tbits.resize(rows * n), tsig.resize(rows * n), odd.resize(rows * n);
    const std::size_t li = (g * p.kp + pos0 + l0) * kernels::kSimdLanes + lane0;
    const kernels::PackDest d{tbits.data(),          tsig.data(),           n,
                              p.lane_exp.data() + li, p.lane_sig.data() + li, p.lane_val.data() + li,
                              kernels::kSimdLanes,   perm ? row_at.data() : nullptr};
    const std::size_t nodd = kernels::pack_convert(run.pd, src, stride, rows, n, d, odd.data());
    for (std::size_t q = 0; q < n; ++q) {
      const std::size_t o = (v + q) * p.kp + pos0 + l0;
      for (std::size_t l = 0; l < rows; ++l) {  // (row l of the call: fast position l)
        if (!perm) p.bits[o + l] = tbits[l * n + q];
        p.sig[o + l] = tsig[l * n + q];
        p.exp[o + l] = p.lane_exp[li + l * kernels::kSimdLanes + q];
      }
      if (perm) each_position(true, rows, step, [&](std::size_t l, std::size_t pl) { p.bits[o + l] = tbits[pl * n + q]; });
    }
    for (std::size_t j = 0; j < nodd; ++j) {
      const std::size_t l = odd[j] / n, q = odd[j] % n;
      if (run.complete) p.special[(v + q) * p.steps + (pos0 + l0 + l) / step] = 1;
      else pack_scalar_element(row, spec, conv, Fmt::fp32, src[l * stride + q], table, f32, p, v + q, pos0 + l0 + l);
    }
  }
}

// pack_vectors() by pack_convert(): A (no lanes) by pack_rows_simd(), B
// group by group by pack_group_simd(); an interleaved panel's last, partial
// step by the scalar way. The elements pack_convert() lists are packed
// again by pack_scalar_element() (fp8: only their flags set).
void pack_vectors_simd(const ModelRow& row, const GemmSpec& spec, const InputConv& conv, const kernels::PackDecode& pd,
                       const Operand& X, bool is_a, std::size_t index0, std::size_t count, std::size_t k0,
                       std::size_t k, Panel& p, std::size_t v0, std::size_t pos0, const DecodeTable* table,
                       const Fp32Layout& f32) {
  const Scratch<SimdStaging> staging;
  const VecStrides st = vec_strides(X, is_a);
  const SimdSource src{static_cast<const uint32_t*>(X.data) + static_cast<std::ptrdiff_t>(index0) * st.idx +
                           static_cast<std::ptrdiff_t>(k0) * st.k,
                       st};
  const SimdRun run{pd, step_k(row), pd.conv == kernels::PackConv::fp8_table, p.interleave};
  const std::size_t kfull = run.perm ? k / run.step * run.step : k;
  if (p.lane_sig.empty()) {
    pack_rows_simd(row, spec, conv, run, src, count, kfull, p, v0, pos0, table, f32, *staging);
    if (kfull < k) pack_tail_scalar(row, spec, conv, X, is_a, index0, count, k0, kfull, k, p, v0, pos0, table, f32);
    return;
  }
  for (std::size_t q0 = 0; q0 < count;) {
    const std::size_t v = v0 + q0, n = std::min(count - q0, kernels::kSimdLanes - v % kernels::kSimdLanes);
    const SimdSource group{src.at(q0, 0), st};
    pack_group_simd(row, spec, conv, run, group, n, kfull, p, v, pos0, table, f32, *staging);
    if (kfull < k) pack_tail_scalar(row, spec, conv, X, is_a, index0 + q0, n, k0, kfull, k, p, v, pos0, table, f32);
    q0 += n;
  }
}

}  // namespace

InputConv input_conv(Fmt storage, Fmt in, Round r, Overflow ov) {
  if (storage == in) return {InputPath::same};
  if (storage != Fmt::fp32) return {};
  if (const uint8_t* table = fp32_narrow_table(in, r, ov)) return {InputPath::fp32_table, table};
  if (in == Fmt::tf32 && r == Round::rz) return {InputPath::fp32_tf32_rz};  // no overflow possible
  if (r != Round::rne || ov == Overflow::saturate) return {};
  switch (in) {
    case Fmt::fp16: return {InputPath::fp32_fp16_rne};
    case Fmt::bf16: return {InputPath::fp32_bf16_rne};
    case Fmt::tf32: return {InputPath::fp32_tf32_rne};
    default: return {};
  }
}

// Packs vectors v0 .. v0+count-1 of the panel from op(X) vectors index0 ..
// index0+count-1, k elements from k0 on.
void pack_vectors(const ModelRow& row, const GemmSpec& spec, const Operand& X, bool is_a, std::size_t index0,
                  std::size_t count, std::size_t k0, std::size_t k, Panel& p, std::size_t v0, std::size_t pos0,
                  PackMode mode) {
  const DecodeTable* table = decode_table(row);
  const Fp32Layout f32 = fp32_layout(row);
  const InputConv conv = input_conv(X.storage, row.in, spec.input_round, spec.input_overflow);
  kernels::PackDecode pd{};
  if (mode == PackMode::best && simd_decode(row, conv, X.storage, p, table, f32, pd))
    return pack_vectors_simd(row, spec, conv, pd, X, is_a, index0, count, k0, k, p, v0, pos0, table, f32);
  const Scratch<std::vector<uint64_t>, RawSlot> raw_slot;
  std::vector<uint64_t>& raw = *raw_slot;
  raw.resize(std::max<std::size_t>(count * k, 1));
  if (!p.lane_sig.empty()) {  // lane-interleaved (B): group by group
    for (std::size_t q0 = 0; q0 < count;) {
      const std::size_t v = v0 + q0, n = std::min(count - q0, kernels::kSimdLanes - v % kernels::kSimdLanes);
      gather(X, is_a, index0 + q0, n, k0, k, raw.data(), true);
      pack_group(row, spec, conv, X.storage, raw.data(), n, k, p, v, pos0, table, f32);
      q0 += n;
    }
    return;
  }
  gather(X, is_a, index0, count, k0, k, raw.data(), false);
  for (std::size_t q = 0; q < count; ++q)
    pack_raw(row, spec, conv, X.storage, raw.data() + q * k, k, p, v0 + q, pos0, table, f32);
}

bool pack_simd_applies(const ModelRow& row, const GemmSpec& spec, Fmt storage, const Panel& p) {
  kernels::PackDecode pd{};
  const InputConv conv = input_conv(storage, row.in, spec.input_round, spec.input_overflow);
  return simd_decode(row, conv, storage, p, decode_table(row), fp32_layout(row), pd);
}

void pack_vector(const ModelRow& row, const GemmSpec& spec, const Operand& X, bool is_a,
                 std::size_t index, std::size_t k0, std::size_t k, Panel& p, std::size_t v) {
  pack_vectors(row, spec, X, is_a, index, 1, k0, k, p, v);
}

// Packs vectors first .. first+count-1 of op(X) (k0 .. k0+kc-1) into
// micro-panels of `width` vectors: dst[(p*kc + l)*width + q].
template <typename T>
void pack_chain(const ModelRow& row, const GemmSpec& spec, const Operand& X, bool is_a, std::size_t first,
                std::size_t count, std::size_t k0, std::size_t kc, std::size_t width, T* dst) {
  const bool raw = X.storage == row.in && row.in == (sizeof(T) == 4 ? Fmt::fp32 : Fmt::fp64);
  const VecStrides st = vec_strides(X, is_a);
  const T* src = static_cast<const T*>(X.data);
  for (std::size_t p = 0; p * width < count; ++p) {
    T* d = dst + p * kc * width;
    const std::size_t base = first + p * width, qn = std::min(width, count - p * width);
    const std::ptrdiff_t o0 = static_cast<std::ptrdiff_t>(base) * st.idx + static_cast<std::ptrdiff_t>(k0) * st.k;
    if (raw && st.idx == 1) {  // vectors contiguous: rows of width values
      for (std::size_t l = 0; l < kc; ++l) {
        const T* s = src + o0 + static_cast<std::ptrdiff_t>(l) * st.k;
        T* o = d + l * width;
        for (std::size_t q = 0; q < qn; ++q) o[q] = s[q];
        for (std::size_t q = qn; q < width; ++q) o[q] = T(0);
      }
      continue;
    }
    if (raw) {  // k contiguous: interleave qn streams
      for (std::size_t q = 0; q < qn; ++q) {
        const T* s = src + o0 + static_cast<std::ptrdiff_t>(q) * st.idx;
        for (std::size_t l = 0; l < kc; ++l) d[l * width + q] = s[l];
      }
    } else {
      for (std::size_t q = 0; q < qn; ++q)
        for (std::size_t l = 0; l < kc; ++l)
          d[l * width + q] = chain_value<T>(row, spec, X, o0 + static_cast<std::ptrdiff_t>(q) * st.idx +
                                                              static_cast<std::ptrdiff_t>(l) * st.k);
    }
    for (std::size_t q = qn; q < width; ++q)
      for (std::size_t l = 0; l < kc; ++l) d[l * width + q] = T(0);
  }
}

template void pack_chain<float>(const ModelRow&, const GemmSpec&, const Operand&, bool, std::size_t, std::size_t,
                              std::size_t, std::size_t, std::size_t, float*);
template void pack_chain<double>(const ModelRow&, const GemmSpec&, const Operand&, bool, std::size_t, std::size_t,
                               std::size_t, std::size_t, std::size_t, double*);

// Packs vector v of an exact panel from op(X) vector `index` (k0 .. k0+kc-1).
void pack_exact(const ModelRow& row, const GemmSpec& spec, const Operand& X, bool is_a, std::size_t index,
                std::size_t k0, std::size_t kc, ExactPanel& p, std::size_t v, std::size_t s0, std::size_t s1) {
  const std::size_t step = step_k(row);
  const int man = kernels::unit_man(row), st = static_cast<int>(step);
  const VecStrides vs = vec_strides(X, is_a);
  const std::ptrdiff_t o0 = static_cast<std::ptrdiff_t>(index) * vs.idx + static_cast<std::ptrdiff_t>(k0) * vs.k;
  const bool lanes = !is_a;
  const std::size_t g = v / kernels::kSimdLanes, lane = v % kernels::kSimdLanes;
  double* val = p.val.p.get();
  // fp32 storage rounded to fp16/bf16 with RNE (the usual sgemm policies).
  const bool rne = X.storage == Fmt::fp32 && spec.input_round == Round::rne &&
                   spec.input_overflow != Overflow::saturate;
  const bool f16 = rne && row.in == Fmt::fp16, b16 = rne && row.in == Fmt::bf16;
  const uint32_t* f32 = static_cast<const uint32_t*>(X.data);
  for (std::size_t s = s0; s < std::min(s1, p.steps); ++s) {
    int lo = kernels::kExactNone, hi = -kernels::kExactNone;
    bool special = false;
    for (std::size_t l = s * step; l < (s + 1) * step; ++l) {
      double x = 0.0;
      if (l < kc) {
        bool sp;
        const std::ptrdiff_t off = o0 + static_cast<std::ptrdiff_t>(l) * vs.k;
        if (f16 || b16) {
          const uint32_t h = f16 ? fp16_to_fp32(f32_to_f16_rne(f32[off])) : f32_to_bf16_rne(f32[off]) << 16;
          sp = (h & 0x7F800000u) == 0x7F800000u;
          x = static_cast<double>(std::bit_cast<float>(h));
        } else {
          x = exact_value(row, convert_input(X.storage, row.in, load(X.storage, X.data, off), spec.input_round, spec.input_overflow), sp);
        }
        special |= sp;
        if (!sp && x != 0.0) {
          const int e = static_cast<int>((std::bit_cast<uint64_t>(x) >> 52) & 0x7FF) - 1023;  // floor(log2 |x|)
          lo = std::min(lo, e);
          hi = std::max(hi, e);
        }
      }
      val[lanes ? (g * p.kp + l) * kernels::kSimdLanes + lane : v * p.kp + l] = x;
    }
    const std::size_t at = lanes ? (g * p.steps + s) * kernels::kSimdLanes + lane : v * p.steps + s;
    kernels::exact_bounds(is_a, lo, hi, man, st, p.lo.p[at], p.hi.p[at]);
    if (special) p.special[v * p.steps + s] = 1;
  }
}

namespace {

// Whether the SIMD exact packer serves X: fp32 storage rounded to the
// unit's fp16 or bf16 with RNE (pack_exact's fast case).
bool exact_simd_source(const ModelRow& row, const GemmSpec& spec, const Operand& X) {
  return X.storage == Fmt::fp32 && spec.input_round == Round::rne && spec.input_overflow != Overflow::saturate &&
         (row.in == Fmt::fp16 || row.in == Fmt::bf16);
}

// pack_exact_rows()'s lane-interleaved staging, a slot of the thread's
// scratch arena (scratch.h).
struct ExactRowsStaging {
  AlignedBuf<double> val, lo, hi;
  std::vector<int32_t> elo, ehi;
  std::vector<uint8_t> special;
  std::size_t held_bytes() const { return scratch_bytes(val, lo, hi, elo, ehi, special); }
};

}  // namespace

void pack_exact_rows(const ModelRow& row, const GemmSpec& spec, const Operand& X, std::size_t index0,
                     std::size_t count, std::size_t k0, std::size_t kc, ExactPanel& p) {
  constexpr std::size_t L = kernels::kSimdLanes;
  if (!exact_simd_source(row, spec, X)) {
    for (std::size_t v = 0; v < count; ++v) pack_exact(row, spec, X, true, index0 + v, k0, kc, p, v);
    return;
  }
  const Scratch<ExactRowsStaging> staging;
  const std::size_t step = step_k(row);
  const VecStrides st = vec_strides(X, true);
  if (st.k == 1 && count < L) {  // few rows, k contiguous: row after row, then each block's bounds
    auto& [val_, lo_, hi_, elo, ehi, special] = *staging;
    elo.resize(kc), ehi.resize(kc), special.resize(kc);
    const int man = kernels::unit_man(row);
    for (std::size_t v = 0; v < count; ++v) {
      const uint32_t* src = static_cast<const uint32_t*>(X.data) + static_cast<std::ptrdiff_t>(index0 + v) * st.idx +
                            static_cast<std::ptrdiff_t>(k0);
      double* pv = p.val.p.get() + v * p.kp;
      kernels::exact_convert_row(src, kc, row.in == Fmt::bf16, pv, elo.data(), ehi.data(), special.data());
      std::fill(pv + kc, pv + p.kp, 0.0);
      for (std::size_t s = 0; s < p.steps; ++s) {
        int lo_e = kernels::kExactNone, hi_e = -kernels::kExactNone;
        bool odd = false;
        for (std::size_t l = s * step; l < std::min(kc, (s + 1) * step); ++l) {
          lo_e = std::min(lo_e, elo[l]), hi_e = std::max(hi_e, ehi[l]);
          odd |= special[l] != 0;
        }
        if (odd) pack_exact(row, spec, X, true, index0 + v, k0, kc, p, v, s, s + 1);
        else kernels::exact_bounds(true, lo_e, hi_e, man, static_cast<int>(step), p.lo.p[v * p.steps + s],
                                   p.hi.p[v * p.steps + s]);
      }
    }
    return;
  }
  double* val = staging->val.get(p.kp * L);
  double* lo = staging->lo.get(p.steps * L);
  double* hi = staging->hi.get(p.steps * L);
  constexpr std::size_t kSteps = 64;  // blocks per call: room for their listed blocks
  std::size_t todo[kSteps * L];
  for (std::size_t q0 = 0; q0 < count; q0 += L) {
    const std::size_t lanes = std::min(L, count - q0);
    const kernels::ExactPackSource src{static_cast<const uint32_t*>(X.data) +
                                           static_cast<std::ptrdiff_t>(index0 + q0) * st.idx +
                                           static_cast<std::ptrdiff_t>(k0) * st.k,
                                       st.k, st.idx, row.in == Fmt::bf16, true};
    for (std::size_t sa = 0; sa < p.steps; sa += kSteps) {
      const std::size_t sb = std::min(p.steps, sa + kSteps);
      const std::size_t n =
          kernels::exact_pack_lanes(src, lanes, sa, sb, step, kc, kernels::unit_man(row), val, lo, hi, todo);
      for (std::size_t q = 0; q < lanes; ++q) {
        double* pv = p.val.p.get() + (q0 + q) * p.kp;
        for (std::size_t l = sa * step; l < sb * step; ++l) pv[l] = val[l * L + q];
        for (std::size_t s = sa; s < sb; ++s) {
          p.lo.p[(q0 + q) * p.steps + s] = lo[s * L + q];
          p.hi.p[(q0 + q) * p.steps + s] = hi[s * L + q];
        }
      }
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t s = todo[i] / L, q = todo[i] % L;
        pack_exact(row, spec, X, true, index0 + q0 + q, k0, kc, p, q0 + q, s, s + 1);
      }
    }
  }
}

void pack_exact_group(const ModelRow& row, const GemmSpec& spec, const Operand& X, std::size_t index0,
                      std::size_t k0, std::size_t kc, ExactPanel& p, std::size_t g, std::size_t s0, std::size_t s1) {
  constexpr std::size_t L = kernels::kSimdLanes;
  const std::size_t v0 = g * L, v1 = std::min(p.count, v0 + L), step = step_k(row);
  s1 = std::min(s1, p.steps);
  if (exact_simd_source(row, spec, X)) {
    const VecStrides st = vec_strides(X, false);
    const kernels::ExactPackSource src{static_cast<const uint32_t*>(X.data) +
                                           static_cast<std::ptrdiff_t>(index0 + v0) * st.idx +
                                           static_cast<std::ptrdiff_t>(k0) * st.k,
                                       st.k, st.idx, row.in == Fmt::bf16, false};
    constexpr std::size_t kSteps = 64;  // blocks per call: room for their listed blocks
    std::size_t todo[kSteps * L];
    for (std::size_t sa = s0; sa < s1; sa += kSteps) {
      const std::size_t sb = std::min(s1, sa + kSteps);
      const std::size_t n = kernels::exact_pack_lanes(src, v1 - v0, sa, sb, step, kc, kernels::unit_man(row),
                                                      p.val.p.get() + g * p.kp * L, p.lo.p.get() + g * p.steps * L,
                                                      p.hi.p.get() + g * p.steps * L, todo);
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t s = todo[i] / L, q = todo[i] % L;
        pack_exact(row, spec, X, false, index0 + v0 + q, k0, kc, p, v0 + q, s, s + 1);
      }
    }
  } else {
    for (std::size_t v = v0; v < v1; ++v) pack_exact(row, spec, X, false, index0 + v, k0, kc, p, v, s0, s1);
  }
  for (std::size_t v = v0; v < v1; ++v)
    for (std::size_t s = s0; s < s1; ++s) p.group_special[g * p.steps + s] |= p.special[v * p.steps + s];
}

// B lanes past the panel's last column: zero operands, neutral bounds.
void pad_exact_lanes(const ModelRow& row, ExactPanel& p, std::size_t s0, std::size_t s1) {
  const std::size_t step = step_k(row);
  const int man = kernels::unit_man(row), st = static_cast<int>(step);
  s1 = std::min(s1, p.steps);
  for (std::size_t v = p.count; v < p.groups * kernels::kSimdLanes; ++v) {
    const std::size_t g = v / kernels::kSimdLanes, lane = v % kernels::kSimdLanes;
    for (std::size_t l = s0 * step; l < std::min(s1 * step, p.kp); ++l)
      p.val.p[(g * p.kp + l) * kernels::kSimdLanes + lane] = 0.0;
    for (std::size_t s = s0; s < s1; ++s) {
      const std::size_t at = (g * p.steps + s) * kernels::kSimdLanes + lane;
      kernels::exact_bounds(false, kernels::kExactNone, -kernels::kExactNone, man, st, p.lo.p[at], p.hi.p[at]);
    }
  }
}

// An integer significand and exponent of a finite double with at most
// man+1 significant bits, as pack_element() gives them (value sig * 2^(exp-man)).
void split_exact(double x, int man, int32_t& sig, int32_t& exp) {
  if (x == 0.0) {
    sig = 0;
    exp = kernels::kZeroExp;
    return;
  }
  int e;
  const double m = std::frexp(x, &e);  // |m| in [0.5, 1)
  sig = static_cast<int32_t>(std::ldexp(m, man + 1));
  exp = e - 1;
}


}  // namespace mmaemu::driver
