// SPDX-License-Identifier: BSD-3-Clause
// fp32 -> fp8 by table (formats/narrow_table.h) against convert(), bit for
// bit: every table entry's class of fp32 patterns (sign, exponent, four
// leading fraction bits, rest zero or not) sampled at its least and
// greatest member and at random members, for the four fp8 formats, every
// rounding and every overflow policy. Built with MMAEMU_NARROW_EXHAUSTIVE
// (label full): all 2^32 patterns under the sgemm policies (RNE with
// saturation and with IEEE overflow).
#include <doctest/doctest.h>

#include <cstdio>
#include <random>
#include <string>

#include "formats/format.h"
#include "formats/narrow_table.h"

using namespace mmaemu;

namespace {

const Fmt kFp8[] = {Fmt::e4m3, Fmt::e5m2, Fmt::e4m3fnuz, Fmt::e5m2fnuz};
const Round kRounds[] = {Round::rne, Round::rz, Round::rd, Round::ru, Round::rna};
const Overflow kOverflows[] = {Overflow::ieee, Overflow::inf, Overflow::saturate};

// Counts mismatches, reporting the first few with everything needed to
// reproduce them.
struct Mismatches {
  std::size_t count = 0;
  void check(Fmt to, Round r, Overflow ov, uint32_t b, const uint8_t* table, uint64_t seed) {
    const uint64_t want = convert(Fmt::fp32, to, b, r, ov), got = fp32_narrow(table, b);
    if (got == want || ++count > 5) return;
    char msg[200];
    std::snprintf(msg, sizeof msg, "seed %llu fp32 0x%08X -> %s round %d overflow %d: convert 0x%02llX table 0x%02llX",
                  static_cast<unsigned long long>(seed), b, std::string(info(to).name).c_str(), static_cast<int>(r),
                  static_cast<int>(ov), static_cast<unsigned long long>(want), static_cast<unsigned long long>(got));
    FAIL_CHECK(msg);
  }
};

}  // namespace

TEST_CASE("fp32_narrow_table: only the four fp8 formats") {
  for (Fmt f : {Fmt::fp16, Fmt::bf16, Fmt::tf32, Fmt::fp32, Fmt::e2m1, Fmt::e3m2, Fmt::e2m3, Fmt::ue8m0, Fmt::ue4m3})
    CHECK(fp32_narrow_table(f, Round::rne, Overflow::saturate) == nullptr);
  for (Fmt f : kFp8) CHECK(fp32_narrow_table(f, Round::rne, Overflow::saturate) != nullptr);
  // Built once: the same table on every call.
  CHECK(fp32_narrow_table(Fmt::e4m3, Round::rz, Overflow::inf) == fp32_narrow_table(Fmt::e4m3, Round::rz, Overflow::inf));
}

#ifndef MMAEMU_NARROW_EXHAUSTIVE
TEST_CASE("fp32 -> fp8 by table equals convert(): every class of patterns, every policy") {
  const uint64_t seed = 20261201;
  std::mt19937_64 rng(seed);
  Mismatches bad;
  std::size_t checked = 0;
  for (Fmt to : kFp8)
    for (Round r : kRounds)
      for (Overflow ov : kOverflows) {
        const uint8_t* table = fp32_narrow_table(to, r, ov);
        REQUIRE(table != nullptr);
        for (uint32_t i = 0; i < (1u << kNarrowIndexBits); ++i) {
          const uint32_t head = (i >> 1) << 19;
          if ((i & 1) == 0) {
            bad.check(to, r, ov, head, table, seed);
            ++checked;
            continue;
          }
          for (uint32_t rest : {1u, 0x7FFFFu, 0x40000u, 0x3FFFFu, static_cast<uint32_t>(rng() % 0x7FFFFu) + 1u}) {
            bad.check(to, r, ov, head | rest, table, seed);
            ++checked;
          }
        }
      }
  CHECK(checked == 4 * 5 * 3 * (1u << (kNarrowIndexBits - 1)) * 6);
  CHECK(bad.count == 0);
}
#else
TEST_CASE("fp32 -> fp8 by table equals convert(): all 2^32 patterns, RNE with saturation and IEEE overflow") {
  for (Fmt to : kFp8)
    for (Overflow ov : {Overflow::saturate, Overflow::ieee}) {
      const uint8_t* table = fp32_narrow_table(to, Round::rne, ov);
      Mismatches bad;
      uint32_t b = 0;
      do bad.check(to, Round::rne, ov, b, table, 0);
      while (++b != 0);
      CHECK(bad.count == 0);
    }
}
#endif
