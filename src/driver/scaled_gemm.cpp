// SPDX-License-Identifier: BSD-3-Clause
// The block-scaled macro-kernel (macro.h, run_scaled_macro): ref::scaled_gemm's
// bits (docs/block-scaled.md §4 and "Speed") on the SIMD kernels of
// kernels/scaled_simd.h. Operands are read where they are, a few lines at a
// time, through driver/scaled_source.h (the codes as stored, or fp32
// quantised line by line for the sgemm policies). Layout:
// B in blocks of columns (kBlockBytes), panels of 16 columns, and A by
// rows, each padded along k to whole instructions (zero elements, neutral
// scales: docs/block-scaled.md §4.3), decoded into what the kernels read
// (kernels/scaled_simd.h): element values and alignment exponents (T/ST),
// doubled e2m1 values, nonzero masks per group and scale values/exponents
// per block (GST). A step whose A row or B column holds a NaN/Inf element
// or a NaN scale is flagged at packing time and runs on the reference for
// the lanes it concerns; a unit plan() leaves out runs every step there.
//
// Work: per block of B, tasks of (kRowsPerTask rows of A, a group of the
// block's panels); a task's rows run their 16 chains chunk of steps by
// chunk of steps, each chain in the order along k, from the Epilogue's
// start to D in one task, so the bits never depend on the blocking or the
// thread count.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver/macro.h"
#include "driver/parallel.h"
#include "driver/scaled_decode.h"
#include "driver/scaled_source.h"
#include "driver/special_fallback.h"
#include "kernels/plan.h"
#include "ref/block_scaled.h"

namespace mmaemu::driver {
namespace {

constexpr std::size_t L = kernels::kScaledLanes;
static_assert(L == kFallbackLanes);
constexpr std::size_t kRowsPerTask = 32;
constexpr std::size_t kChunkBytes = 24 * 1024;  // of the B panel per chunk of steps: within L1
constexpr std::size_t kBlockBytes = std::size_t{24} << 20;  // of B's columns read and packed at a time
constexpr std::size_t kKeptBytes = std::size_t{16} << 20;   // of A's codes kept while B takes several blocks

// ---------------------------------------------------------------------------
// The geometry of one call.

struct Shape {
  std::size_t m, n, k, uk, steps, kp, block, nb, bps, kbp, groups, panels;
};

Shape shape_of(const ScaledUnit& u, std::size_t m, std::size_t n, std::size_t k) {
  Shape s{};
  s.m = m, s.n = n, s.k = k, s.uk = static_cast<std::size_t>(u.k);
  s.steps = (k + s.uk - 1) / s.uk;
  s.kp = s.steps * s.uk;
  s.block = static_cast<std::size_t>(u.block);
  s.nb = s.block ? k / s.block : 0;
  s.bps = s.block ? s.uk / s.block : 0;
  s.kbp = s.steps * s.bps;
  s.groups = u.group ? s.uk / static_cast<std::size_t>(u.group) : 0;
  s.panels = (n + L - 1) / L;
  return s;
}

// One operand (A by rows, or B by columns), k contiguous: element (r, l)
// and scale (r, t), padded past k.
struct Side {
  const uint8_t* codes;
  const uint8_t* scales;
  uint8_t neutral;
  const Shape& sh;
  uint8_t code(std::size_t r, std::size_t l) const { return l < sh.k ? codes[r * sh.k + l] : 0; }
  uint8_t scale(std::size_t r, std::size_t t) const { return t < sh.nb ? scales[r * sh.nb + t] : neutral; }
};

// ---------------------------------------------------------------------------
// Packed operands. A: per row; B: per panel, lane-interleaved.

struct StPacked {
  std::vector<float> val;
  std::vector<int16_t> exp;  // A: element l at [l]; B: in pairs (StLanePanel)
  std::vector<int32_t> scale_exp;
};
struct GstPacked {
  std::vector<float> val2;
  std::vector<uint32_t> nz;
  std::vector<double> scale;
  std::vector<int32_t> scale_exp;
};
struct Packed {
  StPacked st;
  GstPacked gst;
  std::vector<uint32_t> special;  // A: per (row, step) 0/1; B: per (panel, step) the lanes
};

// Writes operand row r as a lane of a panel (stride L) or as a row
// (stride 1); exponents go in pairs (element l at (l/2)*2*stride + l%2,
// which is l for a row); returns the special flags of its steps through
// `flag`.
template <typename Flag>
void pack_st(const ScaledUnit& u, const Shape& sh, const ElementTable& et, const ScaleTable& stab, const Side& x,
             std::size_t r, float* val, int16_t* exp, int32_t* sexp, std::size_t stride, Flag flag) {
  for (std::size_t s = 0; s < sh.steps; ++s) {
    bool special = false;
    for (std::size_t l = s * sh.uk; l < (s + 1) * sh.uk; ++l) {
      const ElementCode& c = et[x.code(r, l)];
      val[l * stride] = c.val;
      exp[(l / 2) * 2 * stride + l % 2] = static_cast<int16_t>(c.e);
      special |= c.special;
    }
    int32_t es = 0;
    if (u.algo == ScaledAlgo::st_fdpa) {
      const ScaleCode& sc = stab[x.scale(r, s * sh.uk / sh.block)];
      special |= sc.nan;
      es = sc.nan ? 0 : sc.st_exp;
    }
    sexp[s * stride] = es;
    if (special) flag(s);
  }
}

template <typename Flag>
void pack_gst(const Shape& sh, const ElementTable& et, const ScaleTable& stab, const Side& x, std::size_t r,
              float* val2, uint32_t* nz, double* scale, int32_t* sexp, std::size_t stride, Flag flag) {
  constexpr std::size_t kGroup = 16;
  for (std::size_t s = 0; s < sh.steps; ++s) {
    bool special = false;
    for (std::size_t g = 0; g < sh.groups; ++g) {
      uint32_t mask = 0;
      for (std::size_t i = 0; i < kGroup; ++i) {
        const std::size_t l = (s * sh.groups + g) * kGroup + i;
        const ElementCode& c = et[x.code(r, l)];
        val2[l * stride] = c.val;
        if (c.val != 0) mask |= 1u << i;
      }
      nz[(s * sh.groups + g) * stride] = mask;
    }
    for (std::size_t t = s * sh.bps; t < (s + 1) * sh.bps; ++t) {
      const ScaleCode& sc = stab[x.scale(r, t)];
      special |= sc.nan;
      scale[t * stride] = sc.val;
      sexp[t * stride] = sc.e;
    }
    if (special) flag(s);
  }
}

// Lines of one operand (rows of op(A) or columns of op(B)) as read from
// its source, k contiguous, and packed for the kernels.
struct Lines {
  std::vector<uint8_t> codes, scales;
  Packed packed;
};

// What one call reads: the operands' sources and the decode tables.
struct Engine {
  const ScaledCall& g;
  const ScaledUnit& u;
  const Shape& sh;
  const ScaledSource* A;  // the rows of A being run (the operand, or its codes kept)
  const ScaledSource& B;
  bool gst;
  ElementTable eta, etb;
  ScaleTable stab;
  bool simd() const { return g.plan.simd; }
};

// Reads `count` lines from x into l (k codes and nb scales each, `slots`
// lines of room).
void read_lines(const Engine& e, const ScaledSource& x, std::size_t r0, std::size_t count, std::size_t slots,
                Lines& l) {
  l.codes.resize(slots * e.sh.k);
  l.scales.resize(slots * e.sh.nb);
  x.lines(r0, count, l.codes.data(), l.scales.data());
}

// Rows [i0, i0 + rows) of A: per row kp elements, steps (ST) or kbp (GST) scales.
void pack_a(const Engine& e, std::size_t i0, std::size_t rows, Lines& a) {
  const ScaledUnit& u = e.u;
  const Shape& sh = e.sh;
  read_lines(e, *e.A, i0, rows, rows, a);
  if (!e.simd()) return;
  const Side x{a.codes.data(), a.scales.data(), neutral_scale(u.scale), sh};
  Packed& p = a.packed;
  p.special.assign(rows * sh.steps, 0);
  if (e.gst) {
    p.gst.val2.resize(rows * sh.kp);
    p.gst.nz.resize(rows * sh.steps * sh.groups);
    p.gst.scale.resize(rows * sh.kbp);
    p.gst.scale_exp.resize(rows * sh.kbp);
  } else {
    p.st.val.resize(rows * sh.kp);
    p.st.exp.resize(rows * sh.kp);
    p.st.scale_exp.resize(rows * sh.steps);
  }
  for (std::size_t i = 0; i < rows; ++i) {
    uint32_t* flags = &p.special[i * sh.steps];
    auto flag = [&](std::size_t s) { flags[s] = 1; };
    if (e.gst)
      pack_gst(sh, e.eta, e.stab, x, i, &p.gst.val2[i * sh.kp], &p.gst.nz[i * sh.steps * sh.groups],
               &p.gst.scale[i * sh.kbp], &p.gst.scale_exp[i * sh.kbp], 1, flag);
    else
      pack_st(u, sh, e.eta, e.stab, x, i, &p.st.val[i * sh.kp], &p.st.exp[i * sh.kp], &p.st.scale_exp[i * sh.steps],
              1, flag);
  }
}

// Columns [j0, j0 + cols) of B by panels of L columns, lane-interleaved;
// lanes past the columns stay zero elements with neutral scales.
void pack_b(const Engine& e, std::size_t j0, std::size_t cols, int threads, Lines& b) {
  const ScaledUnit& u = e.u;
  const Shape& sh = e.sh;
  const std::size_t P = (cols + L - 1) / L;
  b.codes.resize(P * L * sh.k);
  b.scales.resize(P * L * sh.nb);
  const Side x{b.codes.data(), b.scales.data(), neutral_scale(u.scale), sh};
  const ScaleCode& neutral = e.stab[neutral_scale(u.scale)];
  Packed& p = b.packed;
  if (e.simd()) {
    p.special.assign(P * sh.steps, 0);
    if (e.gst) {
      p.gst.val2.assign(P * sh.kp * L, 0.0f);
      p.gst.nz.assign(P * sh.steps * sh.groups * L, 0);
      p.gst.scale.assign(P * sh.kbp * L, neutral.val);
      p.gst.scale_exp.assign(P * sh.kbp * L, neutral.e);
    } else {
      p.st.val.assign(P * sh.kp * L, 0.0f);
      p.st.exp.assign(P * sh.kp * L, static_cast<int16_t>(kScaledZero));
      p.st.scale_exp.assign(P * sh.steps * L, 0);
    }
  }
  parallel_for(threads, P, Assign::blocks, [&](std::size_t q) {
    const std::size_t lanes = std::min(L, cols - q * L);
    e.B.lines(j0 + q * L, lanes, b.codes.data() + q * L * sh.k, b.scales.data() + q * L * sh.nb);
    if (!e.simd()) return;
    uint32_t* flags = &p.special[q * sh.steps];
    for (std::size_t j = 0; j < lanes; ++j) {
      auto flag = [&](std::size_t s) { flags[s] |= 1u << j; };
      const std::size_t col = q * L + j;
      if (e.gst)
        pack_gst(sh, e.etb, e.stab, x, col, &p.gst.val2[q * sh.kp * L + j], &p.gst.nz[q * sh.steps * sh.groups * L + j],
                 &p.gst.scale[q * sh.kbp * L + j], &p.gst.scale_exp[q * sh.kbp * L + j], L, flag);
      else
        pack_st(u, sh, e.etb, e.stab, x, col, &p.st.val[q * sh.kp * L + j], &p.st.exp[q * sh.kp * L + 2 * j],
                &p.st.scale_exp[q * sh.steps * L + j], L, flag);
    }
  });
}

// ---------------------------------------------------------------------------
// The chains.

// One task's view: rows of A (local index r) against panels of B (local
// index q), the output block starting at (i0, j0).
struct Call {
  const Engine& e;
  const Lines& a;
  const Lines& b;
  std::size_t i0, j0;
};

// Steps [s0, s0 + count) of row r against panel q on the SIMD kernel.
void run_simd(const Call& c, std::size_t i, std::size_t q, std::size_t s0, std::size_t count, uint32_t* acc) {
  const Shape& sh = c.e.sh;
  const kernels::KernelPlan& plan = c.e.g.plan;
  const Packed& pa = c.a.packed;
  const Packed& pb = c.b.packed;
  const int steps = static_cast<int>(count);
  if (plan.scaled == kernels::ScaledKernel::st) {
    const std::size_t ea = i * sh.kp + s0 * sh.uk, eb = (q * sh.kp + s0 * sh.uk) * L;
    const kernels::StRowPanel a{&pa.st.val[ea], &pa.st.exp[ea], &pa.st.scale_exp[i * sh.steps + s0]};
    const kernels::StLanePanel b{&pb.st.val[eb], &pb.st.exp[eb], &pb.st.scale_exp[(q * sh.steps + s0) * L]};
    return kernels::simd_st_run16(plan.scaled_params, steps, a, b, acc);
  }
  const std::size_t ea = i * sh.kp + s0 * sh.uk, eb = (q * sh.kp + s0 * sh.uk) * L;
  const std::size_t ga = (i * sh.steps + s0) * sh.groups, gb = (q * sh.steps + s0) * sh.groups * L;
  const std::size_t ta = i * sh.kbp + s0 * sh.bps, tb = (q * sh.kbp + s0 * sh.bps) * L;
  const kernels::GstRowPanel a{&pa.gst.val2[ea], &pa.gst.nz[ga], &pa.gst.scale[ta], &pa.gst.scale_exp[ta]};
  const kernels::GstLanePanel b{&pb.gst.val2[eb], &pb.gst.nz[gb], &pb.gst.scale[tb], &pb.gst.scale_exp[tb]};
  kernels::simd_gst_run16(plan.scaled_params, steps, a, b, acc);
}

// Step s of row r of A against column `col` of B (local indices) on the
// reference step of ref::scaled_chain (the last one padded).
uint32_t reference_step(const Call& c, std::size_t r, std::size_t col, std::size_t s, uint32_t acc) {
  const Shape& sh = c.e.sh;
  const std::size_t l0 = s * sh.uk, t0 = sh.block ? l0 / sh.block : 0;
  const ref::ScaledStep st{c.e.g.A.storage,
                           c.e.g.B.storage,
                           &c.a.codes[r * sh.k + l0],
                           &c.b.codes[col * sh.k + l0],
                           sh.block ? &c.a.scales[r * sh.nb + t0] : nullptr,
                           sh.block ? &c.b.scales[col * sh.nb + t0] : nullptr,
                           acc};
  return static_cast<uint32_t>(ref::scaled_step(c.e.u, Fmt::fp32, st, std::min(sh.uk, sh.k - l0)));
}

// Steps [s0, s1) of row r's chains against panel q: runs of clean steps
// on the kernel; a flagged step on the kernel for its clean lanes and on
// the reference for the others (the special-value fallback). Without a
// kernel every step runs on the reference.
void run_chain(const Call& c, std::size_t r, std::size_t q, std::size_t lanes, std::size_t s0, std::size_t s1,
               uint32_t* acc) {
  const Shape& sh = c.e.sh;
  if (!c.e.simd()) {
    for (std::size_t s = s0; s < s1; ++s)
      for (std::size_t j = 0; j < lanes; ++j) acc[j] = reference_step(c, r, q * L + j, s, acc[j]);
    return;
  }
  const uint32_t* fa = &c.a.packed.special[r * sh.steps];
  const uint32_t* fb = &c.b.packed.special[q * sh.steps];
  const uint32_t real = lanes == L ? ~0u : (1u << lanes) - 1;
  steps_with_fallback(
      s0, s1, acc, [&](std::size_t s) { return fa[s] || fb[s]; },
      [&](std::size_t s) { return (fa[s] ? ~0u : fb[s]) & real; },
      [&](std::size_t s, std::size_t e) { run_simd(c, r, q, s, e - s, acc); },
      [&](std::size_t j, std::size_t s, uint32_t before) { return reference_step(c, r, q * L + j, s, before); });
}

// Rows [r0, r1) (at most kRowsPerTask) against panel q, from the
// epilogue's start to D; chain: whether any step runs (k > 0). The steps go
// in chunks of about kChunkBytes of the B panel, each chunk through every
// row while it is in L1; every chain still takes its steps in order.
void run_rows(const Call& c, bool chain, std::size_t q, std::size_t r0, std::size_t r1, std::size_t n_block) {
  const Epilogue& ep = c.e.g.epilogue;
  const std::size_t lanes = std::min(L, n_block - q * L), rows = r1 - r0, j0 = c.j0 + q * L;
  alignas(64) uint32_t acc[kRowsPerTask][L] = {};
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < lanes; ++j) acc[r][j] = static_cast<uint32_t>(ep.initial_acc(c.i0 + r0 + r, j0 + j));
  if (chain) {
    const std::size_t step_bytes = c.e.sh.uk * L * 8, chunk = std::max<std::size_t>(1, kChunkBytes / step_bytes);
    for (std::size_t s0 = 0; s0 < c.e.sh.steps; s0 += chunk)
      for (std::size_t r = 0; r < rows; ++r)
        run_chain(c, r0 + r, q, lanes, s0, std::min(c.e.sh.steps, s0 + chunk), acc[r]);
  }
  for (std::size_t r = 0; r < rows; ++r) ep.store_row(acc[r], c.i0 + r0 + r, j0, lanes);
}

// Columns of B per block: what keeps the block's codes and packed panels
// within `bytes` (about 8 bytes per element), a whole number of panels.
std::size_t block_columns(const Shape& sh, std::size_t bytes) {
  const std::size_t per_col = std::max<std::size_t>(sh.kp, 1) * 8;
  return std::min(sh.panels, std::max<std::size_t>(1, bytes / per_col / L)) * L;
}

// Rows of A whose codes and scales fit in kKeptBytes, whole tasks.
std::size_t kept_rows(const Shape& sh) {
  const std::size_t per_row = std::max<std::size_t>(sh.k + sh.nb, 1);
  return std::max<std::size_t>(1, kKeptBytes / per_row / kRowsPerTask) * kRowsPerTask;
}

// Rows [i0, i0 + rows) of A against every block of B's columns.
void run_row_block(Engine& e, bool chain, std::size_t i0b, std::size_t mrows, std::size_t nc, Lines& bl) {
  const std::size_t n = e.g.n, row_tasks = (mrows + kRowsPerTask - 1) / kRowsPerTask;
  const int threads = e.g.threads;
  for (std::size_t j0 = 0; j0 < n; j0 += nc) {
    const std::size_t cols = std::min(nc, n - j0), P = (cols + L - 1) / L;
    if (chain) pack_b(e, j0, cols, threads, bl);
    // Enough tasks for the threads: the block's panels in groups when A has few rows.
    const std::size_t want = 4 * static_cast<std::size_t>(threads);
    const std::size_t groups = std::min(P, row_tasks >= want ? 1 : (want + row_tasks - 1) / row_tasks);
    const std::size_t per_group = (P + groups - 1) / groups;
    // (parallel_for: no FTZ/DAZ, round to nearest, as the kernels' exact arithmetic needs)
    parallel_for(threads, row_tasks * groups, Assign::dynamic, [&](std::size_t t) {
      const std::size_t i0 = i0b + (t / groups) * kRowsPerTask, rows = std::min(kRowsPerTask, i0b + mrows - i0);
      const std::size_t q0 = (t % groups) * per_group, q1 = std::min(P, q0 + per_group);
      Lines al;
      if (chain) pack_a(e, i0, rows, al);
      const Call call{e, al, bl, i0, j0};
      for (std::size_t q = q0; q < q1; ++q) run_rows(call, chain, q, 0, rows, cols);
    });
  }
}

// A GemmSpec field the block-scaled path does not read, set to other than
// its default: refused rather than ignored.
void refuse_unread(bool set, const char* field, const char* why) {
  if (set)
    throw std::invalid_argument(std::string("a block-scaled GEMM does not read GemmSpec::") + field + " (" + why +
                                "): leave it at its default");
}

}  // namespace

void check_scaled(const GemmSpec& spec, std::size_t k, const Operand& A, const Operand& B, Fmt c_storage) {
  refuse_unread(spec.row != nullptr, "row", "the unit, GemmSpec::scaled, takes its place");
  refuse_unread(spec.input_round != Round::rne, "input_round", "the operands are element codes, not converted");
  refuse_unread(spec.input_overflow != Overflow::ieee, "input_overflow",
                "the operands are element codes, not converted");
  const ScaledUnit& u = *spec.scaled->unit;
  if (u.block && k % static_cast<std::size_t>(u.block))
    throw std::invalid_argument("k = " + std::to_string(k) + " is not a multiple of block_size " +
                                std::to_string(u.block));
  if (!(u.elements & fmt_bit(A.storage)) || !(u.elements & fmt_bit(B.storage)))
    throw std::invalid_argument(std::string(u.instruction) + " does not take " + info(A.storage).name + " x " +
                                info(B.storage).name);
  if (!A.lines || !B.lines || c_storage != Fmt::fp32)
    throw std::invalid_argument("a block-scaled GEMM reads its operands through lines and stores fp32");
}

void run_scaled_macro(const ScaledCall& g) {
  const ScaledUnit& u = *g.spec.unit;
  const Shape sh = shape_of(u, g.m, g.n, g.k);
  const bool chain = sh.steps > 0;
  const bool gst = u.algo == ScaledAlgo::gst_fdpa;
  Engine e{g, u, sh, g.A.lines, *g.B.lines, gst, element_table(g.A.storage, u.subnormals, gst),
           element_table(g.B.storage, u.subnormals, gst), scale_table(u.scale)};
  // Blocks of B's columns, each read and packed once and taken by every
  // row of A; a task reads and packs its rows of A (all of k) and runs them
  // against a group of the block's panels. Where B takes more than one
  // block, A's rows are read once (quantised, for the sgemm policies) and
  // their codes kept, as many rows at a time as fit in kKeptBytes.
  // Memory: B's block, the kept codes, and kRowsPerTask rows per thread.
  const std::size_t nc = chain ? block_columns(sh, g.spec.block_bytes ? g.spec.block_bytes : kBlockBytes) : g.n;
  const bool keep = nc < g.n;
  const std::size_t mc = keep ? kept_rows(sh) : g.m;
  const ScaledSource& a = *g.A.lines;
  const int threads = g.threads;
  Lines bl, kept;
  for (std::size_t i0 = 0; i0 < g.m; i0 += mc) {
    const std::size_t rows = std::min(mc, g.m - i0);
    if (keep) {
      kept.codes.resize(rows * sh.k);
      kept.scales.resize(rows * sh.nb);
      const std::size_t tasks = (rows + kRowsPerTask - 1) / kRowsPerTask;
      parallel_for(threads, tasks, Assign::blocks, [&](std::size_t t) {
        const std::size_t r = t * kRowsPerTask;
        a.lines(i0 + r, std::min(kRowsPerTask, rows - r), kept.codes.data() + r * sh.k, kept.scales.data() + r * sh.nb);
      });
    }
    const CanonicalLines codes(kept.codes.data(), kept.scales.data(), sh.k, sh.nb, i0);
    if (keep) e.A = &codes;
    run_row_block(e, chain, i0, rows, nc, bl);
  }
}

}  // namespace mmaemu::driver
