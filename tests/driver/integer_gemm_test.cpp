// SPDX-License-Identifier: BSD-3-Clause
// The integer units' GEMM (driver/integer_kind.cpp on the register-blocked
// tile, kernels/integer_simd.h) on every SIMD target Highway compiled and
// this CPU runs, 1 and 2 threads:
//  - the blocking's edges (several row tasks, whole 4-group blocks and
//    their remainders, a last group of fewer than 16 columns, several k
//    chunks, transposes, packed int4, the private-B and few-columns paths)
//    against ref::dot, bits compared;
//  - k = 2^20 against an int64 reference written here (not ref/): every
//    product -128 * -128 (the sums leave the s32 range upwards, wrapping
//    or clamping many times), -128 * 127 (downwards), the one then the
//    other, and random codes; wrap, satfinite per instruction and per
//    addition.
// MMAEMU_DIFF_SCALE multiplies the edge shapes' trials; MMAEMU_TEST_SEED
// changes the seed (tests/common/engine_rows.h).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "common/engine_rows.h"
#include "common/int_operands.h"
#include "driver/gemm.h"
#include "hwy/targets.h"
#include "kernels/plan.h"
#include "kernels/simd.h"
#include "ref/reference.h"

using namespace mmaemu;
using namespace mmaemu::test;

namespace {

// One integer GEMM's operands as the C API takes them (int_operands.h),
// and C's s32 codes.
struct IntGemm {
  std::size_t m, n, k;
  bool ta, tb, packed;
  std::vector<uint8_t> As, Bs;
  std::vector<int32_t> C;

  IntGemm(std::size_t m_, std::size_t n_, std::size_t k_, bool ta_, bool tb_, bool packed_, const uint64_t* A,
          const uint64_t* B)
      : m(m_), n(n_), k(k_), ta(ta_), tb(tb_), packed(packed_) {
    IntOperandBytes ops = int_operand_bytes(m, n, k, ta, tb, packed, A, B);
    As = std::move(ops.a), Bs = std::move(ops.b);
  }

  // D = op(A) op(B) + C (into_c) or op(A) op(B), on `row` with `threads`.
  std::vector<int32_t> run(const ModelRow& row, const std::vector<int32_t>& C0, bool into_c, int threads) const {
    const std::size_t kd = packed ? 2 : 1, kb = (k + kd - 1) / kd;
    std::vector<int32_t> D = into_c ? C0 : std::vector<int32_t>(m * n, 0x5A5A5A5A);
    driver::GemmSpec spec;
    spec.row = &row;
    spec.threads = threads;
    spec.work_per_thread = 1;  // threads even for small products
    driver::Operand a{row.in, As.data(), static_cast<std::ptrdiff_t>(ta ? m : kb), ta};
    driver::Operand b{row.in_b, Bs.data(), static_cast<std::ptrdiff_t>(tb ? kb : n), tb};
    a.fp4_packed = b.fp4_packed = packed;
    driver::gemm(spec, m, n, k, 1.0, a, b, into_c ? 1.0 : 0.0, Fmt::s32, D.data(), static_cast<std::ptrdiff_t>(n));
    return D;
  }
};

std::string rule_of(const ModelRow& row) {
  if (row.overflow == IntOverflow::wrap) return "wrap";
  return row.sat_point == SatPoint::addition ? "satfinite/addition" : "satfinite";
}

// The integer rows the edge shapes run: H100's four s8/u8 units and
// A100's four int4 ones (k = 64), each wrapping and with both satfinite
// readings, and an AMD unit of k = 8.
bool edge_row(const std::string& name) {
  return name.rfind("H100 wgmma", 0) == 0 || name.rfind("A100 mma.sync s4", 0) == 0 ||
         name.rfind("A100 mma.sync u4", 0) == 0 || name.rfind("MI100 v_mfma_i32_32x32x8i8", 0) == 0;
}

struct EdgeShape {
  std::size_t m, n, k;
  bool ta, tb, into_c;
  int threads;
};
// m > 32: several row tasks; n = 143: 8 whole groups and one of 15
// columns; k > 256: several chunks; m <= 32 with few columns and 2 threads:
// the few-columns path; m <= 32 with 5 groups: private B per task; few
// columns and k >= 4 * 1008 on 2 threads: the wrap rule's pieces of k
// (integer_kind.cpp, split_k_pieces), the last instruction partial, int4
// unpacked (odd index) and packed (even).
const EdgeShape kEdges[] = {{67, 143, 600, false, false, true, 2}, {5, 70, 300, true, true, false, 1},
                            {33, 65, 257, false, true, true, 2},   {20, 9, 1000, true, false, true, 2},
                            {4, 64, 64, false, false, true, 1},    {6, 9, 4040, true, false, false, 2},
                            {7, 13, 4100, false, true, true, 2}};

}  // namespace

TEST_CASE("integer GEMM: the blocking's edges equal ref::dot, every target, 1 and 2 threads") {
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  std::size_t rows = 0, gemms = 0, bad = 0;
  std::vector<std::string> rules;
  for (const auto& [name, row] : all_rows()) {
    if (!is_integer_row(row) || !edge_row(name)) continue;
    REQUIRE(kernels::plan(row).simd);
    ++rows;
    rules.push_back(rule_of(row));
    Gen g(kSeed ^ (std::hash<std::string>{}(name) * 11));
    const bool int4 = info(row.in).width == 4;
    for (std::size_t trial = 0; trial < std::max<std::size_t>(1, static_cast<std::size_t>(kScale)); ++trial)
      for (std::size_t e = 0; e < std::size(kEdges); ++e) {
        const EdgeShape& s = kEdges[e];
        std::vector<uint64_t> A(s.m * s.k), B(s.k * s.n);
        for (auto& x : A) x = g.int_bits(row.in);
        for (auto& x : B) x = g.int_bits(row.in_b);
        std::vector<int32_t> C(s.m * s.n);
        for (auto& x : C) x = static_cast<int32_t>(static_cast<uint32_t>(g.int_bits(Fmt::s32)));
        const IntGemm gemm(s.m, s.n, s.k, s.ta, s.tb, int4 && e % 2 == 0, A.data(), B.data());
        std::vector<uint64_t> want(s.m * s.n), ar(s.k), bc(s.k);
        for (std::size_t i = 0; i < s.m; ++i)
          for (std::size_t j = 0; j < s.n; ++j) {
            for (std::size_t l = 0; l < s.k; ++l) ar[l] = A[i * s.k + l], bc[l] = B[l * s.n + j];
            want[i * s.n + j] =
                ref::dot(row, s.k, ar.data(), bc.data(), s.into_c ? static_cast<uint32_t>(C[i * s.n + j]) : 0);
          }
        for (const int64_t target : targets) {
          hwy::SetSupportedTargetsForTest(target);
          for (int threads = 1; threads <= s.threads; ++threads) {
            const std::vector<int32_t> D = gemm.run(row, C, s.into_c, threads);
            ++gemms;
            std::size_t here = 0;
            for (std::size_t q = 0; q < D.size(); ++q) {
              if (static_cast<uint32_t>(D[q]) == want[q] || ++here > 2) continue;
              FAIL_CHECK("seed " << kSeed << " " << name << " target " << std::string(hwy::TargetName(target))
                                 << " threads " << threads << " m" << s.m << " n" << s.n << " k" << s.k << " ta"
                                 << s.ta << " tb" << s.tb << " packed " << gemm.packed << " at (" << q / s.n << ","
                                 << q % s.n << "): ref " << hex(want[q]) << " gemm "
                                 << hex(static_cast<uint32_t>(D[q])));
            }
            bad += here;
          }
        }
        hwy::SetSupportedTargetsForTest(0);
      }
  }
  MESSAGE(rows << " integer rows, " << gemms << " GEMMs, " << targets.size() << " targets");
  CHECK(rows >= 25);
  for (const char* rule : {"wrap", "satfinite", "satfinite/addition"}) {
    CAPTURE(rule);
    CHECK(std::count(rules.begin(), rules.end(), std::string(rule)) >= 8);
  }
  CHECK(bad == 0);
}

namespace {

constexpr int64_t kMin32 = INT32_MIN, kMax32 = INT32_MAX;
enum class Rule { wrap, satfinite, satfinite_addition };

// The chain of one output element, written from the PTX ISA's rules
// (docs/models.md, "Integer units") and nothing of src/: instructions of
// `step` products (the last one short), d = c + sum, wrapped modulo 2^32
// or clamped once per instruction, or clamped after each product.
int32_t chain64(Rule rule, std::size_t step, const std::vector<int64_t>& prod, int32_t c) {
  int64_t acc = c;
  for (std::size_t l0 = 0; l0 < prod.size(); l0 += step) {
    const std::size_t l1 = std::min(prod.size(), l0 + step);
    if (rule == Rule::satfinite_addition) {
      for (std::size_t l = l0; l < l1; ++l) acc = std::clamp(acc + prod[l], kMin32, kMax32);
      continue;
    }
    int64_t sum = acc;
    for (std::size_t l = l0; l < l1; ++l) sum += prod[l];
    if (rule == Rule::satfinite) acc = std::clamp(sum, kMin32, kMax32);
    else acc = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(sum)));  // modulo 2^32
  }
  return static_cast<int32_t>(acc);
}

}  // namespace

TEST_CASE("integer GEMM, k = 2^20: sums far outside the s32 range equal an int64 reference, every target") {
  constexpr std::size_t kLong = std::size_t{1} << 20;
  const Model h100 = *gpu_model("H100");
  ModelRow wrap = h100.require_integer(Fmt::s8, Fmt::s8, Fmt::s32);
  REQUIRE(wrap.overflow == IntOverflow::wrap);
  REQUIRE(wrap.has_satfinite);
  ModelRow sat = wrap, sat_each = wrap;
  sat.overflow = sat_each.overflow = IntOverflow::satfinite;
  sat.sat_point = SatPoint::instruction;
  sat_each.sat_point = SatPoint::addition;
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  std::mt19937_64 rng(kSeed);
  std::size_t gemms = 0, bad = 0;
  // Patterns: 0: -128 * -128 everywhere (k = 2^20 - 3: the wrapped sum is
  // not a multiple of 2^32); 1: -128 * 127; 2: the first half of k
  // -128 * -128, the rest -128 * 127 (up past MAX_INT32, then down past
  // MIN_INT32 when clamped); 3: random codes. Shapes: 2 x 17 (two lane
  // groups, one partial; private B) and 3 x 5 (one group: few columns on
  // 2 threads).
  for (int pattern = 0; pattern < 4; ++pattern) {
    const std::size_t m = pattern % 2 ? 3 : 2, n = pattern % 2 ? 5 : 17, k = pattern == 0 ? kLong - 3 : kLong;
    std::vector<uint64_t> A(m * k), B(k * n);
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t l = 0; l < k; ++l) A[i * k + l] = pattern == 3 ? rng() & 0xFF : 0x80;  // -128
    for (std::size_t l = 0; l < k; ++l)
      for (std::size_t j = 0; j < n; ++j) {
        const bool up = pattern == 0 || (pattern == 2 && l < k / 2);
        B[l * n + j] = pattern == 3 ? rng() & 0xFF : up ? 0x80 : 0x7F;  // -128 or 127
      }
    std::vector<int32_t> C(m * n);
    for (auto& x : C) x = static_cast<int32_t>(static_cast<uint32_t>(rng()));
    const IntGemm gemm(m, n, k, false, false, false, A.data(), B.data());
    const ModelRow* rows[3] = {&wrap, &sat, &sat_each};
    const Rule rules[3] = {Rule::wrap, Rule::satfinite, Rule::satfinite_addition};
    std::vector<int32_t> want[3];
    std::vector<int64_t> prod(k);
    for (auto& w : want) w.resize(m * n);
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j) {
        for (std::size_t l = 0; l < k; ++l)
          prod[l] = int64_t{static_cast<int8_t>(A[i * k + l])} * static_cast<int8_t>(B[l * n + j]);
        for (int r = 0; r < 3; ++r)
          want[r][i * n + j] = chain64(rules[r], static_cast<std::size_t>(wrap.k), prod, C[i * n + j]);
      }
    // The pattern's sums do leave the s32 range (patterns 0-2): satfinite
    // ends at the bound they leave through last.
    if (pattern < 3) {
      const int32_t bound = pattern == 0 ? INT32_MAX : INT32_MIN;
      CHECK(std::all_of(want[1].begin(), want[1].end(), [&](int32_t x) { return x == bound; }));
    }
    for (int r = 0; r < 3; ++r) {
      const std::string rule = rule_of(*rows[r]);
      for (const int64_t target : targets) {
        hwy::SetSupportedTargetsForTest(target);
        for (int threads = 1; threads <= 2; ++threads) {
          const std::vector<int32_t> D = gemm.run(*rows[r], C, true, threads);
          ++gemms;
          std::size_t here = 0;
          for (std::size_t q = 0; q < D.size(); ++q) {
            if (D[q] == want[r][q] || ++here > 2) continue;
            FAIL_CHECK("seed " << kSeed << " pattern " << pattern << " " << rule << " target "
                               << std::string(hwy::TargetName(target)) << " threads " << threads << " m" << m
                               << " n" << n << " k" << k << " at (" << q / n << "," << q % n << "): C "
                               << hex(static_cast<uint32_t>(C[q])) << " int64 reference "
                               << hex(static_cast<uint32_t>(want[r][q])) << " gemm "
                               << hex(static_cast<uint32_t>(D[q])));
          }
          bad += here;
        }
      }
      hwy::SetSupportedTargetsForTest(0);
    }
  }
  MESSAGE(gemms << " GEMMs of k up to 2^20, " << targets.size() << " targets");
  CHECK(bad == 0);
}
