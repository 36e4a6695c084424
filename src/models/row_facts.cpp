// SPDX-License-Identifier: BSD-3-Clause
#include "models/row_facts.h"

namespace mmaemu {

std::size_t step_k(const ModelRow& row) {
  switch (row.accum) {
    case Accumulation::fma_chain:
    case Accumulation::integer: return static_cast<std::size_t>(row.k);
    case Accumulation::pairwise: return static_cast<std::size_t>(row.pair_group);
    default: break;
  }
  return static_cast<std::size_t>(row.grouping == Grouping::pair_interleave ? 2 * row.block
                                                                             : row.block);
}

uint64_t nan_of(const ModelRow& row, Fmt f) {
  switch (f) {
    case Fmt::fp32: return row.nan32;
    case Fmt::fp16: return row.nan16;
    case Fmt::fp64: {  // the vendor's fp32 pattern, widened: sign, all-ones or quiet
      const bool all_ones = (row.nan32 & 0x7FFFFFu) == 0x7FFFFFu;
      return (static_cast<uint64_t>(row.nan32 >> 31) << 63) | 0x7FF0000000000000ull |
             (all_ones ? 0xFFFFFFFFFFFFFull : 1ull << 51);
    }
    default: return default_nan(f);
  }
}

}  // namespace mmaemu
