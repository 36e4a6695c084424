// SPDX-License-Identifier: BSD-3-Clause
// The library's own pool behind parallel_for (parallel.h), the default of
// CMake's MMAEMU_THREADING. Workers are created on demand, never
// destroyed, and sleep between jobs. A job is offered to a worker
// (its `claim` set to kOffered) and the worker woken by bumping its `seq`
// word; a worker that wakes takes the offer (kOffered -> kTaken), runs
// tasks while there are any, and stores the offer's ticket in its `done`
// word. The caller runs tasks too; once every task has been taken it
// withdraws the offers not taken yet (kOffered -> kFree) and waits only
// for the workers that took theirs: a worker that does not get a core
// soon (a busy machine) delays nothing. The words belong to the worker,
// which outlives every job, so no thread touches a job after its caller
// has returned. Waiting (for a job, or for a worker) spins for kSpin, then
// sleeps on the word (std::atomic::wait: a futex on Linux).
#include "driver/parallel.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <mutex>
#include <vector>

#include "driver/parallel_job.h"
#include "kernels/fp_env.h"

namespace mmaemu::driver {
namespace {

using detail::InTask;
using detail::Job;
using detail::t_in_task;

// How long a waiting thread spins before it sleeps: long enough to catch
// the next job of a GEMM's sequence of parallel_for calls, short enough
// not to matter to a thread that needs the core (a scheduler slice is
// milliseconds). A thread whose partner was last seen on its own CPU (the
// two share a core: a busy machine) sleeps at once instead: spinning would
// only keep the partner off the core.
constexpr auto kSpin = std::chrono::microseconds(50);

// Waits until word != old: spins up to `until`, then sleeps.
void wait_change(const std::atomic<uint32_t>& word, uint32_t old, std::chrono::steady_clock::time_point until) {
  if (until == std::chrono::steady_clock::time_point{}) return word.wait(old, std::memory_order_acquire);
  for (unsigned i = 0; word.load(std::memory_order_acquire) == old; ++i) {
    if (i % 64 == 63 && std::chrono::steady_clock::now() >= until) {
      word.wait(old, std::memory_order_acquire);  // returns once the value is not `old`
      return;
    }
    cpu_relax();
  }
}

enum Claim : int { kFree, kOffered, kTaken };

struct Worker {
  std::atomic<uint32_t> seq{0};   // bumped to wake the worker for an offer
  std::atomic<int> claim{kFree};
  std::atomic<uint32_t> done{0};  // the ticket of the last share it ran
  std::atomic<int> cpu{-1};       // where it last ran a share
  // The offer, written before claim = kOffered (release):
  Job* job = nullptr;
  int member = 0;
  uint32_t ticket = 0;
  int caller_cpu = -1;  // where the caller was
};

// The end of a spin that starts now, or none (sleep at once) when the
// partner was last seen on this thread's CPU.
std::chrono::steady_clock::time_point spin_until(int partner_cpu) {
  if (partner_cpu >= 0 && partner_cpu == sched_getcpu()) return {};
  return std::chrono::steady_clock::now() + kSpin;
}

void* worker_main(void* arg) {
  Worker& w = *static_cast<Worker*>(arg);
  const kernels::FpEnvGuard env;  // the kernels' environment, for the thread's life
  t_in_task = true;
  int last_caller = -1;  // the CPU of the last job's caller
  for (uint32_t seen = 0;;) {
    wait_change(w.seq, seen, spin_until(last_caller));
    seen = w.seq.load(std::memory_order_acquire);
    int offered = kOffered;
    if (!w.claim.compare_exchange_strong(offered, kTaken, std::memory_order_acq_rel)) continue;  // withdrawn
    const uint32_t ticket = w.ticket;
    last_caller = w.caller_cpu;
    w.cpu.store(sched_getcpu(), std::memory_order_relaxed);
    w.job->run(w.member);
    w.done.store(ticket, std::memory_order_release);  // the last access to the job
    w.done.notify_one();
  }
  return nullptr;
}

// The workers: those free for a job, and all of them (never freed). One
// pool per process, shared by every caller: `busy_` counts the threads that
// run parallel_for work now (each caller inside a call with helpers, and
// the workers it holds), and no call takes a helper that would bring it
// above the process's cap (thread_count(0), or the call's own count where
// that is larger). A caller that finds the helpers busy runs its tasks
// itself: application threads calling at once run side by side, one thread
// each, instead of each starting a team (no oversubscription).
class Pool {
 public:
  // Enters a call (the caller counted as busy) and takes up to `count`
  // workers, no more than `cap` allows: free ones first, then new ones
  // (fewer if the system refuses a thread: the pool then stays at the
  // size it had reached).
  std::vector<Worker*> acquire(int count, int cap) {
    std::lock_guard<std::mutex> lock(mutex_);
    const int room = std::max(0, std::min(count, cap - busy_ - 1));
    std::vector<Worker*> got;
    got.reserve(static_cast<std::size_t>(room));
    ++busy_;
    while (static_cast<int>(got.size()) < room && !free_.empty()) got.push_back(free_.back()), free_.pop_back();
    while (static_cast<int>(got.size()) < room && !refused_) {
      Worker* w = start_worker();
      if (!w) refused_ = true;
      else got.push_back(w);
    }
    busy_ += static_cast<int>(got.size());
    return got;
  }
  // Leaves a call: its workers are free again.
  void release(const std::vector<Worker*>& workers) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.insert(free_.end(), workers.begin(), workers.end());
    busy_ -= 1 + static_cast<int>(workers.size());
  }
  std::size_t size() {
    std::lock_guard<std::mutex> lock(mutex_);
    return all_.size();
  }
  // The threads the process's calls use together: MMA_NUM_THREADS, else
  // OMP_NUM_THREADS, else the cores (read once per pool).
  int cap() const { return cap_; }

  Pool* previous = nullptr;  // the pool of the parent, after fork() (kept reachable)

 private:
  // A detached thread that blocks the asynchronous signals (a program's
  // handlers run on its own threads); null if it cannot be created.
  Worker* start_worker() {
    auto* w = new (std::nothrow) Worker;
    if (!w) return nullptr;
    sigset_t all, old;
    sigfillset(&all);
    for (int s : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT, SIGSYS}) sigdelset(&all, s);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_t thread;
    pthread_sigmask(SIG_SETMASK, &all, &old);
    const int status = pthread_create(&thread, &attr, worker_main, w);
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    pthread_attr_destroy(&attr);
    if (status != 0) {
      delete w;
      return nullptr;
    }
    pthread_setname_np(thread, "mmaemu-worker");
    all_.push_back(w);
    return w;
  }

  std::mutex mutex_;
  std::vector<Worker*> free_, all_;
  bool refused_ = false;
  int busy_ = 0;
  const int cap_ = detail::default_threads();
};

// The process's pool. A child made by fork() has none of the parent's
// threads: it starts a new pool (the old one, perhaps locked mid-call by
// another thread of the parent, is abandoned).
std::atomic<Pool*> g_pool{nullptr};
std::once_flag g_pool_once;

Pool& pool() {
  std::call_once(g_pool_once, [] {
    g_pool.store(new Pool, std::memory_order_release);
    pthread_atfork(nullptr, nullptr, [] {
      Pool* fresh = new Pool;
      fresh->previous = g_pool.load(std::memory_order_relaxed);
      g_pool.store(fresh, std::memory_order_release);
    });
  });
  return *g_pool.load(std::memory_order_acquire);
}

}  // namespace

void parallel_for(int threads, std::size_t tasks, Assign assign, TaskRef body) {
  if (tasks == 0) return;
  const kernels::FpEnvGuard env;
  const int want = detail::members_wanted(threads, tasks);
  if (want == 1 || t_in_task) {
    const InTask inside;
    for (std::size_t t = 0; t < tasks; ++t) body(t);
    return;
  }
  Pool& p = pool();
  struct Lease {  // the workers and the caller's place, given back on every path
    Pool& pool;
    const std::vector<Worker*> workers;
    ~Lease() { pool.release(workers); }
  } lease{p, p.acquire(want - 1, std::max(p.cap(), want))};
  const std::vector<Worker*>& workers = lease.workers;
  Job job(body, tasks, assign, static_cast<int>(workers.size()) + 1);
  const int here = sched_getcpu();
  for (std::size_t i = 0; i < workers.size(); ++i) {
    Worker& w = *workers[i];
    w.job = &job;
    w.member = static_cast<int>(i) + 1;
    w.caller_cpu = here;
    w.ticket = w.done.load(std::memory_order_relaxed) + 1;
    w.claim.store(kOffered, std::memory_order_release);
    w.seq.fetch_add(1, std::memory_order_release);
    w.seq.notify_one();
  }
  const InTask inside;
  job.run(0);
  for (Worker* w : workers) {  // every task has been taken: withdraw the offers not taken yet
    int offered = kOffered;
    if (w->claim.compare_exchange_strong(offered, kFree, std::memory_order_acq_rel)) continue;
    const auto until = spin_until(w->cpu.load(std::memory_order_relaxed));
    for (uint32_t d; (d = w->done.load(std::memory_order_acquire)) != w->ticket;) wait_change(w->done, d, until);
  }
  if (job.error) std::rethrow_exception(job.error);
}

std::size_t pool_workers() { return pool().size(); }

}  // namespace mmaemu::driver
