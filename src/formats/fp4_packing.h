// SPDX-License-Identifier: BSD-3-Clause
// Packed fp4 (e2m1) storage: two codes per byte (docs/block-scaled.md §1.4).
//
//   byte i:  7 6 5 4 | 3 2 1 0
//            elem 2i+1 | elem 2i      (the CUDA fp4x2 order: first value low)
//
// Every other format, and unpacked fp4, is stored one code per byte.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mmaemu {

/// The fp4 code of element i of a packed array.
inline uint8_t fp4_at(const uint8_t* packed, size_t i) {
  return static_cast<uint8_t>((packed[i / 2] >> (4 * (i & 1))) & 0xF);
}

/// Bytes needed for n packed fp4 codes.
inline size_t fp4_packed_bytes(size_t n) { return (n + 1) / 2; }

/// Packs n codes (one per byte, low 4 bits used) into fp4_packed_bytes(n)
/// bytes; an odd n leaves the last high nibble 0.
inline void pack_fp4(const uint8_t* codes, size_t n, uint8_t* packed) {
  for (size_t i = 0; i < n; i += 2) {
    const uint8_t hi = i + 1 < n ? codes[i + 1] & 0xF : 0;
    packed[i / 2] = static_cast<uint8_t>((codes[i] & 0xF) | (hi << 4));
  }
}

/// Unpacks n codes, one per byte.
inline void unpack_fp4(const uint8_t* packed, size_t n, uint8_t* codes) {
  for (size_t i = 0; i < n; ++i) codes[i] = fp4_at(packed, i);
}

}  // namespace mmaemu
