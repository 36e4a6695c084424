// SPDX-License-Identifier: BSD-3-Clause
// The per-k-range driver entry (add_range, schedule_parts.h) and the
// promotion helpers of the steps macro-kernel (schedule_sink.h).
#include "driver/schedule_sink.h"

#include <bit>
#include <type_traits>
#include <vector>

#include "driver/schedule_parts.h"
#include "formats/fast_convert.h"
#include "kernels/fp_env.h"
#include "kernels/plan.h"
#include "models/row_facts.h"

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

bool in_kernel(const GemmSpec& spec, std::size_t interval, std::size_t len) {
  const std::size_t P = interval == 0 || interval > len ? len : interval;
  return fast::plan(*spec.row, {spec.use_reference, spec.simd_off}).macro == fast::Macro::steps &&
         sink_fits(P, len, step_k(*spec.row));
}

// On the steps macro-kernel: one call over the range, the pieces added
// into dst as each finishes (B packed once per chunk). Elsewhere, and for
// pieces not made of whole steps: a GEMM per piece into a scratch block,
// then dst += it.
template <typename T>
void add_range(const GemmSpec& spec, const Block& b, KRange r, std::size_t interval, const Operand& A,
               const Operand& B, T* dst) {
  if (b.m == 0 || b.nc == 0 || r.len == 0) return;
  const std::size_t P = interval == 0 || interval > r.len ? r.len : interval;
  const ModelRow& row = *spec.row;
  const Fmt F = sizeof(T) == 8 ? Fmt::fp64 : Fmt::fp32;
  if (!in_kernel(spec, interval, r.len)) {
    std::vector<T> piece(b.m * b.nc);
    for (std::size_t at = 0; at < r.len; at += P) {
      unit_piece(spec, b, {r.k0 + at, std::min(P, r.len - at)}, A, B, F, piece.data());
      add_into(b, dst, piece.data());
    }
    return;
  }
  GemmSpec s = spec;
  s.accumulate_into_c = false;
  s.threads = b.threads;
  const fast::KernelPlan plan = fast::plan(row, {spec.use_reference, spec.simd_off});
  const Epilogue unused(s, 1.0, 0.0, F, dst, static_cast<std::ptrdiff_t>(b.nc));  // the sink stores
  const int threads = gemm_threads(s, b.m, b.nc, r.len);
  fast::FpEnvGuard env;
  const RangeSink sink{P, dst, static_cast<std::ptrdiff_t>(b.nc), F};
  const Operand a = shifted(A, 0, r.k0), bb = shifted(B, r.k0, b.j0);
  run_steps_macro(GemmCall{{b.m, b.nc, r.len, a, bb, threads, unused, plan}, s, row, &sink});
}

template void add_range(const GemmSpec&, const Block&, KRange, std::size_t, const Operand&, const Operand&, float*);
template void add_range(const GemmSpec&, const Block&, KRange, std::size_t, const Operand&, const Operand&, double*);

}  // namespace mmaemu::driver
