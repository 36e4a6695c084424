// SPDX-License-Identifier: BSD-3-Clause
// fp32 -> fp8 (e4m3, e5m2, e4m3fnuz, e5m2fnuz) by a table of 2^14 codes, for
// the packing routines: fp32_narrow(t, b) == convert(fp32, to, b, r, ov) for
// every fp32 pattern b, every rounding and overflow policy.
//
// Why 14 bits suffice: the target keeps at most 3 fraction bits (fewer when
// the result is subnormal), so the first dropped bit (the guard) is one of
// fp32's four leading fraction bits or lies above them; everything below
// those four can only act as a sticky bit.
//
//   fp32:   s eeeeeeee ffff ttttttttttttttttttt
//   index:  s eeeeeeee ffff x                    x = (t != 0)
//
// Each entry is convert() of the representative pattern s|e|f|00..0x, which
// rounds exactly as every pattern of its class (same sign, binade, guard and
// rest, ties included: a tie has f's bits below the guard and t all zero).
// NaN inputs (e = 255, f|x != 0) give the format's NaN of that sign, as
// convert() gives for any payload.
#pragma once

#include <cstdint>

#include "formats/format.h"

namespace mmaemu {

inline constexpr int kNarrowIndexBits = 14;
/// Bytes readable after the last entry (zeros): a 32-bit load at any
/// entry's offset stays inside the allocation.
inline constexpr int kNarrowTablePad = 3;

/// The table for fp32 -> `to` under (r, ov), built on first use and kept;
/// nullptr when `to` is not one of the four fp8 formats.
const uint8_t* fp32_narrow_table(Fmt to, Round r, Overflow ov);

/// The table's index of fp32 pattern b.
inline uint32_t fp32_narrow_index(uint32_t b) { return (b >> 19) << 1 | ((b & 0x7FFFFu) != 0); }

inline uint64_t fp32_narrow(const uint8_t* table, uint32_t b) { return table[fp32_narrow_index(b)]; }

}  // namespace mmaemu
