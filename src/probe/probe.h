// SPDX-License-Identifier: BSD-3-Clause
// The feature probe: the papers' generalised numerical feature testing
// (PN §3.1 GNFT, PA §4) run against a matrix unit seen only as a black box.
//
// The probe knows what a user of the instruction knows -- the input and
// output formats and the instruction's k -- and can only call it:
// d = c + sum_i a_i*b_i for one output element of one instruction. From the
// outputs of targeted test vectors it infers the unit's numerical features.
// It never looks at a ModelRow: the detection code (detect.cpp and the
// detect_*.cpp files of detect_probe.h) sees only a BlackBox. A feature the
// unit's outputs cannot reveal is reported as n/a with the reason, never
// guessed.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "formats/format.h"
#include "models/model.h"  // vocabulary types only (Round, CEntry, ...)

namespace mmaemu::probe {

/// What the probe may use: the interface of one instruction and a call.
struct BlackBox {
  Fmt in = Fmt::fp16;   // format of A and B (bit patterns)
  Fmt out = Fmt::fp32;  // format of C and D
  int k = 1;            // the instruction's k: length of a and b
  /// d = A*B + C of one output element: a[k], b[k] in `in`, c and d in `out`.
  std::function<uint64_t(const uint64_t* a, const uint64_t* b, uint64_t c)> dot;
};

/// The black box of a model row: its interface (in, out, k) and one element
/// of ref::tile, i.e. ref::dot over the instruction's k. (The only place that
/// touches the row; the detection never does.)
BlackBox black_box(const ModelRow& row);

/// One detected feature: a value, or n/a with the reason. `note` says how
/// it was found (or why it could not be).
template <typename T>
struct Det {
  bool known = false;
  T value{};
  std::string note;

  void set(T v, std::string how = {}) {
    known = true;
    value = v;
    note = std::move(how);
  }
  void na(std::string why) {
    known = false;
    note = std::move(why);
  }
};

/// Rounding of a term shifted out of the alignment window.
enum class AlignRound : uint8_t {
  truncate,  // toward zero, per term (sign-magnitude)
  down,      // toward -infinity
  up,        // toward +infinity
  nearest,   // to nearest
};

/// How an accumulator c = 0 takes part in the alignment.
struct ZeroC {
  bool term = false;  // false: ignored (it does not move the alignment)
  int exp = 0;        // exponent it enters with when `term`
  friend bool operator==(const ZeroC& a, const ZeroC& b) {
    return a.term == b.term && (!a.term || a.exp == b.exp);
  }
};

struct Features {
  Fmt in = Fmt::fp16, out = Fmt::fp32;
  int k = 0;
  long calls = 0;  // black-box calls made

  // --- special values ---------------------------------------------------
  Det<uint64_t> nan;            // NaN bit pattern produced (output format)
  Det<bool> inf_operand;        // +-Inf operand gives +-Inf
  Det<bool> inf_minus_inf_nan;  // +Inf and -Inf products give NaN
  Det<bool> zero_times_inf_nan; // 0 * Inf gives NaN
  Det<bool> overflow_inf;       // a finite sum beyond the range gives +-Inf
  Det<bool> prd_ovf;            // a product >= 2^128 alone gives +-Inf/NaN

  // --- subnormals ---------------------------------------------------------
  Det<bool> in_sub;
  Det<bool> out_sub;
  Det<FlushSign> flush_sign;

  // --- structure ----------------------------------------------------------
  Det<bool> reads_c;        // false: C is not read (wgmma scale-d = 0)
  Det<Accumulation> accum;  // aligned / exact / pairwise / fma chain
  Det<int> block;           // N_FMA (aligned, exact): products fused
  Det<Grouping> grouping;   // contiguous / odd-even / pair-interleave
  Det<int> pair_group;      // pairwise: products per tree
  Det<bool> as_fp16;        // inputs converted to fp16 before the unit

  // --- alignment and rounding ---------------------------------------------
  Det<int> frac;                  // F: fraction bits of the window
  Det<AlignRound> alignment;      // rounding of bits below the window
  Det<bool> exact_normalisation;  // carries kept, block result rounded once
  Det<ProductForm> product;       // denormalised / normalised / fp32
  Det<int> out_frac;              // fraction bits of the results
  Det<Round> round;
  Det<int> floor;                 // lowest alignment exponent (kNoFloor: none seen)
  Det<ZeroC> zero_c;              // how c = 0 is treated
  bool floor_zero_c_ambiguous = false;  // floor vs "c = 0 is a term" cannot be told apart
  bool zero_c_exp_ambiguous = false;    // the c = 0 exponent is one of a range (reported: emin)

  // --- the accumulator c --------------------------------------------------
  Det<CEntry> c;
  Det<LateRd> late_rd;           // late_rd: RD of the product sum when c dominates
  Det<Round> late_round;         // late_rne: rounding of the late addition
  Det<int> cutoff;               // late_rd: c dropped beyond this many binades (-1 none)
  Det<bool> late_exact_zero_c;   // late_rd: exact product sum reaches the RD when c = 0 dominates

  std::vector<std::string> anomalies;  // outputs no hypothesis explains
};

/// Runs every test of the probe against the box.
Features detect(const BlackBox& box);

/// Prints the features as a table (one line per feature, n/a with reason).
void print(std::ostream& os, const Features& f, const std::string& title);

const char* name(Accumulation a);
const char* name(CEntry c);
const char* name(Grouping g);
const char* name(ProductForm p);
const char* name(LateRd l);
const char* name(AlignRound a);
const char* name(FlushSign s);
const char* name(Round r);

}  // namespace mmaemu::probe
