// SPDX-License-Identifier: BSD-3-Clause
// The per-thread scratch arena (scratch.h).
#include "driver/scratch.h"

#include <atomic>

namespace mmaemu::driver::detail {

std::size_t new_slot_id() {
  static std::atomic<std::size_t> next{0};
  return next.fetch_add(1, std::memory_order_relaxed);
}

std::vector<std::unique_ptr<SlotBase>>& thread_arena() {
  thread_local std::vector<std::unique_ptr<SlotBase>> arena;  // the one thread_local of the driver's scratch
  return arena;
}

}  // namespace mmaemu::driver::detail
