// SPDX-License-Identifier: BSD-3-Clause
// The block-scaled GEMM on the SIMD kernels. Layout: A's rows and B's
// panels of 16 columns, each padded along k to whole instructions (zero
// elements, neutral scales: docs/block-scaled.md §4.3), decoded once into
// what the kernels read (kernels/scaled_simd.h): element values and
// alignment exponents (T/ST), doubled e2m1 values, nonzero masks per group
// and scale values/exponents per block (GST). A step whose A row or B
// column holds a NaN/Inf element or a NaN scale is flagged at packing time
// and runs on the reference for the lanes it concerns.
//
// Work: tasks of (one B panel, kRowsPerTask rows of A); the task's rows
// run their 16 chains chunk of steps by chunk of steps, each chain in the
// order along k, so the bits never depend on the thread count.
#include "driver/scaled_gemm.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver/gemm.h"
#include "driver/scaled_decode.h"
#include "kernels/scaled_plan.h"

namespace mmaemu::driver {
namespace {

constexpr std::size_t L = fast::kScaledLanes;
constexpr std::size_t kRowsPerTask = 32;
constexpr std::size_t kChunkBytes = 24 * 1024;  // of the B panel per chunk of steps: within L1
constexpr std::size_t kMaxStepK = 64;
constexpr std::size_t kMinWorkPerThread = 4096;  // (row, panel, step) units, about 1 ms  // scaled_plan's largest k

// ---------------------------------------------------------------------------
// The geometry of one call.

struct Shape {
  std::size_t m, n, k, uk, steps, kp, block, nb, bps, kbp, groups, panels;
};

Shape shape_of(const ref::ScaledGemm& g) {
  const ScaledUnit& u = *g.unit;
  Shape s{};
  s.m = g.m, s.n = g.n, s.k = g.k, s.uk = static_cast<std::size_t>(u.k);
  s.steps = (g.k + s.uk - 1) / s.uk;
  s.kp = s.steps * s.uk;
  s.block = static_cast<std::size_t>(u.block);
  s.nb = s.block ? g.k / s.block : 0;
  s.bps = s.block ? s.uk / s.block : 0;
  s.kbp = s.steps * s.bps;
  s.groups = u.group ? s.uk / static_cast<std::size_t>(u.group) : 0;
  s.panels = (g.n + L - 1) / L;
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

// A by rows: per row kp elements, steps (ST) or kbp (GST) scales.
Packed pack_a(const ref::ScaledGemm& g, const Shape& sh, int threads) {
  const ScaledUnit& u = *g.unit;
  const bool gst = u.algo == ScaledAlgo::gst_fdpa;
  const ElementTable et = element_table(g.fa, u.narrow_subnormals, gst);
  const ScaleTable stab = scale_table(u.scale);
  const Side x{g.A, g.SA, neutral_scale(u.scale), sh};
  Packed p;
  p.special.assign(sh.m * sh.steps, 0);
  if (gst) {
    p.gst.val2.resize(sh.m * sh.kp);
    p.gst.nz.resize(sh.m * sh.steps * sh.groups);
    p.gst.scale.resize(sh.m * sh.kbp);
    p.gst.scale_exp.resize(sh.m * sh.kbp);
  } else {
    p.st.val.resize(sh.m * sh.kp);
    p.st.exp.resize(sh.m * sh.kp);
    p.st.scale_exp.resize(sh.m * sh.steps);
  }
  parallel_for(threads, sh.m, Assign::blocks, [&](std::size_t i) {
    uint32_t* flags = &p.special[i * sh.steps];
    auto flag = [&](std::size_t s) { flags[s] = 1; };
    if (gst)
      pack_gst(sh, et, stab, x, i, &p.gst.val2[i * sh.kp], &p.gst.nz[i * sh.steps * sh.groups],
               &p.gst.scale[i * sh.kbp], &p.gst.scale_exp[i * sh.kbp], 1, flag);
    else
      pack_st(u, sh, et, stab, x, i, &p.st.val[i * sh.kp], &p.st.exp[i * sh.kp], &p.st.scale_exp[i * sh.steps], 1,
              flag);
  });
  return p;
}

// B by panels of L columns, lane-interleaved; lanes past n stay zero
// elements with neutral scales.
Packed pack_b(const ref::ScaledGemm& g, const Shape& sh, int threads) {
  const ScaledUnit& u = *g.unit;
  const bool gst = u.algo == ScaledAlgo::gst_fdpa;
  const ElementTable et = element_table(g.fb, u.narrow_subnormals, gst);
  const ScaleTable stab = scale_table(u.scale);
  const Side x{g.B, g.SB, neutral_scale(u.scale), sh};
  const std::size_t P = sh.panels;
  const ScaleCode& neutral = stab[neutral_scale(u.scale)];
  Packed p;
  p.special.assign(P * sh.steps, 0);
  if (gst) {
    p.gst.val2.assign(P * sh.kp * L, 0.0f);
    p.gst.nz.assign(P * sh.steps * sh.groups * L, 0);
    p.gst.scale.assign(P * sh.kbp * L, neutral.val);
    p.gst.scale_exp.assign(P * sh.kbp * L, neutral.e);
  } else {
    p.st.val.assign(P * sh.kp * L, 0.0f);
    p.st.exp.assign(P * sh.kp * L, static_cast<int16_t>(kScaledZero));
    p.st.scale_exp.assign(P * sh.steps * L, 0);
  }
  parallel_for(threads, P, Assign::blocks, [&](std::size_t q) {
    uint32_t* flags = &p.special[q * sh.steps];
    for (std::size_t j = 0; j < L && q * L + j < sh.n; ++j) {
      auto flag = [&](std::size_t s) { flags[s] |= 1u << j; };
      const std::size_t col = q * L + j;
      if (gst)
        pack_gst(sh, et, stab, x, col, &p.gst.val2[q * sh.kp * L + j], &p.gst.nz[q * sh.steps * sh.groups * L + j],
                 &p.gst.scale[q * sh.kbp * L + j], &p.gst.scale_exp[q * sh.kbp * L + j], L, flag);
      else
        pack_st(u, sh, et, stab, x, col, &p.st.val[q * sh.kp * L + j], &p.st.exp[q * sh.kp * L + 2 * j],
                &p.st.scale_exp[q * sh.steps * L + j], L, flag);
    }
  });
  return p;
}

// ---------------------------------------------------------------------------
// The chains.

struct Call {
  const ref::ScaledGemm& g;
  const Shape& sh;
  const fast::ScaledPlan& plan;
  const Packed& a;
  const Packed& b;
};

// Steps [s0, s0 + count) of row i against panel q on the SIMD kernel.
void run_simd(const Call& c, std::size_t i, std::size_t q, std::size_t s0, std::size_t count, uint32_t* acc) {
  const Shape& sh = c.sh;
  const int steps = static_cast<int>(count);
  if (c.plan.kernel == fast::ScaledKernel::st) {
    const std::size_t ea = i * sh.kp + s0 * sh.uk, eb = (q * sh.kp + s0 * sh.uk) * L;
    const fast::StRowPanel a{&c.a.st.val[ea], &c.a.st.exp[ea], &c.a.st.scale_exp[i * sh.steps + s0]};
    const fast::StLanePanel b{&c.b.st.val[eb], &c.b.st.exp[eb], &c.b.st.scale_exp[(q * sh.steps + s0) * L]};
    return fast::simd_st_run16(c.plan.params, steps, a, b, acc);
  }
  const std::size_t ea = i * sh.kp + s0 * sh.uk, eb = (q * sh.kp + s0 * sh.uk) * L;
  const std::size_t ga = (i * sh.steps + s0) * sh.groups, gb = (q * sh.steps + s0) * sh.groups * L;
  const std::size_t ta = i * sh.kbp + s0 * sh.bps, tb = (q * sh.kbp + s0 * sh.bps) * L;
  const fast::GstRowPanel a{&c.a.gst.val2[ea], &c.a.gst.nz[ga], &c.a.gst.scale[ta], &c.a.gst.scale_exp[ta]};
  const fast::GstLanePanel b{&c.b.gst.val2[eb], &c.b.gst.nz[gb], &c.b.gst.scale[tb], &c.b.gst.scale_exp[tb]};
  fast::simd_gst_run16(c.plan.params, steps, a, b, acc);
}

// Step s of output (i, j) on the reference, padded as ref::scaled_chain.
uint32_t reference_step(const ref::ScaledGemm& g, const Shape& sh, std::size_t i, std::size_t j, std::size_t s,
                        uint32_t c) {
  const ScaledUnit& u = *g.unit;
  const std::size_t l0 = s * sh.uk, len = std::min(sh.uk, sh.k - l0), t0 = sh.block ? l0 / sh.block : 0;
  ref::ScaledStep st{g.fa, g.fb, g.A + i * sh.k + l0, g.B + j * sh.k + l0,
                     sh.block ? g.SA + i * sh.nb + t0 : nullptr, sh.block ? g.SB + j * sh.nb + t0 : nullptr, c};
  std::array<uint8_t, kMaxStepK> pa{}, pb{}, psa{}, psb{};
  if (len < sh.uk) {
    std::copy(st.a, st.a + len, pa.begin());
    std::copy(st.b, st.b + len, pb.begin());
    st.a = pa.data();
    st.b = pb.data();
    if (sh.block) {
      psa.fill(neutral_scale(u.scale));
      psb.fill(neutral_scale(u.scale));
      std::copy(st.sa, st.sa + len / sh.block, psa.begin());
      std::copy(st.sb, st.sb + len / sh.block, psb.begin());
      st.sa = psa.data();
      st.sb = psb.data();
    }
  }
  return static_cast<uint32_t>(ref::scaled_instruction(u, Fmt::fp32, st));
}

// Steps [s0, s1) of row i's chains against panel q: runs of clean steps
// on the kernel; a flagged step on the kernel for its clean lanes and on
// the reference for the others (the special-value fallback).
void run_chain(const Call& c, std::size_t i, std::size_t q, std::size_t lanes, std::size_t s0, std::size_t s1,
               uint32_t* acc) {
  const Shape& sh = c.sh;
  const uint32_t* fa = &c.a.special[i * sh.steps];
  const uint32_t* fb = &c.b.special[q * sh.steps];
  for (std::size_t s = s0; s < s1;) {
    std::size_t e = s;
    while (e < s1 && !fa[e] && !fb[e]) ++e;
    if (e > s) run_simd(c, i, q, s, e - s, acc);
    if (e == s1) break;
    uint32_t before[L];
    std::memcpy(before, acc, sizeof before);
    const uint32_t ref_lanes = fa[e] ? ~0u : fb[e];
    if (!fa[e]) run_simd(c, i, q, e, 1, acc);
    for (std::size_t j = 0; j < lanes; ++j)
      if (ref_lanes >> j & 1) acc[j] = reference_step(c.g, sh, i, q * L + j, e, before[j]);
    s = e + 1;
  }
}

// Rows [i0, i1) (at most kRowsPerTask) against panel q, from the
// epilogue's start to D; chain: whether any step runs (alpha_eff != 0 and
// k > 0). The steps go in chunks of about kChunkBytes of the B panel, each
// chunk through every row while it is in L1; every chain still takes its
// steps in order.
void run_rows(const Call& c, const ref::ScaledEpilogue& ep, bool chain, std::size_t q, std::size_t i0,
              std::size_t i1) {
  const ref::ScaledGemm& g = c.g;
  const std::size_t j0 = q * L, lanes = std::min(L, g.n - j0), rows = i1 - i0;
  alignas(64) uint32_t acc[kRowsPerTask][L] = {};
  float cv[kRowsPerTask][L] = {};
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < lanes; ++j) {
      cv[r][j] = ep.reads_c() ? g.C[g.c_at(i0 + r, j0 + j)] : 0.0f;
      acc[r][j] = ep.start(cv[r][j]);
    }
  if (chain) {
    const std::size_t step_bytes = c.sh.uk * L * 8, chunk = std::max<std::size_t>(1, kChunkBytes / step_bytes);
    for (std::size_t s0 = 0; s0 < c.sh.steps; s0 += chunk)
      for (std::size_t r = 0; r < rows; ++r)
        run_chain(c, i0 + r, q, lanes, s0, std::min(c.sh.steps, s0 + chunk), acc[r]);
  }
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t j = 0; j < lanes; ++j)
      g.D[g.c_at(i0 + r, j0 + j)] = std::bit_cast<float>(ep.finish(acc[r][j], cv[r][j]));
}

void check(const ref::ScaledGemm& g) {
  const ScaledUnit& u = *g.unit;
  if (u.block && g.k % static_cast<std::size_t>(u.block))
    throw std::invalid_argument("k = " + std::to_string(g.k) + " is not a multiple of the scale block " +
                                std::to_string(u.block));
  if (!(u.elements & fmt_bit(g.fa)) || !(u.elements & fmt_bit(g.fb)))
    throw std::invalid_argument(std::string(u.instruction) + " does not take " + info(g.fa).name + " x " +
                                info(g.fb).name);
}

}  // namespace

void scaled_gemm(const ref::ScaledGemm& g, ScaledOptions options) {
  const fast::ScaledPlan plan = fast::scaled_plan(*g.unit, options.use_reference);
  if (plan.kernel == fast::ScaledKernel::reference) return ref::scaled_gemm(g);
  check(g);
  if (g.m == 0 || g.n == 0) return;
  const ref::ScaledEpilogue ep = ref::make_epilogue(g.alpha, g.beta, g.g_a, g.g_b, g.accumulate);
  const Shape sh = shape_of(g);
  // By default a small product stays on one thread (waking a team costs
  // more than it saves); a thread count asked for is used as it is.
  const std::size_t work = g.m * sh.panels * std::max<std::size_t>(sh.steps, 1);
  const int threads = options.threads == 0 && work < kMinWorkPerThread ? 1 : thread_count(options.threads);
  const bool chain = ep.alpha_eff != 0 && sh.steps > 0;
  const Packed a = chain ? pack_a(g, sh, threads) : Packed{};
  const Packed b = chain ? pack_b(g, sh, threads) : Packed{};
  const Call call{g, sh, plan, a, b};
  const std::size_t row_tasks = (g.m + kRowsPerTask - 1) / kRowsPerTask, tasks = sh.panels * row_tasks;
  // (parallel_for: no FTZ/DAZ, round to nearest, as the kernels' exact arithmetic needs)
  parallel_for(threads, tasks, Assign::dynamic, [&](std::size_t t) {
    const std::size_t q = t / row_tasks, i0 = (t % row_tasks) * kRowsPerTask;
    run_rows(call, ep, chain, q, i0, std::min(g.m, i0 + kRowsPerTask));
  });
}

}  // namespace mmaemu::driver
