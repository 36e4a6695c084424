// SPDX-License-Identifier: BSD-3-Clause
#include "experiments/ozaki_exp.h"

#include <chrono>
#include <cmath>

#include "experiments/numerics.h"

namespace mmaemu::experiments {

Matrix ozaki_test_matrix(std::size_t rows, std::size_t cols, double phi, Rng& rng) {
  Matrix x(rows, cols);
  for (double& v : x.v) {
    const double u = rng.uniform01();
    v = (u - 0.5) * std::exp(phi * rng.normal());
  }
  return x;
}

namespace {

// Binary64 dot products in l order: the native GEMM of the experiment.
Matrix native_product(const Matrix& A, const Matrix& B) {
  Matrix C(A.rows, B.cols);
  for (std::size_t i = 0; i < A.rows; ++i)
    for (std::size_t j = 0; j < B.cols; ++j) {
      double s = 0;
      for (std::size_t l = 0; l < A.cols; ++l) s += A(i, l) * B(l, j);
      C(i, j) = s;
    }
  return C;
}

}  // namespace

OzakiRun run_ozaki(const OzakiUnit& unit, const std::string& scheme, const Matrix& A, const Matrix& B,
                   const Matrix& R, bool check, int threads) {
  OzakiRun run;
  run.unit = unit.label();
  run.scheme = scheme;
  run.count = scheme == "native" ? 0 : std::stoi(scheme.substr(7));
  run.n = A.rows;
  Matrix C(A.rows, B.cols);
  const auto t0 = std::chrono::steady_clock::now();
  if (unit.model == "native") {
    C = native_product(A, B);
  } else {
    mmaemu_model* model = nullptr;
    int status = mmaemu_model_lookup(unit.model.c_str(), &model);
    mmaemu_format input = MMAEMU_S8;
    if (status == MMAEMU_OK) status = mmaemu_format_parse(unit.input.c_str(), &input);
    if (status == MMAEMU_OK) {
      mmaemu_dgemm_options opt;
      mmaemu_dgemm_options_init(&opt);
      opt.scheme = scheme.c_str();
      opt.input = input;
      opt.threads = threads;
      opt.check = check ? 1 : 0;
      const int m = static_cast<int>(A.rows), n = static_cast<int>(B.cols), k = static_cast<int>(A.cols);
      status = mmaemu_dgemm_ex(model, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, m, n, k, 1.0,
                               A.v.data(), k, B.v.data(), n, 0.0, C.v.data(), n, &run.stats);
    }
    if (status != MMAEMU_OK) run.error = mmaemu_last_error();
    mmaemu_model_free(model);
    if (!run.error.empty()) return run;
  }
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  run.componentwise = componentwise_error(C, R);
  run.normwise = normwise_error_fro(C, R);
  return run;
}

}  // namespace mmaemu::experiments
