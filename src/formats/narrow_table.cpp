// SPDX-License-Identifier: BSD-3-Clause
#include "formats/narrow_table.h"

#include <array>
#include <atomic>
#include <mutex>

namespace mmaemu {
namespace {

constexpr std::size_t kEntries = std::size_t{1} << kNarrowIndexBits;
constexpr int kRounds = 5, kOverflows = 3;
static_assert(static_cast<int>(Round::rna) == kRounds - 1 && static_cast<int>(Overflow::saturate) == kOverflows - 1,
              "a table per rounding and overflow policy: update the counts with the enums");

bool is_fp8(Fmt f) { return f == Fmt::e4m3 || f == Fmt::e5m2 || f == Fmt::e4m3fnuz || f == Fmt::e5m2fnuz; }

const uint8_t* build(Fmt to, Round r, Overflow ov) {
  // Kept for the process (at most 60 tables of 16 KiB); kNarrowTablePad
  // zero bytes after the last entry (SIMD gathers read a 32-bit word at an
  // entry's offset).
  auto* t = new uint8_t[kEntries + kNarrowTablePad]();
  for (uint32_t i = 0; i < kEntries; ++i) {
    const uint32_t representative = (i >> 1) << 19 | (i & 1u);
    t[i] = static_cast<uint8_t>(convert(Fmt::fp32, to, representative, r, ov));
  }
  return t;
}

}  // namespace

const uint8_t* fp32_narrow_table(Fmt to, Round r, Overflow ov) {
  if (!is_fp8(to)) return nullptr;
  static std::array<std::atomic<const uint8_t*>, kFmtCount * kRounds * kOverflows> tables{};
  static std::mutex mu;
  const std::size_t key = (static_cast<std::size_t>(to) * kRounds + static_cast<std::size_t>(r)) * kOverflows +
                          static_cast<std::size_t>(ov);
  if (const uint8_t* t = tables[key].load(std::memory_order_acquire)) return t;
  const std::lock_guard<std::mutex> lock(mu);
  const uint8_t* t = tables[key].load(std::memory_order_relaxed);
  if (!t) tables[key].store(t = build(to, r, ov), std::memory_order_release);
  return t;
}

}  // namespace mmaemu
