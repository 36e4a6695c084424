/* SPDX-License-Identifier: BSD-3-Clause */
/* lapack_test LIBLAPACK: reference LAPACK (Debian's liblapack3, loaded
 * from the path given) factorises under the preload, its sgemm_ and ssyrk_
 * calls emulated: sgetrf of a random 150 x 150 matrix and spotrf of a
 * positive-definite one must succeed (info = 0) with LAPACK's normal
 * residual, ||P L U - A||_1 / (n ||A||_1 eps) and ||U^T U - A||_1 / (n
 * ||A||_1 eps) below LAPACK's test threshold of 30. A wrong epilogue
 * (alpha (beta C + A B) for alpha A B + beta C) gives ratios near 10^7. */
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 150 };
typedef void (*getrf_fn)(const int*, const int*, float*, const int*, int*, int*);
typedef void (*potrf_fn)(const char*, const int*, float*, const int*, int*);

static unsigned g_seed = 27;
static double rnd(void) {
  g_seed = g_seed * 1103515245u + 12345u;
  return ((double)((g_seed >> 8) & 0xFFFF) - 32768.0) / 32768.0;
}

/* ||X||_1 of an N x N column-major matrix. */
static double norm1(const double* x) {
  double best = 0;
  for (int j = 0; j < N; ++j) {
    double s = 0;
    for (int i = 0; i < N; ++i) s += fabs(x[j * N + i]);
    if (s > best) best = s;
  }
  return best;
}

/* ||R - A||_1 / (N ||A||_1 eps) for the reconstruction R. */
static double ratio(const double* R, const float* A) {
  static double D[N * N], Ad[N * N];
  for (int i = 0; i < N * N; ++i) D[i] = R[i] - A[i], Ad[i] = A[i];
  return norm1(D) / (N * norm1(Ad) * FLT_EPSILON);
}

static double getrf_ratio(getrf_fn getrf, int* info) {
  static float A[N * N], F[N * N];
  static double R[N * N];
  static int ipiv[N];
  for (int i = 0; i < N * N; ++i) A[i] = (float)rnd();
  memcpy(F, A, sizeof A);
  const int n = N;
  getrf(&n, &n, F, &n, ipiv, info);
  /* R = P L U: L U, then the row interchanges undone in reverse. */
  for (int j = 0; j < N; ++j)
    for (int i = 0; i < N; ++i) {
      double s = 0;
      for (int l = 0; l <= (i < j ? i : j); ++l) s += (l == i ? 1.0 : (double)F[l * N + i]) * F[j * N + l];
      R[j * N + i] = s;
    }
  for (int i = N - 1; i >= 0; --i)
    if (ipiv[i] - 1 != i)
      for (int j = 0; j < N; ++j) {
        const double t = R[j * N + i];
        R[j * N + i] = R[j * N + ipiv[i] - 1], R[j * N + ipiv[i] - 1] = t;
      }
  return ratio(R, A);
}

static double potrf_ratio(potrf_fn potrf, int* info) {
  static float A[N * N], F[N * N];
  static double B[N * N], R[N * N];
  for (int i = 0; i < N * N; ++i) B[i] = rnd();
  for (int j = 0; j < N; ++j) /* A = B B^T + N I, rounded to fp32 */
    for (int i = 0; i < N; ++i) {
      double s = i == j ? N : 0;
      for (int l = 0; l < N; ++l) s += B[l * N + i] * B[l * N + j];
      A[j * N + i] = (float)s;
    }
  for (int j = 0; j < N; ++j) /* symmetric after rounding */
    for (int i = j + 1; i < N; ++i) A[j * N + i] = A[i * N + j];
  memcpy(F, A, sizeof A);
  const int n = N;
  potrf("U", &n, F, &n, info);
  for (int j = 0; j < N; ++j) /* R = U^T U from the upper triangle */
    for (int i = 0; i < N; ++i) {
      double s = 0;
      for (int l = 0; l <= (i < j ? i : j); ++l) s += (double)F[i * N + l] * F[j * N + l];
      R[j * N + i] = s;
    }
  return ratio(R, A);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: lapack_test LIBLAPACK\n");
    return 2;
  }
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
  getrf_fn getrf = lib ? (getrf_fn)dlsym(lib, "sgetrf_") : NULL;
  potrf_fn potrf = lib ? (potrf_fn)dlsym(lib, "spotrf_") : NULL;
  if (!getrf || !potrf) {
    fprintf(stderr, "lapack_test: %s\n", dlerror());
    return 2;
  }
  int failed = 0, info = 0;
  const double lu = getrf_ratio(getrf, &info);
  printf("sgetrf n = %d: info %d, ||PLU - A|| / (n ||A|| eps) = %.3g\n", N, info, lu);
  failed += info != 0 || !(lu < 30);
  const double ch = potrf_ratio(potrf, &info);
  printf("spotrf n = %d: info %d, ||U^T U - A|| / (n ||A|| eps) = %.3g\n", N, info, ch);
  failed += info != 0 || !(ch < 30);
  printf("lapack: %d passed, %d failed\n", 2 - failed, failed);
  fflush(stdout);  /* before the preloaded library's report at exit */
  return failed != 0;
}
