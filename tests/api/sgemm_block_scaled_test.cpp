// SPDX-License-Identifier: BSD-3-Clause
// mmaemu_sgemm_block_scaled (the BLAS shim's block-scaled policies): every
// layout, transpose, leading dimension, alpha and beta gives the bits of the
// canonical row-major call; k is padded to whole blocks as zeros would be;
// refusals. (numpy under the preload against the quantise-then-GEMM parts:
// tests/shim/numpy_scaled_test.py.)
#include <doctest/doctest.h>

#include <bit>
#include <climits>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "api_test_util.h"
#include "mmaemu/mmaemu.h"

namespace {

using Model = api_test::Handle;

std::vector<float> random_matrix(std::mt19937& rng, size_t rows, size_t cols) {
  std::normal_distribution<float> normal;
  std::uniform_int_distribution<int> exponent(-6, 6);
  std::vector<float> x(rows * cols);
  for (float& v : x) v = std::ldexp(normal(rng), exponent(rng));
  return x;
}

// op(X) (rows x cols, canonical row-major) stored with layout/trans/ld (NaN-filled gaps).
std::vector<float> store(const std::vector<float>& x, size_t rows, size_t cols, bool row_major, bool trans,
                         size_t ld) {
  const size_t sr = trans ? cols : rows, sc = trans ? rows : cols;
  std::vector<float> s((row_major ? sr : sc) * ld, std::nanf(""));
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) {
      const size_t R = trans ? c : r, C = trans ? r : c;
      s[row_major ? R * ld + C : C * ld + R] = x[r * cols + c];
    }
  return s;
}

void require_same_bits(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
  REQUIRE(got.size() == want.size());
  for (size_t i = 0; i < got.size(); ++i)
    if (std::bit_cast<uint32_t>(got[i]) != std::bit_cast<uint32_t>(want[i])) {
      char msg[160];
      std::snprintf(msg, sizeof msg, "%s: element %zu got 0x%08x want 0x%08x", what.c_str(), i,
                    std::bit_cast<uint32_t>(got[i]), std::bit_cast<uint32_t>(want[i]));
      FAIL(msg);
    }
}

const char* const kPolicies[] = {"mxfp8", "mxfp8:e5m2", "mxfp6", "mxfp6:e3m2", "mxfp4", "nvfp4"};

}  // namespace

TEST_CASE("sgemm_block_scaled: layouts, transposes, ld, alpha, beta give the canonical bits") {
  Model b200("B200");
  std::mt19937 rng(12);
  const int m = 7, n = 5, k = 45;  // k: not a multiple of 16 or 32
  const auto A = random_matrix(rng, m, k), B = random_matrix(rng, k, n), C0 = random_matrix(rng, m, n);
  for (const char* policy : kPolicies) {
    std::vector<float> want = C0;
    REQUIRE(mmaemu_sgemm_block_scaled(b200.m, policy, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, m, n, k,
                                      1.5f, A.data(), k, B.data(), n, -0.5f, want.data(), n) == MMAEMU_OK);
    for (bool row : {true, false})
      for (bool at : {false, true})
        for (bool bt : {false, true}) {
          const size_t lda = (at == row ? m : k) + 3, ldb = (bt == row ? k : n) + 2, ldc = (row ? n : m) + 1;
          const auto As = store(A, m, k, row, at, lda), Bs = store(B, k, n, row, bt, ldb);
          auto Cs = store(C0, m, n, row, false, ldc);
          REQUIRE(mmaemu_sgemm_block_scaled(b200.m, policy, row ? MMAEMU_ROW_MAJOR : MMAEMU_COL_MAJOR,
                                            at ? MMAEMU_TRANS : MMAEMU_NO_TRANS, bt ? MMAEMU_TRANS : MMAEMU_NO_TRANS,
                                            m, n, k, 1.5f, As.data(), lda, Bs.data(), ldb, -0.5f, Cs.data(),
                                            ldc) == MMAEMU_OK);
          std::vector<float> got(m * n);
          for (int i = 0; i < m; ++i)
            for (int j = 0; j < n; ++j) got[i * n + j] = Cs[row ? i * ldc + j : j * ldc + i];
          require_same_bits(got, want, std::string(policy) + (row ? " row" : " col") + (at ? " At" : "") +
                                           (bt ? " Bt" : ""));
        }
  }
}

TEST_CASE("sgemm_block_scaled: k padded to whole blocks as zero columns would be") {
  Model b200("B200");
  std::mt19937 rng(13);
  const int m = 4, n = 3, k = 45, kz = 96;  // kz: whole blocks, the rest zeros
  const auto A = random_matrix(rng, m, k), B = random_matrix(rng, k, n);
  std::vector<float> Az(m * kz, 0.0f), Bz(kz * n, 0.0f);
  for (int i = 0; i < m; ++i)
    for (int l = 0; l < k; ++l) Az[i * kz + l] = A[i * k + l];
  for (int l = 0; l < k; ++l)
    for (int j = 0; j < n; ++j) Bz[l * n + j] = B[l * n + j];
  for (const char* policy : kPolicies) {
    std::vector<float> got(m * n), want(m * n);
    REQUIRE(mmaemu_sgemm_block_scaled(b200.m, policy, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, m, n, k,
                                      1.0f, A.data(), k, B.data(), n, 0.0f, got.data(), n) == MMAEMU_OK);
    REQUIRE(mmaemu_sgemm_block_scaled(b200.m, policy, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, m, n, kz,
                                      1.0f, Az.data(), kz, Bz.data(), n, 0.0f, want.data(), n) == MMAEMU_OK);
    require_same_bits(got, want, policy);
  }
}

TEST_CASE("sgemm_block_scaled: refusals") {
  Model h100("H100"), b200("B200");
  float a[64] = {}, b[64] = {}, c[4] = {};
  CHECK(mmaemu_sgemm_block_scaled(h100.m, "nvfp4", MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 2, 2, 16,
                                  1.0f, a, 16, b, 2, 0.0f, c, 2) == MMAEMU_ERR_UNSUPPORTED);
  CHECK(mmaemu_sgemm_block_scaled(b200.m, "fp16", MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 2, 2, 16,
                                  1.0f, a, 16, b, 2, 0.0f, c, 2) == MMAEMU_ERR_ARGUMENT);
  CHECK(std::string(mmaemu_last_error()).find("valid: mxfp8, mxfp8:e5m2, mxfp6, mxfp6:e3m2, mxfp4, nvfp4") !=
        std::string::npos);
  CHECK(mmaemu_sgemm_block_scaled(b200.m, "mxfp8", MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 2, 2, 16,
                                  1.0f, a, 15, b, 2, 0.0f, c, 2) == MMAEMU_ERR_ARGUMENT);
  CHECK(std::string(mmaemu_last_error()).find("A leading dimension 15 < 16") != std::string::npos);
}

// k past 2^31 - 1 - 31 pads to more than an int holds: refused before any
// allocation (the operands are never read), never wrapped to a negative k.
TEST_CASE("sgemm_block_scaled: k whose padding leaves the int range") {
  Model b200("B200");
  float a[1] = {}, b[1] = {}, c[1] = {};
  for (const char* policy : {"mxfp8", "nvfp4"}) {
    const int bs = std::string(policy) == "nvfp4" ? 16 : 32, k = INT_MAX - bs + 2;
    CAPTURE(policy);
    CHECK(mmaemu_sgemm_block_scaled(b200.m, policy, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 1, 1, k, 1.0f, a,
                                    k, b, 1, 0.0f, c, 1) == MMAEMU_ERR_ARGUMENT);
    CHECK(std::string(mmaemu_last_error()).find("beyond the C API's int range (2^31 - 1)") != std::string::npos);
  }
}
