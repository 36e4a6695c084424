// SPDX-License-Identifier: BSD-3-Clause
// The block-scaled GEMM's operand readers (driver/scaled_source.h).
#include "driver/scaled_source.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "driver/parallel.h"
#include "formats/block_quantise.h"
#include "kernels/quantise_simd.h"

namespace mmaemu::driver {

void CanonicalLines::lines(std::size_t r0, std::size_t count, uint8_t* codes, uint8_t* scales) const {
  if (k_) std::memcpy(codes, codes_ + (r0 - first_) * k_, count * k_);
  if (nb_) std::memcpy(scales, scales_ + (r0 - first_) * nb_, count * nb_);
}

namespace {

// Whether lines r and r + 1 of op(X) lie side by side in storage (then
// the reads go along k outside, lines inside, in storage order).
bool lines_adjacent(const Strided& x, bool k_along_cols) { return (x.row_major == x.trans) == k_along_cols; }

// f(r, l) for every line r < count and l < k, in storage order.
template <typename F>
void for_each(bool adjacent, std::size_t count, std::size_t k, F f) {
  if (adjacent) {
    for (std::size_t l = 0; l < k; ++l)
      for (std::size_t r = 0; r < count; ++r) f(r, l);
  } else {
    for (std::size_t r = 0; r < count; ++r)
      for (std::size_t l = 0; l < k; ++l) f(r, l);
  }
}

}  // namespace

void StridedCodes::lines(std::size_t r0, std::size_t count, uint8_t* codes, uint8_t* scales) const {
  const auto* x = static_cast<const uint8_t*>(codes_.data);
  const auto* s = static_cast<const uint8_t*>(scales_.data);
  if (packed_)
    for_each(lines_adjacent(codes_, k_cols_), count, k_, [&](std::size_t r, std::size_t l) {
      codes[r * k_ + l] = (x[at(codes_, r0 + r, l / 2)] >> (4 * (l & 1))) & 0xF;
    });
  else
    for_each(lines_adjacent(codes_, k_cols_), count, k_,
             [&](std::size_t r, std::size_t l) { codes[r * k_ + l] = x[at(codes_, r0 + r, l)]; });
  for_each(lines_adjacent(scales_, k_cols_), count, nb_,
           [&](std::size_t r, std::size_t t) { scales[r * nb_ + t] = s[at(scales_, r0 + r, t)]; });
}

void QuantisedLines::lines(std::size_t r0, std::size_t count, uint8_t* codes, uint8_t* scales) const {
  const auto* x = static_cast<const float*>(x_.data);
  const std::size_t nb = kp_ / q_.block;
  // Codes past k and the scales of the blocks past k are 0; the quantiser
  // writes the rest.
  const std::size_t kb = (k_ + q_.block - 1) / q_.block;
  for (std::size_t r = 0; r < count; ++r) {
    std::fill(codes + r * kp_ + k_, codes + (r + 1) * kp_, 0);
    std::fill(scales + r * nb + kb, scales + (r + 1) * nb, 0);
  }
  if (k_ == 0) return;
  std::vector<float> v(count * k_);
  for_each(lines_adjacent(x_, k_cols_), count, k_, [&](std::size_t r, std::size_t l) {
    v[r * k_ + l] = x[k_cols_ ? x_.at(r0 + r, l) : x_.at(l, r0 + r)];
  });
  for (std::size_t r = 0; r < count; ++r) {
    const float* line = &v[r * k_];
    if (q_.nvfp4) kernels::quantise_nvfp4_simd(line, k_, q_.encode, codes + r * kp_, scales + r * nb);
    else kernels::quantise_mx_simd(q_.element, q_.block, line, k_, codes + r * kp_, scales + r * nb);
  }
}

float operand_amax(Strided x, std::size_t rows, std::size_t cols, int threads) {
  // In storage order: outer lines of the stored matrix, inner elements.
  const auto* v = static_cast<const float*>(x.data);
  const std::size_t sr = x.trans ? cols : rows, sc = x.trans ? rows : cols;
  const std::size_t outer = x.row_major ? sr : sc, inner = x.row_major ? sc : sr;
  constexpr std::size_t kTasks = 64;
  const std::size_t per = (outer + kTasks - 1) / kTasks, tasks = per ? (outer + per - 1) / per : 0;
  std::vector<float> part(tasks, 0.0f);
  // The largest finite |x| is the same whatever the order of the reads.
  parallel_for(threads, tasks, Assign::blocks, [&](std::size_t t) {
    float amax = 0;
    for (std::size_t o = t * per; o < std::min(outer, (t + 1) * per); ++o)
      amax = std::max(amax, kernels::finite_abs_max(v + o * x.ld, inner));
    part[t] = amax;
  });
  float amax = 0;
  for (float p : part) amax = std::max(amax, p);
  return amax;
}

}  // namespace mmaemu::driver
