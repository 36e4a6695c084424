/* SPDX-License-Identifier: BSD-3-Clause */
/* lapack_calls ROUTINE N: one call of a single-precision LAPACK routine on a
   seeded N x N matrix (sgetrf, spotrf, sgeqrf, ssytrd, ssyevd with
   eigenvectors, sgesvd with the thin U and V^T), for the call table of
   docs/lapack.md:

     mmaemu-run --lapack --verbose --model H100 --input fp16 -- lapack_calls sgetrf 1024

   The shim's MMA_VERBOSE report at exit lists the calls the model computed
   and those that went to the system BLAS. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lapack_decl.h"

static uint64_t g_state = 42;
static float next_uniform(void) { /* in [-1, 1), a 24-bit value */
  g_state = g_state * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((double)(g_state >> 40) * 0x1p-23 - 1.0);
}

int main(int argc, char** argv) {
  if (argc != 3 || atoi(argv[2]) < 1) {
    fprintf(stderr, "usage: lapack_calls sgetrf|spotrf|sgeqrf|ssytrd|ssyevd|sgesvd N\n");
    return 2;
  }
  const char* r = argv[1];
  const int n = atoi(argv[2]), lda = n;
  float* a = malloc(sizeof(float) * (size_t)n * n);
  float* v = malloc(sizeof(float) * (size_t)n * n);
  float* d = malloc(sizeof(float) * (size_t)n * 4);
  int* ipiv = malloc(sizeof(int) * (size_t)n * 8 + 64);
  if (!a || !v || !d || !ipiv) return 2;
  for (size_t i = 0; i < (size_t)n * n; ++i) a[i] = next_uniform();
  /* Symmetric (and for spotrf positive definite: diagonal n). */
  if (!strcmp(r, "spotrf") || !strcmp(r, "ssytrd") || !strcmp(r, "ssyevd"))
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < j; ++i) a[(size_t)j * lda + i] = a[(size_t)i * lda + j];
      if (!strcmp(r, "spotrf")) a[(size_t)j * lda + j] = (float)n;
    }
  int info = 0, lwork = -1, liwork = -1;
  float query = 0;
  float* work = NULL;
  if (!strcmp(r, "sgetrf")) {
    sgetrf_(&n, &n, a, &lda, ipiv, &info);
  } else if (!strcmp(r, "spotrf")) {
    spotrf_("U", &n, a, &lda, &info, 1);
  } else if (!strcmp(r, "sgeqrf")) {
    sgeqrf_(&n, &n, a, &lda, d, &query, &lwork, &info);
    lwork = (int)query;
    work = malloc(sizeof(float) * (size_t)lwork);
    sgeqrf_(&n, &n, a, &lda, d, work, &lwork, &info);
  } else if (!strcmp(r, "ssytrd")) {
    ssytrd_("U", &n, a, &lda, d, d + n, d + 2 * n, &query, &lwork, &info, 1);
    lwork = (int)query;
    work = malloc(sizeof(float) * (size_t)lwork);
    ssytrd_("U", &n, a, &lda, d, d + n, d + 2 * n, work, &lwork, &info, 1);
  } else if (!strcmp(r, "ssyevd")) {
    int iquery = 0;
    ssyevd_("V", "U", &n, a, &lda, d, &query, &lwork, &iquery, &liwork, &info, 1, 1);
    lwork = (int)query;
    liwork = iquery;
    work = malloc(sizeof(float) * (size_t)lwork);
    free(ipiv);
    ipiv = malloc(sizeof(int) * (size_t)liwork);
    if (!work || !ipiv) return 2;
    ssyevd_("V", "U", &n, a, &lda, d, work, &lwork, ipiv, &liwork, &info, 1, 1);
  } else if (!strcmp(r, "sgesvd")) {
    sgesvd_("S", "S", &n, &n, a, &lda, d, v, &lda, v, &lda, &query, &lwork, &info, 1, 1);
    /* U overwrites v, V^T needs its own array. */
    float* vt = malloc(sizeof(float) * (size_t)n * n);
    lwork = (int)query;
    work = malloc(sizeof(float) * (size_t)lwork);
    if (!vt || !work) return 2;
    sgesvd_("S", "S", &n, &n, a, &lda, d, v, &lda, vt, &lda, work, &lwork, &info, 1, 1);
    free(vt);
  } else {
    fprintf(stderr, "lapack_calls: unknown routine '%s'\n", r);
    return 2;
  }
  printf("%s n = %d: info = %d\n", r, n, info);
  fflush(stdout); /* before the shim's report at exit */
  free(work);
  free(a);
  free(v);
  free(d);
  free(ipiv);
  return info == 0 ? 0 : 1;
}
