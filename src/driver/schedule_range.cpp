// SPDX-License-Identifier: BSD-3-Clause
// The per-k-range driver entry (add_range, schedule_parts.h): a schedule's
// pieces on the plan of its call, inside the steps macro-kernel through an
// accumulator sink (acc_sink.h) where the pieces are whole steps.
#include <vector>

#include "driver/acc_sink.h"
#include "driver/macro.h"
#include "driver/schedule_parts.h"
#include "kernels/fp_env.h"
#include "kernels/plan.h"
#include "models/row_facts.h"

namespace mmaemu::driver {

bool in_kernel(const kernels::KernelPlan& plan, const ModelRow& row, std::size_t interval, std::size_t len) {
  const std::size_t P = interval == 0 || interval > len ? len : interval;
  return plan.macro == kernels::Macro::steps && sink_fits(P, len, step_k(row));
}

// On the steps macro-kernel: one call over the range, the pieces added
// into dst as each finishes (B packed once per chunk). Elsewhere, and for
// pieces not made of whole steps: a GEMM per piece into a scratch block,
// then dst += it.
template <typename T>
void add_range(const GemmSpec& spec, const kernels::KernelPlan& plan, const Block& b, KRange r, std::size_t interval, const Operand& A,
               const Operand& B, T* dst) {
  if (b.m == 0 || b.nc == 0 || r.len == 0) return;
  const std::size_t P = interval == 0 || interval > r.len ? r.len : interval;
  const ModelRow& row = *spec.row;
  const Fmt F = sizeof(T) == 8 ? Fmt::fp64 : Fmt::fp32;
  if (!in_kernel(plan, row, interval, r.len)) {
    std::vector<T> piece(b.m * b.nc);
    for (std::size_t at = 0; at < r.len; at += P) {
      unit_piece(spec, plan, b, {r.k0 + at, std::min(P, r.len - at)}, A, B, F, piece.data());
      add_into(b, dst, piece.data());
    }
    return;
  }
  GemmSpec s = spec;
  s.accumulate_into_c = false;
  s.threads = b.threads;
  const Epilogue unused(s, 1.0, 0.0, F, dst, static_cast<std::ptrdiff_t>(b.nc));  // the sink stores
  const int threads = gemm_threads(s, b.m, b.nc, r.len);
  kernels::FpEnvGuard env;
  const RangeSink sink{P, dst, static_cast<std::ptrdiff_t>(b.nc), F};
  const Operand a = shifted(A, 0, r.k0), bb = shifted(B, r.k0, b.j0);
  run_steps_macro(GemmCall{{b.m, b.nc, r.len, a, bb, threads, unused, plan}, s, row, &sink});
}

template void add_range(const GemmSpec&, const kernels::KernelPlan&, const Block&, KRange, std::size_t, const Operand&,
                        const Operand&, float*);
template void add_range(const GemmSpec&, const kernels::KernelPlan&, const Block&, KRange, std::size_t, const Operand&,
                        const Operand&, double*);

}  // namespace mmaemu::driver
