// SPDX-License-Identifier: BSD-3-Clause
// mmaemu-percall: the per-call cost of small products through the public C
// API (docs/performance.md, "Per-call cost"): microseconds per call (the
// median over repeats of a batch of calls) and C++ allocations per call,
// for one 16 x 8 x 16 tile (mmaemu_tile, and mmaemu_tile_batch of one
// tile) and mmaemu_gemm at n = 16, 32, 64, 128 (default threads) on rows of
// each macro-kernel: H100 fp16 (steps), MI100 fp16 (exact), MI250 fp32
// (FMA chain).
//
//   mmaemu-percall [--repeat R]
//
// Allocations are counted by this program's malloc (percall_alloc.c),
// which the shared libraries' calls reach too.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "mmaemu/mmaemu.h"

extern "C" unsigned long percall_allocations(void);  // percall_alloc.c

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Cost {
  double us = 0;       // median microseconds per call
  double allocs = 0;   // operator new calls per call (the last batch)
  bool ok = true;
};

// The median over `repeat` batches of `calls` calls of f (one warm-up batch).
template <typename F>
Cost measure(int repeat, int calls, F&& f) {
  Cost c;
  for (int i = 0; i < calls; ++i) c.ok = c.ok && f();
  std::vector<double> per;
  per.reserve(static_cast<std::size_t>(repeat));  // (no allocation of its own inside the count)
  for (int r = 0; r < repeat; ++r) {
    const unsigned long n0 = percall_allocations();
    const double t0 = now();
    for (int i = 0; i < calls; ++i) c.ok = c.ok && f();
    per.push_back((now() - t0) / calls * 1e6);
    c.allocs = static_cast<double>(percall_allocations() - n0) / calls;
  }
  std::sort(per.begin(), per.end());
  c.us = per[per.size() / 2];
  return c;
}

void report(const char* what, const Cost& c) {
  std::printf("%-40s %10.2f %10.1f%s\n", what, c.us, c.allocs, c.ok ? "" : "  (a call failed)");
}

}  // namespace

int main(int argc, char** argv) {
  int repeat = 15;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: mmaemu-percall [--repeat R]\n");
      return 2;
    }
  }
  std::printf("medians of %d batches of calls\n%-40s %10s %10s\n", repeat, "call", "us/call", "allocs");
  mmaemu_model* model = nullptr;
  int m = 0, n = 0, k = 0;
  if (mmaemu_model_lookup("H100", &model) != MMAEMU_OK ||
      mmaemu_tile_shape(model, MMAEMU_FP16, MMAEMU_FP32, &m, &n, &k) != MMAEMU_OK) {
    std::fprintf(stderr, "mmaemu-percall: %s\n", mmaemu_last_error());
    return 2;
  }
  std::mt19937 rng(7);
  std::vector<uint16_t> ta(static_cast<std::size_t>(m * k)), tb(static_cast<std::size_t>(k * n));
  for (uint16_t& x : ta) x = static_cast<uint16_t>(rng() & 0x3BFF);
  for (uint16_t& x : tb) x = static_cast<uint16_t>(rng() & 0xBBFF);
  std::vector<float> tc(static_cast<std::size_t>(m * n), 0.5f), td(tc.size());
  const std::string tile = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  report(("H100 fp16 mmaemu_tile " + tile).c_str(), measure(repeat, 2000, [&] {
           return mmaemu_tile(model, MMAEMU_FP16, MMAEMU_FP32, ta.data(), tb.data(), tc.data(), td.data()) ==
                  MMAEMU_OK;
         }));
  report(("H100 fp16 mmaemu_tile_batch 1 x " + tile).c_str(), measure(repeat, 2000, [&] {
           return mmaemu_tile_batch(model, MMAEMU_FP16, MMAEMU_FP32, 1, ta.data(), tb.data(), tc.data(), td.data(),
                                    1) == MMAEMU_OK;
         }));
  mmaemu_model_free(model);
  const struct {
    const char* model;
    const char* policy;
  } rows[] = {{"H100", "fp16"}, {"MI100", "fp16"}, {"MI250", "fp32"}};
  for (const auto& row : rows) {
    if (mmaemu_model_lookup(row.model, &model) != MMAEMU_OK) {
      std::fprintf(stderr, "mmaemu-percall: %s\n", mmaemu_last_error());
      return 2;
    }
    mmaemu_gemm_options opt;
    mmaemu_gemm_options_init(&opt);
    if (mmaemu_parse_policy(row.policy, &opt) != MMAEMU_OK) {
      std::fprintf(stderr, "mmaemu-percall: %s\n", mmaemu_last_error());
      return 2;
    }
    for (int s : {16, 32, 64, 128}) {
      std::vector<float> A(static_cast<std::size_t>(s * s)), B(A.size()), C(A.size());
      std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
      for (float& x : A) x = dist(rng);
      for (float& x : B) x = dist(rng);
      const int calls = std::max(4, (1 << 22) / (s * s * s));
      const std::string what = std::string(row.model) + " " + row.policy + " mmaemu_gemm n = " + std::to_string(s);
      report(what.c_str(), measure(repeat, calls, [&] {
               return mmaemu_gemm(model, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, s, s, s, 1.0,
                                  A.data(), s, B.data(), s, 0.0, C.data(), s) == MMAEMU_OK;
             }));
    }
    mmaemu_model_free(model);
  }
  return 0;
}
