// SPDX-License-Identifier: BSD-3-Clause
// Inputs that tell two matrix units apart (docs/distinguish.md): one
// output element d = c + sum a_i b_i of two units (two models, or a model
// and a custom: variant) evaluated on random ensembles of several
// distributions until their bits differ, then a guided search that shrinks
// the separating vector to a shortest one (fewest nonzero terms, then the
// smallest exponent range, then the fewest significand bits). When nothing
// separates them, the number of samples and the Bayesian upper bound on
// the probability that a random sample would (AMD paper Sec. 5.4).
// The NVIDIA paper's ISSM (Sec. 3.2) searches inputs the same way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "formats/format.h"
#include "models/model.h"

namespace mmaemu::experiments {

/// One test vector: k codes of the input format for a and b, c and the two
/// results as codes of the output format.
struct TestVector {
  std::vector<uint64_t> a, b;
  uint64_t c = 0;
  uint64_t d_first = 0, d_second = 0;
};

struct DistinguishConfig {
  Fmt in = Fmt::fp16, out = Fmt::fp32;
  // Integer units (in an integer format, out s32): B's format of the first
  // unit, and A's and B's of the second (the report names them; the search
  // reads the rows' own).
  Fmt in_b = Fmt::fp16, second_in = Fmt::fp16, second_in_b = Fmt::fp16;
  std::size_t k = 0;                  // 0: the first unit's instruction k
  std::size_t max_samples = 1000000;  // random samples before giving up
  uint64_t seed = 1;
  int threads = 0;
  std::vector<std::string> distributions;  // empty: all (distinguish_distributions())
};

struct DistributionCount {
  std::string name;
  std::size_t samples = 0, separating = 0;
};

struct DistinguishResult {
  std::size_t k = 0;
  std::size_t samples = 0;             // random samples evaluated
  std::vector<DistributionCount> per_distribution;
  bool found = false;
  std::string found_by;                // the distribution of the first separating sample
  TestVector first, shortest;          // the first separating sample, and the shrunk one
  std::size_t shrink_evaluations = 0;  // candidates evaluated while shrinking
  double bound = 0;                    // none found: upper bound on P(a random sample separates) at eps
  double eps = 1e-6;
};

/// The distributions the ensembles draw from, in the order they take turns.
const std::vector<std::string>& distinguish_distributions();
/// Those of the integer units (distinguish_int.cpp).
const std::vector<std::string>& integer_distributions();

/// The search for two rows of the same (in, out), or two integer units whose
/// operands have the same widths (each reads the same codes under its own
/// formats); throws std::invalid_argument for an unknown distribution, an
/// integer row against a floating-point one, or integer operands of
/// different widths.
DistinguishResult distinguish(const ModelRow& first, const ModelRow& second, const DistinguishConfig& cfg);

/// A unit one model has and the other lacks, searched against the other
/// model's unit for the same formats: `first` and `second` keep the order
/// of the two models, the lone unit's model narrowed to it (MODEL@INSTR).
struct LoneUnitSearch {
  Model first, second;
  bool first_is_lone = true;  // the lone unit is first's (else second's)
  DistinguishResult result;
};

/// The search of `mmaemu distinguish A B` (docs/distinguish.md): the two
/// models' units for (cfg.in, cfg.out); when no sample separates them, the
/// units for those formats that only one of the models has (an instruction
/// the other has no unit of), each against the other model's unit, with k
/// = the longer of the two instructions' k unless cfg.k is set; and the
/// formats only one of them has a unit for.
struct ModelsDistinction {
  DistinguishResult units;
  std::vector<LoneUnitSearch> lone;
  std::vector<std::string> only_first, only_second;  // "bf16->fp32", ...: formats only one has (none searched)
};
ModelsDistinction distinguish_models(const Model& a, const Model& b, const DistinguishConfig& cfg);
std::string distinguish_models_report(const Model& a, const Model& b, const DistinguishConfig& cfg,
                                      const ModelsDistinction& d);

/// d = c + a.b on one row (driver::run_batch), k = a.size().
uint64_t evaluate(const ModelRow& row, const std::vector<uint64_t>& a, const std::vector<uint64_t>& b, uint64_t c);

/// The number of nonzero terms (products a_i b_i != 0, and c != 0), the
/// exponent range of those terms, and their significand bits: the order in
/// which a shorter vector is preferred.
struct VectorSize {
  int terms = 0, exponent_range = 0, bits = 0;
  bool operator<(const VectorSize& o) const;
};
VectorSize vector_size(Fmt in, Fmt out, const TestVector& v);
/// The same for integer codes of A in fa and B in fb, c an s32 code (terms:
/// nonzero products and c; range: of their magnitudes' binary exponents;
/// bits: set bits of all the codes).
VectorSize integer_vector_size(Fmt fa, Fmt fb, const TestVector& v);

/// The report `mmaemu distinguish` prints (distinguish_report.cpp).
std::string distinguish_report(const Model& first, const Model& second, const DistinguishConfig& cfg,
                               const DistinguishResult& r);

/// A code's value as the fp32 pattern of the hardware harness's files
/// (tools/hwcheck/README.md: inputs and fp16 results widened exactly;
/// false where the format is wider than fp32, or an integer format).
bool harness_pattern(Fmt f, uint64_t code, uint32_t& pattern);

/// The hardware harness's token of a code: its fp32 pattern in hex
/// (binary: 32 binary digits, as the harness's c and d files), or code_hex
/// where the format is wider than fp32.
std::string harness_token(Fmt f, uint64_t code, bool binary);
/// A code in hex ("0x" and width/4 digits).
std::string code_hex(Fmt f, uint64_t code);
/// A code's value, "%.9g" (integer formats: the integer).
std::string code_value(Fmt f, uint64_t code);

}  // namespace mmaemu::experiments
