// SPDX-License-Identifier: BSD-3-Clause
// The SIMD step kernels alone, called through their one prototype
// (fast::StepKernel, plan(row).kernel) on every SIMD target Highway compiled
// and this CPU runs (hwy::SetSupportedTargetsForTest, as Highway's own
// per-target tests do): random panels packed as docs/kernels.md ("Pack
// schemas") says, the steps split into runs of random length and chained
// through the accumulators, against ref::step over the same k elements, bits
// compared. A step a kernel hands back must leave the accumulators at the
// reference's state before it (the test then runs it on ref::step).
// Every row of tests/common/engine_rows.h that plan() gives a step kernel
// runs: the registry's rows and the custom variants. MMAEMU_DIFF_SCALE
// multiplies the counts; MMAEMU_TEST_SEED changes the seed.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "hwy/targets.h"

#include "common/engine_rows.h"
#include "kernels/plan.h"
#include "ref/reference.h"

using namespace mmaemu;
using namespace mmaemu::test;

namespace {

constexpr std::size_t L = fast::kSimdLanes;

// One operand element decoded for the SIMD panels (docs/kernels.md,
// "Operand decoding"): integer rows val = the unit's value, sig = the
// integer significand as float; real rows val = the fp32 value as the unit
// reads it.
struct Fast {
  float val = 0.0f, sig = 0.0f;
  int32_t exp = fast::kZeroExp;  // zero padding
};
Fast decode(const ModelRow& row, uint64_t bits) {
  int32_t sig = 0, exp = 0;
  fast::pack_element(row, bits, sig, exp);  // finite (finite_bits)
  if (fast::operand_kind(row) == fast::Operand::real) return {std::bit_cast<float>(static_cast<uint32_t>(sig)), 0.0f, exp};
  const float fsig = static_cast<float>(sig);
  return {std::ldexp(fsig, exp - fast::unit_man(row)), fsig, exp};
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
    if (fast::pack_element(row, x, s, e)) return x;
  }
}

// The NaN the epilogue stores for any NaN: NaN bits inside a run are the
// host's on the IEEE paths (docs/kernels.md, "The special-value fallback").
uint64_t canonical(const ModelRow& row, uint64_t x) { return is_nan(row.out, x) ? ref::nan_result(row) : x; }

struct Tally {
  std::size_t steps = 0, handed_back = 0, bad = 0;
};
std::size_t g_reported = 0;  // mismatches printed (the first 10)

// One trial: 16 lanes over `steps` steps of step_k(row) elements, the
// last of last_len; the kernel called on runs of random length.
void trial(const std::string& id, uint64_t seed, const ModelRow& row, const fast::KernelPlan& plan, Gen& g,
           Tally& t) {
  const std::size_t step = step_k(row), steps = 1 + g.rng() % 12, last_len = 1 + g.rng() % step;
  const std::size_t kp = steps * step, k = kp - step + last_len;
  const bool interleaved = plan.simd_params.kind == fast::SimdKind::interleaved;
  const bool narrow = g.rng() % 2;
  const int max_e = (1 << info(row.in).exp_bits) - 1;
  const int centre_a = 1 + static_cast<int>(g.rng() % static_cast<uint64_t>(max_e - 1));
  const int centre_b = 1 + static_cast<int>(g.rng() % static_cast<uint64_t>(max_e - 1));
  // Operands in the model's order (the reference's), zero-padded to kp.
  std::vector<uint64_t> A(kp, 0), B(L * kp, 0);
  for (std::size_t l = 0; l < k; ++l) A[l] = finite_bits(g, row, narrow, centre_a);
  for (std::size_t j = 0; j < L; ++j)
    for (std::size_t l = 0; l < k; ++l) B[j * kp + l] = finite_bits(g, row, narrow, centre_b);
  // The panels: A's row, B's 16 lanes interleaved (element l of lane j at l*16 + j).
  std::vector<float> av(kp, 0.0f), as(kp, 0.0f), bv(L * kp, 0.0f), bs(L * kp, 0.0f);
  std::vector<int32_t> ae(kp, fast::kZeroExp), be(L * kp, fast::kZeroExp);
  const auto at = [&](std::size_t l) { return interleaved ? l - l % step + pair_position(l % step, step) : l; };
  for (std::size_t l = 0; l < k; ++l) {
    const Fast a = decode(row, A[l]);
    av[at(l)] = a.val, as[at(l)] = a.sig, ae[at(l)] = a.exp;
    for (std::size_t j = 0; j < L; ++j) {
      const Fast b = decode(row, B[j * kp + l]);
      const std::size_t p = at(l) * L + j;
      bv[p] = b.val, bs[p] = b.sig, be[p] = b.exp;
    }
  }
  // c: near the products' binade or anywhere (NaN and Inf included).
  const int out_centre = centre_a + centre_b - 2 * info(row.in).bias + info(row.out).bias;
  HWY_ALIGN_MAX uint32_t acc[L];
  std::vector<uint64_t> want(L);
  for (std::size_t j = 0; j < L; ++j) want[j] = acc[j] = static_cast<uint32_t>(g.bits(row.out, g.rng() % 2, out_centre));
  const auto ref_step = [&](std::size_t s, std::size_t j, uint64_t c) {
    const std::size_t len = s + 1 == steps ? last_len : step;
    return ref::step(row, len, A.data() + s * step, B.data() + j * kp + s * step, c);
  };
  const auto report = [&](const std::string& what, std::size_t s, std::size_t j, uint64_t ref, uint64_t got) {
    ++t.bad;
    if (++g_reported <= 10)
      FAIL_CHECK(what << ": seed " << seed << " " << id << " (" << std::string(info(row.in).name) << " -> "
                      << std::string(info(row.out).name) << ") target " << std::string(fast::simd_target_name())
                      << " steps " << steps << " last_len " << last_len << " step " << s << " lane " << j << ": ref "
                      << hex(ref) << " kernel " << hex(got));
  };
  for (std::size_t s = 0; s < steps;) {
    const std::size_t run = 1 + g.rng() % (steps - s), l = s * step;
    const fast::StepRun r{static_cast<int>(run), static_cast<int>(step),
                          static_cast<int>(s + run == steps ? last_len : step)};
    const int done = plan.kernel(plan.simd_params, r, {av.data() + l, as.data() + l, ae.data() + l},
                                 {bv.data() + l * L, bs.data() + l * L, be.data() + l * L}, acc);
    REQUIRE(done >= 0);
    REQUIRE(static_cast<std::size_t>(done) <= run);
    for (std::size_t e = s + static_cast<std::size_t>(done); s < e; ++s, ++t.steps)
      for (std::size_t j = 0; j < L; ++j) want[j] = ref_step(s, j, want[j]);
    if (static_cast<std::size_t>(done) == run) continue;
    ++t.handed_back;  // acc: the state before step s, which runs on the reference
    for (std::size_t j = 0; j < L; ++j) {
      if (canonical(row, acc[j]) != canonical(row, want[j])) report("state at a step handed back", s, j, want[j], acc[j]);
      want[j] = ref_step(s, j, want[j]);
      acc[j] = static_cast<uint32_t>(want[j]);
    }
    ++s, ++t.steps;
  }
  for (std::size_t j = 0; j < L; ++j)
    if (canonical(row, acc[j]) != canonical(row, want[j])) report("result", steps - 1, j, want[j], acc[j]);
}

const char* kind_name(fast::SimdKind k) {
  switch (k) {
    case fast::SimdKind::aligned: return "aligned";
    case fast::SimdKind::late: return "late";
    case fast::SimdKind::pairwise: return "pairwise";
    case fast::SimdKind::interleaved: return "interleaved";
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
      const fast::KernelPlan plan = fast::plan(row);
      if (!plan.kernel) continue;
      const fast::SimdParams& p = plan.simd_params;
      std::string kind = kind_name(p.kind);
      if (p.out16) kind += " fp16";
      if (p.odd_even) kind += " odd/even";
      Tally& t = by_kind[kind];
      for (uint64_t seed = kSeed; seed < kSeed + 3; ++seed) {
        Gen g(seed ^ (std::hash<std::string>{}(name) * 3));
        for (std::size_t i = 0; i < 10 * kScale; ++i) trial(name + " [" + tname + "]", seed, row, plan, g, t);
      }
      if (t.bad) bad_by[kind + " " + tname] += t.bad;
      t.bad = 0;
    }
  }
  hwy::SetSupportedTargetsForTest(0);
  for (const auto& [kind, t] : by_kind)
    MESSAGE(kind << ": " << t.steps << " steps, " << t.handed_back << " handed back");
  std::string names;
  for (const int64_t target : targets) names += std::string(" ") + hwy::TargetName(target);
  MESSAGE(targets.size() << " targets:" << names);
  for (const auto& [where, n] : bad_by) FAIL_CHECK(where << ": " << n << " mismatching lanes");
  // Every kernel and variant ran, and the late kernel handed steps back.
  for (const char* kind : {"aligned", "aligned fp16", "interleaved", "late", "late odd/even", "pairwise"}) {
    CAPTURE(kind);
    CHECK(by_kind[kind].steps > 0);
  }
  CHECK(by_kind["late"].handed_back > 0);
}

TEST_CASE("plan() gives a step kernel exactly to the SIMD steps rows, the same as the kind names") {
  for (const auto& [name, row] : all_rows()) {
    CAPTURE(name);
    const fast::KernelPlan p = fast::plan(row);
    CHECK((p.kernel != nullptr) == (p.simd && p.macro == fast::Macro::steps));
    if (!p.kernel) continue;
    const fast::StepKernel want = p.simd_params.kind == fast::SimdKind::aligned       ? fast::simd_aligned_run16
                                  : p.simd_params.kind == fast::SimdKind::late        ? fast::simd_late_run16
                                  : p.simd_params.kind == fast::SimdKind::pairwise    ? fast::simd_pairwise_run16
                                                                                      : fast::simd_interleaved_run16;
    CHECK((p.kernel == want));
    CHECK(!fast::plan(row, {.use_reference = true}).kernel);
    CHECK(!fast::plan(row, {.simd_off = true}).kernel);
  }
}
