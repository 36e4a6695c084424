// SPDX-License-Identifier: BSD-3-Clause
// An Eigen 3.4 program built with EIGEN_USE_BLAS: its float products go
// through sgemm_, which under LD_PRELOAD=libmmaemu.so must give the C API's
// bits.
#define EIGEN_USE_BLAS
#include <dlfcn.h>

#include <Eigen/Dense>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "mmaemu/mmaemu.h"

int main() {
  using Mat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic>;  // column-major
  Mat A = Mat::Random(70, 90), B = Mat::Random(90, 50);
  A *= 8.0f;
  Mat C = A * B;
  auto sgemm = reinterpret_cast<decltype(&mmaemu_sgemm)>(dlsym(RTLD_DEFAULT, "mmaemu_sgemm"));
  auto from_env = reinterpret_cast<decltype(&mmaemu_model_from_env)>(dlsym(RTLD_DEFAULT, "mmaemu_model_from_env"));
  auto model_free = reinterpret_cast<decltype(&mmaemu_model_free)>(dlsym(RTLD_DEFAULT, "mmaemu_model_free"));
  mmaemu_model* model = nullptr;
  if (!sgemm || !from_env || !model_free || from_env(&model) != 0) {
    std::fprintf(stderr, "libmmaemu is not preloaded\n");
    return 1;
  }
  Mat D(70, 50);
  sgemm(model, std::getenv("MMA_INPUT_FORMAT"), MMAEMU_COL_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 70, 50, 90, 1.0f,
        A.data(), 70, B.data(), 90, 0.0f, D.data(), 70);
  model_free(model);
  int bad = 0;
  for (int i = 0; i < C.size(); ++i) bad += std::memcmp(C.data() + i, D.data() + i, 4) != 0;
  std::printf("%d passed, %d failed\n", bad ? 0 : 1, bad ? 1 : 0);
  if (bad) std::fprintf(stderr, "Eigen A*B: %d elements differ from the C API\n", bad);
  return bad != 0;
}
