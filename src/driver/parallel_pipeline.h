// SPDX-License-Identifier: BSD-3-Clause
// A barrier-free schedule for few-column products of long k (the
// multi-word experiment's 10 x 10 x 10^6; docs/kernels.md, "Threads and
// blocking"). k is cut into chunks; each chunk's B is packed once, into one
// of `depth` slots, and every row stream (a few rows of A with their
// accumulators) runs the chunks in order:
//
//   pack(c, slot)         after every stream is done with chunk c - depth
//                         (the chunk that used the slot before)
//   run(stream, c, slot)  after pack(c) and after run(stream, c - 1)
//
// Any thread runs any item that is ready: a stream's next chunk (a stream
// is held only while one of its chunks runs) or the next chunk's packing.
// There is no barrier per chunk: a thread waits only when every ready item
// is taken and the rest depends on an item another thread is running, so a
// thread that loses its core for a time slice holds up one stream, and the
// others run ahead on the other streams by up to `depth` chunks. Threads
// join through parallel_for (parallel.h), on either scheduler: a member
// that never starts delays nothing, and the items run under the kernels'
// floating-point environment. An item that throws ends the schedule; the
// first exception is rethrown.
#pragma once

#include <cstddef>

namespace mmaemu::driver {

/// A reference to a callable f(a, b, c) (no copy, no allocation); it must
/// outlive the run_pipeline call it is given to.
class PipelineStep {
 public:
  template <typename F>
  PipelineStep(const F& f)  // NOLINT: implicit, so that a lambda can be passed
      : object_(&f), call_([](const void* o, std::size_t a, std::size_t b, std::size_t c) {
          (*static_cast<const F*>(o))(a, b, c);
        }) {}
  void operator()(std::size_t a, std::size_t b, std::size_t c) const { call_(object_, a, b, c); }

 private:
  const void* object_;
  void (*call_)(const void*, std::size_t, std::size_t, std::size_t);
};

/// Runs pack(c, slot, 0) for every chunk c < chunks and run(stream, c, slot)
/// for every stream < streams and chunk, slot = c % depth, in the order
/// above, on at most `threads` threads (the caller one of them). depth >= 1.
void run_pipeline(int threads, std::size_t streams, std::size_t chunks, std::size_t depth, PipelineStep pack,
                  PipelineStep run);

}  // namespace mmaemu::driver
