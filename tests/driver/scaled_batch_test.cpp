// SPDX-License-Identifier: BSD-3-Clause
// Batched block-scaled instructions (driver/batch.h, run_scaled_batch) equal single
// ones, bit for bit: stacks of tiles against ref::scaled_instruction (what
// mmaemu_tile_block_scaled runs) and stacks of dot products of any k
// against ref::scaled_chain, for every row of src/models/scaled_units.cpp,
// every element format pair, fp32 and (T rows) fp16 results, NaN/Inf
// elements and NaN scales, 1-3 threads, on every SIMD target.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <bit>
#include <string>
#include <vector>

#include "common/engine_rows.h"
#include "common/scaled_draw.h"
#include "driver/batch.h"
#include "hwy/targets.h"
#include "kernels/plan.h"
#include "models/scaled_units.h"
#include "ref/block_scaled.h"

using namespace mmaemu;
using namespace mmaemu::test;

namespace {

uint64_t c_bits(Fmt out, Draw& d) {
  const float c = d.c_value();
  if (out == Fmt::fp32) return std::bit_cast<uint32_t>(c);
  return convert(Fmt::fp32, Fmt::fp16, std::bit_cast<uint32_t>(c), Round::rne);
}

// One stack (tiles, or dots of length k) through the batch, each element
// against the reference; returns the mismatches.
int check(const ScaledUnit& u, Fmt fa, Fmt fb, Fmt out, bool dots, std::size_t k, std::size_t count, int threads,
          Draw& d, const std::string& where) {
  const std::size_t m = dots ? 1 : u.m, n = dots ? 1 : u.n_min, kk = dots ? k : u.k;
  const std::size_t nb = u.block ? kk / u.block : 0;
  std::vector<uint8_t> A(count * m * kk), B(count * kk * n), SA(count * m * nb + 1), SB(count * nb * n + 1);
  for (auto& x : A) x = d.element(fa);
  for (auto& x : B) x = d.element(fb);
  for (auto& x : SA) x = d.scale(u.scale);
  for (auto& x : SB) x = d.scale(u.scale);
  std::vector<uint64_t> C(count * m * n);
  for (auto& x : C) x = c_bits(out, d);
  std::vector<float> C32(C.size());
  std::vector<uint16_t> C16(C.size());
  for (std::size_t i = 0; i < C.size(); ++i) C32[i] = std::bit_cast<float>(static_cast<uint32_t>(C[i])), C16[i] = static_cast<uint16_t>(C[i]);
  driver::ScaledBatch b;
  b.unit = &u, b.fa = fa, b.fb = fb, b.out = out, b.count = count, b.m = m, b.n = n, b.k = kk;
  b.A = A.data(), b.B = B.data(), b.SA = u.block ? SA.data() : nullptr, b.SB = u.block ? SB.data() : nullptr;
  b.C = out == Fmt::fp32 ? static_cast<const void*>(C32.data()) : C16.data();
  b.D = out == Fmt::fp32 ? static_cast<void*>(C32.data()) : C16.data();  // D aliases C
  driver::run_scaled_batch(b, threads);
  int bad = 0;
  std::vector<uint8_t> a(kk), bc(kk), sa(nb), sb(nb);
  for (std::size_t q = 0; q < C.size() && bad < 3; ++q) {
    const std::size_t t = q / (m * n), i = q % (m * n) / n, j = q % n;
    for (std::size_t l = 0; l < kk; ++l) a[l] = A[t * m * kk + i * kk + l], bc[l] = B[t * kk * n + l * n + j];
    for (std::size_t s = 0; s < nb; ++s) sa[s] = SA[t * m * nb + i * nb + s], sb[s] = SB[t * nb * n + s * n + j];
    const uint64_t want =
        dots ? ref::scaled_chain(u, out, fa, fb, kk, a.data(), sa.data(), bc.data(), sb.data(), C[q])
             : ref::scaled_instruction(u, out, {fa, fb, a.data(), bc.data(), sa.data(), sb.data(), C[q]});
    const uint64_t got = out == Fmt::fp32 ? std::bit_cast<uint32_t>(C32[q]) : C16[q];
    if (got == want) continue;
    ++bad;
    std::string sa_s, sb_s;
    FAIL_CHECK("seed " << kSeed << " " << where << " " << std::string(u.gpu) << " " << std::string(u.instruction)
                       << " " << std::string(info(fa).name) << "x" << std::string(info(fb).name) << " -> "
                       << std::string(info(out).name) << (dots ? " dot " : " tile ") << t << " element " << q
                       << " k " << kk << " threads " << threads << ": got " << hex(got) << " want " << hex(want)
                       << " c " << hex(C[q]));
  }
  return bad;
}

void check_unit(const ScaledUnit& u, uint64_t seed, const std::string& where, int rounds) {
  Draw d{std::mt19937_64(seed), Mix::any};
  const std::vector<Fmt> fmts = u.algo == ScaledAlgo::gst_fdpa ? std::vector<Fmt>{Fmt::e2m1}
                                                              : std::vector<Fmt>(std::begin(kElements), std::end(kElements));
  for (int r = 0; r < rounds; ++r) {
    const Fmt fa = fmts[r % fmts.size()], fb = fmts[(r / fmts.size()) % fmts.size()];
    d.mix = static_cast<Mix>(r % 4);
    const int threads = 1 + r % 3;
    for (Fmt out : {Fmt::fp32, Fmt::fp16}) {
      if (!(u.outputs & fmt_bit(out))) continue;
      if (check(u, fa, fb, out, false, 0, 1 + d.rng() % 3, threads, d, where)) return;
      const std::size_t unit = u.block ? static_cast<std::size_t>(u.block) : 1;
      const std::size_t ks[] = {static_cast<std::size_t>(u.k), unit * (1 + d.rng() % 3),
                                unit * (1 + d.rng() % (40 * static_cast<std::size_t>(u.k) / unit))};
      for (std::size_t k : ks)
        if (check(u, fa, fb, out, true, k, 1 + d.rng() % 40, threads, d, where)) return;
    }
  }
}

}  // namespace

TEST_CASE("block-scaled batch = N single instructions: every row, every SIMD target") {
  for (const int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    uint64_t seed = kSeed ^ static_cast<uint64_t>(target);
    for (const ScaledUnit& u : scaled_units()) {
      check_unit(u, seed++, hwy::TargetName(target), static_cast<int>(4 * kScale));
      ScaledUnit w = u;
      w.subnormals = NarrowSubnormals::normalize;
      check_unit(w, seed++, std::string(hwy::TargetName(target)) + " normalize", static_cast<int>(kScale));
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST_CASE("block-scaled batch on the reference gives the same bits") {
  // The reference path (use_reference) against the same references.
  for (const ScaledUnit& u : scaled_units()) {
    Draw d{std::mt19937_64(kSeed), Mix::any};
    const Fmt f = u.algo == ScaledAlgo::gst_fdpa ? Fmt::e2m1 : Fmt::e4m3;
    const std::size_t k = static_cast<std::size_t>(u.k), nb = u.block ? k / u.block : 0;
    std::vector<uint8_t> A(8 * k), B(8 * k), SA(8 * nb + 1), SB(8 * nb + 1);
    for (auto& x : A) x = d.element(f);
    for (auto& x : B) x = d.element(f);
    for (auto& x : SA) x = d.scale(u.scale);
    for (auto& x : SB) x = d.scale(u.scale);
    std::vector<float> C(8, 1.0f), D1(8), D2(8);
    driver::ScaledBatch b;
    b.unit = &u, b.fa = f, b.fb = f, b.count = 8, b.k = k, b.A = A.data(), b.B = B.data();
    b.SA = u.block ? SA.data() : nullptr, b.SB = u.block ? SB.data() : nullptr, b.C = C.data();
    b.D = D1.data();
    driver::run_scaled_batch(b, 1, false);
    b.D = D2.data();
    driver::run_scaled_batch(b, 1, true);
    for (int i = 0; i < 8; ++i) CHECK(std::bit_cast<uint32_t>(D1[i]) == std::bit_cast<uint32_t>(D2[i]));
  }
}
