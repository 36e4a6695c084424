// SPDX-License-Identifier: BSD-3-Clause
// The integer units' plug-in of the steps loop nest (steps_nest.h;
// docs/kernels.md, "Adding a unit kind"; docs/models.md §11): ref::dot's
// bits for accum = integer rows on the register-blocked tile
// simd_integer_tile (kernels/integer_simd.h; the step kernel
// simd_integer_run16's arithmetic). What is the kind's own: reading the
// codes of an operand (driver::Operand of s8/u8/s4/u4 storage: one code
// per byte, or with fp4_packed two int4 codes per byte along k, element 2i
// in the low nibble, formats/int4_packing.h) into their values as int16,
// zero past the GEMM's k (whole instructions; a product of 0 changes no
// bits under any overflow rule), B's lane groups in pairs along k (the
// layout of LanePanel::i16; s8/u8 operands whose lines are contiguous in
// memory through loops the compiler vectorises), a task's rows and lane
// groups in one call of the tile (straight into the accumulators), and
// ref::step on every step when the plan has no kernel (the use_reference
// and simd_off options). No input is NaN or Inf, so no step is flagged for
// the special-value fallback. The chunks are whole instructions, so each
// chain runs along k in the model's order whatever the blocking or the
// threads. The epilogue stores the s32 accumulators as they are
// (epilogue.cpp).
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver/epilogue.h"
#include "driver/macro.h"
#include "driver/parallel.h"
#include "driver/steps_nest.h"
#include "kernels/integer_simd.h"
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

// The contiguous operands' packing, s8 or u8 storage (loops the compiler
// vectorises): n codes at src, their values to out[i];
void byte_values(Fmt f, const uint8_t* src, std::size_t n, int16_t* out) {
  if (f == Fmt::s8)
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<int8_t>(src[i]);
  else
    for (std::size_t i = 0; i < n; ++i) out[i] = src[i];
}
// and two lines' n codes (lo, hi; hi null: zeros) interleaved, out[2i] =
// lo[i], out[2i + 1] = hi[i] (B's pairs along k; n <= 16).
void byte_pairs(Fmt f, const uint8_t* lo, const uint8_t* hi, std::size_t n, int16_t* out) {
  alignas(16) uint8_t h[16] = {};
  if (hi) std::copy_n(hi, n, h);
  const bool s = f == Fmt::s8;
  for (std::size_t i = 0; i < n; ++i) {
    out[2 * i] = s ? static_cast<int8_t>(lo[i]) : lo[i];
    out[2 * i + 1] = s ? static_cast<int8_t>(h[i]) : h[i];
  }
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

  // One code per byte (s8, u8) with a panel's line contiguous in memory:
  // A's rows along k (not transposed), B's rows along the columns (not
  // transposed).
  static bool contiguous(const Operand& X) {
    return !X.fp4_packed && !X.trans && (X.storage == Fmt::s8 || X.storage == Fmt::u8);
  }
  static std::size_t ld(const Operand& X) { return static_cast<std::size_t>(X.ld); }

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
    // Zeros where no code goes: all of a partial group, else the pairs past k.
    std::fill(out + (lanes < L ? l0 : std::max(l0, (real + 1) / 2 * 2)) * L, out + l1 * L, int16_t{0});
    const std::size_t col = p.j0 + gg * L;
    if (contiguous(g.B)) {  // rows k0 + l and k0 + l + 1 of B: the lanes' codes side by side
      const uint8_t* rows = static_cast<const uint8_t*>(g.B.data) + k0 * ld(g.B) + col;
      for (std::size_t l = l0; l < real; l += 2)
        byte_pairs(g.B.storage, rows + l * ld(g.B), l + 1 < real ? rows + (l + 1) * ld(g.B) : nullptr, lanes,
                   out + l * L);
      return;
    }
    for (std::size_t l = l0; l < real; ++l) {
      int16_t* o = out + (l / 2) * 2 * L + l % 2;
      for (std::size_t q = 0; q < lanes; ++q) o[2 * q] = value(g.B, false, tb, col + q, k0 + l);
      if (l + 1 == real && real % 2) {  // the pair's other half: zeros
        for (std::size_t q = 0; q < lanes; ++q) o[2 * q + 1] = 0;
      }
    }
  }

  // Rows [i0, i0 + mc) of A for the chunk: row r at a.val[r*kp].
  void pack_a(const Chunk& ch, std::size_t k0, std::size_t i0, std::size_t mc, IntPanel& a) const {
    a.kp = ch.kp;
    if (a.val.size() < mc * ch.kp) a.val.resize(mc * ch.kp);
    for (std::size_t r = 0; r < mc; ++r) {
      int16_t* o = &a.val[r * ch.kp];
      if (contiguous(g.A))  // row i0 + r of A: k contiguous
        byte_values(g.A.storage, static_cast<const uint8_t*>(g.A.data) + (i0 + r) * ld(g.A) + k0, ch.kc, o);
      else
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

  // The task's rows against its lane groups: the whole groups on the
  // register-blocked tile, straight into the accumulators (row stride
  // p.nc); a last group of fewer than 16 columns through a copy of its
  // lanes (the tile writes 16).
  void task(const Chunk& ch, const NestPanel& p, std::size_t k0, const NestTask& t, IntPanel& a, uint32_t* acc32,
            uint64_t*) const {
    pack_a(ch, k0, t.i0, t.mc, a);
    if (!simd) return reference_task(ch, p, t, a, acc32);
    const kernels::StepRun run{static_cast<int>(ch.steps), static_cast<int>(step), static_cast<int>(step)};
    const std::size_t whole = std::min(t.g1, std::max(t.g0, p.nc / L));  // groups [g0, whole) have 16 columns
    kernels::IntTile tile;
    tile.a = a.val.data(), tile.a_stride = ch.kp, tile.b_stride = ch.kp * L, tile.rows = static_cast<int>(t.mc);
    if (whole > t.g0) {
      tile.b = &ch.b.val[t.g0 * ch.kp * L], tile.acc = acc32 + t.g0 * L, tile.ldc = p.nc;
      tile.groups = static_cast<int>(whole - t.g0);
      kernels::simd_integer_tile(g.plan.simd_params, run, tile);
    }
    if (whole == t.g1) return;
    constexpr std::size_t kRows = 32;  // rows per copy
    alignas(64) uint32_t part[kRows * L];
    const std::size_t w0 = whole * L, lanes = p.nc - w0;
    tile.b = &ch.b.val[whole * ch.kp * L], tile.acc = part, tile.ldc = L, tile.groups = 1;
    for (std::size_t r0 = 0; r0 < t.mc; r0 += kRows) {
      const std::size_t rows = std::min(kRows, t.mc - r0);
      for (std::size_t r = 0; r < rows; ++r) std::copy_n(acc32 + (r0 + r) * p.nc + w0, lanes, part + r * L);
      tile.a = &a.val[r0 * ch.kp], tile.rows = static_cast<int>(rows);
      kernels::simd_integer_tile(g.plan.simd_params, run, tile);
      for (std::size_t r = 0; r < rows; ++r) std::copy_n(part + r * L, lanes, acc32 + (r0 + r) * p.nc + w0);
    }
  }

  // The plan has no kernel: ref::step on every step of every row and lane.
  void reference_task(const Chunk& ch, const NestPanel& p, const NestTask& t, const IntPanel& a,
                      uint32_t* acc32) const {
    for (std::size_t gg = t.g0; gg < t.g1; ++gg) {
      const std::size_t w0 = gg * L, lanes = std::min(L, p.nc - w0);
      for (std::size_t r = 0; r < t.mc; ++r) reference(ch, a, r, gg, lanes, acc32 + r * p.nc + w0);
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

namespace {

// Few columns and long k under the wrap rule (the shapes the steps nest
// runs as its few-columns pipeline): s32 addition modulo 2^32 is
// associative and commutative, so k may be cut into pieces of whole
// instructions whose sums are added in any order with the same bits
// (docs/models.md §11). The pieces go one at a time to whichever thread is
// free (Assign::dynamic): a thread that loses its core holds up one piece,
// not a row stream for a time slice. The clamping rules (satfinite) are
// not associative and keep the pipeline.
constexpr std::size_t kPiecesPerThread = 16;

// The pieces to cut k into; 0: run the steps nest as it is.
std::size_t split_k_pieces(const GemmCall& g) {
  const std::size_t threads = static_cast<std::size_t>(std::max(g.threads, 1));
  if (g.row.overflow != IntOverflow::wrap || threads < 2 || g.m == 0 || !few_columns_shape(g.m, g.n, g.threads))
    return 0;
  const std::size_t pieces = std::min(kPiecesPerThread * threads, g.k / kKFewColumns);
  return pieces >= 2 * threads ? pieces : 0;
}

// op(X) from k index k0 on (k0 even: whole instructions, so a packed int4
// operand's byte boundary).
Operand from_k(const Operand& X, bool is_a, std::size_t k0) {
  Operand o = X;
  const std::size_t e = k0 / (X.fp4_packed ? 2 : 1);
  const bool across_lines = is_a == X.trans;  // k is the line index: ld apart
  o.data = static_cast<const uint8_t*>(X.data) + (across_lines ? e * static_cast<std::size_t>(X.ld) : e);
  return o;
}

void run_split_k(const GemmCall& g, std::size_t pieces) {
  const std::size_t step = static_cast<std::size_t>(g.row.k), mn = g.m * g.n;
  std::vector<uint32_t> part(pieces * mn);
  const auto bound = [&](std::size_t p) { return p == pieces ? g.k : g.k * p / pieces / step * step; };
  parallel_for(g.threads, pieces, Assign::dynamic, [&](std::size_t p) {
    const Operand a = from_k(g.A, true, bound(p)), b = from_k(g.B, false, bound(p));
    const Epilogue sums(g.spec, 1.0, 0.0, Fmt::s32, &part[p * mn], static_cast<std::ptrdiff_t>(g.n));
    const GemmCall piece{MacroArgs{g.m, g.n, bound(p + 1) - bound(p), a, b, 1, sums, g.plan}, g.spec, g.row};
    run_steps_nest(piece, IntKind(piece));
  });
  std::vector<uint32_t> acc(g.n);
  for (std::size_t i = 0; i < g.m; ++i) {
    for (std::size_t j = 0; j < g.n; ++j) {
      acc[j] = static_cast<uint32_t>(g.epilogue.initial_acc(i, j));
      for (std::size_t p = 0; p < pieces; ++p) acc[j] += part[p * mn + i * g.n + j];  // modulo 2^32
    }
    g.epilogue.store_row(acc.data(), i, 0, g.n);
  }
}

}  // namespace

void run_integer_macro(const GemmCall& g) {
  check_integer(g.row, g.A, g.B);
  if (const std::size_t pieces = split_k_pieces(g)) return run_split_k(g, pieces);
  run_steps_nest(g, IntKind(g));
}

}  // namespace mmaemu::driver
