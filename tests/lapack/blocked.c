/* SPDX-License-Identifier: BSD-3-Clause */
#include "blocked.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lapack_decl.h"

static int imin(int a, int b) { return a < b ? a : b; }
static float* at(float* a, int lda, int i, int j) { return a + (size_t)j * lda + i; }

static void gemm(blocked_ctx* c, char ta, char tb, int m, int n, int k, float alpha, const float* A, int lda,
                 const float* B, int ldb, float beta, float* C, int ldc) {
  c->gemm_calls++;
  const int s = mmaemu_sgemm(c->model, c->policy, MMAEMU_COL_MAJOR, ta == 'N' ? MMAEMU_NO_TRANS : MMAEMU_TRANS,
                             tb == 'N' ? MMAEMU_NO_TRANS : MMAEMU_TRANS, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  if (s != MMAEMU_OK && c->status == MMAEMU_OK) c->status = s;
}

/* C = alpha op(A) op(A)^T + beta C on the uplo triangle of the n x n C:
   the GEMM of the whole block (into a copy of C), of which the triangle is
   kept. */
static void syrk(blocked_ctx* c, char uplo, char trans, int n, int k, float alpha, const float* A, int lda,
                 float beta, float* C, int ldc) {
  c->syrk_calls++;
  if (n == 0) return;
  float* w = malloc(sizeof(float) * (size_t)n * n);
  if (!w) {
    c->status = MMAEMU_ERR_NO_MEMORY;
    return;
  }
  for (int j = 0; j < n; ++j) memcpy(w + (size_t)j * n, C + (size_t)j * ldc, sizeof(float) * n);
  const mmaemu_transpose t = trans == 'N' ? MMAEMU_NO_TRANS : MMAEMU_TRANS;
  const int s = mmaemu_sgemm(c->model, c->policy, MMAEMU_COL_MAJOR, t, t == MMAEMU_NO_TRANS ? MMAEMU_TRANS : MMAEMU_NO_TRANS,
                             n, n, k, alpha, A, lda, A, lda, beta, w, n);
  if (s != MMAEMU_OK && c->status == MMAEMU_OK) c->status = s;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      if (uplo == 'U' ? i <= j : i >= j) *at(C, ldc, i, j) = w[(size_t)j * n + i];
  free(w);
}

static void trsm(blocked_ctx* c, char side, char uplo, char trans, char diag, int m, int n, const float* A, int lda,
                 float* B, int ldb) {
  c->trsm_calls++;
  const float one = 1.0f;
  const char s[2] = {side, 0}, u[2] = {uplo, 0}, t[2] = {trans, 0}, d[2] = {diag, 0};
  strsm_(s, u, t, d, &m, &n, &one, A, &lda, B, &ldb, 1, 1, 1, 1);
}

/* SLASWP(n, A, lda, k1, k2, ipiv, 1): rows k1..k2 (1-based) swapped in order. */
static void laswp(int n, float* a, int lda, int k1, int k2, const int* ipiv) {
  for (int i = k1; i <= k2; ++i) {
    const int p = ipiv[i - 1];
    if (p == i) continue;
    for (int j = 0; j < n; ++j) {
      const float t = *at(a, lda, i - 1, j);
      *at(a, lda, i - 1, j) = *at(a, lda, p - 1, j);
      *at(a, lda, p - 1, j) = t;
    }
  }
}

int blocked_nb(const char* name, const char* opts, int m, int n) {
  const int one = 1, minus = -1;
  return ilaenv_(&one, name, opts, &m, &n, &minus, &minus, strlen(name), strlen(opts));
}

/* SGETRF2: the recursive panel. */
static void getrf2(blocked_ctx* c, int m, int n, float* a, int lda, int* ipiv) {
  if (m == 0 || n == 0) return;
  if (m == 1) {
    ipiv[0] = 1;
    return;
  }
  if (n == 1) {
    int p = 0; /* ISAMAX: the first largest |a_i| */
    for (int i = 1; i < m; ++i)
      if (fabsf(a[i]) > fabsf(a[p])) p = i;
    ipiv[0] = p + 1;
    if (a[p] != 0.0f) {
      if (p != 0) {
        const float t = a[0];
        a[0] = a[p];
        a[p] = t;
      }
      if (fabsf(a[0]) >= FLT_MIN) { /* SSCAL(m-1, 1/a_11) */
        const float r = 1.0f / a[0];
        for (int i = 1; i < m; ++i) a[i] *= r;
      } else {
        for (int i = 1; i < m; ++i) a[i] /= a[0];
      }
    }
    return;
  }
  const int n1 = imin(m, n) / 2, n2 = n - n1;
  getrf2(c, m, n1, a, lda, ipiv);
  laswp(n2, at(a, lda, 0, n1), lda, 1, n1, ipiv);
  trsm(c, 'L', 'L', 'N', 'U', n1, n2, a, lda, at(a, lda, 0, n1), lda);
  gemm(c, 'N', 'N', m - n1, n2, n1, -1.0f, at(a, lda, n1, 0), lda, at(a, lda, 0, n1), lda, 1.0f, at(a, lda, n1, n1),
       lda);
  getrf2(c, m - n1, n2, at(a, lda, n1, n1), lda, ipiv + n1);
  for (int i = n1; i < imin(m, n); ++i) ipiv[i] += n1;
  laswp(n1, a, lda, n1 + 1, imin(m, n), ipiv);
}

void blocked_getrf(blocked_ctx* c, int m, int n, float* a, int lda, int* ipiv) {
  const int nb = blocked_nb("SGETRF", " ", m, n), mn = imin(m, n);
  if (nb <= 1 || nb >= mn) {
    getrf2(c, m, n, a, lda, ipiv);
    return;
  }
  for (int j = 0; j < mn; j += nb) {
    const int jb = imin(mn - j, nb);
    getrf2(c, m - j, jb, at(a, lda, j, j), lda, ipiv + j);
    for (int i = j; i < imin(m, j + jb); ++i) ipiv[i] += j;
    laswp(j, a, lda, j + 1, j + jb, ipiv);
    if (j + jb < n) {
      laswp(n - j - jb, at(a, lda, 0, j + jb), lda, j + 1, j + jb, ipiv);
      trsm(c, 'L', 'L', 'N', 'U', jb, n - j - jb, at(a, lda, j, j), lda, at(a, lda, j, j + jb), lda);
      if (j + jb < m)
        gemm(c, 'N', 'N', m - j - jb, n - j - jb, jb, -1.0f, at(a, lda, j + jb, j), lda, at(a, lda, j, j + jb), lda,
             1.0f, at(a, lda, j + jb, j + jb), lda);
    }
  }
}

/* SPOTRF2: the recursive diagonal block. */
static int potrf2(blocked_ctx* c, char uplo, int n, float* a, int lda) {
  if (n == 0) return 0;
  if (n == 1) {
    if (a[0] <= 0.0f || isnan(a[0])) return 1;
    a[0] = sqrtf(a[0]);
    return 0;
  }
  const int n1 = n / 2, n2 = n - n1;
  int info = potrf2(c, uplo, n1, a, lda);
  if (info) return info;
  if (uplo == 'U') {
    trsm(c, 'L', 'U', 'T', 'N', n1, n2, a, lda, at(a, lda, 0, n1), lda);
    syrk(c, 'U', 'T', n2, n1, -1.0f, at(a, lda, 0, n1), lda, 1.0f, at(a, lda, n1, n1), lda);
  } else {
    trsm(c, 'R', 'L', 'T', 'N', n2, n1, a, lda, at(a, lda, n1, 0), lda);
    syrk(c, 'L', 'N', n2, n1, -1.0f, at(a, lda, n1, 0), lda, 1.0f, at(a, lda, n1, n1), lda);
  }
  info = potrf2(c, uplo, n2, at(a, lda, n1, n1), lda);
  return info ? info + n1 : 0;
}

int blocked_potrf(blocked_ctx* c, char uplo, int n, float* a, int lda) {
  const char opts[2] = {uplo, 0};
  const int nb = blocked_nb("SPOTRF", opts, n, -1);
  if (nb <= 1 || nb >= n) return potrf2(c, uplo, n, a, lda);
  for (int j = 0; j < n; j += nb) {
    const int jb = imin(nb, n - j);
    int info;
    if (uplo == 'U') {
      syrk(c, 'U', 'T', jb, j, -1.0f, at(a, lda, 0, j), lda, 1.0f, at(a, lda, j, j), lda);
      if ((info = potrf2(c, 'U', jb, at(a, lda, j, j), lda))) return info + j;
      if (j + jb < n) {
        gemm(c, 'T', 'N', jb, n - j - jb, j, -1.0f, at(a, lda, 0, j), lda, at(a, lda, 0, j + jb), lda, 1.0f,
             at(a, lda, j, j + jb), lda);
        trsm(c, 'L', 'U', 'T', 'N', jb, n - j - jb, at(a, lda, j, j), lda, at(a, lda, j, j + jb), lda);
      }
    } else {
      syrk(c, 'L', 'N', jb, j, -1.0f, at(a, lda, j, 0), lda, 1.0f, at(a, lda, j, j), lda);
      if ((info = potrf2(c, 'L', jb, at(a, lda, j, j), lda))) return info + j;
      if (j + jb < n) {
        gemm(c, 'N', 'T', n - j - jb, jb, j, -1.0f, at(a, lda, j + jb, 0), lda, at(a, lda, j, 0), lda, 1.0f,
             at(a, lda, j + jb, j), lda);
        trsm(c, 'R', 'L', 'T', 'N', n - j - jb, jb, at(a, lda, j, j), lda, at(a, lda, j + jb, j), lda);
      }
    }
  }
  return 0;
}
