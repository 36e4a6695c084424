// SPDX-License-Identifier: BSD-3-Clause
// The batched C API (docs/batch.md): mmaemu_tile_batch equals N calls of
// mmaemu_tile, mmaemu_dot_batch equals the tiles' elements, the
// block-scaled forms equal mmaemu_tile_block_scaled; bad arguments get a
// status and a message.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "api_test_util.h"

using api_test::Handle;

namespace {

// Random finite codes of f in its storage (bytes per element `w`).
std::vector<uint8_t> codes(mmaemu_format f, std::size_t n, std::mt19937_64& rng) {
  const int w = mmaemu_format_storage_bytes(f);
  std::vector<double> x(n);
  std::normal_distribution<double> g(0, 4);
  for (double& v : x) v = g(rng);
  std::vector<uint8_t> c(n * static_cast<std::size_t>(w));
  REQUIRE(mmaemu_convert(MMAEMU_FP64, f, x.data(), c.data(), n, MMAEMU_RNE, 1) == MMAEMU_OK);
  return c;
}

}  // namespace

TEST_CASE("mmaemu_tile_batch = N mmaemu_tile calls; mmaemu_dot_batch = their elements") {
  std::mt19937_64 rng(api_test::test_seed(11));
  const struct {
    const char* model;
    mmaemu_format in, out;
  } units[] = {{"H100", MMAEMU_FP16, MMAEMU_FP32}, {"H100", MMAEMU_FP16, MMAEMU_FP16}, {"B200", MMAEMU_E4M3, MMAEMU_FP32},
               {"B200@mma.sync", MMAEMU_E5M2, MMAEMU_FP16}, {"MI100", MMAEMU_BF16, MMAEMU_FP32},
               {"MI250", MMAEMU_FP16, MMAEMU_FP32}, {"MI300X", MMAEMU_E4M3FNUZ, MMAEMU_FP32},
               {"A100", MMAEMU_TF32, MMAEMU_FP32}, {"MI250", MMAEMU_FP64, MMAEMU_FP64}};
  for (const auto& u : units) {
    CAPTURE(u.model);
    CAPTURE(mmaemu_format_name(u.in));
    Handle h(u.model);
    int m, n, k;
    REQUIRE(mmaemu_tile_shape(h.m, u.in, u.out, &m, &n, &k) == MMAEMU_OK);
    const std::size_t count = 3, wi = mmaemu_format_storage_bytes(u.in), wo = mmaemu_format_storage_bytes(u.out);
    const std::vector<uint8_t> A = codes(u.in, count * m * k, rng), B = codes(u.in, count * k * n, rng),
                               C = codes(u.out, count * m * n, rng);
    std::vector<uint8_t> D(C.size()), one(m * n * wo);
    REQUIRE(mmaemu_tile_batch(h.m, u.in, u.out, count, A.data(), B.data(), C.data(), D.data(), 2) == MMAEMU_OK);
    for (std::size_t t = 0; t < count; ++t) {
      REQUIRE(mmaemu_tile(h.m, u.in, u.out, &A[t * m * k * wi], &B[t * k * n * wi], &C[t * m * n * wo], one.data()) ==
              MMAEMU_OK);
      CHECK(std::memcmp(one.data(), &D[t * m * n * wo], one.size()) == 0);
    }
    // The elements of tile 0 as dot products.
    std::vector<uint8_t> a(m * n * k * wi), b(m * n * k * wi), dd(m * n * wo);
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j)
        for (int l = 0; l < k; ++l) {
          std::memcpy(&a[((i * n + j) * k + l) * wi], &A[(i * k + l) * wi], wi);
          std::memcpy(&b[((i * n + j) * k + l) * wi], &B[(l * n + j) * wi], wi);
        }
    REQUIRE(mmaemu_dot_batch(h.m, u.in, u.out, m * n, k, a.data(), b.data(), C.data(), dd.data(), 1) == MMAEMU_OK);
    CHECK(std::memcmp(dd.data(), D.data(), dd.size()) == 0);
  }
}

TEST_CASE("mmaemu_tile_batch_block_scaled = N mmaemu_tile_block_scaled calls") {
  Handle h("B200");
  mmaemu_block_scale_desc desc;
  REQUIRE(mmaemu_parse_block_scaled_policy("nvfp4", &desc) == MMAEMU_OK);
  int m, n, k;
  REQUIRE(mmaemu_tile_block_scaled_shape(h.m, &desc, &m, &n, &k, nullptr) == MMAEMU_OK);
  std::mt19937_64 rng(api_test::test_seed(12));
  const std::size_t count = 2, kb = k / desc.block_size;
  std::vector<uint8_t> A(count * m * k), B(count * k * n), SA(count * m * kb), SB(count * kb * n);
  for (auto& x : A) x = rng() & 0xF;
  for (auto& x : B) x = rng() & 0xF;
  for (auto& x : SA) x = 0x30 + rng() % 16;
  for (auto& x : SB) x = 0x30 + rng() % 16;
  std::vector<float> C(count * m * n, 0.5f), D(C.size()), one(m * n);
  REQUIRE(mmaemu_tile_batch_block_scaled(h.m, &desc, MMAEMU_FP32, count, A.data(), SA.data(), B.data(), SB.data(),
                                         C.data(), D.data(), 0) == MMAEMU_OK);
  for (std::size_t t = 0; t < count; ++t) {
    REQUIRE(mmaemu_tile_block_scaled(h.m, &desc, MMAEMU_FP32, &A[t * m * k], &SA[t * m * kb], &B[t * k * n],
                                     &SB[t * kb * n], &C[t * m * n], one.data()) == MMAEMU_OK);
    CHECK(std::memcmp(one.data(), &D[t * m * n], one.size() * 4) == 0);
  }
}

TEST_CASE("batched calls: bad arguments") {
  Handle h("H100");
  uint16_t a[16] = {}, b[16] = {};
  float c[1] = {}, d[1] = {};
  CHECK(mmaemu_dot_batch(h.m, MMAEMU_FP16, MMAEMU_FP32, 1, 0, a, b, c, d, 0) == MMAEMU_ERR_ARGUMENT);
  CHECK(std::string(mmaemu_last_error()).find("k must be at least 1") != std::string::npos);
  CHECK(mmaemu_dot_batch(h.m, MMAEMU_FP16, MMAEMU_FP32, 1, 16, nullptr, b, c, d, 0) == MMAEMU_ERR_ARGUMENT);
  CHECK(mmaemu_dot_batch(h.m, MMAEMU_FP16, MMAEMU_FP32, 0, 16, nullptr, nullptr, nullptr, nullptr, 0) == MMAEMU_OK);
  CHECK(mmaemu_dot_batch(h.m, MMAEMU_E5M2FNUZ, MMAEMU_FP32, 1, 16, a, b, c, d, 0) == MMAEMU_ERR_UNSUPPORTED);
  CHECK(std::string(mmaemu_last_error()).find("it has:") != std::string::npos);
  CHECK(mmaemu_tile_batch(nullptr, MMAEMU_FP16, MMAEMU_FP32, 1, a, b, c, d, 0) == MMAEMU_ERR_ARGUMENT);
  mmaemu_block_scale_desc desc;
  mmaemu_block_scale_desc_init(&desc);
  uint8_t codes[32] = {0xFF}, scales[1] = {0x7F};
  Handle b200("B200");
  CHECK(mmaemu_dot_batch_block_scaled(b200.m, &desc, MMAEMU_FP32, 1, 32, codes, scales, codes, scales, c, d, 0) ==
        MMAEMU_OK);  // 0xFF: an e4m3 NaN code
  desc.a_format = desc.b_format = MMAEMU_E2M1;
  desc.block_size = 32;
  CHECK(mmaemu_dot_batch_block_scaled(b200.m, &desc, MMAEMU_FP32, 1, 32, codes, scales, codes, scales, c, d, 0) ==
        MMAEMU_ERR_ARGUMENT);  // 0xFF is no e2m1 code
  CHECK(std::string(mmaemu_last_error()).find("is not a e2m1 code") != std::string::npos);
  CHECK(mmaemu_dot_batch_block_scaled(b200.m, &desc, MMAEMU_FP32, 1, 20, codes, scales, codes, scales, c, d, 0) ==
        MMAEMU_ERR_ARGUMENT);
  CHECK(mmaemu_dot_batch_block_scaled(h.m, &desc, MMAEMU_FP32, 1, 32, codes, scales, codes, scales, c, d, 0) ==
        MMAEMU_ERR_UNSUPPORTED);
}
