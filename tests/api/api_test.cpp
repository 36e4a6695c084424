// SPDX-License-Identifier: BSD-3-Clause
// The C API against the reference engine: sgemm input policies, hgemm, the
// general GEMM's layouts and BLAS semantics, the tile call, errors.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "api_test_util.h"
#include "mmaemu/mmaemu.h"
#include "models/model.h"
#include "ref/reference.h"

using namespace mmaemu;
using api_test::Handle;
using api_test::test_seed;

namespace {

const uint64_t kSeed = test_seed(7);

// Floats with magnitudes over many binades, both signs, some zeros.
std::vector<float> random_floats(std::mt19937_64& rng, std::size_t n, int spread) {
  std::vector<float> v(n);
  for (float& x : v) {
    const int e = static_cast<int>(rng() % (2 * spread + 1)) - spread;
    x = std::ldexp(1.0f + static_cast<float>(rng() % (1u << 23)) / (1u << 23), e);
    if (rng() % 2) x = -x;
    if (rng() % 50 == 0) x = 0.0f;
  }
  return v;
}

// op(X)(i, l) of a row-major matrix with leading dimension ld.
float at(const std::vector<float>& X, bool trans, std::size_t ld, std::size_t i, std::size_t l) {
  return trans ? X[l * ld + i] : X[i * ld + l];
}

struct Policy {
  const char* name;
  Fmt in;
  Round r;
  Overflow ov;
};

}  // namespace

TEST_CASE("sgemm input policies equal the reference engine bit for bit") {
  const struct {
    const char* model;
    Policy policy;
  } cases[] = {
      {"H100", {"fp16", Fmt::fp16, Round::rne, Overflow::ieee}},
      {"H100", {"bf16", Fmt::bf16, Round::rne, Overflow::ieee}},
      {"H100", {"tf32", Fmt::tf32, Round::rz, Overflow::ieee}},
      {"H100", {"tf32:rna", Fmt::tf32, Round::rna, Overflow::ieee}},
      {"H100", {"e4m3", Fmt::e4m3, Round::rne, Overflow::saturate}},
      {"B200", {"e5m2", Fmt::e5m2, Round::rne, Overflow::saturate}},
      {"L40S", {"e4m3:rz", Fmt::e4m3, Round::rz, Overflow::saturate}},
      {"V100", {"fp16", Fmt::fp16, Round::rne, Overflow::ieee}},
      {"A100", {"tf32", Fmt::tf32, Round::rz, Overflow::ieee}},
      {"MI100", {"bf16", Fmt::bf16, Round::rne, Overflow::ieee}},
      {"MI250", {"fp16", Fmt::fp16, Round::rne, Overflow::ieee}},
      {"MI250", {"fp32", Fmt::fp32, Round::rne, Overflow::ieee}},
      {"MI300X", {"xf32", Fmt::tf32, Round::rz, Overflow::ieee}},
      {"MI300X", {"fp8", Fmt::e4m3fnuz, Round::rne, Overflow::saturate}},
      {"MI300X", {"bf8", Fmt::e5m2fnuz, Round::rne, Overflow::saturate}},
      {"MI300X", {"fp16", Fmt::fp16, Round::rne, Overflow::ieee}},
  };
  std::mt19937_64 rng(kSeed);
  std::size_t compared = 0;
  for (const auto& c : cases) {
    Handle h(c.model);
    const Model model = lookup_model(c.model);
    const ModelRow& row = *model.find(c.policy.in, Fmt::fp32);
    for (int t = 0; t < 6; ++t) {
      const std::size_t m = 1 + rng() % 9, n = 1 + rng() % 11, k = rng() % 80;
      const bool ta = rng() & 1, tb = rng() & 1;
      const std::size_t lda = ta ? m : k, ldb = tb ? k : n;
      const int spread = info(c.policy.in).exp_bits >= 8 ? 40 : 6;
      const auto A = random_floats(rng, std::max<std::size_t>(1, (ta ? k : m) * lda), spread);
      const auto B = random_floats(rng, std::max<std::size_t>(1, (tb ? n : k) * ldb), spread);
      std::vector<float> C(m * n, NAN);
      REQUIRE(mmaemu_sgemm(h.m, c.policy.name, MMAEMU_ROW_MAJOR, ta ? MMAEMU_TRANS : MMAEMU_NO_TRANS,
                           tb ? MMAEMU_TRANS : MMAEMU_NO_TRANS, int(m), int(n), int(k), 1.0f, A.data(),
                           int(std::max<std::size_t>(1, lda)), B.data(), int(std::max<std::size_t>(1, ldb)),
                           0.0f, C.data(), int(n)) == MMAEMU_OK);
      std::vector<uint64_t> a(k), b(k);
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t j = 0; j < n; ++j) {
          for (std::size_t l = 0; l < k; ++l) {
            a[l] = convert(Fmt::fp32, row.in, std::bit_cast<uint32_t>(at(A, ta, lda, i, l)), c.policy.r, c.policy.ov);
            b[l] = convert(Fmt::fp32, row.in, std::bit_cast<uint32_t>(tb ? B[j * ldb + l] : B[l * ldb + j]),
                           c.policy.r, c.policy.ov);
          }
          const uint64_t want = ref::dot(row, k, a.data(), b.data(), 0);
          const uint32_t got = std::bit_cast<uint32_t>(C[i * n + j]);
          INFO("seed " << kSeed << " " << c.model << " " << c.policy.name << " (" << i << "," << j << ") k=" << k);
          CHECK(hex(got) == hex(want));
          ++compared;
        }
    }
  }
  MESSAGE(compared << " elements compared");
}

TEST_CASE("column-major equals row-major on transposed storage") {
  Handle h("MI300X");
  std::mt19937_64 rng(kSeed + 1);
  const int m = 13, n = 7, k = 37;
  const auto A = random_floats(rng, m * k, 10), B = random_floats(rng, k * n, 10);
  std::vector<float> Cr(m * n), Cc(m * n);
  // The row-major arrays A (m x k) and B (k x n), read column-major, are
  // A^T and B^T: transposing both describes the same product, with C
  // stored column-major.
  REQUIRE(mmaemu_sgemm(h.m, "fp16", MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, m, n, k, 1, A.data(), k,
                       B.data(), n, 0, Cr.data(), n) == MMAEMU_OK);
  REQUIRE(mmaemu_sgemm(h.m, "fp16", MMAEMU_COL_MAJOR, MMAEMU_TRANS, MMAEMU_TRANS, m, n, k, 1, A.data(), k,
                       B.data(), n, 0, Cc.data(), m) == MMAEMU_OK);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j)
      CHECK(std::bit_cast<uint32_t>(Cr[i * n + j]) == std::bit_cast<uint32_t>(Cc[j * m + i]));
}

TEST_CASE("BLAS semantics: alpha, beta, quick returns, NaN in C") {
  Handle h("H100");
  const Model model = lookup_model("H100");
  const ModelRow& row = *model.find(Fmt::fp16, Fmt::fp32);
  std::mt19937_64 rng(kSeed + 2);
  const int m = 5, n = 6, k = 21;
  const auto A = random_floats(rng, m * k, 4), B = random_floats(rng, k * n, 4);
  const auto C0 = random_floats(rng, m * n, 4);
  auto acc = [&](int i, int j, uint64_t c0) {
    std::vector<uint64_t> a(k), b(k);
    for (int l = 0; l < k; ++l) {
      a[l] = convert(Fmt::fp32, Fmt::fp16, std::bit_cast<uint32_t>(A[i * k + l]), Round::rne);
      b[l] = convert(Fmt::fp32, Fmt::fp16, std::bit_cast<uint32_t>(B[l * n + j]), Round::rne);
    }
    return std::bit_cast<float>(static_cast<uint32_t>(ref::dot(row, k, a.data(), b.data(), c0)));
  };
  const float alpha = 0.75f, beta = -1.5f;
  SUBCASE("gpu-blas: D = fma(alpha, acc, beta*C)") {
    std::vector<float> C = C0;
    REQUIRE(mmaemu_sgemm(h.m, "fp16", MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, m, n, k, alpha, A.data(), k,
                         B.data(), n, beta, C.data(), n) == MMAEMU_OK);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        const float want = std::fma(alpha, acc(i, j, 0), beta * C0[i * n + j]);
        CHECK(std::bit_cast<uint32_t>(C[i * n + j]) == std::bit_cast<uint32_t>(want));
      }
  }
  SUBCASE("accumulate-into-C: the chain starts from beta*C") {
    mmaemu_gemm_options opt;
    mmaemu_gemm_options_init(&opt);
    opt.accumulate = MMAEMU_ACC_INTO_C;
    std::vector<float> C = C0;
    REQUIRE(mmaemu_gemm(h.m, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, m, n, k, 1.0, A.data(), k,
                        B.data(), n, 1.0, C.data(), n) == MMAEMU_OK);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j)
        CHECK(std::bit_cast<uint32_t>(C[i * n + j]) ==
              std::bit_cast<uint32_t>(acc(i, j, std::bit_cast<uint32_t>(C0[i * n + j]))));
  }
  SUBCASE("beta = 0 never reads C; alpha = 0 gives beta*C; k = 0 gives beta*C; m = 0 returns") {
    std::vector<float> C(m * n, NAN);
    REQUIRE(mmaemu_sgemm(h.m, "fp16", MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, m, n, k, 1, A.data(), k,
                         B.data(), n, 0, C.data(), n) == MMAEMU_OK);
    for (float x : C) CHECK(!std::isnan(x));
    std::fill(C.begin(), C.end(), NAN);
    REQUIRE(mmaemu_sgemm(h.m, "fp16", MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, m, n, k, 0, A.data(), k,
                         B.data(), n, 0, C.data(), n) == MMAEMU_OK);
    for (float x : C) CHECK(std::bit_cast<uint32_t>(x) == 0u);
    C = C0;
    REQUIRE(mmaemu_sgemm(h.m, "fp16", MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, m, n, 0, 2, A.data(), 1,
                         B.data(), n, beta, C.data(), n) == MMAEMU_OK);
    for (int i = 0; i < m * n; ++i) CHECK(C[i] == beta * C0[i]);
    C = C0;
    REQUIRE(mmaemu_sgemm(h.m, "fp16", MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 0, n, k, 1, nullptr, k,
                         nullptr, n, 0, C.data(), n) == MMAEMU_OK);
    CHECK(C == C0);
  }
}

TEST_CASE("hgemm with fp16 and fp32 accumulators") {
  Handle h("A100");
  const Model model = lookup_model("A100");
  std::mt19937_64 rng(kSeed + 3);
  const int m = 4, n = 9, k = 40;
  std::vector<uint16_t> A(m * k), B(k * n);
  for (auto& x : A) x = static_cast<uint16_t>(convert(Fmt::fp32, Fmt::fp16, std::bit_cast<uint32_t>(random_floats(rng, 1, 3)[0]), Round::rne));
  for (auto& x : B) x = static_cast<uint16_t>(convert(Fmt::fp32, Fmt::fp16, std::bit_cast<uint32_t>(random_floats(rng, 1, 3)[0]), Round::rne));
  for (mmaemu_format out : {MMAEMU_FP16, MMAEMU_FP32}) {
    const ModelRow& row = *model.find(Fmt::fp16, static_cast<Fmt>(out));
    std::vector<uint16_t> C(m * n, 0x7E00);
    REQUIRE(mmaemu_hgemm(h.m, out, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, m, n, k, 1.0f, A.data(), k,
                         B.data(), n, 0.0f, C.data(), n) == MMAEMU_OK);
    std::vector<uint64_t> a(k), b(k);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) {
        for (int l = 0; l < k; ++l) a[l] = A[i * k + l], b[l] = B[l * n + j];
        // fp32 accumulator: the fp16 storage gets its RNE rounding.
        const uint64_t want = convert(row.out, Fmt::fp16, ref::dot(row, k, a.data(), b.data(), 0), Round::rne);
        CHECK(hex(C[i * n + j]) == hex(want));
      }
  }
}

TEST_CASE("tile call equals ref::tile") {
  for (const char* name : {"V100", "H100", "B200", "MI100", "MI250", "MI300X"}) {
    Handle h(name);
    const Model model = lookup_model(name);
    const ModelRow& row = *model.find(Fmt::fp16, Fmt::fp32);
    int m, n, k;
    REQUIRE(mmaemu_tile_shape(h.m, MMAEMU_FP16, MMAEMU_FP32, &m, &n, &k) == MMAEMU_OK);
    std::mt19937_64 rng(kSeed + 4);
    std::vector<uint16_t> A(m * k), B(k * n);
    std::vector<uint32_t> C(m * n), D(m * n);
    std::vector<uint64_t> a(m * k), b(k * n), c(m * n), d(m * n);
    for (int i = 0; i < m * k; ++i) a[i] = A[i] = static_cast<uint16_t>(rng() & 0x7BFF);
    for (int i = 0; i < k * n; ++i) b[i] = B[i] = static_cast<uint16_t>(rng() | 0x8000) & 0xFBFF;
    for (int i = 0; i < m * n; ++i) c[i] = C[i] = static_cast<uint32_t>(rng() & 0x7F7FFFFF);
    REQUIRE(mmaemu_tile(h.m, MMAEMU_FP16, MMAEMU_FP32, A.data(), B.data(), C.data(), D.data()) == MMAEMU_OK);
    ref::tile(row, a.data(), b.data(), c.data(), d.data());
    for (int i = 0; i < m * n; ++i) CHECK(D[i] == d[i]);
  }
}

TEST_CASE("errors: unsupported formats are refused, MMA_MODEL is read") {
  Handle h("MI300X");
  std::vector<float> x(4, 1.0f);
  CHECK(mmaemu_sgemm(h.m, "e4m3", MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 2, 2, 2, 1, x.data(), 2,
                     x.data(), 2, 0, x.data(), 2) == MMAEMU_ERR_UNSUPPORTED);
  CHECK(std::string(mmaemu_last_error()).find("e4m3fnuz->fp32") != std::string::npos);
  Handle v("V100");
  CHECK(mmaemu_sgemm(v.m, "fp32", MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 2, 2, 2, 1, x.data(), 2,
                     x.data(), 2, 0, x.data(), 2) == MMAEMU_ERR_UNSUPPORTED);
  CHECK(mmaemu_sgemm(v.m, "fp16:rq", MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 2, 2, 2, 1, x.data(), 2,
                     x.data(), 2, 0, x.data(), 2) == MMAEMU_ERR_ARGUMENT);
  setenv("MMA_MODEL", "gfx90a", 1);
  mmaemu_model* m = nullptr;
  REQUIRE(mmaemu_model_from_env(&m) == MMAEMU_OK);
  CHECK(std::string(mmaemu_model_name(m)) == "MI250");
  mmaemu_model_free(m);
  setenv("MMA_MODEL", "MI251", 1);
  CHECK(mmaemu_model_from_env(&m) == MMAEMU_ERR_UNKNOWN_MODEL);
  unsetenv("MMA_MODEL");
}

TEST_CASE("errors: a malformed MMA_NUM_THREADS is an error status, never ignored") {
  Handle h("MI250");
  std::vector<float> x(4, 1.0f);
  for (const char* bad : {"abc", "-1", "0", "99999", "4x", "4097"}) {
    CAPTURE(bad);
    setenv("MMA_NUM_THREADS", bad, 1);
    CHECK(mmaemu_sgemm(h.m, "fp32", MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 2, 2, 2, 1, x.data(), 2,
                       x.data(), 2, 0, x.data(), 2) == MMAEMU_ERR_ARGUMENT);
    CHECK(std::string(mmaemu_last_error()) ==
          std::string("MMA_NUM_THREADS='") + bad + "': not a whole number from 1 to 4096");
  }
  for (const char* good : {"1", "3"}) {
    setenv("MMA_NUM_THREADS", good, 1);
    CHECK(mmaemu_sgemm(h.m, "fp32", MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 2, 2, 2, 1, x.data(), 2,
                       x.data(), 2, 0, x.data(), 2) == MMAEMU_OK);
  }
  unsetenv("MMA_NUM_THREADS");
}

TEST_CASE("sgemm input conversion at the format boundaries equals convert()") {
  // C = a * 1 on the unit: the product is exact, so C is the converted a.
  const float one = 1.0f;
  const float edges[] = {65504.0f, 65519.99f, 65520.0f, 70000.0f, 0x1p-24f, 0x1p-25f, 0x1.8p-25f, 0x1p-26f,
                         0x1.ffep-15f, 3.0e38f, 0x1.fffffep127f, 0x1.ff8p127f, 1.0000001f, -0x1.0000ap-130f,
                         0x1p-140f, -0.0f, 0x1.002p0f, 0x1.0008p0f, 0x1.0018p0f};
  const struct {
    const char* model;
    const char* policy;
    Fmt in;
    Round r;
  } cases[] = {{"H100", "fp16", Fmt::fp16, Round::rne}, {"H100", "bf16", Fmt::bf16, Round::rne},
               {"H100", "tf32", Fmt::tf32, Round::rz},  {"H100", "tf32:rna", Fmt::tf32, Round::rna},
               {"A100", "fp16:rna", Fmt::fp16, Round::rna}, {"A100", "tf32:rne", Fmt::tf32, Round::rne}};
  for (const auto& c : cases) {
    Handle h(c.model);
    const Model model = lookup_model(c.model);
    const ModelRow& row = *model.find(c.in, Fmt::fp32);
    for (float a : edges) {
      float C = NAN;
      REQUIRE(mmaemu_sgemm(h.m, c.policy, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 1, 1, 1, 1.0f, &a, 1,
                           &one, 1, 0.0f, &C, 1) == MMAEMU_OK);
      const uint64_t x = convert(Fmt::fp32, c.in, std::bit_cast<uint32_t>(a), c.r);
      const uint64_t y = convert(Fmt::fp32, c.in, std::bit_cast<uint32_t>(one), c.r);
      const uint64_t want = ref::dot(row, 1, &x, &y, 0);
      INFO(c.policy << " a = " << hex(std::bit_cast<uint32_t>(a)));
      CHECK(hex(std::bit_cast<uint32_t>(C)) == hex(want));
    }
  }
}

TEST_CASE("default sgemm policy: the fp32 unit, else tf32, else fp16 (every model has one)") {
  for (std::size_t i = 0; i < mmaemu_model_count(); ++i) {
    Handle h(mmaemu_model_list(i));
    const std::string p = mmaemu_default_policy(h.m);
    mmaemu_gemm_options opt;
    mmaemu_gemm_options_init(&opt);
    REQUIRE(mmaemu_parse_policy(p.c_str(), &opt) == MMAEMU_OK);
    int m, n, k;
    CHECK_MESSAGE(mmaemu_tile_shape(h.m, opt.input, MMAEMU_FP32, &m, &n, &k) == MMAEMU_OK,
                  mmaemu_model_list(i), " default policy ", p, " has no unit");
  }
  CHECK(std::string(mmaemu_default_policy(Handle("V100").m)) == "fp16");
  CHECK(std::string(mmaemu_default_policy(Handle("H100").m)) == "tf32");
  CHECK(std::string(mmaemu_default_policy(Handle("MI250").m)) == "fp32");
}
