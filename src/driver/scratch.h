// SPDX-License-Identifier: BSD-3-Clause
// One scratch arena per thread: every buffer the driver keeps between
// calls (packed panels, accumulators, gather and decode staging) is a slot
// of its thread's arena, as BLIS's memory broker (pba) owns every packing
// block, instead of a thread_local in each file. Kept between calls, so
// that small products allocate nothing.
//
// The one trim rule: a slot that holds more than kKeepBytes when its last
// lease ends (Scratch's destructor: the end of the call, or of the task,
// that claimed it) is released. A lease held by a caller while its tasks
// claim the same slot on the same thread keeps the slot until it ends.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace mmaemu::driver {

/// A slot holding more than this when its last lease ends is released.
inline constexpr std::size_t kKeepBytes = std::size_t{4} << 20;

namespace detail {

template <typename T>
std::size_t bytes_of(const T& x) {
  if constexpr (requires { x.held_bytes(); }) return x.held_bytes();
  else return x.capacity() * sizeof(typename T::value_type);
}

}  // namespace detail

/// The bytes the buffers x... hold, for the trim rule: a std::vector's
/// capacity, or what a type's held_bytes() reports (a slot type made of
/// several buffers gives held_bytes() as scratch_bytes of its members).
template <typename... T>
std::size_t scratch_bytes(const T&... x) {
  return (detail::bytes_of(x) + ... + std::size_t{0});
}

namespace detail {

struct SlotBase {
  virtual ~SlotBase() = default;
  int leases = 0;
};
template <typename T>
struct Slot final : SlotBase {
  T value{};
};

/// A new slot id (one per Scratch<T, Site> type, process-wide).
std::size_t new_slot_id();
/// This thread's arena: its slots by id (null: never claimed here).
std::vector<std::unique_ptr<SlotBase>>& thread_arena();

}  // namespace detail

/// A lease on this thread's slot of type T named by Site (a tag type the
/// using file declares: two sites of one type hold two slots), made on
/// first use and kept between calls. Claim it once per call or task, never
/// per step: the claim indexes the arena.
template <typename T, typename Site = T>
class Scratch {
 public:
  Scratch() : slot_(claim()) { ++slot_.leases; }
  ~Scratch() {
    if (--slot_.leases == 0 && scratch_bytes(slot_.value) > kKeepBytes) slot_.value = T{};
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  T& operator*() const { return slot_.value; }
  T* operator->() const { return &slot_.value; }

 private:
  static detail::Slot<T>& claim() {
    static const std::size_t id = detail::new_slot_id();
    std::vector<std::unique_ptr<detail::SlotBase>>& arena = detail::thread_arena();
    if (arena.size() <= id) arena.resize(id + 1);
    if (!arena[id]) arena[id] = std::make_unique<detail::Slot<T>>();
    return static_cast<detail::Slot<T>&>(*arena[id]);
  }

  detail::Slot<T>& slot_;
};

}  // namespace mmaemu::driver
