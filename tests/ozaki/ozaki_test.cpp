// SPDX-License-Identifier: BSD-3-Clause
// mmaemu_dgemm_ex (docs/ozaki.md) against the independent implementation of
// tests/ozaki/reference.h, bits compared: scheme I on the int8 units of H100
// and A100 (triangle and all pairs), on H100's fp16 unit where its slice
// products are exact, scheme II on H100's int8 unit; every compiled SIMD
// target, 1 and 2 threads, both layouts and every transpose; the exactness
// check (inexact slice products on H100 e4m3, none on the int8 unit); IEEE
// specials; the refusals and their messages. MMAEMU_TEST_SEED changes the seed.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/hex.h"
#include "hwy/targets.h"
#include "mmaemu/mmaemu.h"
#include "ozaki/reference.h"

using ozaki_ref::Mat;

namespace {

uint64_t seed() {
  const char* s = std::getenv("MMAEMU_TEST_SEED");
  return s ? std::strtoull(s, nullptr, 10) : 20250601;
}

struct Handle {
  mmaemu_model* h = nullptr;
  explicit Handle(const char* name) { REQUIRE(mmaemu_model_lookup(name, &h) == MMAEMU_OK); }
  ~Handle() { mmaemu_model_free(h); }
};

uint64_t bits(double x) {
  uint64_t b;
  std::memcpy(&b, &x, 8);
  return b;
}

// The papers' test matrices: (rand - 0.5) exp(phi randn).
Mat draw(std::size_t rows, std::size_t cols, double phi, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::normal_distribution<double> g(0.0, 1.0);
  Mat x{rows, cols, std::vector<double>(rows * cols)};
  for (double& v : x.v) v = (u(rng) - 0.5) * std::exp(phi * g(rng));
  return x;
}

// op(X) stored for CBLAS (layout, trans) with leading dimension ld + pad.
std::vector<double> store(const Mat& x, bool row_major, bool trans, int& ld, int pad) {
  const std::size_t sr = trans ? x.cols : x.rows, sc = trans ? x.rows : x.cols;  // stored shape
  ld = static_cast<int>(row_major ? sc : sr) + pad;
  std::vector<double> mem(static_cast<std::size_t>(ld) * (row_major ? sr : sc) + 1, -7.0);
  for (std::size_t i = 0; i < x.rows; ++i)
    for (std::size_t j = 0; j < x.cols; ++j) {
      const std::size_t r = trans ? j : i, c = trans ? i : j;
      mem[row_major ? r * ld + c : c * ld + r] = x.at(i, j);
    }
  return mem;
}

struct Case {
  const char* model;
  mmaemu_format input;
  std::string scheme;
};

// Runs one product through the C API in a random layout; returns D row-major.
std::vector<double> run_api(const Case& c, const Mat& A, const Mat& B, int threads, std::mt19937_64& rng,
                            mmaemu_ozaki_stats* stats = nullptr, bool check = false) {
  Handle model(c.model);
  const bool row = rng() & 1, ta = rng() & 1, tb = rng() & 1;
  int lda, ldb;
  const std::vector<double> a = store(A, row, ta, lda, static_cast<int>(rng() % 3));
  const std::vector<double> b = store(B, row, tb, ldb, static_cast<int>(rng() % 3));
  const std::size_t m = A.rows, n = B.cols;
  const int ldc = static_cast<int>(row ? n : m) + 1;
  std::vector<double> C(static_cast<std::size_t>(ldc) * (row ? m : n), 99.0);
  mmaemu_dgemm_options opt;
  mmaemu_dgemm_options_init(&opt);
  opt.scheme = c.scheme.c_str();
  opt.input = c.input;
  opt.threads = threads;
  opt.check = check;
  const int st = mmaemu_dgemm_ex(model.h, &opt, row ? MMAEMU_ROW_MAJOR : MMAEMU_COL_MAJOR,
                                 ta ? MMAEMU_TRANS : MMAEMU_NO_TRANS, tb ? MMAEMU_TRANS : MMAEMU_NO_TRANS,
                                 static_cast<int>(m), static_cast<int>(n), static_cast<int>(A.cols), 1.0, a.data(),
                                 lda, b.data(), ldb, 0.0, C.data(), ldc, stats);
  REQUIRE_MESSAGE(st == MMAEMU_OK, mmaemu_last_error());
  std::vector<double> D(m * n);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) D[i * n + j] = C[row ? i * ldc + j : j * ldc + i];
  return D;
}

// Element-by-element comparison; prints the first mismatches in hex.
std::size_t compare(const std::string& what, const std::vector<double>& got, const std::vector<double>& want) {
  std::size_t bad = 0;
  for (std::size_t e = 0; e < got.size(); ++e)
    if (bits(got[e]) != bits(want[e]) && ++bad <= 3)
      MESSAGE(what << " seed " << seed() << " element " << e << ": got " << hex(bits(got[e])) << ", reference "
                   << hex(bits(want[e])));
  return bad;
}

// Every compiled SIMD target, 1 and 2 threads: f(target name, threads).
template <typename F>
void each_target(F f) {
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    for (int threads : {1, 2}) f(std::string(hwy::TargetName(target)), threads);
  }
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace

TEST_CASE("scheme I on the int8 units equals the reference, bit for bit") {
  std::mt19937_64 rng(seed());
  std::size_t bad = 0, runs = 0;
  each_target([&](const std::string& target, int threads) {
    for (const Case& c : {Case{"H100", MMAEMU_S8, "ozaki1:4"}, Case{"A100", MMAEMU_S8, "ozaki1:7"},
                          Case{"H100", MMAEMU_S8, "ozaki1:3:all"}, Case{"B200", MMAEMU_S8, "ozaki1:9"}}) {
      const double phi = static_cast<double>(rng() % 5);
      const std::size_t m = 1 + rng() % 13, n = 1 + rng() % 11, k = 1 + rng() % 90;
      const Mat A = draw(m, k, phi, rng), B = draw(k, n, phi, rng);
      const int S = std::stoi(c.scheme.substr(7));
      const bool all = c.scheme.find(":all") != std::string::npos;
      bad += compare(target + " " + c.model + " " + c.scheme, run_api(c, A, B, threads, rng),
                     ozaki_ref::scheme1(A, B, S, 7, all));
      ++runs;
    }
  });
  MESSAGE(runs << " products");
  CHECK(bad == 0);
}

TEST_CASE("scheme I on H100's fp16 unit, where its slice products are exact, equals the reference") {
  // k <= 64: slices of min(11, floor((24 - 6) / 2)) = 9 bits; sums of
  // products below 2^24 are exact in the unit's fp32 accumulation.
  std::mt19937_64 rng(seed() + 1);
  std::size_t bad = 0;
  each_target([&](const std::string& target, int threads) {
    const std::size_t m = 1 + rng() % 9, n = 1 + rng() % 9, k = 33 + rng() % 32;
    const Mat A = draw(m, k, 1.0, rng), B = draw(k, n, 1.0, rng);
    mmaemu_ozaki_stats st;
    bad += compare(target + " H100 fp16 ozaki1:5", run_api({"H100", MMAEMU_FP16, "ozaki1:5"}, A, B, threads, rng, &st, true),
                   ozaki_ref::scheme1(A, B, 5, 9, false));
    CHECK(st.checked == 1);
    CHECK(st.inexact_product_elements == 0);
  });
  CHECK(bad == 0);
}

TEST_CASE("scheme II on the int8 unit equals the exact product of the scaled integers, rounded once") {
  std::mt19937_64 rng(seed() + 2);
  std::size_t bad = 0;
  each_target([&](const std::string& target, int threads) {
    for (int N : {1, 5, 9, 14}) {
      const double phi = static_cast<double>(rng() % 5);
      const std::size_t m = 1 + rng() % 12, n = 1 + rng() % 12, k = 1 + rng() % 100;
      const Mat A = draw(m, k, phi, rng), B = draw(k, n, phi, rng);
      const std::string scheme = "ozaki2:" + std::to_string(N);
      bad += compare(target + " H100 " + scheme, run_api({"H100", MMAEMU_S8, scheme}, A, B, threads, rng),
                     ozaki_ref::scheme2(A, B, ozaki_ref::moduli_log2(N)));
    }
  });
  CHECK(bad == 0);
}

// Sizes where the residue, reduction and reconstruction passes split over
// threads, up to the 16 moduli the reference's 128-bit product can hold
// (crt_test checks the reconstruction for 17 to 20).
TEST_CASE("scheme II on larger operands and up to 16 moduli equals the reference, bit for bit") {
  std::mt19937_64 rng(seed() + 7);
  std::size_t bad = 0;
  each_target([&](const std::string& target, int threads) {
    for (int N : {14, 15, 16}) {
      const double phi = static_cast<double>(rng() % 5);
      const std::size_t m = 40 + rng() % 16, n = 40 + rng() % 16, k = 150 + rng() % 100;
      const Mat A = draw(m, k, phi, rng), B = draw(k, n, phi, rng);
      const std::string scheme = "ozaki2:" + std::to_string(N);
      bad += compare(target + " H100 " + scheme + " large", run_api({"H100", MMAEMU_S8, scheme}, A, B, threads, rng),
                     ozaki_ref::scheme2(A, B, ozaki_ref::moduli_log2(N)));
    }
  });
  CHECK(bad == 0);
}

namespace {

// D by the C API, row-major, no transposes; stats out.
std::vector<double> run_plain(const char* model_name, mmaemu_format input, const char* scheme, const Mat& A,
                              const Mat& B, mmaemu_ozaki_stats& st, double alpha = 1.0, double beta = 0.0,
                              std::vector<double> C = {}) {
  Handle model(model_name);
  const int m = static_cast<int>(A.rows), n = static_cast<int>(B.cols), k = static_cast<int>(A.cols);
  if (C.empty()) C.assign(static_cast<std::size_t>(m) * n, 0.0);
  mmaemu_dgemm_options opt;
  mmaemu_dgemm_options_init(&opt);
  opt.scheme = scheme;
  opt.input = input;
  opt.check = 1;
  const int s = mmaemu_dgemm_ex(model.h, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, m, n, k, alpha,
                                A.v.data(), k, B.v.data(), n, beta, C.data(), n, &st);
  REQUIRE_MESSAGE(s == MMAEMU_OK, mmaemu_last_error());
  return C;
}

}  // namespace

TEST_CASE("the exactness check: inexact slice products on H100 e4m3, none on the int8 unit") {
  // Nonnegative test matrices |rand - 0.5| exp(phi randn), k = 1024: the
  // slice products' sums pass 2^13, beyond the 13 fractional bits H100's
  // fp8 unit keeps (it truncates); its fp16 unit (25 bits) and the int8
  // unit compute them exactly.
  std::mt19937_64 rng(seed() + 4);
  Mat A = draw(8, 1024, 1.0, rng), B = draw(1024, 8, 1.0, rng);
  for (double& v : A.v) v = std::fabs(v);
  for (double& v : B.v) v = std::fabs(v);
  mmaemu_ozaki_stats fp8{}, fp16{}, int8{}, crt{};
  run_plain("H100", MMAEMU_E4M3, "ozaki1:6", A, B, fp8);
  run_plain("H100", MMAEMU_FP16, "ozaki1:6", A, B, fp16);
  run_plain("H100", MMAEMU_S8, "ozaki1:6", A, B, int8);
  run_plain("H100", MMAEMU_S8, "ozaki2:14", A, B, crt);
  MESSAGE("H100 e4m3 ozaki1:6: " << fp8.inexact_product_elements << " of " << fp8.product_elements
                                  << " slice product elements inexact, " << fp8.inexact_outputs << " outputs");
  CHECK(fp8.checked == 1);
  CHECK(fp8.products == 21);
  CHECK(fp8.product_elements == 21 * 64);
  CHECK(fp8.inexact_product_elements > 0);
  CHECK(fp8.inexact_outputs > 0);
  CHECK(fp8.inexact_outputs <= 64);
  CHECK(fp16.inexact_product_elements == 0);
  CHECK(int8.inexact_product_elements == 0);
  CHECK(int8.product_elements == 21 * 64);
  CHECK(crt.products == 14);
  CHECK(crt.product_elements == 14 * 64);
  CHECK(crt.inexact_product_elements == 0);
  CHECK(crt.inexact_outputs == 0);
}

TEST_CASE("alpha, beta, k = 0 and IEEE specials") {
  std::mt19937_64 rng(seed() + 5);
  Mat A = draw(3, 20, 1.0, rng), B = draw(20, 4, 1.0, rng);
  mmaemu_ozaki_stats st{};
  const std::vector<double> D = run_plain("H100", MMAEMU_S8, "ozaki2:12", A, B, st);
  std::vector<double> C0(12);
  for (std::size_t e = 0; e < 12; ++e) C0[e] = 0.25 * static_cast<double>(e) - 1.0;
  const std::vector<double> C = run_plain("H100", MMAEMU_S8, "ozaki2:12", A, B, st, 3.0, -2.0, C0);
  for (std::size_t e = 0; e < 12; ++e) {
    const double want = 3.0 * D[e] + -2.0 * C0[e];
    CHECK_MESSAGE(bits(C[e]) == bits(want), hex(bits(C[e])) << " vs " << hex(bits(want)));
  }
  // alpha = 0: C = beta C, A and B not read (NaN there changes nothing).
  Mat An = A;
  An.v[0] = NAN;
  const std::vector<double> C2 = run_plain("H100", MMAEMU_S8, "ozaki1:3", An, B, st, 0.0, 2.0, C0);
  for (std::size_t e = 0; e < 12; ++e) CHECK(bits(C2[e]) == bits(2.0 * C0[e]));
  // An Inf in row 1 of A: row 1 of D is the plain fp64 dot product (Inf or NaN); the others are unchanged.
  Mat Ai = A;
  Ai.v[1 * 20 + 3] = INFINITY;
  const std::vector<double> Di = run_plain("H100", MMAEMU_S8, "ozaki2:12", Ai, B, st);
  for (std::size_t j = 0; j < 4; ++j) {
    double s = 0;
    for (std::size_t l = 0; l < 20; ++l) s += Ai.at(1, l) * B.at(l, j);
    CHECK(bits(Di[4 + j]) == bits(s));
    CHECK(bits(Di[j]) == bits(D[j]));
    CHECK(bits(Di[8 + j]) == bits(D[8 + j]));
  }
}

namespace {

// The status and message of a refused call.
int refused(const char* model_name, mmaemu_format input, const char* scheme, std::string& msg,
            const char* schedule = nullptr) {
  Handle model(model_name);
  mmaemu_dgemm_options opt;
  mmaemu_dgemm_options_init(&opt);
  opt.scheme = scheme;
  opt.input = input;
  opt.schedule = schedule;
  double a = 1, b = 1, c = 0;
  const int s = mmaemu_dgemm_ex(model.h, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 1, 1, 1, 1.0, &a,
                                1, &b, 1, 0.0, &c, 1, nullptr);
  msg = mmaemu_last_error();
  return s;
}

}  // namespace

TEST_CASE("refusals say what works") {
  std::string msg;
  CHECK(refused("H100", MMAEMU_S8, "ozaki3:4", msg) == MMAEMU_ERR_ARGUMENT);
  CHECK(msg.find("ozaki1:S") != std::string::npos);
  CHECK(msg.find("ozaki2:N") != std::string::npos);
  CHECK(refused("H100", MMAEMU_S8, "ozaki1:0", msg) == MMAEMU_ERR_ARGUMENT);
  CHECK(refused("H100", MMAEMU_S8, "ozaki1:41", msg) == MMAEMU_ERR_ARGUMENT);
  CHECK(refused("H100", MMAEMU_S8, "ozaki2:21", msg) == MMAEMU_ERR_ARGUMENT);
  CHECK(refused("H100", MMAEMU_S8, "ozaki2:x", msg) == MMAEMU_ERR_ARGUMENT);
  CHECK(refused("H100", MMAEMU_S8, nullptr, msg) == MMAEMU_ERR_ARGUMENT);
  CHECK(msg.find("ozaki2:N") != std::string::npos);
  // fp32 / fp64 units are FMA chains.
  CHECK(refused("MI300X", MMAEMU_FP32, "ozaki1:7", msg) == MMAEMU_ERR_ARGUMENT);
  CHECK(msg.find("FMA chain") != std::string::npos);
  CHECK(msg.find("int8") != std::string::npos);
  CHECK(refused("H100", MMAEMU_FP64, "ozaki1:7", msg) == MMAEMU_ERR_ARGUMENT);
  // Scheme II on a float unit, on int4; scheme I on int4 with too few slices.
  CHECK(refused("H100", MMAEMU_FP16, "ozaki2:14", msg) == MMAEMU_ERR_ARGUMENT);
  CHECK(msg.find("input int8 works") != std::string::npos);
  CHECK(refused("A100", MMAEMU_S4, "ozaki2:6", msg) == MMAEMU_ERR_ARGUMENT);
  CHECK(msg.find("int8") != std::string::npos);
  CHECK(refused("A100", MMAEMU_S4, "ozaki1:7", msg) == MMAEMU_ERR_ARGUMENT);
  CHECK(msg.find("ozaki1:18") != std::string::npos);
  CHECK(refused("H100", MMAEMU_U8, "ozaki1:7", msg) == MMAEMU_ERR_ARGUMENT);
  // A model without the unit: which ones it has.
  CHECK(refused("V100", MMAEMU_S8, "ozaki2:14", msg) == MMAEMU_ERR_UNSUPPORTED);
  CHECK(msg.find("fp16") != std::string::npos);
  // A schedule on the integer unit; a bad schedule on a float unit.
  CHECK(refused("H100", MMAEMU_S8, "ozaki2:14", msg, "splitk:2") == MMAEMU_ERR_ARGUMENT);
  CHECK(msg.find("chain") != std::string::npos);
  CHECK(refused("H100", MMAEMU_FP16, "ozaki1:5", msg, "promote:7") == MMAEMU_ERR_ARGUMENT);
  CHECK(refused("H100", static_cast<mmaemu_format>(99), "ozaki1:5", msg) == MMAEMU_ERR_ARGUMENT);
  CHECK(msg.find("MMAEMU_S8") != std::string::npos);
}

TEST_CASE("int4 units run scheme I with 3-bit slices") {
  std::mt19937_64 rng(seed() + 6);
  const Mat A = draw(5, 40, 1.0, rng), B = draw(40, 6, 1.0, rng);
  mmaemu_ozaki_stats st{};
  const std::vector<double> D = run_plain("A100", MMAEMU_S4, "ozaki1:18", A, B, st);
  CHECK(compare("A100 int4 ozaki1:18", D, ozaki_ref::scheme1(A, B, 18, 3, false)) == 0);
  CHECK(st.inexact_product_elements == 0);
}

TEST_CASE("a float unit's schedule is the GEMM's: splitk on H100 fp16 keeps exact products exact") {
  std::mt19937_64 rng(seed() + 7);
  const Mat A = draw(4, 64, 0.5, rng), B = draw(64, 5, 0.5, rng);
  Handle model("H100");
  mmaemu_dgemm_options opt;
  mmaemu_dgemm_options_init(&opt);
  opt.scheme = "ozaki1:5";
  opt.input = MMAEMU_FP16;
  opt.schedule = "splitk:2";
  opt.check = 1;
  std::vector<double> C(20);
  mmaemu_ozaki_stats st{};
  REQUIRE(mmaemu_dgemm_ex(model.h, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 4, 5, 64, 1.0,
                          A.v.data(), 64, B.v.data(), 5, 0.0, C.data(), 5, &st) == MMAEMU_OK);
  CHECK(st.inexact_product_elements == 0);
  CHECK(compare("H100 fp16 splitk:2", C, ozaki_ref::scheme1(A, B, 5, 9, false)) == 0);
}

TEST_CASE("extreme exponents, zero lines and subnormals equal the reference") {
  std::mt19937_64 rng(seed() + 8);
  Mat A = draw(6, 30, 1.0, rng), B = draw(30, 5, 1.0, rng);
  for (std::size_t l = 0; l < 30; ++l) {
    A.v[0 * 30 + l] = std::ldexp(A.v[0 * 30 + l], 900);   // huge row
    A.v[1 * 30 + l] = std::ldexp(A.v[1 * 30 + l], -1000);  // tiny row, some subnormal
    A.v[2 * 30 + l] = 0.0;                                 // zero row
    B.v[l * 5 + 1] = std::ldexp(B.v[l * 5 + 1], -60);
  }
  A.v[3 * 30 + 4] = 0x1p-1074;  // one subnormal among normal numbers
  std::size_t bad = 0;
  mmaemu_ozaki_stats st{};
  bad += compare("extreme ozaki1:9", run_plain("H100", MMAEMU_S8, "ozaki1:9", A, B, st),
                 ozaki_ref::scheme1(A, B, 9, 7, false));
  bad += compare("extreme ozaki2:14", run_plain("H100", MMAEMU_S8, "ozaki2:14", A, B, st),
                 ozaki_ref::scheme2(A, B, ozaki_ref::moduli_log2(14)));
  CHECK(bad == 0);
}
