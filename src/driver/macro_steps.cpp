// SPDX-License-Identifier: BSD-3-Clause
// The block-FMA kind's plug-in of the steps loop nest (steps_nest.h): every
// row that is neither an FMA-chain tile nor CDNA1-exact. Per output element
// the chain runs step after step, each step on the SIMD kernel (16 columns
// at a time, two rows of A per call where neither has NaN/Inf inputs), the
// scalar kernel or the reference; steps with NaN/Inf inputs go to the
// reference (the special-value fallback, docs/kernels.md). Packing is
// pack.h's Panel; B chunks of KC k per N panel, A's rows per task.
#include <algorithm>
#include <cstring>
#include <vector>

#include "hwy/base.h"

#include "driver/acc_sink.h"
#include "driver/macro.h"
#include "driver/pack.h"
#include "driver/special_fallback.h"
#include "driver/steps_nest.h"
#include "models/row_facts.h"
#include "ref/reference.h"

namespace mmaemu::driver {
namespace {

constexpr std::size_t L = kernels::kSimdLanes;
static_assert(L == kFallbackLanes && L == kNestLanes);

// One k chunk of one N panel (steps_nest.h).
using StepsChunk = NestChunk<Panel>;

// Step s of A's vector v against B's lane group gg on the scalar kernel,
// lane by lane: a step the SIMD kernel handed back.
void scalar_step(const GemmCall& g, const StepsChunk& ch, const Panel& a, std::size_t v, std::size_t gg,
                 std::size_t s, uint32_t* acc) {
  const Panel& b = ch.b;
  const std::size_t w0 = gg * L, lanes = std::min(L, ch.nc - w0);
  const std::size_t lb = s * ch.step, len = std::min(ch.step, ch.kc - lb);
  for (std::size_t q = 0; q < lanes; ++q) {
    const std::size_t w = w0 + q;
    acc[q] = kernels::scalar_step(g.plan.step, g.row, static_cast<int>(len), a.sig.data() + (v * ch.kp + lb), a.exp.data() + (v * ch.kp + lb),
                         b.sig.data() + (w * ch.kp + lb), b.exp.data() + (w * ch.kp + lb), acc[q]);
  }
}

// Steps [s0, s1) of A's vectors v .. v + rows - 1 (rows: 1 or 2, the
// kernel interleaves their chains) against B's lane group gg on the plan's
// step kernel (one prototype, no switch); a step it hands back (CDNA3:
// products that may reach 2^128) runs on the scalar kernel, for every row.
// acc: the 16 accumulators of each row, row after row.
void simd_run(const GemmCall& g, const StepsChunk& ch, const Panel& a, std::size_t v, std::size_t rows, std::size_t gg,
              std::size_t s0, std::size_t s1, uint32_t* acc) {
  const Panel& b = ch.b;
  const int last = static_cast<int>(std::min(ch.step, ch.kc - (s1 - 1) * ch.step));
  for (std::size_t s = s0; s < s1;) {
    const std::size_t l = s * ch.step, at = (gg * ch.kp + l) * L, ai = v * ch.kp + l;
    const kernels::StepRun run{static_cast<int>(s1 - s), static_cast<int>(ch.step), last};
    const kernels::RowPanel ar{a.fval.data() + ai, a.fsig.data() + ai, a.exp.data() + ai, static_cast<int>(rows), ch.kp};
    const kernels::LanePanel br{b.lane_val.data() + at, b.lane_sig.data() + at, b.lane_exp.data() + at};
    s += static_cast<std::size_t>(g.plan.kernel(g.plan.simd_params, run, ar, br, acc));
    if (s >= s1) break;
    for (std::size_t r = 0; r < rows; ++r) scalar_step(g, ch, a, v + r, gg, s, acc + r * L);
    ++s;
  }
}

// A's vector v against B's lane group gg over the chunk's steps [s0, s1):
// runs of steps without NaN/Inf inputs in one kernel call; a step with such
// inputs runs on the kernel too, and its affected lanes again on the reference.
void simd_lanes(const GemmCall& g, const StepsChunk& ch, const Panel& a, std::size_t v, std::size_t gg,
                std::size_t lanes, uint32_t* acc, std::size_t s0, std::size_t s1) {
  const Panel& b = ch.b;
  const uint64_t* ab = a.bits.data() + v * ch.kp;
  steps_with_fallback(
      s0, s1, acc,
      [&](std::size_t s) { return a.special[v * ch.steps + s] || b.group_special[gg * ch.steps + s]; },
      [&](std::size_t s) {
        uint32_t m = 0;
        for (std::size_t q = 0; q < lanes; ++q)
          if (a.special[v * ch.steps + s] || b.special[(gg * L + q) * ch.steps + s]) m |= 1u << q;
        return m;
      },
      [&](std::size_t s, std::size_t e) { simd_run(g, ch, a, v, 1, gg, s, e, acc); },
      [&](std::size_t q, std::size_t s, uint32_t before) {
        const std::size_t l = s * ch.step, len = std::min(ch.step, ch.kc - l), w = gg * L + q;
        return static_cast<uint32_t>(ref::step(g.row, len, ab + l, b.bits.data() + (w * ch.kp + l), before));
      });
}

// Whether A's vector v has no NaN/Inf input in the chunk.
bool row_finite(const StepsChunk& ch, const Panel& a, std::size_t v) {
  const uint8_t* flags = a.special.data() + v * ch.steps;
  return std::all_of(flags, flags + ch.steps, [](uint8_t f) { return f == 0; });
}

// Rows per kernel call from A's vector v on, of mc: 2 where v and v + 1
// both exist and have no NaN/Inf input in the chunk, else 1.
std::size_t rows_at(const StepsChunk& ch, const Panel& a, std::size_t v, std::size_t mc) {
  return v + 1 < mc && row_finite(ch, a, v) && row_finite(ch, a, v + 1) ? 2 : 1;
}

// A's vectors v .. v + rows - 1 (rows_at) against B's lane group gg over
// the chunk's steps [s0, s1). One row: simd_lanes. Two (both without
// NaN/Inf inputs): two chains per kernel call; a step with NaN/Inf inputs
// in B (shared by the rows) runs row by row, as simd_lanes runs it. acc:
// row v's 16 lanes, then row v + 1's.
void simd_rows(const GemmCall& g, const StepsChunk& ch, const Panel& a, std::size_t v, std::size_t rows,
               std::size_t gg, std::size_t lanes, uint32_t* acc, std::size_t s0, std::size_t s1) {
  if (rows == 1) return simd_lanes(g, ch, a, v, gg, lanes, acc, s0, s1);
  const uint8_t* flagged = ch.b.group_special.data() + gg * ch.steps;
  for (std::size_t s = s0; s < s1;) {
    std::size_t e = s;
    while (e < s1 && !flagged[e]) ++e;
    if (e > s) simd_run(g, ch, a, v, 2, gg, s, e, acc);
    if (e == s1) break;
    simd_lanes(g, ch, a, v, gg, lanes, acc, e, e + 1);
    simd_lanes(g, ch, a, v + 1, gg, lanes, acc + L, e, e + 1);
    s = e + 1;
  }
}

// A's vector v against columns [w0, w1) over the chunk's steps [s0, s1),
// one element at a time: the fp64 chain, or per step the scalar kernel
// (reference for NaN/Inf steps and rows without one). acc32/acc64: the
// row's accumulators (column w at [w]).
void scalar_row(const GemmCall& g, const StepsChunk& ch, const Panel& a, std::size_t v, std::size_t w0,
                std::size_t w1, uint32_t* acc32, uint64_t* acc64, std::size_t s0, std::size_t s1) {
  const Panel& b = ch.b;
  const uint64_t* ab = a.bits.data() + v * ch.kp;
  for (std::size_t w = w0; w < w1; ++w) {
    const uint64_t* bb = b.bits.data() + w * ch.kp;
    if (g.plan.fp64) {
      const std::size_t l0 = s0 * ch.step, l1 = std::min(s1 * ch.step, ch.kc);
      acc64[w] = kernels::fp64_chain(g.row, l1 - l0, ab + l0, bb + l0, acc64[w]);
      continue;
    }
    uint64_t acc = acc32[w];
    for (std::size_t s = s0; s < s1; ++s) {
      const std::size_t l = s * ch.step, len = std::min(ch.step, ch.kc - l);
      if (g.plan.step != kernels::ScalarKernel::none && !a.special[v * ch.steps + s] && !b.special[w * ch.steps + s])
        acc = kernels::scalar_step(g.plan.step, g.row, static_cast<int>(len), a.sig.data() + (v * ch.kp + l), a.exp.data() + (v * ch.kp + l),
                          b.sig.data() + (w * ch.kp + l), b.exp.data() + (w * ch.kp + l), static_cast<uint32_t>(acc));
      else
        acc = ref::step(g.row, len, ab + l, bb + l, acc);
    }
    acc32[w] = static_cast<uint32_t>(acc);
  }
}

// steps_task under a promotion sink (acc_sink.h, RangeSink): per piece of the
// chunk, the chains from +0 (or carried from the previous chunk) and, where
// the piece ends, its results added into the sink; on the SIMD kernel two
// rows per call, as steps_task.
void sink_task(const GemmCall& g, const StepsChunk& ch, const NestPanel& p, std::size_t k0, const Panel& a,
               std::size_t i0, std::size_t mc, std::size_t g0, std::size_t g1, uint32_t* acc32, uint64_t* acc64) {
  const RangeSink& sk = *g.sink;
  const uint64_t zero = zero_bits(g.row.out, false);
  const std::size_t nc = p.nc, w_lo = g0 * L, w_hi = std::min(nc, g1 * L);
  if (!g.plan.simd) {
    for (std::size_t v = 0; v < mc; ++v) {
      uint32_t* r32 = g.plan.fp64 ? nullptr : acc32 + v * nc;
      uint64_t* r64 = g.plan.fp64 ? acc64 + v * nc : nullptr;
      for_sink_segments(sk, k0, ch.kc, ch.step, g.k, [&](const SinkSegment& sg) {
        if (sg.start && r64) std::fill(r64 + w_lo, r64 + w_hi, zero);
        if (sg.start && r32) std::fill(r32 + w_lo, r32 + w_hi, static_cast<uint32_t>(zero));
        scalar_row(g, ch, a, v, w_lo, w_hi, r32, r64, sg.s0, sg.s1);
        if (sg.end && r64) sink_add(sk, g.row, i0 + v, p.j0 + w_lo, w_hi - w_lo, r64 + w_lo);
        if (sg.end && r32) sink_add(sk, g.row, i0 + v, p.j0 + w_lo, w_hi - w_lo, r32 + w_lo);
      });
    }
    return;
  }
  for (std::size_t gg = g0; gg < g1; ++gg)
    for (std::size_t v = 0; v < mc;) {
      HWY_ALIGN_MAX uint32_t acc[kernels::kMaxRows * L] = {};
      const std::size_t w0 = gg * L, lanes = std::min(L, nc - w0), rows = rows_at(ch, a, v, mc);
      const std::size_t at = v * nc + w0;  // in acc32, only for pieces that span chunks
      for_sink_segments(sk, k0, ch.kc, ch.step, g.k, [&](const SinkSegment& sg) {
        for (std::size_t r = 0; r < rows; ++r) {
          if (sg.start) std::fill(acc + r * L, acc + (r + 1) * L, static_cast<uint32_t>(zero));
          else std::memcpy(acc + r * L, acc32 + at + r * nc, lanes * sizeof(uint32_t));  // began in an earlier chunk
        }
        simd_rows(g, ch, a, v, rows, gg, lanes, acc, sg.s0, sg.s1);
        for (std::size_t r = 0; r < rows; ++r) {
          if (sg.end) sink_add(sk, g.row, i0 + v + r, p.j0 + w0, lanes, acc + r * L);
          else std::memcpy(acc32 + at + r * nc, acc + r * L, lanes * sizeof(uint32_t));
        }
      });
      v += rows;
    }
}

// One task of one chunk (steps_nest.h, NestTask): A's rows packed, then
// their chains over the chunk (the nest starts and stores them).
void steps_task(const GemmCall& g, const StepsChunk& ch, const NestPanel& p, std::size_t k0, const NestTask& t,
                Panel& a, uint32_t* acc32, uint64_t* acc64) {
  const std::size_t nc = p.nc, i0 = t.i0, mc = t.mc, g0 = t.g0, g1 = t.g1;
  a.kp = ch.kp;
  a.steps = ch.steps;
  a.interleave = ch.b.interleave;
  a.shape(mc, g.plan.simd, false);
  a.clear_for_pack(0, mc, 0, ch.kp, ch.kc);
  pack_vectors(g.row, g.spec, g.A, true, i0, mc, k0, ch.kc, a, 0);
  if (g.sink) return sink_task(g, ch, p, k0, a, i0, mc, g0, g1, acc32, acc64);
  if (!g.plan.simd) {
    for (std::size_t v = 0; v < mc; ++v)
      scalar_row(g, ch, a, v, t.w_lo, t.w_hi, g.plan.fp64 ? nullptr : acc32 + v * nc,
                 g.plan.fp64 ? acc64 + v * nc : nullptr, 0, ch.steps);
    return;
  }
  // Groups outer, so that a group's B panel stays in cache for the rows;
  // two rows per kernel call where neither has NaN/Inf inputs.
  for (std::size_t gg = g0; gg < g1; ++gg)
    for (std::size_t v = 0; v < mc;) {
      // Lanes past nc compute copies of lane 0 (replicate_lane0), unused.
      HWY_ALIGN_MAX uint32_t acc[kernels::kMaxRows * L] = {};
      const std::size_t w0 = gg * L, lanes = std::min(L, nc - w0), rows = rows_at(ch, a, v, mc);
      for (std::size_t r = 0; r < rows; ++r)
        std::memcpy(acc + r * L, acc32 + (v + r) * nc + w0, lanes * sizeof(uint32_t));
      simd_rows(g, ch, a, v, rows, gg, lanes, acc, 0, ch.steps);
      for (std::size_t r = 0; r < rows; ++r)
        std::memcpy(acc32 + (v + r) * nc + w0, acc + r * L, lanes * sizeof(uint32_t));
      v += rows;
    }
}

// Packs slice j of `slices` of lane group gg of B's chunk (columns j0 +
// 16*gg .., the slice's whole steps of k) and its flags. Several slices
// per group when there are fewer groups than threads (n <= 16 with long k),
// so that every thread packs.
void pack_steps_group(const GemmCall& g, const NestPanel& p, std::size_t k0, const StepsChunk& ch, Panel& b,
                      std::size_t gg, std::size_t j = 0, std::size_t slices = 1) {
  const std::size_t v1 = std::min(p.nc, (gg + 1) * L);
  const std::size_t s0 = ch.steps * j / slices, s1 = ch.steps * (j + 1) / slices;
  const std::size_t l0 = s0 * ch.step, l1 = s1 * ch.step;  // l1 = kp in the last slice
  b.clear_for_pack(gg * L, v1, l0, l1, ch.kc);
  if (l0 < ch.kc)
    pack_vectors(g.row, g.spec, g.B, false, p.j0 + gg * L, v1 - gg * L, k0 + l0, std::min(l1, ch.kc) - l0, b, gg * L, l0);
  if (g.plan.simd && v1 - gg * L < L) b.replicate_lane0(gg, v1 - gg * L, l0, l1);
  for (std::size_t v = gg * L; v < v1; ++v) {
    if (g.plan.simd)
      for (std::size_t s = s0; s < s1; ++s) b.group_special[gg * ch.steps + s] |= b.special[v * ch.steps + s];
  }
}

// The plug-in (steps_nest.h): Panel for A and B, 36 bytes of B's chunk
// per element (bits, sig, exp and the SIMD lanes).
struct StepsKind {
  using APanel = Panel;
  using BPanel = Panel;
  const GemmCall& g;
  std::size_t step, kc_unit, panel_bytes = 36;
  bool fp64;
  const RangeSink* sink;
  bool registers_only;  // the SIMD kernel keeps a piece's chains in registers
  std::size_t nc_cap;
  bool slices_ok;

  void prepare(Panel& b) const {
    b.interleave = g.plan.simd && g.plan.simd_params.kind == kernels::SimdKind::interleaved;
  }
  // Sizes b for the chunk (each group is cleared by its packer).
  void shape_b(const StepsChunk& ch, Panel& b) const {
    b.kp = ch.kp;
    b.steps = ch.steps;
    b.shape(ch.nc, g.plan.simd, true);
  }
  void pack_b(const NestPanel& p, std::size_t k0, const StepsChunk& ch, Panel& b, std::size_t gg, std::size_t j,
              std::size_t slices) const {
    pack_steps_group(g, p, k0, ch, b, gg, j, slices);
  }
  void task(const StepsChunk& ch, const NestPanel& p, std::size_t k0, const NestTask& t, Panel& a, uint32_t* acc32,
            uint64_t* acc64) const {
    steps_task(g, ch, p, k0, t, a, acc32, acc64);
  }
};

}  // namespace

void run_steps_macro(const GemmCall& g) {
  const std::size_t step = step_k(g.row);
  run_steps_nest(g, StepsKind{g, step, step, 36, g.plan.fp64, g.sink, g.plan.simd, 0, true});
}

}  // namespace mmaemu::driver
