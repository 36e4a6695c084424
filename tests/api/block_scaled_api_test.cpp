// SPDX-License-Identifier: BSD-3-Clause
// The block-scaled C API against the reference engine it wraps: layouts,
// transposes, leading dimensions and packed fp4 give the bits of the
// canonical call; the GEMM vectors of docs/block-scaled.md §5; tiles of
// every unit; quantisation round trips; refusals.
#include <doctest/doctest.h>

#include <bit>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "formats/fp4_packing.h"
#include "api_test_util.h"
#include "mmaemu/mmaemu.h"
#include "models/scaled_units.h"
#include "common/scaled_gemm.h"
#include "ref/block_scaled.h"

namespace {

using Model = api_test::Handle;

// Random codes of a format (any code, NaN included) and scales.
std::vector<uint8_t> random_codes(std::mt19937_64& rng, size_t n, int width) {
  std::vector<uint8_t> v(n);
  for (uint8_t& x : v) x = static_cast<uint8_t>(rng() & ((1u << width) - 1));
  return v;
}
std::vector<uint8_t> random_scales(std::mt19937_64& rng, size_t n, bool ue8m0) {
  std::vector<uint8_t> v(n);
  for (uint8_t& x : v) x = ue8m0 ? static_cast<uint8_t>(0x70 + rng() % 24) : static_cast<uint8_t>(0x20 + rng() % 0x40);
  return v;
}

// Stores op(X) (rows x cols, canonical row-major in `x`) with layout/trans/ld.
std::vector<uint8_t> store(const std::vector<uint8_t>& x, size_t rows, size_t cols, bool row_major, bool trans,
                           size_t ld) {
  const size_t sr = trans ? cols : rows, sc = trans ? rows : cols;
  std::vector<uint8_t> s((row_major ? sr : sc) * ld + 1, 0);
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) {
      const size_t R = trans ? c : r, Cc = trans ? r : c;
      s[row_major ? R * ld + Cc : Cc * ld + R] = x[r * cols + c];
    }
  return s;
}

// NVFP4: e2m1 x e2m1 with UE4M3 scales per 16.
mmaemu_block_scale_desc nvfp4_desc() {
  mmaemu_block_scale_desc d;
  mmaemu_block_scale_desc_init(&d);
  d.a_format = d.b_format = MMAEMU_E2M1;
  d.scale_format = MMAEMU_UE4M3;
  d.block_size = 16;
  return d;
}

}  // namespace

TEST_CASE("block-scaled GEMM: every layout, transpose and ld gives the canonical bits") {
  Model b200("B200");
  std::mt19937_64 rng(2026);
  struct Case {
    mmaemu_format fa, fb, sf;
    int block, width_a, width_b;
    mmaemu_scaled_unit unit;
  };
  const Case cases[] = {{MMAEMU_E4M3, MMAEMU_E2M1, MMAEMU_UE8M0, 32, 8, 4, MMAEMU_UNIT_AUTO},
                        {MMAEMU_E2M1, MMAEMU_E2M1, MMAEMU_UE4M3, 16, 4, 4, MMAEMU_UNIT_AUTO},
                        {MMAEMU_E2M1, MMAEMU_E2M1, MMAEMU_UE8M0, 32, 4, 4, MMAEMU_UNIT_ST},
                        {MMAEMU_E2M1, MMAEMU_E2M1, MMAEMU_UE8M0, 32, 4, 4, MMAEMU_UNIT_GST},
                        {MMAEMU_E3M2, MMAEMU_E5M2, MMAEMU_UE8M0, 0, 6, 8, MMAEMU_UNIT_T}};
  const size_t M = 3, N = 5, K = 96;
  for (const Case& c : cases) {
    mmaemu_block_scale_desc d;
    mmaemu_block_scale_desc_init(&d);
    d.a_format = c.fa;
    d.b_format = c.fb;
    d.scale_format = c.sf;
    d.block_size = c.block;
    d.unit = c.unit;
    d.accumulate = MMAEMU_ACC_GPU_BLAS;
    const size_t KB = c.block ? K / c.block : 0;
    const std::vector<uint8_t> A = random_codes(rng, M * K, c.width_a), B = random_codes(rng, K * N, c.width_b);
    const std::vector<uint8_t> SA = random_scales(rng, M * KB, c.sf == MMAEMU_UE8M0),
                               SB = random_scales(rng, KB * N, c.sf == MMAEMU_UE8M0);
    std::vector<float> C0(M * N);
    for (float& x : C0) x = static_cast<float>(static_cast<int>(rng() % 200) - 100) / 8;
    // Canonical result: the reference with A by rows, B by columns.
    const mmaemu::ScaledUnit& u = mmaemu::select_scaled_unit(
        "B200", static_cast<mmaemu::Fmt>(c.fa), static_cast<mmaemu::Fmt>(c.fb), c.block != 0,
        static_cast<mmaemu::Fmt>(c.sf), c.block,
        c.unit == MMAEMU_UNIT_AUTO ? mmaemu::UnitChoice::automatic
        : c.unit == MMAEMU_UNIT_ST ? mmaemu::UnitChoice::st
        : c.unit == MMAEMU_UNIT_GST ? mmaemu::UnitChoice::gst : mmaemu::UnitChoice::t);
    std::vector<uint8_t> Bt(N * K), SBt(N * KB);
    for (size_t l = 0; l < K; ++l)
      for (size_t j = 0; j < N; ++j) Bt[j * K + l] = B[l * N + j];
    for (size_t t = 0; t < KB; ++t)
      for (size_t j = 0; j < N; ++j) SBt[j * KB + t] = SB[t * N + j];
    std::vector<float> want(M * N);
    mmaemu::test::scaled_gemm({&u, static_cast<mmaemu::Fmt>(c.fa), static_cast<mmaemu::Fmt>(c.fb), M, N, K, A.data(),
                              SA.data(), Bt.data(), SBt.data(), 0.75f, -1.5f, 1.0f, 1.0f,
                              mmaemu::test::ScaledAccumulate::gpu_blas, C0.data(), want.data()});
    for (bool row : {true, false})
      for (bool at : {false, true})
        for (bool bt : {false, true}) {
          const size_t pad = 3;
          const size_t lda = (row != at ? K : M) + pad, ldb = (row != bt ? N : K) + pad;
          const size_t ldsa = (row != at ? KB : M) + pad, ldsb = (row != bt ? N : KB) + pad, ldc = (row ? N : M) + pad;
          const std::vector<uint8_t> As = store(A, M, K, row, at, lda), Bs = store(B, K, N, row, bt, ldb);
          const std::vector<uint8_t> SAs = store(SA, M, KB, row, at, ldsa), SBs = store(SB, KB, N, row, bt, ldsb);
          std::vector<float> Cs((row ? M : N) * ldc, 0.0f);
          for (size_t i = 0; i < M; ++i)
            for (size_t j = 0; j < N; ++j) Cs[row ? i * ldc + j : j * ldc + i] = C0[i * N + j];
          const int rc = mmaemu_gemm_block_scaled(
              b200.m, &d, row ? MMAEMU_ROW_MAJOR : MMAEMU_COL_MAJOR, at ? MMAEMU_TRANS : MMAEMU_NO_TRANS,
              bt ? MMAEMU_TRANS : MMAEMU_NO_TRANS, M, N, K, 0.75f, As.data(), lda, SAs.data(), ldsa, Bs.data(), ldb,
              SBs.data(), ldsb, -1.5f, Cs.data(), ldc);
          REQUIRE_MESSAGE(rc == MMAEMU_OK, mmaemu_last_error());
          for (size_t i = 0; i < M; ++i)
            for (size_t j = 0; j < N; ++j) {
              const uint32_t got = std::bit_cast<uint32_t>(Cs[row ? i * ldc + j : j * ldc + i]);
              CHECK_MESSAGE(got == std::bit_cast<uint32_t>(want[i * N + j]),
                            u.instruction << " row=" << row << " ta=" << at << " tb=" << bt << " (" << i << "," << j << ")");
            }
        }
  }
}

TEST_CASE("block-scaled GEMM: packed fp4 along k equals unpacked; G20 nibble order") {
  Model b200("B200");
  std::mt19937_64 rng(7);
  const size_t M = 2, N = 3, K = 64;
  mmaemu_block_scale_desc d = nvfp4_desc();
  const std::vector<uint8_t> A = random_codes(rng, M * K, 4), Bt = random_codes(rng, N * K, 4);  // B^T: n x k
  const std::vector<uint8_t> SA = random_scales(rng, M * 4, false), SBt = random_scales(rng, N * 4, false);
  std::vector<float> plain(M * N), packed(M * N);
  REQUIRE(mmaemu_gemm_block_scaled(b200.m, &d, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_TRANS, M, N, K, 1.0f,
                                   A.data(), K, SA.data(), 4, Bt.data(), K, SBt.data(), 4, 0.0f, plain.data(),
                                   N) == MMAEMU_OK);
  std::vector<uint8_t> Ap(M * K / 2), Bp(N * K / 2);
  for (size_t i = 0; i < M; ++i) mmaemu::pack_fp4(&A[i * K], K, &Ap[i * K / 2]);
  for (size_t j = 0; j < N; ++j) mmaemu::pack_fp4(&Bt[j * K], K, &Bp[j * K / 2]);
  d.fp4_packed = 1;
  REQUIRE(mmaemu_gemm_block_scaled(b200.m, &d, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_TRANS, M, N, K, 1.0f,
                                   Ap.data(), K / 2, SA.data(), 4, Bp.data(), K / 2, SBt.data(), 4, 0.0f,
                                   packed.data(), N) == MMAEMU_OK);
  CHECK(std::memcmp(plain.data(), packed.data(), sizeof(float) * M * N) == 0);
  // G20: byte 0x71 = (0.5, 6) against 0x17 = (6, 0.5) -> 6.
  d.scale_format = MMAEMU_UE8M0;
  d.block_size = 32;
  std::vector<uint8_t> a(32, 0), b(32, 0);
  a[0] = 0x71;
  b[0] = 0x17;
  const uint8_t s[2] = {0x7F, 0x7F};
  float out = 0;
  REQUIRE(mmaemu_gemm_block_scaled(b200.m, &d, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 1, 1, 64, 1.0f,
                                   a.data(), 32, s, 2, b.data(), 1, s, 1, 0.0f, &out, 1) == MMAEMU_OK);
  CHECK(std::bit_cast<uint32_t>(out) == 0x40C00000u);
}

TEST_CASE("block-scaled GEMM: GM4 (NVFP4 with per-tensor scales) and refusals") {
  Model b200("B200");
  mmaemu_block_scale_desc d = nvfp4_desc();
  d.a_global_scale = 0.125f;
  d.b_global_scale = 3.0f;
  std::vector<uint8_t> a(128, 0), b(128, 0), s(8, 0x38);
  a[0] = a[64] = b[0] = b[64] = 0x07;
  float c = 0;
  REQUIRE(mmaemu_gemm_block_scaled(b200.m, &d, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 1, 1, 128, 1.0f,
                                   a.data(), 128, s.data(), 8, b.data(), 1, s.data(), 1, 0.0f, &c, 1) == MMAEMU_OK);
  CHECK(std::bit_cast<uint32_t>(c) == 0x41D80000u);  // 72 * 0.375 = 27
  // k not a multiple of the block; a code with high bits set; no such unit.
  CHECK(mmaemu_gemm_block_scaled(b200.m, &d, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 1, 1, 24, 1.0f,
                                 a.data(), 128, s.data(), 8, b.data(), 1, s.data(), 1, 0.0f, &c, 1) == MMAEMU_ERR_ARGUMENT);
  a[3] = 0x17;
  CHECK(mmaemu_gemm_block_scaled(b200.m, &d, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 1, 1, 128, 1.0f,
                                 a.data(), 128, s.data(), 8, b.data(), 1, s.data(), 1, 0.0f, &c, 1) == MMAEMU_ERR_ARGUMENT);
  CHECK(std::string(mmaemu_last_error()).find("A(0, 3)") != std::string::npos);
  d.a_format = MMAEMU_E4M3;  // e4m3 with ue4m3 per 16: no unit
  CHECK(mmaemu_gemm_block_scaled(b200.m, &d, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 1, 1, 128, 1.0f,
                                 a.data(), 128, s.data(), 8, b.data(), 1, s.data(), 1, 0.0f, &c, 1) == MMAEMU_ERR_UNSUPPORTED);
  Model h100("H100");
  mmaemu_block_scale_desc_init(&d);
  CHECK(mmaemu_gemm_block_scaled(h100.m, &d, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 1, 1, 32, 1.0f,
                                 a.data(), 128, s.data(), 8, b.data(), 1, s.data(), 1, 0.0f, &c, 1) == MMAEMU_ERR_UNSUPPORTED);
  CHECK(std::string(mmaemu_last_error()).find("B200") != std::string::npos);  // names the models that have it
  d.a_format = MMAEMU_FP16;
  CHECK(mmaemu_gemm_block_scaled(b200.m, &d, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 1, 1, 32, 1.0f,
                                 a.data(), 128, s.data(), 8, b.data(), 1, s.data(), 1, 0.0f, &c, 1) == MMAEMU_ERR_ARGUMENT);
}

TEST_CASE("block-scaled tile: every unit of B200 and RTXPRO6000 against the reference") {
  std::mt19937_64 rng(99);
  for (const char* gpu : {"B200", "RTXPRO6000"}) {
    Model model(gpu);
    for (const mmaemu::ScaledUnit& u : mmaemu::scaled_units_of(gpu)) {
      mmaemu_block_scale_desc d;
      mmaemu_block_scale_desc_init(&d);
      const bool fp4 = u.elements == mmaemu::kFp4Only;
      d.a_format = fp4 ? MMAEMU_E2M1 : MMAEMU_E4M3;
      d.b_format = fp4 ? MMAEMU_E2M1 : MMAEMU_E2M3;
      d.block_size = u.block;
      d.scale_format = u.block ? static_cast<mmaemu_format>(u.scale) : MMAEMU_UE8M0;
      d.unit = u.algo == mmaemu::ScaledAlgo::t_fdpa ? MMAEMU_UNIT_T
               : u.algo == mmaemu::ScaledAlgo::st_fdpa ? MMAEMU_UNIT_ST : MMAEMU_UNIT_GST;
      int m = 0, n = 0, k = 0;
      const char* name = nullptr;
      REQUIRE_MESSAGE(mmaemu_tile_block_scaled_shape(model.m, &d, &m, &n, &k, &name) == MMAEMU_OK, mmaemu_last_error());
      // kind::mxf4nvf4 block32 ue8m0 is the same computation as kind::mxf4: auto-selection names the latter.
      const bool synonym = std::string(u.instruction).find("mxf4nvf4.block32.ue8m0") != std::string::npos &&
                           std::string(name).find("kind::mxf4.block32.ue8m0") != std::string::npos;
      CHECK((std::string(name) == u.instruction || synonym));
      const size_t KB = u.block ? k / u.block : 0;
      const std::vector<uint8_t> A = random_codes(rng, m * k, fp4 ? 4 : 8), B = random_codes(rng, k * n, fp4 ? 4 : 6);
      const std::vector<uint8_t> SA = random_scales(rng, m * KB, u.scale == mmaemu::Fmt::ue8m0),
                                 SB = random_scales(rng, KB * n, u.scale == mmaemu::Fmt::ue8m0);
      std::vector<float> C(m * n, 1.0f), D(m * n);
      REQUIRE_MESSAGE(mmaemu_tile_block_scaled(model.m, &d, MMAEMU_FP32, A.data(), SA.data(), B.data(), SB.data(),
                                               C.data(), D.data()) == MMAEMU_OK, mmaemu_last_error());
      for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
          std::vector<uint8_t> b(k), sb(KB);
          for (int l = 0; l < k; ++l) b[l] = B[l * n + j];
          for (size_t t = 0; t < KB; ++t) sb[t] = SB[t * n + j];
          const uint64_t want = mmaemu::ref::scaled_instruction(
              u, mmaemu::Fmt::fp32, {static_cast<mmaemu::Fmt>(d.a_format), static_cast<mmaemu::Fmt>(d.b_format),
                                     &A[i * k], b.data(), u.block ? &SA[i * KB] : nullptr, u.block ? sb.data() : nullptr,
                                     0x3F800000u});
          CHECK(std::bit_cast<uint32_t>(D[i * n + j]) == want);
        }
      if (u.algo != mmaemu::ScaledAlgo::t_fdpa) {  // fp16 output only on the unscaled unit
        std::vector<uint16_t> h(m * n);
        CHECK(mmaemu_tile_block_scaled(model.m, &d, MMAEMU_FP16, A.data(), SA.data(), B.data(), SB.data(), h.data(),
                                       h.data()) == MMAEMU_ERR_UNSUPPORTED);
      }
    }
  }
}

TEST_CASE("quantise, GEMM and dequantise through the C API") {
  std::mt19937_64 rng(5);
  std::normal_distribution<float> nd(0.0f, 2.0f);
  std::vector<float> x(64);
  for (float& v : x) v = nd(rng);
  std::vector<uint8_t> codes(64), scales(4);
  float enc = 0, dec = 0;
  REQUIRE(mmaemu_nvfp4_global_scale(64, x.data(), &enc, &dec) == MMAEMU_OK);
  REQUIRE(mmaemu_quantize_nvfp4(64, x.data(), enc, codes.data(), scales.data()) == MMAEMU_OK);
  std::vector<float> back(64);
  REQUIRE(mmaemu_dequantize(MMAEMU_E2M1, MMAEMU_UE4M3, 16, 64, codes.data(), scales.data(), dec, back.data()) == MMAEMU_OK);
  // The GEMM of the quantised row with a one-hot column picks the dequantised value
  // (exactly, up to the fp32 rounding of element*scale*g done once in both).
  Model b200("B200");
  mmaemu_block_scale_desc d = nvfp4_desc();
  d.a_global_scale = dec;
  for (int l : {0, 17, 63}) {
    std::vector<uint8_t> b(64, 0), sb(4, 0x38);
    b[l] = 0x02;  // 1.0
    float out = 0;
    REQUIRE(mmaemu_gemm_block_scaled(b200.m, &d, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 1, 1, 64, 1.0f,
                                     codes.data(), 64, scales.data(), 4, b.data(), 1, sb.data(), 1, 0.0f, &out, 1) == MMAEMU_OK);
    CHECK(out == back[l]);
  }
  CHECK(mmaemu_quantize_mx(MMAEMU_FP16, 32, 64, x.data(), codes.data(), scales.data()) == MMAEMU_ERR_ARGUMENT);
  REQUIRE(mmaemu_quantize_mx(MMAEMU_E4M3, 32, 64, x.data(), codes.data(), scales.data()) == MMAEMU_OK);
  REQUIRE(mmaemu_dequantize(MMAEMU_E4M3, MMAEMU_UE8M0, 32, 64, codes.data(), scales.data(), 1.0f, back.data()) == MMAEMU_OK);
  for (int i = 0; i < 64; ++i) CHECK(std::fabs(back[i] - x[i]) <= std::fabs(x[i]) / 16 + 1e-30f);
}

namespace {

// One call of mmaemu_gemm_block_scaled: MXFP8 on B200, 2 x 3 x 64, row
// major, every operand valid until a case changes it.
struct GemmCall {
  const mmaemu_model* model;
  mmaemu_block_scale_desc d;
  mmaemu_layout layout = MMAEMU_ROW_MAJOR;
  mmaemu_transpose ta = MMAEMU_NO_TRANS, tb = MMAEMU_NO_TRANS;
  int m = 2, n = 3, k = 64, lda = 64, ldsa = 2, ldb = 3, ldsb = 3, ldc = 3;
  std::vector<uint8_t> a = std::vector<uint8_t>(128, 0x38), sa = std::vector<uint8_t>(4, 127),
                       b = std::vector<uint8_t>(192, 0x38), sb = std::vector<uint8_t>(6, 127);
  std::vector<float> c = std::vector<float>(6, 0.0f);
  const uint8_t *A = a.data(), *SA = sa.data(), *B = b.data(), *SB = sb.data();
  float* C = c.data();

  explicit GemmCall(const mmaemu_model* mdl) : model(mdl) { mmaemu_block_scale_desc_init(&d); }
  int run() const {
    return mmaemu_gemm_block_scaled(model, &d, layout, ta, tb, m, n, k, 1.0f, A, lda, SA, ldsa, B, ldb, SB, ldsb, 0.0f,
                                    C, ldc);
  }
};

struct Refusal {
  const char* what;
  std::function<void(GemmCall&)> change;
  int status;
  const char* message;  // mmaemu_last_error(), whole
};

}  // namespace

TEST_CASE("block-scaled GEMM: every refusal's status and whole message") {
  // One fault per call, each argument check of mmaemu_gemm_block_scaled
  // and of the driver behind it, with the message the caller reads. An enum
  // out of its range is read as an integer (mmaemu.h gives C++ the enums
  // the underlying type int); tests/api/enum_range_test.c passes them from C.
  Model b200("B200"), h100("H100");
  const Refusal cases[] = {
      {"null model", [](GemmCall& g) { g.model = nullptr; }, MMAEMU_ERR_ARGUMENT,
       "null model or descriptor"},
      {"element format", [](GemmCall& g) { g.d.a_format = MMAEMU_FP16; }, MMAEMU_ERR_ARGUMENT,
       "a_format = 4 is not valid (valid: MMAEMU_E4M3, MMAEMU_E5M2, MMAEMU_E3M2, MMAEMU_E2M3, MMAEMU_E2M1)"},
      {"block size", [](GemmCall& g) { g.d.block_size = 8; }, MMAEMU_ERR_ARGUMENT,
       "block_size must be 0, 16 or 32"},
      {"scale format", [](GemmCall& g) { g.d.scale_format = MMAEMU_E4M3; }, MMAEMU_ERR_ARGUMENT,
       "scale_format = 5 is not valid (valid: MMAEMU_UE8M0, MMAEMU_UE4M3)"},
      {"unit", [](GemmCall& g) { g.d.unit = static_cast<mmaemu_scaled_unit>(7); }, MMAEMU_ERR_ARGUMENT,
       "unit = 7 is not valid (valid: MMAEMU_UNIT_AUTO, MMAEMU_UNIT_T, MMAEMU_UNIT_ST, MMAEMU_UNIT_GST)"},
      {"fp4_packed", [](GemmCall& g) { g.d.fp4_packed = 1; }, MMAEMU_ERR_ARGUMENT,
       "fp4_packed needs E2M1 operands"},
      {"accumulate", [](GemmCall& g) { g.d.accumulate = static_cast<mmaemu_accumulate>(3); }, MMAEMU_ERR_ARGUMENT,
       "accumulate = 3 is not valid (valid: MMAEMU_ACC_GPU_BLAS, MMAEMU_ACC_INTO_C, MMAEMU_ACC_BLAS_INTO_C)"},
      {"no unit on the model", [&](GemmCall& g) { g.model = h100.m; }, MMAEMU_ERR_UNSUPPORTED,
       "model H100 has no block-scaled or fp4/fp6 unit (models that have: B200, B200-RN, RTXPRO6000)"},
      {"no unit for the formats", [](GemmCall& g) { g.d.scale_format = MMAEMU_UE4M3; }, MMAEMU_ERR_UNSUPPORTED,
       "model B200 has no ST-FDPA unit for e4m3 x e4m3 with ue4m3 scales per 32 (its units: "
       "tcgen05.mma.kind::f8f6f4, tcgen05.mma.kind::mxf8f6f4.block32.ue8m0, tcgen05.mma.kind::mxf4.block32.ue8m0, "
       "tcgen05.mma.kind::mxf4nvf4.block32.ue8m0, tcgen05.mma.kind::mxf4nvf4.block16.ue8m0, "
       "tcgen05.mma.kind::mxf4nvf4.block16.ue4m3)"},
      {"layout", [](GemmCall& g) { g.layout = static_cast<mmaemu_layout>(3); }, MMAEMU_ERR_ARGUMENT,
       "layout = 3 is not valid (valid: MMAEMU_ROW_MAJOR, MMAEMU_COL_MAJOR)"},
      {"transpose", [](GemmCall& g) { g.tb = static_cast<mmaemu_transpose>(5); }, MMAEMU_ERR_ARGUMENT,
       "tb = 5 is not valid (valid: MMAEMU_NO_TRANS, MMAEMU_TRANS, MMAEMU_CONJ_TRANS)"},
      {"negative k", [](GemmCall& g) { g.k = -1; }, MMAEMU_ERR_ARGUMENT,
       "negative m, n or k"},
      {"k not a multiple of the block", [](GemmCall& g) { g.k = 48; }, MMAEMU_ERR_ARGUMENT,
       "k = 48 is not a multiple of block_size 32"},
      {"k below the block", [](GemmCall& g) { g.k = 16; }, MMAEMU_ERR_ARGUMENT,
       "k = 16 is not a multiple of block_size 32"},
      {"lda", [](GemmCall& g) { g.lda = 63; }, MMAEMU_ERR_ARGUMENT,
       "A leading dimension 63 < 64"},
      {"ldb", [](GemmCall& g) { g.ldb = 2; }, MMAEMU_ERR_ARGUMENT,
       "B leading dimension 2 < 3"},
      {"ldc", [](GemmCall& g) { g.ldc = 2; }, MMAEMU_ERR_ARGUMENT,
       "C leading dimension 2 < 3"},
      {"null A", [](GemmCall& g) { g.A = nullptr; }, MMAEMU_ERR_ARGUMENT,
       "null A or B"},
      {"null C", [](GemmCall& g) { g.C = nullptr; }, MMAEMU_ERR_ARGUMENT,
       "null C"},
      {"null SB", [](GemmCall& g) { g.SB = nullptr; }, MMAEMU_ERR_ARGUMENT,
       "null SA or SB"},
      {"ldsa", [](GemmCall& g) { g.ldsa = 1; }, MMAEMU_ERR_ARGUMENT,
       "SA leading dimension 1 < 2"},
      {"ldsb", [](GemmCall& g) { g.ldsb = 2; }, MMAEMU_ERR_ARGUMENT,
       "SB leading dimension 2 < 3"},
      {"a code of another format", [](GemmCall& g) { g.d.b_format = MMAEMU_E2M3, g.b[70] = 0x40; }, MMAEMU_ERR_ARGUMENT,
       "B(23, 1) = 64 is not a e2m3 code"},
  };
  GemmCall ok(b200.m);
  REQUIRE_MESSAGE(ok.run() == MMAEMU_OK, mmaemu_last_error());
  CHECK(ok.c[0] == 64.0f);
  for (const Refusal& r : cases) {
    GemmCall g(b200.m);
    r.change(g);
    const int status = g.run();
    const std::string got = mmaemu_last_error();
    CHECK_MESSAGE(status == r.status, r.what << ": status " << status << ", " << got);
    CHECK_MESSAGE(got == r.message, r.what << ":\n  got  '" << got << "'\n  want '" << r.message << "'");
    CHECK_MESSAGE(g.c == std::vector<float>(6, 0.0f), r.what << ": C was written");
  }
}
