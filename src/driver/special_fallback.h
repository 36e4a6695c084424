// SPDX-License-Identifier: BSD-3-Clause
// The special-value fallback of docs/kernels.md, once for every SIMD
// macro-kernel: a kernel sees no NaN or Inf input, so over a range of
// steps of 16 lanes (kernels' kSimdLanes, kScaledLanes)
//   1. runs of steps without flags go to the kernel in one call;
//   2. a flagged step runs on the kernel too, then each lane whose own
//      operands are flagged is recomputed on the reference from its
//      accumulator before that step.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace mmaemu::driver {

inline constexpr std::size_t kFallbackLanes = 16;

/// Steps [s0, s1) of acc[0..16): flagged(s) says whether step s has a
/// NaN/Inf input in any lane, lanes(s) which lanes (asked only where
/// flagged); run(s, e) runs steps [s, e) on the kernel, redo(j, s, before)
/// gives lane j's step s on the reference from `before`.
template <typename Flagged, typename Lanes, typename Run, typename Redo>
void steps_with_fallback(std::size_t s0, std::size_t s1, uint32_t* acc, Flagged flagged, Lanes lanes, Run run,
                         Redo redo) {
  for (std::size_t s = s0; s < s1;) {
    std::size_t e = s;
    while (e < s1 && !flagged(e)) ++e;
    if (e > s) run(s, e);
    if (e == s1) break;
    uint32_t before[kFallbackLanes];
    std::memcpy(before, acc, sizeof before);
    run(e, e + 1);
    const uint32_t redo_lanes = lanes(e);
    for (std::size_t j = 0; j < kFallbackLanes; ++j)
      if (redo_lanes >> j & 1) acc[j] = redo(j, e, before[j]);
    s = e + 1;
  }
}

}  // namespace mmaemu::driver
