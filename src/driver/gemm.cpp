// SPDX-License-Identifier: BSD-3-Clause
// The GEMM entry of block-FMA rows and block-scaled units alike: quick
// returns, alpha = 0, the kernel plan (made once per call), the thread
// count, and the unit kind's macro-kernel that runs it (macro.h). Packing is pack.cpp, the BLAS
// epilogue epilogue.cpp; the numerics are the kernels' (kernels/).
#include "driver/gemm.h"

#include <algorithm>

#include "driver/epilogue.h"
#include "driver/macro.h"
#include "kernels/fp_env.h"
#include "kernels/plan.h"

namespace mmaemu::driver {

int work_threads(int requested, std::size_t m, std::size_t n, std::size_t k, std::size_t per) {
  const int threads = thread_count(requested);
  const double work = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(std::max<std::size_t>(k, 1));
  return static_cast<int>(
      std::clamp(work / static_cast<double>(per ? per : kWorkPerThread), 1.0, static_cast<double>(threads)));
}

int gemm_threads(const GemmSpec& spec, std::size_t m, std::size_t n, std::size_t k) {
  return work_threads(spec.threads, m, n, k, spec.work_per_thread);
}

kernels::KernelPlan plan_of(const GemmSpec& spec) {
  const kernels::PlanOptions options{spec.use_reference, spec.simd_off};
  return spec.scaled ? kernels::plan(*spec.scaled->unit, options) : kernels::plan(*spec.row, options);
}

void gemm(const GemmSpec& spec, std::size_t m, std::size_t n, std::size_t k, double alpha,
          const Operand& A, const Operand& B, double beta, Fmt c_storage, void* C,
          std::ptrdiff_t ldc) {
  if (spec.scaled) check_scaled(spec, k, A, B, c_storage);
  if (m == 0 || n == 0) return;
  gemm_on_plan(spec, plan_of(spec), m, n, k, alpha, A, B, beta, c_storage, C, ldc);
}

void gemm_on_plan(const GemmSpec& spec, const kernels::KernelPlan& plan, std::size_t m, std::size_t n, std::size_t k,
                  double alpha, const Operand& A, const Operand& B, double beta, Fmt c_storage, void* C,
                  std::ptrdiff_t ldc) {
  const Epilogue epilogue(spec, alpha, beta, c_storage, C, ldc);
  const int threads = gemm_threads(spec, m, n, k);
  kernels::FpEnvGuard env_main;
  if (epilogue.alpha() == 0.0) return epilogue.scale_only(m, n, threads);
  // The unit kind's loop nest (unit_kinds.cpp): no switch over kinds here.
  unit_kind(plan.macro).run({m, n, k, A, B, threads, epilogue, plan}, spec);
}

}  // namespace mmaemu::driver
