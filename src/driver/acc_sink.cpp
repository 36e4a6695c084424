// SPDX-License-Identifier: BSD-3-Clause
// The accumulator sink (acc_sink.h): the additions of a macro-kernel's
// partial sums into a schedule's main accumulator.
#include "driver/acc_sink.h"

#include <bit>
#include <type_traits>

#include "formats/fast_convert.h"

namespace mmaemu::driver {

bool sink_fits(std::size_t interval, std::size_t k, std::size_t step) {
  return interval >= k || (interval > 0 && interval % step == 0);
}

namespace {

template <typename U>
bool all_finite_fp16(const U* __restrict acc, std::size_t count) {
  U special = 0;
  for (std::size_t w = 0; w < count; ++w) special += (acc[w] & 0x7C00u) == 0x7C00u;
  return special == 0;
}

// d[w] += acc[w] widened (finite fp16 results), one RNE addition each.
template <typename U>
void add_widened_fp16(float* __restrict d, const U* __restrict acc, std::size_t count) {
  for (std::size_t w = 0; w < count; ++w)
    d[w] += std::bit_cast<float>(widen_finite_fp16(static_cast<uint32_t>(acc[w])));
}

template <typename T, typename U>
void add_row(const RangeSink& s, const ModelRow& row, std::size_t i, std::size_t j0, std::size_t count, const U* acc) {
  using Bits = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
  T* d = static_cast<T*>(s.dst) + static_cast<std::ptrdiff_t>(i) * s.ld + static_cast<std::ptrdiff_t>(j0);
  if (row.out == s.main) {
    for (std::size_t w = 0; w < count; ++w) d[w] += std::bit_cast<T>(static_cast<Bits>(acc[w]));
    return;
  }
  if constexpr (sizeof(T) == 4)
    if (row.out == Fmt::fp16 && all_finite_fp16(acc, count)) return add_widened_fp16(d, acc, count);
  for (std::size_t w = 0; w < count; ++w) d[w] += std::bit_cast<T>(static_cast<Bits>(convert_fast(row.out, s.main, acc[w])));
}

template <typename U>
void add_any(const RangeSink& s, const ModelRow& row, std::size_t i, std::size_t j0, std::size_t count, const U* acc) {
  if (s.main == Fmt::fp64) add_row<double>(s, row, i, j0, count, acc);
  else add_row<float>(s, row, i, j0, count, acc);
}

}  // namespace

void sink_add(const RangeSink& s, const ModelRow& row, std::size_t i, std::size_t j0, std::size_t count,
              const uint32_t* acc) {
  add_any(s, row, i, j0, count, acc);
}
void sink_add(const RangeSink& s, const ModelRow& row, std::size_t i, std::size_t j0, std::size_t count,
              const uint64_t* acc) {
  add_any(s, row, i, j0, count, acc);
}

}  // namespace mmaemu::driver
