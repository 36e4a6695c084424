// SPDX-License-Identifier: BSD-3-Clause
// The library's threads (docs/kernels.md, "Threads"): a parallel-for over
// a count of tasks, the caller taking part, on one of two schedulers chosen
// at build time (CMake MMAEMU_THREADING): `pool` (default), the library's
// own process-wide pool (parallel_pool.cpp), or `tbb`, oneTBB's work
// stealing in a task_arena per calling thread (parallel_tbb.cpp). Callers
// share the threads: those running calls at once stay within the process's
// thread count, and a caller whose helpers are busy runs its tasks itself.
// The pool's waiting threads spin for microseconds, then sleep (futex).
// After fork(), the pool starts afresh in the child; oneTBB starts no
// workers there (a child's calls run on their calling thread).
// A scheduler must only provide this: tasks are independent, run in any
// order on any thread; a task may not wait for another. The driver's tasks
// partition only M x N: the bits never depend on the thread count, on the
// scheduler, or on which thread runs a task.
#pragma once

#include <cstddef>

namespace mmaemu::driver {

/// The most threads a call may ask for (MMA_NUM_THREADS, the C API's and
/// Python's `threads`); more is refused where it is asked for.
inline constexpr int kMaxThreads = 4096;

/// Throws std::invalid_argument, naming the range, for a thread count
/// asked for outside 0 .. kMaxThreads (0: the default below).
void check_threads(int requested);

/// The threads a call with `requested` uses: requested if > 0, else
/// MMA_NUM_THREADS, OMP_NUM_THREADS, then the cores this process may run
/// on. Throws std::invalid_argument for a malformed MMA_NUM_THREADS or a
/// request outside 0 .. kMaxThreads.
int thread_count(int requested);

/// How parallel_for hands out its tasks to threads.
enum class Assign : unsigned char {
  blocks,   ///< in contiguous blocks, one per thread (OpenMP's static); a
            ///< thread done with its block takes the rest of the others'
  dynamic,  ///< one at a time, in order, to whichever thread is free
};

/// A reference to a task body, body(task); no copy, no allocation. The
/// body must outlive the parallel_for call it is given to.
class TaskRef {
 public:
  template <typename F>
  TaskRef(const F& f)  // NOLINT: implicit, so that a lambda can be passed
      : object_(&f), call_([](const void* o, std::size_t t) { (*static_cast<const F*>(o))(t); }) {}
  void operator()(std::size_t task) const { call_(object_, task); }

 private:
  const void* object_;
  void (*call_)(const void*, std::size_t);
};

/// Runs body(t) for every t in [0, tasks) on at most `threads` threads,
/// the caller one of them, and returns when every task has run. Fewer
/// threads run when there are fewer tasks, when called from inside a task
/// (nested calls run on their own thread), when other calls hold the
/// helpers (the threads of all calls at once stay within thread_count(0),
/// or this call's `threads` where larger; the caller always runs), or when
/// the system cannot create more. Every task runs under the kernels' floating-point
/// environment (kernels/fp_env.h: round to nearest, no FTZ/DAZ), the
/// caller's restored on return. The caller never waits for a worker that
/// has not started: what it would have run, the others run. The first
/// exception a task throws is rethrown here, once the others have stopped
/// (tasks not yet started are skipped).
void parallel_for(int threads, std::size_t tasks, Assign assign, TaskRef body);

/// Helpers so far (tests): pool workers started, at most max(thread_count(0), the largest
/// `threads` of a call) less one (the caller); under oneTBB, its workers that ran a share.
std::size_t pool_workers();

/// One spin-wait step of a thread waiting on another (the pool's and the
/// pipeline's waits): the CPU's pause hint, so a sibling hyperthread runs on.
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace mmaemu::driver
