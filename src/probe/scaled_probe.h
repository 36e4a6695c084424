// SPDX-License-Identifier: BSD-3-Clause
// The feature probe for the block-scaled and narrow-format units
// (docs/block-scaled.md), run through the public C API only
// (mmaemu_tile_block_scaled on one output element): what a user of the
// instruction knows -- element and scale formats, block size, k -- and the
// outputs of targeted vectors. It reports F (the alignment window), the
// group of products summed exactly before alignment, and where the scales
// enter, or says why it cannot.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <string>

#include "formats/format.h"
#include "mmaemu/mmaemu.h"
#include "probe/probe.h"

namespace mmaemu::probe {

/// One element (row 0, column 0) of one instruction: k element codes of A's
/// row and B's column, k/block scale codes of each, c and d as fp32 bits.
struct ScaledBox {
  Fmt fa = Fmt::e4m3, fb = Fmt::e4m3, scale = Fmt::ue8m0;
  int block = 0;  // 0: unscaled
  int k = 0;
  std::string instruction;
  std::function<uint32_t(const uint8_t* a, const uint8_t* b, const uint8_t* sa, const uint8_t* sb, uint32_t c)> dot;
};

/// The box of the unit `desc` selects on `model` (C API); throws
/// std::invalid_argument with the API's message if there is none.
ScaledBox scaled_black_box(const mmaemu_model* model, const mmaemu_block_scale_desc& desc);

struct ScaledFeatures {
  long calls = 0;
  Det<int> frac;  // F: fraction bits kept below the largest alignment exponent
  Det<int> group;      // products summed exactly before alignment (1: each on its own)
  Det<bool> scale_blocks;       // one scale per `block` consecutive elements, A by row and B by column
  Det<bool> scales_before_alignment;  // scaled products are exact terms of the fused sum
};

ScaledFeatures detect_scaled(const ScaledBox& box);

void print_scaled(std::ostream& os, const ScaledFeatures& f, const ScaledBox& box, const std::string& title);

}  // namespace mmaemu::probe
