// SPDX-License-Identifier: BSD-3-Clause
// The SIMD step kernels alone, called through their one prototype
// (kernels::StepKernel, plan(row).kernel) on every SIMD target Highway compiled
// and this CPU runs (hwy::SetSupportedTargetsForTest, as Highway's own
// per-target tests do): random panels packed as docs/kernels.md ("Pack
// schemas") says, the steps split into runs of random length and chained
// through the accumulators, against ref::step over the same k elements, bits
// compared, with one A row per call and with two (different rows, one of
// them pushed off the fast path or towards a hand-back). A step a kernel
// hands back must leave every row's accumulators at the reference's state
// before it (the test then runs it on ref::step).
// Every row of tests/common/engine_rows.h that plan() gives a step kernel
// runs: the registry's rows and the custom variants. MMAEMU_DIFF_SCALE
// multiplies the counts; MMAEMU_TEST_SEED changes the seed.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "hwy/targets.h"

#include "common/engine_rows.h"
#include "kernels/integer_simd.h"
#include "kernels/plan.h"
#include "ref/reference.h"

using namespace mmaemu;
using namespace mmaemu::test;

namespace {

constexpr std::size_t L = kernels::kSimdLanes;

// One operand element decoded for the SIMD panels (docs/kernels.md,
// "Operand decoding"): integer rows val = the unit's value, sig = the
// integer significand as float; real rows val = the fp32 value as the unit
// reads it.
struct Fast {
  float val = 0.0f, sig = 0.0f;
  int32_t exp = kernels::kZeroExp;  // zero padding
};
Fast decode(const ModelRow& row, uint64_t bits) {
  int32_t sig = 0, exp = 0;
  kernels::pack_element(row, bits, sig, exp);  // finite (finite_bits)
  if (kernels::decoding_of(row) == kernels::Decoding::real) return {std::bit_cast<float>(static_cast<uint32_t>(sig)), 0.0f, exp};
  const float fsig = static_cast<float>(sig);
  return {std::ldexp(fsig, exp - kernels::unit_man(row)), fsig, exp};
}

// Where position j of an instruction of `step` elements is stored on the
// interleaved HMMA fp8 path: its two groups ({0,1,4,5,...} and
// {2,3,6,7,...}) contiguous.
std::size_t pair_position(std::size_t j, std::size_t step) {
  return (j % 4 < 2 ? 0 : step / 2) + (j / 4) * 2 + (j % 2);
}

// A random finite element of the row's input format.
uint64_t finite_bits(Gen& g, const ModelRow& row, bool narrow, int centre) {
  for (;;) {
    const uint64_t x = g.bits(row.in, narrow, centre);
    int32_t s = 0, e = 0;
    if (kernels::pack_element(row, x, s, e)) return x;
  }
}

// The NaN the epilogue stores for any NaN: NaN bits inside a run are the
// host's on the IEEE paths (docs/kernels.md, "The special-value fallback").
uint64_t canonical(const ModelRow& row, uint64_t x) { return is_nan(row.out, x) ? ref::nan_result(row) : x; }

struct Tally {
  std::size_t steps = 0, handed_back = 0, bad = 0;
  std::size_t pair_steps = 0;     // steps of two-row calls
  std::size_t pair_one_slow = 0;  // two-row trials with a NaN/Inf/far c in one row only
  std::size_t pair_one_back = 0;  // two-row hand-backs where one row's products alone may reach 2^128
};
std::size_t g_reported = 0;  // mismatches printed (the first 10)

// Whether row r's step s may reach 2^128 in a product (the late kernel's
// hand-back): some lane's e_a + e_b above 125.
// a0: the row's step in ae, b0 = the step's first element times 16 in be.
bool products_near_2e128(const std::vector<int32_t>& ae, const std::vector<int32_t>& be, std::size_t a0,
                         std::size_t b0, std::size_t len) {
  for (std::size_t l = 0; l < len; ++l)
    for (std::size_t j = 0; j < L; ++j)
      if (ae[a0 + l] > kernels::kZeroExp && be[b0 + l * L + j] > kernels::kZeroExp && ae[a0 + l] + be[b0 + l * L + j] > 125)
        return true;
  return false;
}

// One trial: `rows` A rows (1 or 2, different random rows, row r's panel at
// r * stride) against 16 lanes over `steps` steps of step_k(row) elements,
// the last of last_len; the kernel called on runs of random length, all
// rows in each call. Two-row trials push one row off the fast path (c far
// from the products, NaN or Inf in a lane of one row) or towards the late
// kernel's hand-back (one row's A in its format's top binade).
void trial(const std::string& id, uint64_t seed, const ModelRow& row, const kernels::KernelPlan& plan, Gen& g, Tally& t,
           std::size_t rows) {
  const std::size_t step = step_k(row), steps = 1 + g.rng() % 12, last_len = 1 + g.rng() % step;
  const std::size_t kp = steps * step, k = kp - step + last_len;
  const std::size_t stride = kp + (rows > 1 ? g.rng() % 5 : 0);  // A row r at r * stride
  const bool interleaved = plan.simd_params.kind == kernels::SimdKind::interleaved;
  const bool narrow = g.rng() % 2;
  const int max_e = (1 << info(row.in).exp_bits) - 1;
  const std::size_t mode = rows > 1 ? g.rng() % 3 : 0;  // 1: one row's c far off; 2: one row's A at the top
  const std::size_t odd = g.rng() % rows;               // the row modes 1 and 2 change
  std::vector<int> centre_a(rows);
  for (std::size_t r = 0; r < rows; ++r)
    centre_a[r] = mode == 2 && r == odd ? max_e - 1 : 1 + static_cast<int>(g.rng() % static_cast<uint64_t>(max_e - 1));
  const int centre_b = 1 + static_cast<int>(g.rng() % static_cast<uint64_t>(max_e - 1));
  // Operands in the model's order (the reference's), zero-padded to kp.
  std::vector<uint64_t> A(rows * kp, 0), B(L * kp, 0);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t l = 0; l < k; ++l) A[r * kp + l] = finite_bits(g, row, narrow || (mode == 2 && r == odd), centre_a[r]);
  for (std::size_t j = 0; j < L; ++j)
    for (std::size_t l = 0; l < k; ++l) B[j * kp + l] = finite_bits(g, row, narrow, centre_b);
  // The panels: A's rows (row r at r * stride, the gap poisoned), B's 16
  // lanes interleaved (element l of lane j at l*16 + j).
  const std::size_t an = (rows - 1) * stride + kp;
  std::vector<float> av(an, NAN), as(an, NAN), bv(L * kp, 0.0f), bs(L * kp, 0.0f);
  std::vector<int32_t> ae(an, 1 << 20), be(L * kp, kernels::kZeroExp);
  for (std::size_t r = 0; r < rows; ++r) {
    std::fill(av.begin() + r * stride, av.begin() + r * stride + kp, 0.0f);
    std::fill(as.begin() + r * stride, as.begin() + r * stride + kp, 0.0f);
    std::fill(ae.begin() + r * stride, ae.begin() + r * stride + kp, kernels::kZeroExp);
  }
  const auto at = [&](std::size_t l) { return interleaved ? l - l % step + pair_position(l % step, step) : l; };
  for (std::size_t l = 0; l < k; ++l) {
    for (std::size_t r = 0; r < rows; ++r) {
      const Fast a = decode(row, A[r * kp + l]);
      const std::size_t p = r * stride + at(l);
      av[p] = a.val, as[p] = a.sig, ae[p] = a.exp;
    }
    for (std::size_t j = 0; j < L; ++j) {
      const Fast b = decode(row, B[j * kp + l]);
      const std::size_t p = at(l) * L + j;
      bv[p] = b.val, bs[p] = b.sig, be[p] = b.exp;
    }
  }
  // c: near the products' binade or anywhere (NaN and Inf included); in
  // mode 1 the odd row near the products, the other anywhere with one lane
  // NaN or Inf.
  HWY_ALIGN_MAX uint32_t acc[kernels::kMaxRows * L];
  std::vector<uint64_t> want(rows * L);
  for (std::size_t r = 0; r < rows; ++r) {
    const int out_centre = centre_a[r] + centre_b - 2 * info(row.in).bias + info(row.out).bias;
    const bool near = mode == 1 ? r == odd : g.rng() % 2;
    for (std::size_t j = 0; j < L; ++j)
      want[r * L + j] = acc[r * L + j] = static_cast<uint32_t>(g.bits(row.out, near, out_centre));
    if (mode == 1 && r != odd) {
      const FormatInfo& fo = info(row.out);
      const uint64_t inf = ((uint64_t{1} << fo.exp_bits) - 1) << (fo.man_bits + fo.frac_shift);
      const std::size_t j = g.rng() % L;
      want[r * L + j] = acc[r * L + j] = static_cast<uint32_t>(g.rng() % 2 ? inf : inf | 1);
    }
  }
  if (mode == 1) ++t.pair_one_slow;
  const auto ref_step = [&](std::size_t r, std::size_t s, std::size_t j, uint64_t c) {
    const std::size_t len = s + 1 == steps ? last_len : step;
    return ref::step(row, len, A.data() + r * kp + s * step, B.data() + j * kp + s * step, c);
  };
  const auto report = [&](const std::string& what, std::size_t r, std::size_t s, std::size_t j, uint64_t ref,
                          uint64_t got) {
    ++t.bad;
    if (++g_reported <= 10)
      FAIL_CHECK(what << ": seed " << seed << " " << id << " (" << std::string(info(row.in).name) << " -> "
                      << std::string(info(row.out).name) << ") target " << std::string(kernels::simd_target_name())
                      << " rows " << rows << " row " << r << " steps " << steps << " last_len " << last_len
                      << " step " << s << " lane " << j << ": ref " << hex(ref) << " kernel " << hex(got));
  };
  for (std::size_t s = 0; s < steps;) {
    const std::size_t run = 1 + g.rng() % (steps - s), l = s * step;
    const kernels::StepRun sr{static_cast<int>(run), static_cast<int>(step),
                           static_cast<int>(s + run == steps ? last_len : step)};
    const kernels::RowPanel ar{av.data() + l, as.data() + l, ae.data() + l, static_cast<int>(rows), stride};
    const int done = plan.kernel(plan.simd_params, sr, ar, {bv.data() + l * L, bs.data() + l * L, be.data() + l * L}, acc);
    REQUIRE(done >= 0);
    REQUIRE(static_cast<std::size_t>(done) <= run);
    for (std::size_t e = s + static_cast<std::size_t>(done); s < e; ++s, ++t.steps, t.pair_steps += rows > 1)
      for (std::size_t q = 0; q < rows * L; ++q) want[q] = ref_step(q / L, s, q % L, want[q]);
    if (static_cast<std::size_t>(done) == run) continue;
    ++t.handed_back;  // every row's acc: the state before step s, which runs on the reference
    if (rows > 1) {
      const std::size_t len = s + 1 == steps ? last_len : step;
      const bool near0 = products_near_2e128(ae, be, s * step, s * step * L, len);
      const bool near1 = products_near_2e128(ae, be, stride + s * step, s * step * L, len);
      t.pair_one_back += near0 != near1;
    }
    for (std::size_t q = 0; q < rows * L; ++q) {
      if (canonical(row, acc[q]) != canonical(row, want[q]))
        report("state at a step handed back", q / L, s, q % L, want[q], acc[q]);
      want[q] = ref_step(q / L, s, q % L, want[q]);
      acc[q] = static_cast<uint32_t>(want[q]);
    }
    ++s, ++t.steps, t.pair_steps += rows > 1;
  }
  for (std::size_t q = 0; q < rows * L; ++q)
    if (canonical(row, acc[q]) != canonical(row, want[q])) report("result", q / L, steps - 1, q % L, want[q], acc[q]);
}

// One trial of an integer unit's kernel: `rows` A rows of random codes (a
// third at the extremes: -128, 127, 255, 0, ...) against 16 lanes, c near
// MIN_INT32 / MAX_INT32 a third of the time, so that sums wrap or clamp;
// runs of random length chained through acc, against ref::step (the last
// step of last_len, the panels zero-padded). Panels: A's values as int16
// (row r at r * stride, the gap poisoned), B's in pairs along k.
void int_trial(const std::string& id, uint64_t seed, const ModelRow& row, const kernels::KernelPlan& plan, Gen& g,
               Tally& t, std::size_t rows) {
  const std::size_t step = step_k(row), steps = 1 + g.rng() % 12, last_len = 1 + g.rng() % step;
  const std::size_t kp = steps * step, k = kp - step + last_len;
  const std::size_t stride = kp + (rows > 1 ? g.rng() % 5 : 0);
  std::vector<uint64_t> A(rows * kp, 0), B(L * kp, 0);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t l = 0; l < k; ++l) A[r * kp + l] = g.int_bits(row.in);
  for (std::size_t j = 0; j < L; ++j)
    for (std::size_t l = 0; l < k; ++l) B[j * kp + l] = g.int_bits(row.in_b);
  std::vector<int16_t> av((rows - 1) * stride + kp, int16_t{0x7777}), bv(L * kp, 0);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t l = 0; l < kp; ++l) av[r * stride + l] = static_cast<int16_t>(int_value(row.in, A[r * kp + l]));
  for (std::size_t j = 0; j < L; ++j)
    for (std::size_t l = 0; l < kp; ++l)
      bv[(l / 2) * 2 * L + 2 * j + l % 2] = static_cast<int16_t>(int_value(row.in_b, B[j * kp + l]));
  HWY_ALIGN_MAX uint32_t acc[kernels::kMaxRows * L];
  std::vector<uint64_t> want(rows * L);
  for (std::size_t q = 0; q < rows * L; ++q) want[q] = acc[q] = static_cast<uint32_t>(g.int_bits(Fmt::s32));
  for (std::size_t s = 0; s < steps;) {
    const std::size_t run = 1 + g.rng() % (steps - s), l = s * step;
    const kernels::StepRun sr{static_cast<int>(run), static_cast<int>(step),
                              static_cast<int>(s + run == steps ? last_len : step)};
    kernels::RowPanel ar{nullptr, nullptr, nullptr, static_cast<int>(rows), stride};
    ar.i16 = av.data() + l;
    kernels::LanePanel br{nullptr, nullptr, nullptr};
    br.i16 = bv.data() + l * L;
    REQUIRE(plan.kernel(plan.simd_params, sr, ar, br, acc) == static_cast<int>(run));
    for (std::size_t e = s + run; s < e; ++s, ++t.steps, t.pair_steps += rows > 1)
      for (std::size_t q = 0; q < rows * L; ++q) {
        const std::size_t len = s + 1 == steps ? last_len : step, r = q / L, j = q % L;
        want[q] = ref::step(row, len, A.data() + r * kp + s * step, B.data() + j * kp + s * step, want[q]);
      }
  }
  for (std::size_t q = 0; q < rows * L; ++q)
    if (acc[q] != want[q]) {
      ++t.bad;
      if (++g_reported <= 10)
        FAIL_CHECK("seed " << seed << " " << id << " (" << std::string(info(row.in).name) << " x "
                           << std::string(info(row.in_b).name) << ") target "
                           << std::string(kernels::simd_target_name()) << " rows " << rows << " row " << q / L
                           << " steps " << steps << " last_len " << last_len << " lane " << q % L << ": ref "
                           << hex(want[q]) << " kernel " << hex(acc[q]));
    }
}

// One trial of the integer units' register-blocked tile (integer_simd.h):
// 1..11 A rows against 1..9 lane groups (blocks and their remainders on
// every target), row stride and ldc with gaps (poisoned: the tile must not
// read the A gap into a result nor write the acc gap), B's groups apart;
// the run split into calls of random length chained through acc; against
// ref::step element by element. Returns the mismatching elements.
std::size_t int_tile_trial(const std::string& id, uint64_t seed, const ModelRow& row, const kernels::KernelPlan& plan,
                           Gen& g, std::size_t& steps_done) {
  const std::size_t step = step_k(row), rows = 1 + g.rng() % 11, groups = 1 + g.rng() % 9;
  const std::size_t steps = 1 + g.rng() % (step >= 256 ? 3 : 12), last_len = 1 + g.rng() % step;
  const std::size_t kp = steps * step, k = kp - step + last_len;
  const std::size_t a_stride = kp + g.rng() % 5, b_stride = kp * L + 2 * L * (g.rng() % 3);
  const std::size_t ldc = groups * L + g.rng() % 7;
  std::vector<uint64_t> A(rows * kp, 0), B(groups * L * kp, 0);  // B: column c = g*16 + j at [c*kp + l]
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t l = 0; l < k; ++l) A[r * kp + l] = g.int_bits(row.in);
  for (std::size_t c = 0; c < groups * L; ++c)
    for (std::size_t l = 0; l < k; ++l) B[c * kp + l] = g.int_bits(row.in_b);
  std::vector<int16_t> av(rows * a_stride, int16_t{0x7777}), bv(groups * b_stride, int16_t{0x7777});
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t l = 0; l < kp; ++l) av[r * a_stride + l] = static_cast<int16_t>(int_value(row.in, A[r * kp + l]));
  for (std::size_t c = 0; c < groups * L; ++c)
    for (std::size_t l = 0; l < kp; ++l)
      bv[(c / L) * b_stride + (l / 2) * 2 * L + 2 * (c % L) + l % 2] =
          static_cast<int16_t>(int_value(row.in_b, B[c * kp + l]));
  constexpr uint32_t kPoison = 0xDEADBEEF;
  std::vector<uint32_t> acc(rows * ldc, kPoison);
  std::vector<uint64_t> want(rows * groups * L);
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < groups * L; ++c)
      want[r * groups * L + c] = acc[r * ldc + c] = static_cast<uint32_t>(g.int_bits(Fmt::s32));
  for (std::size_t s = 0; s < steps;) {
    const std::size_t run = 1 + g.rng() % (steps - s), l = s * step;
    kernels::IntTile t;
    t.a = av.data() + l, t.a_stride = a_stride, t.b = bv.data() + l * L, t.b_stride = b_stride;
    t.acc = acc.data(), t.ldc = ldc, t.rows = static_cast<int>(rows), t.groups = static_cast<int>(groups);
    kernels::simd_integer_tile(plan.simd_params, {static_cast<int>(run), static_cast<int>(step), static_cast<int>(step)},
                               t);
    for (std::size_t e = s + run; s < e; ++s, ++steps_done)
      for (std::size_t r = 0; r < rows; ++r)
        for (std::size_t c = 0; c < groups * L; ++c) {
          const std::size_t len = s + 1 == steps ? last_len : step;
          uint64_t& w = want[r * groups * L + c];
          w = ref::step(row, len, A.data() + r * kp + s * step, B.data() + c * kp + s * step, w);
        }
  }
  std::size_t bad = 0;
  for (std::size_t r = 0; r < rows; ++r)
    for (std::size_t c = 0; c < ldc; ++c) {
      const uint64_t ref = c < groups * L ? want[r * groups * L + c] : kPoison;
      if (acc[r * ldc + c] == ref) continue;
      if (++bad <= 3 && ++g_reported <= 10)
        FAIL_CHECK("seed " << seed << " " << id << " (" << std::string(info(row.in).name) << " x "
                           << std::string(info(row.in_b).name) << ") target "
                           << std::string(kernels::simd_target_name()) << " rows " << rows << " groups " << groups
                           << " steps " << steps << " last_len " << last_len << " ldc " << ldc << " row " << r
                           << " column " << c << ": ref " << hex(ref) << " tile " << hex(acc[r * ldc + c]));
    }
  return bad;
}

const char* kind_name(kernels::SimdKind k) {
  switch (k) {
    case kernels::SimdKind::aligned: return "aligned";
    case kernels::SimdKind::late: return "late";
    case kernels::SimdKind::pairwise: return "pairwise";
    case kernels::SimdKind::interleaved: return "interleaved";
    case kernels::SimdKind::st: return "st";
    case kernels::SimdKind::gst: return "gst";
    case kernels::SimdKind::integer: return "integer";
  }
  return "?";
}

}  // namespace

TEST_CASE("SIMD step kernels through the one prototype equal ref::step, every target") {
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  REQUIRE(!targets.empty());
  std::map<std::string, Tally> by_kind;  // kind (and variant) -> steps, hand-backs, mismatches
  std::map<std::string, std::size_t> bad_by;  // "kind target" -> mismatching lanes
  for (const int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    const std::string tname = hwy::TargetName(target);
    for (const auto& [name, row] : all_rows()) {
      const kernels::KernelPlan plan = kernels::plan(row);
      if (!plan.kernel) continue;
      const kernels::SimdParams& p = plan.simd_params;
      std::string kind = kind_name(p.kind);
      if (p.out16) kind += " fp16";
      if (p.odd_even) kind += " odd/even";
      if (p.satfinite) kind += p.sat_each ? " satfinite/addition" : " satfinite";
      Tally& t = by_kind[kind];
      if (is_integer_row(row)) {
        for (uint64_t seed = kSeed; seed < kSeed + 2; ++seed) {
          Gen g(seed ^ (std::hash<std::string>{}(name) * 3));
          for (std::size_t rows = 1; rows <= 2; ++rows)
            for (std::size_t i = 0; i < 2 * kScale; ++i) int_trial(name + " [" + tname + "]", seed, row, plan, g, t, rows);
        }
        if (t.bad) bad_by[kind + " " + tname] += t.bad;
        t.bad = 0;
        continue;
      }
      for (uint64_t seed = kSeed; seed < kSeed + 3; ++seed) {
        Gen g(seed ^ (std::hash<std::string>{}(name) * 3));
        for (std::size_t i = 0; i < 10 * kScale; ++i) trial(name + " [" + tname + "]", seed, row, plan, g, t, 1);
        Gen g2(seed ^ (std::hash<std::string>{}(name) * 5));  // two rows per call
        for (std::size_t i = 0; i < 10 * kScale; ++i) trial(name + " [" + tname + "]", seed, row, plan, g2, t, 2);
      }
      if (t.bad) bad_by[kind + " " + tname] += t.bad;
      t.bad = 0;
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  for (const auto& [kind, t] : by_kind)
    MESSAGE(kind << ": " << t.steps << " steps (" << t.pair_steps << " in two-row calls), " << t.handed_back
                 << " handed back (" << t.pair_one_back << " of two rows where one row's products alone may reach 2^128)");
  std::string names;
  for (const int64_t target : targets) names += std::string(" ") + hwy::TargetName(target);
  MESSAGE(targets.size() << " targets:" << names);
  for (const auto& [where, n] : bad_by) FAIL_CHECK(where << ": " << n << " mismatching lanes");
  // Every kernel and variant ran, and the late kernel handed steps back.
  for (const char* kind : {"aligned", "aligned fp16", "interleaved", "late", "late odd/even", "pairwise"}) {
    CAPTURE(kind);
    CHECK(by_kind[kind].steps > 0);
    CHECK(by_kind[kind].pair_steps > 0);
    CHECK(by_kind[kind].pair_one_slow > 0);
  }
  for (const char* kind : {"integer", "integer satfinite", "integer satfinite/addition"}) {
    CAPTURE(kind);
    CHECK(by_kind[kind].steps > 0);
    CHECK(by_kind[kind].pair_steps > 0);
  }
  CHECK(by_kind["late"].handed_back > 0);
  CHECK(by_kind["late"].pair_one_back > 0);
}

// fp16 results with sub_c = emin (a subnormal fp16 c aligns at 2^-14): the
// aligned kernel's fast path checks E >= -14 first, where such a c cannot
// decide E, and aligns it at 2^-14 only for blocks below. Blocks around
// that edge: products of fp16 values
// near 2^-14 (zeros among them), c a subnormal fp16, a zero or a small
// normal fp16 (results that stay subnormal, round into the normal range or
// underflow), chained over a run of steps, one and two rows per call; bits
// against ref::step on every target.
TEST_CASE("aligned kernel, fp16 results, sub_c = emin: blocks with E around -14, every target") {
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  std::size_t rows_run = 0, steps_run = 0, bad = 0;
  // An fp16 code: value 2^e * 1.m (e >= -14) or a subnormal (e < -14), sign random.
  const auto half_code = [](Gen& g, int e) -> uint64_t {
    const uint64_t sign = (g.rng() % 2) << 15, man = g.rng() % 1024;
    if (e < -14) return sign | (man == 0 ? 1 : man);  // subnormal
    return sign | (static_cast<uint64_t>(e + 15) << 10) | man;
  };
  for (const int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    const std::string tname = hwy::TargetName(target);
    for (const auto& [name, row] : all_rows()) {
      const kernels::KernelPlan plan = kernels::plan(row);
      if (!plan.kernel || plan.simd_params.kind != kernels::SimdKind::aligned || !plan.simd_params.sub_c_emin ||
          row.in != Fmt::fp16)
        continue;
      ++rows_run;
      Gen g(kSeed ^ (std::hash<std::string>{}(name + " emin edge") * 7));
      const std::size_t step = step_k(row);
      for (std::size_t i = 0; i < 40 * kScale; ++i) {
        const std::size_t rows = 1 + i % 2, steps = 1 + g.rng() % 6, kp = steps * step, stride = kp + g.rng() % 3;
        std::vector<uint64_t> A(rows * kp), B(L * kp);
        for (uint64_t& x : A) x = g.rng() % 8 ? half_code(g, -10 + static_cast<int>(g.rng() % 8)) : 0;
        for (uint64_t& x : B) x = g.rng() % 8 ? half_code(g, -10 + static_cast<int>(g.rng() % 8)) : 0;
        // Every fourth trial, each step: 2^-12 * 2^-13 = 2^-25 (half the
        // subnormal step), (2^-14 + m 2^-24) * 2^-24 (below 2^-37), zeros,
        // and c an even multiple of 2^-24 (below): the exact sum lies just
        // past a midpoint, which E = -14 truncates the small product onto
        // (RNE to the even c); a lower E would keep it and round away.
        const bool edge = i % 4 == 3;
        for (std::size_t l = 0; edge && l < kp; ++l) {
          const std::size_t at = l % step;
          for (std::size_t r = 0; r < rows; ++r)
            A[r * kp + l] = at == 0 ? 0x0C00 : at == 1 ? 0x0400 | g.rng() % 1024 : 0;
          for (std::size_t j = 0; j < L; ++j) B[j * kp + l] = at == 0 ? 0x0800 : at == 1 ? 0x0001 : B[j * kp + l];
        }
        const std::size_t an = (rows - 1) * stride + kp;
        std::vector<float> av(an, 0.0f), as(an, 0.0f), bv(L * kp), bs(L * kp);
        std::vector<int32_t> ae(an, kernels::kZeroExp), be(L * kp);
        for (std::size_t l = 0; l < kp; ++l) {
          for (std::size_t r = 0; r < rows; ++r) {
            const Fast a = decode(row, A[r * kp + l]);
            av[r * stride + l] = a.val, as[r * stride + l] = a.sig, ae[r * stride + l] = a.exp;
          }
          for (std::size_t j = 0; j < L; ++j) {
            const Fast b = decode(row, B[j * kp + l]);
            bv[l * L + j] = b.val, bs[l * L + j] = b.sig, be[l * L + j] = b.exp;
          }
        }
        HWY_ALIGN_MAX uint32_t acc[kernels::kMaxRows * L];
        std::vector<uint64_t> want(rows * L);
        for (std::size_t q = 0; q < rows * L; ++q) {
          const uint64_t pick = g.rng() % 6;
          uint64_t c = pick < 3 ? half_code(g, -20) : pick == 3 ? (g.rng() % 2) << 15
                                                               : half_code(g, -14 + static_cast<int>(g.rng() % 3));
          if (edge) c = ((g.rng() % 2) << 15) | (2 + 2 * (g.rng() % 64));  // +-2k 2^-24
          want[q] = acc[q] = static_cast<uint32_t>(c);
        }
        const kernels::StepRun sr{static_cast<int>(steps), static_cast<int>(step), static_cast<int>(step)};
        const kernels::RowPanel ar{av.data(), as.data(), ae.data(), static_cast<int>(rows), stride};
        REQUIRE(plan.kernel(plan.simd_params, sr, ar, {bv.data(), bs.data(), be.data()}, acc) ==
                static_cast<int>(steps));
        for (std::size_t s = 0; s < steps; ++s, ++steps_run)
          for (std::size_t q = 0; q < rows * L; ++q)
            want[q] = ref::step(row, step, A.data() + (q / L) * kp + s * step, B.data() + (q % L) * kp + s * step,
                                want[q]);
        for (std::size_t q = 0; q < rows * L; ++q) {
          if (canonical(row, acc[q]) == canonical(row, want[q])) continue;
          ++bad;
          if (++g_reported <= 10)
            FAIL_CHECK("seed " << kSeed << " " << name << " [" << tname << "] trial " << i << " rows " << rows
                               << " steps " << steps << " row " << q / L << " lane " << q % L << ": ref "
                               << hex(want[q]) << " kernel " << hex(acc[q]));
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  MESSAGE(rows_run << " row-target pairs, " << steps_run << " steps");
  CHECK(rows_run >= targets.size());  // V100's fp16 -> fp16 at least, on every target
  CHECK(bad == 0);
}

TEST_CASE("the integer units' register-blocked tile equals ref::step, every target") {
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  std::map<std::string, std::size_t> steps_by;  // rule -> steps run
  std::size_t bad = 0;
  for (const int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    const std::string tname = hwy::TargetName(target);
    for (const auto& [name, row] : all_rows()) {
      if (!is_integer_row(row)) continue;
      const kernels::KernelPlan plan = kernels::plan(row);
      REQUIRE(plan.simd);
      const kernels::SimdParams& p = plan.simd_params;
      const std::string rule = p.satfinite ? (p.sat_each ? "satfinite/addition" : "satfinite") : "wrap";
      Gen g(kSeed ^ (std::hash<std::string>{}(name + " tile") * 3));
      for (std::size_t i = 0; i < 4 * kScale; ++i)
        bad += int_tile_trial(name + " [" + tname + "]", kSeed, row, plan, g, steps_by[rule]);
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  for (const auto& [rule, n] : steps_by) MESSAGE(rule << ": " << n << " steps");
  for (const char* rule : {"wrap", "satfinite", "satfinite/addition"}) {
    CAPTURE(rule);
    CHECK(steps_by[rule] > 0);
  }
  CHECK(bad == 0);
}

TEST_CASE("the integer tile refuses an odd step and negative counts") {
  const Model h100 = *gpu_model("H100");
  const kernels::KernelPlan plan = kernels::plan(h100.require_integer(Fmt::s8, Fmt::s8, Fmt::s32));
  std::vector<int16_t> v(64 * L, 0);
  uint32_t acc[L] = {};
  kernels::IntTile t;
  t.a = v.data(), t.b = v.data(), t.acc = acc, t.ldc = L, t.rows = 1, t.groups = 1;
  CHECK_THROWS_AS(kernels::simd_integer_tile(plan.simd_params, {1, 3, 3}, t), std::invalid_argument);
  CHECK_THROWS_AS(kernels::simd_integer_tile(plan.simd_params, {1, 0, 0}, t), std::invalid_argument);
  t.rows = -1;
  CHECK_THROWS_AS(kernels::simd_integer_tile(plan.simd_params, {1, 32, 32}, t), std::invalid_argument);
  t.rows = 0;  // nothing to do
  kernels::simd_integer_tile(plan.simd_params, {1, 32, 32}, t);
  CHECK(acc[0] == 0);
}

TEST_CASE("plan() gives a step kernel exactly to the SIMD steps rows, the same as the kind names") {
  for (const auto& [name, row] : all_rows()) {
    CAPTURE(name);
    const kernels::KernelPlan p = kernels::plan(row);
    CHECK((p.kernel != nullptr) == (p.simd && (p.macro == kernels::Macro::steps || p.macro == kernels::Macro::integer)));
    CHECK((p.macro == kernels::Macro::integer) == is_integer_row(row));
    if (!p.kernel) continue;
    const kernels::StepKernel want = p.simd_params.kind == kernels::SimdKind::aligned       ? kernels::simd_aligned_run16
                                  : p.simd_params.kind == kernels::SimdKind::late        ? kernels::simd_late_run16
                                  : p.simd_params.kind == kernels::SimdKind::pairwise    ? kernels::simd_pairwise_run16
                                  : p.simd_params.kind == kernels::SimdKind::integer     ? kernels::simd_integer_run16
                                                                                      : kernels::simd_interleaved_run16;
    CHECK((p.kernel == want));
    CHECK(!kernels::plan(row, {.use_reference = true}).kernel);
    CHECK(!kernels::plan(row, {.simd_off = true}).kernel);
  }
}

TEST_CASE("a step kernel refuses a row count other than 1 or 2") {
  HWY_ALIGN_MAX uint32_t acc[4 * L] = {};
  std::vector<float> f(4 * 16 * L, 0.0f);
  std::vector<int32_t> e(4 * 16 * L, kernels::kZeroExp);
  std::vector<int16_t> i16(4 * 64 * L, 0);  // the integer kernel's panels (steps up to 64)
  for (const auto& [name, row] : all_rows()) {
    const kernels::KernelPlan plan = kernels::plan(row);
    if (!plan.kernel) continue;
    CAPTURE(name);
    const kernels::StepRun run{1, static_cast<int>(step_k(row)), static_cast<int>(step_k(row))};
    kernels::LanePanel b{f.data(), f.data(), e.data()};
    b.i16 = i16.data();
    for (const int rows : {0, -1, 3}) {
      CAPTURE(rows);
      const kernels::RowPanel a{f.data(), f.data(), e.data(), rows, 16};
      CHECK_THROWS_AS(plan.kernel(plan.simd_params, run, a, b, acc), std::invalid_argument);
    }
    kernels::RowPanel two{f.data(), f.data(), e.data(), 2, 16};
    two.i16 = i16.data();
    CHECK(plan.kernel(plan.simd_params, run, two, b, acc) == 1);
  }
}
