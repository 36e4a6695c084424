// SPDX-License-Identifier: BSD-3-Clause
// The integer units' reference (integer.h; docs/models.md, "Integer units").
//
// Every value is exact in int64: |a_i*b_i| <= 255*255 < 2^16 (u8 x u8; int4
// products are smaller), k <= 1024 (the field table's bound on k) gives a
// sum below 2^26, and c lies in [-2^31, 2^31).
#include "ref/integer.h"

#include <algorithm>
#include <cassert>
#include <cstdint>

#include "formats/format.h"

namespace mmaemu::ref {
namespace {

constexpr int64_t kMinS32 = -(int64_t{1} << 31);
constexpr int64_t kMaxS32 = (int64_t{1} << 31) - 1;

}  // namespace

uint64_t wrap_s32(int64_t v) { return static_cast<uint64_t>(v) & 0xFFFFFFFFull; }

uint64_t clamp_s32(int64_t v) { return wrap_s32(std::clamp(v, kMinS32, kMaxS32)); }

uint64_t integer_step(const ModelRow& row, std::size_t k, const uint64_t* a, const uint64_t* b, uint64_t c) {
  assert(row.accum == Accumulation::integer && k <= static_cast<std::size_t>(row.k));
  const int64_t c0 = int_value(Fmt::s32, c);
  // Per-addition clamping (sat_point = addition): the running sum in k order.
  if (row.overflow == IntOverflow::satfinite && row.sat_point == SatPoint::addition) {
    int64_t s = c0;
    for (std::size_t i = 0; i < k; ++i)
      s = std::clamp(s + int_value(row.in, a[i]) * int_value(row.in_b, b[i]), kMinS32, kMaxS32);
    return wrap_s32(s);
  }
  // One exact sum per instruction, then the overflow rule once.
  int64_t s = c0;
  for (std::size_t i = 0; i < k; ++i) s += int_value(row.in, a[i]) * int_value(row.in_b, b[i]);
  return row.overflow == IntOverflow::satfinite ? clamp_s32(s) : wrap_s32(s);
}

}  // namespace mmaemu::ref
