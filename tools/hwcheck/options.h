// SPDX-License-Identifier: BSD-3-Clause
// Command line of mmaemu-hwcheck (parsed in plain C++ so that it is tested
// without a GPU) and the GPU folder name derived from the device name.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ensemble.h"
#include "formats.h"
#include "tiles.h"

namespace mmaemu::hwcheck {

struct Options {
  std::filesystem::path out;           // --out DIR (required)
  std::string gpu;                     // --gpu NAME; empty: from the device name
  uint64_t seed = 1;                   // --seed S
  size_t n = 10000;                    // --n N samples per set
  std::vector<Instr> instrs{std::begin(kAllInstrs), std::end(kAllInstrs)};   // --instr
  std::vector<InFmt> fmts{std::begin(kAllInFmts), std::end(kAllInFmts)};     // --formats
  std::vector<SetKind> sets{std::begin(kAllSetKinds), std::end(kAllSetKinds)};  // --sets
  Packing packing = Packing::diagonal; // --packing diagonal|single
  size_t probe_tiles = 64;             // --probe-tiles T (0: no layout probe)
  std::filesystem::path decisive;      // --decisive FILE (empty: none)
  int device = 0;                      // --device I
  bool help = false;                   // --help
};

/// Parses argv[1..]; on error returns nullopt and sets *error.
std::optional<Options> parse_options(int argc, const char* const* argv, std::string* error);
std::string usage();

/// Folder name of a device: the first known model found in the CUDA device
/// name ("NVIDIA H100 80GB HBM3" -> "H100", "Tesla V100-SXM2-32GB" -> "V100",
/// "NVIDIA GH200 480GB" -> "GH200"); otherwise the name with every character
/// outside [A-Za-z0-9] dropped and a "NVIDIA" prefix removed.
std::string gpu_folder_name(std::string_view device_name);

}  // namespace mmaemu::hwcheck
