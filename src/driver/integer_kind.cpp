// SPDX-License-Identifier: BSD-3-Clause
// The integer units' plug-in of the steps loop nest (steps_nest.h;
// docs/kernels.md, "Adding a unit kind"; docs/models.md §11): ref::dot's
// bits for accum = integer rows on the SIMD kernel simd_integer_run16
// (kernels/integer_simd.cpp). What is the kind's own: reading the codes of
// an operand (driver::Operand of s8/u8/s4/u4 storage: one code per byte,
// or with fp4_packed two int4 codes per byte along k, element 2i in the
// low nibble, formats/int4_packing.h) into their values as int16, zero past
// the GEMM's k (whole instructions; a product of 0 changes no bits under
// any overflow rule), B's lane groups in pairs along k (the layout of
// LanePanel::i16), the kernel call with one or two A rows, and ref::step
// on every step when the plan has no kernel (the use_reference and
// simd_off options). No input is NaN or Inf, so no step is flagged for the
// special-value fallback. The chunks are whole instructions, so each chain
// runs along k in the model's order whatever the blocking or the threads.
// The epilogue stores the s32 accumulators as they are (epilogue.cpp).
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver/macro.h"
#include "driver/steps_nest.h"
#include "kernels/plan.h"
#include "ref/reference.h"

namespace mmaemu::driver {
namespace {

constexpr std::size_t L = kNestLanes;
static_assert(L == kernels::kSimdLanes);

// A chunk of vectors as the kernel reads them (A: rows, k contiguous; B:
// lane groups of 16 columns, in pairs along k).
struct IntPanel {
  std::size_t kp = 0;
  std::vector<int16_t> val;
  std::size_t held_bytes() const { return scratch_bytes(val); }
};
using Chunk = NestChunk<IntPanel>;

// The values of an operand format's codes (s4/u4: the low nibble).
std::array<int16_t, 256> value_table(Fmt f) {
  std::array<int16_t, 256> t{};
  for (unsigned c = 0; c < 256; ++c) t[c] = static_cast<int16_t>(int_value(f, c));
  return t;
}

struct IntKind {
  using APanel = IntPanel;
  using BPanel = IntPanel;
  static constexpr std::size_t panel_bytes = 2;  // of B's chunk per element: one int16
  static constexpr bool fp64 = false, registers_only = false, slices_ok = true;
  static constexpr const RangeSink* sink = nullptr;
  static constexpr std::size_t nc_cap = 0;
  const GemmCall& g;
  const ModelRow& row;
  bool simd;
  std::size_t step, kc_unit;
  std::array<int16_t, 256> ta, tb;

  explicit IntKind(const GemmCall& call)
      : g(call), row(call.row), simd(call.plan.simd), step(static_cast<std::size_t>(row.k)), kc_unit(step),
        ta(value_table(call.A.storage)), tb(value_table(call.B.storage)) {}

  // Element (line, l) of op(X) (A's lines are rows, B's columns), l < k.
  int16_t value(const Operand& X, bool is_a, const std::array<int16_t, 256>& t, std::size_t line,
                std::size_t l) const {
    const std::size_t r = is_a ? line : l / (X.fp4_packed ? 2 : 1), c = is_a ? l / (X.fp4_packed ? 2 : 1) : line;
    const std::size_t at = X.trans ? c * static_cast<std::size_t>(X.ld) + r : r * static_cast<std::size_t>(X.ld) + c;
    const uint8_t byte = static_cast<const uint8_t*>(X.data)[at];
    return t[X.fp4_packed ? (byte >> (4 * (l & 1))) & 0xF : byte];
  }

  void prepare(IntPanel&) const {}
  void shape_b(const Chunk& ch, IntPanel& b) const {
    b.kp = ch.kp;
    const std::size_t n = (ch.nc + L - 1) / L * L * ch.kp;
    if (b.val.size() < n) b.val.resize(n);
  }

  // Slice j of `slices` of lane group gg: element l of lane q at
  // [(l/2)*32 + 2q + l%2] of the group's block; zeros past k and past the
  // panel's columns (their results are never stored).
  void pack_b(const NestPanel& p, std::size_t k0, const Chunk& ch, IntPanel& b, std::size_t gg, std::size_t j,
              std::size_t slices) const {
    const std::size_t s0 = ch.steps * j / slices, s1 = ch.steps * (j + 1) / slices;
    const std::size_t l0 = s0 * step, l1 = s1 * step, lanes = std::min(L, p.nc - gg * L);
    const std::size_t real = std::min(l1, std::max(l0, ch.kc));
    int16_t* out = &b.val[gg * ch.kp * L];
    std::fill(out + l0 * L, out + l1 * L, int16_t{0});
    for (std::size_t l = l0; l < real; ++l) {
      int16_t* o = out + (l / 2) * 2 * L + l % 2;
      for (std::size_t q = 0; q < lanes; ++q) o[2 * q] = value(g.B, false, tb, p.j0 + gg * L + q, k0 + l);
    }
  }

  // Rows [i0, i0 + mc) of A for the chunk: row r at a.val[r*kp].
  void pack_a(const Chunk& ch, std::size_t k0, std::size_t i0, std::size_t mc, IntPanel& a) const {
    a.kp = ch.kp;
    if (a.val.size() < mc * ch.kp) a.val.resize(mc * ch.kp);
    for (std::size_t r = 0; r < mc; ++r) {
      int16_t* o = &a.val[r * ch.kp];
      for (std::size_t l = 0; l < ch.kc; ++l) o[l] = value(g.A, true, ta, i0 + r, k0 + l);
      std::fill(o + ch.kc, o + ch.kp, int16_t{0});
    }
  }

  // The reference: step after step, lane after lane (the codes are the
  // values' low bits).
  void reference(const Chunk& ch, const IntPanel& a, std::size_t r, std::size_t gg, std::size_t lanes,
                 uint32_t* acc) const {
    std::vector<uint64_t> ac(step), bc(step);
    const int16_t* av = &a.val[r * ch.kp];
    const int16_t* bv = &ch.b.val[gg * ch.kp * L];
    for (std::size_t s = 0; s < ch.steps; ++s) {
      const std::size_t l0 = s * step, len = std::min(step, ch.kc - l0);
      for (std::size_t q = 0; q < lanes; ++q) {
        for (std::size_t i = 0; i < len; ++i) {
          const std::size_t l = l0 + i;
          ac[i] = static_cast<uint64_t>(av[l]) & 0xFF;
          bc[i] = static_cast<uint64_t>(bv[(l / 2) * 2 * L + 2 * q + l % 2]) & 0xFF;
        }
        acc[q] = static_cast<uint32_t>(ref::step(row, len, ac.data(), bc.data(), acc[q]));
      }
    }
  }

  void task(const Chunk& ch, const NestPanel& p, std::size_t k0, const NestTask& t, IntPanel& a, uint32_t* acc32,
            uint64_t*) const {
    pack_a(ch, k0, t.i0, t.mc, a);
    const kernels::StepRun run{static_cast<int>(ch.steps), static_cast<int>(step), static_cast<int>(step)};
    // Groups outer, so that a group's B panel stays in cache for the rows;
    // two rows per kernel call.
    for (std::size_t gg = t.g0; gg < t.g1; ++gg) {
      const std::size_t w0 = gg * L, lanes = std::min(L, p.nc - w0);
      const kernels::LanePanel pb{.val = nullptr, .sig = nullptr, .exp = nullptr, .i16 = &ch.b.val[gg * ch.kp * L]};
      for (std::size_t r = 0; r < t.mc; r += kernels::kMaxRows) {
        const std::size_t rows = std::min<std::size_t>(kernels::kMaxRows, t.mc - r);
        alignas(64) uint32_t acc[kernels::kMaxRows * L] = {};
        for (std::size_t q = 0; q < rows; ++q) std::copy_n(acc32 + (r + q) * p.nc + w0, lanes, acc + q * L);
        if (!simd) {
          for (std::size_t q = 0; q < rows; ++q) reference(ch, a, r + q, gg, lanes, acc + q * L);
        } else if (ch.steps) {
          const kernels::RowPanel pa{.val = nullptr, .sig = nullptr, .exp = nullptr, .rows = static_cast<int>(rows),
                                     .stride = ch.kp, .i16 = &a.val[r * ch.kp]};
          g.plan.kernel(g.plan.simd_params, run, pa, pb, acc);
        }
        for (std::size_t q = 0; q < rows; ++q) std::copy_n(acc + q * L, lanes, acc32 + (r + q) * p.nc + w0);
      }
    }
  }
};

}  // namespace

void check_integer(const ModelRow& row, const Operand& A, const Operand& B) {
  if (A.storage != row.in || B.storage != row.in_b)
    throw std::invalid_argument(std::string("the integer unit ") + row.instr + " takes " + info(row.in).name + " x " +
                                info(row.in_b).name + ", not " + info(A.storage).name + " x " + info(B.storage).name);
  const bool int4 = info(row.in).width == 4;
  if ((A.fp4_packed || B.fp4_packed) && !int4)
    throw std::invalid_argument("packed operands (two codes per byte) are int4 (s4, u4) only");
}

void run_integer_macro(const GemmCall& g) {
  check_integer(g.row, g.A, g.B);
  run_steps_nest(g, IntKind(g));
}

}  // namespace mmaemu::driver
