/* SPDX-License-Identifier: BSD-3-Clause */
/* lapack_test LIBLAPACK: reference LAPACK (Debian's liblapack3, loaded
 * from the path given) factorises under the preload, its sgemm_ and ssyrk_
 * calls emulated: sgetrf of a random 150 x 150 matrix and spotrf of a
 * positive-definite one must succeed (info = 0) with LAPACK's normal
 * residual, ||P L U - A||_1 / (n ||A||_1 eps) and ||U^T U - A||_1 / (n
 * ||A||_1 eps) below LAPACK's test threshold of 30; so must sgeqrf of a
 * random 256 x 192 matrix, Q formed by sorgqr: ||Q R - A||_1 / (m ||A||_1
 * eps) and ||Q^T Q - I||_1 / (m eps) (LAPACK's sqrt01 ratios).
 * sgetrf's and spotrf's sgemm calls all have alpha = -1, beta = 1; slarfb
 * (sgeqrf's and sorgqr's blocked steps) also calls sgemm with alpha = beta
 * = 1 (W := W + C2^T V2), the case where accumulate-into-c starts the
 * chain from beta C. A wrong epilogue (alpha (beta C + A B) for alpha A B +
 * beta C) turns every alpha = -1 update into -(C + A B): ratios near 10^7. */
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = 150, QM = 256, QN = 192 };
typedef void (*getrf_fn)(const int*, const int*, float*, const int*, int*, int*);
typedef void (*potrf_fn)(const char*, const int*, float*, const int*, int*);
typedef void (*geqrf_fn)(const int*, const int*, float*, const int*, float*, float*, const int*, int*);
typedef void (*orgqr_fn)(const int*, const int*, const int*, float*, const int*, const float*, float*, const int*,
                         int*);

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

/* ||X||_1 of an m x n column-major matrix. */
static double norm1_mn(const double* x, int m, int n) {
  double best = 0;
  for (int j = 0; j < n; ++j) {
    double s = 0;
    for (int i = 0; i < m; ++i) s += fabs(x[(size_t)j * m + i]);
    if (s > best) best = s;
  }
  return best;
}

/* sgeqrf of a random QM x QN matrix, Q (QM x QN) by sorgqr: `res` =
 * ||Q R - A||_1 / (QM ||A||_1 eps), `orth` = ||Q^T Q - I||_1 / (QM eps). */
static void geqrf_ratios(geqrf_fn geqrf, orgqr_fn orgqr, int* info, double* res, double* orth) {
  static float A[QM * QN], F[QM * QN], tau[QN], work[64 * QN];
  static double D[QM * QN], Ad[QM * QN], O[QN * QN];
  for (int i = 0; i < QM * QN; ++i) A[i] = (float)rnd();
  memcpy(F, A, sizeof A);
  const int m = QM, n = QN, lwork = 64 * QN;
  geqrf(&m, &n, F, &m, tau, work, &lwork, info);
  if (*info != 0) return;
  static float R[QN * QN];  /* the upper triangle of the factor, before sorgqr overwrites it */
  for (int j = 0; j < QN; ++j)
    for (int i = 0; i < QN; ++i) R[j * QN + i] = i <= j ? F[(size_t)j * QM + i] : 0.0f;
  orgqr(&m, &n, &n, F, &m, tau, work, &lwork, info);
  if (*info != 0) return;
  for (int j = 0; j < QN; ++j) /* D = Q R - A */
    for (int i = 0; i < QM; ++i) {
      double s = 0;
      for (int l = 0; l <= j; ++l) s += (double)F[(size_t)l * QM + i] * R[j * QN + l];
      D[(size_t)j * QM + i] = s - A[(size_t)j * QM + i];
      Ad[(size_t)j * QM + i] = A[(size_t)j * QM + i];
    }
  *res = norm1_mn(D, QM, QN) / (QM * norm1_mn(Ad, QM, QN) * FLT_EPSILON);
  for (int j = 0; j < QN; ++j) /* O = Q^T Q - I */
    for (int i = 0; i < QN; ++i) {
      double s = i == j ? -1.0 : 0.0;
      for (int l = 0; l < QM; ++l) s += (double)F[(size_t)i * QM + l] * F[(size_t)j * QM + l];
      O[j * QN + i] = s;
    }
  *orth = norm1_mn(O, QN, QN) / (QM * FLT_EPSILON);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: lapack_test LIBLAPACK\n");
    return 2;
  }
  void* lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
  getrf_fn getrf = lib ? (getrf_fn)dlsym(lib, "sgetrf_") : NULL;
  potrf_fn potrf = lib ? (potrf_fn)dlsym(lib, "spotrf_") : NULL;
  geqrf_fn geqrf = lib ? (geqrf_fn)dlsym(lib, "sgeqrf_") : NULL;
  orgqr_fn orgqr = lib ? (orgqr_fn)dlsym(lib, "sorgqr_") : NULL;
  if (!getrf || !potrf || !geqrf || !orgqr) {
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
  double qr = INFINITY, orth = INFINITY;
  geqrf_ratios(geqrf, orgqr, &info, &qr, &orth);
  printf("sgeqrf %d x %d: info %d, ||QR - A|| / (m ||A|| eps) = %.3g, ||Q^T Q - I|| / (m eps) = %.3g\n", QM, QN,
         info, qr, orth);
  failed += info != 0 || !(qr < 30);
  failed += info != 0 || !(orth < 30);
  printf("lapack: %d passed, %d failed\n", 4 - failed, failed);
  fflush(stdout);  /* before the preloaded library's report at exit */
  return failed != 0;
}
