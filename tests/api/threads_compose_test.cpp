// SPDX-License-Identifier: BSD-3-Clause
// Threads that compose (docs/kernels.md, "Threads"), through the C API:
//   - a GEMM above the one-thread threshold (driver::kWorkPerThread) gives
//     the bits of one thread on 1, 2, 3 and 8 threads, for an aligned, a
//     pairwise, an exact, an FMA-chain and a block-scaled row;
//   - 4 application threads each running such GEMMs at once give the same
//     bits, and the pool they share stays within the process's thread
//     count (no team per caller);
//   - the same with a busy competitor process spinning beside them;
//   - GEMMs called from inside the pool's own tasks (nested: they run on
//     their task's thread) give the same bits and never deadlock.
// Nothing is timed: a hang ends at ctest's time-out (tests/api/CMakeLists.txt).
// On a mismatch the message names the row, the thread count or caller, the
// seed, the element and both values in hex.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "driver/parallel.h"
#include "mmaemu/mmaemu.h"

namespace {

// One row: a model and the policy its sgemm runs (block-scaled: the shim's
// policy through mmaemu_sgemm_block_scaled, threads from MMA_NUM_THREADS).
struct Row {
  const char* model;
  const char* policy;
  bool block_scaled;
  const char* path;  // the macro-kernel it exercises
};

const Row kRows[] = {
    {"H100", "fp16", false, "aligned"},    {"MI250", "fp16", false, "pairwise"},
    {"MI100", "fp16", false, "exact"},     {"MI250", "fp32", false, "chain"},
    {"B200", "mxfp8", true, "block-scaled"},
};

// 160 x 320 x 336: 17.2 * 10^6 multiply-adds, above 8 * 2^21, so that even
// 8 threads each get a share (gemm_threads).
constexpr int kM = 160, kN = 320, kK = 336;
constexpr uint64_t kSeed = 2026;

struct Operands {
  std::vector<float> A, B;
};

const Operands& operands() {
  static const Operands ops = [] {
    Operands o{std::vector<float>(std::size_t{kM} * kK), std::vector<float>(std::size_t{kK} * kN)};
    std::mt19937_64 rng(kSeed);
    std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
    for (float& x : o.A) x = dist(rng);
    for (float& x : o.B) x = dist(rng);
    return o;
  }();
  return ops;
}

// The row's product on `threads` threads (0: MMA_NUM_THREADS or the cores);
// empty, the error printed, if the call fails (no doctest assertion: this
// runs on the callers' threads too).
std::vector<float> product(const Row& r, int threads) {
  mmaemu_model* model = nullptr;
  if (mmaemu_model_lookup(r.model, &model) != MMAEMU_OK) {
    std::fprintf(stderr, "%s: %s\n", r.model, mmaemu_last_error());
    return {};
  }
  const Operands& o = operands();
  std::vector<float> C(std::size_t{kM} * kN, 0.0f);
  int status;
  if (r.block_scaled) {
    status = mmaemu_sgemm_block_scaled(model, r.policy, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, kM, kN, kK,
                                       1.0f, o.A.data(), kK, o.B.data(), kN, 0.0f, C.data(), kN);
  } else {
    mmaemu_gemm_options opt;
    mmaemu_gemm_options_init(&opt);
    status = mmaemu_parse_policy(r.policy, &opt);
    opt.threads = threads;
    if (status == MMAEMU_OK)
      status = mmaemu_gemm(model, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, kM, kN, kK, 1.0,
                         o.A.data(), kK, o.B.data(), kN, 0.0, C.data(), kN);
  }
  mmaemu_model_free(model);
  if (status == MMAEMU_OK) return C;
  std::fprintf(stderr, "%s %s on %d threads: %s\n", r.model, r.policy, threads, mmaemu_last_error());
  return {};
}

uint32_t bits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// Elements where got differs from want in bits (the first few printed;
// a failed call counts as every element).
int mismatches(const Row& r, const std::string& where, const std::vector<float>& want, const std::vector<float>& got) {
  if (got.size() != want.size() || want.empty()) return static_cast<int>(std::max<std::size_t>(want.size(), 1));
  int bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (bits(want[i]) == bits(got[i])) continue;
    if (++bad <= 3)
      std::fprintf(stderr, "%s %s (%s) %s, seed %llu, element (%zu, %zu): one thread 0x%08x, got 0x%08x\n", r.model,
                   r.policy, r.path, where.c_str(), static_cast<unsigned long long>(kSeed), i / kN, i % kN,
                   bits(want[i]), bits(got[i]));
  }
  return bad;
}

// The block-scaled sgemm has no thread option: MMA_NUM_THREADS (set only
// while no other thread of this test runs).
void set_threads_env(int threads) {
  if (threads > 0) setenv("MMA_NUM_THREADS", std::to_string(threads).c_str(), 1);
  else unsetenv("MMA_NUM_THREADS");
}

std::vector<float> product_on(const Row& r, int threads) {
  if (r.block_scaled) set_threads_env(threads);
  std::vector<float> C = product(r, threads);
  if (r.block_scaled) unsetenv("MMA_NUM_THREADS");
  return C;
}

// `callers` application threads, each running every row `rounds` times on
// the default thread count; returns the mismatches against `want`.
int concurrent_callers(int callers, int rounds, const std::vector<std::vector<float>>& want) {
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < callers; ++c)
    threads.emplace_back([&, c] {
      for (int round = 0; round < rounds; ++round)
        for (std::size_t i = 0; i < std::size(kRows); ++i) {
          const Row& r = kRows[(i + static_cast<std::size_t>(c)) % std::size(kRows)];
          const std::size_t at = static_cast<std::size_t>(&r - kRows);
          bad += mismatches(r, "caller " + std::to_string(c), want[at], product(r, 0));
        }
    });
  for (std::thread& t : threads) t.join();
  return bad.load();
}

// The one-thread bits of every row.
const std::vector<std::vector<float>>& one_thread() {
  static const std::vector<std::vector<float>> want = [] {
    std::vector<std::vector<float>> w;
    for (const Row& r : kRows) {
      w.push_back(product_on(r, 1));
      REQUIRE_MESSAGE(!w.back().empty(), r.model << " " << r.policy << " failed on one thread");
    }
    return w;
  }();
  return want;
}

// A process that spins until killed (or until this one ends).
pid_t start_competitor() {
  const pid_t p = fork();
  if (p == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    volatile unsigned long spin = 0;  // (volatile: the loop stays)
    for (;;) spin = spin + 1;
  }
  return p;
}

}  // namespace

TEST_CASE("1, 2, 3 and 8 threads give the bits of one thread, every path") {
  const std::vector<std::vector<float>>& want = one_thread();
  for (std::size_t i = 0; i < std::size(kRows); ++i)
    for (int threads : {2, 3, 8}) {
      const int bad = mismatches(kRows[i], std::to_string(threads) + " threads", want[i], product_on(kRows[i], threads));
      CHECK_MESSAGE(bad == 0, kRows[i].model << " " << kRows[i].policy << " on " << threads << " threads: " << bad
                                             << " elements differ");
    }
}

TEST_CASE("4 concurrent callers give the bits of one thread and share one pool") {
  const std::vector<std::vector<float>>& want = one_thread();
  const int cap = mmaemu::driver::thread_count(0);
  // In a child made by fork(): a fresh pool, so that its size counts only
  // these callers' workers (never above the process's thread count less one).
  const pid_t child = fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    const int bad = concurrent_callers(4, 2, want);
    const std::size_t workers = mmaemu::driver::pool_workers();
    if (workers + 1 > static_cast<std::size_t>(std::max(cap, 1)))
      std::fprintf(stderr, "4 callers: %zu pool workers for a thread count of %d\n", workers, cap);
    _exit(bad == 0 && workers + 1 <= static_cast<std::size_t>(std::max(cap, 1)) ? 0 : 1);
  }
  int status = 0;
  REQUIRE(waitpid(child, &status, 0) == child);
  CHECK_MESSAGE((WIFEXITED(status) && WEXITSTATUS(status) == 0), "the child's callers failed (status " << status << ")");
  // And in this process, whose pool has served 8-thread calls already.
  CHECK(concurrent_callers(4, 1, want) == 0);
}

TEST_CASE("4 concurrent callers beside a busy competitor process") {
  const std::vector<std::vector<float>>& want = one_thread();
  const pid_t competitor = start_competitor();
  REQUIRE(competitor > 0);
  const int bad = concurrent_callers(4, 2, want);
  kill(competitor, SIGKILL);
  waitpid(competitor, nullptr, 0);
  CHECK(bad == 0);
}

TEST_CASE("GEMMs inside the pool's tasks (nested calls) give the bits of one thread") {
  const std::vector<std::vector<float>>& want = one_thread();
  std::atomic<int> bad{0};
  const std::size_t rows = std::size(kRows);
  mmaemu::driver::parallel_for(4, 2 * rows, mmaemu::driver::Assign::dynamic, [&](std::size_t t) {
    const Row& r = kRows[t % rows];
    bad += mismatches(r, "nested task " + std::to_string(t), want[t % rows], product(r, 2));  // (block-scaled: the default)
  });
  CHECK(bad.load() == 0);
}
