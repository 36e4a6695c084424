// SPDX-License-Identifier: BSD-3-Clause
// Hardware validation data in the layout of the MATLAB toolbox's
// model_validation/ (and ../shared/hwdata):
//   ROOT/<GPU>/<fmt>/a_<GPU>_<fmt>.txt   k hex fp32 patterns per line
//   ROOT/<GPU>/<fmt>/b_<GPU>_<fmt>.txt
//   ROOT/<GPU>/<fmt>/c_<GPU>_fp32.txt    32-char binary fp32 per line
//   ROOT/<GPU>/<fmt>/d_<GPU>_<out>.txt   out = fp32 | fp16 (fp16 widened)
//   ROOT/<GPU>/<fmt>/instruction.txt     optional: the instruction that
//                                        produced the set ("mma.sync", ...)
// Each of the a_, b_, c_, d_ files may instead be a .npy of the same name
// (fp32 patterns, shape (samples, k) or (samples,); npy.h), read in its
// place when present: `mmaemu validate --convert` writes them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

namespace mmaemu::validate {

/// Concatenates strings (file names of a set).
inline std::string join(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (std::string_view p : parts) s.append(p);
  return s;
}

/// Malformed data: names the file and the 1-based line.
class DataError : public std::runtime_error {
 public:
  DataError(const std::filesystem::path& file, std::size_t line, const std::string& what)
      : std::runtime_error(
            join({file.string(), line ? ":" : "", line ? std::to_string(line) : "", ": ", what})) {}
};

/// One folder ROOT/<GPU>/<fmt>/ with the outputs found in it.
struct DataSet {
  std::filesystem::path dir;
  std::string gpu;                   // folder name, e.g. "H100"
  std::string fmt;                   // folder name, e.g. "E4M3"
  std::vector<std::string> outputs;  // "fp32", "fp16": the d_ files present
  std::string instruction;           // from instruction.txt, or empty
};

/// Every data set under each root, in sorted order.
std::vector<DataSet> find_sets(const std::filesystem::path& root);

/// The samples of one set and output, as fp32 bit patterns.
struct Samples {
  std::size_t k = 0;
  std::vector<uint32_t> a, b;  // n*k, row-major
  std::vector<uint32_t> c, d;  // n
  std::filesystem::path a_file, b_file, c_file, d_file;  // where they came from
  std::size_t count() const { return c.size(); }
};

/// The file of a set holding `name` ("a_H100_fp16", ...): name.npy when it
/// exists, else name.txt.
std::filesystem::path data_file(const DataSet& set, const std::string& name);

/// Reads the samples (text or .npy, file by file); throws DataError naming
/// the file and the line (the record, 1-based, in a .npy). a_file, b_file:
/// the a and b files where their names are not a_<GPU>_<fmt> (the
/// block-scaled sets name each operand's format).
Samples read_samples(const DataSet& set, const std::string& out, const std::filesystem::path& a_file = {},
                     const std::filesystem::path& b_file = {});

/// Lines of whitespace-separated 8-digit hex words (digits = 2: the
/// block-scaled sets' scale codes), k per line (k is set from the first
/// line); throws DataError naming file and line. (The text
/// readers read the whole file at once and parse by hand: a campaign of
/// 10^7 samples is bound by the engine, not by parsing.)
std::vector<uint32_t> read_hex(const std::filesystem::path& file, std::size_t& k, std::size_t digits = 8);

/// Lines of one 32-character binary string each.
std::vector<uint32_t> read_binary(const std::filesystem::path& file);

}  // namespace mmaemu::validate
