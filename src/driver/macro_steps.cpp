// SPDX-License-Identifier: BSD-3-Clause
// The steps macro-kernel: every row that is neither an FMA-chain tile nor
// CDNA1-exact. Per output element the chain runs step after step, each
// step on the SIMD kernel (16 columns at a time, two rows of A per call
// where neither has NaN/Inf inputs), the scalar kernel or the reference;
// steps with NaN/Inf inputs go to the reference (the special-value
// fallback, docs/kernels.md).
//
// Blocking: N panels of NC columns; along k, chunks of KC (a multiple of
// the step, so the chain's steps are the same whatever the blocking), each
// chunk's B panel packed once and shared by every task; tasks of MC rows x
// a block of lane groups (M and N both, so skinny products use every
// thread). The accumulators of a whole N panel carry the chain from chunk
// to chunk. Extra memory: B chunk ~KC*NC*36 bytes (<= 12 MiB) +
// accumulators m*NC*4 (8 for fp64; <= 32 MiB), see panel_columns().
#include <algorithm>
#include <cstring>
#include <vector>

#include "hwy/base.h"

#include "driver/acc_sink.h"
#include "driver/macro.h"
#include "driver/pack.h"
#include "driver/scratch.h"
#include "driver/special_fallback.h"
#include "models/row_facts.h"
#include "ref/reference.h"

namespace mmaemu::driver {
namespace {

constexpr std::size_t kNC32 = 1024, kNC64 = 256;  // least columns per N panel (fp32/fp16, fp64 accumulators)
constexpr std::size_t kMC = 32;                   // rows per task
constexpr std::size_t kKTarget = 256;             // k per chunk, rounded down to whole steps
constexpr std::size_t L = kernels::kSimdLanes;
static_assert(L == kFallbackLanes);

// One k chunk of one N panel: the packed B and the chunk's geometry.
struct StepsChunk {
  const Panel& b;
  std::size_t nc, kc, steps, kp, step;
};

// Step s of A's vector v against B's lane group gg on the scalar kernel,
// lane by lane: a step the SIMD kernel handed back.
void scalar_step(const GemmCall& g, const StepsChunk& ch, const Panel& a, std::size_t v, std::size_t gg,
                 std::size_t s, uint32_t* acc) {
  const Panel& b = ch.b;
  const std::size_t w0 = gg * L, lanes = std::min(L, ch.nc - w0);
  const std::size_t lb = s * ch.step, len = std::min(ch.step, ch.kc - lb);
  for (std::size_t q = 0; q < lanes; ++q) {
    const std::size_t w = w0 + q;
    acc[q] = g.plan.step(g.row, static_cast<int>(len), a.sig.data() + (v * ch.kp + lb), a.exp.data() + (v * ch.kp + lb),
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
      if (g.plan.step && !a.special[v * ch.steps + s] && !b.special[w * ch.steps + s])
        acc = g.plan.step(g.row, static_cast<int>(len), a.sig.data() + (v * ch.kp + l), a.exp.data() + (v * ch.kp + l),
                          b.sig.data() + (w * ch.kp + l), b.exp.data() + (w * ch.kp + l), static_cast<uint32_t>(acc));
      else
        acc = ref::step(g.row, len, ab + l, bb + l, acc);
    }
    acc32[w] = static_cast<uint32_t>(acc);
  }
}

// The blocking of one call: N panels of nc columns; in a panel, tasks of
// mc rows x jb lane groups (several column blocks when rows are few, so
// that m <= 16 and tall-skinny products use every thread; fewer rows per
// task when even the columns are too few, as in 10 x 10 products of long k).
struct StepsPlan {
  std::size_t step, KC, NC, mc, mblocks;
};

// One N panel's task grid.
struct StepsPanel {
  std::size_t j0, nc, groups, jb, jtasks, mc;
  bool first, last;  // the chunk is the panel's first / last along k
};

// Columns per N panel: at least kNC32 (kNC64), more when k or m is small,
// while the B chunk (about kPanelBytes per column of KC k) stays under
// 12 MiB and the accumulators m*NC under 32 MiB (at most 64 MiB beyond the
// operands at n = 8192; docs/performance.md).
std::size_t panel_columns(const GemmCall& g, std::size_t kp) {
  constexpr std::size_t kPanelBytes = 36, kBMax = std::size_t{12} << 20, kAccMax = std::size_t{32} << 20;
  const std::size_t acc_bytes = g.plan.fp64 ? 8 : 4;
  const std::size_t base = g.plan.fp64 ? kNC64 : kNC32;
  const std::size_t cap = std::min(kBMax / (std::max<std::size_t>(kp, 1) * kPanelBytes), kAccMax / (g.m * acc_bytes));
  return std::max(base, cap / L * L);
}

// Lane groups per task: all of the panel's, halved while there are fewer
// than 4 tasks per thread (dynamic scheduling evens out the rest).
void split_panel(const GemmCall& g, const StepsPlan& sp, StepsPanel& p) {
  p.groups = (p.nc + L - 1) / L;
  p.jb = p.groups;
  while (p.jb > 1 && sp.mblocks * ((p.groups + p.jb - 1) / p.jb) < 4 * static_cast<std::size_t>(g.threads))
    p.jb = (p.jb + 1) / 2;
  p.jtasks = (p.groups + p.jb - 1) / p.jb;
}

// steps_task under a promotion sink (acc_sink.h, RangeSink): per piece of the
// chunk, the chains from +0 (or carried from the previous chunk) and, where
// the piece ends, its results added into the sink; on the SIMD kernel two
// rows per call, as steps_task.
void sink_task(const GemmCall& g, const StepsChunk& ch, const StepsPanel& p, std::size_t k0, const Panel& a,
               std::size_t i0, std::size_t mc, std::size_t g0, std::size_t g1, uint32_t* acc32, uint64_t* acc64) {
  const RangeSink& sk = *g.sink;
  const uint64_t zero = zero_bits(g.row.out, false);
  const std::size_t nc = p.nc, w_lo = g0 * L, w_hi = std::min(nc, g1 * L);
  if (!g.plan.simd) {
    for (std::size_t v = 0; v < mc; ++v) {
      uint32_t* r32 = g.plan.fp64 ? nullptr : acc32 + (i0 + v) * nc;
      uint64_t* r64 = g.plan.fp64 ? acc64 + (i0 + v) * nc : nullptr;
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
      const std::size_t at = (i0 + v) * nc + w0;  // in acc32, only for pieces that span chunks
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

// One task of one chunk: rows [i0, i0+mc) x columns [w_lo, w_hi) of the
// panel. Its accumulators start at the epilogue's initial values in the
// first chunk and are stored in the last; A's rows are packed per task.
void steps_task(const GemmCall& g, const StepsChunk& ch, const StepsPanel& p, std::size_t k0, std::size_t t,
                Panel& a, uint32_t* acc32, uint64_t* acc64) {
  const std::size_t nc = p.nc, i0 = (t / p.jtasks) * p.mc, mc = std::min(p.mc, g.m - i0);
  const std::size_t g0 = (t % p.jtasks) * p.jb, g1 = std::min(p.groups, g0 + p.jb);
  const std::size_t w_lo = g0 * L, w_hi = std::min(nc, g1 * L);
  if (p.first && !g.sink)
    for (std::size_t i = i0; i < i0 + mc; ++i)
      for (std::size_t w = w_lo; w < w_hi; ++w) {
        const uint64_t a0 = g.epilogue.initial_acc(i, p.j0 + w);
        if (g.plan.fp64) acc64[i * nc + w] = a0;
        else acc32[i * nc + w] = static_cast<uint32_t>(a0);
      }
  a.kp = ch.kp;
  a.steps = ch.steps;
  a.interleave = ch.b.interleave;
  a.shape(mc, g.plan.simd, false);
  a.clear_for_pack(0, mc, 0, ch.kp, ch.kc);
  pack_vectors(g.row, g.spec, g.A, true, i0, mc, k0, ch.kc, a, 0);
  if (g.sink) return sink_task(g, ch, p, k0, a, i0, mc, g0, g1, acc32, acc64);
  if (!g.plan.simd) {
    for (std::size_t v = 0; v < mc; ++v)
      scalar_row(g, ch, a, v, w_lo, w_hi, g.plan.fp64 ? nullptr : acc32 + (i0 + v) * nc,
                 g.plan.fp64 ? acc64 + (i0 + v) * nc : nullptr, 0, ch.steps);
  } else {
    // Groups outer, so that a group's B panel stays in cache for the rows;
    // two rows per kernel call where neither has NaN/Inf inputs.
    for (std::size_t gg = g0; gg < g1; ++gg)
      for (std::size_t v = 0; v < mc;) {
        // Lanes past nc compute copies of lane 0 (replicate_lane0), unused.
        HWY_ALIGN_MAX uint32_t acc[kernels::kMaxRows * L] = {};
        const std::size_t w0 = gg * L, lanes = std::min(L, nc - w0), rows = rows_at(ch, a, v, mc);
        for (std::size_t r = 0; r < rows; ++r)
          std::memcpy(acc + r * L, acc32 + (i0 + v + r) * nc + w0, lanes * sizeof(uint32_t));
        simd_rows(g, ch, a, v, rows, gg, lanes, acc, 0, ch.steps);
        for (std::size_t r = 0; r < rows; ++r)
          std::memcpy(acc32 + (i0 + v + r) * nc + w0, acc + r * L, lanes * sizeof(uint32_t));
        v += rows;
      }
  }
  if (p.last)
    for (std::size_t i = i0; i < i0 + mc; ++i) {
      if (g.plan.fp64) g.epilogue.store_row(acc64 + i * nc + w_lo, i, p.j0 + w_lo, w_hi - w_lo);
      else g.epilogue.store_row(acc32 + i * nc + w_lo, i, p.j0 + w_lo, w_hi - w_lo);
    }
}

// Packs slice j of `slices` of lane group gg of B's chunk (columns j0 +
// 16*gg .., the slice's whole steps of k) and its flags. Several slices
// per group when there are fewer groups than threads (n <= 16 with long k),
// so that every thread packs.
void pack_steps_group(const GemmCall& g, const StepsPanel& p, std::size_t k0, const StepsChunk& ch, Panel& b,
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

// Slices per lane group of B's chunk: one, or enough to give each thread
// two when there are fewer groups than threads.
std::size_t b_slices(const GemmCall& g, std::size_t groups, std::size_t steps) {
  const std::size_t threads = static_cast<std::size_t>(g.threads);
  if (groups >= threads) return 1;
  return std::clamp<std::size_t>((2 * threads + groups - 1) / groups, 1, std::max<std::size_t>(steps, 1));
}

// Accumulators and B panels, a slot of the thread's scratch arena
// (scratch.h): kept between calls, no allocation per call for small products.
struct StepsScratch {
  std::vector<uint32_t> acc32;
  std::vector<uint64_t> acc64;
  Panel b, b_next;  // b_next: the next chunk's B (few columns)
  std::size_t held_bytes() const { return scratch_bytes(acc32, acc64, b, b_next); }
};
// The slots: a call's shared B, a private-B task's own B, each thread's A rows.
struct SharedBSlot;
struct PrivateBSlot;
struct ARowsSlot;
using ARows = Scratch<Panel, ARowsSlot>;

// The chunk of k from k0 on, its B packed into b.
StepsChunk chunk_of(const GemmCall& g, const StepsPlan& sp, std::size_t nc, std::size_t k0, const Panel& b) {
  const std::size_t kc = std::min(sp.KC, g.k - std::min(k0, g.k)), steps = (kc + sp.step - 1) / sp.step;
  return {b, nc, kc, steps, steps * sp.step, sp.step};
}
// Sizes b for the chunk (each group is cleared by its packer).
void shape_for(const GemmCall& g, const StepsChunk& ch, Panel& b) {
  b.kp = ch.kp;
  b.steps = ch.steps;
  b.shape(ch.nc, g.plan.simd, true);
}

// m <= kMC: no two tasks share B's columns, so each task packs its own:
// tasks of column blocks over the whole of N, each running every k chunk,
// and one parallel_for per call (short-wide and m <= 16 products). A
// block's B chunk stays under kPrivateBytes.
constexpr std::size_t kPrivateBytes = std::size_t{2} << 20;
void run_steps_private(const GemmCall& g, const StepsPlan& sp) {
  const std::size_t groups = (g.n + L - 1) / L, k_end = std::max<std::size_t>(g.k, 1);
  const std::size_t kp = std::min(sp.KC, (g.k + sp.step - 1) / sp.step * sp.step);
  std::size_t jb = std::clamp<std::size_t>(kPrivateBytes / (std::max<std::size_t>(kp, 1) * 36 * L), 1, groups);
  while (jb > 1 && (groups + jb - 1) / jb < 4 * static_cast<std::size_t>(g.threads)) jb = (jb + 1) / 2;
  const std::size_t blocks = (groups + jb - 1) / jb;
  parallel_for(g.threads, blocks, Assign::dynamic, [&](std::size_t blk) {
    const Scratch<StepsScratch, PrivateBSlot> own;
    const ARows a_rows;
    StepsScratch& sc = *own;
    sc.b.interleave = g.plan.simd && g.plan.simd_params.kind == kernels::SimdKind::interleaved;
    StepsPanel p{};
    p.j0 = blk * jb * L;
    p.nc = std::min(jb * L, g.n - p.j0);
    p.groups = (p.nc + L - 1) / L;
    p.jb = p.groups;
    p.jtasks = 1;
    p.mc = sp.mc;
    (g.plan.fp64 ? sc.acc64.resize(g.m * p.nc) : sc.acc32.resize(g.m * p.nc));
    for (std::size_t k0 = 0; k0 < k_end; k0 += sp.KC) {
      const StepsChunk ch = chunk_of(g, sp, p.nc, k0, sc.b);
      shape_for(g, ch, sc.b);
      p.first = k0 == 0;
      p.last = k0 + sp.KC >= k_end;
      for (std::size_t gg = 0; gg < p.groups; ++gg) pack_steps_group(g, p, k0, ch, sc.b, gg);
      steps_task(g, ch, p, k0, 0, *a_rows, sc.acc32.data(), sc.acc64.data());
    }
  });
}

// The pack tasks of a chunk: slices of its lane groups.
struct PackTasks {
  const GemmCall& g;
  const StepsPanel& p;
  const StepsChunk& ch;
  Panel& b;  // ch.b
  std::size_t k0, slices;
  std::size_t count() const { return p.groups * slices; }
  void operator()(std::size_t it) const { pack_steps_group(g, p, k0, ch, b, it / slices, it % slices, slices); }
};

// One N panel, chunk after chunk: B packed by all threads (lane groups,
// or slices of k of them), then the tasks: two parallel_for calls a chunk.
void run_panel(const GemmCall& g, const StepsPlan& sp, StepsScratch& sc, StepsPanel& p) {
  const std::size_t k_end = std::max<std::size_t>(g.k, 1);  // k = 0: one empty chunk (init and store)
  for (std::size_t k0 = 0; k0 < k_end; k0 += sp.KC) {
    const StepsChunk ch = chunk_of(g, sp, p.nc, k0, sc.b);
    shape_for(g, ch, sc.b);
    p.first = k0 == 0;
    p.last = k0 + sp.KC >= k_end;
    const PackTasks pack{g, p, ch, sc.b, k0, b_slices(g, p.groups, ch.steps)};
    parallel_for(g.threads, pack.count(), Assign::blocks, pack);
    parallel_for(g.threads, sp.mblocks * p.jtasks, Assign::dynamic, [&](std::size_t t) {
      const ARows a_rows;
      steps_task(g, ch, p, k0, t, *a_rows, sc.acc32.data(), sc.acc64.data());
    });
  }
}

// The same with few columns and long k (macro.h): B's chunks double
// buffered, so that one parallel_for runs the tasks of a chunk and packs
// the next (a call of k = 10^6 makes about 10^3 of them, not 3 10^3).
void run_panel_few_columns(const GemmCall& g, const StepsPlan& sp, StepsScratch& sc, StepsPanel& p) {
  const std::size_t k_end = std::max<std::size_t>(g.k, 1);
  Panel* buf[2] = {&sc.b, &sc.b_next};
  const StepsChunk first = chunk_of(g, sp, p.nc, 0, *buf[0]);
  shape_for(g, first, *buf[0]);
  const PackTasks pack_first{g, p, first, *buf[0], 0, b_slices(g, p.groups, first.steps)};
  parallel_for(g.threads, pack_first.count(), Assign::blocks, pack_first);
  for (std::size_t k0 = 0, c = 0; k0 < k_end; k0 += sp.KC, ++c) {
    const StepsChunk cur = chunk_of(g, sp, p.nc, k0, *buf[c % 2]);
    p.first = k0 == 0;
    p.last = k0 + sp.KC >= k_end;
    Panel& nb = *buf[(c + 1) % 2];
    const StepsChunk next = chunk_of(g, sp, p.nc, k0 + sp.KC, nb);
    if (!p.last) shape_for(g, next, nb);
    const PackTasks pack{g, p, next, nb, k0 + sp.KC, p.last ? 0 : b_slices(g, p.groups, next.steps)};
    const std::size_t tasks = sp.mblocks * p.jtasks;
    parallel_for(g.threads, tasks + pack.count(), Assign::dynamic, [&](std::size_t t) {
      if (t >= tasks) return pack(t - tasks);
      const ARows a_rows;
      steps_task(g, cur, p, k0, t, *a_rows, sc.acc32.data(), sc.acc64.data());
    });
  }
}

}  // namespace

// At most kMC rows and a lane group per thread: run_steps_private(). Else
// per N panel, run_panel(), or with at most kMC rows and fewer lane groups
// than threads run_panel_few_columns(): rows_per_thread() rows per task,
// chunks of kKFewColumns k (macro.h).
void run_steps_macro(const GemmCall& g) {
  StepsPlan sp{};
  sp.step = step_k(g.row);
  const std::size_t groups = (g.n + L - 1) / L;
  const bool private_b = g.m <= kMC && (groups >= static_cast<std::size_t>(g.threads) || g.m == 1);
  const bool few_columns = g.m <= kMC && !private_b;
  sp.KC = std::max<std::size_t>(1, (few_columns ? kKFewColumns : kKTarget) / sp.step) * sp.step;
  sp.mc = few_columns ? rows_per_thread(g.m, g.threads) : kMC;
  sp.NC = panel_columns(g, std::min(sp.KC, (g.k + sp.step - 1) / sp.step * sp.step));
  sp.mblocks = (g.m + sp.mc - 1) / sp.mc;
  if (private_b) return run_steps_private(g, sp);
  const Scratch<StepsScratch, SharedBSlot> call;
  StepsScratch& sc = *call;
  // Under a sink on the SIMD kernel whose pieces never span a chunk (KC a
  // multiple of the interval), the accumulators live in registers only.
  const bool no_acc = g.sink && g.plan.simd && sp.KC % g.sink->interval == 0;
  const std::size_t acc_size = no_acc ? 0 : g.m * std::min(sp.NC, g.n);
  (g.plan.fp64 ? sc.acc64.resize(acc_size) : sc.acc32.resize(acc_size));
  sc.b.interleave = sc.b_next.interleave = g.plan.simd && g.plan.simd_params.kind == kernels::SimdKind::interleaved;
  for (std::size_t j0 = 0; j0 < g.n; j0 += sp.NC) {
    StepsPanel p{};
    p.j0 = j0;
    p.nc = std::min(sp.NC, g.n - j0);
    p.mc = sp.mc;
    split_panel(g, sp, p);
    if (few_columns) run_panel_few_columns(g, sp, sc, p);
    else run_panel(g, sp, sc, p);
  }
}

}  // namespace mmaemu::driver
