// SPDX-License-Identifier: BSD-3-Clause
// The block-scaled kind's plug-ins: of the steps loop nest (steps_nest.h)
// and, at the end, of the batched engine (batch_engine.h). The GEMM's:
// ref::scaled_chain's bits (docs/block-scaled.md §4 and "Speed") on the SIMD
// kernels of kernels/scaled_simd.h. What is the kind's own: reading an
// operand's element and scale codes (driver::Operand: CBLAS layout, fp4
// pairs along k, or fp32 quantised as the sgemm policies do), padding each
// chunk to whole instructions (zero elements, neutral scales: §4.3), the
// decode into what the kernels read (element values and alignment
// exponents, the scale exponent per instruction (T/ST); doubled e2m1
// values, nonzero masks per group of 16, scale values and exponents per
// block (GST)), the T/ST/GST kernel calls, and ref::scaled_step for a step
// whose A row or B column holds a NaN/Inf element or a NaN scale (flagged
// at packing time). The nest's chunks are whole instructions and whole
// scale blocks, so each chain runs along k in the model's order whatever
// the blocking or the thread count.
#include <algorithm>
#include <array>
#include <bit>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver/batch_engine.h"
#include "driver/macro.h"
#include "driver/parallel.h"
#include "driver/scaled_decode.h"
#include "driver/special_fallback.h"
#include "driver/steps_nest.h"
#include "kernels/plan.h"
#include "kernels/quantise_simd.h"
#include "ref/block_scaled.h"

namespace mmaemu::driver {
namespace {

constexpr std::size_t L = kernels::kScaledLanes;
static_assert(L == kFallbackLanes && L == kNestLanes);
constexpr std::size_t kGroup = 16;  // GST: products summed exactly per group

// A chunk of vectors (A: rows, stride 1; B: lane groups of 16 columns,
// lane-interleaved, stride 16) packed for the kernels, with the codes the
// reference fallback reads (per vector, k contiguous).
struct ScaledPanel {
  std::size_t kp = 0, nbc = 0;
  std::vector<uint8_t> codes, scales;  // vector v: codes[v*kp + l], scales[v*nbc + t]
  std::vector<float> val;              // T/ST: values; GST: doubled values (kernels/scaled_simd.h)
  std::vector<int16_t> exp;            // T/ST: alignment exponents (B: in pairs, LanePanel::exp16)
  std::vector<int32_t> sexp;           // T/ST: per step; GST: per scale block
  std::vector<uint32_t> nz;            // GST: per group
  std::vector<double> scale;           // GST: per scale block
  std::vector<uint32_t> special;       // A: per (row, step) 0/1; B: per (group, step) the lanes
  std::size_t held_bytes() const { return scratch_bytes(codes, scales, val, exp, sexp, nz, scale, special); }
};
using Chunk = NestChunk<ScaledPanel>;

template <typename T>
void grow(std::vector<T>& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
}
// v's element i, or null where the kind does not use v (empty).
template <typename T>
const T* at(const std::vector<T>& v, std::size_t i) {
  return v.empty() ? nullptr : v.data() + i;
}

// Element (line, l) of op(X) in storage (A's lines are rows, B's columns;
// row-major view, gemm.h).
std::size_t at(const Operand& X, bool is_a, std::size_t line, std::size_t l, std::ptrdiff_t ld) {
  const std::size_t r = is_a ? line : l, c = is_a ? l : line;
  return X.trans ? c * static_cast<std::size_t>(ld) + r : r * static_cast<std::size_t>(ld) + c;
}

// f(r, l) for r < count, l < len, in storage order: lines outside when
// each line is contiguous along k, else positions outside.
template <typename F>
void in_storage_order(const Operand& X, bool is_a, std::size_t count, std::size_t len, F f) {
  if (is_a == X.trans) {
    for (std::size_t l = 0; l < len; ++l)
      for (std::size_t r = 0; r < count; ++r) f(r, l);
  } else {
    for (std::size_t r = 0; r < count; ++r)
      for (std::size_t l = 0; l < len; ++l) f(r, l);
  }
}

// The quantisation staging of a thread (sgemm policies): fp32 lines.
struct QuantiseSlot;

struct ScaledKind {
  using APanel = ScaledPanel;
  using BPanel = ScaledPanel;
  static constexpr std::size_t panel_bytes = 10;  // of B's chunk per element: code, value, exponent, ...
  static constexpr bool fp64 = false, registers_only = false;
  static constexpr const RangeSink* sink = nullptr;
  const ScaledCall& g;
  const ScaledUnit& u;
  bool gst, simd;
  std::size_t step, block, kc_unit, bps, groups, nb;  // nb: scale blocks of the GEMM's k
  std::size_t nc_cap;  // ScaledSpec::block_bytes: of B's chunk per N panel (k chunks of kKTarget)
  bool slices_ok;      // B's lane groups packed in slices of k (slices of whole scale blocks)
  uint8_t neutral;
  ElementTable eta, etb;
  ScaleTable stab;

  explicit ScaledKind(const ScaledCall& call)
      : g(call), u(*call.spec.unit), gst(u.algo == ScaledAlgo::gst_fdpa), simd(call.plan.simd),
        step(static_cast<std::size_t>(u.k)), block(static_cast<std::size_t>(u.block)),
        kc_unit(block ? std::lcm(step, block) : step), bps(block ? step / block : 0),
        groups(u.group ? step / static_cast<std::size_t>(u.group) : 0), nb(block ? call.k / block : 0),
        nc_cap(call.spec.block_bytes ? std::max(kNestLanes, call.spec.block_bytes / (panel_bytes * nest::kKTarget))
                                     : 0),
        slices_ok(block == 0 || step % block == 0), neutral(neutral_scale(u.scale)),
        eta(element_table(call.A.storage, u.subnormals, gst)), etb(element_table(call.B.storage, u.subnormals, gst)),
        stab(scale_table(u.scale)) {}

  // Scale codes a chunk of kp elements holds per vector.
  std::size_t nbc(std::size_t kp) const { return block ? (kp + block - 1) / block : 0; }

  // Lines [line0, line0 + count) of op(X), elements [k0, k0 + len) (k0 a
  // whole number of scale blocks), into codes[r*cs + l] and the scale codes
  // of their blocks into scales[r*ss + t]; past the GEMM's k zero codes
  // and neutral scales (padding to whole instructions).
  void read(const Operand& X, bool is_a, std::size_t line0, std::size_t count, std::size_t k0, std::size_t len,
            uint8_t* codes, std::size_t cs, uint8_t* scales, std::size_t ss) const {
    const std::size_t real = std::min(len, g.k - std::min(k0, g.k));
    const std::size_t t0 = block ? k0 / block : 0, tn = block ? (len + block - 1) / block : 0;
    const std::size_t treal = std::min(tn, nb - std::min(t0, nb));
    for (std::size_t r = 0; r < count; ++r) {
      std::fill(codes + r * cs + real, codes + r * cs + len, 0);
      std::fill(scales + r * ss + treal, scales + r * ss + tn, neutral);
    }
    if (X.quantise) return quantise(X, is_a, line0, count, k0, real, treal, codes, cs, scales, ss);
    const auto* x = static_cast<const uint8_t*>(X.data);
    if (X.fp4_packed)
      in_storage_order(X, is_a, count, real, [&](std::size_t r, std::size_t l) {
        const std::size_t kl = k0 + l;
        codes[r * cs + l] = (x[at(X, is_a, line0 + r, kl / 2, X.ld)] >> (4 * (kl & 1))) & 0xF;
      });
    else
      in_storage_order(X, is_a, count, real,
                       [&](std::size_t r, std::size_t l) { codes[r * cs + l] = x[at(X, is_a, line0 + r, k0 + l, X.ld)]; });
    in_storage_order(X, is_a, count, treal, [&](std::size_t r, std::size_t t) {
      scales[r * ss + t] = X.scales[at(X, is_a, line0 + r, t0 + t, X.scale_ld)];
    });
  }

  // The sgemm policies: fp32 op(X) with q.k real elements per line,
  // quantised block by block (each block's codes and scale depend on that
  // block alone, so a chunk of whole blocks gives the whole line's codes);
  // zeros past q.k, whose blocks' scale codes (of the `treal` blocks within
  // the GEMM's k) are 0.
  void quantise(const Operand& X, bool is_a, std::size_t line0, std::size_t count, std::size_t k0,
                std::size_t len, std::size_t treal, uint8_t* codes, std::size_t cs, uint8_t* scales,
                std::size_t ss) const {
    const LineQuantiser& q = *X.quantise;
    const std::size_t n = std::min(len, q.k - std::min(k0, q.k)), tq = std::min(treal, (n + q.block - 1) / q.block);
    for (std::size_t r = 0; r < count; ++r) {
      std::fill(codes + r * cs + n, codes + r * cs + len, 0);
      std::fill(scales + r * ss + tq, scales + r * ss + treal, 0);
    }
    if (n == 0) return;
    const Scratch<std::vector<float>, QuantiseSlot> stage;
    std::vector<float>& line = *stage;
    grow(line, count * n);
    const auto* x = static_cast<const float*>(X.data);
    in_storage_order(X, is_a, count, n,
                     [&](std::size_t r, std::size_t l) { line[r * n + l] = x[at(X, is_a, line0 + r, k0 + l, X.ld)]; });
    for (std::size_t r = 0; r < count; ++r) {
      const float* v = &line[r * n];
      if (q.nvfp4) kernels::quantise_nvfp4_simd(v, n, q.encode, codes + r * cs, scales + r * ss);
      else kernels::quantise_mx_simd(q.element, q.block, v, n, codes + r * cs, scales + r * ss);
    }
  }

  // Steps [s0, s1) of one line (codes c, scale codes sc, chunk positions)
  // into the T/ST arrays at `stride` (exponents in pairs: element l at
  // (l/2)*2*stride + l%2); flag(s) for a step with a NaN/Inf element or a
  // NaN scale.
  template <typename Flag>
  void decode_st(const ElementTable& et, const uint8_t* c, const uint8_t* sc, std::size_t s0, std::size_t s1,
                 float* val, int16_t* exp, int32_t* sexp, std::size_t stride, Flag flag) const {
    for (std::size_t s = s0; s < s1; ++s) {
      bool special = false;
      for (std::size_t l = s * step; l < (s + 1) * step; ++l) {
        const ElementCode& e = et[c[l]];
        val[l * stride] = e.val;
        exp[(l / 2) * 2 * stride + l % 2] = static_cast<int16_t>(e.e);
        special |= e.special;
      }
      int32_t es = 0;
      if (u.algo == ScaledAlgo::st_fdpa) {
        const ScaleCode& code = stab[sc[s * step / block]];
        special |= code.nan;
        es = code.nan ? 0 : code.st_exp;
      }
      sexp[s * stride] = es;
      if (special) flag(s);
    }
  }
  template <typename Flag>
  void decode_gst(const ElementTable& et, const uint8_t* c, const uint8_t* sc, std::size_t s0, std::size_t s1,
                  float* val2, uint32_t* nz, double* scale, int32_t* sexp, std::size_t stride, Flag flag) const {
    for (std::size_t s = s0; s < s1; ++s) {
      bool special = false;
      for (std::size_t gi = s * groups; gi < (s + 1) * groups; ++gi) {
        uint32_t mask = 0;
        for (std::size_t i = 0; i < kGroup; ++i) {
          const std::size_t l = gi * kGroup + i;
          const ElementCode& e = et[c[l]];
          val2[l * stride] = e.val;
          if (e.val != 0) mask |= 1u << i;
        }
        nz[gi * stride] = mask;
      }
      for (std::size_t t = s * bps; t < (s + 1) * bps; ++t) {
        const ScaleCode& code = stab[sc[t]];
        special |= code.nan;
        scale[t * stride] = code.val;
        sexp[t * stride] = code.e;
      }
      if (special) flag(s);
    }
  }
  // Entries of sexp per step (T/ST: one; GST: one per scale block), per vector.
  std::size_t sexp_per_step() const { return gst ? bps : 1; }
  std::size_t per_sexp(const Chunk& ch) const { return ch.steps * sexp_per_step(); }

  // Sizes p for `vectors` vectors (B: 16 per group) of the chunk.
  void shape(const Chunk& ch, std::size_t vectors, std::size_t flags, ScaledPanel& p) const {
    p.kp = ch.kp, p.nbc = nbc(ch.kp);
    grow(p.codes, vectors * ch.kp), grow(p.scales, vectors * p.nbc), grow(p.special, flags * ch.steps);
    if (!simd) return;
    grow(p.val, vectors * ch.kp), grow(p.sexp, vectors * per_sexp(ch));
    if (gst) grow(p.nz, vectors * ch.steps * groups), grow(p.scale, vectors * per_sexp(ch));
    else grow(p.exp, vectors * ch.kp);
  }

  void prepare(ScaledPanel&) const {}
  void shape_b(const Chunk& ch, ScaledPanel& b) const {
    const std::size_t gs = (ch.nc + L - 1) / L;
    shape(ch, gs * L, gs, b);
  }

  // Slice j of `slices` of lane group gg: its steps' codes read, decoded
  // lane-interleaved and flagged; lanes past the panel's columns are zero
  // elements with neutral scales (their results are never stored).
  void pack_b(const NestPanel& p, std::size_t k0, const Chunk& ch, ScaledPanel& b, std::size_t gg, std::size_t j,
              std::size_t slices) const {
    const std::size_t s0 = ch.steps * j / slices, s1 = ch.steps * (j + 1) / slices;
    const std::size_t l0 = s0 * step, l1 = s1 * step, t0 = block ? l0 / block : 0;
    const std::size_t lanes = std::min(L, p.nc - gg * L), v0 = gg * L, nbc = b.nbc;
    read(g.B, false, p.j0 + v0, lanes, k0 + l0, l1 - l0, &b.codes[v0 * ch.kp + l0], ch.kp,
         block ? &b.scales[v0 * nbc + t0] : nullptr, nbc);
    const std::size_t tn = block ? (l1 - l0 + block - 1) / block : 0;
    for (std::size_t v = v0 + lanes; v < v0 + L; ++v) {
      std::fill(&b.codes[v * ch.kp + l0], &b.codes[v * ch.kp + l1], 0);
      if (block) std::fill(&b.scales[v * nbc + t0], &b.scales[v * nbc + t0 + tn], neutral);
    }
    uint32_t* flags = &b.special[gg * ch.steps];
    std::fill(flags + s0, flags + s1, 0);
    if (!simd) return;
    const std::size_t sx = per_sexp(ch);
    for (std::size_t q = 0; q < L; ++q) {
      auto flag = [&](std::size_t s) { flags[s] |= 1u << q; };
      const uint8_t* c = &b.codes[(v0 + q) * ch.kp];
      const uint8_t* sc = block ? &b.scales[(v0 + q) * nbc] : nullptr;
      if (gst)
        decode_gst(etb, c, sc, s0, s1, &b.val[gg * ch.kp * L + q], &b.nz[gg * ch.steps * groups * L + q],
                   &b.scale[gg * sx * L + q], &b.sexp[gg * sx * L + q], L, flag);
      else
        decode_st(etb, c, sc, s0, s1, &b.val[gg * ch.kp * L + q], &b.exp[gg * ch.kp * L + 2 * q],
                  &b.sexp[gg * sx * L + q], L, flag);
    }
  }

  // Rows [i0, i0 + mc) of A for the chunk.
  void pack_a(const Chunk& ch, std::size_t k0, std::size_t i0, std::size_t mc, ScaledPanel& a) const {
    shape(ch, mc, mc, a);
    read(g.A, true, i0, mc, k0, ch.kp, a.codes.data(), ch.kp, a.scales.data(), a.nbc);
    if (!simd) return;
    const std::size_t sx = per_sexp(ch);
    for (std::size_t r = 0; r < mc; ++r) {
      uint32_t* flags = &a.special[r * ch.steps];
      std::fill(flags, flags + ch.steps, 0);
      auto flag = [&](std::size_t s) { flags[s] = 1; };
      const uint8_t* c = &a.codes[r * ch.kp];
      const uint8_t* sc = block ? &a.scales[r * a.nbc] : nullptr;
      if (gst)
        decode_gst(eta, c, sc, 0, ch.steps, &a.val[r * ch.kp], &a.nz[r * ch.steps * groups], &a.scale[r * sx],
                   &a.sexp[r * sx], 1, flag);
      else
        decode_st(eta, c, sc, 0, ch.steps, &a.val[r * ch.kp], &a.exp[r * ch.kp], &a.sexp[r * sx], 1, flag);
    }
  }

  // Steps [s, s + count) of row r against lane group gg on the plan's
  // step kernel (the one prototype: the panels carry every field).
  void run_simd(const Chunk& ch, const ScaledPanel& a, std::size_t r, std::size_t gg, std::size_t s,
                std::size_t count, uint32_t* acc) const {
    const ScaledPanel& b = ch.b;
    const std::size_t ea = r * ch.kp + s * step, eb = (gg * ch.kp + s * step) * L, sx = per_sexp(ch);
    const std::size_t ga = (r * ch.steps + s) * groups, gb = (gg * ch.steps + s) * groups * L;
    const std::size_t ta = r * sx + s * sexp_per_step(), tb = (gg * sx + s * sexp_per_step()) * L;
    const kernels::RowPanel pa{.val = &a.val[ea], .sig = nullptr, .exp = nullptr, .exp16 = at(a.exp, ea),
                               .scale_exp = &a.sexp[ta], .nz = at(a.nz, ga), .scale = at(a.scale, ta)};
    const kernels::LanePanel pb{.val = &b.val[eb], .sig = nullptr, .exp = nullptr, .exp16 = at(b.exp, eb),
                                .scale_exp = &b.sexp[tb], .nz = at(b.nz, gb), .scale = at(b.scale, tb)};
    const int steps = static_cast<int>(count);
    g.plan.kernel(g.plan.simd_params, {steps, static_cast<int>(step), static_cast<int>(step)}, pa, pb, acc);
  }

  // Step s of row r against column `col` of the chunk's B on the reference
  // step of ref::scaled_chain (the last one padded).
  uint32_t reference_step(const Chunk& ch, const ScaledPanel& a, std::size_t r, std::size_t col, std::size_t s,
                          uint32_t acc) const {
    const ScaledPanel& b = ch.b;
    const std::size_t l0 = s * step, t0 = block ? l0 / block : 0;
    const ref::ScaledStep st{g.A.storage,
                             g.B.storage,
                             &a.codes[r * ch.kp + l0],
                             &b.codes[col * ch.kp + l0],
                             block ? &a.scales[r * a.nbc + t0] : nullptr,
                             block ? &b.scales[col * b.nbc + t0] : nullptr,
                             acc};
    return static_cast<uint32_t>(ref::scaled_step(u, Fmt::fp32, st, std::min(step, ch.kc - l0)));
  }

  // Row r's chains against lane group gg over the chunk: runs of clean
  // steps on the kernel; a flagged step on the kernel for its clean lanes
  // and on the reference for the others (the special-value fallback).
  // Without a kernel every step runs on the reference.
  void chains(const Chunk& ch, const ScaledPanel& a, std::size_t r, std::size_t gg, std::size_t lanes,
              uint32_t* acc) const {
    if (!simd) {
      for (std::size_t s = 0; s < ch.steps; ++s)
        for (std::size_t j = 0; j < lanes; ++j) acc[j] = reference_step(ch, a, r, gg * L + j, s, acc[j]);
      return;
    }
    const uint32_t* fa = &a.special[r * ch.steps];
    const uint32_t* fb = &ch.b.special[gg * ch.steps];
    const uint32_t real = lanes == L ? ~0u : (1u << lanes) - 1;
    steps_with_fallback(
        0, ch.steps, acc, [&](std::size_t s) { return fa[s] || fb[s]; },
        [&](std::size_t s) { return (fa[s] ? ~0u : fb[s]) & real; },
        [&](std::size_t s, std::size_t e) { run_simd(ch, a, r, gg, s, e - s, acc); },
        [&](std::size_t j, std::size_t s, uint32_t before) { return reference_step(ch, a, r, gg * L + j, s, before); });
  }

  void task(const Chunk& ch, const NestPanel& p, std::size_t k0, const NestTask& t, ScaledPanel& a,
            uint32_t* acc32, uint64_t*) const {
    pack_a(ch, k0, t.i0, t.mc, a);
    // Groups outer, so that a group's B panel stays in cache for the rows.
    for (std::size_t gg = t.g0; gg < t.g1; ++gg)
      for (std::size_t r = 0; r < t.mc; ++r) {
        alignas(64) uint32_t acc[L] = {};
        const std::size_t w0 = gg * L, lanes = std::min(L, p.nc - w0);
        uint32_t* row = acc32 + r * p.nc + w0;
        std::copy(row, row + lanes, acc);
        chains(ch, a, r, gg, lanes, acc);
        std::copy(acc, acc + lanes, row);
      }
  }
};

// A GemmSpec field the block-scaled path does not read, set to other than
// its default: refused rather than ignored.
void refuse_unread(bool set, const char* field, const char* why) {
  if (set)
    throw std::invalid_argument(std::string("a block-scaled GEMM does not read GemmSpec::") + field + " (" + why +
                                "): leave it at its default");
}

}  // namespace

void check_scaled(const GemmSpec& spec, std::size_t k, const Operand& A, const Operand& B, Fmt c_storage) {
  refuse_unread(spec.row != nullptr, "row", "the unit, GemmSpec::scaled, takes its place");
  refuse_unread(spec.input_round != Round::rne, "input_round", "the operands are element codes, not converted");
  refuse_unread(spec.input_overflow != Overflow::ieee, "input_overflow",
                "the operands are element codes, not converted");
  const ScaledUnit& u = *spec.scaled->unit;
  if (u.block && k % static_cast<std::size_t>(u.block))
    throw std::invalid_argument("k = " + std::to_string(k) + " is not a multiple of block_size " +
                                std::to_string(u.block));
  ref::check_formats(u, A.storage, B.storage, Fmt::fp32);
  if (c_storage != Fmt::fp32) throw std::invalid_argument("a block-scaled GEMM stores fp32");
}

void run_scaled_macro(const ScaledCall& g) {
  run_steps_nest(g, ScaledKind(g));
}

float operand_amax(const Operand& X, std::size_t rows, std::size_t cols, int threads) {
  // In storage order: outer lines of the stored matrix, inner elements.
  const auto* v = static_cast<const float*>(X.data);
  const std::size_t outer = X.trans ? cols : rows, inner = X.trans ? rows : cols;
  constexpr std::size_t kTasks = 64;
  const std::size_t per = (outer + kTasks - 1) / kTasks, tasks = per ? (outer + per - 1) / per : 0;
  std::vector<float> part(tasks, 0.0f);
  // The largest finite |x| is the same whatever the order of the reads.
  parallel_for(threads, tasks, Assign::blocks, [&](std::size_t t) {
    float amax = 0;
    for (std::size_t o = t * per; o < std::min(outer, (t + 1) * per); ++o)
      amax = std::max(amax, kernels::finite_abs_max(v + o * static_cast<std::size_t>(X.ld), inner));
    part[t] = amax;
  });
  float amax = 0;
  for (float p : part) amax = std::max(amax, p);
  return amax;
}

// ---------------------------------------------------------------------------
// Batched instructions (batch.h, ScaledBatch; docs/batch.md) on the batched
// engine's loop (batch_engine.h). The kernels read a product only through
//   T/ST:  val_a * val_b (fp32), e_a + e_b (int16), scale_exp_a + scale_exp_b
//   GST:   fma(val2_a, val2_b, q) (exact), nz_a & nz_b, s_a * s_b (exact in
//          binary64), scale_exp_a + scale_exp_b,
// so 16 lanes of the products (formed as the kernel forms them) against
// an identity row (value 1, exponents 0, every element nonzero, scale 1)
// give the kernel's bits for 16 independent operand pairs. Steps with a
// NaN/Inf element or a NaN scale run on the reference for their lanes.

namespace {
namespace sbatch {

constexpr std::size_t kGroupsPerTask = 16;  // 256 output elements per task
constexpr std::size_t kMaxStepK = 64;       // plan()'s largest block-scaled k
constexpr std::size_t kChunkSteps = 16;     // instructions per panel chunk

// The operands of output element q, and the call's fixed facts.
struct Call {
  const ScaledBatch& b;
  const ScaledUnit& u;
  kernels::KernelPlan plan;
  std::size_t total, mn, uk, block, nb, groups, bps;
  ElementTable ea, eb;
  ScaleTable st;
  uint8_t neutral;

  // Where element q's operands start: a, sa along k (stride 1), b, sb
  // along k with stride n.
  struct Base {
    std::size_t a, b, sa, sb;
  };
  Base base(std::size_t q) const {
    const std::size_t t = q / mn, i = q % mn / b.n, c = q % b.n;
    return {t * b.m * b.k + i * b.k, t * b.k * b.n + c, t * b.m * nb + i * nb, t * nb * b.n + c};
  }
  // Element l of a and b, scale block t of each (padded past k).
  uint8_t a(const Base& o, std::size_t l) const { return l < b.k ? b.A[o.a + l] : 0; }
  uint8_t bb(const Base& o, std::size_t l) const { return l < b.k ? b.B[o.b + l * b.n] : 0; }
  uint8_t sa(const Base& o, std::size_t t) const { return t < nb ? b.SA[o.sa + t] : neutral; }
  uint8_t sb(const Base& o, std::size_t t) const { return t < nb ? b.SB[o.sb + t * b.n] : neutral; }
};

uint64_t load_c(const Call& x, std::size_t q) {
  return x.b.out == Fmt::fp32 ? std::bit_cast<uint32_t>(static_cast<const float*>(x.b.C)[q])
                              : static_cast<const uint16_t*>(x.b.C)[q];
}
void store_d(const Call& x, std::size_t q, uint64_t d) {
  if (x.b.out == Fmt::fp32) static_cast<float*>(x.b.D)[q] = std::bit_cast<float>(static_cast<uint32_t>(d));
  else static_cast<uint16_t*>(x.b.D)[q] = static_cast<uint16_t>(d);
}

// Instruction s of element q on the reference, from c.
uint32_t reference_step(const Call& x, std::size_t q, std::size_t s, uint32_t c) {
  const Call::Base q0 = x.base(q);
  std::array<uint8_t, kMaxStepK> a{}, b{}, sa{}, sb{};
  for (std::size_t l = 0; l < x.uk; ++l) a[l] = x.a(q0, s * x.uk + l), b[l] = x.bb(q0, s * x.uk + l);
  for (std::size_t t = 0; t < x.bps; ++t) sa[t] = x.sa(q0, s * x.bps + t), sb[t] = x.sb(q0, s * x.bps + t);
  return static_cast<uint32_t>(
      ref::scaled_instruction(x.u, x.b.out, {x.b.fa, x.b.fb, a.data(), b.data(), sa.data(), sb.data(), c}));
}

// The whole chain of element q on the reference.
void reference_elements(const Call& x, std::size_t q0, std::size_t q1) {
  std::vector<uint8_t> a(x.b.k), b(x.b.k), sa(x.nb), sb(x.nb);
  for (std::size_t q = q0; q < q1; ++q) {
    const Call::Base o = x.base(q);
    for (std::size_t l = 0; l < x.b.k; ++l) a[l] = x.a(o, l), b[l] = x.bb(o, l);
    for (std::size_t t = 0; t < x.nb; ++t) sa[t] = x.sa(o, t), sb[t] = x.sb(o, t);
    store_d(x, q, ref::scaled_chain(x.u, x.b.out, x.b.fa, x.b.fb, x.b.k, a.data(), sa.data(), b.data(), sb.data(),
                                    load_c(x, q)));
  }
}

// ---------------------------------------------------------------------------
// Product panels of one chunk of instructions for 16 lanes.

struct Panels {
  std::vector<float> val;
  std::vector<int16_t> exp;     // ST: pairs, element l of lane j at (l/2)*32 + 2j + l%2
  std::vector<int32_t> sexp;    // ST: per (step, lane); GST: per (scale block, lane)
  std::vector<uint32_t> nz;     // GST: per (group, lane)
  std::vector<double> scale;    // GST: per (scale block, lane)
  std::vector<uint32_t> special;  // per step: the lanes with a NaN/Inf element or a NaN scale
  std::size_t held_bytes() const { return scratch_bytes(val, exp, sexp, nz, scale, special); }  // scratch.h
};

static_assert(kChunkSteps * kMaxStepK <= IdentityRow::kIdentityEntries, "the identity row covers a chunk");

void pack_st(const Call& x, const Call::Base* q, std::size_t s0, std::size_t steps, Panels& p) {
  p.val.resize(steps * x.uk * L);
  p.exp.resize(steps * x.uk * L);
  p.sexp.resize(steps * L);
  p.special.assign(steps, 0);
  const bool scaled = x.u.algo == ScaledAlgo::st_fdpa;
  for (std::size_t j = 0; j < L; ++j)
    for (std::size_t s = 0; s < steps; ++s) {
      bool special = false;
      for (std::size_t i = 0; i < x.uk; ++i) {
        const std::size_t l = s * x.uk + i, kl = (s0 + s) * x.uk + i;
        const ElementCode& a = x.ea[x.a(q[j], kl)];
        const ElementCode& b = x.eb[x.bb(q[j], kl)];
        p.val[l * L + j] = a.val * b.val;
        p.exp[(l / 2) * 2 * L + 2 * j + l % 2] = static_cast<int16_t>(a.e + b.e);
        special |= a.special | b.special;
      }
      int32_t es = 0;
      if (scaled) {
        const ScaleCode& a = x.st[x.sa(q[j], s0 + s)];
        const ScaleCode& b = x.st[x.sb(q[j], s0 + s)];
        special |= a.nan | b.nan;
        es = (a.nan ? 0 : a.st_exp) + (b.nan ? 0 : b.st_exp);
      }
      p.sexp[s * L + j] = es;
      if (special) p.special[s] |= 1u << j;
    }
}

void pack_gst(const Call& x, const Call::Base* q, std::size_t s0, std::size_t steps, Panels& p) {
  constexpr std::size_t kGroup = 16;
  p.val.resize(steps * x.uk * L);
  p.nz.resize(steps * x.groups * L);
  p.scale.resize(steps * x.bps * L);
  p.sexp.resize(steps * x.bps * L);
  p.special.assign(steps, 0);
  for (std::size_t j = 0; j < L; ++j)
    for (std::size_t s = 0; s < steps; ++s) {
      bool special = false;
      for (std::size_t g = 0; g < x.groups; ++g) {
        uint32_t mask = 0;
        for (std::size_t i = 0; i < kGroup; ++i) {
          const std::size_t l = (s * x.groups + g) * kGroup + i, kl = (s0 * x.groups * kGroup) + l;
          const ElementCode& a = x.ea[x.a(q[j], kl)];
          const ElementCode& b = x.eb[x.bb(q[j], kl)];
          p.val[l * L + j] = a.val * b.val;  // doubled values: small integers, exact
          if (a.val != 0 && b.val != 0) mask |= 1u << i;
        }
        p.nz[(s * x.groups + g) * L + j] = mask;
      }
      for (std::size_t t = 0; t < x.bps; ++t) {
        const ScaleCode& a = x.st[x.sa(q[j], (s0 + s) * x.bps + t)];
        const ScaleCode& b = x.st[x.sb(q[j], (s0 + s) * x.bps + t)];
        special |= a.nan | b.nan;
        p.scale[(s * x.bps + t) * L + j] = a.val * b.val;  // exact: at most 8 significant bits
        p.sexp[(s * x.bps + t) * L + j] = a.e + b.e;
      }
      if (special) p.special[s] |= 1u << j;
    }
}

// Steps [s, e) of the chunk on the plan's step kernel (the one prototype).
void run_kernel(const Call& x, const Panels& p, std::size_t s, std::size_t e, uint32_t* acc) {
  const IdentityRow& id = identity_row();
  const int steps = static_cast<int>(e - s), k = static_cast<int>(x.uk);
  const bool gst = x.u.algo == ScaledAlgo::gst_fdpa;
  const std::size_t at = s * x.uk * L, gt = s * x.groups * L, tt = s * (gst ? x.bps : 1) * L;
  const kernels::RowPanel a{.val = id.one.data(), .sig = nullptr, .exp = nullptr, .exp16 = id.zero16.data(),
                            .scale_exp = id.zero32.data(), .nz = id.all.data(), .scale = id.one64.data()};
  const kernels::LanePanel b{.val = &p.val[at], .sig = nullptr, .exp = nullptr, .exp16 = gst ? nullptr : &p.exp[at],
                             .scale_exp = &p.sexp[tt], .nz = gst ? &p.nz[gt] : nullptr,
                             .scale = gst ? &p.scale[tt] : nullptr};
  x.plan.kernel(x.plan.simd_params, {steps, k, k}, a, b, acc);
}

// The batched engine's plug-in (batch_engine.h): per lane the products of
// its own operands, against the identity row.
struct ScaledBatchKind {
  using Panel = Panels;
  const Call& x;
  std::size_t total, k, chunk, group_tasks;
  bool simd;
  BatchLanes lanes(std::size_t q0) const { return batch_lanes(x.b.m, x.b.n, x.b.k, total, q0); }
  void load(const BatchLanes& ln, uint32_t* acc) const {
    for (std::size_t j = 0; j < L; ++j) acc[j] = static_cast<uint32_t>(load_c(x, ln.q[j]));
  }
  void store(std::size_t q0, const uint32_t* acc) const {
    for (std::size_t j = 0; j < L && q0 + j < total; ++j) store_d(x, q0 + j, acc[j]);
  }
  void pack(const BatchLanes& ln, std::size_t l0, std::size_t kc, Panels& p) const {
    Call::Base o[L];
    for (std::size_t j = 0; j < L; ++j) o[j] = x.base(ln.q[j]);
    const std::size_t s0 = l0 / x.uk, steps = (kc + x.uk - 1) / x.uk;
    if (x.u.algo != ScaledAlgo::gst_fdpa) pack_st(x, o, s0, steps, p);
    else pack_gst(x, o, s0, steps, p);
  }
  void run(const BatchLanes&, std::size_t, std::size_t, const Panels& p, std::size_t s, std::size_t e,
           uint32_t* acc) const {
    run_kernel(x, p, s, e, acc);
  }
  uint32_t redo(const BatchLanes& ln, std::size_t l0, std::size_t, std::size_t j, std::size_t s,
                uint32_t before) const {
    return reference_step(x, ln.q[j], l0 / x.uk + s, before);
  }
  void scalar(std::size_t q0, std::size_t q1) const { reference_elements(x, q0, q1); }
};

}  // namespace sbatch
}  // namespace

void run_scaled_batch(const ScaledBatch& b, int threads, bool use_reference) {
  using namespace sbatch;
  const ScaledUnit& u = *b.unit;
  const std::size_t total = b.count * b.m * b.n;
  if (total == 0) return;
  const bool gst = u.algo == ScaledAlgo::gst_fdpa;
  const std::size_t uk = static_cast<std::size_t>(u.k), block = static_cast<std::size_t>(u.block);
  const Call x{b, u, kernels::plan(u, {use_reference, false}), total, b.m * b.n, uk, block, block ? b.k / block : 0,
               u.group ? uk / static_cast<std::size_t>(u.group) : 0, block ? uk / block : 0,
               element_table(b.fa, u.subnormals, gst), element_table(b.fb, u.subnormals, gst),
               scale_table(u.scale), neutral_scale(u.scale)};
  // The kernels give fp32 results; fp16 results (T rows) and k = 0 run on the reference.
  const bool simd = x.plan.simd && b.out == Fmt::fp32 && b.k > 0;
  run_batch_engine(ScaledBatchKind{x, total, b.k, kChunkSteps * uk, kGroupsPerTask, simd}, threads);
}

}  // namespace mmaemu::driver
