/* SPDX-License-Identifier: BSD-3-Clause */
/* The C API for fortran_test.f90, found at run time in the preloaded library. */
#include <dlfcn.h>
#include <stdlib.h>

#include "mmaemu/mmaemu.h"

int api_sgemm_col(char ta, char tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b,
                  int ldb, float beta, float* c, int ldc) {
  int (*from_env)(mmaemu_model**) = (int (*)(mmaemu_model**))dlsym(RTLD_DEFAULT, "mmaemu_model_from_env");
  void (*model_free)(mmaemu_model*) = (void (*)(mmaemu_model*))dlsym(RTLD_DEFAULT, "mmaemu_model_free");
  int (*sgemm)(const mmaemu_model*, const char*, mmaemu_layout, mmaemu_transpose, mmaemu_transpose, int, int, int,
               float, const float*, int, const float*, int, float, float*, int) =
      (int (*)(const mmaemu_model*, const char*, mmaemu_layout, mmaemu_transpose, mmaemu_transpose, int, int, int,
               float, const float*, int, const float*, int, float, float*, int))dlsym(RTLD_DEFAULT, "mmaemu_sgemm");
  mmaemu_model* model = NULL;
  if (!from_env || !model_free || !sgemm || from_env(&model) != 0) return -100;
  const int status = sgemm(model, getenv("MMA_INPUT_FORMAT"), MMAEMU_COL_MAJOR, ta == 'N' ? MMAEMU_NO_TRANS : MMAEMU_TRANS,
                           tb == 'N' ? MMAEMU_NO_TRANS : MMAEMU_TRANS, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  model_free(model);
  return status;
}
