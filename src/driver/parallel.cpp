// SPDX-License-Identifier: BSD-3-Clause
// What parallel.h declares whichever scheduler runs the tasks: the thread
// count rule (MMA_NUM_THREADS, OMP_NUM_THREADS, the cores). The scheduler
// itself is the library's pool (parallel_pool.cpp) or oneTBB
// (parallel_tbb.cpp), chosen by CMake's MMAEMU_THREADING.
#include "driver/parallel.h"

#include <sched.h>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <thread>

#include "driver/parallel_job.h"

namespace mmaemu::driver {
namespace detail {

thread_local bool t_in_task = false;

namespace {

// Whole numbers 1 .. kMaxThreads; 0 for anything else.
int parse_threads(const char* v) {
  if (!v || !*v) return 0;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  return (*end == '\0' && x > 0 && x <= kMaxThreads) ? static_cast<int>(x) : 0;
}

int cores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) return std::max(1, CPU_COUNT(&set));
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

}  // namespace

int default_threads() {
  if (const int t = parse_threads(std::getenv("MMA_NUM_THREADS"))) return t;
  if (const int t = parse_threads(std::getenv("OMP_NUM_THREADS"))) return t;
  return std::min(cores(), kMaxThreads);
}

int members_wanted(int threads, std::size_t tasks) {
  return static_cast<int>(std::min<std::size_t>(tasks, static_cast<std::size_t>(std::clamp(threads, 1, kMaxThreads))));
}

// MMA_NUM_THREADS is ours: a malformed or out-of-range value is refused
// (OMP_NUM_THREADS belongs to the OpenMP runtime, which reports its own).
static void check_mma_num_threads() {
  const char* v = std::getenv("MMA_NUM_THREADS");
  if (!v || !*v || parse_threads(v)) return;
  throw std::invalid_argument(std::string("MMA_NUM_THREADS='") + v + "': not a whole number from 1 to " +
                              std::to_string(kMaxThreads));
}

}  // namespace detail

void check_threads(int requested) {
  if (requested < 0 || requested > kMaxThreads)
    throw std::invalid_argument("threads = " + std::to_string(requested) + ": not a whole number from 0 to " +
                                std::to_string(kMaxThreads) + " (0: MMA_NUM_THREADS, OMP_NUM_THREADS, all cores)");
}

int thread_count(int requested) {
  check_threads(requested);
  if (requested > 0) return requested;
  detail::check_mma_num_threads();
  return detail::default_threads();
}

}  // namespace mmaemu::driver
