// SPDX-License-Identifier: BSD-3-Clause
// mmaemu-bench: emulated GEMM throughput as a ratio to OpenBLAS sgemm on the
// same matrices in the same run (never a timed test; see README).
//
//   mmaemu-bench [--model M] [--input F] [--n N[,N...]] [--threads T[,T...]]
//                [--csv FILE] [--repeat R] [--schedule S]
// --schedule runs every row under one schedule (promote:128, splitk:4, ...;
// a combination as in the C API); the rows then name it.
// The block-scaled rows (mxfp8, nvfp4: the shim's sgemm policies, through
// mmaemu_sgemm_block_scaled, quantisation timed) take --threads through
// MMA_NUM_THREADS.
#include <cblas.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "mmaemu/mmaemu.h"
#include "driver/fast_dot.h"
#include "models/model.h"
#include "ref/reference.h"

extern "C" void openblas_set_num_threads(int);

namespace {

// A model name may be MODEL@INSTR: that instruction's rows, not the GEMM
// defaults (lookup_model).
struct Case {
  std::string model, input;
  int max_n = 0;  // the default sizes above this are skipped (0: none)
};

bool block_scaled_policy(const std::string& input) {
  mmaemu_block_scale_desc desc;
  return mmaemu_parse_block_scaled_policy(input.c_str(), &desc) == MMAEMU_OK;
}

// The representative rows of the fast-engine issue.
const std::vector<Case> kDefaultCases = {
    {"H100", "fp16"},  {"H100", "tf32"},  {"B200", "bf16"},   {"A100", "fp16"},
    {"V100", "fp16"},  {"L40S", "e4m3"},  {"MI300X", "fp16"}, {"MI300X", "fp8"},
    {"MI250", "fp16"}, {"MI100", "fp16"}, {"MI250", "fp32"},
    {"H100@mma.sync", "e4m3"},  // the interleaved HMMA fp8 path (docs/models.md §2.12)
    {"B200", "mxfp8"}, {"B200", "nvfp4"},  // block-scaled
};

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double peak_rss_mib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

std::vector<int> int_list(const char* s) {
  std::vector<int> v;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) v.push_back(std::atoi(item.c_str()));
  return v;
}

// Best-of-r wall time of f().
template <typename F>
double best_time(int r, F&& f) {
  double best = 1e300;
  for (int i = 0; i < r; ++i) {
    const double t0 = now();
    f();
    best = std::min(best, now() - t0);
  }
  return best;
}

// Dot products per second of the reference engine and of the fast engine
// (one thread), H100 fp16 -> fp32, k = 16: the unit of a validation campaign.
void engine_throughput() {
  const mmaemu::Model model = mmaemu::lookup_model("H100");
  const mmaemu::ModelRow& row = *model.find(mmaemu::Fmt::fp16, mmaemu::Fmt::fp32);
  std::mt19937_64 rng(1);
  const int dots = 20000, k = 16;
  std::vector<uint64_t> a(dots * k), b(dots * k);
  for (auto& x : a) x = rng() & 0x7BFF;
  for (auto& x : b) x = rng() & 0xFBFF;
  uint64_t sink = 0;
  const double t_ref = best_time(1, [&] {
    for (int i = 0; i < dots; ++i) sink += mmaemu::ref::dot(row, k, &a[i * k], &b[i * k], 0);
  });
  // The fast engine as `mmaemu validate` runs it: independent samples.
  std::vector<uint64_t> c(dots, 0), d(dots);
  const double t_fast = best_time(3, [&] {
    mmaemu::driver::fast_dot_batch(row, dots, k, a.data(), b.data(), c.data(), d.data(), 1);
  });
  for (int i = 0; i < dots; ++i) sink += d[i];
  std::printf("validation engine (H100 fp16->fp32, k = 16, 1 thread): reference %.3g dot/s, fast %.3g dot/s%s\n",
              dots / t_ref, dots / t_fast, sink == 42 ? " " : "");
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Case> cases = kDefaultCases;
  std::string only_model, only_input, csv_file, schedule;
  std::vector<int> sizes = {256, 1024, 2048, 4096}, threads = {1, 2};
  int repeat = 0;
  bool sizes_given = false;
  for (int i = 1; i < argc; ++i) {
    auto arg = [&](const char* name) { return std::strcmp(argv[i], name) == 0 && i + 1 < argc; };
    if (arg("--model")) only_model = argv[++i];
    else if (arg("--input")) only_input = argv[++i];
    else if (arg("--n")) sizes = int_list(argv[++i]), sizes_given = true;
    else if (arg("--threads")) threads = int_list(argv[++i]);
    else if (arg("--csv")) csv_file = argv[++i];
    else if (arg("--repeat")) repeat = std::atoi(argv[++i]);
    else if (arg("--schedule")) schedule = argv[++i];
    else {
      std::fprintf(stderr,
                   "usage: mmaemu-bench [--model M] [--input F] [--n N,...] [--threads T,...] "
                   "[--csv FILE] [--repeat R] [--schedule S]\n");
      return 2;
    }
  }
  if (!only_model.empty() || !only_input.empty()) {
    std::vector<Case> sel;
    for (const Case& c : cases)
      if ((only_model.empty() || c.model == only_model) && (only_input.empty() || c.input == only_input))
        sel.push_back(c);
    if (sel.empty()) sel.push_back({only_model.empty() ? "H100" : only_model, only_input.empty() ? "fp16" : only_input});
    cases = sel;
  }
  if (!schedule.empty()) {  // a block-scaled row has no schedule to run under
    std::erase_if(cases, [](const Case& c) { return block_scaled_policy(c.input); });
    if (cases.empty()) {
      std::fprintf(stderr, "mmaemu-bench: --schedule does not apply to the block-scaled policies\n");
      return 2;
    }
  }

  FILE* csv = csv_file.empty() ? nullptr : std::fopen(csv_file.c_str(), "w");
  if (!csv_file.empty() && !csv) {
    std::fprintf(stderr, "mmaemu-bench: cannot write %s\n", csv_file.c_str());
    return 2;
  }
  if (csv) std::fprintf(csv, "model,input,output,n,threads,gflops,openblas_gflops,ratio,peak_rss_mib\n");
  std::printf("%-13s %-6s %-6s %6s %7s %10s %16s %9s %13s\n", "model", "input", "output", "n", "threads",
              "GFLOP/s", "OpenBLAS GFLOP/s", "ratio", "peak RSS MiB");

  std::mt19937_64 rng(2026);
  for (int n : sizes) {
    std::vector<float> A(static_cast<std::size_t>(n) * n), B(A.size()), C(A.size());
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float& x : A) x = dist(rng);
    for (float& x : B) x = dist(rng);
    const double flops = 2.0 * n * static_cast<double>(n) * n;
    for (int t : threads) {
      openblas_set_num_threads(t);
      const int r = repeat > 0 ? repeat : (n <= 1024 ? 3 : 1);
      const double t_blas = best_time(r + 1, [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A.data(), n, B.data(), n, 0.0f,
                    C.data(), n);
      });
      for (const Case& c : cases) {
        if (c.max_n && !sizes_given && n > c.max_n) continue;
        mmaemu_model* h = nullptr;
        if (mmaemu_model_lookup(c.model.c_str(), &h) != MMAEMU_OK) {
          std::fprintf(stderr, "mmaemu-bench: %s\n", mmaemu_last_error());
          return 2;
        }
        mmaemu_gemm_options opt;
        mmaemu_gemm_options_init(&opt);
        const bool scaled = block_scaled_policy(c.input);
        if (!scaled && mmaemu_parse_policy(c.input.c_str(), &opt) != MMAEMU_OK) {
          std::fprintf(stderr, "mmaemu-bench: %s\n", mmaemu_last_error());
          return 2;
        }
        opt.threads = t;
        if (scaled) setenv("MMA_NUM_THREADS", std::to_string(t).c_str(), 1);  // the sgemm policy path has no options
        opt.schedule = schedule.empty() ? nullptr : schedule.c_str();
        int status = MMAEMU_OK;
        const double t_emu = best_time(r, [&] {
          status = scaled ? mmaemu_sgemm_block_scaled(h, c.input.c_str(), MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS,
                                                      MMAEMU_NO_TRANS, n, n, n, 1.0f, A.data(), n, B.data(), n,
                                                      0.0f, C.data(), n)
                          : mmaemu_gemm(h, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, n, n, n, 1.0,
                                        A.data(), n, B.data(), n, 0.0, C.data(), n);
        });
        mmaemu_model_free(h);
        if (status != MMAEMU_OK) {
          std::fprintf(stderr, "mmaemu-bench: %s %s: %s\n", c.model.c_str(), c.input.c_str(), mmaemu_last_error());
          return 2;
        }
        const double g = flops / t_emu * 1e-9, gb = flops / t_blas * 1e-9;
        const char* out = "fp32";
        const std::string name = schedule.empty() ? c.model : c.model + " " + schedule;
        std::printf("%-13s %-6s %-6s %6d %7d %10.3f %16.2f %9.4f %13.1f\n", name.c_str(), c.input.c_str(), out,
                    n, t, g, gb, g / gb, peak_rss_mib());
        std::fflush(stdout);
        if (csv)
          std::fprintf(csv, "%s,%s,%s,%d,%d,%.4f,%.3f,%.5f,%.1f\n", name.c_str(), c.input.c_str(), out, n, t, g,
                       gb, g / gb, peak_rss_mib());
      }
    }
  }
  engine_throughput();
  if (csv) std::fclose(csv);
  return 0;
}
