// SPDX-License-Identifier: BSD-3-Clause
// Writes (and reads back) data in the layout of /work/shared/hwdata, the one
// `mmaemu validate` reads:
//
//   ROOT/<GPU>/<fmt>/a_<GPU>_<fmt>.txt   one sample per line: k tokens, each 8
//   ROOT/<GPU>/<fmt>/b_<GPU>_<fmt>.txt   lower-case hex digits (fp32 bits)
//                                        followed by one space
//   ROOT/<GPU>/<fmt>/c_<GPU>_fp32.txt    32-character binary fp32 pattern
//   ROOT/<GPU>/<fmt>/d_<GPU>_fp32.txt    result, same binary text
//   ROOT/<GPU>/<fmt>/d_<GPU>_fp16.txt    fp16 result widened exactly to fp32
//
// plus, beside them, files the public data do not have:
//   instruction.txt  one line: mma.sync | wmma | wgmma
//   sets.txt         "# set first count" then one line per set (0-based
//                    first sample line), so a mismatch can be traced to its set
//   meta.txt         free text: seed, n, shape, packing, device, toolkit
// Lines end with '\n'.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "ensemble.h"
#include "formats.h"

namespace mmaemu::hwcheck {

void append_hex8(std::string& s, uint32_t v);
void append_bin32(std::string& s, uint32_t v);
/// n lines of k tokens "xxxxxxxx " each.
std::string format_hex_lines(const std::vector<uint32_t>& x, size_t n, int k);
/// One 32-character binary line per value.
std::string format_bin_lines(const std::vector<uint32_t>& x);

std::filesystem::path dataset_dir(const std::filesystem::path& root, const std::string& gpu, InFmt f);

struct DatasetWrite {
  std::string gpu;                        // folder / file-name token, e.g. H200
  std::string instruction;                // first line of instruction.txt
  std::string meta;                       // content of meta.txt
  const Ensemble* ensemble = nullptr;
  const std::vector<uint32_t>* d_fp32 = nullptr;  // null: no d_*_fp32.txt
  const std::vector<uint32_t>* d_fp16 = nullptr;  // fp16 results as fp32 bits
};
/// Writes the set folder ROOT/<GPU>/<fmt>/ (created if needed); returns it.
std::filesystem::path write_dataset(const std::filesystem::path& root, const DatasetWrite& w);

/// A set folder read back with a strict parser (throws std::runtime_error
/// naming the file and line on any deviation from the layout above).
struct Dataset {
  size_t n = 0;
  int k = 0;
  std::vector<uint32_t> a, b, c, d_fp32, d_fp16;
  bool has_d_fp32 = false, has_d_fp16 = false;
  std::string instruction;
  std::vector<SetRange> sets;
};
Dataset read_dataset(const std::filesystem::path& root, const std::string& gpu, InFmt f);

}  // namespace mmaemu::hwcheck
