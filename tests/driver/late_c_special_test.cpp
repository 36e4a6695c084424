// SPDX-License-Identifier: BSD-3-Clause
// Special values on the interleaved fp8 mma.sync rows with fp16 output
// (H100/H200/B200 e4m3/e5m2 -> fp16, docs/models.md §2.12): c is added after the two
// chained half-sums by a separate IEEE addition in fp16, so it is no term of
// the fused sum. A half-sum that overflows to +Inf plus c = -Inf is NaN.
//
// Hand-derived vectors (k = 32, one instruction, unlisted a_i = b_i = 0):
//   a1 = b1 = 448 (e4m3 0x7E) or 256 (e5m2 0x5C): the product 200704 or 65536
//   exceeds 65504, so the half-sum {1,2,5,6,...} rounds (RNE) to +Inf.
//   c = -Inf      -> +Inf + -Inf = NaN  (NVIDIA fp16 NaN 0x7FFF)
//   c = +Inf      -> +Inf               (0x7C00)
//   c = -65504    -> +Inf + finite = +Inf
//   c = NaN       -> NaN                (0x7FFF)
//   a1 = 448, b1 = -448, c = +Inf -> -Inf + +Inf = NaN
//   the overflowing pair in the second half (position 3), c = -Inf -> NaN
//   a1 = b1 = 1, c = -Inf -> 1 + -Inf = -Inf (0xFC00)
// Each is checked on ref::step, the fast step kernel, and the GEMM driver
// (the chain starting from C, accumulate-into-c, and over two instructions).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "common/hex.h"
#include "driver/gemm.h"
#include "kernels/plan.h"
#include "kernels/scalar.h"
#include "formats/format.h"
#include "models/model.h"
#include "ref/reference.h"

using namespace mmaemu;

namespace {

constexpr uint64_t kNan16 = 0x7FFF, kPinf16 = 0x7C00, kNinf16 = 0xFC00, kMax16Neg = 0xFBFF;

struct Vector {
  const char* what;
  int pos;          // 0-based k position of the one large product
  bool neg_b;       // b negative
  bool one;         // the product is 1 * 1 instead of the overflowing one
  uint64_t c, want;
};

const Vector kVectors[] = {
    {"half-sum +Inf, c = -Inf", 0, false, false, kNinf16, kNan16},
    {"half-sum +Inf, c = +Inf", 0, false, false, kPinf16, kPinf16},
    {"half-sum +Inf, c = -65504", 0, false, false, kMax16Neg, kPinf16},
    {"half-sum +Inf, c = NaN", 0, false, false, kNan16, kNan16},
    {"half-sum -Inf, c = +Inf", 0, true, false, kPinf16, kNan16},
    {"second half +Inf, c = -Inf", 2, false, false, kNinf16, kNan16},
    {"finite sum, c = -Inf", 0, false, true, kNinf16, kNinf16},
};

struct Unit {
  std::string name;
  Model model;
  const ModelRow* row;
  uint64_t big, one;  // the overflowing factor and 1.0 in the row's input format
};

std::vector<Unit> units() {
  std::vector<Unit> us;
  for (const char* g : {"H100", "H200", "B200"})
    for (Fmt in : {Fmt::e4m3, Fmt::e5m2}) {
      Unit u{std::string(g) + "@mma.sync " + info(in).name + "->fp16", lookup_model(std::string(g) + "@mma.sync"),
             nullptr, in == Fmt::e4m3 ? 0x7Eu : 0x5Cu, in == Fmt::e4m3 ? 0x38u : 0x3Cu};
      us.push_back(std::move(u));
    }
  for (Unit& u : us) {
    const Fmt in = u.big == 0x7E ? Fmt::e4m3 : Fmt::e5m2;
    u.row = u.model.find_instr("mma.sync", in, Fmt::fp16);
    REQUIRE_MESSAGE(u.row != nullptr, u.name << ": no row");
    REQUIRE(u.row->grouping == Grouping::pair_interleave);
    REQUIRE(u.row->c == CEntry::late_rne);
    REQUIRE(ref::step_k(*u.row) == 32);
  }
  return us;
}

// The operands of one instruction (k = 32) for vector v.
void operands(const Unit& u, const Vector& v, std::vector<uint64_t>& a, std::vector<uint64_t>& b) {
  a.assign(32, 0);
  b.assign(32, 0);
  a[v.pos] = v.one ? u.one : u.big;
  b[v.pos] = (v.one ? u.one : u.big) | (v.neg_b ? 0x80u : 0u);
}

void expect(const Unit& u, const Vector& v, const char* engine, uint64_t got) {
  const std::string where = u.name + " " + engine + " " + v.what;
  CHECK_MESSAGE(got == v.want, where << ": c " << hex(v.c) << " expected " << hex(v.want) << " got " << hex(got));
}

}  // namespace

TEST_CASE("late c meets a special half-sum by IEEE addition: reference step") {
  std::vector<uint64_t> a, b;
  for (const Unit& u : units())
    for (const Vector& v : kVectors) {
      operands(u, v, a, b);
      expect(u, v, "ref::step", ref::step(*u.row, 32, a.data(), b.data(), v.c));
    }
}

TEST_CASE("late c meets a special half-sum by IEEE addition: fast step kernel") {
  std::vector<uint64_t> a, b;
  for (const Unit& u : units()) {
    const kernels::ScalarKernel kernel = kernels::plan(*u.row).step;
    REQUIRE_MESSAGE(kernel != kernels::ScalarKernel::none, u.name << ": no fast kernel");
    for (const Vector& v : kVectors) {
      operands(u, v, a, b);
      std::vector<int32_t> sa(32), ea(32), sb(32), eb(32);
      for (int l = 0; l < 32; ++l) {
        REQUIRE(kernels::pack_element(*u.row, a[l], sa[l], ea[l]));
        REQUIRE(kernels::pack_element(*u.row, b[l], sb[l], eb[l]));
      }
      expect(u, v, "fast kernel", kernels::scalar_step(kernel, *u.row, 32, sa.data(), ea.data(), sb.data(),
                                                      eb.data(), static_cast<uint32_t>(v.c)));
    }
  }
}

TEST_CASE("late c meets a special half-sum by IEEE addition: GEMM driver") {
  std::vector<uint64_t> a, b;
  for (const Unit& u : units())
    for (const Vector& v : kVectors)
      for (bool use_reference : {false, true}) {
        operands(u, v, a, b);
        // A 1 x 32 times 32 x 1 product, the chain starting from C (beta 1).
        std::vector<uint8_t> A(32), B(32);
        for (int l = 0; l < 32; ++l) driver::store(u.row->in, A.data(), l, a[l]);
        for (int l = 0; l < 32; ++l) driver::store(u.row->in, B.data(), l, b[l]);
        uint16_t C = static_cast<uint16_t>(v.c);
        driver::GemmSpec spec;
        spec.row = u.row;
        spec.accumulate_into_c = true;
        spec.use_reference = use_reference;
        spec.threads = 1;
        driver::gemm(spec, 1, 1, 32, 1.0, {u.row->in, A.data(), 32, false}, {u.row->in, B.data(), 1, false}, 1.0,
                     Fmt::fp16, &C, 1);
        expect(u, v, use_reference ? "GEMM (reference steps)" : "GEMM (fast)", C);
        // The same instruction followed by a zero one: the special goes on.
        std::vector<uint8_t> A2(64, 0), B2(64, 0);
        for (int l = 0; l < 32; ++l) driver::store(u.row->in, A2.data(), l, a[l]);
        for (int l = 0; l < 32; ++l) driver::store(u.row->in, B2.data(), l, b[l]);
        uint16_t C2 = static_cast<uint16_t>(v.c);
        driver::gemm(spec, 1, 1, 64, 1.0, {u.row->in, A2.data(), 64, false}, {u.row->in, B2.data(), 1, false}, 1.0,
                     Fmt::fp16, &C2, 1);
        expect(u, v, use_reference ? "GEMM k=64 (reference steps)" : "GEMM k=64 (fast)", C2);
      }
}
