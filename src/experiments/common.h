// SPDX-License-Identifier: BSD-3-Clause
// Shared pieces of the experiment commands (`mmaemu compare`,
// `mmaemu experiment ...`): option parsing with hard errors, model lists,
// format arrays in their storage containers, CSV quoting.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "formats/format.h"
#include "models/model.h"

namespace mmaemu::experiments {

/// A bad command line or input file: the commands print the message and
/// exit with status 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Options of one command: "--name value", "--name=value" or "--flag".
struct Options {
  std::map<std::string, std::string> values;
  std::set<std::string> flags;

  bool has(const std::string& name) const { return values.count(name) != 0; }
  std::string get(const std::string& name, const std::string& fallback) const;
};

/// Parses args against the known value options and flags (names without
/// "--"). Unknown options, positional arguments and missing values throw
/// UsageError. A repeated --models, --words or --schedule accumulates (comma-separated);
/// any other repeated option is an error.
Options parse_options(const std::vector<std::string>& args, const std::vector<std::string>& value_names,
                      const std::vector<std::string>& flag_names);

/// An integer option in [lo, hi]; anything else throws UsageError.
long long parse_int(const std::string& option, const std::string& text, long long lo, long long hi);
/// A finite floating-point number (strtod syntax).
double parse_double(const std::string& option, const std::string& text);
/// A number format name (parse_fmt aliases); the error lists the valid names.
Fmt parse_format(const std::string& option, const std::string& text);
/// The integer input "I" or "I,J" (A's and B's formats: s8, u8, s4, u4 or
/// int8, uint8, int4, uint4; J defaults to I): false when I names no
/// integer input; UsageError when J is not one.
bool parse_integer_input(const std::string& option, const std::string& text, Fmt& a, Fmt& b);

/// A comma-separated model list. A custom model's key=value pairs stay with
/// it ("H100,custom:base=B200,round=rne,MI300X" is three models).
/// MODEL@INSTR keeps only the rows of one instruction (find_instr: "B200@mma.sync",
/// "H100@wgmma"), named so. Unknown names throw UsageError with the valid ones.
std::vector<Model> parse_models(const std::string& list);
/// Every registered GPU model.
std::vector<Model> all_models();

/// The units of a model as "fp16->fp32, bf16->fp32, ..." (GEMM rows).
std::string unit_list(const Model& model);
/// Why a model has no unit for (in, out), for "skipped" lines.
std::string skip_reason(const Model& model, Fmt in, Fmt out);

/// A CSV field, quoted (RFC 4180) when it holds a comma, quote or newline.
std::string csv_field(const std::string& s);

/// Values of one format stored in its container (uint8_t, uint16_t, 32-bit
/// or 64-bit words), as the GEMM engine reads them.
class FormatArray {
 public:
  FormatArray() = default;
  FormatArray(Fmt f, std::size_t count);
  Fmt format() const { return fmt_; }
  std::size_t size() const { return count_; }
  uint64_t bits(std::size_t i) const;
  void set_bits(std::size_t i, uint64_t b);
  /// The value of element i, exactly, as a double.
  double value(std::size_t i) const;
  const void* data() const { return bytes_.data(); }
  void* data() { return bytes_.data(); }

 private:
  Fmt fmt_ = Fmt::fp64;
  std::size_t count_ = 0, width_ = 8;
  std::vector<unsigned char> bytes_;
};

/// fl(scale * x[i]) in format f for i < count (scale * x[i] is formed in
/// binary64, exact for a power-of-two scale without underflow).
FormatArray encode(const double* x, std::size_t count, Fmt f, Round r, Overflow ov, double scale = 1.0);

/// The largest finite value of f, and its smallest normal value 2^emin.
double max_finite(Fmt f);
double min_normal(Fmt f);
/// Significand bits t of f, the implicit bit included (fp16: 11); u = 2^-t.
int precision(Fmt f);

}  // namespace mmaemu::experiments
