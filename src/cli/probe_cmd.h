// SPDX-License-Identifier: BSD-3-Clause
// mmaemu probe --model M --input F [--output O] [--instr I]
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace mmaemu::cli {

/// Runs the feature probe on the row of (model, input, output) as a black
/// box and prints the detected features. Returns 0, or 2 on bad options.
int cmd_probe(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace mmaemu::cli
