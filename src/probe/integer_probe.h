// SPDX-License-Identifier: BSD-3-Clause
// The feature probe for the integer units (docs/models.md §11), run through
// the public C API only: what a user of the instruction knows -- the formats
// of A and B, whether .satfinite is asked for, the instruction's k -- and
// the outputs of targeted vectors on one output element
// (mmaemu_dot_batch_int of k products). It reports the features that apply
// to an integer unit: the input formats the unit accepts, how it reads a
// code with the top bit set (two's complement or unsigned), whether its
// sum is exact, its overflow rule (wrap or clamp), whether a .satfinite
// variant exists and where it clamps (once per instruction or after every
// addition). Rounding, alignment, subnormals and special values do not
// apply to integers; the probe does not report them.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>

#include "formats/format.h"
#include "mmaemu/mmaemu.h"
#include "models/model.h"  // vocabulary types only (IntOverflow, SatPoint)
#include "probe/probe.h"

namespace mmaemu::probe {

/// One output element of one instruction of the integer unit for fa x fb:
/// k codes of A's row and B's column (one per byte), c and d as s32 codes.
/// saturate: the .satfinite variant.
struct IntegerBox {
  Fmt fa = Fmt::s8, fb = Fmt::s8;
  int m = 0, n = 0, k = 0;
  bool saturate = false;
  std::function<uint32_t(const uint8_t* a, const uint8_t* b, uint32_t c)> dot;
};

/// The box of model's integer unit for fa x fb (C API); throws
/// std::invalid_argument with the API's message if there is none (or, with
/// saturate, no .satfinite variant).
IntegerBox integer_black_box(const mmaemu_model* model, Fmt fa, Fmt fb, bool saturate);

struct IntegerFeatures {
  long calls = 0;
  std::string accepted;            // the A x B formats the C API takes for the model
  Det<bool> a_twos_complement;     // A's top-bit code is negative
  Det<bool> b_twos_complement;
  Det<bool> exact;                 // k products of the largest magnitude sum exactly
  Det<IntOverflow> overflow;       // the plain instruction
  Det<bool> has_satfinite;         // a .satfinite variant is offered
  Det<IntOverflow> satfinite;      // the .satfinite variant's rule (clamps)
  Det<SatPoint> sat_point;         // where .satfinite clamps
};

/// Runs every test on the unit for fa x fb of `model` (its plain
/// instruction and, when offered, the .satfinite variant). Throws
/// std::invalid_argument when the model has no integer unit for fa x fb.
IntegerFeatures detect_integer(const mmaemu_model* model, Fmt fa, Fmt fb);

void print_integer(std::ostream& os, const IntegerFeatures& f, const IntegerBox& box, const std::string& title);

const char* name(IntOverflow o);
const char* name(SatPoint p);

}  // namespace mmaemu::probe
