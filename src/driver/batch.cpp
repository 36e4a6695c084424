// SPDX-License-Identifier: BSD-3-Clause
// The batched engine (driver/batch.h, docs/batch.md). Output elements are
// taken 16 at a time, one per lane. Every SIMD step kernel reads a product
// a_l*b_l only through
//   val_a[l] * val_b   (float),  sig_a[l] * sig_b   (float),
//   exp_a[l] + exp_b   (int32),  flag_a[l] | flag_b (pairwise),
// and the exact kernel through the double product and the product of the
// two sides' power-of-two bounds. So a lane panel holding those products,
// formed exactly as the kernel forms them, against a row panel of the
// identity (value 1, significand 1, exponent 0, no flag; bounds 1) gives
// the kernel's bits for 16 independent (a, b) pairs: 1 * p = p exactly and
// 0 + e = e. The special-value fallback and the kernels' hand-backs are
// those of the GEMM driver (docs/kernels.md): steps with NaN/Inf inputs on
// ref::step, the late kernel's blocks near 2^128 and the exact kernel's
// failed lanes on the scalar kernel.
#include "driver/batch.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <span>
#include <stdexcept>
#include <vector>

#include "hwy/base.h"

#include "driver/batch_engine.h"
#include "driver/fast_dot.h"
#include "driver/gemm.h"
#include "driver/pack.h"
#include "driver/parallel.h"
#include "driver/scratch.h"
#include "driver/special_fallback.h"
#include "kernels/plan.h"
#include "kernels/product_pack.h"
#include "models/row_facts.h"
#include "ref/reference.h"

namespace mmaemu::driver {
namespace {

constexpr std::size_t L = kernels::kSimdLanes;
static_assert(L == kFallbackLanes);
constexpr std::size_t kGroupsPerTask = 64;   // 1024 output elements per task
constexpr std::size_t kChunkPositions = 512; // k per panel chunk (whole steps)

// ---------------------------------------------------------------------------
// Where the operands of output element q are.

struct Geometry {
  std::size_t m, n, k, mn;
  std::size_t a_base(std::size_t q) const { return (q / mn) * m * k + (q % mn) / n * k; }
  std::size_t b_base(std::size_t q) const { return (q / mn) * k * n + q % n; }
  std::size_t b_stride() const { return n; }
};

// Codes by index: T is the container (uint8_t ... uint64_t bit patterns).
template <typename T>
struct Codes {
  const T* p;
  uint64_t operator[](std::size_t i) const { return static_cast<uint64_t>(p[i]); }
};

// ---------------------------------------------------------------------------
// One element decoded for the products: the GEMM packer's fields.

struct Entry {
  float val = 0, sig = 0;  // decode_operand's fval and fsig (real operands: fsig 0)
  int32_t exp = kernels::kZeroExp;  // decomposition exponent (real operands: 0)
  int32_t special = 0;     // NaN or Inf: the entry is a zero, the step goes to the reference
};

Entry entry_of(const ModelRow& row, uint64_t bits) {
  bool finite = true;
  const Decoded d = decode_operand(row, bits, finite);
  if (!finite) return Entry{0, 0, kernels::decoding_of(row) == kernels::Decoding::real ? 0 : kernels::kZeroExp, 1};
  return Entry{d.fval, d.fsig, d.exp, 0};
}

// The entries of every code of a format of up to 16 bits, one table per
// decoding (keyed by driver::decode_table's table, whose entries they are).
struct EntryTable {
  std::vector<Entry> e;
  uint64_t mask = 0;
};
const EntryTable* entry_table(const ModelRow& row) {
  const DecodeTable* dt = decode_table(row);
  if (!dt) return nullptr;
  static std::mutex mu;
  static std::map<const DecodeTable*, std::unique_ptr<EntryTable>> tables;  // a handful, never freed
  const std::lock_guard<std::mutex> lock(mu);
  std::unique_ptr<EntryTable>& t = tables[dt];
  if (!t) {
    t = std::make_unique<EntryTable>();
    const bool real = kernels::decoding_of(row) == kernels::Decoding::real;
    t->e.resize(dt->d.size());
    t->mask = dt->d.size() - 1;
    for (std::size_t c = 0; c < dt->d.size(); ++c) {
      const Decoded& d = dt->d[c];
      t->e[c] = dt->finite[c] ? Entry{d.fval, d.fsig, d.exp, 0} : Entry{0, 0, real ? 0 : kernels::kZeroExp, 1};
    }
  }
  return t.get();
}

}  // namespace

kernels::CodeDecode batch_code_decode(const ModelRow& row) {
  const FormatInfo& f = info(row.in);
  kernels::CodeDecode d{};
  if (f.width > 16 || f.frac_shift != 0 || kernels::decoding_of(row) == kernels::Decoding::real64) return d;
  switch (f.specials) {
    case Specials::ieee: d.specials = kernels::CodeDecode::Specials::ieee; break;
    case Specials::e4m3fn: d.specials = kernels::CodeDecode::Specials::e4m3fn; break;
    case Specials::fnuz: d.specials = kernels::CodeDecode::Specials::fnuz; break;
    default: return d;
  }
  d.width = f.width, d.exp_bits = f.exp_bits, d.man_bits = f.man_bits, d.bias = f.bias;
  d.fp16 = row.in == Fmt::fp16;
  d.bf16 = row.in == Fmt::bf16;
  d.real = kernels::decoding_of(row) == kernels::Decoding::real;
  d.in_sub = row.in_sub;
  d.keep_sign = row.flush_sign == FlushSign::keep;
  d.pos_zero = row.neg_zero == NegZero::positive;
  d.as_fp16 = row.as_fp16 && !d.real;
  return d;
}

namespace {

// ---------------------------------------------------------------------------
// The call: what every task reads.

struct Call {
  const ModelRow& row;
  kernels::KernelPlan plan;
  BatchProblem p;
  Geometry geo;
  std::size_t total;  // output elements
  std::size_t step, kp_chunk;
  const EntryTable* table;
  bool real, use_reference;
  bool half;  // a unit format of up to 16 bits: the SIMD packer, with `decode`
  kernels::CodeDecode decode;
  uint64_t zero, nan;  // +0 and the unit's NaN in the output format
  std::span<const uint32_t> pos;  // where chunk position l is packed (interleaved rows: permuted)
};

uint64_t load_out(const Call& x, std::size_t q) {
  return x.p.storage == BatchStorage::codes ? static_cast<const uint64_t*>(x.p.C)[q] : load(x.row.out, x.p.C, q);
}
// A NaN of the unit's output format (fp32, fp16 or fp64; others by decode).
inline bool out_nan(Fmt f, uint64_t d) {
  switch (f) {
    case Fmt::fp32: return (d & 0x7FFFFFFFu) > 0x7F800000u;
    case Fmt::fp16: return (d & 0x7FFFu) > 0x7C00u;
    case Fmt::fp64: return (d & ~(uint64_t{1} << 63)) > uint64_t{0x7FF0000000000000};
    default: return is_nan(f, d);
  }
}

void store_out(const Call& x, std::size_t q, uint64_t d) {
  // As the GEMM epilogue: any NaN as the unit's (the IEEE kernels give the host's).
  if (x.p.k > 0 && out_nan(x.row.out, d)) d = x.nan;
  if (x.p.storage == BatchStorage::codes) static_cast<uint64_t*>(x.p.D)[q] = d;
  else store(x.row.out, x.p.D, q, d);
}
uint64_t first_acc(const Call& x, std::size_t q) {
  return x.row.ignores_c ? x.zero : load_out(x, q);  // as ref::dot
}

// The k codes of element q's a and b (model order), positions [l0, l1).
template <typename T>
void gather_codes(const Call& x, Codes<T> A, Codes<T> B, std::size_t q, std::size_t l0, std::size_t l1, uint64_t* a,
                  uint64_t* b) {
  const std::size_t ab = x.geo.a_base(q), bb = x.geo.b_base(q), bs = x.geo.b_stride();
  for (std::size_t l = l0; l < l1; ++l) a[l - l0] = A[ab + l], b[l - l0] = B[bb + l * bs];
}

// ---------------------------------------------------------------------------
// One element at a time: the fp64 chain, the scalar kernels, the reference.

// One element's codes gathered for the scalar paths: a slot of the
// thread's scratch arena (scratch.h).
struct GatheredCodes {
  std::vector<uint64_t> a, b;
  std::size_t held_bytes() const { return scratch_bytes(a, b); }
};

template <typename T>
void scalar_elements(const Call& x, Codes<T> A, Codes<T> B, std::size_t q0, std::size_t q1) {
  const Scratch<GatheredCodes> codes;
  auto& [a, b] = *codes;
  a.resize(std::max<std::size_t>(x.p.k, 1));
  b.resize(a.size());
  for (std::size_t q = q0; q < q1; ++q) {
    gather_codes(x, A, B, q, 0, x.p.k, a.data(), b.data());
    uint64_t d;
    if (x.use_reference || (x.plan.step == kernels::ScalarKernel::none && !x.plan.fp64)) d = ref::dot(x.row, x.p.k, a.data(), b.data(), load_out(x, q));
    else if (x.plan.fp64) d = kernels::fp64_chain(x.row, x.p.k, a.data(), b.data(), first_acc(x, q));
    else d = fast_dot(x.row, x.plan.step, x.p.k, a.data(), b.data(), load_out(x, q));
    store_out(x, q, d);
  }
}

// ---------------------------------------------------------------------------
// 16 elements on a SIMD step kernel: the product panel of one k chunk.

using Lanes = BatchLanes;  // (batch_engine.h)

struct ProductPanel {
  AlignedBuf<uint16_t> ca, cb;  // the SIMD packer's codes, position-major
  AlignedBuf<float> val, sig;
  AlignedBuf<int32_t> exp;
  std::vector<uint32_t> special;  // per step of the chunk: bit j = lane j has a NaN/Inf input
  std::size_t held_bytes() const { return scratch_bytes(ca, cb, val, sig, exp, special); }  // scratch.h
};

static_assert(kChunkPositions + 64 <= IdentityRow::kIdentityEntries, "the identity row covers a chunk");

inline Entry entry(const Call& x, uint64_t code) {
  return x.table ? x.table->e[code & x.table->mask] : entry_of(x.row, code);
}

// One lane's products at positions [0, kc): a[l] and b[l * bs] decoded by
// `entry` (the table, or decode_operand for wider formats), stored at
// pos[l] * 16 of the lane's arrays. Returns whether an input is NaN/Inf.
template <bool kReal, typename T, typename E>
HWY_INLINE bool lane_products(E entry, const T* HWY_RESTRICT a, const T* HWY_RESTRICT b, std::size_t bs,
                              std::size_t kc, const uint32_t* HWY_RESTRICT pos, float* HWY_RESTRICT val,
                              float* HWY_RESTRICT sig, int32_t* HWY_RESTRICT exp) {
  int32_t special = 0;
  for (std::size_t l = 0; l < kc; ++l) {
    const Entry ea = entry(a[l]), eb = entry(b[l * bs]);
    const std::size_t o = pos[l] * L;
    val[o] = ea.val * eb.val;
    sig[o] = ea.sig * eb.sig;
    exp[o] = kReal ? (ea.exp | eb.exp) : ea.exp + eb.exp;
    special |= ea.special | eb.special;
  }
  return special != 0;
}

// The steps of lane j with a NaN/Inf input, into pp.special.
template <typename T, typename E>
void mark_special(E entry, const T* a, const T* b, std::size_t bs, std::size_t kc, std::size_t step, std::size_t j,
                  ProductPanel& pp) {
  for (std::size_t l = 0; l < kc; ++l)
    if (entry(a[l]).special | entry(b[l * bs]).special) pp.special[l / step] |= 1u << j;
}

// The panel's arrays for kc positions, zero-padded to whole steps (the
// padding's products are zeros), the special flags cleared.
struct PanelArrays {
  float* val;
  float* sig;
  int32_t* exp;
};
PanelArrays panel_arrays(const Call& x, std::size_t kc, ProductPanel& pp) {
  const std::size_t steps = (kc + x.step - 1) / x.step, kp = steps * x.step;
  const PanelArrays p{pp.val.get(kp * L), pp.sig.get(kp * L), pp.exp.get(kp * L)};
  pp.special.assign(steps, 0);
  for (std::size_t l = kc; l < kp; ++l) {  // the padding of the last step
    const std::size_t o = x.pos[l] * L;
    std::fill_n(p.val + o, L, 0.0f), std::fill_n(p.sig + o, L, 0.0f),
        std::fill_n(p.exp + o, L, x.real ? 0 : kernels::kZeroExp);
  }
  return p;
}

// Positions [l0, l0 + kc) of the group's products (a chunk of whole steps;
// positions past k are zero products). Interleaved rows store each
// instruction's k with its two groups contiguous, as the GEMM packer does.
template <bool kReal, typename T, typename E>
void pack_lanes(const Call& x, E entry, const T* A, const T* B, const Lanes& ln, std::size_t l0, std::size_t kc,
                ProductPanel& pp) {
  const std::size_t bs = x.geo.b_stride();
  const auto [val, sig, exp] = panel_arrays(x, kc, pp);
  const uint32_t* pos = x.pos.data();
  for (std::size_t j = 0; j < L; ++j) {
    const T* a = A + ln.a[j] + l0;
    const T* b = B + ln.b[j] + l0 * bs;
    if (lane_products<kReal>(entry, a, b, bs, kc, pos, val + j, sig + j, exp + j))
      mark_special(entry, a, b, bs, kc, x.step, j, pp);
  }
}

// Units of formats up to 16 bits: the codes transposed to position-major
// order, then decoded and multiplied by the SIMD packer
// (kernels/product_pack.h); false for other units.
template <typename T>
bool simd_pack(const Call& x, Codes<T> A, Codes<T> B, const Lanes& ln, std::size_t l0, std::size_t kc,
               ProductPanel& pp) {
  if (!x.half || !x.table) return false;
  const std::size_t bs = x.geo.b_stride();
  uint16_t* ca = pp.ca.get(kc * L);
  uint16_t* cb = pp.cb.get(kc * L);
  const T* ra[L];
  const T* rb[L];
  for (std::size_t j = 0; j < L; ++j) ra[j] = A.p + ln.a[j] + l0, rb[j] = B.p + ln.b[j] + l0 * bs;
  if constexpr (sizeof(T) <= 2) {
    kernels::simd_transpose_codes16(ra, kc, ca);
    if (bs == 1) kernels::simd_transpose_codes16(rb, kc, cb);
  } else {
    for (std::size_t j = 0; j < L; ++j)
      for (std::size_t l = 0; l < kc; ++l) ca[l * L + j] = static_cast<uint16_t>(ra[j][l]);
  }
  if (sizeof(T) > 2 || bs != 1)
    for (std::size_t j = 0; j < L; ++j)
      for (std::size_t l = 0; l < kc; ++l) cb[l * L + j] = static_cast<uint16_t>(rb[j][l * bs]);
  const auto [val, sig, exp] = panel_arrays(x, kc, pp);
  const uint32_t* pos = x.pos.data();
  uint32_t special = kernels::simd_code_products16(x.decode, ca, cb, kc, pos, val, sig, exp);
  const Entry* tab = x.table->e.data();
  const uint64_t mask = x.table->mask;
  const auto entry = [tab, mask](uint64_t code) { return tab[code & mask]; };
  for (std::size_t j = 0; special; ++j, special >>= 1)
    if (special & 1) mark_special(entry, A.p + ln.a[j] + l0, B.p + ln.b[j] + l0 * bs, bs, kc, x.step, j, pp);
  return true;
}

template <typename T>
void pack_products(const Call& x, Codes<T> A, Codes<T> B, const Lanes& ln, std::size_t l0, std::size_t kc,
                   ProductPanel& pp) {
  if (simd_pack(x, A, B, ln, l0, kc, pp)) return;
  if (x.table) {
    const Entry* tab = x.table->e.data();
    const uint64_t mask = x.table->mask;
    const auto entry = [tab, mask](uint64_t code) { return tab[code & mask]; };
    if (x.real) return pack_lanes<true>(x, entry, A.p, B.p, ln, l0, kc, pp);
    return pack_lanes<false>(x, entry, A.p, B.p, ln, l0, kc, pp);
  }
  const auto entry = [&x](uint64_t code) { return entry_of(x.row, code); };
  if (x.real) return pack_lanes<true>(x, entry, A.p, B.p, ln, l0, kc, pp);
  pack_lanes<false>(x, entry, A.p, B.p, ln, l0, kc, pp);
}

// Step s of the chunk on the scalar kernel, lane by lane: a step the SIMD
// kernel handed back (its operands decoded again from the codes).
template <typename T>
void scalar_step(const Call& x, Codes<T> A, Codes<T> B, const Lanes& ln, std::size_t l0, std::size_t kc,
                 std::size_t s, uint32_t* acc) {
  const std::size_t lb = s * x.step, len = std::min(x.step, kc - lb);
  int32_t sa[kernels::kMaxStep], ea[kernels::kMaxStep], sb[kernels::kMaxStep], eb[kernels::kMaxStep];
  uint64_t a[kernels::kMaxStep], b[kernels::kMaxStep];
  for (std::size_t j = 0; j < L; ++j) {
    gather_codes(x, A, B, ln.q[j], l0 + lb, l0 + lb + len, a, b);
    for (std::size_t l = 0; l < len; ++l) {
      kernels::pack_element(x.row, a[l], sa[l], ea[l]);
      kernels::pack_element(x.row, b[l], sb[l], eb[l]);
    }
    acc[j] = kernels::scalar_step(x.plan.step, x.row, static_cast<int>(len), sa, ea, sb, eb, acc[j]);
  }
}

// Steps [s0, s1) of the chunk on the plan's step kernel (one prototype, no
// switch); a step it hands back (CDNA3: products that may reach 2^128) runs
// on the scalar kernel. A is the identity (B's panel holds the products);
// acc: the 16 lanes.
template <typename T>
void simd_steps(const Call& x, Codes<T> A, Codes<T> B, const Lanes& ln, std::size_t l0, std::size_t kc,
                const ProductPanel& pp, std::size_t s0, std::size_t s1, uint32_t* acc) {
  const IdentityRow& id = identity_row();
  const int last = static_cast<int>(std::min(x.step, kc - (s1 - 1) * x.step));
  const kernels::RowPanel ar{id.one.data(), id.one.data(), id.zero32.data()};
  for (std::size_t s = s0; s < s1;) {
    const std::size_t at = s * x.step * L;
    const kernels::LanePanel br{pp.val.p.get() + at, pp.sig.p.get() + at, pp.exp.p.get() + at};
    const kernels::StepRun run{static_cast<int>(s1 - s), static_cast<int>(x.step), last};
    s += static_cast<std::size_t>(x.plan.kernel(x.plan.simd_params, run, ar, br, acc));
    if (s < s1) scalar_step(x, A, B, ln, l0, kc, s++, acc);
  }
}

Lanes lanes_of(const Call& x, std::size_t q0) { return batch_lanes(x.geo.m, x.geo.n, x.geo.k, x.total, q0); }

// The 16 lanes' first accumulators, and their results stored (fp32 or
// fp16 bits; NaN as the unit's): the hot cases without the generic load.
void load_accumulators(const Call& x, const Lanes& ln, uint32_t* acc) {
  if (x.row.ignores_c) {
    std::fill_n(acc, L, static_cast<uint32_t>(x.zero));
    return;
  }
  if (x.p.storage == BatchStorage::native && x.row.out == Fmt::fp32) {
    for (std::size_t j = 0; j < L; ++j) acc[j] = static_cast<const uint32_t*>(x.p.C)[ln.q[j]];
    return;
  }
  for (std::size_t j = 0; j < L; ++j) acc[j] = static_cast<uint32_t>(load_out(x, ln.q[j]));
}
void store_results(const Call& x, std::size_t q0, const uint32_t* acc) {
  const std::size_t n = std::min(L, x.total - q0);
  if (x.p.storage == BatchStorage::native && x.row.out == Fmt::fp32) {
    uint32_t* d = static_cast<uint32_t*>(x.p.D) + q0;
    for (std::size_t j = 0; j < n; ++j) d[j] = (acc[j] & 0x7FFFFFFFu) > 0x7F800000u ? static_cast<uint32_t>(x.nan) : acc[j];
    return;
  }
  for (std::size_t j = 0; j < n; ++j) store_out(x, q0 + j, acc[j]);
}

// The block-FMA rows' plug-in of the batched engine (batch_engine.h): the
// products of A's and B's codes in container T.
template <typename T>
struct FmaBatch {
  using Panel = ProductPanel;
  const Call& x;
  Codes<T> A, B;
  std::size_t total, k, chunk, group_tasks = kGroupsPerTask;
  bool simd = true;
  Lanes lanes(std::size_t q0) const { return lanes_of(x, q0); }
  void load(const Lanes& ln, uint32_t* acc) const { load_accumulators(x, ln, acc); }
  void store(std::size_t q0, const uint32_t* acc) const { store_results(x, q0, acc); }
  void pack(const Lanes& ln, std::size_t l0, std::size_t kc, ProductPanel& pp) const {
    pack_products(x, A, B, ln, l0, kc, pp);
  }
  void run(const Lanes& ln, std::size_t l0, std::size_t kc, const ProductPanel& pp, std::size_t s0, std::size_t s1,
           uint32_t* acc) const {
    simd_steps(x, A, B, ln, l0, kc, pp, s0, s1, acc);
  }
  uint32_t redo(const Lanes& ln, std::size_t l0, std::size_t kc, std::size_t j, std::size_t s, uint32_t before) const {
    const std::size_t lb = s * x.step, len = std::min(x.step, kc - lb);
    uint64_t a[kernels::kMaxStep * 2], b[kernels::kMaxStep * 2];
    gather_codes(x, A, B, ln.q[j], l0 + lb, l0 + lb + len, a, b);
    return static_cast<uint32_t>(ref::step(x.row, len, a, b, before));
  }
  void scalar(std::size_t q0, std::size_t q1) const { scalar_elements(x, A, B, q0, q1); }
};

// ---------------------------------------------------------------------------
// 16 elements on the CDNA1 exact kernel.

struct ExactProducts {
  AlignedBuf<double> val, lo, hi;  // val[l*16 + j]; lo/hi[s*16 + j]: bounds of the products
  std::vector<uint32_t> special;
  std::size_t held_bytes() const { return scratch_bytes(val, lo, hi, special); }  // scratch.h
};

// The products of the chunk and, per block and lane, the product of A's and
// B's bounds of exact_bounds() (exact: powers of two within double's range).
template <typename T>
void pack_exact_products(const Call& x, Codes<T> A, Codes<T> B, const Lanes& ln, std::size_t l0, std::size_t kc,
                         ExactProducts& ep) {
  const std::size_t steps = (kc + x.step - 1) / x.step, kp = steps * x.step, bs = x.geo.b_stride();
  const int man = kernels::unit_man(x.row), st = static_cast<int>(x.step);
  double* val = ep.val.get(kp * L);
  double* lo = ep.lo.get(steps * L);
  double* hi = ep.hi.get(steps * L);
  ep.special.assign(steps, 0);
  auto floor_log2 = [](double v) { return static_cast<int>((std::bit_cast<uint64_t>(v) >> 52) & 0x7FF) - 1023; };
  for (std::size_t j = 0; j < L; ++j) {
    const std::size_t ab = ln.a[j] + l0, bb = ln.b[j] + l0 * bs;
    for (std::size_t s = 0; s < steps; ++s) {
      int alo = kernels::kExactNone, ahi = -kernels::kExactNone, blo = kernels::kExactNone, bhi = -kernels::kExactNone;
      for (std::size_t l = s * x.step; l < (s + 1) * x.step; ++l) {
        double p = 0.0;
        if (l < kc) {
          const Entry ea = entry(x, A[ab + l]), eb = entry(x, B[bb + l * bs]);
          const double va = ea.val, vb = eb.val;
          if (va != 0.0) alo = std::min(alo, floor_log2(va)), ahi = std::max(ahi, floor_log2(va));
          if (vb != 0.0) blo = std::min(blo, floor_log2(vb)), bhi = std::max(bhi, floor_log2(vb));
          p = va * vb;  // exact: at most 2 * 24 significant bits
          if (HWY_UNLIKELY(ea.special | eb.special)) ep.special[s] |= 1u << j;
        }
        val[l * L + j] = p;
      }
      double la, ha, lb, hb;
      kernels::exact_bounds(true, alo, ahi, man, st, la, ha);
      kernels::exact_bounds(false, blo, bhi, man, st, lb, hb);
      lo[s * L + j] = la * lb;
      hi[s * L + j] = ha * hb;
    }
  }
}

// Block s of lane j off the SIMD kernel: the reference if an input is
// NaN/Inf, else the scalar exact kernel.
template <typename T>
double exact_lane_block(const Call& x, Codes<T> A, Codes<T> B, std::size_t q, std::size_t l0, std::size_t kc,
                        std::size_t s, bool special, double c) {
  const std::size_t lb = s * x.step, len = std::min(x.step, kc - lb);
  uint64_t a[kernels::kMaxStep], b[kernels::kMaxStep];
  gather_codes(x, A, B, q, l0 + lb, l0 + lb + len, a, b);
  const uint32_t cb = std::bit_cast<uint32_t>(static_cast<float>(c));
  uint32_t d;
  if (special) {
    d = static_cast<uint32_t>(ref::step(x.row, len, a, b, cb));
  } else {
    int32_t sa[kernels::kMaxStep], ea[kernels::kMaxStep], sb[kernels::kMaxStep], eb[kernels::kMaxStep];
    for (std::size_t l = 0; l < len; ++l) {
      kernels::pack_element(x.row, a[l], sa[l], ea[l]);
      kernels::pack_element(x.row, b[l], sb[l], eb[l]);
    }
    d = kernels::scalar_step(x.plan.step, x.row, static_cast<int>(len), sa, ea, sb, eb, cb);
  }
  return static_cast<double>(std::bit_cast<float>(d));
}

template <typename T>
void exact_chunk(const Call& x, Codes<T> A, Codes<T> B, const Lanes& ln, std::size_t l0, std::size_t kc,
                 const ExactProducts& ep, double* c) {
  const std::size_t steps = ep.special.size();
  static const std::vector<double> ones(kChunkPositions + 64, 1.0);
  alignas(64) double next[L];
  for (std::size_t s = 0; s < steps;) {
    std::size_t e = s;
    while (e < steps && !ep.special[e]) ++e;
    while (s < e) {
      const int last = static_cast<int>(e == steps ? kc - (steps - 1) * x.step : x.step);
      uint32_t bad = 0;
      const kernels::StepRun run{static_cast<int>(e - s), static_cast<int>(x.step), last};
      const kernels::ExactRowPanel ar{ones.data(), ones.data(), ones.data()};
      const kernels::ExactLanePanel br{ep.val.p.get() + s * x.step * L, ep.lo.p.get() + s * L, ep.hi.p.get() + s * L};
      s += static_cast<std::size_t>(kernels::simd_exact_run16(run, ar, br, c, next, &bad));
      if (s == e) break;
      for (std::size_t j = 0; j < L; ++j)
        c[j] = (bad >> j) & 1 ? exact_lane_block(x, A, B, ln.q[j], l0, kc, s, false, c[j]) : next[j];
      ++s;
    }
    if (s == steps) break;
    for (std::size_t j = 0; j < L; ++j)
      c[j] = exact_lane_block(x, A, B, ln.q[j], l0, kc, s, (ep.special[s] >> j) & 1, c[j]);
    ++s;
  }
}

template <typename T>
void exact_group(const Call& x, Codes<T> A, Codes<T> B, std::size_t q0, ExactProducts& ep) {
  const Lanes ln = lanes_of(x, q0);
  alignas(64) double c[L];
  for (std::size_t j = 0; j < L; ++j)
    c[j] = static_cast<double>(std::bit_cast<float>(static_cast<uint32_t>(first_acc(x, ln.q[j]))));
  for (std::size_t l0 = 0; l0 < x.p.k; l0 += x.kp_chunk) {
    const std::size_t kc = std::min(x.kp_chunk, x.p.k - l0);
    pack_exact_products(x, A, B, ln, l0, kc, ep);
    exact_chunk(x, A, B, ln, l0, kc, ep, c);
  }
  for (std::size_t j = 0; j < L && q0 + j < x.total; ++j)
    store_out(x, q0 + j, std::bit_cast<uint32_t>(static_cast<float>(c[j])));
}

// ---------------------------------------------------------------------------
// Tasks.

enum class Engine : uint8_t { simd, exact, scalar };

struct PositionsSlot;  // run_batch's position table (scratch.h)

Engine engine_of(const kernels::KernelPlan& plan, std::size_t k, std::size_t step) {
  if (k == 0 || step > kernels::kMaxStep) return Engine::scalar;
  if (plan.macro == kernels::Macro::exact) return Engine::exact;
  if (plan.macro == kernels::Macro::steps && plan.simd) return Engine::simd;
  return Engine::scalar;
}

template <typename T>
struct Task {
  const Call* x;
  Engine engine;
  static void run(void* ctx, std::size_t t) {
    const Task& k = *static_cast<const Task*>(ctx);
    const Call& x = *k.x;
    const Codes<T> A{static_cast<const T*>(x.p.A)}, B{static_cast<const T*>(x.p.B)};
    const std::size_t q0 = t * kGroupsPerTask * L, q1 = std::min(x.total, q0 + kGroupsPerTask * L);
    if (k.engine == Engine::scalar) return scalar_elements(x, A, B, q0, q1);
    const Scratch<ExactProducts> ep;
    for (std::size_t q = q0; q < q1; q += L) exact_group(x, A, B, q, *ep);
  }
};

// The SIMD engine on the batched engine's loop (batch_engine.h); the exact
// and scalar ones by tasks of their own.
template <typename T>
void run_tasks(const Call& x, Engine e, int threads) {
  if (e == Engine::simd)
    return run_batch_engine(FmaBatch<T>{x, {static_cast<const T*>(x.p.A)}, {static_cast<const T*>(x.p.B)}, x.total,
                                        x.p.k, x.kp_chunk},
                            threads);
  Task<T> task{&x, e};
  const std::size_t per = kGroupsPerTask * L;
  batch_parallel((x.total + per - 1) / per, threads, &Task<T>::run, &task);
}

}  // namespace

// Lane j: element q0 + j, or q0 where the group is short. (Counters, not
// divisions: the geometry's a_base/b_base once, then steps along q.)
BatchLanes batch_lanes(std::size_t m, std::size_t n, std::size_t k, std::size_t total, std::size_t q0) {
  BatchLanes ln;
  const Geometry g{m, n, k, m * n};
  if (g.mn == 1 && q0 + L <= total) {  // dot products
    for (std::size_t j = 0; j < L; ++j) ln.q[j] = q0 + j, ln.a[j] = ln.b[j] = (q0 + j) * g.k;
    return ln;
  }
  std::size_t t = q0 / g.mn, i = q0 % g.mn / g.n, c = q0 % g.n;
  for (std::size_t j = 0; j < L; ++j) {
    if (q0 + j >= total) {
      ln.q[j] = q0, ln.a[j] = ln.a[0], ln.b[j] = ln.b[0];
      continue;
    }
    ln.q[j] = q0 + j;
    ln.a[j] = t * g.m * g.k + i * g.k;
    ln.b[j] = t * g.k * g.n + c;
    if (++c == g.n) {
      c = 0;
      if (++i == g.m) i = 0, ++t;
    }
  }
  return ln;
}

const IdentityRow& identity_row() {
  static const IdentityRow id;
  return id;
}

void batch_parallel(std::size_t tasks, int threads, void (*body)(void* ctx, std::size_t i), void* ctx) {
  // The pool runs every task under the kernels' floating-point environment.
  parallel_for(thread_count(threads), tasks, Assign::dynamic, [&](std::size_t i) { body(ctx, i); });
}

const char* batch_engine(const ModelRow& row, const BatchOptions& o) {
  if (row.accum == Accumulation::integer) return integer_batch_simd(row, o) ? "simd" : "reference";
  constexpr const char* kEngineNames[] = {"simd", "exact"};  // in Engine's order
  const kernels::KernelPlan plan = kernels::plan(row, {o.use_reference, o.simd_off});
  const Engine e = engine_of(plan, 1, step_k(row));
  if (e != Engine::scalar) return kEngineNames[static_cast<int>(e)];
  return plan.fp64 ? "fp64" : plan.step != kernels::ScalarKernel::none ? "scalar" : "reference";
}

void run_batch(const ModelRow& row, const BatchProblem& p, const BatchOptions& o) {
  if (row.accum == Accumulation::integer) return run_integer_batch(row, p, o);
  if (p.int4_packed) throw std::invalid_argument("int4_packed: the operands of an integer unit only");
  const std::size_t total = p.count * p.m * p.n;
  if (total == 0) return;
  Call x{row, kernels::plan(row, {o.use_reference, o.simd_off}), p, {p.m, p.n, p.k, p.m * p.n}, total,
         step_k(row), 0, nullptr, false, o.use_reference, false, batch_code_decode(row), zero_bits(row.out, false),
         nan_result(row), {}};
  x.kp_chunk = std::max<std::size_t>(1, kChunkPositions / x.step) * x.step;
  x.real = kernels::decoding_of(row) == kernels::Decoding::real;
  x.half = x.decode.width > 0;
  const bool inter = x.plan.simd && x.plan.simd_params.kind == kernels::SimdKind::interleaved;
  // (a slot of the thread's scratch arena: a single tile allocates nothing)
  const Scratch<std::vector<uint32_t>, PositionsSlot> pos_slot;
  std::vector<uint32_t>& pos = *pos_slot;
  pos.clear();
  for (std::size_t l = 0; l < x.kp_chunk; ++l)
    pos.push_back(static_cast<uint32_t>(inter ? l - l % x.step + pair_position(l % x.step, x.step / 2) : l));
  x.pos = pos;
  const Engine e = engine_of(x.plan, p.k, x.step);
  x.table = e == Engine::scalar ? nullptr : entry_table(row);
  if (p.storage == BatchStorage::codes) return run_tasks<uint64_t>(x, e, o.threads);
  switch (info(row.in).width) {
    case 8: return run_tasks<uint8_t>(x, e, o.threads);
    case 16: return run_tasks<uint16_t>(x, e, o.threads);
    case 32: return run_tasks<uint32_t>(x, e, o.threads);
    default: return run_tasks<uint64_t>(x, e, o.threads);
  }
}

}  // namespace mmaemu::driver
