// SPDX-License-Identifier: BSD-3-Clause
// GEMM schedules (promote, splitk, splitk:tree, combinations) and the
// fine-grained scaled fp8 GEMM: the bits of one scheduled GEMM equal the
// composition of plain chain GEMMs through the public API, combined here by
// hand in binary32 (binary64 for fp64 units) with docs/schedules.md's nesting.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <limits>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "driver/schedule.h"
#include "api_test_util.h"
#include "mmaemu/mmaemu.h"
#include "models/model.h"
#include "ref/reference.h"

using namespace mmaemu;
using api_test::Handle;
using api_test::test_seed;

namespace {

const uint64_t kSeed = test_seed(11);

// One unit path of the engine per case (aligned, exact, pairwise, fma chain,
// late c, interleaved HMMA, an fp16 accumulator, an fp64 unit).
struct Case {
  const char* model;
  const char* policy;  // sgemm policy (fp32 storage); "fp64": fp64 storage and unit
  mmaemu_format output;
};
const Case kCases[] = {
    {"H100", "fp16", MMAEMU_FP32},          {"MI100", "fp16", MMAEMU_FP32}, {"MI250", "fp16", MMAEMU_FP32},
    {"MI250", "fp32", MMAEMU_FP32},         {"MI300X", "fp16", MMAEMU_FP32}, {"H100@mma.sync", "e4m3", MMAEMU_FP32},
    {"H100", "fp16", MMAEMU_FP16},          {"A100", "fp64", MMAEMU_FP64},
};

// The data of one case: row-major A (m x k), B (k x n), C (m x n) in the
// storage type T, with Inf and NaN placed so that pieces see them and the
// main accumulator meets Inf + (-Inf).
template <typename T>
struct Data {
  std::size_t m, n, k;
  std::vector<T> A, B, C;
  Data(std::size_t m_, std::size_t n_, std::size_t k_, std::mt19937_64& rng) : m(m_), n(n_), k(k_) {
    auto fill = [&](std::vector<T>& v, std::size_t count) {
      v.resize(count);
      for (T& x : v) {
        x = static_cast<T>(std::ldexp(static_cast<double>(rng() % 2001) / 1000.0 - 1.0, static_cast<int>(rng() % 9) - 4));
        if (rng() % 40 == 0) x = T(0);
      }
    };
    fill(A, m * k);
    fill(B, k * n);
    fill(C, m * n);
    const T inf = std::numeric_limits<T>::infinity();
    A[1 * k + k / 2] = inf;                       // row 1: Inf (or NaN) from one piece
    A[4 * k + 0] = inf, A[4 * k + k - 1] = -inf;  // row 4: +Inf and -Inf pieces meet
    B[5 * n + 7] = std::numeric_limits<T>::quiet_NaN();
    C[2 * n + 3] = inf;
  }
};

// op(B)(k0.., :) etc. through the C API, row-major.
template <typename T>
int api_gemm(const Handle& h, mmaemu_gemm_options opt, const char* schedule, int threads, std::size_t m, std::size_t n,
             std::size_t k, double alpha, const T* A, std::size_t lda, const T* B, std::size_t ldb, double beta, T* C,
             std::size_t ldc) {
  opt.schedule = schedule;
  opt.threads = threads;
  return mmaemu_gemm(h.m, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, static_cast<int>(m),
                     static_cast<int>(n), static_cast<int>(k), alpha, A, static_cast<int>(lda), B, static_cast<int>(ldb),
                     beta, C, static_cast<int>(ldc));
}

struct Range {
  std::size_t k0, len;
};

// The composition of a schedule from plain GEMMs: the slices and pieces
// (written out again here from docs/schedules.md's definition), each a chain GEMM
// with alpha = 1, beta = 0; sums in T; then the vendor epilogue.
template <typename T>
std::vector<T> composed(const Handle& h, const mmaemu_gemm_options& opt, const driver::Schedule& s, std::size_t unit_k,
                        const Data<T>& d, double alpha, double beta, bool into_c) {
  const std::size_t m = d.m, n = d.n, k = d.k;
  auto piece = [&](Range r) {
    std::vector<T> out(m * n);
    REQUIRE(api_gemm(h, opt, nullptr, 1, m, n, r.len, 1.0, d.A.data() + r.k0, k, d.B.data() + r.k0 * n, n, 0.0,
                     out.data(), n) == MMAEMU_OK);
    return out;
  };
  auto add = [](std::vector<T>& x, const std::vector<T>& y) {
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = x[i] + y[i];
  };
  std::vector<Range> slices;
  if (!s.split) {
    slices.push_back({0, k});
  } else {
    const std::size_t per = ((k + s.split - 1) / s.split + unit_k - 1) / unit_k * unit_k;
    for (std::size_t q = 0, at = 0; q < s.split && at < k; ++q) {
      const std::size_t len = q + 1 == s.split ? k - at : std::min(per, k - at);
      slices.push_back({at, len});
      at += len;
    }
  }
  // A slice's value: the unit's result, or with promotion (((+0 + p0) + p1) ...).
  auto slice_value = [&](Range r) {
    if (!s.promote) return piece(r);
    std::vector<T> acc(m * n, T(0));
    for (std::size_t at = 0; at < r.len; at += s.promote) add(acc, piece({r.k0 + at, std::min(s.promote, r.len - at)}));
    return acc;
  };
  std::vector<T> main(m * n, T(0));
  if (into_c && beta != 0)
    for (std::size_t i = 0; i < m * n; ++i) main[i] = static_cast<T>(beta * static_cast<double>(d.C[i]));  // exact product
  if (!s.split) {
    for (std::size_t at = 0; at < k; at += s.promote) add(main, piece({at, std::min(s.promote, k - at)}));
  } else if (!s.tree) {
    for (const Range& r : slices) add(main, slice_value(r));
  } else {
    std::vector<std::vector<T>> v;
    for (const Range& r : slices) v.push_back(slice_value(r));
    while (v.size() > 1) {  // level by level: (0+1), (2+3), ...; an odd last one waits
      std::vector<std::vector<T>> next;
      for (std::size_t q = 0; q < v.size(); q += 2) {
        if (q + 1 < v.size()) add(v[q], v[q + 1]);
        next.push_back(std::move(v[q]));
      }
      v = std::move(next);
    }
    if (!v.empty()) add(main, v[0]);
  }
  const T al = static_cast<T>(alpha), be = static_cast<T>(beta);
  std::vector<T> D(m * n);
  for (std::size_t i = 0; i < m * n; ++i) {
    D[i] = (beta != 0 && !into_c) ? std::fma(al, main[i], be * d.C[i]) : (alpha == 1 ? main[i] : al * main[i]);
    if (std::isnan(D[i]) || std::isnan(main[i])) D[i] = std::numeric_limits<T>::quiet_NaN();
  }
  return D;
}

template <typename T>
using Bits = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;

// Schedules relative to the instruction k (kk); k = 9 kk + 5 in the data.
std::vector<std::string> schedules_for(std::size_t kk) {
  const std::string p1 = std::to_string(kk), p2 = std::to_string(2 * kk), p3 = std::to_string(3 * kk);
  return {"promote:" + p2,           "promote:" + p3,      "splitk:1",          "splitk:3",
          "splitk:3:tree",           "splitk:5:tree",      "splitk:8",          "splitk:2,promote:" + p1,
          "promote:" + p2 + ",splitk:4:tree", "splitk:3,promote:" + p2};
}

template <typename T>
void check_case(const Case& c, mmaemu_gemm_options opt, std::mt19937_64& rng) {
  Handle h(c.model);
  int tm, tn, tk;
  REQUIRE(mmaemu_tile_shape(h.m, opt.input, opt.output, &tm, &tn, &tk) == MMAEMU_OK);
  const std::size_t kk = static_cast<std::size_t>(tk);
  const Model model = lookup_model(c.model);
  const ModelRow& row = *model.find(static_cast<Fmt>(opt.input), static_cast<Fmt>(opt.output));
  const Data<T> d(9, 19, 9 * kk + 5, rng);  // 9 rows: two row slices on 2 threads
  struct Mode {
    mmaemu_accumulate acc;
    double alpha, beta;
  };
  for (const std::string& text : schedules_for(kk))
    for (const Mode& mode : {Mode{MMAEMU_ACC_GPU_BLAS, 1.0, 0.0}, Mode{MMAEMU_ACC_GPU_BLAS, 1.25, -0.375},
                             Mode{MMAEMU_ACC_INTO_C, 1.25, -0.375}}) {
      opt.accumulate = mode.acc;
      const std::vector<T> want = composed(h, opt, driver::parse_schedule(text), kk, d, mode.alpha, mode.beta,
                                           mode.acc == MMAEMU_ACC_INTO_C);
      for (int threads = 1; threads <= (mode.acc == MMAEMU_ACC_INTO_C ? 2 : 1); ++threads) {  // 2: blocks on threads
        CAPTURE(c.model);
        CAPTURE(c.policy);
        CAPTURE(text);
        CAPTURE(mode.acc);
        CAPTURE(threads);
        std::vector<T> got = d.C;
        REQUIRE(api_gemm(h, opt, text.c_str(), threads, d.m, d.n, d.k, mode.alpha, d.A.data(), d.k, d.B.data(), d.n,
                         mode.beta, got.data(), d.n) == MMAEMU_OK);
        std::size_t bad = 0;
        for (std::size_t i = 0; i < got.size(); ++i) {
          const Bits<T> g = std::bit_cast<Bits<T>>(got[i]);
          // NaN results carry the unit's pattern.
          const Bits<T> w = std::isnan(want[i]) ? static_cast<Bits<T>>(sizeof(T) == 8 ? ref::nan_result(row) : row.nan32)
                                                 : std::bit_cast<Bits<T>>(want[i]);
          if (g != w && bad++ < 3)
            FAIL_CHECK("seed " << kSeed << " element " << i << ": scheduled " << hex(g) << ", composed " << hex(w));
        }
        CHECK(bad == 0);
      }
    }
}

}  // namespace

TEST_CASE("every schedule equals its composition of plain GEMMs on every unit path") {
  std::mt19937_64 rng(kSeed);
  for (const Case& c : kCases) {
    Handle h(c.model);
    mmaemu_gemm_options opt;
    mmaemu_gemm_options_init(&opt);
    if (std::strcmp(c.policy, "fp64") == 0) {
      opt.a_storage = opt.b_storage = opt.c_storage = opt.input = opt.output = MMAEMU_FP64;
      check_case<double>(c, opt, rng);
      continue;
    }
    REQUIRE(mmaemu_parse_policy(c.policy, &opt) == MMAEMU_OK);
    opt.output = c.output;
    check_case<float>(c, opt, rng);
  }
}

TEST_CASE("fast engine equals the reference engine under every schedule") {
  std::mt19937_64 rng(kSeed + 1);
  for (const char* name : {"H100", "MI300X", "MI100"}) {
    const Model model = lookup_model(name);
    const ModelRow& row = *model.find(Fmt::fp16, Fmt::fp32);
    const Data<float> d(9, 20, 9 * row.k + 5, rng);
    for (const std::string& text : schedules_for(row.k)) {
      if (text.find(',') == std::string::npos && text.find("tree") == std::string::npos) continue;
      driver::GemmSpec spec;
      spec.row = &row;
      const driver::Operand a{Fmt::fp32, d.A.data(), static_cast<std::ptrdiff_t>(d.k), false};
      const driver::Operand b{Fmt::fp32, d.B.data(), static_cast<std::ptrdiff_t>(d.n), false};
      std::vector<float> fast = d.C, ref = d.C;
      driver::scheduled_gemm(driver::parse_schedule(text), spec, d.m, d.n, d.k, 1.5, a, b, 0.5, Fmt::fp32, fast.data(),
                             static_cast<std::ptrdiff_t>(d.n));
      spec.use_reference = true;
      driver::scheduled_gemm(driver::parse_schedule(text), spec, d.m, d.n, d.k, 1.5, a, b, 0.5, Fmt::fp32, ref.data(),
                             static_cast<std::ptrdiff_t>(d.n));
      CAPTURE(name);
      CAPTURE(text);
      CHECK(std::memcmp(fast.data(), ref.data(), fast.size() * sizeof(float)) == 0);
    }
  }
}

TEST_CASE("a transposed or column-major scheduled GEMM gives the same bits") {
  std::mt19937_64 rng(kSeed + 2);
  Handle h("H100");
  mmaemu_gemm_options opt;
  mmaemu_gemm_options_init(&opt);
  opt.schedule = "splitk:3:tree,promote:32";
  const Data<float> d(9, 11, 150, rng);
  std::vector<float> At(d.k * d.m), Bt(d.n * d.k), want(d.m * d.n), got(d.m * d.n);
  for (std::size_t i = 0; i < d.m; ++i)
    for (std::size_t l = 0; l < d.k; ++l) At[l * d.m + i] = d.A[i * d.k + l];
  for (std::size_t l = 0; l < d.k; ++l)
    for (std::size_t j = 0; j < d.n; ++j) Bt[j * d.k + l] = d.B[l * d.n + j];
  const int m = 9, n = 11, k = 150;
  REQUIRE(mmaemu_gemm(h.m, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, m, n, k, 1.0, d.A.data(), k,
                      d.B.data(), n, 0.0, want.data(), n) == MMAEMU_OK);
  REQUIRE(mmaemu_gemm(h.m, &opt, MMAEMU_ROW_MAJOR, MMAEMU_TRANS, MMAEMU_TRANS, m, n, k, 1.0, At.data(), m, Bt.data(),
                      k, 0.0, got.data(), n) == MMAEMU_OK);
  CHECK(std::memcmp(want.data(), got.data(), got.size() * sizeof(float)) == 0);
  // Column-major: C^T = B^T A^T with the stored arrays read column-major.
  std::vector<float> gotT(d.n * d.m);
  REQUIRE(mmaemu_gemm(h.m, &opt, MMAEMU_COL_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, m, n, k, 1.0, At.data(), m,
                      Bt.data(), k, 0.0, gotT.data(), m) == MMAEMU_OK);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < d.m; ++i)
    for (std::size_t j = 0; j < d.n; ++j)
      bad += std::bit_cast<uint32_t>(gotT[j * d.m + i]) != std::bit_cast<uint32_t>(want[i * d.n + j]);
  CHECK(bad == 0);
}

TEST_CASE("invalid schedules are refused with a message") {
  Handle h("H100");
  mmaemu_gemm_options opt;
  mmaemu_gemm_options_init(&opt);
  float A[4] = {1, 2, 3, 4}, C[4] = {};
  struct Bad {
    const char* schedule;
    const char* message;
  };
  for (const Bad& b : {Bad{"promote:24", "not a multiple of the instruction k = 16"}, Bad{"promote:0", "positive"},
                       Bad{"splitk", "valid: chain"}, Bad{"splitk:2:sorted", "unknown item"},
                       Bad{"chain,promote:16", "chain combines with nothing"}, Bad{"promote:16,promote:32", "twice"},
                       Bad{"pr0mote:16", "valid: chain, promote:P, splitk:S"},
                       Bad{"promote:1234567890123456789", "'1234567890123456789' is too large (at most 18 digits)"},
                       Bad{"promote:1e3", "'1e3' is not a positive integer"}}) {
    opt.schedule = b.schedule;
    CAPTURE(b.schedule);
    CHECK(mmaemu_gemm(h.m, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 2, 2, 2, 1.0, A, 2, A, 2, 0.0, C,
                      2) == MMAEMU_ERR_ARGUMENT);
    CHECK(std::string(mmaemu_last_error()).find(b.message) != std::string::npos);
  }
  opt.schedule = " Splitk:2 , PROMOTE:32 ";  // case and spaces do not matter
  CHECK(mmaemu_gemm(h.m, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 2, 2, 2, 1.0, A, 2, A, 2, 0.0, C, 2) ==
        MMAEMU_OK);
  CHECK(driver::schedule_name(driver::parse_schedule(" Splitk:2:TREE , PROMOTE:32 ")) == "splitk:2:tree,promote:32");
  // An interval longer than any k is one piece: the chain's bits (10 digits,
  // a multiple of 16; leading zeros do not count).
  for (const char* s : {"promote:1000000000", "promote:0001000000000", "splitk:100000000000000000"}) {
    CAPTURE(s);
    float P[4], Q[4];
    opt.schedule = s;
    REQUIRE(mmaemu_gemm(h.m, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 2, 2, 2, 1.0, A, 2, A, 2, 0.0, P,
                        2) == MMAEMU_OK);
    opt.schedule = "chain";
    REQUIRE(mmaemu_gemm(h.m, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 2, 2, 2, 1.0, A, 2, A, 2, 0.0, Q,
                        2) == MMAEMU_OK);
    CHECK(std::memcmp(P, Q, sizeof P) == 0);
  }
  // sgemm with a schedule: the general GEMM's bits.
  float G[4], S[4];
  opt.schedule = "splitk:2";
  REQUIRE(mmaemu_parse_policy("tf32", &opt) == MMAEMU_OK);
  REQUIRE(mmaemu_gemm(h.m, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 2, 2, 2, 1.0, A, 2, A, 2, 0.0, G, 2) ==
          MMAEMU_OK);
  REQUIRE(mmaemu_sgemm_scheduled(h.m, "tf32", "splitk:2", MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 2, 2, 2,
                                 1.0f, A, 2, A, 2, 0.0f, S, 2) == MMAEMU_OK);
  CHECK(std::memcmp(G, S, sizeof G) == 0);
  CHECK(mmaemu_sgemm_scheduled(h.m, "tf32", "splitk:x", MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 2, 2, 2,
                               1.0f, A, 2, A, 2, 0.0f, S, 2) == MMAEMU_ERR_ARGUMENT);
}

TEST_CASE("split-K slices: instruction-k boundaries, the last takes the rest, empty slices dropped") {
  auto lens = [](std::size_t k, std::size_t s, std::size_t kk) {
    std::vector<std::size_t> v;
    for (const driver::KRange& r : driver::split_slices(k, s, kk)) v.push_back(r.len);
    return v;
  };
  CHECK(lens(100, 4, 16) == std::vector<std::size_t>{32, 32, 32, 4});
  CHECK(lens(64, 4, 16) == std::vector<std::size_t>{16, 16, 16, 16});
  CHECK(lens(40, 8, 16) == std::vector<std::size_t>{16, 16, 8});
  CHECK(lens(5, 3, 16) == std::vector<std::size_t>{5});
  CHECK(lens(0, 3, 16).empty());
}

// ---------------------------------------------------------------------------
// Fine-grained scaled fp8 GEMM.

TEST_CASE("scaled fp8 GEMM equals per-block GEMMs combined with fma(partial, sa*sb, main)") {
  std::mt19937_64 rng(kSeed + 3);
  Handle h("H100");
  for (const mmaemu_format f : {MMAEMU_E4M3, MMAEMU_E5M2})
    for (const bool b_trans : {false, true}) {
      const int m = 19, n = 150, k = 300, bk = 128, bn = 64;
      const int kb = (k + bk - 1) / bk, nbk = (n + bn - 1) / bn;
      std::vector<float> X(m * k), Y(k * n);
      for (float& x : X) x = std::ldexp(static_cast<float>(rng() % 2001) / 1000.0f - 1.0f, static_cast<int>(rng() % 20) - 10);
      for (float& x : Y) x = std::ldexp(static_cast<float>(rng() % 2001) / 1000.0f - 1.0f, static_cast<int>(rng() % 20) - 10);
      std::vector<uint8_t> A(m * k), B(k * n), Bt(n * k);
      std::vector<float> sa(m * kb), sb(kb * nbk);
      REQUIRE(mmaemu_quantize_fp8_blocks(f, m, k, X.data(), k, 1, bk, A.data(), k, sa.data()) == MMAEMU_OK);
      REQUIRE(mmaemu_quantize_fp8_blocks(f, k, n, Y.data(), n, bk, bn, B.data(), n, sb.data()) == MMAEMU_OK);
      for (int l = 0; l < k; ++l)
        for (int j = 0; j < n; ++j) Bt[j * k + l] = B[l * n + j];
      mmaemu_fp8_scaled_options so;
      mmaemu_fp8_scaled_options_init(&so);
      so.format = f;
      so.block_k = bk;
      so.block_n = bn;
      so.b_trans = b_trans;
      std::vector<float> D(m * n);
      REQUIRE(mmaemu_gemm_fp8_scaled(h.m, &so, m, n, k, A.data(), k, sa.data(), b_trans ? Bt.data() : B.data(),
                                     b_trans ? k : n, sb.data(), D.data(), n) == MMAEMU_OK);
      // The composition: plain fp8 GEMMs per k block through the C API.
      mmaemu_gemm_options opt;
      mmaemu_gemm_options_init(&opt);
      opt.a_storage = opt.b_storage = opt.input = f;
      std::vector<float> main(m * n, 0.0f), part(m * n);
      for (int q = 0; q < kb; ++q) {
        const int k0 = q * bk, len = std::min(bk, k - k0);
        REQUIRE(mmaemu_gemm(h.m, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, m, n, len, 1.0, A.data() + k0, k,
                            B.data() + k0 * n, n, 0.0, part.data(), n) == MMAEMU_OK);
        for (int i = 0; i < m; ++i)
          for (int j = 0; j < n; ++j) {
            const float s = sa[i * kb + q] * sb[q * nbk + j / bn];
            main[i * n + j] = std::fma(part[i * n + j], s, main[i * n + j]);
          }
      }
      CAPTURE(f);
      CAPTURE(b_trans);
      CHECK(std::memcmp(main.data(), D.data(), D.size() * sizeof(float)) == 0);
    }
  mmaemu_fp8_scaled_options so;
  mmaemu_fp8_scaled_options_init(&so);
  so.block_k = 48;  // not a multiple of H100's fp8 instruction k = 32
  uint8_t q[4] = {};
  float s[4] = {1, 1, 1, 1}, D[4];
  CHECK(mmaemu_gemm_fp8_scaled(h.m, &so, 2, 2, 2, q, 2, s, q, 2, s, D, 2) == MMAEMU_ERR_ARGUMENT);
  CHECK(std::string(mmaemu_last_error()).find("instruction k = 32") != std::string::npos);
}

TEST_CASE("fp8 block quantisation: amax/448 per block, RNE, saturating") {
  // One 1 x 4 block with amax 896: scale 2; 3 -> 1.5 (0x3C), 896 -> 448
  // (0x7E), 1.0625/2 = 0.53125 -> between 0.5 and 0.5625: tie to even 0.5 (0x30).
  const float X[8] = {3.0f, -896.0f, 1.0625f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f};
  uint8_t Q[8];
  float s[2];
  REQUIRE(mmaemu_quantize_fp8_blocks(MMAEMU_E4M3, 1, 8, X, 8, 1, 4, Q, 8, s) == MMAEMU_OK);
  CHECK(s[0] == 2.0f);
  CHECK(s[1] == 1.0f);  // all-zero block
  CHECK(Q[0] == 0x3C);
  CHECK(Q[1] == 0xFE);
  CHECK(Q[2] == 0x30);
  CHECK(Q[3] == 0x00);
  const float bad[2] = {1.0f, NAN};
  CHECK(mmaemu_quantize_fp8_blocks(MMAEMU_E4M3, 1, 2, bad, 2, 1, 2, Q, 2, s) == MMAEMU_ERR_ARGUMENT);
  CHECK(std::string(mmaemu_last_error()).find("(0, 1)") != std::string::npos);
  CHECK(mmaemu_quantize_fp8_blocks(MMAEMU_FP16, 1, 2, X, 2, 1, 2, Q, 2, s) == MMAEMU_ERR_ARGUMENT);
}
