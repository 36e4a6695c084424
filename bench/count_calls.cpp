// SPDX-License-Identifier: BSD-3-Clause
// mmaemu-count: one GEMM (or one batch of dot products) through the public C
// API for an instruction count: the call runs once to warm up (tables,
// scratch buffers, the pool), then once more with callgrind's
// instrumentation on (docs/performance.md, "Instructions per emulated MAC").
// Without valgrind it just runs the calls; timings are never taken here.
//
//   valgrind --tool=callgrind --instr-atstart=no mmaemu-count --model M --input F
//       [--output F] (--shape M,N,K [--threads T] | --batch K [--count N])
//
// The operands are the bench's: uniform in (-1, 1) as fp32 (GEMM); random
// codes over +-6 binades (batch, as mmaemu-bench --batch). callgrind's
// "totals" over m*n*k (or count) is the count per emulated MAC (per dot).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "mmaemu/mmaemu.h"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else  // (no valgrind headers: the calls run, nothing is counted)
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#define CALLGRIND_DUMP_STATS_AT(name)
#endif

namespace {

int usage() {
  std::fprintf(stderr,
               "usage: mmaemu-count --model M --input F [--output F] (--shape M,N,K [--threads T] | --batch K "
               "[--count N])\n");
  return 2;
}

bool format_named(const char* name, mmaemu_format& f) {
  if (mmaemu_format_parse(name, &f) == MMAEMU_OK) return true;
  std::fprintf(stderr, "mmaemu-count: %s\n", mmaemu_last_error());
  return false;
}

// One call of f, warmed up first, counted.
template <typename F>
int count(F&& f) {
  if (!f()) return 2;
  CALLGRIND_ZERO_STATS;
  CALLGRIND_START_INSTRUMENTATION;
  const bool ok = f();
  CALLGRIND_STOP_INSTRUMENTATION;
  CALLGRIND_DUMP_STATS_AT("mmaemu-count");
  return ok ? 0 : 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string model, input, output = "fp32";
  int m = 0, n = 0, k = 0, threads = 1, batch_k = 0;
  long batch_count = 65536;
  for (int i = 1; i < argc; ++i) {
    auto arg = [&](const char* name) { return std::strcmp(argv[i], name) == 0 && i + 1 < argc; };
    if (arg("--model")) model = argv[++i];
    else if (arg("--input")) input = argv[++i];
    else if (arg("--output")) output = argv[++i];
    else if (arg("--shape")) {
      if (std::sscanf(argv[++i], "%d,%d,%d", &m, &n, &k) != 3 || m < 1 || n < 1 || k < 1) return usage();
    } else if (arg("--threads")) threads = std::atoi(argv[++i]);
    else if (arg("--batch")) batch_k = std::atoi(argv[++i]);
    else if (arg("--count")) batch_count = std::atol(argv[++i]);
    else return usage();
  }
  if (model.empty() || input.empty() || (m == 0) == (batch_k == 0) || batch_count < 1) return usage();
  mmaemu_model* h = nullptr;
  if (mmaemu_model_lookup(model.c_str(), &h) != MMAEMU_OK) {
    std::fprintf(stderr, "mmaemu-count: %s\n", mmaemu_last_error());
    return 2;
  }
  mmaemu_format out;
  if (!format_named(output.c_str(), out)) return 2;
  std::mt19937_64 rng(2026);
  int status = 0;
  if (batch_k) {  // mmaemu_dot_batch of random codes
    mmaemu_format in;
    if (!format_named(input.c_str(), in)) return 2;
    const std::size_t cnt = static_cast<std::size_t>(batch_count), len = cnt * static_cast<std::size_t>(batch_k);
    const int bytes = mmaemu_format_storage_bytes(in);
    std::vector<uint8_t> a(len * bytes), b(len * bytes), c(cnt * 8, 0), d(cnt * 8);
    std::vector<double> x(len);
    std::uniform_real_distribution<double> u(-3, 3);
    std::uniform_int_distribution<int> e(-6, 6);
    for (auto* v : {&a, &b}) {
      for (double& y : x) y = u(rng) * std::ldexp(1.0, e(rng));
      const bool fp8 = in == MMAEMU_E4M3 || in == MMAEMU_E5M2 || in == MMAEMU_E4M3FNUZ || in == MMAEMU_E5M2FNUZ;
      mmaemu_convert(MMAEMU_FP64, in, x.data(), v->data(), len, MMAEMU_RNE, fp8);  // (as mmaemu-bench --batch)
    }
    status = count([&] {
      if (mmaemu_dot_batch(h, in, out, cnt, batch_k, a.data(), b.data(), c.data(), d.data(), 1) == MMAEMU_OK) return true;
      std::fprintf(stderr, "mmaemu-count: %s\n", mmaemu_last_error());
      return false;
    });
  } else {  // mmaemu_gemm of fp32 operands
    mmaemu_gemm_options opt;
    mmaemu_gemm_options_init(&opt);
    if (mmaemu_parse_policy(input.c_str(), &opt) != MMAEMU_OK) {
      std::fprintf(stderr, "mmaemu-count: %s\n", mmaemu_last_error());
      return 2;
    }
    opt.output = out;
    opt.threads = threads;
    std::vector<float> A(static_cast<std::size_t>(m) * k), B(static_cast<std::size_t>(k) * n),
        C(static_cast<std::size_t>(m) * n);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (float& y : A) y = u(rng);
    for (float& y : B) y = u(rng);
    status = count([&] {
      if (mmaemu_gemm(h, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, m, n, k, 1.0, A.data(), k, B.data(),
                      n, 0.0, C.data(), n) == MMAEMU_OK)
        return true;
      std::fprintf(stderr, "mmaemu-count: %s\n", mmaemu_last_error());
      return false;
    });
  }
  mmaemu_model_free(h);
  return status;
}
