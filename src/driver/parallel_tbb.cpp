// SPDX-License-Identifier: BSD-3-Clause
// parallel_for (parallel.h) on oneTBB's work-stealing scheduler, built with
// CMake -DMMAEMU_THREADING=tbb (docs/kernels.md, "Threads"). Each calling
// thread has its own task_arena, capped at the process's thread count
// (thread_count(0)) with one slot kept for the caller; oneTBB's workers
// (at most the cores less one, for the whole process) join the arenas that
// have work. A call is a task_group of `threads` members over one Job (the
// pool's hand-out of task indices): the caller spawns the other members,
// runs member 0 and then, in task_group::wait, every member no worker has
// stolen (finding no task left, it returns at once). So the caller never
// waits for a worker that has not started; callers at once each run in
// their own arena and share the workers (no oversubscription, no caller
// waiting for another's arena); the arena isolates a call made from inside
// the application's own TBB tasks from theirs.
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include <atomic>
#include <thread>

#include "driver/parallel.h"
#include "driver/parallel_job.h"
#include "kernels/fp_env.h"

namespace mmaemu::driver {
namespace {

using detail::InTask;
using detail::Job;

// This thread's arena, made at its first call with helpers.
oneapi::tbb::task_arena& arena() {
  thread_local oneapi::tbb::task_arena a(detail::default_threads(), 1);
  return a;
}

// The threads other than the callers that have run a member (pool_workers).
std::atomic<std::size_t> g_helpers{0};
thread_local bool t_counted = false;

void run_member(Job& job, int member, std::thread::id caller) {
  if (!t_counted && std::this_thread::get_id() != caller) {
    t_counted = true;
    g_helpers.fetch_add(1, std::memory_order_relaxed);
  }
  const kernels::FpEnvGuard env;  // oneTBB's workers are not ours: the kernels' environment per member
  const InTask inside;
  job.run(member);
}

}  // namespace

void parallel_for(int threads, std::size_t tasks, Assign assign, TaskRef body) {
  if (tasks == 0) return;
  const kernels::FpEnvGuard env;
  const int want = detail::members_wanted(threads, tasks);
  if (want == 1 || detail::t_in_task) {
    const InTask inside;
    for (std::size_t t = 0; t < tasks; ++t) body(t);
    return;
  }
  Job job(body, tasks, assign, want);
  const std::thread::id caller = std::this_thread::get_id();
  arena().execute([&] {
    oneapi::tbb::task_group group;
    for (int m = 1; m < want; ++m) group.run([&job, m, caller] { run_member(job, m, caller); });
    run_member(job, 0, caller);
    group.wait();
  });
  if (job.error) std::rethrow_exception(job.error);
}

std::size_t pool_workers() { return g_helpers.load(std::memory_order_relaxed); }

}  // namespace mmaemu::driver
