// SPDX-License-Identifier: BSD-3-Clause
#include "dgemm_rows.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>

#include "mmaemu/mmaemu.h"

extern "C" void openblas_set_num_threads(int);

namespace {

template <typename F>
double best_seconds(int repeat, F f) {
  double best = 1e300;
  for (int r = 0; r < repeat; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

}  // namespace

int dgemm_rows(const std::vector<std::string>& schemes, const std::string& model_name, const std::string& input,
               const std::vector<int>& sizes, const std::vector<int>& threads, int repeat) {
  mmaemu_model* model = nullptr;
  mmaemu_format unit = MMAEMU_S8;
  if (mmaemu_model_lookup(model_name.c_str(), &model) != MMAEMU_OK ||
      mmaemu_format_parse(input.c_str(), &unit) != MMAEMU_OK) {
    std::fprintf(stderr, "mmaemu-bench: --dgemm: %s\n", mmaemu_last_error());
    mmaemu_model_free(model);
    return 2;
  }
  std::printf("%-12s %-13s %6s %7s %12s %15s %9s\n", "scheme", "unit", "n", "threads", "seconds", "OpenBLAS dgemm",
              "ratio");
  std::mt19937_64 rng(2026);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::normal_distribution<double> g(0.0, 1.0);
  int status = 0;
  for (int n : sizes) {
    const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
    std::vector<double> A(nn), B(nn), C(nn);
    for (double& x : A) x = (u(rng) - 0.5) * std::exp(g(rng));  // the papers' matrices, phi = 1
    for (double& x : B) x = (u(rng) - 0.5) * std::exp(g(rng));
    for (int t : threads) {
      openblas_set_num_threads(t);
      const double blas = best_seconds(repeat + 1, [&] {
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, A.data(), n, B.data(), n, 0.0, C.data(),
                    n);
      });
      for (const std::string& scheme : schemes) {
        mmaemu_dgemm_options opt;
        mmaemu_dgemm_options_init(&opt);
        opt.scheme = scheme.c_str();
        opt.input = unit;
        opt.threads = t;
        const double emu = best_seconds(repeat, [&] {
          if (mmaemu_dgemm_ex(model, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, n, n, n, 1.0, A.data(), n,
                              B.data(), n, 0.0, C.data(), n, nullptr) != MMAEMU_OK && status == 0) {
            std::fprintf(stderr, "mmaemu-bench: --dgemm %s: %s\n", scheme.c_str(), mmaemu_last_error());
            status = 2;
          }
        });
        if (status) break;
        const std::string label = model_name + " " + input;
        std::printf("%-12s %-13s %6d %7d %12.3f %15.3f %9.1f\n", scheme.c_str(), label.c_str(), n, t, emu, blas,
                    emu / blas);
        std::fflush(stdout);
      }
      if (status) break;
    }
    if (status) break;
  }
  mmaemu_model_free(model);
  return status;
}
