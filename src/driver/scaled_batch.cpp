// SPDX-License-Identifier: BSD-3-Clause
// Batched block-scaled instructions on product panels (docs/batch.md). The
// kernels of kernels/scaled_simd.cpp read a product only through
//   T/ST:  val_a * val_b (fp32), e_a + e_b (int16), scale_exp_a + scale_exp_b
//   GST:   fma(val2_a, val2_b, q) (exact), nz_a & nz_b, s_a * s_b (exact in
//          binary64), scale_exp_a + scale_exp_b,
// so 16 lanes of the products (formed as the kernel forms them) against
// an identity row (value 1, exponents 0, every element nonzero, scale 1)
// give the kernel's bits for 16 independent operand pairs. Steps with a
// NaN/Inf element or a NaN scale run on the reference for their lanes,
// as in the GEMM (driver/scaled_gemm.cpp, the steps nest's plug-in).
#include "driver/scaled_batch.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <vector>

#include "driver/batch.h"
#include "driver/scaled_decode.h"
#include "driver/scratch.h"
#include "driver/special_fallback.h"
#include "kernels/plan.h"
#include "ref/block_scaled.h"

namespace mmaemu::driver {
namespace {

constexpr std::size_t L = kernels::kScaledLanes;
static_assert(L == kFallbackLanes);
constexpr std::size_t kGroupsPerTask = 16;  // 256 output elements per task
constexpr std::size_t kMaxStepK = 64;       // plan()'s largest block-scaled k
constexpr std::size_t kChunkSteps = 16;     // instructions per panel chunk

// The operands of output element q, and the call's fixed facts.
struct Call {
  const ScaledBatch& b;
  const ScaledUnit& u;
  kernels::KernelPlan plan;
  std::size_t total, mn, uk, block, nb, groups, bps;
  ElementTable ea, eb;
  ScaleTable st;
  uint8_t neutral;

  // Where element q's operands start: a, sa along k (stride 1), b, sb
  // along k with stride n.
  struct Base {
    std::size_t a, b, sa, sb;
  };
  Base base(std::size_t q) const {
    const std::size_t t = q / mn, i = q % mn / b.n, c = q % b.n;
    return {t * b.m * b.k + i * b.k, t * b.k * b.n + c, t * b.m * nb + i * nb, t * nb * b.n + c};
  }
  // Element l of a and b, scale block t of each (padded past k).
  uint8_t a(const Base& o, std::size_t l) const { return l < b.k ? b.A[o.a + l] : 0; }
  uint8_t bb(const Base& o, std::size_t l) const { return l < b.k ? b.B[o.b + l * b.n] : 0; }
  uint8_t sa(const Base& o, std::size_t t) const { return t < nb ? b.SA[o.sa + t] : neutral; }
  uint8_t sb(const Base& o, std::size_t t) const { return t < nb ? b.SB[o.sb + t * b.n] : neutral; }
};

uint64_t load_c(const Call& x, std::size_t q) {
  return x.b.out == Fmt::fp32 ? std::bit_cast<uint32_t>(static_cast<const float*>(x.b.C)[q])
                              : static_cast<const uint16_t*>(x.b.C)[q];
}
void store_d(const Call& x, std::size_t q, uint64_t d) {
  if (x.b.out == Fmt::fp32) static_cast<float*>(x.b.D)[q] = std::bit_cast<float>(static_cast<uint32_t>(d));
  else static_cast<uint16_t*>(x.b.D)[q] = static_cast<uint16_t>(d);
}

// Instruction s of element q on the reference, from c.
uint32_t reference_step(const Call& x, std::size_t q, std::size_t s, uint32_t c) {
  const Call::Base q0 = x.base(q);
  std::array<uint8_t, kMaxStepK> a{}, b{}, sa{}, sb{};
  for (std::size_t l = 0; l < x.uk; ++l) a[l] = x.a(q0, s * x.uk + l), b[l] = x.bb(q0, s * x.uk + l);
  for (std::size_t t = 0; t < x.bps; ++t) sa[t] = x.sa(q0, s * x.bps + t), sb[t] = x.sb(q0, s * x.bps + t);
  return static_cast<uint32_t>(
      ref::scaled_instruction(x.u, x.b.out, {x.b.fa, x.b.fb, a.data(), b.data(), sa.data(), sb.data(), c}));
}

// The whole chain of element q on the reference.
void reference_elements(const Call& x, std::size_t q0, std::size_t q1) {
  std::vector<uint8_t> a(x.b.k), b(x.b.k), sa(x.nb), sb(x.nb);
  for (std::size_t q = q0; q < q1; ++q) {
    const Call::Base o = x.base(q);
    for (std::size_t l = 0; l < x.b.k; ++l) a[l] = x.a(o, l), b[l] = x.bb(o, l);
    for (std::size_t t = 0; t < x.nb; ++t) sa[t] = x.sa(o, t), sb[t] = x.sb(o, t);
    store_d(x, q, ref::scaled_chain(x.u, x.b.out, x.b.fa, x.b.fb, x.b.k, a.data(), sa.data(), b.data(), sb.data(),
                                    load_c(x, q)));
  }
}

// ---------------------------------------------------------------------------
// Product panels of one chunk of instructions for 16 lanes.

struct Panels {
  std::vector<float> val;
  std::vector<int16_t> exp;     // ST: pairs, element l of lane j at (l/2)*32 + 2j + l%2
  std::vector<int32_t> sexp;    // ST: per (step, lane); GST: per (scale block, lane)
  std::vector<uint32_t> nz;     // GST: per (group, lane)
  std::vector<double> scale;    // GST: per (scale block, lane)
  std::vector<uint32_t> special;  // per step: the lanes with a NaN/Inf element or a NaN scale
  std::size_t held_bytes() const { return scratch_bytes(val, exp, sexp, nz, scale, special); }  // scratch.h
};

// The identity row (every entry is an identity of the kernel's operation).
struct Identity {
  std::vector<float> one;
  std::vector<int16_t> zero16;
  std::vector<int32_t> zero32;
  std::vector<uint32_t> all;
  std::vector<double> one64;
  Identity()
      : one(kChunkSteps * kMaxStepK, 1.0f), zero16(one.size(), 0), zero32(one.size(), 0), all(one.size(), ~0u),
        one64(one.size(), 1.0) {}
};
const Identity& identity() {
  static const Identity id;
  return id;
}

void pack_st(const Call& x, const Call::Base* q, std::size_t s0, std::size_t steps, Panels& p) {
  p.val.resize(steps * x.uk * L);
  p.exp.resize(steps * x.uk * L);
  p.sexp.resize(steps * L);
  p.special.assign(steps, 0);
  const bool scaled = x.u.algo == ScaledAlgo::st_fdpa;
  for (std::size_t j = 0; j < L; ++j)
    for (std::size_t s = 0; s < steps; ++s) {
      bool special = false;
      for (std::size_t i = 0; i < x.uk; ++i) {
        const std::size_t l = s * x.uk + i, kl = (s0 + s) * x.uk + i;
        const ElementCode& a = x.ea[x.a(q[j], kl)];
        const ElementCode& b = x.eb[x.bb(q[j], kl)];
        p.val[l * L + j] = a.val * b.val;
        p.exp[(l / 2) * 2 * L + 2 * j + l % 2] = static_cast<int16_t>(a.e + b.e);
        special |= a.special | b.special;
      }
      int32_t es = 0;
      if (scaled) {
        const ScaleCode& a = x.st[x.sa(q[j], s0 + s)];
        const ScaleCode& b = x.st[x.sb(q[j], s0 + s)];
        special |= a.nan | b.nan;
        es = (a.nan ? 0 : a.st_exp) + (b.nan ? 0 : b.st_exp);
      }
      p.sexp[s * L + j] = es;
      if (special) p.special[s] |= 1u << j;
    }
}

void pack_gst(const Call& x, const Call::Base* q, std::size_t s0, std::size_t steps, Panels& p) {
  constexpr std::size_t kGroup = 16;
  p.val.resize(steps * x.uk * L);
  p.nz.resize(steps * x.groups * L);
  p.scale.resize(steps * x.bps * L);
  p.sexp.resize(steps * x.bps * L);
  p.special.assign(steps, 0);
  for (std::size_t j = 0; j < L; ++j)
    for (std::size_t s = 0; s < steps; ++s) {
      bool special = false;
      for (std::size_t g = 0; g < x.groups; ++g) {
        uint32_t mask = 0;
        for (std::size_t i = 0; i < kGroup; ++i) {
          const std::size_t l = (s * x.groups + g) * kGroup + i, kl = (s0 * x.groups * kGroup) + l;
          const ElementCode& a = x.ea[x.a(q[j], kl)];
          const ElementCode& b = x.eb[x.bb(q[j], kl)];
          p.val[l * L + j] = a.val * b.val;  // doubled values: small integers, exact
          if (a.val != 0 && b.val != 0) mask |= 1u << i;
        }
        p.nz[(s * x.groups + g) * L + j] = mask;
      }
      for (std::size_t t = 0; t < x.bps; ++t) {
        const ScaleCode& a = x.st[x.sa(q[j], (s0 + s) * x.bps + t)];
        const ScaleCode& b = x.st[x.sb(q[j], (s0 + s) * x.bps + t)];
        special |= a.nan | b.nan;
        p.scale[(s * x.bps + t) * L + j] = a.val * b.val;  // exact: at most 8 significant bits
        p.sexp[(s * x.bps + t) * L + j] = a.e + b.e;
      }
      if (special) p.special[s] |= 1u << j;
    }
}

// Steps [s, e) of the chunk on the plan's step kernel (the one prototype).
void run_kernel(const Call& x, const Panels& p, std::size_t s, std::size_t e, uint32_t* acc) {
  const Identity& id = identity();
  const int steps = static_cast<int>(e - s), k = static_cast<int>(x.uk);
  const bool gst = x.u.algo == ScaledAlgo::gst_fdpa;
  const std::size_t at = s * x.uk * L, gt = s * x.groups * L, tt = s * (gst ? x.bps : 1) * L;
  const kernels::RowPanel a{.val = id.one.data(), .sig = nullptr, .exp = nullptr, .exp16 = id.zero16.data(),
                            .scale_exp = id.zero32.data(), .nz = id.all.data(), .scale = id.one64.data()};
  const kernels::LanePanel b{.val = &p.val[at], .sig = nullptr, .exp = nullptr, .exp16 = gst ? nullptr : &p.exp[at],
                             .scale_exp = &p.sexp[tt], .nz = gst ? &p.nz[gt] : nullptr,
                             .scale = gst ? &p.scale[tt] : nullptr};
  x.plan.kernel(x.plan.simd_params, {steps, k, k}, a, b, acc);
}

void simd_group(const Call& x, std::size_t q0, Panels& p) {
  std::size_t q[L];
  Call::Base o[L];
  for (std::size_t j = 0; j < L; ++j) q[j] = q0 + j < x.total ? q0 + j : q0, o[j] = x.base(q[j]);
  alignas(64) uint32_t acc[L];
  for (std::size_t j = 0; j < L; ++j) acc[j] = static_cast<uint32_t>(load_c(x, q[j]));
  const std::size_t steps = (x.b.k + x.uk - 1) / x.uk;
  for (std::size_t s0 = 0; s0 < steps; s0 += kChunkSteps) {
    const std::size_t n = std::min(kChunkSteps, steps - s0);
    if (x.u.algo != ScaledAlgo::gst_fdpa) pack_st(x, o, s0, n, p);
    else pack_gst(x, o, s0, n, p);
    steps_with_fallback(
        0, n, acc, [&](std::size_t s) { return p.special[s] != 0; }, [&](std::size_t s) { return p.special[s]; },
        [&](std::size_t s, std::size_t e) { run_kernel(x, p, s, e, acc); },
        [&](std::size_t j, std::size_t s, uint32_t before) { return reference_step(x, q[j], s0 + s, before); });
  }
  for (std::size_t j = 0; j < L && q0 + j < x.total; ++j) store_d(x, q0 + j, acc[j]);
}

struct Task {
  const Call* x;
  bool simd;
  static void run(void* ctx, std::size_t t) {
    const Task& k = *static_cast<const Task*>(ctx);
    const std::size_t q0 = t * kGroupsPerTask * L, q1 = std::min(k.x->total, q0 + kGroupsPerTask * L);
    if (!k.simd) return reference_elements(*k.x, q0, q1);
    const Scratch<Panels> p;
    for (std::size_t q = q0; q < q1; q += L) simd_group(*k.x, q, *p);
  }
};

}  // namespace

void run_scaled_batch(const ScaledBatch& b, int threads, bool use_reference) {
  const ScaledUnit& u = *b.unit;
  const std::size_t total = b.count * b.m * b.n;
  if (total == 0) return;
  const bool gst = u.algo == ScaledAlgo::gst_fdpa;
  const std::size_t uk = static_cast<std::size_t>(u.k), block = static_cast<std::size_t>(u.block);
  Call x{b, u, kernels::plan(u, {use_reference, false}), total, b.m * b.n, uk, block, block ? b.k / block : 0,
         u.group ? uk / static_cast<std::size_t>(u.group) : 0, block ? uk / block : 0,
         element_table(b.fa, u.subnormals, gst), element_table(b.fb, u.subnormals, gst),
         scale_table(u.scale), neutral_scale(u.scale)};
  // The kernels give fp32 results; fp16 results (T rows) and k = 0 run on the reference.
  const bool simd = x.plan.simd && b.out == Fmt::fp32 && b.k > 0;
  Task task{&x, simd};
  const std::size_t per = kGroupsPerTask * L;
  batch_parallel((total + per - 1) / per, threads, &Task::run, &task);
}

}  // namespace mmaemu::driver
