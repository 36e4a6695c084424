// SPDX-License-Identifier: BSD-3-Clause
// FMA chains (fp32 SFMA, fp64 DMMA / f64 MFMA): register-blocked tiles over
// BLIS-style packed panels. Every accumulator sees its k in order, one fma
// each, so the blocking (NC x KC panels of B, MC x KC blocks of A, MR x NR
// tiles) never changes a bit. NaN/Inf are IEEE; the epilogue gives NaN the
// unit's pattern.
//
// Few synchronisations (the cores may be shared): per N panel and
// super-chunk of KS k, B packed by all threads (in KC sub-chunks), then
// tasks of MC rows (x a range of micro-panels when rows are few) that run
// every sub-chunk and, at the end, their own epilogue. With at most MC rows
// and many columns, tasks of column blocks that pack their own B instead
// (run_chain_private: one parallel_for a call); with fewer tasks of MC rows
// than threads, a pipeline over the super-chunks (chain_panel_few_columns).
#include <algorithm>
#include <bit>
#include <type_traits>
#include <vector>

#include "driver/macro.h"
#include "driver/pack.h"
#include "driver/parallel_pipeline.h"
#include "driver/scratch.h"

namespace mmaemu::driver {
namespace {

// The scratch slots (scratch.h): a call's B and accumulators, a private-B
// task's own, each thread's A blocks.
struct SharedBSlot;
struct PrivateBSlot;
struct ABlocksSlot;

constexpr std::size_t kNC32 = 1024, kNC64 = 512;  // columns per N panel (fp32, fp64)
constexpr std::size_t kMC = 64;                   // rows per task
constexpr std::size_t kKC = 256;                  // k per packed sub-chunk
constexpr std::size_t kKS = 8 * kKC;              // k per super-chunk (one B packing)

template <typename T>
constexpr std::size_t kNR = sizeof(T) == 8 ? kernels::kChainNR64 : kernels::kChainNR;
constexpr std::size_t kMR = kernels::kChainMR;

template <typename T>
void chain_tile(int kc, const T* a, const T* b, T* c, std::size_t ldc) {
  if constexpr (sizeof(T) == 8) kernels::simd_chain_tile64(kc, a, b, c, ldc);
  else kernels::simd_chain_tile(kc, a, b, c, ldc);
}

// The tiles of rows [i0, i0+mc) x micro-panels [p0, p1) of one sub-chunk;
// edge tiles through a full-size copy (padding computes zeros, never stored).
template <typename T>
void chain_tiles(const T* ap, const T* bq, std::size_t kc, std::size_t mc, std::size_t nc, std::size_t p0,
                 std::size_t p1, T* acc_rows) {
  constexpr std::size_t MR = kMR, NR = kNR<T>;
  alignas(64) T tile[MR * NR];
  for (std::size_t p = p0; p < p1; ++p) {
    const std::size_t w0 = p * NR, nw = std::min(NR, nc - w0);
    const T* bt = bq + p * kKC * NR;
    for (std::size_t r0 = 0; r0 < mc; r0 += MR) {
      const std::size_t mr = std::min(MR, mc - r0);
      const T* at = ap + (r0 / MR) * kc * MR;
      T* c = acc_rows + r0 * nc + w0;
      if (mr == MR && nw == NR) {
        chain_tile<T>(static_cast<int>(kc), at, bt, c, nc);
        continue;
      }
      std::fill(tile, tile + MR * NR, T(0));
      for (std::size_t r = 0; r < mr; ++r) std::copy(c + r * nc, c + r * nc + nw, tile + r * NR);
      chain_tile<T>(static_cast<int>(kc), at, bt, tile, NR);
      for (std::size_t r = 0; r < mr; ++r) std::copy(tile + r * NR, tile + r * NR + nw, c + r * nc);
    }
  }
}

// One N panel (columns j0 .. j0+nc-1) and super-chunk of k (ks0 ..).
struct ChainPanel {
  std::size_t j0, nc, npan, ks0, subs, mc, jb, jtasks;
  bool first, last;
};

// One task: rows [i0, i0+mc) x micro-panels [p0, p1) over every sub-chunk.
template <typename T>
void chain_task(const GemmCall& g, const ChainPanel& cp, const T* bp, T* acc, std::size_t t) {
  const Scratch<AlignedBuf<T>, ABlocksSlot> a_buf;  // this thread's A blocks
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  constexpr std::size_t MR = kMR, NR = kNR<T>;
  const std::size_t nc = cp.nc;
  const std::size_t i0 = (t / cp.jtasks) * cp.mc, mc = std::min(cp.mc, g.m - i0), jt = t % cp.jtasks;
  const std::size_t p0 = jt * cp.jb, p1 = std::min(cp.npan, (jt + 1) * cp.jb);
  const std::size_t w_lo = p0 * NR, w_hi = std::min(nc, p1 * NR);
  if (cp.first)
    for (std::size_t i = i0; i < i0 + mc; ++i)
      for (std::size_t w = w_lo; w < w_hi; ++w)
        acc[i * nc + w] = g.epilogue.zero_init()
                              ? T(0)
                              : std::bit_cast<T>(static_cast<U>(g.epilogue.initial_acc(i, cp.j0 + w)));
  T* ap = a_buf->get(((mc + MR - 1) / MR) * kKC * MR);
  for (std::size_t q = 0; q < cp.subs; ++q) {
    const std::size_t k0 = cp.ks0 + q * kKC, kc = std::min(kKC, g.k - k0);
    pack_chain<T>(g.row, g.spec, g.A, true, i0, mc, k0, kc, MR, ap);
    chain_tiles<T>(ap, bp + q * cp.npan * kKC * NR, kc, mc, nc, p0, p1, acc + i0 * nc);
  }
  if (cp.last)
    for (std::size_t i = i0; i < i0 + mc; ++i) g.epilogue.store_row(acc + i * nc + w_lo, i, cp.j0 + w_lo, w_hi - w_lo);
}

// The accumulators and packed B, a slot of the thread's scratch arena
// (scratch.h); every element is written before it is read.
template <typename T>
struct ChainScratch {
  AlignedBuf<T> acc, b;
  std::size_t held_bytes() const { return scratch_bytes(acc, b); }
};

// m <= kMC with many columns (short-wide products such as 10 x 10^6 x 10):
// no two tasks share B's columns, so each task packs its own, sub-chunk by
// sub-chunk, into its thread's buffers: tasks of column blocks over the
// whole of N, each running all of k, one parallel_for per call.
template <typename T>
void chain_private_block(const GemmCall& g, std::size_t j0, std::size_t nc) {
  using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
  constexpr std::size_t MR = kMR, NR = kNR<T>;
  const Scratch<ChainScratch<T>, PrivateBSlot> own_slot;  // this thread's accumulators and B sub-chunk
  const Scratch<AlignedBuf<T>, ABlocksSlot> a_buf;        // this thread's A sub-chunk
  ChainScratch<T>& own = *own_slot;
  const std::size_t npan = (nc + NR - 1) / NR;
  T* acc = own.acc.get(g.m * nc);
  T* bq = own.b.get(npan * kKC * NR);
  T* ap = a_buf->get(((g.m + MR - 1) / MR) * kKC * MR);
  for (std::size_t i = 0; i < g.m; ++i)
    for (std::size_t w = 0; w < nc; ++w)
      acc[i * nc + w] =
          g.epilogue.zero_init() ? T(0) : std::bit_cast<T>(static_cast<U>(g.epilogue.initial_acc(i, j0 + w)));
  for (std::size_t k0 = 0; k0 < g.k; k0 += kKC) {
    const std::size_t kc = std::min(kKC, g.k - k0);
    for (std::size_t p = 0; p < npan; ++p)
      pack_chain<T>(g.row, g.spec, g.B, false, j0 + p * NR, std::min(NR, nc - p * NR), k0, kc, NR, bq + p * kKC * NR);
    pack_chain<T>(g.row, g.spec, g.A, true, 0, g.m, k0, kc, MR, ap);
    chain_tiles<T>(ap, bq, kc, g.m, nc, 0, npan, acc);
  }
  for (std::size_t i = 0; i < g.m; ++i) g.epilogue.store_row(acc + i * nc, i, j0, nc);
}

// Column blocks of at most NC columns, halved while there are fewer than
// 4 per thread (dynamic scheduling evens out the rest).
template <typename T>
void run_chain_private(const GemmCall& g, std::size_t NC) {
  constexpr std::size_t NR = kNR<T>;
  const std::size_t npan = (g.n + NR - 1) / NR;
  std::size_t jb = NC / NR;
  while (jb > 1 && (npan + jb - 1) / jb < 4 * static_cast<std::size_t>(g.threads)) jb = (jb + 1) / 2;
  parallel_for(g.threads, (npan + jb - 1) / jb, Assign::dynamic, [&](std::size_t blk) {
    const std::size_t j0 = blk * jb * NR;
    chain_private_block<T>(g, j0, std::min(jb * NR, g.n - j0));
  });
}

// The B sub-chunks of one super-chunk of the few-columns pipeline.
template <typename T>
struct ChainRing {
  std::vector<AlignedBuf<T>> b;
  std::size_t held_bytes() const {
    std::size_t bytes = 0;
    for (const auto& x : b) bytes += scratch_bytes(x);
    return bytes;
  }
};
struct RingSlot;
constexpr std::size_t kRingBytes = kKeepBytes, kRingMax = 16;

// One N panel with fewer tasks of MC rows than threads (few rows and micro-panels:
// the multi-word experiment's 10 x 10 products of long k) as a pipeline
// (parallel_pipeline.h): each task a stream that runs the super-chunks in
// order, each super-chunk's B packed once into one of a ring of buffers;
// no barrier per super-chunk (a thread that loses its core delays its own
// stream, not the others).
template <typename T>
void chain_panel_few_columns(const GemmCall& g, const ChainPanel& cp0, std::size_t tasks, T* acc) {
  constexpr std::size_t NR = kNR<T>;
  const std::size_t k_end = std::max<std::size_t>(g.k, 1), chunks = (k_end + kKS - 1) / kKS;
  const std::size_t chunk_elems = std::max<std::size_t>((kKS + kKC - 1) / kKC, 1) * cp0.npan * kKC * NR;
  const std::size_t depth = std::clamp<std::size_t>(kRingBytes / (chunk_elems * sizeof(T)), 2, kRingMax);
  const Scratch<ChainRing<T>, RingSlot> ring_slot;
  std::vector<AlignedBuf<T>>& ring = ring_slot->b;
  if (ring.size() < depth) ring.resize(depth);
  const auto panel_at = [&](std::size_t c) {
    ChainPanel cp = cp0;
    cp.ks0 = c * kKS;
    cp.subs = (std::min(kKS, g.k - std::min(cp.ks0, g.k)) + kKC - 1) / kKC;
    cp.first = c == 0;
    cp.last = c + 1 == chunks;
    return cp;
  };
  const auto pack = [&](std::size_t c, std::size_t slot, std::size_t) {
    const ChainPanel cp = panel_at(c);
    T* bp = ring[slot].get(chunk_elems);
    for (std::size_t qp = 0; qp < cp.subs * cp.npan; ++qp) {
      const std::size_t q = qp / cp.npan, p = qp % cp.npan, k0 = cp.ks0 + q * kKC;
      pack_chain<T>(g.row, g.spec, g.B, false, cp.j0 + p * NR, std::min(NR, cp.nc - p * NR), k0,
                    std::min(kKC, g.k - k0), NR, bp + qp * kKC * NR);
    }
  };
  const auto run = [&](std::size_t t, std::size_t c, std::size_t slot) {
    chain_task<T>(g, panel_at(c), ring[slot].get(chunk_elems), acc, t);
  };
  run_pipeline(g.threads, tasks, chunks, depth, pack, run);
}

template <typename T>
void run_chain(const GemmCall& g) {
  constexpr std::size_t NR = kNR<T>, NC = sizeof(T) == 8 ? kNC64 : kNC32;
  // Few rows, and a micro-panel per thread at least: private B (above).
  if (g.m <= kMC && (g.n + NR - 1) / NR >= 2 * static_cast<std::size_t>(g.threads)) return run_chain_private<T>(g, NC);
  const Scratch<ChainScratch<T>, SharedBSlot> call;
  ChainScratch<T>& scratch = *call;
  AlignedBuf<T>& acc_buf = scratch.acc;
  AlignedBuf<T>& b_buf = scratch.b;
  for (std::size_t j0 = 0; j0 < g.n; j0 += NC) {
    ChainPanel cp{};
    cp.j0 = j0;
    cp.nc = std::min(NC, g.n - j0);
    cp.npan = (cp.nc + NR - 1) / NR;
    T* acc = acc_buf.get(g.m * cp.nc);
    // Fewer rows per task (whole tiles) when even one micro-panel per task
    // leaves threads idle (macro.h, rows_per_thread).
    cp.mc = kMC;
    const bool few = (g.m + kMC - 1) / kMC * cp.npan < static_cast<std::size_t>(g.threads);
    if (few) cp.mc = (rows_per_thread(g.m, g.threads) + kMR - 1) / kMR * kMR;
    const std::size_t mblocks = (g.m + cp.mc - 1) / cp.mc;
    // Split the panels among tasks when rows are few (>= 4 tasks per thread).
    cp.jb = cp.npan;
    while (cp.jb > 1 && mblocks * ((cp.npan + cp.jb - 1) / cp.jb) < 4 * static_cast<std::size_t>(g.threads))
      cp.jb = (cp.jb + 1) / 2;
    cp.jtasks = (cp.npan + cp.jb - 1) / cp.jb;
    if (few) {
      chain_panel_few_columns<T>(g, cp, mblocks * cp.jtasks, acc);
      continue;
    }
    for (cp.ks0 = 0; cp.ks0 < std::max<std::size_t>(g.k, 1); cp.ks0 += kKS) {
      const std::size_t ksc = std::min(kKS, g.k - cp.ks0);
      cp.subs = (ksc + kKC - 1) / kKC;
      cp.first = cp.ks0 == 0;
      cp.last = cp.ks0 + kKS >= g.k;
      // Sub-chunk q's micro-panel p at bp + (q*npan + p)*KC*NR.
      T* bp = b_buf.get(std::max<std::size_t>(cp.subs, 1) * cp.npan * kKC * NR);
      parallel_for(g.threads, cp.subs * cp.npan, Assign::blocks, [&](std::size_t qp) {
        const std::size_t q = qp / cp.npan, p = qp % cp.npan, k0 = cp.ks0 + q * kKC;
        pack_chain<T>(g.row, g.spec, g.B, false, j0 + p * NR, std::min(NR, cp.nc - p * NR), k0,
                      std::min(kKC, g.k - k0), NR, bp + qp * kKC * NR);
      });
      parallel_for(g.threads, mblocks * cp.jtasks, Assign::dynamic,
                   [&](std::size_t t) { chain_task<T>(g, cp, bp, acc, t); });
    }
  }
}

}  // namespace

void run_chain_macro(const GemmCall& g) {
  if (g.plan.fp64) run_chain<double>(g);
  else run_chain<float>(g);
}

}  // namespace mmaemu::driver
