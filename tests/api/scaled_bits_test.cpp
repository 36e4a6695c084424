// SPDX-License-Identifier: BSD-3-Clause
// The block-scaled GEMM's bits pinned over a grid: mmaemu_gemm_block_scaled
// (every element format pairing the units take, fp4 packed and not, the
// unscaled unit) and mmaemu_sgemm_block_scaled_acc (every policy) on the
// B200 and RTXPRO6000 units, both layouts, all transposes, leading
// dimensions with gaps, beta 0, 1 and other, alpha 1 and not, the three
// accumulate modes, shapes off the tiles, k padded and spanning several
// chunks of steps, NaN/Inf elements and NaN scales, 1 and 2 threads. Each
// case's output bits hash (FNV-1a 64) to the value in
// scaled_bits_expected.inc, recorded from the engine as it was before its
// memory was bounded: any change of layout, blocking or threads must keep
// every bit. MMAEMU_PRINT_HASHES=1 prints the table instead of checking it.
#include <doctest/doctest.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "api_test_util.h"
#include "mmaemu/mmaemu.h"

namespace {

constexpr uint64_t kExpected[] = {
#include "scaled_bits_expected.inc"
};
constexpr size_t kExpectedCount = sizeof kExpected / sizeof kExpected[0];

uint64_t fnv1a(const std::vector<float>& x) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (float v : x) {
    uint32_t b = std::bit_cast<uint32_t>(v);
    for (int i = 0; i < 4; ++i, b >>= 8) h = (h ^ (b & 0xFF)) * 0x100000001b3ull;
  }
  return h;
}

// Checks (or prints) case after case in a fixed order.
struct Table {
  size_t next = 0;
  int failures = 0;
  bool print = std::getenv("MMAEMU_PRINT_HASHES") != nullptr;

  void check(const std::string& what, const std::vector<float>& out) {
    const uint64_t h = fnv1a(out);
    const size_t i = next++;
    if (print) {
      std::printf("0x%016llxull,  // %zu %s\n", static_cast<unsigned long long>(h), i, what.c_str());
      return;
    }
    const uint64_t want = i < kExpectedCount ? kExpected[i] : 0;
    if (h != want) {
      ++failures;
      if (failures <= 20)
        MESSAGE("case " << i << " (" << what << "): got " << hex(h) << " want " << hex(want));
    }
  }
};

// Random bits, the same on every platform (no std distributions).
struct Rng {
  std::mt19937_64 g;
  explicit Rng(uint64_t seed) : g(seed) {}
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(g() % n); }
  // A value of about 2^[-6, 6], sometimes 0, NaN (rate 1/nan_rate) or Inf.
  float value(uint32_t nan_rate) {
    const uint32_t pick = below(nan_rate ? nan_rate : 1000000);
    if (nan_rate && pick == 0) return std::bit_cast<float>(0x7FC00000u | below(2) << 31);
    if (nan_rate && pick == 1) return std::bit_cast<float>(0x7F800000u | below(2) << 31);
    if (below(16) == 0) return 0.0f;
    const uint32_t bits = below(2) << 31 | (127 - 6 + below(13)) << 23 | below(1u << 23);
    return std::bit_cast<float>(bits);
  }
};

// op(X) (rows x cols, row-major `x`) stored with layout/trans and ld =
// needed + 3 (gaps filled with `fill`); returns ld.
template <typename T>
int store(const std::vector<T>& x, size_t rows, size_t cols, bool row_major, bool trans, T fill,
          std::vector<T>& out) {
  const size_t sr = trans ? cols : rows, sc = trans ? rows : cols;
  const size_t ld = (row_major ? sc : sr) + 3;
  out.assign((row_major ? sr : sc) * ld, fill);
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < cols; ++c) {
      const size_t R = trans ? c : r, C = trans ? r : c;
      out[row_major ? R * ld + C : C * ld + R] = x[r * cols + c];
    }
  return static_cast<int>(ld);
}

struct Variant {
  mmaemu_layout layout;
  mmaemu_transpose ta, tb;
  float alpha, beta;
  mmaemu_accumulate acc;
  const char* threads;
};

// The case's parameters: every layout and transpose pair, the rest cycling
// with the case number.
Variant variant(size_t lt, size_t i) {
  static const float alphas[] = {1.0f, 1.5f, -0.375f};
  static const float betas[] = {0.0f, 1.0f, -0.75f, 0.0f, 2.5f};
  static const mmaemu_accumulate accs[] = {MMAEMU_ACC_GPU_BLAS, MMAEMU_ACC_INTO_C, MMAEMU_ACC_BLAS_INTO_C,
                                           MMAEMU_ACC_GPU_BLAS};
  const mmaemu_transpose t[] = {MMAEMU_NO_TRANS, MMAEMU_TRANS, MMAEMU_CONJ_TRANS};
  return {lt & 4 ? MMAEMU_COL_MAJOR : MMAEMU_ROW_MAJOR,
          t[(lt & 1) ? 1 + i % 2 : 0],
          t[(lt & 2) ? 1 + (i / 2) % 2 : 0],
          alphas[i % 3],
          betas[i % 5],
          accs[i % 4],
          i % 2 ? "2" : "1"};
}

std::string describe(const char* model, const std::string& what, const Variant& v, size_t m, size_t n, size_t k) {
  char b[256];
  std::snprintf(b, sizeof b, "%s %s %s ta%d tb%d alpha %g beta %g acc %d threads %s %zux%zux%zu", model,
                what.c_str(), v.layout == MMAEMU_ROW_MAJOR ? "row" : "col", v.ta - MMAEMU_NO_TRANS,
                v.tb - MMAEMU_NO_TRANS, v.alpha, v.beta, v.acc, v.threads, m, n, k);
  return b;
}

struct Shape {
  size_t m, n, k;
};

std::vector<float> random_c(Rng& rng, size_t m, size_t n) {
  std::vector<float> c(m * n);
  for (float& v : c) v = rng.value(400);
  return c;
}

// C (m x n, row-major) in the case's layout with gaps; the result back in row-major.
struct CStore {
  std::vector<float> s;
  int ld;
  CStore(const std::vector<float>& c, size_t m, size_t n, mmaemu_layout layout)
      : ld(store(c, m, n, layout == MMAEMU_ROW_MAJOR, false, -7.0f, s)) {}
  std::vector<float> result(size_t m, size_t n, mmaemu_layout layout) const {
    std::vector<float> out(m * n);
    for (size_t i = 0; i < m; ++i)
      for (size_t j = 0; j < n; ++j)
        out[i * n + j] = s[layout == MMAEMU_ROW_MAJOR ? i * ld + j : j * ld + i];
    return out;
  }
};

struct Codes {
  mmaemu_format a, b, scale;
  int block;
  mmaemu_scaled_unit unit;
  bool packed;
  const char* name;
};

int width(mmaemu_format f) {
  return f == MMAEMU_E4M3 || f == MMAEMU_E5M2 ? 8 : f == MMAEMU_E2M1 ? 4 : 6;
}

bool special_code(mmaemu_format f, uint8_t c) {
  if (f == MMAEMU_E4M3) return (c & 0x7F) == 0x7F;
  return f == MMAEMU_E5M2 && (c & 0x7C) == 0x7C;
}
// A NaN (e4m3) or Inf (e5m2) code; 0 for formats without specials.
uint8_t nan_code(mmaemu_format f) { return f == MMAEMU_E4M3 ? 0xFF : f == MMAEMU_E5M2 ? 0x7C : 0; }

// A random element code that is no NaN or Inf (those are placed).
uint8_t element_code(Rng& rng, mmaemu_format f) {
  for (;;)
    if (const uint8_t c = static_cast<uint8_t>(rng.below(1u << width(f))); !special_code(f, c)) return c;
}

// A random scale code: mostly near 1, sometimes any code but NaN (zero included).
uint8_t scale_code(Rng& rng, mmaemu_format f) {
  if (rng.below(64) == 0) {
    const uint8_t c = static_cast<uint8_t>(rng.below(255));
    return f == MMAEMU_UE4M3 && c == 0x7F ? 0 : c;
  }
  return f == MMAEMU_UE8M0 ? static_cast<uint8_t>(127 - 4 + rng.below(9)) : static_cast<uint8_t>(0x30 + rng.below(24));
}

// op(X) codes, rows x cols row-major, k along `k_cols` (A) or rows (B):
// stored (packed in pairs along k where asked).
int store_codes(const std::vector<uint8_t>& x, size_t rows, size_t cols, bool k_cols, bool packed, bool row_major,
                bool trans, std::vector<uint8_t>& out) {
  if (!packed) return store<uint8_t>(x, rows, cols, row_major, trans, 0xEE, out);
  const size_t pr = k_cols ? rows : rows / 2, pc = k_cols ? cols / 2 : cols;
  std::vector<uint8_t> p(pr * pc);
  for (size_t r = 0; r < pr; ++r)
    for (size_t c = 0; c < pc; ++c)
      p[r * pc + c] = k_cols ? static_cast<uint8_t>(x[r * cols + 2 * c] | x[r * cols + 2 * c + 1] << 4)
                             : static_cast<uint8_t>(x[2 * r * cols + c] | x[(2 * r + 1) * cols + c] << 4);
  return store<uint8_t>(p, pr, pc, row_major, trans, 0xEE, out);
}

void gemm_case(Table& t, Rng& rng, const char* model_name, const mmaemu_model* model, const Codes& f, Shape s,
               const Variant& v) {
  const size_t kb = f.block ? s.k / f.block : 0;
  std::vector<uint8_t> a(s.m * s.k), b(s.k * s.n), sa(s.m * std::max<size_t>(kb, 1)), sb(std::max<size_t>(kb, 1) * s.n);
  for (uint8_t& x : a) x = element_code(rng, f.a);
  for (uint8_t& x : b) x = element_code(rng, f.b);
  for (uint8_t& x : sa) x = scale_code(rng, f.scale);
  for (uint8_t& x : sb) x = scale_code(rng, f.scale);
  if (s.m > 3 && s.n > 3) {  // a NaN/Inf element in row 1 of A and column 2 of B, NaN scales in row 3, column n-1
    a[1 * s.k + s.k - 1] = nan_code(f.a);
    b[(s.k / 2) * s.n + 2] = nan_code(f.b);
    if (kb) sa[3 * kb + kb / 2] = 0xFF, sb[(kb - 1) * s.n + s.n - 1] = 0xFF;
  }
  const bool row = v.layout == MMAEMU_ROW_MAJOR, at = v.ta != MMAEMU_NO_TRANS, bt = v.tb != MMAEMU_NO_TRANS;
  std::vector<uint8_t> A, B, SA, SB;
  const int lda = store_codes(a, s.m, s.k, true, f.packed, row, at, A);
  const int ldb = store_codes(b, s.k, s.n, false, f.packed, row, bt, B);
  const int ldsa = store<uint8_t>(sa, s.m, std::max<size_t>(kb, 1), row, at, 0xEE, SA);
  const int ldsb = store<uint8_t>(sb, std::max<size_t>(kb, 1), s.n, row, bt, 0xEE, SB);
  CStore c(random_c(rng, s.m, s.n), s.m, s.n, v.layout);
  mmaemu_block_scale_desc d;
  mmaemu_block_scale_desc_init(&d);
  d.a_format = f.a, d.b_format = f.b, d.scale_format = f.scale, d.block_size = f.block, d.unit = f.unit;
  d.fp4_packed = f.packed;
  d.accumulate = v.acc;
  if (f.scale == MMAEMU_UE4M3) d.a_global_scale = 0.3125f, d.b_global_scale = 1.0f / 3.0f;
  setenv("MMA_NUM_THREADS", v.threads, 1);
  const int status = mmaemu_gemm_block_scaled(model, &d, v.layout, v.ta, v.tb, static_cast<int>(s.m),
                                              static_cast<int>(s.n), static_cast<int>(s.k), v.alpha, A.data(), lda,
                                              SA.data(), ldsa, B.data(), ldb, SB.data(), ldsb, v.beta, c.s.data(), c.ld);
  const std::string what = describe(model_name, f.name, v, s.m, s.n, s.k);
  INFO(what);
  REQUIRE_MESSAGE(status == MMAEMU_OK, mmaemu_last_error());
  t.check(what, c.result(s.m, s.n, v.layout));
}

void sgemm_case(Table& t, Rng& rng, const char* model_name, const mmaemu_model* model, const char* policy, Shape s,
                const Variant& v) {
  std::vector<float> a(s.m * s.k), b(s.k * s.n);
  for (float& x : a) x = rng.value(0);
  for (float& x : b) x = rng.value(0);
  if (s.m > 3 && s.n > 3) {  // NaN in row 1 of op(A), Inf in column 2 of op(B), the last row's end Inf
    a[1 * s.k + s.k / 2] = std::bit_cast<float>(0x7FC00001u);
    b[(s.k - 1) * s.n + 2] = -std::bit_cast<float>(0x7F800000u);
    a[(s.m - 1) * s.k + s.k - 1] = std::bit_cast<float>(0x7F800000u);
  }
  // Some rows of op(A) and columns of op(B) on another scale (tensor amax).
  for (size_t l = 0; l < s.k; ++l) a[(s.m / 2) * s.k + l] *= 4096.0f, b[l * s.n + s.n / 3] *= 1.0f / 1024;
  const bool row = v.layout == MMAEMU_ROW_MAJOR, at = v.ta != MMAEMU_NO_TRANS, bt = v.tb != MMAEMU_NO_TRANS;
  std::vector<float> A, B;
  const int lda = store<float>(a, s.m, s.k, row, at, 1e30f, A);
  const int ldb = store<float>(b, s.k, s.n, row, bt, 1e30f, B);
  CStore c(random_c(rng, s.m, s.n), s.m, s.n, v.layout);
  setenv("MMA_NUM_THREADS", v.threads, 1);
  const int status = mmaemu_sgemm_block_scaled_acc(
      model, policy, v.acc, v.layout, v.ta, v.tb, static_cast<int>(s.m), static_cast<int>(s.n),
      static_cast<int>(s.k), v.alpha, A.data(), lda, B.data(), ldb, v.beta, c.s.data(), c.ld);
  const std::string what = describe(model_name, policy, v, s.m, s.n, s.k);
  INFO(what);
  REQUIRE_MESSAGE(status == MMAEMU_OK, mmaemu_last_error());
  t.check(what, c.result(s.m, s.n, v.layout));
}

const char* const kModels[] = {"B200", "RTXPRO6000"};

const Codes kCodes[] = {
    {MMAEMU_E4M3, MMAEMU_E4M3, MMAEMU_UE8M0, 32, MMAEMU_UNIT_AUTO, false, "e4m3 x e4m3 ue8m0/32"},
    {MMAEMU_E5M2, MMAEMU_E2M3, MMAEMU_UE8M0, 32, MMAEMU_UNIT_AUTO, false, "e5m2 x e2m3 ue8m0/32"},
    {MMAEMU_E3M2, MMAEMU_E2M1, MMAEMU_UE8M0, 32, MMAEMU_UNIT_AUTO, false, "e3m2 x e2m1 ue8m0/32"},
    {MMAEMU_E2M1, MMAEMU_E2M1, MMAEMU_UE8M0, 32, MMAEMU_UNIT_AUTO, false, "e2m1 ue8m0/32 (GST)"},
    {MMAEMU_E2M1, MMAEMU_E2M1, MMAEMU_UE8M0, 32, MMAEMU_UNIT_ST, true, "e2m1 packed ue8m0/32 (ST)"},
    {MMAEMU_E2M1, MMAEMU_E2M1, MMAEMU_UE8M0, 16, MMAEMU_UNIT_AUTO, true, "e2m1 packed ue8m0/16"},
    {MMAEMU_E2M1, MMAEMU_E2M1, MMAEMU_UE4M3, 16, MMAEMU_UNIT_AUTO, false, "e2m1 ue4m3/16"},
    {MMAEMU_E2M1, MMAEMU_E2M1, MMAEMU_UE4M3, 16, MMAEMU_UNIT_AUTO, true, "e2m1 packed ue4m3/16"},
    {MMAEMU_E4M3, MMAEMU_E5M2, MMAEMU_UE8M0, 0, MMAEMU_UNIT_AUTO, false, "e4m3 x e5m2 unscaled"},
};

// k: a multiple of 32 (every block size, even for packing); one shape
// with k = 32 (a single padded step on the 64-wide units), one spanning
// several chunks of steps, the last with enough work for two threads.
const Shape kGemmShapes[] = {{1, 1, 32}, {37, 41, 96}, {9, 150, 800}, {70, 90, 256}, {128, 136, 320}};
// k: not a multiple of the block (padding), 1, several chunks; the last
// with enough work for two threads.
const Shape kSgemmShapes[] = {{5, 3, 1}, {37, 41, 100}, {19, 47, 700}, {70, 90, 250}, {130, 140, 300}};
const char* const kPolicies[] = {"mxfp8", "mxfp8:e5m2", "mxfp6", "mxfp6:e3m2", "mxfp4", "nvfp4"};

}  // namespace

TEST_CASE("block-scaled GEMM and sgemm: the pinned bits over the grid") {
  const char* saved = std::getenv("MMA_NUM_THREADS");
  const std::string saved_threads = saved ? saved : "";
  Table t;
  Rng rng(20261203);  // fixed: the table is for this seed
  size_t i = 0;
  for (const char* name : kModels) {
    api_test::Handle model(name);
    for (const Codes& f : kCodes)
      for (const Shape& s : kGemmShapes)
        for (size_t lt = 0; lt < 8; ++lt, ++i) gemm_case(t, rng, name, model.m, f, s, variant(lt, i));
    for (const char* policy : kPolicies)
      for (const Shape& s : kSgemmShapes)
        for (size_t lt = 0; lt < 8; ++lt, ++i) sgemm_case(t, rng, name, model.m, policy, s, variant(lt, i));
  }
  if (saved) setenv("MMA_NUM_THREADS", saved_threads.c_str(), 1);
  else unsetenv("MMA_NUM_THREADS");
  if (t.print) return;
  CHECK(t.next == kExpectedCount);
  CHECK_MESSAGE(t.failures == 0, t.failures << " of " << t.next << " cases changed their bits (seed 20261203)");
}
