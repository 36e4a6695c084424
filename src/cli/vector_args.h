// SPDX-License-Identifier: BSD-3-Clause
// The test-vector arguments of mmaemu dot and mmaemu explain: --a / --b lists
// and c as numbers or fp32 patterns, and the line that reports d.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "formats/format.h"
#include "models/model.h"

namespace mmaemu::experiments {

/// A token as a code of f: an fp32 pattern (8 hex digits; 32 binary digits)
/// or a number, exact in f; for an integer format (docs/models.md §11) a
/// decimal value in its range or a 0x code. Throws UsageError naming the
/// option and token.
uint64_t parse_token(const std::string& option, const std::string& t, Fmt f);
/// A comma- or space-separated list of tokens (at least one).
std::vector<uint64_t> parse_list(const std::string& option, const std::string& list, Fmt f);

/// mmaemu dot's line for one unit: model, instruction, k and d (harness
/// token, hex code and value).
std::string dot_line(const std::string& model, const ModelRow& row, std::size_t k, uint64_t d);

}  // namespace mmaemu::experiments
