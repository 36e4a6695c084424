// SPDX-License-Identifier: BSD-3-Clause
#include <doctest/doctest.h>

#include <functional>
#include <set>

#include "ensemble.h"
#include "fragments.h"
#include "independent.h"
#include "tiles.h"

using namespace mmaemu::hwcheck;
namespace fr = mmaemu::hwcheck::frag;

namespace {

// Every (row, col) of a rows x cols tile is hit exactly once by (thread, element).
bool bijection(int threads, int elems, int rows, int cols, const std::function<fr::RC(int, int)>& map) {
  std::set<std::pair<int, int>> seen;
  for (int t = 0; t < threads; ++t)
    for (int i = 0; i < elems; ++i) {
      const fr::RC x = map(t, i);
      if (x.row < 0 || x.row >= rows || x.col < 0 || x.col >= cols) return false;
      if (!seen.insert({x.row, x.col}).second) return false;
    }
  return static_cast<int>(seen.size()) == rows * cols;
}

}  // namespace

TEST_CASE("fragment layouts cover their tiles exactly once") {
  CHECK(bijection(32, 8, 16, 16, fr::a_16816));
  CHECK(bijection(32, 4, 16, 8, fr::b_16816));     // {k, n}
  CHECK(bijection(32, 4, 16, 8, fr::a_1688_tf32));
  CHECK(bijection(32, 2, 8, 8, fr::b_1688_tf32));
  CHECK(bijection(32, 16, 16, 32, fr::a_16832));
  CHECK(bijection(32, 8, 32, 8, fr::b_16832));
  CHECK(bijection(32, 4, 16, 8, fr::cd_m16n8));
  CHECK(bijection(128, 4, 64, 8, fr::d_wgmma));
  CHECK(bijection(128, 32, 64, 64, fr::d_wgmma));  // the same formula for N = 64
}

TEST_CASE("fragment layouts match the PTX ISA formulas at sample points") {
  // mma.m16n8k16 A: a4,a5 of lane 6 (g 1, t 2) are row g, cols 2t+8, 2t+9.
  CHECK(fr::a_16816(6, 4).row == 1);
  CHECK(fr::a_16816(6, 5).col == 13);
  CHECK(fr::a_16816(6, 2).row == 9);
  CHECK(fr::b_16816(6, 3).row == 13);
  CHECK(fr::b_16816(6, 3).col == 1);
  // tf32 m16n8k8: a1 row g+8 col t, a2 row g col t+4; b1 row t+4.
  CHECK(fr::a_1688_tf32(6, 1).row == 9);
  CHECK(fr::a_1688_tf32(6, 1).col == 2);
  CHECK(fr::a_1688_tf32(6, 2).col == 6);
  CHECK(fr::b_1688_tf32(6, 1).row == 6);
  // m16n8k32 fp8: a0..a3 row g, a4..a7 row g+8, a8..a11 row g with k + 16; thread t of the
  // first quad holds k = 4t..4t+3 and 16+4t..16+4t+3 of row 0 (docs/models.md §4.1).
  CHECK(fr::a_16832(5, 9).row == 1);
  CHECK(fr::a_16832(5, 9).col == 21);
  CHECK(fr::a_16832(5, 5).row == 9);
  for (int t = 0; t < 4; ++t)
    for (int j = 0; j < 4; ++j) {
      CHECK(fr::a_16832(t, j).row == 0);
      CHECK(fr::a_16832(t, j).col == 4 * t + j);
      CHECK(fr::a_16832(t, 8 + j).col == 16 + 4 * t + j);
    }
  CHECK(fr::b_16832(7, 6).row == 4 * 3 + 2 + 16);
  CHECK(fr::cd_m16n8(7, 3).row == 9);
  CHECK(fr::cd_m16n8(7, 3).col == 7);
  // wgmma D: warp 2, lane 5 (g 1, t 1), d5: row 32 + 1 + 0, col 2 + 1 + 8.
  CHECK(fr::d_wgmma(69, 5).row == 33);
  CHECK(fr::d_wgmma(69, 5).col == 11);
}

TEST_CASE("wgmma K-major no-swizzle shared layout is a bijection with 16-byte rows") {
  std::set<int> a, b;
  for (int r = 0; r < 64; ++r)
    for (int k = 0; k < 32; ++k) a.insert(fr::smem_kmajor_8bit(r, k));
  for (int r = 0; r < 8; ++r)
    for (int k = 0; k < 32; ++k) b.insert(fr::smem_kmajor_8bit(r, k));
  CHECK(a.size() == 2048);
  CHECK(*a.rbegin() == 2047);
  CHECK(b.size() == 256);
  CHECK(*b.rbegin() == 255);
  CHECK(fr::smem_kmajor_8bit(1, 0) - fr::smem_kmajor_8bit(0, 0) == 16);               // rows of a core matrix
  CHECK(fr::smem_kmajor_8bit(0, 16) - fr::smem_kmajor_8bit(0, 0) == fr::kWgmmaLBO);  // next core matrix in K
  CHECK(fr::smem_kmajor_8bit(8, 0) - fr::smem_kmajor_8bit(0, 0) == fr::kWgmmaSBO);   // next 8 rows
  CHECK(fr::kWgmmaLBO % 16 == 0);
  CHECK(fr::kWgmmaSBO % 16 == 0);
}

TEST_CASE("instruction table") {
  CHECK(shape_of(Instr::mma_sync, InFmt::fp16).k == 16);
  CHECK(shape_of(Instr::mma_sync, InFmt::tf32).k == 8);
  CHECK(shape_of(Instr::mma_sync, InFmt::e4m3).k == 32);
  CHECK(shape_of(Instr::wmma, InFmt::bf16).n == 16);
  CHECK(shape_of(Instr::wmma, InFmt::tf32).k == 8);
  CHECK(shape_of(Instr::wgmma, InFmt::e5m2).m == 64);
  CHECK_FALSE(supported(Instr::wgmma, InFmt::fp16));
  CHECK_FALSE(supported(Instr::wmma, InFmt::e4m3));
  CHECK(outputs_of(Instr::mma_sync, InFmt::bf16).size() == 1);
  CHECK(outputs_of(Instr::wgmma, InFmt::e4m3).size() == 2);
  CHECK(runs_on(Instr::wgmma, InFmt::e4m3, 90));
  CHECK_FALSE(runs_on(Instr::wgmma, InFmt::e4m3, 100));
  CHECK_FALSE(runs_on(Instr::mma_sync, InFmt::e4m3, 80));
  CHECK(runs_on(Instr::mma_sync, InFmt::e4m3, 89));
  CHECK(runs_on(Instr::wmma, InFmt::fp16, 70));
  CHECK_FALSE(runs_on(Instr::wmma, InFmt::bf16, 75));
  CHECK(std::string(instr_name(Instr::mma_sync)) == "mma.sync");
  CHECK(std::string(instr_name(Instr::wmma)) == "wmma");
  CHECK(std::string(instr_name(Instr::wgmma)) == "wgmma");
}

TEST_CASE("diagonal packing puts sample s in row s of A, column s of B, C[s][s]") {
  for (Instr in : kAllInstrs)
    for (InFmt f : kAllInFmts) {
      if (!supported(in, f)) continue;
      const std::string instr_str = instr_name(in);
      CAPTURE(instr_str);
      const std::string fmt_name = info(f).folder;
    CAPTURE(fmt_name);
      const Shape s = shape_of(in, f);
      const Ensemble e = generate(f, s.k, {SetKind::em_normal, SetKind::edge}, 40, 2);
      for (Packing p : {Packing::diagonal, Packing::single}) {
        const TileBatch t = pack(e, s, p);
        const size_t spt = static_cast<size_t>(samples_per_tile(s, p));
        CHECK(spt == (p == Packing::single ? 1u : static_cast<size_t>(std::min(s.m, s.n))));
        REQUIRE(t.tiles == (e.size() + spt - 1) / spt);
        std::vector<uint32_t> dtiles(t.tiles * t.c_tile_elems(), 0xdeadbeefu);
        for (size_t i = 0; i < e.size(); ++i) {
          const size_t tile = i / spt;
          const int d = static_cast<int>(i % spt);
          for (int l = 0; l < s.k; ++l) {
            const uint32_t want_a = e.a[i * e.k + l], want_b = e.b[i * e.k + l];
            const uint32_t got_a = t.a_at(tile, d, l), got_b = t.b_at(tile, l, d);
            if (std::isnan(hwtest::val(want_a))) CHECK(std::isnan(hwtest::val(got_a)));
            else CHECK(got_a == want_a);
            if (std::isnan(hwtest::val(want_b))) CHECK(std::isnan(hwtest::val(got_b)));
            else CHECK(got_b == want_b);
          }
          CHECK(fp32_bits(t.c[tile * t.c_tile_elems() + static_cast<size_t>(d) * s.n + d]) == e.c[i]);
          dtiles[tile * t.c_tile_elems() + static_cast<size_t>(d) * s.n + d] = static_cast<uint32_t>(i);
        }
        // everything off the used diagonal is +0
        size_t nonzero_off = 0;
        for (size_t tile = 0; tile < t.tiles; ++tile)
          for (int r = 0; r < s.m; ++r)
            for (int l = 0; l < s.k; ++l) {
              const size_t i = tile * spt + static_cast<size_t>(r);
              if (r < static_cast<int>(spt) && i < e.size()) continue;
              nonzero_off += t.a_at(tile, r, l) != 0;
            }
        CHECK(nonzero_off == 0);
        const auto back = unpack(dtiles, s, p, e.size());
        for (size_t i = 0; i < e.size(); ++i) REQUIRE(back[i] == i);
      }
    }
}

TEST_CASE("layout probe: exact integers, detects a wrong element") {
  for (Instr in : kAllInstrs)
    for (InFmt f : kAllInFmts) {
      if (!supported(in, f)) continue;
      const std::string instr_str = instr_name(in);
      CAPTURE(instr_str);
      const std::string fmt_name = info(f).folder;
    CAPTURE(fmt_name);
      const Shape s = shape_of(in, f);
      const TileBatch t = make_probe(f, s, 3, 1);
      const auto want = probe_expected(t);
      std::vector<uint32_t> d(want.size());
      for (size_t i = 0; i < want.size(); ++i) {
        REQUIRE(std::fabs(want[i]) < 2048);
        REQUIRE(want[i] == std::floor(want[i]));
        d[i] = fp32_bits(static_cast<float>(want[i]));
      }
      std::string report;
      CHECK(probe_mismatches(t, d, &report) == 0);
      // a transposed B (the typical fragment mistake) must be caught
      std::vector<uint32_t> bad = d;
      std::swap(bad[1], bad[s.n]);
      if (want[1] != want[static_cast<size_t>(s.n)]) {
        CHECK(probe_mismatches(t, bad, &report) == 2);
        CHECK(report.find("tile 0") != std::string::npos);
      }
    }
}

TEST_CASE("fp16 results widen exactly") {
  const auto w = widen_fp16({0x3c00, 0x0001, 0xfc00, 0x8000});
  CHECK(w[0] == 0x3f800000u);
  CHECK(hwtest::val(w[1]) == std::ldexp(1.0f, -24));
  CHECK(w[2] == 0xff800000u);
  CHECK(w[3] == 0x80000000u);
}
