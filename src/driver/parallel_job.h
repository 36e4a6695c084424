// SPDX-License-Identifier: BSD-3-Clause
// What the two schedulers behind parallel_for (parallel.h) share: one
// call's tasks handed out to its members (Job), the mark of a thread that
// runs tasks (a nested call then runs inline), and the process's default
// thread count. The library's own pool is parallel_pool.cpp; the oneTBB
// one (CMake -DMMAEMU_THREADING=tbb) is parallel_tbb.cpp.
#pragma once

#include <atomic>
#include <cstddef>
#include <exception>
#include <mutex>
#include <vector>

#include "driver/parallel.h"

namespace mmaemu::driver::detail {

// A range of tasks handed out from its front, one at a time.
struct alignas(64) Range {
  std::atomic<std::size_t> next{0};
  std::size_t end = 0;
  bool take(std::size_t& t) { return (t = next.fetch_add(1, std::memory_order_relaxed)) < end; }
};

// One parallel_for call, on its caller's stack. Dynamic: one range of all
// the tasks. Blocks: a range per member, which takes its own first and
// then the others' (so a member that starts late, or is preempted, leaves
// its block to the others): each task still runs exactly once.
struct Job {
  Job(TaskRef b, std::size_t n, Assign a, int members)
      : body(b), tasks(n), ranges(a == Assign::blocks ? static_cast<std::size_t>(members) : 1) {
    for (std::size_t i = 0; i < ranges.size(); ++i) {
      ranges[i].next.store(tasks * i / ranges.size(), std::memory_order_relaxed);
      ranges[i].end = tasks * (i + 1) / ranges.size();
    }
  }
  const TaskRef body;
  const std::size_t tasks;
  std::vector<Range> ranges;  // blocks: one per member (the caller 0, helpers 1..)
  std::mutex error_mutex;
  std::exception_ptr error;

  // Member `member`'s share of the tasks; an exception ends the job early.
  void run(int member) {
    const std::size_t r = ranges.size(), first = static_cast<std::size_t>(member) % r;
    try {
      for (std::size_t j = 0; j < r; ++j)
        for (std::size_t t; ranges[(first + j) % r].take(t);) body(t);
    } catch (...) {
      std::lock_guard<std::mutex> lock(error_mutex);
      if (!error) error = std::current_exception();
      for (Range& g : ranges) g.next.store(g.end, std::memory_order_relaxed);  // the rest is skipped
    }
  }
};

// True while this thread runs tasks (a nested call then runs inline).
extern thread_local bool t_in_task;
struct InTask {
  const bool saved = t_in_task;
  InTask() { t_in_task = true; }
  ~InTask() { t_in_task = saved; }
  InTask(const InTask&) = delete;
  InTask& operator=(const InTask&) = delete;
};

// thread_count(0) without its exception (a malformed MMA_NUM_THREADS is
// reported where a call reads it: the cap then counts the cores).
int default_threads();

// The threads a call of `threads` on `tasks` tasks asks for: 1 .. tasks.
int members_wanted(int threads, std::size_t tasks);

}  // namespace mmaemu::driver::detail
