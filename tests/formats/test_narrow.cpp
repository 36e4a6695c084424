// SPDX-License-Identifier: BSD-3-Clause
// Narrowing conversions and round_pack against the MPFR oracle (quick sizes).
#include "sweeps.h"

using namespace fmt_test;

namespace {
constexpr size_t kRandomPerTarget = 100000;
constexpr Fmt kFp32Targets[] = {Fmt::fp16, Fmt::bf16,     Fmt::tf32,    Fmt::e4m3,
                                Fmt::e5m2, Fmt::e4m3fnuz, Fmt::e5m2fnuz};
}  // namespace

TEST_CASE("fp32 -> 8/16-bit formats: boundaries of every target value") {
  const uint64_t seed = test_seed();
  for (Fmt to : kSmallFmts) {
    const Spec& t = spec(to);
    Counter c(t.name);
    std::vector<uint64_t> in = special_inputs(Fmt::fp32);
    add_boundaries<float>(in, t, all_values(t), t.mbits);
    add_range_edges<float>(in, t);
    check_convert(c, Fmt::fp32, to, in, seed, "fp32 boundaries");
    c.finish();
  }
}

TEST_CASE("fp32 -> tf32: boundaries near the exponent extremes and 1") {
  const uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  const Spec& t = spec(Fmt::tf32);
  Counter c("tf32");
  std::vector<uint64_t> in = special_inputs(Fmt::fp32);
  // All 2^10 fractions in the binades that matter, edges and random ones elsewhere.
  add_boundaries<float>(in, t, wide_values(t, {0, 1, 2, 126, 127, 128, 253, 254}, true, rng), t.mbits);
  std::vector<int> all;
  for (int e = 0; e < 255; ++e) all.push_back(e);
  add_boundaries<float>(in, t, wide_values(t, all, false, rng), t.mbits);
  add_range_edges<float>(in, t);
  check_convert(c, Fmt::fp32, Fmt::tf32, in, seed, "fp32 boundaries");
  c.finish();
}

TEST_CASE("fp32 -> narrow formats: random bit patterns") {
  const uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  for (Fmt to : kFp32Targets) {
    Counter c(spec(to).name);
    check_convert(c, Fmt::fp32, to, random_inputs(Fmt::fp32, spec(to), kRandomPerTarget, rng), seed,
                  "fp32 random");
    c.finish();
  }
}

TEST_CASE("fp64 -> fp32: boundaries, range edges and random patterns") {
  const uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  const Spec& t = spec(Fmt::fp32);
  Counter c("fp64->fp32");
  std::vector<uint64_t> in = special_inputs(Fmt::fp64);
  std::vector<int> all;
  for (int e = 0; e < 255; ++e) all.push_back(e);
  add_boundaries<double>(in, t, wide_values(t, all, false, rng), t.mbits);
  add_range_edges<double>(in, t);
  const std::vector<uint64_t> rnd = random_inputs(Fmt::fp64, t, kRandomPerTarget, rng);
  in.insert(in.end(), rnd.begin(), rnd.end());
  check_convert(c, Fmt::fp64, Fmt::fp32, in, seed, "fp64");
  // The host's double -> float conversion is IEEE RNE.
  Counter h("fp64->fp32 vs host cast");
  for (uint64_t b : in) {
    const double d = std::bit_cast<double>(b);
    if (!(std::fabs(d) <= FLT_MAX)) continue;  // NaN; out-of-range casts are not portable
    h.eq(mmaemu::convert(Fmt::fp64, Fmt::fp32, b, Round::rne, Overflow::ieee),
         std::bit_cast<uint32_t>(static_cast<float>(d)),
         [&] { return "fp64->fp32 rne in=" + hex(b) + " seed=" + hex(seed); });
  }
  c.finish();
  h.finish();
}

TEST_CASE("fp64 -> 8/16-bit formats: boundaries with fp64 neighbours") {
  // fp64 neighbours of the midpoints are much closer than fp32 ones: they
  // exercise the sticky bit with a long tail of zeros.
  const uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  for (Fmt to : kSmallFmts) {
    const Spec& t = spec(to);
    Counter c(t.name);
    std::vector<uint64_t> in = special_inputs(Fmt::fp64);
    std::vector<double> vals = all_values(t);
    if (t.width == 16) {  // a random eighth of the 16-bit values keeps this quick
      std::vector<double> some;
      for (double v : vals)
        if (rng() % 8 == 0) some.push_back(v);
      vals = some;
    }
    add_boundaries<double>(in, t, vals, t.mbits);
    add_range_edges<double>(in, t);
    const std::vector<uint64_t> rnd = random_inputs(Fmt::fp64, t, 10000, rng);
    in.insert(in.end(), rnd.begin(), rnd.end());
    check_convert(c, Fmt::fp64, to, in, seed, "fp64");
    c.finish();
  }
}

TEST_CASE("conversions between the 8/16-bit formats (exhaustive 8-bit sources)") {
  const uint64_t seed = test_seed();
  for (Fmt from : kSmallFmts) {
    const Spec& s = spec(from);
    if (s.width != 8) continue;
    Counter c(s.name);
    std::vector<uint64_t> in;
    for (uint64_t b = 0; b < 256; ++b) in.push_back(b);
    for (Fmt to : kSmallFmts) check_convert(c, from, to, in, seed, "8-bit source");
    check_convert(c, from, Fmt::tf32, in, seed, "8-bit source");
    c.finish();
  }
}

TEST_CASE("round_pack: random magnitudes, exponents and sticky bits") {
  const uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  for (const Spec& s : kSpecs) {
    Counter c(s.name);
    check_round_pack(c, s.fmt, -1, 20000, rng, seed);
    c.finish();
  }
  Counter c13("fp32 prec=13");
  check_round_pack(c13, Fmt::fp32, 13, 20000, rng, seed);
  c13.finish();
  Counter c10("fp32 prec=10");
  check_round_pack(c10, Fmt::fp32, 10, 20000, rng, seed);
  c10.finish();
}
