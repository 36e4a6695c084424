// SPDX-License-Identifier: BSD-3-Clause
// The batched engine's loop (docs/batch.md), generic over a unit kind's
// plug-in as the steps loop nest is (steps_nest.h): output elements 16 at a
// time, one per lane; per group the lanes' accumulators, then k chunk by k
// chunk the plug-in's product panel and the SIMD step kernel over runs of
// steps, a step with NaN/Inf inputs on the kernel and then its lanes on the
// reference (special_fallback.h); tasks of groups on batch_parallel.
//
// The plug-in (a class K) provides:
//   K::Panel                       a chunk's product panel; `special`: per
//                                  step of the chunk, bit j = lane j flagged
//   total, k, chunk, group_tasks   output elements, k, positions per chunk
//                                  (whole steps), groups of 16 per task
//   simd                           the SIMD path; otherwise scalar(q0, q1)
//   load(lanes, acc), store(q0, acc)
//   pack(lanes, l0, kc, Panel&)    products of positions [l0, l0 + kc)
//   run(lanes, l0, kc, Panel&, s0, s1, acc)
//                                  steps [s0, s1) of the chunk on the kernel
//   redo(lanes, l0, kc, j, s, before)
//                                  lane j's step s on the reference
//   scalar(q0, q1)                 elements [q0, q1) one at a time
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "hwy/base.h"

#include "driver/batch.h"
#include "driver/scratch.h"
#include "driver/special_fallback.h"

namespace mmaemu::driver {

inline constexpr std::size_t kBatchLanes = 16;

/// 16 output elements of a batch of tiles (m x n outputs, k deep; A_t m x
/// k and B_t k x n row-major, contiguous): lane j's element q[j] and its
/// operands' bases (a along k with stride 1, b with stride n). A short
/// group repeats its first element.
struct BatchLanes {
  std::size_t q[kBatchLanes];
  std::size_t a[kBatchLanes], b[kBatchLanes];
};
BatchLanes batch_lanes(std::size_t m, std::size_t n, std::size_t k, std::size_t total, std::size_t q0);

/// One group of 16 elements from q0 (batch_lanes), chunk after chunk.
template <typename K>
void batch_group(const K& kd, std::size_t q0, typename K::Panel& pp) {
  const BatchLanes ln = kd.lanes(q0);
  HWY_ALIGN_MAX uint32_t acc[kBatchLanes];
  kd.load(ln, acc);
  for (std::size_t l0 = 0; l0 < kd.k; l0 += kd.chunk) {
    const std::size_t kc = std::min(kd.chunk, kd.k - l0);
    kd.pack(ln, l0, kc, pp);
    steps_with_fallback(
        0, pp.special.size(), acc, [&](std::size_t s) { return pp.special[s] != 0; },
        [&](std::size_t s) { return pp.special[s]; },
        [&](std::size_t s, std::size_t e) { kd.run(ln, l0, kc, pp, s, e, acc); },
        [&](std::size_t j, std::size_t s, uint32_t before) { return kd.redo(ln, l0, kc, j, s, before); });
  }
  kd.store(q0, acc);
}

/// Every element of the batch on plug-in `kd`, tasks of kd.group_tasks
/// groups on batch_parallel.
template <typename K>
void run_batch_engine(const K& kd, int threads) {
  struct Body {
    const K* kd;
    static void run(void* ctx, std::size_t t) {
      const K& k = *static_cast<const Body*>(ctx)->kd;
      const std::size_t per = k.group_tasks * kBatchLanes, q0 = t * per, q1 = std::min(k.total, q0 + per);
      if (!k.simd) return k.scalar(q0, q1);
      const Scratch<typename K::Panel> pp;
      for (std::size_t q = q0; q < q1; q += kBatchLanes) batch_group(k, q, *pp);
    }
  };
  Body body{&kd};
  const std::size_t per = kd.group_tasks * kBatchLanes;
  batch_parallel((kd.total + per - 1) / per, threads, &Body::run, &body);
}

}  // namespace mmaemu::driver
