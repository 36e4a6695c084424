// SPDX-License-Identifier: BSD-3-Clause
// mmaemu_gemm_int (mmaemu.h; docs/c-api.md, "Integer GEMM") against ref::dot
// element by element, bits compared: every integer unit of H100 (s8/u8,
// mixed signedness) and A100 (s4/u4, packed two per byte along k), row- and
// column-major, every transpose, beta 0 and 1, wrap and .satfinite, codes
// at the extremes with C near the s32 bounds; and the refusals with their
// messages. MMAEMU_TEST_SEED changes the seed.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "common/engine_rows.h"
#include "mmaemu/mmaemu.h"
#include "models/model.h"
#include "ref/reference.h"

using namespace mmaemu;
using namespace mmaemu::test;

namespace {

struct Handle {
  mmaemu_model* h = nullptr;
  explicit Handle(const char* name) { REQUIRE(mmaemu_model_lookup(name, &h) == MMAEMU_OK); }
  ~Handle() { mmaemu_model_free(h); }
};

// Stores code x of element (i, l) of op(X) (k along l) in X's memory: CBLAS
// layout and transpose, int4 packed two per byte along k.
void put(std::vector<uint8_t>& mem, bool k_contig, int ld, std::size_t line, std::size_t l, uint64_t code,
         bool packed) {
  const std::size_t kk = packed ? l / 2 : l;
  const std::size_t at = k_contig ? line * static_cast<std::size_t>(ld) + kk : kk * static_cast<std::size_t>(ld) + line;
  if (!packed) mem[at] = static_cast<uint8_t>(code);
  else mem[at] = static_cast<uint8_t>(mem[at] | ((code & 0xF) << (4 * (l & 1))));
}

std::size_t run(const char* model_name, Fmt fa, Fmt fb, int saturate, std::mt19937_64& rng) {
  Handle model(model_name);
  const mmaemu::Model m = lookup_model(model_name);
  ModelRow row = *m.find_integer(fa, fb, Fmt::s32);
  if (saturate) row.overflow = IntOverflow::satfinite;
  Gen g(rng());
  std::size_t bad = 0, dots = 0;
  for (int t = 0; t < 24; ++t) {
    const int M = 1 + static_cast<int>(rng() % 20), N = 1 + static_cast<int>(rng() % 20),
              K = static_cast<int>(rng() % 200) + (t % 6 == 5 ? 2000 : 0);
    const bool rowmaj = rng() & 1, na = rng() & 1, nb = rng() & 1;
    const int beta = t % 4 == 3 ? 0 : 1;
    const bool pa = info(fa).width == 4, pb = info(fb).width == 4;
    const bool ka = rowmaj == na, kb = rowmaj != nb;  // k contiguous in A, B
    const int kba = pa ? (K + 1) / 2 : K, kbb = pb ? (K + 1) / 2 : K;
    const int lda = (ka ? kba : M) + static_cast<int>(rng() % 3), ldb = (kb ? kbb : N) + static_cast<int>(rng() % 3);
    const int ldc = (rowmaj ? N : M) + static_cast<int>(rng() % 3);
    std::vector<uint64_t> A(static_cast<std::size_t>(M) * K), B(static_cast<std::size_t>(K) * N), C(M * N);
    for (auto& x : A) x = g.int_bits(fa);
    for (auto& x : B) x = g.int_bits(fb);
    for (auto& x : C) x = g.int_bits(Fmt::s32);
    std::vector<uint8_t> Am(static_cast<std::size_t>(lda) * (ka ? M : kba) + 1),
        Bm(static_cast<std::size_t>(ldb) * (kb ? N : kbb) + 1);
    for (int i = 0; i < M; ++i)
      for (int l = 0; l < K; ++l) put(Am, ka, lda, i, l, A[i * K + l], pa);
    for (int l = 0; l < K; ++l)
      for (int j = 0; j < N; ++j) put(Bm, kb, ldb, j, l, B[l * N + j], pb);
    std::vector<int32_t> Cm(static_cast<std::size_t>(ldc) * (rowmaj ? M : N), 0x5A5A5A5A);
    auto c_at = [&](int i, int j) { return rowmaj ? i * ldc + j : j * ldc + i; };
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j) Cm[c_at(i, j)] = static_cast<int32_t>(static_cast<uint32_t>(C[i * N + j]));
    mmaemu_gemm_int_options opt;
    mmaemu_gemm_int_options_init(&opt);
    opt.a_format = static_cast<mmaemu_format>(fa);
    opt.b_format = static_cast<mmaemu_format>(fb);
    opt.saturate = saturate;
    opt.threads = 1 + t % 3;
    const int st = mmaemu_gemm_int(model.h, &opt, rowmaj ? MMAEMU_ROW_MAJOR : MMAEMU_COL_MAJOR,
                                   na ? MMAEMU_NO_TRANS : MMAEMU_TRANS, nb ? MMAEMU_NO_TRANS : MMAEMU_TRANS, M, N, K,
                                   Am.data(), lda, Bm.data(), ldb, beta, Cm.data(), ldc);
    REQUIRE_MESSAGE(st == MMAEMU_OK, mmaemu_last_error());
    std::vector<uint64_t> ar(K), bc(K);
    for (int i = 0; i < M; ++i)
      for (int j = 0; j < N; ++j, ++dots) {
        for (int l = 0; l < K; ++l) ar[l] = A[i * K + l], bc[l] = B[l * N + j];
        const uint64_t want = ref::dot(row, K, ar.data(), bc.data(), beta ? C[i * N + j] : 0);
        const uint64_t got = static_cast<uint32_t>(Cm[c_at(i, j)]);
        if (got != want && ++bad <= 3)
          FAIL_CHECK("seed " << kSeed << " " << model_name << " " << info(fa).name << "x" << info(fb).name
                             << " saturate " << saturate << " " << (rowmaj ? "row" : "col") << "-major ta "
                             << !na << " tb " << !nb << " m" << M << " n" << N << " k" << K << " beta " << beta
                             << " at (" << i << "," << j << "): ref " << hex(want) << " got " << hex(got));
      }
  }
  CHECK(bad == 0);
  return dots;
}

}  // namespace

TEST_CASE("mmaemu_gemm_int equals ref::dot: s8/u8 on H100, packed s4/u4 on A100, layouts, wrap and satfinite") {
  std::mt19937_64 rng(kSeed);
  std::size_t dots = 0;
  for (const Fmt a : {Fmt::s8, Fmt::u8})
    for (const Fmt b : {Fmt::s8, Fmt::u8})
      for (int sat = 0; sat < 2; ++sat) dots += run("H100", a, b, sat, rng);
  for (const Fmt a : {Fmt::s4, Fmt::u4})
    for (const Fmt b : {Fmt::s4, Fmt::u4})
      for (int sat = 0; sat < 2; ++sat) dots += run("A100", a, b, sat, rng);
  dots += run("MI300X", Fmt::s8, Fmt::s8, 0, rng);
  MESSAGE(dots << " dot products");
}

TEST_CASE("mmaemu_gemm_int: a small product by hand, and the refusals") {
  Handle h100("H100"), mi300("MI300X");
  mmaemu_gemm_int_options opt;
  mmaemu_gemm_int_options_init(&opt);
  CHECK(opt.a_format == MMAEMU_S8);
  CHECK(opt.b_format == MMAEMU_S8);
  // [1 2; 3 4] * [5 6; 7 8] + [1 1; 1 1], and 127*127*... wrapping past MAX_INT32.
  const int8_t a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
  int32_t c[4] = {1, 1, 1, 1};
  REQUIRE(mmaemu_gemm_int(h100.h, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 2, 2, 2, a, 2, b, 2, 1, c,
                          2) == MMAEMU_OK);
  CHECK(c[0] == 20);
  CHECK(c[1] == 23);
  CHECK(c[2] == 44);
  CHECK(c[3] == 51);
  const int8_t x[2] = {127, 127};
  int32_t d[1] = {INT32_MAX};
  REQUIRE(mmaemu_gemm_int(h100.h, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 1, 1, 2, x, 2, x, 1, 1, d,
                          1) == MMAEMU_OK);
  CHECK(d[0] == static_cast<int32_t>(0x80000000u + 2 * 127 * 127 - 1));  // wrapped
  d[0] = INT32_MAX;
  opt.saturate = 1;
  REQUIRE(mmaemu_gemm_int(h100.h, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 1, 1, 2, x, 2, x, 1, 1, d,
                          1) == MMAEMU_OK);
  CHECK(d[0] == INT32_MAX);  // .satfinite
  // No .satfinite on AMD: refused, naming what works.
  CHECK(mmaemu_gemm_int(mi300.h, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 1, 1, 2, x, 2, x, 1, 1, d,
                        1) == MMAEMU_ERR_ARGUMENT);
  CHECK(std::string(mmaemu_last_error()).find("saturate = 0 works") != std::string::npos);
  opt.saturate = 0;
  // No int4 unit on H100: unsupported, listing its integer units.
  opt.a_format = opt.b_format = MMAEMU_S4;
  CHECK(mmaemu_gemm_int(h100.h, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 1, 1, 2, x, 2, x, 1, 1, d,
                        1) == MMAEMU_ERR_UNSUPPORTED);
  CHECK(std::string(mmaemu_last_error()).find("s8 x s8") != std::string::npos);
  opt.a_format = opt.b_format = MMAEMU_S8;
  CHECK(mmaemu_gemm_int(h100.h, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 1, 1, 2, x, 2, x, 1, 2, d,
                        1) == MMAEMU_ERR_ARGUMENT);  // beta = 2
  CHECK(std::string(mmaemu_last_error()).find("beta = 2") != std::string::npos);
  CHECK(mmaemu_gemm_int(h100.h, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 1, 1, 2, x, 1, x, 1, 1, d,
                        1) == MMAEMU_ERR_ARGUMENT);  // lda < k
  CHECK(mmaemu_gemm_int(h100.h, nullptr, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 1, 1, 2, x, 2, x, 1, 1,
                        d, 1) == MMAEMU_ERR_ARGUMENT);
}

TEST_CASE("mmaemu_format names the integer formats, and parses them") {
  const char* names[] = {"s8", "u8", "s4", "u4", "s32"};
  const mmaemu_format fmts[] = {MMAEMU_S8, MMAEMU_U8, MMAEMU_S4, MMAEMU_U4, MMAEMU_S32};
  for (int i = 0; i < 5; ++i) {
    CHECK(std::string(mmaemu_format_name(fmts[i])) == names[i]);
    mmaemu_format f;
    REQUIRE(mmaemu_format_parse(names[i], &f) == MMAEMU_OK);
    CHECK(f == fmts[i]);
  }
  mmaemu_format f;
  REQUIRE(mmaemu_format_parse("int8", &f) == MMAEMU_OK);
  CHECK(f == MMAEMU_S8);
  CHECK(mmaemu_format_name(MMAEMU_S32 + 1) == nullptr);
}

namespace {

// count dots of length k (or tiles of the unit's shape) of random codes
// through mmaemu_dot_batch_int / mmaemu_tile_batch_int, each element
// against ref::dot and against mmaemu_gemm_int of the same operands.
std::size_t run_batch(const char* model_name, Fmt fa, Fmt fb, int saturate, bool tiles, int threads,
                      std::mt19937_64& rng) {
  Handle model(model_name);
  const mmaemu::Model mdl = lookup_model(model_name);
  ModelRow row = *mdl.find_integer(fa, fb, Fmt::s32);
  if (saturate) row.overflow = IntOverflow::satfinite;
  mmaemu_gemm_int_options opt;
  mmaemu_gemm_int_options_init(&opt);
  opt.a_format = static_cast<mmaemu_format>(fa);
  opt.b_format = static_cast<mmaemu_format>(fb);
  opt.saturate = saturate;
  opt.threads = threads;
  int M = 1, N = 1, K = 1 + static_cast<int>(rng() % 300);
  if (tiles) REQUIRE(mmaemu_tile_shape_int(model.h, &opt, &M, &N, &K) == MMAEMU_OK);
  if (tiles) CHECK(K == row.k);
  const std::size_t count = 1 + rng() % 40, m = M, n = N, k = K;
  const bool pa = info(fa).width == 4;  // (both int4 or neither)
  const std::size_t kb = pa ? (k + 1) / 2 : k;
  Gen g(rng());
  std::vector<uint64_t> A(count * m * k), B(count * k * n), C(count * m * n);
  for (auto& x : A) x = g.int_bits(fa);
  for (auto& x : B) x = g.int_bits(fb);
  for (auto& x : C) x = g.int_bits(Fmt::s32);
  std::vector<uint8_t> Am(count * m * kb), Bm(count * kb * n);
  // A_t's rows along k; B_t k x n row-major (int4: byte (l/2, j) holds rows l and l+1 of column j).
  for (std::size_t t = 0; t < count; ++t) {
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t l = 0; l < k; ++l) put(Am, true, static_cast<int>(kb), t * m + i, l, A[(t * m + i) * k + l], pa);
    for (std::size_t l = 0; l < k; ++l)
      for (std::size_t j = 0; j < n; ++j)
        put(Bm, false, static_cast<int>(n), t * kb * n + j, l, B[(t * k + l) * n + j], pa);
  }
  std::vector<int32_t> D(C.size());
  for (std::size_t q = 0; q < C.size(); ++q) D[q] = static_cast<int32_t>(static_cast<uint32_t>(C[q]));
  const int st = tiles ? mmaemu_tile_batch_int(model.h, &opt, count, Am.data(), Bm.data(), D.data(), D.data())
                       : mmaemu_dot_batch_int(model.h, &opt, count, K, Am.data(), Bm.data(), D.data(), D.data());
  REQUIRE_MESSAGE(st == MMAEMU_OK, mmaemu_last_error());
  std::size_t bad = 0;
  std::vector<uint64_t> ar(k), bc(k);
  for (std::size_t q = 0; q < C.size(); ++q) {
    const std::size_t t = q / (m * n), i = q % (m * n) / n, j = q % n;
    for (std::size_t l = 0; l < k; ++l) ar[l] = A[(t * m + i) * k + l], bc[l] = B[(t * k + l) * n + j];
    const uint64_t want = ref::dot(row, k, ar.data(), bc.data(), C[q]);
    // The GEMM of this element alone (1 x 1 x k, row-major, B a column).
    std::vector<uint8_t> a1(kb, 0), b1(kb, 0);
    for (std::size_t l = 0; l < k; ++l) put(a1, true, static_cast<int>(kb), 0, l, ar[l], pa), put(b1, true, static_cast<int>(kb), 0, l, bc[l], pa);
    int32_t gemm = static_cast<int32_t>(static_cast<uint32_t>(C[q]));
    REQUIRE(mmaemu_gemm_int(model.h, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_TRANS, 1, 1, K, a1.data(),
                            static_cast<int>(kb), b1.data(), static_cast<int>(kb), 1, &gemm, 1) == MMAEMU_OK);
    const uint64_t got = static_cast<uint32_t>(D[q]), via_gemm = static_cast<uint32_t>(gemm);
    if ((got != want || via_gemm != want) && ++bad <= 3)
      FAIL_CHECK("seed " << kSeed << " " << model_name << " " << info(fa).name << "x" << info(fb).name
                         << " saturate " << saturate << (tiles ? " tiles" : " dots") << " threads " << threads
                         << " element " << q << " of " << count << "x" << m << "x" << n << " k " << k << ": ref "
                         << hex(want) << " batch " << hex(got) << " gemm " << hex(via_gemm));
  }
  CHECK(bad == 0);
  return C.size();
}

}  // namespace

TEST_CASE("mmaemu_tile_batch_int and mmaemu_dot_batch_int equal ref::dot and mmaemu_gemm_int, 1 and 2 threads") {
  std::mt19937_64 rng(kSeed ^ 0xBA7C4);
  std::size_t n = 0;
  for (int threads = 1; threads <= 2; ++threads)
    for (const bool tiles : {false, true}) {
      for (const Fmt a : {Fmt::s8, Fmt::u8})
        for (const Fmt b : {Fmt::s8, Fmt::u8})
          for (int sat = 0; sat < 2; ++sat) n += run_batch("H100", a, b, sat, tiles, threads, rng);
      for (const Fmt a : {Fmt::s4, Fmt::u4})
        for (const Fmt b : {Fmt::s4, Fmt::u4})
          for (int sat = 0; sat < 2; ++sat) n += run_batch("A100", a, b, sat, tiles, threads, rng);
      n += run_batch("T4", Fmt::s4, Fmt::s4, 1, tiles, threads, rng);
      n += run_batch("MI300X", Fmt::s8, Fmt::s8, 0, tiles, threads, rng);
      n += run_batch("MI100", Fmt::s8, Fmt::s8, 0, tiles, threads, rng);
    }
  MESSAGE(n << " elements");
}

TEST_CASE("integer batch entries: by hand, and the refusals") {
  Handle h100("H100"), mi300("MI300X");
  mmaemu_gemm_int_options opt;
  mmaemu_gemm_int_options_init(&opt);
  int m = 0, n = 0, k = 0;
  REQUIRE(mmaemu_tile_shape_int(h100.h, &opt, &m, &n, &k) == MMAEMU_OK);
  CHECK(k == 32);
  // Two dots: [1 2 3] . [4 5 6] + 10 and [127 127] . [127 127] on MAX_INT32 (wraps).
  const int8_t a[4] = {1, 2, 127, 127}, b[4] = {4, 5, 127, 127};
  int32_t c[2] = {10, INT32_MAX};
  REQUIRE(mmaemu_dot_batch_int(h100.h, &opt, 2, 2, a, b, c, c) == MMAEMU_OK);
  CHECK(c[0] == 10 + 4 + 10);
  CHECK(c[1] == static_cast<int32_t>(0x80000000u + 2 * 127 * 127 - 1));
  opt.saturate = 1;
  c[1] = INT32_MAX;
  REQUIRE(mmaemu_dot_batch_int(h100.h, &opt, 2, 2, a, b, c, c) == MMAEMU_OK);
  CHECK(c[1] == INT32_MAX);
  // saturate on AMD: refused by every integer entry, naming what works.
  CHECK(mmaemu_dot_batch_int(mi300.h, &opt, 2, 2, a, b, c, c) == MMAEMU_ERR_ARGUMENT);
  CHECK(std::string(mmaemu_last_error()).find("saturate = 0 works") != std::string::npos);
  CHECK(mmaemu_tile_batch_int(mi300.h, &opt, 1, a, b, c, c) == MMAEMU_ERR_ARGUMENT);
  CHECK(mmaemu_tile_shape_int(mi300.h, &opt, &m, &n, &k) == MMAEMU_ERR_ARGUMENT);
  opt.saturate = 2;
  CHECK(mmaemu_dot_batch_int(h100.h, &opt, 2, 2, a, b, c, c) == MMAEMU_ERR_ARGUMENT);
  opt.saturate = 0;
  // int4 on H100: unsupported, listing its integer units.
  opt.a_format = opt.b_format = MMAEMU_S4;
  CHECK(mmaemu_dot_batch_int(h100.h, &opt, 2, 2, a, b, c, c) == MMAEMU_ERR_UNSUPPORTED);
  CHECK(std::string(mmaemu_last_error()).find("s8 x s8") != std::string::npos);
  opt.a_format = opt.b_format = MMAEMU_FP16;  // not an integer format: the list of those
  CHECK(mmaemu_tile_batch_int(h100.h, &opt, 1, a, b, c, c) == MMAEMU_ERR_ARGUMENT);
  opt.a_format = opt.b_format = MMAEMU_S8;
  CHECK(mmaemu_dot_batch_int(h100.h, &opt, 2, 0, a, b, c, c) == MMAEMU_ERR_ARGUMENT);  // k = 0
  CHECK(mmaemu_dot_batch_int(h100.h, &opt, 2, 2, nullptr, b, c, c) == MMAEMU_ERR_ARGUMENT);
  CHECK(mmaemu_dot_batch_int(h100.h, nullptr, 2, 2, a, b, c, c) == MMAEMU_ERR_ARGUMENT);
  CHECK(mmaemu_dot_batch_int(nullptr, &opt, 2, 2, a, b, c, c) == MMAEMU_ERR_ARGUMENT);
  CHECK(mmaemu_dot_batch_int(h100.h, &opt, 0, 2, nullptr, nullptr, nullptr, nullptr) == MMAEMU_OK);  // nothing to do
}
