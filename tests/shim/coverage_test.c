/* SPDX-License-Identifier: BSD-3-Clause */
/* The shim's gemv (MMA_GEMV=model: bit-equal to the C API's GEMM with n = 1,
 * strides and row-major included; reference-BLAS error numbers) and its
 * counting forwarders (strsm, sger, ssymv reach the system BLAS and give the
 * right results; MMA_VERBOSE=1 lists them: checked by the ctest regex).
 * Run under LD_PRELOAD=libmmaemu.so with MMA_MODEL set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmaemu/mmaemu.h"

void sgemm(const char*, const char*, const int*, const int*, const int*, const float*, const float*, const int*,
           const float*, const int*, const float*, float*, const int*);
void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*, const float*, const int*,
            const float*, const int*, const float*, float*, const int*);
void sgemv_(const char*, const int*, const int*, const float*, const float*, const int*, const float*, const int*,
            const float*, float*, const int*);
void cblas_sgemv(int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
void strsm_(const char*, const char*, const char*, const char*, const int*, const int*, const float*, const float*,
            const int*, float*, const int*);
void cblas_sger(int, int, int, float, const float*, int, const float*, int, float*, int);
void ssymv_(const char*, const int*, const float*, const float*, const int*, const float*, const int*, const float*,
            float*, const int*);

static int calls, last_info, failures, checks;
void xerbla_(const char* name, const int* info, int len) {
  (void)name;
  (void)len;
  ++calls;
  last_info = *info;
}

enum { M = 37, N = 53 };
static float A[M * N], x[2 * N + 2 * M], y[M + N], want[M + N];

static unsigned bits(float f) {
  unsigned u;
  memcpy(&u, &f, 4);
  return u;
}

/* y (length rows, stride incy) against want (contiguous). */
static void compare(const char* what, int rows, int incy) {
  ++checks;
  for (int i = 0; i < rows; ++i) {
    const float got = y[incy > 0 ? i * incy : (i - (rows - 1)) * incy];
    if (bits(got) != bits(want[i])) {
      ++failures;
      printf("%s: y[%d] = %08x, C API %08x\n", what, i, bits(got), bits(want[i]));
      return;
    }
  }
}

/* want = alpha op(A) xc + beta yc through the C API, column-major, n = 1. */
static void api_gemv(mmaemu_model* model, int trans, float alpha, const float* xc, float beta, const float* yc) {
  const int rows = trans ? N : M, cols = trans ? M : N;
  memcpy(want, yc, sizeof(float) * rows);
  if (mmaemu_sgemm(model, getenv("MMA_INPUT_FORMAT"), MMAEMU_COL_MAJOR, trans ? MMAEMU_TRANS : MMAEMU_NO_TRANS,
                   MMAEMU_NO_TRANS, rows, 1, cols, alpha, A, M, xc, cols, beta, want, rows) != MMAEMU_OK) {
    printf("C API: %s\n", mmaemu_last_error());
    exit(1);
  }
}

static void check_gemv(mmaemu_model* model) {
  const float alpha = 1.5f, beta = -0.75f;
  float xc[N + M], yc[M + N];
  for (int t = 0; t < 2; ++t) {
    const int rows = t ? N : M, cols = t ? M : N, incx = 2, incy = -1;
    for (int i = 0; i < cols; ++i) xc[i] = x[i * incx];
    for (int i = 0; i < rows; ++i) yc[i] = y[(i - (rows - 1)) * incy] = (float)(i % 7) - 3.0f;
    api_gemv(model, t, alpha, xc, beta, yc);
    const int m = M, n = N, lda = M;
    sgemv_(t ? "T" : "N", &m, &n, &alpha, A, &lda, x, &incx, &beta, y, &incy);
    compare(t ? "sgemv_ T" : "sgemv_ N", rows, incy);
    /* Row-major: A (M x N column-major) is the row-major N x M matrix A^T. */
    for (int i = 0; i < rows; ++i) y[i] = yc[i];
    cblas_sgemv(101, t ? 111 : 112, N, M, alpha, A, M, xc, 1, beta, y, 1);
    compare(t ? "cblas_sgemv row-major N" : "cblas_sgemv row-major T", rows, 1);
  }
}

/* Reference-BLAS error numbers of the emulated gemv; y untouched. */
static void chk(int info, int expect, const char* what) {
  ++checks;
  if (calls != 1 || last_info != expect) {
    ++failures;
    printf("%s: xerbla_ called %d times, info %d, expected %d\n", what, calls, last_info, expect);
  }
  (void)info;
  calls = 0;
}
static void check_errors(void) {
  const float one = 1.0f;
  int m = M, n = N, lda = M, inc = 1, bad = -1, zero = 0, small = M - 1;
  sgemv_("X", &m, &n, &one, A, &lda, x, &inc, &one, y, &inc), chk(0, 1, "sgemv_ trans");
  sgemv_("N", &bad, &n, &one, A, &lda, x, &inc, &one, y, &inc), chk(0, 2, "sgemv_ m");
  sgemv_("N", &m, &bad, &one, A, &lda, x, &inc, &one, y, &inc), chk(0, 3, "sgemv_ n");
  sgemv_("N", &m, &n, &one, A, &small, x, &inc, &one, y, &inc), chk(0, 6, "sgemv_ lda");
  sgemv_("N", &m, &n, &one, A, &lda, x, &zero, &one, y, &inc), chk(0, 8, "sgemv_ incx");
  sgemv_("N", &m, &n, &one, A, &lda, x, &inc, &one, y, &zero), chk(0, 11, "sgemv_ incy");
  if (getenv("MMA_GEMV") && strcmp(getenv("MMA_GEMV"), "model") == 0) { /* the reference CBLAS numbering */
    cblas_sgemv(7, 111, M, N, 1, A, M, x, 1, 1, y, 1), chk(0, 1, "cblas_sgemv order");
    cblas_sgemv(102, 7, M, N, 1, A, M, x, 1, 1, y, 1), chk(0, 2, "cblas_sgemv trans");
    cblas_sgemv(102, 111, -1, N, 1, A, M, x, 1, 1, y, 1), chk(0, 3, "cblas_sgemv M");
    cblas_sgemv(101, 111, M, -1, 1, A, N, x, 1, 1, y, 1), chk(0, 4, "cblas_sgemv row-major N");
    cblas_sgemv(101, 111, M, N, 1, A, N - 1, x, 1, 1, y, 1), chk(0, 7, "cblas_sgemv row-major lda");
    cblas_sgemv(102, 111, M, N, 1, A, M, x, 0, 1, y, 1), chk(0, 9, "cblas_sgemv incX");
    cblas_sgemv(102, 111, M, N, 1, A, M, x, 1, 1, y, 0), chk(0, 12, "cblas_sgemv incY");
  }
}

/* Forwarded routines still compute: a triangular solve undone by a product. */
static void check_forwarded(void) {
  float T[16] = {2, 0, 0, 0, 1, 4, 0, 0, -1, 2, 8, 0, 3, 1, 1, 2}, b[4] = {1, 2, 3, 4}, r[4] = {0};
  const int n = 4, one_i = 1;
  const float one = 1.0f, zero = 0.0f;
  strsm_("L", "U", "N", "N", &n, &one_i, &one, T, &n, b, &n);
  float Ts[16];
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 4; ++i) Ts[j * 4 + i] = i <= j ? T[j * 4 + i] : T[i * 4 + j];
  ssymv_("U", &n, &one, Ts, &n, b, &one_i, &zero, r, &one_i); /* only to be counted */
  float G[4] = {0};
  cblas_sger(102, 2, 2, 1.0f, b, 1, b, 1, G, 2);
  ++checks;
  if (G[0] != b[0] * b[0] || !(b[3] == 2.0f)) {
    ++failures;
    printf("forwarded strsm/sger: wrong results\n");
  }
}

/* The bare Fortran name (some ScaLAPACK builds call it) is sgemm_. */
static void check_bare_sgemm(void) {
  static float c1[M * M], c2[M * M];
  const int m = M, k = N;
  const float one = 1.0f, zero = 0.0f;
  sgemm("N", "T", &m, &m, &k, &one, A, &m, A, &m, &zero, c1, &m);
  sgemm_("N", "T", &m, &m, &k, &one, A, &m, A, &m, &zero, c2, &m);
  ++checks;
  if (memcmp(c1, c2, sizeof c1) != 0) {
    ++failures;
    printf("sgemm and sgemm_ differ\n");
  }
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0); /* the verdict before the shim's report at exit */
  mmaemu_model* model;
  if (mmaemu_model_from_env(&model) != MMAEMU_OK) {
    printf("%s\n", mmaemu_last_error());
    return 1;
  }
  srand(2026);
  for (int i = 0; i < M * N; ++i) A[i] = (float)(rand() % 2001 - 1000) / 64.0f;
  for (int i = 0; i < 2 * N + 2 * M; ++i) x[i] = (float)(rand() % 2001 - 1000) / 1024.0f;
  if (getenv("MMA_GEMV") && strcmp(getenv("MMA_GEMV"), "model") == 0) check_gemv(model);
  check_errors();
  check_forwarded();
  check_bare_sgemm();
  mmaemu_model_free(model);
  printf("%d passed, %d failed\n", checks - failures, failures);
  return failures != 0;
}
