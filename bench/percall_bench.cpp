// SPDX-License-Identifier: BSD-3-Clause
// mmaemu-percall: the per-call cost of small products through the public C
// API (docs/performance.md, "Per-call cost"): microseconds per call (the
// median over repeats of a batch of calls) and C++ allocations per call,
// for one 16 x 8 x 16 tile (mmaemu_tile, and mmaemu_tile_batch of one
// tile) and mmaemu_gemm at n = 16, 32, 64, 128 (default threads).
//
//   mmaemu-percall [--model M] [--repeat R]
//
// Allocations are counted by this program's operator new, which the shared
// library's calls reach too (the dynamic linker binds them to it).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "mmaemu/mmaemu.h"

namespace {
std::atomic<unsigned long> g_news{0};
}  // namespace

void* operator new(std::size_t size) {
  g_news.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(size ? size : 1)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void* operator new(std::size_t size, std::align_val_t align) {
  g_news.fetch_add(1, std::memory_order_relaxed);
  const std::size_t a = static_cast<std::size_t>(align);
  if (void* p = std::aligned_alloc(a, (size + a - 1) / a * a)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size, std::align_val_t align) { return operator new(size, align); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { std::free(p); }

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
  for (int r = 0; r < repeat; ++r) {
    const unsigned long n0 = g_news.load();
    const double t0 = now();
    for (int i = 0; i < calls; ++i) c.ok = c.ok && f();
    per.push_back((now() - t0) / calls * 1e6);
    c.allocs = static_cast<double>(g_news.load() - n0) / calls;
  }
  std::sort(per.begin(), per.end());
  c.us = per[per.size() / 2];
  return c;
}

void report(const char* what, const Cost& c) {
  std::printf("%-34s %10.2f %10.1f%s\n", what, c.us, c.allocs, c.ok ? "" : "  (a call failed)");
}

}  // namespace

int main(int argc, char** argv) {
  std::string model_name = "H100";
  int repeat = 15;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--model") && i + 1 < argc) model_name = argv[++i];
    else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::max(1, std::atoi(argv[++i]));
    else {
      std::fprintf(stderr, "usage: mmaemu-percall [--model M] [--repeat R]\n");
      return 2;
    }
  }
  mmaemu_model* model = nullptr;
  if (mmaemu_model_lookup(model_name.c_str(), &model) != MMAEMU_OK) {
    std::fprintf(stderr, "mmaemu-percall: %s\n", mmaemu_last_error());
    return 2;
  }
  std::printf("%s fp16 -> fp32; medians of %d batches\n%-34s %10s %10s\n", model_name.c_str(), repeat, "call",
              "us/call", "allocs");
  int m = 0, n = 0, k = 0;
  if (mmaemu_tile_shape(model, MMAEMU_FP16, MMAEMU_FP32, &m, &n, &k) != MMAEMU_OK) {
    std::fprintf(stderr, "mmaemu-percall: %s\n", mmaemu_last_error());
    return 2;
  }
  std::mt19937 rng(7);
  std::vector<uint16_t> ta(static_cast<std::size_t>(m * k)), tb(static_cast<std::size_t>(k * n));
  for (uint16_t& x : ta) x = static_cast<uint16_t>(rng() & 0x3BFF);
  for (uint16_t& x : tb) x = static_cast<uint16_t>(rng() & 0xBBFF);
  std::vector<float> tc(static_cast<std::size_t>(m * n), 0.5f), td(tc.size());
  const std::string tile = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  report(("mmaemu_tile " + tile).c_str(), measure(repeat, 2000, [&] {
           return mmaemu_tile(model, MMAEMU_FP16, MMAEMU_FP32, ta.data(), tb.data(), tc.data(), td.data()) ==
                  MMAEMU_OK;
         }));
  report(("mmaemu_tile_batch 1 x " + tile).c_str(), measure(repeat, 2000, [&] {
           return mmaemu_tile_batch(model, MMAEMU_FP16, MMAEMU_FP32, 1, ta.data(), tb.data(), tc.data(), td.data(),
                                    1) == MMAEMU_OK;
         }));
  mmaemu_gemm_options opt;
  mmaemu_gemm_options_init(&opt);
  for (int s : {16, 32, 64, 128}) {
    std::vector<float> A(static_cast<std::size_t>(s * s)), B(A.size()), C(A.size());
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float& x : A) x = dist(rng);
    for (float& x : B) x = dist(rng);
    const int calls = std::max(4, (1 << 22) / (s * s * s));
    report(("mmaemu_gemm n = " + std::to_string(s)).c_str(), measure(repeat, calls, [&] {
             return mmaemu_gemm(model, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, s, s, s, 1.0,
                                A.data(), s, B.data(), s, 0.0, C.data(), s) == MMAEMU_OK;
           }));
  }
  mmaemu_model_free(model);
  return 0;
}
