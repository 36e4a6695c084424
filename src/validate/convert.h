// SPDX-License-Identifier: BSD-3-Clause
// `mmaemu validate --convert SRC DST`: the binary form of the data sets
// (docs/tools.md, "Binary data sets").
#pragma once

#include <filesystem>
#include <iosfwd>

namespace mmaemu::validate {

/// Every set under src written under dst (same GPU and format folders) as
/// .npy files, a_/b_ of shape (samples, k) and c_/d_ of shape (samples,),
/// fp32 patterns as '<f4', with instruction.txt; block-scaled sets and the
/// files beside the GPU folders (README, LICENCE) are copied as they are.
/// One line per set on `log`. Throws DataError on malformed data.
void convert_sets(const std::filesystem::path& src, const std::filesystem::path& dst, std::ostream& log);

}  // namespace mmaemu::validate
