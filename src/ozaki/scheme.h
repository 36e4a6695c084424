// SPDX-License-Identifier: BSD-3-Clause
// FP64 GEMM emulated by the Ozaki schemes on a model's matrix unit
// (docs/ozaki.md): the scheme, the unit it runs on, and what the exactness
// check counts.
//
//   ozaki1:S      scheme I (Ozaki, Ogita, Oishi & Rump 2012; Mukunoki et al.
//                 2020 on fp16 units; Ootomo, Ozaki & Yokota 2024 on int8
//                 units): S slices of A by rows and of B by columns, the
//                 S(S+1)/2 slice products with s + t <= S + 1
//   ozaki1:S:all  the same with all S^2 slice products
//   ozaki2:N      scheme II (Ozaki, Uchino & Imamura 2025): integer scaling,
//                 N pairwise-coprime moduli, the modular products on the int8
//                 unit, Chinese remainder reconstruction
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "driver/schedule.h"
#include "models/model.h"

namespace mmaemu::ozaki {

enum class Kind : uint8_t { scheme1, scheme2 };

struct Scheme {
  Kind kind = Kind::scheme2;
  int count = 0;           // S slices (scheme I) or N moduli (scheme II)
  bool all_pairs = false;  // scheme I: all S^2 products (else the triangle)
};

inline constexpr int kMaxSlices = 40;
inline constexpr int kMaxModuli = 20;

/// Parses "ozaki1:S", "ozaki1:S:all" or "ozaki2:N" (case-insensitive).
/// Throws std::invalid_argument naming the valid forms and ranges.
Scheme parse_scheme(const std::string& text);
/// The canonical text ("ozaki1:7", "ozaki1:7:all", "ozaki2:14").
std::string scheme_name(const Scheme& s);
/// The valid forms, for messages.
const char* scheme_syntax();

/// The model has no unit for the input format asked for (the message lists
/// those that can carry scheme I).
struct NoUnit : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The unit a scheme runs on: the model's integer unit s8 x s8 -> s32 (or
/// s4 x s4 -> s32), or its floating-point unit input -> fp32 under a GEMM
/// schedule.
struct Unit {
  const ModelRow* row = nullptr;
  Fmt input = Fmt::s8;
  driver::Schedule schedule;  // float units; the chain for integer units
  bool integer() const { return info(input).is_integer(); }
};

/// The unit of `model` for `input` that can carry `scheme`, or
/// std::invalid_argument saying why not and what would work (scheme II
/// needs the int8 unit; fp32 and fp64 units are FMA chains, not slice
/// products; int4 slices carry 3 bits, so scheme I needs S >= 18 there; a
/// schedule other than the chain on an integer unit); NoUnit when the model
/// has no unit for `input`.
Unit resolve_unit(const Model& model, Fmt input, const std::string& schedule, const Scheme& scheme);

/// What the exactness check counts over one call (docs/ozaki.md,
/// "Exactness check"). A product element is one output element of one slice
/// product (scheme I) or one modular product (scheme II); it is exact when
/// the unit's result (every k chunk of it) equals the exact integer product.
struct Stats {
  uint64_t products = 0;                  // slice or modular products (each over all k)
  uint64_t product_elements = 0;          // products x m x n (checked calls)
  uint64_t inexact_product_elements = 0;  // of them, those the unit got wrong
  uint64_t inexact_outputs = 0;           // output elements with an inexact product
  bool checked = false;                   // the check ran
};

}  // namespace mmaemu::ozaki
