// SPDX-License-Identifier: BSD-3-Clause
// The library's thread pool (driver/parallel.h): every task runs once under
// either assignment and any thread count; nested calls, exceptions, the
// floating-point environment; concurrent callers and oversubscription (a
// hang would end at ctest's time-out, nothing is timed); and idle workers
// that sleep instead of spinning (CPU time, not wall time); and the GEMM's
// rule for how many threads a product of a given size gets (driver/gemm.h);
// the few-columns pipeline (driver/parallel_pipeline.h): items once, in
// their dependency order, exceptions.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#ifdef MMAEMU_THREADING_TBB
#include <oneapi/tbb/info.h>
#endif

#include "driver/gemm.h"
#include "driver/parallel.h"
#include "driver/parallel_pipeline.h"

using namespace mmaemu::driver;

namespace {

// Runs tasks [0, n) and returns how often each ran.
std::vector<int> run_counts(int threads, std::size_t n, Assign assign) {
  std::vector<std::atomic<int>> hits(n);
  parallel_for(threads, n, assign, [&](std::size_t t) { hits[t].fetch_add(1); });
  std::vector<int> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = hits[i].load();
  return out;
}

// Whether a call of 4 threads gets a helper however long its caller takes:
// the pool starts the call's helpers on any number of cores; oneTBB's arena
// holds the process's thread count (thread_count(0)) and its workers number
// the cores this process may run on less one (info::default_concurrency
// follows the affinity mask), so on one core, or with a thread count of 1,
// the caller is alone.
bool helper_comes() {
#ifdef MMAEMU_THREADING_TBB
  return thread_count(0) > 1 && oneapi::tbb::info::default_concurrency() > 1;
#else
  return true;
#endif
}

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace

TEST_CASE("every task runs exactly once") {
  for (Assign assign : {Assign::blocks, Assign::dynamic})
    for (int threads = 1; threads <= 5; ++threads)
      for (std::size_t n : {0u, 1u, 2u, 3u, 7u, 64u, 1000u}) {
        const std::vector<int> hits = run_counts(threads, n, assign);
        for (std::size_t t = 0; t < n; ++t)
          CHECK_MESSAGE(hits[t] == 1, "task " << t << " of " << n << " ran " << hits[t] << " times, threads "
                                              << threads << (assign == Assign::blocks ? " blocks" : " dynamic"));
      }
}

TEST_CASE("workers run tasks where a helper can come; else the caller runs them all") {
  // Where a helper comes (helper_comes), the caller's tasks wait until one
  // has run a task (a helper that never came would end at ctest's
  // time-out); elsewhere (oneTBB on one core, or a thread count of 1) no
  // helper may run any and the caller runs all 64. Either assignment.
  const bool helper = helper_comes();
  INFO("helper expected: " << helper << ", thread count " << thread_count(0));
  for (Assign assign : {Assign::blocks, Assign::dynamic}) {
    const std::thread::id caller = std::this_thread::get_id();
    std::atomic<int> by_workers{0}, by_caller{0};
    parallel_for(4, 64, assign, [&](std::size_t) {
      if (std::this_thread::get_id() != caller) {
        by_workers.fetch_add(1);
      } else {
        by_caller.fetch_add(1);
        while (helper && by_workers.load() == 0) std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
    });
    CHECK(by_workers.load() + by_caller.load() == 64);
    if (helper) CHECK(by_workers.load() >= 1);
    else CHECK(by_caller.load() == 64);
  }
  if (helper) CHECK(pool_workers() >= 1);
}

TEST_CASE("a nested call runs every task on its own thread") {
  std::atomic<int> inner{0};
  parallel_for(3, 6, Assign::dynamic, [&](std::size_t) {
    const std::thread::id me = std::this_thread::get_id();
    parallel_for(3, 10, Assign::dynamic, [&](std::size_t) {
      CHECK(std::this_thread::get_id() == me);
      inner.fetch_add(1);
    });
  });
  CHECK(inner.load() == 60);
}

TEST_CASE("the first exception reaches the caller; the pool still works") {
  for (Assign assign : {Assign::blocks, Assign::dynamic}) {
    std::atomic<int> ran{0};
    CHECK_THROWS_WITH_AS(parallel_for(3, 100, assign,
                                      [&](std::size_t t) {
                                        ran.fetch_add(1);
                                        if (t == 5) throw std::runtime_error("task 5");
                                      }),
                         "task 5", std::runtime_error);
    CHECK(ran.load() >= 1);
    const std::vector<int> hits = run_counts(3, 50, assign);
    for (int h : hits) CHECK(h == 1);
  }
}

#if defined(__x86_64__) || defined(__i386__)
TEST_CASE("tasks run in the kernels' floating-point environment; the caller's is restored") {
  const unsigned saved = _mm_getcsr();
  const unsigned caller = saved | 0x8040u | 0x6000u;  // FTZ, DAZ, round toward zero
  _mm_setcsr(caller);
  std::vector<unsigned> seen(16);
  parallel_for(4, seen.size(), Assign::dynamic, [&](std::size_t t) { seen[t] = _mm_getcsr(); });
  const unsigned after = _mm_getcsr();
  _mm_setcsr(saved);
  for (unsigned csr : seen) CHECK_MESSAGE((csr & (0x8040u | 0x6000u)) == 0u, "MXCSR 0x" << std::hex << csr);
  CHECK(after == caller);
}
#endif

TEST_CASE("concurrent callers and more threads than cores") {
  constexpr int kCallers = 4, kRounds = 300;
  std::atomic<long> total{0};
  std::vector<std::thread> callers;
  for (int c = 0; c < kCallers; ++c)
    callers.emplace_back([&, c] {
      for (int r = 0; r < kRounds; ++r)
        parallel_for(3 + c % 2, 17, r % 2 ? Assign::dynamic : Assign::blocks,
                     [&](std::size_t t) { total.fetch_add(static_cast<long>(t) + 1); });
    });
  for (std::thread& t : callers) t.join();
  CHECK(total.load() == static_cast<long>(kCallers) * kRounds * (17 * 18 / 2));
}

// One pool per process: while a call holds every helper the process's
// thread count allows, another caller runs all of its tasks itself, at
// once (no new worker, no wait for the busy ones).
TEST_CASE("a caller whose helpers are busy runs its tasks itself") {
  const int cap = thread_count(0);
  std::atomic<int> started{0};
  std::atomic<bool> release{false};
  std::thread holder([&] {
    parallel_for(cap, static_cast<std::size_t>(cap), Assign::blocks, [&](std::size_t) {
      started.fetch_add(1);
      while (!release.load()) std::this_thread::sleep_for(std::chrono::microseconds(200));
    });
  });
  while (started.load() < cap) std::this_thread::sleep_for(std::chrono::microseconds(200));
  const std::size_t workers = pool_workers();
  const std::thread::id me = std::this_thread::get_id();
  std::atomic<int> elsewhere{0}, ran{0};
  parallel_for(cap, 64, Assign::dynamic, [&](std::size_t) {
    ran.fetch_add(1);
    if (std::this_thread::get_id() != me) elsewhere.fetch_add(1);
  });
  release.store(true);
  holder.join();
  CHECK(ran.load() == 64);
  CHECK_MESSAGE(elsewhere.load() == 0, elsewhere.load() << " tasks ran on another thread while the helpers were busy");
  CHECK(pool_workers() == workers);
}

// Application threads calling at once share the pool: in a child made by
// fork() (a fresh pool), 4 callers asking for the process's thread count
// start at most that count less one workers between them (one team per
// caller would start up to 4 times as many).
TEST_CASE("concurrent callers start no more workers than the thread count") {
  const int cap = thread_count(0);
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    std::atomic<long> total{0};
    std::vector<std::thread> callers;
    for (int c = 0; c < 4; ++c)
      callers.emplace_back([&] {
        for (int r = 0; r < 200; ++r)
          parallel_for(cap, 32, Assign::dynamic, [&](std::size_t t) {
            long s = 0;  // tasks of some microseconds, so that the callers overlap
            for (long i = 0; i < 4000; ++i) s += i ^ static_cast<long>(t);
            total.fetch_add(static_cast<long>(t) + 1 + (s == -1));
          });
      });
    for (std::thread& t : callers) t.join();
    const bool ok = total.load() == 4L * 200 * (32 * 33 / 2) && pool_workers() + 1 <= static_cast<std::size_t>(cap);
    if (!ok) std::fprintf(stderr, "%zu workers for a thread count of %d, total %ld\n", pool_workers(), cap, total.load());
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
}

// After a job the workers spin for microseconds, then sleep: an idle
// process uses (almost) no CPU. (An OpenMP runtime's default wait spins
// about 300,000 pause instructions, milliseconds, per worker.)
TEST_CASE("idle workers sleep") {
  std::atomic<long> sink{0};
  parallel_for(4, 64, Assign::dynamic, [&](std::size_t t) {
    long s = 0;
    for (long i = 0; i < 20000; ++i) s += i ^ static_cast<long>(t);
    sink.fetch_add(s);
  });
  const double before = process_cpu_seconds();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const double idle = process_cpu_seconds() - before;
  CHECK_MESSAGE(idle < 0.003, "the idle pool used " << idle * 1e3 << " ms of CPU in 200 ms");
  CHECK(sink.load() != 0);
}

TEST_CASE("thread counts outside 0 .. kMaxThreads are refused, naming the range") {
  CHECK_THROWS_WITH_AS(thread_count(-1), doctest::Contains("not a whole number from 0 to 4096"), std::invalid_argument);
  CHECK_THROWS_AS(thread_count(kMaxThreads + 1), std::invalid_argument);
  CHECK(thread_count(kMaxThreads) == kMaxThreads);
  CHECK(thread_count(3) == 3);
  CHECK(thread_count(0) >= 1);
}

// The GEMM's thread rule (driver/gemm.h, kWorkPerThread = 2^21 multiply-adds
// per thread): with 2 threads asked for, 128^3 (exactly 2^21) runs on one,
// 162^3 and 163^3 (past 2 * 2^21) on two, 161^3 (just below) on one.
TEST_CASE("gemm_threads: one thread at 128^3, two from about 162^3 (threads = 2)") {
  mmaemu::driver::GemmSpec spec{};
  spec.threads = 2;
  CHECK(kWorkPerThread == std::size_t{1} << 21);
  CHECK(gemm_threads(spec, 128, 128, 128) == 1);
  CHECK(gemm_threads(spec, 161, 161, 161) == 1);
  CHECK(gemm_threads(spec, 162, 162, 162) == 2);
  CHECK(gemm_threads(spec, 163, 163, 163) == 2);
  CHECK(gemm_threads(spec, 4096, 4096, 4096) == 2);  // never more than asked for
  CHECK(gemm_threads(spec, 128, 128, 0) == 1);       // k = 0 counts as 1
  spec.work_per_thread = 1;                          // the tests' override
  CHECK(gemm_threads(spec, 2, 1, 1) == 2);
}

// ---------------------------------------------------------------- run_pipeline

TEST_CASE("run_pipeline: every item once, in the dependency order, any thread count and depth") {
  // pack(c) after every stream ran chunk c - depth (its slot's previous
  // user), run(r, c) after pack(c) and after run(r, c - 1); each slot holds
  // the chunk packed into it while a stream reads it.
  for (int threads : {1, 2, 3, 4})
    for (std::size_t depth : {1, 2, 3, 7})
      for (std::size_t streams : {1, 2, 5}) {
        const std::size_t chunks = 37;
        std::vector<std::atomic<int>> packed(chunks), ran(streams * chunks);
        std::vector<std::atomic<std::size_t>> slot(depth);
        std::vector<std::atomic<std::size_t>> next(streams);
        std::atomic<int> bad{0};
        run_pipeline(
            threads, streams, chunks, depth,
            [&](std::size_t c, std::size_t s, std::size_t) {
              if (s != c % depth) ++bad;
              for (std::size_t r = 0; r < streams && c >= depth; ++r)
                if (ran[r * chunks + c - depth].load() != 1) ++bad;  // the slot's last user is done
              slot[s].store(c);
              packed[c].fetch_add(1);
            },
            [&](std::size_t r, std::size_t c, std::size_t s) {
              if (packed[c].load() != 1 || slot[s].load() != c || next[r].load() != c) ++bad;
              if (ran[r * chunks + c].fetch_add(1) != 0) ++bad;
              next[r].store(c + 1);
            });
        CHECK_MESSAGE(bad.load() == 0, "threads " << threads << " depth " << depth << " streams " << streams);
        for (std::size_t c = 0; c < chunks; ++c) CHECK(packed[c].load() == 1);
        for (std::size_t i = 0; i < streams * chunks; ++i) CHECK(ran[i].load() == 1);
      }
}

TEST_CASE("run_pipeline: an item's exception reaches the caller; nested and empty pipelines") {
  for (int threads : {1, 2, 3}) {
    std::atomic<int> runs{0};
    CHECK_THROWS_AS(run_pipeline(
                        threads, 3, 50, 2, [](std::size_t, std::size_t, std::size_t) {},
                        [&](std::size_t r, std::size_t c, std::size_t) {
                          ++runs;
                          if (r == 1 && c == 20) throw std::runtime_error("item");
                        }),
                    std::runtime_error);
    CHECK(runs.load() < 150);  // the rest was skipped
  }
  std::atomic<int> items{0};
  parallel_for(2, 4, Assign::dynamic, [&](std::size_t) {  // a pipeline inside a task: on its own thread
    run_pipeline(
        2, 2, 5, 2, [&](std::size_t, std::size_t, std::size_t) { ++items; },
        [&](std::size_t, std::size_t, std::size_t) { ++items; });
  });
  CHECK(items.load() == 4 * (5 + 2 * 5));
  run_pipeline(2, 0, 5, 2, [&](std::size_t, std::size_t, std::size_t) { ++items; },
               [&](std::size_t, std::size_t, std::size_t) { ++items; });
  CHECK(items.load() == 4 * 15);
}
