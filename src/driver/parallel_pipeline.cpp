// SPDX-License-Identifier: BSD-3-Clause
// run_pipeline (parallel_pipeline.h): each member of one parallel_for call
// loops over the items that are ready, claiming them with atomics; an
// epoch counter, bumped after every item, wakes members that found nothing
// to do.
#include "driver/parallel_pipeline.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <memory>
#include <mutex>

#include "driver/parallel.h"

namespace mmaemu::driver {
namespace {

// How long a member with nothing to do spins before it sleeps: a chunk's
// item takes tens of microseconds, a descheduled thread's a time slice.
constexpr auto kSpin = std::chrono::microseconds(20);

struct alignas(64) Stream {
  std::atomic<std::size_t> next{0};  // the next chunk to run (release: its chains are stored)
  std::atomic<bool> held{false};     // a thread runs one of its chunks
};

class Pipeline {
 public:
  Pipeline(std::size_t streams, std::size_t chunks, std::size_t depth, PipelineStep pack, PipelineStep run)
      : streams_(streams), chunks_(chunks), depth_(depth), pack_(pack), run_(run),
        stream_(std::make_unique<Stream[]>(streams)), packed_(std::make_unique<std::atomic<std::size_t>[]>(depth)) {
    for (std::size_t s = 0; s < depth; ++s) packed_[s].store(0, std::memory_order_relaxed);
  }

  // One member's loop: items until every stream has run every chunk.
  void member(std::size_t me, std::size_t members) {
    for (;;) {
      const uint32_t seen = epoch_.load(std::memory_order_acquire);  // before looking: no lost wake-up
      if (done() || failed_.load(std::memory_order_acquire)) return;
      if (step(me, members)) continue;
      wait(seen);
    }
  }

  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  bool done() const { return finished_.load(std::memory_order_acquire) == streams_; }

  // The chunk every stream has reached (the slowest stream's next).
  std::size_t slowest() const {
    std::size_t m = chunks_;
    for (std::size_t r = 0; r < streams_; ++r) m = std::min(m, stream_[r].next.load(std::memory_order_acquire));
    return m;
  }

  bool packed(std::size_t c) const { return packed_[c % depth_].load(std::memory_order_acquire) == c + 1; }

  // Claims and packs the next chunk if its slot is free; false otherwise.
  bool try_pack(std::size_t low) {
    std::size_t c = pack_next_.load(std::memory_order_acquire);
    if (c >= chunks_ || c >= low + depth_) return false;
    if (!pack_next_.compare_exchange_strong(c, c + 1, std::memory_order_acq_rel)) return false;
    guarded([&] { pack_(c, c % depth_, 0); });
    packed_[c % depth_].store(c + 1, std::memory_order_release);
    bump();
    return true;
  }

  // Claims and runs stream r's next chunk if it is packed; false otherwise.
  bool try_run(std::size_t r) {
    Stream& s = stream_[r];
    std::size_t c = s.next.load(std::memory_order_acquire);
    if (c >= chunks_ || !packed(c) || s.held.load(std::memory_order_relaxed)) return false;
    bool free = false;
    if (!s.held.compare_exchange_strong(free, true, std::memory_order_acq_rel)) return false;
    c = s.next.load(std::memory_order_acquire);  // (held: no one else moves it now)
    if (c >= chunks_ || !packed(c)) {
      s.held.store(false, std::memory_order_release);
      return false;
    }
    guarded([&] { run_(r, c, c % depth_); });
    s.next.store(c + 1, std::memory_order_release);
    s.held.store(false, std::memory_order_release);
    if (c + 1 == chunks_) finished_.fetch_add(1, std::memory_order_acq_rel);
    bump();
    return true;
  }

  // One item, if any is ready: packing first while fewer than two chunks
  // are packed ahead of the slowest stream, then this member's own streams
  // (r = me mod members, for locality), the others', packing up to depth.
  bool step(std::size_t me, std::size_t members) {
    const std::size_t low = slowest();
    if (pack_next_.load(std::memory_order_acquire) < low + std::min<std::size_t>(2, depth_) && try_pack(low))
      return true;
    for (std::size_t r = me % members; r < streams_; r += members)
      if (try_run(r)) return true;
    for (std::size_t r = 0; r < streams_; ++r)
      if (r % members != me % members && try_run(r)) return true;
    return try_pack(low);
  }

  void wait(uint32_t seen) {
    const auto until = std::chrono::steady_clock::now() + kSpin;
    for (unsigned i = 0; epoch_.load(std::memory_order_acquire) == seen; ++i) {
      if (i % 64 == 63 && std::chrono::steady_clock::now() >= until) {
        epoch_.wait(seen, std::memory_order_acquire);
        return;
      }
      cpu_relax();
    }
  }

  void bump() {
    epoch_.fetch_add(1, std::memory_order_acq_rel);
    epoch_.notify_all();
  }

  template <typename F>
  void guarded(F&& f) {
    try {
      f();
    } catch (...) {
      {
        const std::lock_guard<std::mutex> lock(error_mutex_);
        if (!error_) error_ = std::current_exception();
      }
      failed_.store(true, std::memory_order_release);
      bump();
      throw;  // ends this member (parallel_for keeps the first exception too)
    }
  }

  const std::size_t streams_, chunks_, depth_;
  const PipelineStep pack_, run_;
  std::unique_ptr<Stream[]> stream_;
  std::unique_ptr<std::atomic<std::size_t>[]> packed_;  // per slot: 1 + the chunk packed there (0: none)
  alignas(64) std::atomic<std::size_t> pack_next_{0};
  alignas(64) std::atomic<std::size_t> finished_{0};
  alignas(64) std::atomic<uint32_t> epoch_{0};
  std::atomic<bool> failed_{false};
  std::mutex error_mutex_;
  std::exception_ptr error_;
};

}  // namespace

void run_pipeline(int threads, std::size_t streams, std::size_t chunks, std::size_t depth, PipelineStep pack,
                  PipelineStep run) {
  if (chunks == 0 || streams == 0) return;
  Pipeline p(streams, chunks, std::max<std::size_t>(depth, 1), pack, run);
  const std::size_t members = static_cast<std::size_t>(std::max(threads, 1));
  try {
    parallel_for(threads, members, Assign::blocks, [&](std::size_t me) { p.member(me, members); });
  } catch (...) {
    p.rethrow();  // the first item's exception
    throw;
  }
  p.rethrow();
}

}  // namespace mmaemu::driver
