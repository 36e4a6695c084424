// SPDX-License-Identifier: BSD-3-Clause
// The GEMM entry: quick returns, alpha = 0, the kernel plan, and the
// macro-kernel that runs it (macro.h). Packing is pack.cpp, the BLAS
// epilogue epilogue.cpp; the numerics are the kernels' (kernels/).
#include "driver/gemm.h"

#include <pthread.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "driver/epilogue.h"
#include "driver/macro.h"
#include "kernels/fp_env.h"
#include "kernels/plan.h"

namespace mmaemu::driver {
namespace {

constexpr long kMaxThreads = 4096;

int env_int(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return 0;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  return (*end == '\0' && x > 0 && x <= kMaxThreads) ? static_cast<int>(x) : 0;
}

// MMA_NUM_THREADS is ours: a malformed or out-of-range value is refused
// (OMP_NUM_THREADS belongs to the OpenMP runtime, which reports its own).
int mma_num_threads() {
  const char* v = std::getenv("MMA_NUM_THREADS");
  if (!v || !*v) return 0;
  if (const int t = env_int("MMA_NUM_THREADS")) return t;
  throw std::invalid_argument(std::string("MMA_NUM_THREADS='") + v + "': not a whole number from 1 to " +
                              std::to_string(kMaxThreads));
}

// libgomp's thread pool does not survive fork(): a forked child that starts
// a parallel region waits for the parent's threads forever. A child runs
// every call on its own thread (the bits never depend on the thread count).
bool g_forked_child = false;
[[maybe_unused]] const int g_fork_handler = pthread_atfork(nullptr, nullptr, [] { g_forked_child = true; });

}  // namespace

int thread_count(int requested) {
  if (g_forked_child) return 1;
  if (requested > 0) return requested;
  if (int t = mma_num_threads()) return t;
  if (int t = env_int("OMP_NUM_THREADS")) return t;
#ifdef _OPENMP
  return omp_get_num_procs();
#else
  return 1;
#endif
}

int gemm_threads(const GemmSpec& spec, std::size_t m, std::size_t n, std::size_t k) {
  const int requested = thread_count(spec.threads);
  const std::size_t per = spec.work_per_thread ? spec.work_per_thread : kWorkPerThread;
  const double work = static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(std::max<std::size_t>(k, 1));
  return static_cast<int>(std::clamp(work / static_cast<double>(per), 1.0, static_cast<double>(requested)));
}

void gemm(const GemmSpec& spec, std::size_t m, std::size_t n, std::size_t k, double alpha,
          const Operand& A, const Operand& B, double beta, Fmt c_storage, void* C,
          std::ptrdiff_t ldc) {
  if (m == 0 || n == 0) return;
  const Epilogue epilogue(spec, alpha, beta, c_storage, C, ldc);
  const int threads = gemm_threads(spec, m, n, k);
  fast::FpEnvGuard env_main;
  if (alpha == 0.0) return epilogue.scale_only(m, n, threads);

  const fast::KernelPlan plan = fast::plan(*spec.row, {spec.use_reference, spec.simd_off});
  const GemmCall call{spec, *spec.row, m, n, k, A, B, threads, epilogue, plan};
  switch (plan.macro) {
    case fast::Macro::chain: return run_chain_macro(call);
    case fast::Macro::exact: return run_exact_macro(call);
    case fast::Macro::steps: return run_steps_macro(call);
  }
}

}  // namespace mmaemu::driver
