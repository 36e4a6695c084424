// SPDX-License-Identifier: BSD-3-Clause
// Packed int4 (s4, u4) storage: two codes per byte, element 2i in the low
// nibble, the order PTX's .s4/.u4 fragments and packed fp4 (fp4_packing.h)
// use (docs/models.md, Integer units):
//
//   byte i:  7 6 5 4 | 3 2 1 0
//            elem 2i+1 | elem 2i
//
// A code is the nibble's 4 bits; s4 reads them as two's complement
// (0x8 = -8, 0xF = -1), u4 as 0..15. Unpacked, one code per byte or per
// uint64_t, only the low 4 bits are read (formats/format.h, int_value).
#pragma once

#include <cstddef>
#include <cstdint>

#include "formats/fp4_packing.h"

namespace mmaemu {

/// The int4 code of element i of a packed array.
inline uint8_t int4_at(const uint8_t* packed, size_t i) { return fp4_at(packed, i); }

/// Bytes needed for n packed int4 codes.
inline size_t int4_packed_bytes(size_t n) { return fp4_packed_bytes(n); }

/// Packs n codes (one per byte, low 4 bits used); an odd n leaves the last
/// high nibble 0.
inline void pack_int4(const uint8_t* codes, size_t n, uint8_t* packed) { pack_fp4(codes, n, packed); }

/// Unpacks n codes, one per byte.
inline void unpack_int4(const uint8_t* packed, size_t n, uint8_t* codes) { unpack_fp4(packed, n, codes); }

}  // namespace mmaemu
