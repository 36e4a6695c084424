// SPDX-License-Identifier: BSD-3-Clause
// CDNA1 exact rows on simd_exact_run16: runs of blocks without NaN/Inf
// inputs on the SIMD kernel; blocks with such inputs on the reference (the
// special-value fallback), lanes the kernel cannot sum exactly in binary64
// on the scalar exact kernel. Accumulators are fp32 values held as doubles
// inside a run, fp32 bits between k chunks.
#include <algorithm>
#include <bit>
#include <vector>

#include "driver/macro.h"
#include "driver/pack.h"
#include "driver/parallel_pipeline.h"
#include "driver/scratch.h"
#include "models/row_facts.h"
#include "ref/reference.h"

namespace mmaemu::driver {
namespace {

constexpr std::size_t kNC = 1024;    // columns per N panel
constexpr std::size_t kMC = 32;      // rows per task
constexpr std::size_t kKTarget = 256;  // k per chunk, rounded down to whole steps
constexpr std::size_t L = kernels::kSimdLanes;

// One k chunk of one N panel: the packed B and the chunk's geometry.
struct ExactChunk {
  const ExactPanel& b;
  std::size_t kc, steps, kp, step;
};

// Block s of A's vector v and B's column w off the SIMD kernel: the
// reference if an input is NaN/Inf, else the scalar exact kernel.
double exact_lane_block(const GemmCall& g, const ExactChunk& ch, const ExactPanel& a, std::size_t v, std::size_t w,
                        std::size_t s, double c) {
  const std::size_t l0 = s * ch.step, len = std::min(ch.step, ch.kc - l0);
  const double* av = a.val.p.get() + v * ch.kp + l0;
  const double* bv = ch.b.val.p.get() + ((w / L) * ch.kp + l0) * L + w % L;
  const uint32_t cb = std::bit_cast<uint32_t>(static_cast<float>(c));
  uint32_t d;
  if (a.special[v * ch.steps + s] || ch.b.special[w * ch.steps + s]) {
    uint64_t ab[kernels::kMaxStep], bb[kernels::kMaxStep];
    for (std::size_t l = 0; l < len; ++l) {
      ab[l] = convert(Fmt::fp64, g.row.in, std::bit_cast<uint64_t>(av[l]), Round::rne);
      bb[l] = convert(Fmt::fp64, g.row.in, std::bit_cast<uint64_t>(bv[l * L]), Round::rne);
    }
    d = static_cast<uint32_t>(ref::step(g.row, len, ab, bb, cb));
  } else {
    const int man = kernels::unit_man(g.row);
    int32_t sa[kernels::kMaxStep], ea[kernels::kMaxStep], sb[kernels::kMaxStep], eb[kernels::kMaxStep];
    for (std::size_t l = 0; l < len; ++l) {
      split_exact(av[l], man, sa[l], ea[l]);
      split_exact(bv[l * L], man, sb[l], eb[l]);
    }
    d = kernels::scalar_step(g.plan.step, g.row, static_cast<int>(len), sa, ea, sb, eb, cb);
  }
  return static_cast<double>(std::bit_cast<float>(d));
}

// A's vector v against B's lane group gg over the whole chunk: c in and out.
void exact_lanes(const GemmCall& g, const ExactChunk& ch, const ExactPanel& a, std::size_t v, std::size_t gg,
                 std::size_t lanes, double* c) {
  const ExactPanel& b = ch.b;
  const std::size_t w0 = gg * L;
  alignas(64) double next[L];
  for (std::size_t s = 0; s < ch.steps;) {
    std::size_t e = s;
    while (e < ch.steps && !a.special[v * ch.steps + e] && !b.group_special[gg * ch.steps + e]) ++e;
    while (s < e) {
      const int last = static_cast<int>(e == ch.steps ? ch.kc - (ch.steps - 1) * ch.step : ch.step);
      uint32_t bad = 0;
      const kernels::StepRun run{static_cast<int>(e - s), static_cast<int>(ch.step), last};
      const kernels::ExactRowPanel ar{a.val.p.get() + v * ch.kp + s * ch.step, a.lo.p.get() + v * ch.steps + s,
                                   a.hi.p.get() + v * ch.steps + s};
      const kernels::ExactLanePanel br{b.val.p.get() + (gg * ch.kp + s * ch.step) * L, b.lo.p.get() + (gg * ch.steps + s) * L,
                                    b.hi.p.get() + (gg * ch.steps + s) * L};
      s += static_cast<std::size_t>(kernels::simd_exact_run16(run, ar, br, c, next, &bad));
      if (s == e) break;
      for (std::size_t q = 0; q < L; ++q)
        c[q] = q < lanes && (bad >> q) & 1 ? exact_lane_block(g, ch, a, v, w0 + q, s, c[q]) : next[q];
      ++s;
    }
    if (s == ch.steps) break;
    for (std::size_t q = 0; q < lanes; ++q) c[q] = exact_lane_block(g, ch, a, v, w0 + q, s, c[q]);
    ++s;
  }
}

// One N panel's task grid: tasks of kMC rows x jb lane groups (several
// column blocks when rows are few, so that skinny products use every thread).
struct ExactTasks {
  std::size_t j0, nc, groups, mc, mblocks, jb, jtasks;
  bool first, last;  // the chunk is the panel's first / last along k
};

// One task of one chunk: rows [i0, i0+mc) x lane groups [g0, g1). Its
// accumulators start at the epilogue's initial values in the first chunk
// and are stored in the last.
void exact_task(const GemmCall& g, const ExactChunk& ch, const ExactTasks& p, std::size_t k0, std::size_t t,
                ExactPanel& a, uint32_t* acc) {
  const std::size_t nc = p.nc, i0 = (t / p.jtasks) * p.mc, mc = std::min(p.mc, g.m - i0);
  const std::size_t g0 = (t % p.jtasks) * p.jb, g1 = std::min(p.groups, g0 + p.jb);
  const std::size_t w_lo = g0 * L, w_hi = std::min(nc, g1 * L);
  if (p.first)
    for (std::size_t i = i0; i < i0 + mc; ++i)
      for (std::size_t w = w_lo; w < w_hi; ++w)
        acc[i * nc + w] = g.epilogue.zero_init() ? 0u : static_cast<uint32_t>(g.epilogue.initial_acc(i, p.j0 + w));
  a.resize(mc, ch.kp, ch.steps, false);
  pack_exact_rows(g.row, g.spec, g.A, i0, mc, k0, ch.kc, a);
  for (std::size_t gg = g0; gg < g1; ++gg)
    for (std::size_t v = 0; v < mc; ++v) {
      alignas(64) double c[L];
      const std::size_t w0 = gg * L, lanes = std::min(L, nc - w0);
      uint32_t* out_acc = acc + (i0 + v) * nc + w0;
      for (std::size_t q = 0; q < L; ++q) c[q] = q < lanes ? static_cast<double>(std::bit_cast<float>(out_acc[q])) : 0.0;
      exact_lanes(g, ch, a, v, gg, lanes, c);
      for (std::size_t q = 0; q < lanes; ++q) out_acc[q] = std::bit_cast<uint32_t>(static_cast<float>(c[q]));
    }
  if (p.last)
    for (std::size_t i = i0; i < i0 + mc; ++i) g.epilogue.store_row(acc + i * nc + w_lo, i, p.j0 + w_lo, w_hi - w_lo);
}

// B's chunk packed by all threads: by lane groups, or, with fewer groups
// than threads, by lane groups in slices of k (the lanes of a group share
// cache lines, its steps do not).
void pack_exact_b(const GemmCall& g, const ExactTasks& p, std::size_t k0, const ExactChunk& ch, ExactPanel& b) {
  const std::size_t threads = static_cast<std::size_t>(g.threads);
  const std::size_t slices =
      p.groups >= threads ? 1 : std::clamp<std::size_t>((2 * threads + p.groups - 1) / p.groups, 1, std::max<std::size_t>(ch.steps, 1));
  parallel_for(g.threads, p.groups * slices, Assign::blocks, [&](std::size_t t) {
    const std::size_t gg = t / slices, j = t % slices;
    pack_exact_group(g.row, g.spec, g.B, p.j0, k0, ch.kc, b, gg, ch.steps * j / slices, ch.steps * (j + 1) / slices);
  });
}

// The accumulators and B's panels of run_exact_macro, a slot of the
// thread's scratch arena (scratch.h).
struct ExactScratch {
  std::vector<uint32_t> acc;
  ExactPanel b;
  std::size_t held_bytes() const { return scratch_bytes(acc, b); }
};
// The few-columns pipeline's B chunks: a slot of their own, kept between
// calls (kRingBytes <= kKeepBytes).
struct ExactRing {
  std::vector<ExactPanel> b;
  std::size_t held_bytes() const {
    std::size_t bytes = 0;
    for (const ExactPanel& x : b) bytes += scratch_bytes(x);
    return bytes;
  }
};
constexpr std::size_t kRingBytes = kKeepBytes, kRingMax = 16;
// The slots: a call's B and accumulators, each thread's A rows.
struct CallSlot;
struct ARowsSlot;
struct RingSlot;
using ARows = Scratch<ExactPanel, ARowsSlot>;

// The chunk of k from k0 on (KC long, the last shorter), its B in b.
ExactChunk chunk_at(const GemmCall& g, std::size_t KC, std::size_t k0, const ExactPanel& b) {
  const std::size_t step = step_k(g.row);
  const std::size_t kc = std::min(KC, g.k - std::min(k0, g.k)), steps = (kc + step - 1) / step;
  return {b, kc, steps, steps * step, step};
}

// One N panel, chunk after chunk: B packed by all threads, then the tasks
// (two parallel_for calls a chunk).
void exact_panel(const GemmCall& g, ExactTasks& p, std::size_t KC, ExactScratch& sc) {
  const std::size_t k_end = std::max<std::size_t>(g.k, 1);  // k = 0: one empty chunk (init and store)
  for (std::size_t k0 = 0; k0 < k_end; k0 += KC) {
    const ExactChunk ch = chunk_at(g, KC, k0, sc.b);
    p.first = k0 == 0;
    p.last = k0 + KC >= k_end;
    sc.b.resize(p.nc, ch.kp, ch.steps, true);
    pack_exact_b(g, p, k0, ch, sc.b);
    pad_exact_lanes(g.row, sc.b);
    parallel_for(g.threads, p.mblocks * p.jtasks, Assign::dynamic,
                 [&](std::size_t t) { exact_task(g, ch, p, k0, t, *ARows{}, sc.acc.data()); });
  }
}

// The same with few columns and long k (macro.h), as a pipeline
// (parallel_pipeline.h): one row stream per thread (the tasks of a chunk)
// runs the chunks in order, each chunk's B packed once into one of a ring
// of buffers; no barrier per chunk (a thread that loses its core delays its
// own stream, not the others).
void exact_panel_few_columns(const GemmCall& g, ExactTasks& p, std::size_t KC, ExactScratch& sc) {
  const std::size_t k_end = std::max<std::size_t>(g.k, 1);
  const std::size_t chunks = (k_end + KC - 1) / KC;
  // Bytes of a chunk's B: values and two bounds per element (doubles).
  const std::size_t chunk_bytes = std::max<std::size_t>(1, KC * p.groups * L * 3 * sizeof(double));
  const std::size_t depth = std::clamp<std::size_t>(kRingBytes / chunk_bytes, 2, kRingMax);
  const Scratch<ExactRing, RingSlot> ring_slot;
  std::vector<ExactPanel>& ring = ring_slot->b;
  if (ring.size() < depth) ring.resize(depth);
  const auto pack = [&](std::size_t c, std::size_t slot, std::size_t) {
    ExactPanel& b = ring[slot];
    const ExactChunk ch = chunk_at(g, KC, c * KC, b);
    b.resize(p.nc, ch.kp, ch.steps, true);
    for (std::size_t gg = 0; gg < p.groups; ++gg) pack_exact_group(g.row, g.spec, g.B, p.j0, c * KC, ch.kc, b, gg, 0, ch.steps);
    pad_exact_lanes(g.row, b);
  };
  const auto run = [&](std::size_t t, std::size_t c, std::size_t slot) {
    ExactTasks q = p;
    q.first = c == 0;
    q.last = c + 1 == chunks;
    exact_task(g, chunk_at(g, KC, c * KC, ring[slot]), q, c * KC, t, *ARows{}, sc.acc.data());
  };
  run_pipeline(g.threads, p.mblocks * p.jtasks, chunks, depth, pack, run);
}

}  // namespace

// Per N panel, exact_panel(), or with at most kMC rows and fewer lane
// groups than threads exact_panel_few_columns(): rows_per_thread() rows
// per task, chunks of kKFewColumns k (macro.h).
void run_exact_macro(const GemmCall& g) {
  const std::size_t step = step_k(g.row);
  const bool few = g.m <= kMC && (std::min(kNC, g.n) + L - 1) / L < static_cast<std::size_t>(g.threads);
  const std::size_t KC = std::max<std::size_t>(1, (few ? kKFewColumns : kKTarget) / step) * step;
  const Scratch<ExactScratch, CallSlot> call;
  ExactScratch& scratch = *call;
  scratch.acc.assign(g.m * std::min(kNC, g.n), 0u);
  for (std::size_t j0 = 0; j0 < g.n; j0 += kNC) {
    ExactTasks p{};
    p.j0 = j0;
    p.nc = std::min(kNC, g.n - j0);
    p.groups = (p.nc + L - 1) / L;
    p.mc = few ? rows_per_thread(g.m, g.threads) : kMC;
    p.mblocks = (g.m + p.mc - 1) / p.mc;
    p.jb = p.groups;  // halved while there are fewer than 4 tasks per thread
    while (p.jb > 1 && p.mblocks * ((p.groups + p.jb - 1) / p.jb) < 4 * static_cast<std::size_t>(g.threads))
      p.jb = (p.jb + 1) / 2;
    p.jtasks = (p.groups + p.jb - 1) / p.jb;
    if (few) exact_panel_few_columns(g, p, KC, scratch);
    else exact_panel(g, p, KC, scratch);
  }
}

}  // namespace mmaemu::driver
