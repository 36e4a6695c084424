// SPDX-License-Identifier: BSD-3-Clause
// The steps loop nest, generic over a unit kind's plug-in (docs/kernels.md,
// "Adding a unit kind"): the blocking, the task grid, the threads, the k
// chunks, B packed once per chunk and shared, and the epilogue's start and
// store. The plug-in packs and runs; the nest never looks at a number.
//
// Blocking: N panels of NC columns; along k, chunks of KC (a multiple of
// the plug-in's `kc_unit`: whole steps, and whole scale blocks, so the
// chain's steps are the same whatever the blocking), each chunk's B packed
// once by all threads and shared by every task; tasks of MC rows x a block
// of lane groups (M and N both, so skinny products use every thread). The
// accumulators of a whole N panel carry the chain from chunk to chunk.
// Extra memory: B chunk ~KC*NC*panel_bytes (<= 12 MiB) + accumulators
// m*NC*4 (8 for fp64; <= 32 MiB), see panel_columns(): at most 64 MiB
// beyond the operands at n = 8192.
//
// The plug-in (a class K) provides:
//   K::APanel, K::BPanel         a task's rows of A; a chunk's B (held_bytes())
//   step, kc_unit, panel_bytes   k per step; chunks a multiple of kc_unit;
//                                bytes of B's chunk per element of a column
//   fp64                         64-bit accumulators (acc64) instead of acc32
//   sink                         a promotion sink (acc_sink.h): the plug-in
//                                starts and hands out the chains itself
//   registers_only               under the sink, no accumulator array
//   nc_cap                       at most this many columns per N panel (0: none)
//   slices_ok                    B's lane groups may be packed in slices of k
//   prepare(BPanel&)             once per B buffer a call uses
//   shape_b(chunk, BPanel&)      sizes B for the chunk (packers clear)
//   pack_b(panel, k0, chunk, BPanel&, gg, slice, slices)
//                                slice `slice` of `slices` of lane group gg
//   task(chunk, panel, k0, task, APanel&, acc32, acc64)
//                                (acc of row i0 + r, panel column w at
//                                [r*panel.nc + w]) packs the task's rows of A and runs their
//                                chains over the chunk on the SIMD step
//                                kernel, with the special-value fallback
//                                (special_fallback.h) to the reference step
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "driver/macro.h"
#include "driver/parallel.h"
#include "driver/parallel_pipeline.h"
#include "driver/scratch.h"

namespace mmaemu::driver {

inline constexpr std::size_t kNestLanes = 16;  // columns per lane group (kernels' kSimdLanes)

/// One k chunk of one N panel: the packed B and the chunk's geometry.
template <typename BPanel>
struct NestChunk {
  const BPanel& b;
  std::size_t nc, kc, steps, kp, step;
};

/// One N panel's task grid.
struct NestPanel {
  std::size_t j0, nc, groups, jb, jtasks, mc;
  bool first, last;  // the chunk is the panel's first / last along k
};

/// One task of a chunk: rows [i0, i0 + mc) x lane groups [g0, g1), columns
/// [w_lo, w_hi) of the panel.
struct NestTask {
  std::size_t i0, mc, g0, g1, w_lo, w_hi;
};

namespace nest {

constexpr std::size_t kNC32 = 1024, kNC64 = 256;  // least columns per N panel (fp32/fp16, fp64 accumulators)
constexpr std::size_t kMC = 32;                   // rows per task
constexpr std::size_t kKTarget = 256;             // k per chunk, rounded down to whole kc_unit
constexpr std::size_t L = kNestLanes;
constexpr std::size_t kPrivateBytes = std::size_t{2} << 20;  // a private-B block's chunk

// The blocking of one call. one_chunk: k within one chunk, so each task
// holds its own accumulators (no m x NC array).
struct Plan {
  std::size_t step, KC, NC, mc, mblocks;
  bool one_chunk;
};

// Columns per N panel: at least kNC32 (kNC64), more when k or m is small,
// while the B chunk stays under 12 MiB and the accumulators m*NC under
// 32 MiB; never above the plug-in's cap.
template <typename K>
std::size_t panel_columns(const MacroArgs& g, const K& kind, std::size_t kp) {
  constexpr std::size_t kBMax = std::size_t{12} << 20, kAccMax = std::size_t{32} << 20;
  const std::size_t acc_bytes = kind.fp64 ? 8 : 4;
  const std::size_t base = kind.fp64 ? kNC64 : kNC32;
  const std::size_t cap =
      std::min(kBMax / (std::max<std::size_t>(kp, 1) * kind.panel_bytes), kAccMax / (g.m * acc_bytes));
  const std::size_t nc = std::max(base, cap / L * L);
  return kind.nc_cap ? std::min(nc, std::max(L, kind.nc_cap / L * L)) : nc;
}

// Lane groups per task: all of the panel's, halved while there are fewer
// than 4 tasks per thread (dynamic scheduling evens out the rest).
inline void split_panel(const MacroArgs& g, const Plan& sp, NestPanel& p) {
  p.groups = (p.nc + L - 1) / L;
  p.jb = p.groups;
  while (p.jb > 1 && sp.mblocks * ((p.groups + p.jb - 1) / p.jb) < 4 * static_cast<std::size_t>(g.threads))
    p.jb = (p.jb + 1) / 2;
  p.jtasks = (p.groups + p.jb - 1) / p.jb;
}

// Slices per lane group of B's chunk: one, or enough to give each thread
// two when there are fewer groups than threads (n <= 16 with long k).
template <typename K>
std::size_t b_slices(const MacroArgs& g, const K& kind, std::size_t groups, std::size_t steps) {
  const std::size_t threads = static_cast<std::size_t>(g.threads);
  if (groups >= threads || !kind.slices_ok) return 1;
  return std::clamp<std::size_t>((2 * threads + groups - 1) / groups, 1, std::max<std::size_t>(steps, 1));
}

// Accumulators and B buffers, a slot of the thread's scratch arena
// (scratch.h): kept between calls, no allocation per call for small products.
template <typename K>
struct Buffers {
  std::vector<uint32_t> acc32;
  std::vector<uint64_t> acc64;
  typename K::BPanel b;
  std::size_t held_bytes() const { return scratch_bytes(acc32, acc64, b); }
};
// The few-columns pipeline's B chunks: a slot of its own, kept between calls
// (kRingBytes <= kKeepBytes).
template <typename K>
struct Ring {
  std::vector<typename K::BPanel> b;
  std::size_t held_bytes() const {
    std::size_t bytes = 0;
    for (const auto& x : b) bytes += scratch_bytes(x);
    return bytes;
  }
};
// The slots: a call's shared B, a private-B task's own B, each thread's A rows.
struct SharedBSlot;
struct PrivateBSlot;
struct ARowsSlot;
struct TaskAccSlot;
struct RingSlot;

template <typename K>
NestChunk<typename K::BPanel> chunk_of(const MacroArgs& g, const Plan& sp, std::size_t nc, std::size_t k0,
                                       const typename K::BPanel& b) {
  const std::size_t kc = std::min(sp.KC, g.k - std::min(k0, g.k)), steps = (kc + sp.step - 1) / sp.step;
  return {b, nc, kc, steps, steps * sp.step, sp.step};
}

// A task's own accumulators (Plan::one_chunk).
struct TaskAcc {
  std::vector<uint32_t> acc32;
  std::vector<uint64_t> acc64;
  std::size_t held_bytes() const { return scratch_bytes(acc32, acc64); }
};

// Task t of a chunk: the epilogue's start in the panel's first chunk, the
// plug-in's packing and chains, the store in the last. The accumulators:
// the panel's (acc32/acc64, row i at i*nc; empty under a sink that keeps
// them in registers), or with `own` the task's.
template <typename K>
void run_task(const MacroArgs& g, const K& kind, const NestChunk<typename K::BPanel>& ch, const NestPanel& p,
              std::size_t k0, std::size_t t, std::vector<uint32_t>& acc32, std::vector<uint64_t>& acc64, bool own) {
  const Scratch<typename K::APanel, ARowsSlot> a;
  NestTask task{};
  task.i0 = (t / p.jtasks) * p.mc, task.mc = std::min(p.mc, g.m - task.i0);
  task.g0 = (t % p.jtasks) * p.jb, task.g1 = std::min(p.groups, task.g0 + p.jb);
  task.w_lo = task.g0 * L, task.w_hi = std::min(p.nc, task.g1 * L);
  const std::size_t nc = p.nc;
  const Scratch<TaskAcc, TaskAccSlot> local;
  uint32_t* r32 = nullptr;  // row i0's accumulators
  uint64_t* r64 = nullptr;
  if (own) {
    (kind.fp64 ? local->acc64.resize(task.mc * nc) : local->acc32.resize(task.mc * nc));
    r32 = local->acc32.data(), r64 = local->acc64.data();
  } else {
    if (!acc32.empty()) r32 = acc32.data() + task.i0 * nc;
    if (!acc64.empty()) r64 = acc64.data() + task.i0 * nc;
  }
  if (p.first && !kind.sink) {
    // Chains from +0 (zero_init: one value for every element), else from C.
    const bool zero = g.epilogue.zero_init();
    const uint64_t z = zero ? g.epilogue.initial_acc(0, 0) : 0;
    for (std::size_t r = 0; r < task.mc; ++r) {
      const std::size_t at = r * nc;
      if (zero && kind.fp64) std::fill(r64 + at + task.w_lo, r64 + at + task.w_hi, z);
      else if (zero) std::fill(r32 + at + task.w_lo, r32 + at + task.w_hi, static_cast<uint32_t>(z));
      else
        for (std::size_t w = task.w_lo; w < task.w_hi; ++w) {
          const uint64_t a0 = g.epilogue.initial_acc(task.i0 + r, p.j0 + w);
          if (kind.fp64) r64[at + w] = a0;
          else r32[at + w] = static_cast<uint32_t>(a0);
        }
    }
  }
  // k = 0 (one empty chunk): no step to run, D is the epilogue of the start.
  if (ch.steps || kind.sink) kind.task(ch, p, k0, task, *a, r32, r64);
  if (p.last && !kind.sink)
    for (std::size_t r = 0; r < task.mc; ++r) {
      const std::size_t i = task.i0 + r, at = r * nc + task.w_lo, w = task.w_hi - task.w_lo;
      if (kind.fp64) g.epilogue.store_row(r64 + at, i, p.j0 + task.w_lo, w);
      else g.epilogue.store_row(r32 + at, i, p.j0 + task.w_lo, w);
    }
}

// The pack tasks of a chunk: slices of its lane groups.
template <typename K>
struct PackTasks {
  const K& kind;
  const NestPanel& p;
  const NestChunk<typename K::BPanel>& ch;
  typename K::BPanel& b;  // ch.b
  std::size_t k0, slices;
  std::size_t count() const { return ch.steps ? p.groups * slices : 0; }  // k = 0: nothing to pack
  void operator()(std::size_t it) const { kind.pack_b(p, k0, ch, b, it / slices, it % slices, slices); }
};

// m <= kMC: no two tasks share B's columns, so each task packs its own:
// tasks of column blocks over the whole of N, each running every k chunk,
// and one parallel_for per call (short-wide and m <= 16 products). A
// block's B chunk stays under kPrivateBytes.
template <typename K>
void run_private(const MacroArgs& g, const K& kind, const Plan& sp) {
  const std::size_t groups = (g.n + L - 1) / L, k_end = std::max<std::size_t>(g.k, 1);
  const std::size_t kp = std::min(sp.KC, (g.k + sp.step - 1) / sp.step * sp.step);
  std::size_t jb =
      std::clamp<std::size_t>(kPrivateBytes / (std::max<std::size_t>(kp, 1) * kind.panel_bytes * L), 1, groups);
  if (kind.nc_cap) jb = std::min(jb, std::max<std::size_t>(1, kind.nc_cap / L));
  while (jb > 1 && (groups + jb - 1) / jb < 4 * static_cast<std::size_t>(g.threads)) jb = (jb + 1) / 2;
  const std::size_t blocks = (groups + jb - 1) / jb;
  parallel_for(g.threads, blocks, Assign::dynamic, [&](std::size_t blk) {
    const Scratch<Buffers<K>, PrivateBSlot> own;
    Buffers<K>& sc = *own;
    kind.prepare(sc.b);
    NestPanel p{};
    p.j0 = blk * jb * L;
    p.nc = std::min(jb * L, g.n - p.j0);
    p.groups = (p.nc + L - 1) / L;
    p.jb = p.groups;
    p.jtasks = 1;
    p.mc = sp.mc;
    (kind.fp64 ? sc.acc64.resize(g.m * p.nc) : sc.acc32.resize(g.m * p.nc));
    for (std::size_t k0 = 0; k0 < k_end; k0 += sp.KC) {
      const NestChunk<typename K::BPanel> ch = chunk_of<K>(g, sp, p.nc, k0, sc.b);
      kind.shape_b(ch, sc.b);
      p.first = k0 == 0;
      p.last = k0 + sp.KC >= k_end;
      for (std::size_t gg = 0; ch.steps && gg < p.groups; ++gg) kind.pack_b(p, k0, ch, sc.b, gg, 0, 1);
      run_task(g, kind, ch, p, k0, 0, sc.acc32, sc.acc64, false);
    }
  });
}

// One N panel, chunk after chunk: B packed by all threads (lane groups,
// or slices of k of them), then the tasks: two parallel_for calls a chunk.
template <typename K>
void run_panel(const MacroArgs& g, const K& kind, const Plan& sp, Buffers<K>& sc, NestPanel& p) {
  const std::size_t k_end = std::max<std::size_t>(g.k, 1);  // k = 0: one empty chunk (init and store)
  for (std::size_t k0 = 0; k0 < k_end; k0 += sp.KC) {
    const NestChunk<typename K::BPanel> ch = chunk_of<K>(g, sp, p.nc, k0, sc.b);
    kind.shape_b(ch, sc.b);
    p.first = k0 == 0;
    p.last = k0 + sp.KC >= k_end;
    const PackTasks<K> pack{kind, p, ch, sc.b, k0, b_slices(g, kind, p.groups, ch.steps)};
    parallel_for(g.threads, pack.count(), Assign::blocks, pack);
    parallel_for(g.threads, sp.mblocks * p.jtasks, Assign::dynamic,
                 [&](std::size_t t) { run_task(g, kind, ch, p, k0, t, sc.acc32, sc.acc64, sp.one_chunk); });
  }
}

// The same with few columns and long k (macro.h), as a pipeline
// (parallel_pipeline.h): row streams of p.mc rows (rows_per_thread(): one
// per thread; the tasks of a chunk) run the chunks in order, each chunk's
// B packed once into one of a ring of buffers (up to kRingBytes, 2 ..
// kRingMax of them, kept between calls); no barrier per chunk, so a thread
// that loses its core delays its own stream, not the other threads.
constexpr std::size_t kRingBytes = kKeepBytes, kRingMax = 16;

template <typename K>
void run_panel_few_columns(const MacroArgs& g, const K& kind, const Plan& sp, Buffers<K>& sc, NestPanel& p) {
  using B = typename K::BPanel;
  const std::size_t k_end = std::max<std::size_t>(g.k, 1);
  const std::size_t chunks = (k_end + sp.KC - 1) / sp.KC;
  const std::size_t chunk_bytes = std::max<std::size_t>(1, sp.KC * kind.panel_bytes * p.groups * L);
  const std::size_t depth = std::clamp<std::size_t>(kRingBytes / chunk_bytes, 2, kRingMax);
  const Scratch<Ring<K>, RingSlot> ring_slot;
  std::vector<B>& ring = ring_slot->b;
  if (ring.size() < depth) ring.resize(depth);
  for (std::size_t s = 0; s < depth; ++s) kind.prepare(ring[s]);
  const auto pack = [&](std::size_t c, std::size_t slot, std::size_t) {
    B& b = ring[slot];
    const NestChunk<B> ch = chunk_of<K>(g, sp, p.nc, c * sp.KC, b);
    kind.shape_b(ch, b);
    for (std::size_t gg = 0; ch.steps && gg < p.groups; ++gg) kind.pack_b(p, c * sp.KC, ch, b, gg, 0, 1);
  };
  const auto run = [&](std::size_t t, std::size_t c, std::size_t slot) {
    const NestChunk<B> ch = chunk_of<K>(g, sp, p.nc, c * sp.KC, ring[slot]);
    NestPanel q = p;
    q.first = c == 0;
    q.last = c + 1 == chunks;
    run_task(g, kind, ch, q, c * sp.KC, t, sc.acc32, sc.acc64, sp.one_chunk);
  };
  run_pipeline(g.threads, sp.mblocks * p.jtasks, chunks, depth, pack, run);
}

}  // namespace nest

/// At most kMC rows, not one, and fewer lane groups than threads: the shapes
/// run_steps_nest runs as its few-columns pipeline (m = 1 or a lane group
/// per thread: private B per task).
inline bool few_columns_shape(std::size_t m, std::size_t n, int threads) {
  const std::size_t groups = (n + nest::L - 1) / nest::L;
  return m <= nest::kMC && m != 1 && groups < static_cast<std::size_t>(threads);
}

/// The steps loop nest on plug-in `kind`. At most kMC rows and a lane group
/// per thread: private B per task. Else per N panel, B shared per chunk, or
/// with at most kMC rows and fewer lane groups than threads the few-columns
/// pipeline: streams of rows_per_thread() rows, chunks of kKFewColumns k (macro.h).
template <typename K>
void run_steps_nest(const MacroArgs& g, const K& kind) {
  using namespace nest;
  Plan sp{};
  sp.step = kind.step;
  const bool few_columns = few_columns_shape(g.m, g.n, g.threads);
  const bool private_b = g.m <= kMC && !few_columns;
  sp.KC = std::max<std::size_t>(1, (few_columns ? kKFewColumns : kKTarget) / kind.kc_unit) * kind.kc_unit;
  sp.mc = few_columns ? rows_per_thread(g.m, g.threads) : kMC;
  sp.NC = panel_columns(g, kind, std::min(sp.KC, (g.k + sp.step - 1) / sp.step * sp.step));
  sp.mblocks = (g.m + sp.mc - 1) / sp.mc;
  if (private_b) return run_private(g, kind, sp);
  const Scratch<Buffers<K>, SharedBSlot> call;
  Buffers<K>& sc = *call;
  // Under a sink whose pieces never span a chunk (KC a multiple of the
  // interval), the accumulators live in registers only.
  const bool no_acc = kind.sink && kind.registers_only && sp.KC % kind.sink->interval == 0;
  sp.one_chunk = !kind.sink && g.k <= sp.KC;
  const std::size_t acc_size = no_acc || sp.one_chunk ? 0 : g.m * std::min(sp.NC, g.n);
  (kind.fp64 ? sc.acc64.resize(acc_size) : sc.acc32.resize(acc_size));
  kind.prepare(sc.b);
  for (std::size_t j0 = 0; j0 < g.n; j0 += sp.NC) {
    NestPanel p{};
    p.j0 = j0;
    p.nc = std::min(sp.NC, g.n - j0);
    p.mc = sp.mc;
    split_panel(g, sp, p);
    if (few_columns) run_panel_few_columns(g, kind, sp, sc, p);
    else run_panel(g, kind, sp, sc, p);
  }
}

}  // namespace mmaemu::driver
