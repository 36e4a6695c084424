// SPDX-License-Identifier: BSD-3-Clause
// Bit patterns in memory: element i of an array whose elements are stored
// in the container of format f (8, 16, 32 or 64 bits).
#pragma once

#include <cstddef>
#include <cstdint>

#include "formats/format.h"

namespace mmaemu {

/// Reads element i of an array of format f (storage type of f).
inline uint64_t load(Fmt f, const void* base, std::ptrdiff_t i) {
  switch (info(f).width) {
    case 64: return static_cast<const uint64_t*>(base)[i];
    case 32: return static_cast<const uint32_t*>(base)[i];
    case 16: return static_cast<const uint16_t*>(base)[i];
    default: return static_cast<const uint8_t*>(base)[i];
  }
}

/// Writes element i.
inline void store(Fmt f, void* base, std::ptrdiff_t i, uint64_t bits) {
  switch (info(f).width) {
    case 64: static_cast<uint64_t*>(base)[i] = bits; break;
    case 32: static_cast<uint32_t*>(base)[i] = static_cast<uint32_t>(bits); break;
    case 16: static_cast<uint16_t*>(base)[i] = static_cast<uint16_t>(bits); break;
    default: static_cast<uint8_t*>(base)[i] = static_cast<uint8_t>(bits); break;
  }
}

}  // namespace mmaemu
