// SPDX-License-Identifier: BSD-3-Clause
// The numpy .npy format (format version 1.0 written; 1.0, 2.0 and 3.0 read),
// for arrays of 4-byte little-endian elements: the binary form of the
// validation sets (docs/tools.md, "Binary data sets"). numpy.load reads
// what write_npy writes; read_npy refuses anything it cannot read exactly
// (DataError naming the file).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace mmaemu::validate {

/// A C-order array of 4-byte elements, as bit patterns.
struct NpyArray {
  std::string descr;                // "<f4" or "<u4"
  std::vector<std::size_t> shape;   // (rows) or (rows, cols)
  std::vector<uint32_t> data;       // shape's product elements
};

/// Reads a .npy file of dtype <f4 or <u4, C order, 1 or 2 dimensions.
NpyArray read_npy(const std::filesystem::path& file);

/// Writes a C-order <f4 array of the given shape (data holds its product).
void write_npy(const std::filesystem::path& file, const std::vector<std::size_t>& shape,
               const std::vector<uint32_t>& data);

/// The array's shape in numpy's notation: "(5000, 16)", "(5000,)".
std::string shape_text(const std::vector<std::size_t>& shape);

}  // namespace mmaemu::validate
