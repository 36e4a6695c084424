// SPDX-License-Identifier: BSD-3-Clause
// mmaemu-bench --batch: dot products per second of the batched engine
// (mmaemu_dot_batch, mmaemu_dot_batch_block_scaled) from in-memory arrays
// of random codes, per thread count; median and range of the repeats.
#include "batch_rows.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "mmaemu/mmaemu.h"

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
// The process's CPU time (all threads): per-core rates that hold on a busy machine.
double cpu_now() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

struct BatchRow {
  const char* model;
  mmaemu_format input, output;
  int k;
  const char* block_scaled;  // a block-scaled policy ("mxfp8", "nvfp4"), or null
};

const BatchRow kRows[] = {
    {"H100", MMAEMU_FP16, MMAEMU_FP32, 16, nullptr},   {"H100", MMAEMU_BF16, MMAEMU_FP32, 16, nullptr},
    {"H100", MMAEMU_FP16, MMAEMU_FP16, 16, nullptr},   {"A100", MMAEMU_FP16, MMAEMU_FP32, 16, nullptr},
    {"H100", MMAEMU_E4M3, MMAEMU_FP32, 32, nullptr},   {"B200", MMAEMU_E4M3, MMAEMU_FP32, 32, nullptr},
    {"B200@mma.sync", MMAEMU_E4M3, MMAEMU_FP32, 32, nullptr},
    {"MI300X", MMAEMU_E4M3FNUZ, MMAEMU_FP32, 32, nullptr},
    {"MI100", MMAEMU_FP16, MMAEMU_FP32, 16, nullptr},  {"MI250", MMAEMU_FP16, MMAEMU_FP32, 16, nullptr},
    {"MI300X", MMAEMU_FP16, MMAEMU_FP32, 16, nullptr}, {"MI300X", MMAEMU_BF16, MMAEMU_FP32, 16, nullptr},
    {"H100", MMAEMU_TF32, MMAEMU_FP32, 8, nullptr},    {"MI250", MMAEMU_FP32, MMAEMU_FP32, 4, nullptr},
    {"B200", MMAEMU_E4M3, MMAEMU_FP32, 32, "mxfp8"},   {"B200", MMAEMU_E2M1, MMAEMU_FP32, 64, "nvfp4"},
};

// Random codes of the format: finite values of every exponent.
std::vector<uint8_t> random_codes(mmaemu_format f, std::size_t n, std::mt19937_64& rng) {
  const int bytes = mmaemu_format_storage_bytes(f);
  std::vector<uint8_t> v(n * bytes);
  std::vector<double> x(n);
  std::uniform_real_distribution<double> u(-3, 3);
  std::uniform_int_distribution<int> e(-6, 6);
  for (double& d : x) d = u(rng) * std::ldexp(1.0, e(rng));
  if (f == MMAEMU_E2M1) {  // every code is finite
    for (uint8_t& c : v) c = static_cast<uint8_t>(rng() & 0xF);
    return v;
  }
  if (f == MMAEMU_E4M3 || f == MMAEMU_E5M2 || f == MMAEMU_E4M3FNUZ || f == MMAEMU_E5M2FNUZ)
    mmaemu_convert(MMAEMU_FP64, f, x.data(), v.data(), n, MMAEMU_RNE, 1);
  else mmaemu_convert(MMAEMU_FP64, f, x.data(), v.data(), n, MMAEMU_RNE, 0);
  return v;
}

}  // namespace

int batch_throughput(const std::vector<int>& threads, int repeat, const std::string& only_model) {
  std::printf("%-14s %-9s %-6s %4s %7s %12s %14s %24s\n", "model", "input", "output", "k", "threads", "dot/s",
              "dot/cpu-second", "range (dot/cpu-second)");
  std::mt19937_64 rng(2026);
  const std::size_t count = 1 << 20;
  for (const BatchRow& r : kRows) {
    if (!only_model.empty() && only_model != r.model) continue;
    mmaemu_model* h = nullptr;
    if (mmaemu_model_lookup(r.model, &h) != MMAEMU_OK) {
      std::fprintf(stderr, "mmaemu-bench: %s\n", mmaemu_last_error());
      return 2;
    }
    const std::size_t n = count * static_cast<std::size_t>(r.k);
    const std::vector<uint8_t> a = random_codes(r.input, n, rng), b = random_codes(r.input, n, rng);
    std::vector<uint8_t> sa(count * 4, 0x7F), sb(count * 4, 0x7F);  // UE8M0 1.0 (ue4m3: see below)
    mmaemu_block_scale_desc desc;
    if (r.block_scaled) {
      mmaemu_parse_block_scaled_policy(r.block_scaled, &desc);
      if (desc.scale_format == MMAEMU_UE4M3) std::fill(sa.begin(), sa.end(), 0x38), std::fill(sb.begin(), sb.end(), 0x38);
    }
    std::vector<uint8_t> c(count * 8, 0), d(count * 8);
    for (int t : threads) {
      std::vector<double> rates, cpu_rates;
      int status = MMAEMU_OK;
      for (int i = 0; i < std::max(repeat, 1) + 1; ++i) {
        const double t0 = now(), c0 = cpu_now();
        status = r.block_scaled ? mmaemu_dot_batch_block_scaled(h, &desc, r.output, count, r.k, a.data(), sa.data(),
                                                                b.data(), sb.data(), c.data(), d.data(), t)
                                : mmaemu_dot_batch(h, r.input, r.output, count, r.k, a.data(), b.data(), c.data(),
                                                   d.data(), t);
        const double wall = now() - t0, cpu = cpu_now() - c0;
        if (i > 0) {  // the first call warms up
          rates.push_back(static_cast<double>(count) / wall);
          cpu_rates.push_back(static_cast<double>(count) / cpu);
        }
      }
      if (status != MMAEMU_OK) {
        std::fprintf(stderr, "mmaemu-bench: %s: %s\n", r.model, mmaemu_last_error());
        mmaemu_model_free(h);
        return 2;
      }
      std::sort(rates.begin(), rates.end());
      std::sort(cpu_rates.begin(), cpu_rates.end());
      const double med = rates[rates.size() / 2], cpu_med = cpu_rates[cpu_rates.size() / 2];
      char range[64];
      std::snprintf(range, sizeof range, "%.3g .. %.3g", cpu_rates.front(), cpu_rates.back());
      const std::string in = r.block_scaled ? r.block_scaled : mmaemu_format_name(r.input);
      std::printf("%-14s %-9s %-6s %4d %7d %12.3g %14.3g %24s\n", r.model, in.c_str(), mmaemu_format_name(r.output),
                  r.k, t, med, cpu_med, range);
      std::fflush(stdout);
    }
    mmaemu_model_free(h);
  }
  return 0;
}
