// SPDX-License-Identifier: BSD-3-Clause
// The accumulator sink: where a macro-kernel puts partial sums for a
// schedule (promote:P, and split-K slices through it) instead of the
// epilogue (docs/schedules.md, "Schedules as sinks"). The schedules hand a
// RangeSink down; the macro-kernel writes into it and never calls schedule
// code. Which intervals it takes, the pieces of a k chunk, and the
// additions into the main accumulator.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>

#include "models/model.h"

namespace mmaemu::driver {

/// Where a promoting call (driver::add_range, schedule_parts.h) puts its
/// results instead of the epilogue: every chain starts from +0 at each
/// multiple of `interval` k of the call, and at the end of each such piece
/// (and of k) the piece's result, widened exactly to `main` (fp32, or fp64
/// for an fp64 unit), is added into dst with one RNE addition. dst: m x n,
/// row-major, leading dimension ld (docs/schedules.md, promote:P).
struct RangeSink {
  std::size_t interval;
  void* dst;
  std::ptrdiff_t ld;
  Fmt main;
};

/// True when the steps macro-kernel can promote pieces of `interval` over
/// k (the call's k): one piece, or pieces of whole steps (its k chunks are
/// whole steps too, so every piece boundary is a step boundary of a chunk).
bool sink_fits(std::size_t interval, std::size_t k, std::size_t step);

/// Steps [s0, s1) of a chunk, all in one piece; start/end: the piece
/// starts / ends in this segment (a piece may span several chunks).
struct SinkSegment {
  std::size_t s0, s1;
  bool start, end;
};

/// f(segment) for the segments of the chunk of kc k from k0 on, in k
/// order (k: the call's; a piece also ends at k).
template <typename F>
void for_sink_segments(const RangeSink& s, std::size_t k0, std::size_t kc, std::size_t step, std::size_t k, F&& f) {
  const std::size_t steps = (kc + step - 1) / step;
  for (std::size_t off = 0; off < kc;) {
    const std::size_t next = std::min(kc, off + (s.interval - (k0 + off) % s.interval));
    f(SinkSegment{off / step, next == kc ? steps : next / step, (k0 + off) % s.interval == 0,
                  (k0 + next) % s.interval == 0 || k0 + next == k});
    off = next;
  }
}

/// fp16 -> fp32 of a finite half h (exponent field not 31), exact and
/// without branches: a normal half by rebiasing its exponent, a subnormal
/// (or zero) as its integer fraction times 2^-24, one exact binary32
/// product (needs no DAZ, kernels/fp_env.h). Equals fp16_to_fp32(h).
inline uint32_t widen_finite_fp16(uint32_t h) {
  const uint32_t sign = (h & 0x8000u) << 16, em = h & 0x7FFFu;
  const uint32_t normal = (em << 13) + (112u << 23);
  const uint32_t sub = std::bit_cast<uint32_t>(static_cast<float>(static_cast<int32_t>(em)) * 0x1p-24f);
  const uint32_t is_normal = 0u - static_cast<uint32_t>(em >= 0x400u);  // a mask: no branch, so loops vectorise
  return sign | (normal & is_normal) | (sub & ~is_normal);
}

/// dst(i, j0 .. j0+count-1) += acc[0 .. count-1], the unit's results (bits
/// of the row's output format) widened exactly to s.main, one RNE addition
/// each.
void sink_add(const RangeSink& s, const ModelRow& row, std::size_t i, std::size_t j0, std::size_t count,
              const uint32_t* acc);
void sink_add(const RangeSink& s, const ModelRow& row, std::size_t i, std::size_t j0, std::size_t count,
              const uint64_t* acc);

}  // namespace mmaemu::driver
