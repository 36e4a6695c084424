// SPDX-License-Identifier: BSD-3-Clause
// The pieces of mmaemu explain (explain.cpp, explain_kit.cpp,
// explain_paths.cpp): terms, the stage recorder, the alignment and rounding
// diagrams. Internal to the explain command.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "experiments/explain.h"
#include "formats/format.h"
#include "models/model.h"

namespace mmaemu::experiments::explain_detail {

/// A finite nonzero term (-1)^neg * sig * 2^(e - frac), as the reference
/// engine decomposes it: |m| = sig / 2^frac, exponent e.
struct XTerm {
  bool neg = false;
  int e = 0;
  uint64_t sig = 0;
  int frac = 0;
  std::string label;
};

struct Indexed {
  XTerm t;
  std::size_t index;  // position in the step (odd/even, pair grouping)
};

/// A partial sum S * 2^(E - F); empty when no term was present.
struct Aligned {
  bool empty = true;
  int E = 0;
  int64_t S = 0;
};

/// One step of the k chain being explained: its stages go to `out`.
struct Stepper {
  const ModelRow& row;
  std::size_t k;     // inputs in this step
  std::size_t base;  // index of its first input in the whole vector
  std::string prefix;
  std::vector<ExplainStage>& out;

  /// A stage of one line whose state is `bits`.
  void note(const std::string& title, const std::string& line, uint64_t bits);
};

// Text.
std::string pad(const std::string& s, std::size_t width);
std::string binary(uint64_t v, int width);
std::string term_text(const XTerm& t);
std::string code_text(Fmt f, uint64_t code);
std::string operand_line(std::size_t i, Fmt in, uint64_t a, uint64_t b);
std::string fixed_text(int64_t S, int F);
const char* product_form_name(ProductForm p);
int row_frac(const Stepper& s);

// The row's reading of values (docs/models.md §2.2-2.4).
bool is_subnormal(Fmt f, const Unpacked& u);
XTerm product_term(const ModelRow& row, Fmt in, const Unpacked& u, const Unpacked& v);
std::optional<XTerm> c_term(const ModelRow& row, uint64_t c);
uint64_t flush_out(const ModelRow& row, uint64_t bits);
int64_t shift_rd(int64_t x, int d);

/// Aligns the terms to the largest exponent (or the floor, or a zero c's
/// exponent) in the window of F fraction bits: the diagram of kept and
/// dropped bits, the integer sum and its carries.
Aligned align_stage(Stepper& s, const std::string& what, const std::vector<XTerm>& ts, std::optional<int> extra_e);
/// Normalises S * 2^lsb and rounds it to the output format.
uint64_t round_stage(Stepper& s, int64_t S, int lsb, Round r);

/// The decoded operands and exact products of one step (explain.cpp).
std::vector<Indexed> products(Stepper& s, const uint64_t* a, const uint64_t* b);

// The other paths (explain_paths.cpp).
std::optional<uint64_t> special_step(Stepper& s, const uint64_t* a, const uint64_t* b, uint64_t c);
uint64_t late_rd_stage(Stepper& s, const Aligned& P, uint64_t c, const std::vector<XTerm>& terms);
uint64_t exact_step(Stepper& s, const uint64_t* a, const uint64_t* b, uint64_t c);
uint64_t pairwise_step(Stepper& s, const uint64_t* a, const uint64_t* b, uint64_t c);
uint64_t fma_step(Stepper& s, const uint64_t* a, const uint64_t* b, uint64_t c);

/// One step of the chain.
uint64_t explain_step(Stepper& s, const uint64_t* a, const uint64_t* b, uint64_t c);

}  // namespace mmaemu::experiments::explain_detail
