// SPDX-License-Identifier: BSD-3-Clause
// The kernel layer alone: the fast roundings against round_pack, the
// scalar step kernels against ref::step on random bit patterns for every
// row, and plan()'s choices. (The SIMD kernels run inside whole GEMMs:
// tests/driver.) MMAEMU_DIFF_SCALE multiplies the counts; MMAEMU_TEST_SEED
// changes the seed (tests/common/engine_rows.h).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "common/engine_rows.h"
#include "formats/fast_round.h"
#include "kernels/plan.h"
#include "ref/reference.h"

using namespace mmaemu;
using namespace mmaemu::test;

TEST_CASE("fast rounding equals round_pack on every exponent, mode and precision") {
  std::mt19937_64 rng(kSeed);
  std::size_t n = 0;
  for (int t = 0; t < static_cast<int>(200000 * kScale); ++t) {
    const bool neg = rng() & 1;
    uint64_t mag = rng() >> (rng() % 64);
    if (!mag) mag = 1;
    const int exp = static_cast<int>(rng() % 400) - 260;
    const Round r = static_cast<Round>(rng() % 5);
    const int p32 = rng() % 2 ? 23 : 13, p16 = rng() % 2 ? 10 : 5;
    const uint64_t want32 = round_pack(Fmt::fp32, neg, mag, exp, false, r, Overflow::inf, p32);
    const uint64_t want16 = round_pack(Fmt::fp16, neg, mag, exp, false, r, Overflow::inf, p16);
    const uint32_t got32 = round_fp32(neg, mag, exp, r, p32);
    const uint32_t got16 = round_fp16(neg, mag, exp, r, p16);
    if (got32 != want32 || got16 != want16) {
      INFO("seed " << kSeed << " mag " << hex(mag) << " exp " << exp << " mode " << int(r));
      CHECK(hex(got32) == hex(want32));
      CHECK(hex(got16) == hex(want16));
      break;
    }
    n += 2;
  }
  // (NaN payloads may differ: the kernels only classify c as NaN.)
  for (uint32_t h = 0; h < 65536; ++h, ++n)
    if (!is_nan(Fmt::fp16, h)) REQUIRE(fp16_to_fp32(h) == to_fp32_bits(Fmt::fp16, h));
  MESSAGE(n << " roundings compared");
}

TEST_CASE("fast step kernels equal ref::step for every row") {
  std::size_t total = 0;
  for (const auto& [name, row] : all_rows()) {
    const kernels::ScalarKernel kernel = kernels::plan(row).step;
    if (kernel == kernels::ScalarKernel::none) continue;  // reported by `mmaemu models`; the driver uses ref::step
    Gen g(kSeed ^ std::hash<std::string>{}(name));
    const std::size_t step = ref::step_k(row);
    std::vector<uint64_t> a(step), b(step);
    std::vector<int32_t> sa(step), ea(step), sb(step), eb(step);
    std::size_t mism = 0, ran = 0;
    const std::size_t trials = 100000 * kScale;
    for (std::size_t t = 0; t < trials; ++t) {
      const bool narrow = t % 2;
      const int centre_a = static_cast<int>(g.rng() % ((1u << info(row.in).exp_bits) - 1)) + 1;
      const int centre_b = static_cast<int>(g.rng() % ((1u << info(row.in).exp_bits) - 1)) + 1;
      const std::size_t len = 1 + g.rng() % step;
      bool special = false;
      for (std::size_t l = 0; l < len; ++l) {
        a[l] = g.bits(row.in, narrow, centre_a);
        b[l] = g.bits(row.in, narrow, centre_b);
        special |= !kernels::pack_element(row, a[l], sa[l], ea[l]);
        special |= !kernels::pack_element(row, b[l], sb[l], eb[l]);
      }
      if (special) continue;  // the driver routes such steps to ref::step
      // c: from the products' neighbourhood or anywhere in the output range.
      const uint64_t c = g.bits(row.out, narrow, centre_a + centre_b - info(row.in).bias +
                                                   info(row.out).bias - (t % 3 == 0 ? 20 : 0));
      const uint64_t want = ref::step(row, len, a.data(), b.data(), c);
      const uint32_t got = kernels::scalar_step(kernel, row, static_cast<int>(len), sa.data(), ea.data(), sb.data(), eb.data(),
                                  static_cast<uint32_t>(c));
      ++ran;
      if (got != want && ++mism <= 3) {
        std::string in;
        for (std::size_t l = 0; l < len; ++l) in.append(" ").append(hex(a[l])).append("*").append(hex(b[l]));
        FAIL_CHECK("seed " << kSeed << " " << name << " " << std::string(info(row.in).name) << "->"
                           << std::string(info(row.out).name) << " c " << hex(c) << " inputs" << in
                           << ": ref " << hex(want) << " fast " << hex(got));
      }
    }
    CHECK_MESSAGE(mism == 0, name << ": " << mism << " of " << ran << " steps differ");
    CHECK(ran > trials / 2);
    total += ran;
  }
  MESSAGE(total << " steps compared");
}


TEST_CASE("plan(): one kernel per row, consistent with its options and with kernel_name") {
  std::size_t simd = 0;
  for (const auto& [name, row] : all_rows()) {
    INFO(name);
    const kernels::KernelPlan p = kernels::plan(row);
    CHECK(std::string(kernels::kernel_name(row)) == p.name);
    // The reference option leaves no kernel; simd_off no SIMD kernel.
    const kernels::KernelPlan r = kernels::plan(row, {true, false});
    CHECK((r.step == kernels::ScalarKernel::none));
    CHECK(r.macro == (is_integer_row(row) ? kernels::Macro::integer : kernels::Macro::steps));
    CHECK(!r.simd);
    const kernels::KernelPlan s = kernels::plan(row, {false, true});
    CHECK(!s.simd);
    CHECK(s.macro != kernels::Macro::chain);
    if (is_integer_row(row)) {  // the integer plug-in: its kernel or the reference (ref::step), no scalar kernel
      CHECK(p.macro == kernels::Macro::integer);
      CHECK((p.step == kernels::ScalarKernel::none));
      CHECK(std::string(p.why).empty() == p.simd);
      CHECK(std::string(r.why) == "the use_reference option");
      simd += p.simd;
      continue;
    }
    CHECK((s.step == p.step));
    // A SIMD step kernel always has its scalar kernel (the hand-back path).
    if (p.simd) CHECK((p.step != kernels::ScalarKernel::none));
    if (p.macro == kernels::Macro::exact) CHECK((p.step != kernels::ScalarKernel::none));
    if (p.fp64) CHECK((p.step == kernels::ScalarKernel::none));
    simd += p.simd || p.macro != kernels::Macro::steps;
    // why: empty exactly where a SIMD kernel (steps, chain tiles or the
    // exact kernel) serves the row.
    CHECK(std::string(p.why).empty() == (p.simd || p.macro != kernels::Macro::steps));
    CHECK(std::string(r.why) == "the use_reference option");
  }
  CHECK(simd > 0);
  // The reason names the condition the row misses.
  const Model rd = lookup_model("custom:base=H100,round=rd");
  CHECK(std::string(kernels::kernel_why(*rd.find(Fmt::fp16, Fmt::fp16))) == "fp16 result rounded other than RNE");
  CHECK(std::string(kernels::kernel_name(*rd.find(Fmt::fp16, Fmt::fp16))) == "scalar");
  CHECK(kernels::plan(*rd.find(Fmt::fp16, Fmt::fp32)).simd);  // RD with fp32 results: the aligned kernel
}

TEST_CASE("plan(): block-scaled units, why empty exactly on the SIMD kernels, the reason otherwise") {
  for (const ScaledUnit& u : scaled_units()) {
    INFO(u.gpu << " " << u.instruction);
    const kernels::KernelPlan p = kernels::plan(u);
    CHECK(p.macro == kernels::Macro::scaled);
    CHECK((p.step == kernels::ScalarKernel::none));
    // Every unit of the table is inside an envelope: T/ST on simd_st_run16, GST on simd_gst_run16.
    CHECK(p.simd);
    CHECK(std::string(p.name) == "simd");
    CHECK(std::string(p.why).empty());
    const bool gst = u.algo == ScaledAlgo::gst_fdpa;
    CHECK((p.kernel == (gst ? kernels::simd_gst_run16 : kernels::simd_st_run16)));
    CHECK((p.simd_params.kind == (gst ? kernels::SimdKind::gst : kernels::SimdKind::st)));
    CHECK(p.simd_params.frac == u.frac);
    CHECK(p.simd_params.floor == u.e_zero);
    CHECK(p.simd_params.block == u.block);
    CHECK(p.simd_params.rz == (u.round != Round::rne));
    const kernels::KernelPlan r = kernels::plan(u, {true, false}), s = kernels::plan(u, {false, true});
    for (const kernels::KernelPlan& q : {r, s}) {
      CHECK(q.macro == kernels::Macro::scaled);
      CHECK(!q.simd);
      CHECK((q.kernel == nullptr));
      CHECK(std::string(q.name) == "reference");
    }
    CHECK(std::string(r.why) == "the use_reference option");
    CHECK(std::string(s.why) == "the simd_off option");
  }
  // Outside an envelope: the reference, and the reason names the condition missed.
  const auto why = [](ScaledUnit u, auto change) {
    change(u);
    const kernels::KernelPlan p = kernels::plan(u);
    CHECK(!p.simd);
    CHECK((p.kernel == nullptr));
    CHECK(std::string(p.name) == "reference");
    return std::string(p.why);
  };
  const auto find = [](ScaledAlgo algo) {
    for (const ScaledUnit& u : scaled_units())
      if (u.algo == algo) return u;
    FAIL("no unit of that algorithm");
    return scaled_units()[0];
  };
  const ScaledUnit t = find(ScaledAlgo::t_fdpa), st = find(ScaledAlgo::st_fdpa), gst = find(ScaledAlgo::gst_fdpa);
  CHECK(why(st, [](ScaledUnit& u) { u.frac = 26; }) == "T/ST-FDPA with F over 25");
  CHECK(why(t, [](ScaledUnit& u) { u.k = 34; }) == "T/ST-FDPA with k odd or over 32");
  CHECK(why(t, [](ScaledUnit& u) { u.block = u.k; }) == "T-FDPA with scales");
  CHECK(why(st, [](ScaledUnit& u) { u.block = u.k / 2; }) == "ST-FDPA with more than one scale per instruction");
  CHECK(why(gst, [](ScaledUnit& u) { u.frac = 41; }) == "GST-FDPA with F over 40");
  CHECK(why(gst, [](ScaledUnit& u) { u.group = 8; }) == "GST-FDPA with groups other than 16");
  CHECK(why(gst, [](ScaledUnit& u) { u.k = 80; }) == "GST-FDPA with k over 64 or not whole groups");
  CHECK(why(gst, [](ScaledUnit& u) { u.block = 8; }) == "GST-FDPA with blocks not whole groups of k");
  CHECK(why(gst, [](ScaledUnit& u) { u.e_zero = -125; }) == "zero-term exponent outside [-300, -126]");
  CHECK(why(st, [](ScaledUnit& u) { u.e_zero = -301; }) == "zero-term exponent outside [-300, -126]");
  CHECK(why(st, [](ScaledUnit& u) { u.round = Round::rna; }) == "fp32 result rounded other than RZ or RNE");
}

TEST_CASE("pack_element: every finite fp16 and bf16 pattern as decode() and to_fp32_bits() give it") {
  // pack_element decodes fp16/bf16 from the bit fields (the packing hot
  // path); the oracle is the generic decode. Rows: integer and real
  // operands, with and without subnormal inputs.
  std::size_t rows = 0;
  for (const auto& [name, row] : all_rows()) {
    if ((row.in != Fmt::fp16 && row.in != Fmt::bf16) || row.as_fp16 ||
        kernels::decoding_of(row) == kernels::Decoding::real64)
      continue;
    ++rows;
    const int man = info(row.in).man_bits;
    const bool real = kernels::decoding_of(row) == kernels::Decoding::real;
    std::size_t bad = 0;
    for (uint32_t h = 0; h < 0x10000u; ++h) {
      const Unpacked u = decode(row.in, h);
      int32_t sig = 0, exp = 0;
      const bool finite = kernels::pack_element(row, h, sig, exp);
      if (u.cls == Class::nan || u.cls == Class::inf) {
        bad += finite;
        continue;
      }
      const bool subnormal = u.cls == Class::finite && u.sig < (1ull << man);
      int32_t want_sig, want_exp;
      if (real) {  // the value as read: a flushed input is its zero (sign per flush_sign), -0 per neg_zero
        uint64_t v = to_fp32_bits(row.in, h);
        if (!row.in_sub && subnormal) v = zero_bits(Fmt::fp32, row.flush_sign == FlushSign::keep && u.neg);
        if (row.neg_zero == NegZero::positive && decode(Fmt::fp32, v).cls == Class::zero) v = 0;
        want_sig = static_cast<int32_t>(v);
        want_exp = 0;
      } else if (u.cls == Class::zero || (!row.in_sub && subnormal)) {
        want_sig = 0;
        want_exp = kernels::kZeroExp;
      } else {
        want_sig = u.neg ? -static_cast<int32_t>(u.sig) : static_cast<int32_t>(u.sig);
        want_exp = u.exp + man;
      }
      if ((!finite || sig != want_sig || exp != want_exp) && ++bad <= 2)
        FAIL_CHECK(name << " " << hex(h) << ": sig " << sig << " exp " << exp << ", want " << want_sig << " "
                        << want_exp);
    }
    CHECK(bad == 0);
  }
  CHECK(rows > 0);
}
