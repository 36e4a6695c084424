// SPDX-License-Identifier: BSD-3-Clause
// Validation sets of the block-scaled and narrow-format units
// (docs/block-scaled.md §5):
//   ROOT/<GPU>/<SET>/instruction.txt     e.g. tcgen05.mma.kind::mxf4.block32.ue8m0
//   ROOT/<GPU>/<SET>/a_<GPU>_<FA>.txt    K fp32 patterns per line (FA: E4M3 E5M2
//   ROOT/<GPU>/<SET>/b_<GPU>_<FB>.txt    E3M2 E2M3 E2M1), exact element values
//   ROOT/<GPU>/<SET>/sa_<GPU>_<SF>.txt   K/block 2-hex-digit scale codes per line
//   ROOT/<GPU>/<SET>/sb_<GPU>_<SF>.txt   (SF: UE8M0 UE4M3; absent for kind::f8f6f4)
//   ROOT/<GPU>/<SET>/c_<GPU>_fp32.txt, d_<GPU>_<out>.txt   as the other sets
// K may span several instructions, chained from c.
#pragma once

#include <string>

#include "validate/dataset.h"
#include "validate/validate.h"

namespace mmaemu::validate {

/// Whether instruction.txt names a block-scaled or narrow-format unit.
bool is_scaled_instruction(const std::string& instruction);

/// Runs such a set on the reference engine; throws DataError (file, line)
/// on malformed data or an instruction the GPU does not have.
SetResult run_scaled_set(const DataSet& set, const std::string& out);

}  // namespace mmaemu::validate
