// SPDX-License-Identifier: BSD-3-Clause
// The decisive vectors (tools/hwcheck/decisive.txt, docs/models.md §9):
// single dot products on which libmmaemu and MMA-Sim v2.0.2, or libmmaemu and
// its alternative reading, differ. The harness appends the ones of its
// instruction and input format to the ensemble as the sub-sets
// "decisive:<id>" (one sample each); tools/hwcheck/decide.py reads the
// results back and says which reading the GPU follows.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "ensemble.h"
#include "formats.h"

namespace mmaemu::hwcheck {

struct DecisiveVector {
  std::string id;
  std::vector<std::string> gpus;
  std::string instr;             // libmmaemu's instruction name ("mma.sync", "wgmma", "v_mfma_...")
  std::string in, out;           // libmmaemu format names ("fp16", "e5m2", "fp32", ...)
  uint32_t c = 0;                // a code of `out`
  std::vector<std::pair<int, uint32_t>> a, b;  // (position, code of `in`); position -1: every one
  int line = 0;
};

/// Reads decisive.txt; throws std::runtime_error naming the file and line
/// of a malformed entry.
std::vector<DecisiveVector> load_decisive(const std::filesystem::path& file);

/// The vectors of one harness instruction and input format as an ensemble
/// of k-element samples (fp32 bit patterns; c widened exactly to fp32), one
/// sub-set "decisive:<id>" per vector. Vectors of other instructions or
/// formats (the AMD ones among them) are left out.
Ensemble decisive_set(const std::vector<DecisiveVector>& vs, const std::string& instr, InFmt f, int k);

}  // namespace mmaemu::hwcheck
