// SPDX-License-Identifier: BSD-3-Clause
// `mmaemu validate`: runs each data set through the model row named by its
// folder (and instruction.txt) and compares bit patterns.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <iosfwd>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "models/model.h"
#include "validate/dataset.h"

namespace mmaemu::validate {

struct Mismatch {
  std::size_t line;  // 1-based sample (line) number
  uint64_t expected, got;
};

struct SetResult {
  std::string gpu, input, output, instruction;
  std::size_t samples = 0, mismatches = 0;
  std::size_t excluded = 0;     // listed in the errata and indeed different
  std::vector<Mismatch> first;  // the first few mismatches
  std::filesystem::path d_file;  // the file whose lines (records) they are
};

/// Reference samples known to be wrong, keyed by "<GPU>/<fmt>/<d-file>"
/// relative to the data root (see tests/data/refdata-errata.txt). An entry
/// applies only to a file whose FNV-1a 64-bit checksum it names. A listed
/// sample that differs from the model is counted as excluded; one that
/// agrees with the model counts as a mismatch (the errata are stale).
struct Errata {
  struct Entry {
    uint64_t checksum = 0;
    std::set<std::size_t> lines;
  };
  std::map<std::string, Entry> entries;
  static Errata parse(const std::string& text, const std::string& origin);  // throws DataError
  static Errata load(const std::string& file);                              // throws DataError
  /// The errata of the published reference data, compiled in.
  static const Errata& bundled();
};

/// FNV-1a 64-bit checksum of a file's bytes.
uint64_t file_checksum(const std::filesystem::path& file);

/// file_checksum of the text form of d values: one 32-character binary
/// string and a newline per value (what `--convert` read, for the errata of
/// a .npy file).
uint64_t text_checksum(const std::vector<uint32_t>& d);

/// Bayesian upper bound on the mismatch probability (AMD paper §5.4): the
/// p with P(p_S < p | N samples, m mismatches) = 1 - eps under a uniform
/// prior, i.e. the (1 - eps) quantile of Beta(m + 1, N - m + 1).
double mismatch_upper_bound(std::size_t samples, std::size_t mismatches, double eps = 1e-6);

/// The model row that reproduces a data set for `out` (throws DataError).
const ModelRow& row_for(const Model& model, const DataSet& set, const std::string& out);

/// Called with (samples done, samples in the set) as a set runs.
using Progress = std::function<void(std::size_t, std::size_t)>;

/// Validates one set for one output format on the fast engine (the
/// reference's bits; threads as the GEMM: 0 = MMA_NUM_THREADS, ...).
SetResult run_set(const DataSet& set, const std::string& out, const Errata* errata = nullptr,
                  const Progress& progress = {}, int threads = 0);

/// Validates every set under the roots, printing one table row per set and
/// output and the closing line "total: S samples, M mismatches".
/// Returns the number of mismatches; throws DataError on malformed data.
/// With `progress` (stderr, say), sets that run longer than 2 s show a
/// progress line there, erased when the set is done.
std::size_t run(const std::vector<std::string>& roots, std::ostream& os,
                const Errata* errata = nullptr, std::FILE* progress = nullptr, int threads = 0);

}  // namespace mmaemu::validate
