// SPDX-License-Identifier: BSD-3-Clause
// The steps macro-kernel: every row that is neither an FMA-chain tile nor
// CDNA1-exact. Per output element the chain runs step after step, each
// step on the SIMD kernel (16 columns at a time), the scalar kernel or the
// reference; steps with NaN/Inf inputs go to the reference (the
// special-value fallback, docs/kernels.md).
//
// Blocking: N panels of NC columns; along k, chunks of KC (a multiple of
// the step, so the chain's steps are the same whatever the blocking), each
// chunk's B panel packed once and shared; M in tasks of MC rows. The
// accumulators of a whole N panel carry the chain from chunk to chunk.
// Extra memory: B chunk ~KC*NC*32 bytes + accumulators m*NC*4 (8 for fp64).
#include <algorithm>
#include <cstring>
#include <vector>

#include "hwy/base.h"

#include "driver/macro.h"
#include "driver/pack.h"
#include "kernels/fp_env.h"
#include "models/row_facts.h"
#include "ref/reference.h"

namespace mmaemu::driver {
namespace {

constexpr std::size_t kNC32 = 1024, kNC64 = 256;  // columns per N panel (fp32/fp16, fp64 accumulators)
constexpr std::size_t kMC = 32;                   // rows per task
constexpr std::size_t kKTarget = 256;             // k per chunk, rounded down to whole steps
constexpr std::size_t L = fast::kSimdLanes;

// One k chunk of one N panel: the packed B and the chunk's geometry.
struct StepsChunk {
  const Panel& b;
  std::size_t nc, kc, steps, kp, step;
};

// The CDNA3 late kernel over steps [s0, s1); blocks whose products may
// reach 2^128 on the scalar kernel.
void late_run(const GemmCall& g, const StepsChunk& ch, const Panel& a, std::size_t v, std::size_t gg,
              std::size_t s0, std::size_t s1, uint32_t* acc) {
  const Panel& b = ch.b;
  const std::size_t w0 = gg * L, lanes = std::min(L, ch.nc - w0);
  const int last = static_cast<int>(std::min(ch.step, ch.kc - (s1 - 1) * ch.step));
  for (std::size_t s = s0; s < s1;) {
    const std::size_t ls = s * ch.step, as = (gg * ch.kp + ls) * L;
    const fast::StepRun run{static_cast<int>(s1 - s), static_cast<int>(ch.step), last};
    const fast::RowPanel ar{a.fval.data() + (v * ch.kp + ls), a.fsig.data() + (v * ch.kp + ls), a.exp.data() + (v * ch.kp + ls)};
    const fast::LanePanel br{b.lane_val.data() + as, b.lane_sig.data() + as, b.lane_exp.data() + as};
    s += static_cast<std::size_t>(fast::simd_late_run16(g.plan.simd_params, run, ar, br, acc));
    if (s == s1) break;
    const std::size_t lb = s * ch.step, len = std::min(ch.step, ch.kc - lb);
    for (std::size_t q = 0; q < lanes; ++q) {
      const std::size_t w = w0 + q;
      acc[q] = g.plan.step(g.row, static_cast<int>(len), a.sig.data() + (v * ch.kp + lb), a.exp.data() + (v * ch.kp + lb),
                           b.sig.data() + (w * ch.kp + lb), b.exp.data() + (w * ch.kp + lb), acc[q]);
    }
    ++s;
  }
}

// Steps [s0, s1) of A's vector v against B's lane group gg on the row's
// SIMD kernel; acc: the 16 accumulators (fp32 bits).
void simd_run(const GemmCall& g, const StepsChunk& ch, const Panel& a, std::size_t v, std::size_t gg,
              std::size_t s0, std::size_t s1, uint32_t* acc) {
  const fast::SimdParams& sp = g.plan.simd_params;
  const Panel& b = ch.b;
  const std::size_t l = s0 * ch.step, at = (gg * ch.kp + l) * L;
  const fast::StepRun run{static_cast<int>(s1 - s0), static_cast<int>(ch.step),
                          static_cast<int>(std::min(ch.step, ch.kc - (s1 - 1) * ch.step))};
  const fast::RowPanel ar{a.fval.data() + (v * ch.kp + l), a.fsig.data() + (v * ch.kp + l), a.exp.data() + (v * ch.kp + l)};
  const fast::LanePanel br{b.lane_val.data() + at, b.lane_sig.data() + at, b.lane_exp.data() + at};
  switch (sp.kind) {
    case fast::SimdKind::aligned: fast::simd_aligned_run16(sp, run, ar, br, acc); break;
    case fast::SimdKind::late: late_run(g, ch, a, v, gg, s0, s1, acc); break;
    case fast::SimdKind::pairwise: fast::simd_pairwise_run16(sp, run, ar, br, reinterpret_cast<float*>(acc)); break;
    case fast::SimdKind::interleaved:  // one instruction at a time
      for (std::size_t s = s0; s < s1; ++s) {
        const std::size_t ls = s * ch.step, as = (gg * ch.kp + ls) * L;
        const fast::RowPanel ai{a.fval.data() + (v * ch.kp + ls), a.fsig.data() + (v * ch.kp + ls), a.exp.data() + (v * ch.kp + ls)};
        const fast::LanePanel bi{b.lane_val.data() + as, b.lane_sig.data() + as, b.lane_exp.data() + as};
        fast::simd_interleaved_run16(sp, static_cast<int>(ch.step), ai, bi, acc);
      }
      break;
  }
}

// A's vector v against B's lane group gg over the chunk: runs of steps
// without NaN/Inf inputs in one kernel call; a step with such inputs runs
// on the kernel too, and its affected lanes again on the reference.
void simd_lanes(const GemmCall& g, const StepsChunk& ch, const Panel& a, std::size_t v, std::size_t gg,
                std::size_t lanes, uint32_t* acc) {
  const Panel& b = ch.b;
  const uint64_t* ab = a.bits.data() + v * ch.kp;
  HWY_ALIGN_MAX uint32_t prev[L];
  for (std::size_t s = 0; s < ch.steps;) {
    std::size_t e = s;
    while (e < ch.steps && !a.special[v * ch.steps + e] && !b.group_special[gg * ch.steps + e]) ++e;
    if (e > s) simd_run(g, ch, a, v, gg, s, e, acc);
    if (e == ch.steps) break;
    std::memcpy(prev, acc, sizeof prev);
    simd_run(g, ch, a, v, gg, e, e + 1, acc);
    const std::size_t l = e * ch.step, len = std::min(ch.step, ch.kc - l);
    for (std::size_t q = 0; q < lanes; ++q) {
      const std::size_t w = gg * L + q;
      if (a.special[v * ch.steps + e] || b.special[w * ch.steps + e])
        acc[q] = static_cast<uint32_t>(ref::step(g.row, len, ab + l, b.bits.data() + (w * ch.kp + l), prev[q]));
    }
    s = e + 1;
  }
}

// A's vector v against every column, one element at a time: the fp64
// chain, or per step the scalar kernel (reference for NaN/Inf steps and
// rows without one).
void scalar_row(const GemmCall& g, const StepsChunk& ch, const Panel& a, std::size_t v, std::size_t nc,
                uint32_t* acc32, uint64_t* acc64) {
  const Panel& b = ch.b;
  const uint64_t* ab = a.bits.data() + v * ch.kp;
  for (std::size_t w = 0; w < nc; ++w) {
    const uint64_t* bb = b.bits.data() + w * ch.kp;
    if (g.plan.fp64) {
      acc64[w] = fast::fp64_chain(g.row, ch.kc, ab, bb, acc64[w]);
      continue;
    }
    uint64_t acc = acc32[w];
    for (std::size_t s = 0; s < ch.steps; ++s) {
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

// Rows [i0, i0+mc) of one chunk: pack A, then SIMD lane groups (groups
// outer, so that a group's B panel stays in cache for the rows) or scalar.
void steps_rows(const GemmCall& g, const StepsChunk& ch, std::size_t nc, std::size_t k0, std::size_t i0, Panel& a,
                uint32_t* acc32, uint64_t* acc64) {
  const std::size_t mc = std::min(kMC, g.m - i0);
  a.resize(mc, g.plan.simd, false);
  for (std::size_t v = 0; v < mc; ++v) pack_vector(g.row, g.spec, g.A, true, i0 + v, k0, ch.kc, a, v);
  if (!g.plan.simd) {
    for (std::size_t v = 0; v < mc; ++v)
      scalar_row(g, ch, a, v, nc, g.plan.fp64 ? nullptr : acc32 + (i0 + v) * nc,
                 g.plan.fp64 ? acc64 + (i0 + v) * nc : nullptr);
    return;
  }
  for (std::size_t gg = 0; gg * L < nc; ++gg)
    for (std::size_t v = 0; v < mc; ++v) {
      // Lanes past nc compute zeros, unused.
      HWY_ALIGN_MAX uint32_t acc[L] = {};
      const std::size_t w0 = gg * L, lanes = std::min(L, nc - w0);
      uint32_t* row_acc = acc32 + (i0 + v) * nc + w0;
      std::memcpy(acc, row_acc, lanes * sizeof(uint32_t));
      simd_lanes(g, ch, a, v, gg, lanes, acc);
      std::memcpy(row_acc, acc, lanes * sizeof(uint32_t));
    }
}

// Packs B's columns j0 .. j0+nc-1 of one chunk, and its per-group flags.
void pack_steps_b(const GemmCall& g, std::size_t j0, std::size_t nc, std::size_t k0, const StepsChunk& ch, Panel& b) {
  b.kp = ch.kp;
  b.steps = ch.steps;
  b.interleave = g.plan.simd && g.plan.simd_params.kind == fast::SimdKind::interleaved;
  b.resize(nc, g.plan.simd, true);
#pragma omp parallel for num_threads(g.threads) schedule(static)
  for (std::size_t v = 0; v < nc; ++v) pack_vector(g.row, g.spec, g.B, false, j0 + v, k0, ch.kc, b, v);
  for (std::size_t v = 0; v < nc && g.plan.simd; ++v)
    for (std::size_t s = 0; s < ch.steps; ++s) b.group_special[(v / L) * ch.steps + s] |= b.special[v * ch.steps + s];
}

}  // namespace

void run_steps_macro(const GemmCall& g) {
  const std::size_t step = step_k(g.row);
  const std::size_t NC = g.plan.fp64 ? kNC64 : kNC32;
  const std::size_t KC = std::max<std::size_t>(1, kKTarget / step) * step;
  std::vector<uint32_t> acc32;
  std::vector<uint64_t> acc64;
  Panel b;
  for (std::size_t j0 = 0; j0 < g.n; j0 += NC) {
    const std::size_t nc = std::min(NC, g.n - j0);
    (g.plan.fp64 ? acc64.resize(g.m * nc) : acc32.resize(g.m * nc));
#pragma omp parallel for num_threads(g.threads) schedule(static)
    for (std::size_t i = 0; i < g.m; ++i)
      for (std::size_t w = 0; w < nc; ++w) {
        const uint64_t a0 = g.epilogue.initial_acc(i, j0 + w);
        if (g.plan.fp64) acc64[i * nc + w] = a0;
        else acc32[i * nc + w] = static_cast<uint32_t>(a0);
      }
    for (std::size_t k0 = 0; k0 < g.k; k0 += KC) {
      const std::size_t kc = std::min(KC, g.k - k0), steps = (kc + step - 1) / step;
      const StepsChunk ch{b, nc, kc, steps, steps * step, step};
      pack_steps_b(g, j0, nc, k0, ch, b);
#pragma omp parallel num_threads(g.threads)
      {
        fast::FpEnvGuard env_thread;
        Panel a;
        a.kp = ch.kp;
        a.interleave = b.interleave;
        a.steps = ch.steps;
#pragma omp for schedule(dynamic)
        for (std::size_t i0 = 0; i0 < g.m; i0 += kMC) steps_rows(g, ch, nc, k0, i0, a, acc32.data(), acc64.data());
      }
    }
#pragma omp parallel for num_threads(g.threads) schedule(static)
    for (std::size_t i = 0; i < g.m; ++i) {
      fast::FpEnvGuard env_thread;
      if (g.plan.fp64) g.epilogue.store_row(acc64.data() + i * nc, i, j0, nc);
      else g.epilogue.store_row(acc32.data() + i * nc, i, j0, nc);
    }
  }
}

}  // namespace mmaemu::driver
