/* SPDX-License-Identifier: BSD-3-Clause */
/* The error exits of the netlib test programs (sblat3's CHKE for SGEMM and
 * SSYRK, c_sblat3's c__3chke for cblas_sgemm and cblas_ssyrk), extended to
 * sbgemm_/cblas_sbgemm, run against libmmaemu's BLAS entries. Each call has
 * exactly one bad argument; the program's error handler must be called once
 * with the routine's name and that argument's number (for CBLAS entries after
 * the translation the netlib C tester makes, see below), and C must be left
 * as it was. Valid calls (quick returns included) must not call it.
 *
 * Works with MMA_MODEL set (the emulated entries) and unset (sbgemm's native
 * fallback); the preload or -lmmaemu provides the entries. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*, const float*, const int*,
            const float*, const int*, const float*, float*, const int*);
void ssyrk_(const char*, const char*, const int*, const int*, const float*, const float*, const int*, const float*,
            float*, const int*);
void sbgemm_(const char*, const char*, const int*, const int*, const int*, const float*, const uint16_t*,
             const int*, const uint16_t*, const int*, const float*, float*, const int*);
void cblas_sgemm(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
void cblas_ssyrk(int, int, int, int, int, float, const float*, int, float, float*, int);
void cblas_sbgemm(int, int, int, int, int, int, float, const uint16_t*, int, const uint16_t*, int, float, float*,
                  int);

enum { RowMajor = 101, ColMajor = 102, NoTrans = 111, Trans = 112, Upper = 121, Lower = 122, Invalid = -1 };

/* The error handlers of the netlib testers. A CBLAS entry reports Order,
 * Uplo and Trans through cblas_xerbla with its own name and number, and the
 * other arguments through xerbla_ with the Fortran routine's name and the
 * Fortran number of the call it makes (for row-major the transposed one).
 * While a CBLAS entry runs, xerbla_ translates as c_sblat3's F77_xerbla and
 * cblas_xerbla do: "cblas_" + the lower-case name, number + 1, and for a
 * row-major gemm 4 <-> 5 and 9 <-> 11. Fortran entries: sblat3's XERBLA. */
static int calls, last_info;
static char last_name[16];
static int in_cblas, row_major; /* set around each CBLAS call */

static void record(const char* name, int info) {
  ++calls;
  snprintf(last_name, sizeof last_name, "%s", name);
  last_info = info;
}
void cblas_xerbla(int info, const char* rout, const char* form, ...) {
  (void)form;
  if (row_major && strstr(rout, "gemm")) info = info == 4 ? 5 : info == 5 ? 4 : info == 9 ? 11 : info == 11 ? 9 : info;
  record(rout, info);
}
void xerbla_(const char* name, const int* info, int len) {
  (void)len;
  if (!in_cblas) {
    char f77[7];
    memcpy(f77, name, 6);
    f77[6] = 0;
    record(f77, *info);
    return;
  }
  char rout[16] = "cblas_";
  for (int i = 0; i < 6 && name[i] != ' '; ++i) rout[6 + i] = (char)(name[i] | 0x20);
  cblas_xerbla(*info + 1, rout, "");
}

static int failures, checks;
static float A[64], B[64], C[64];
static uint16_t Ah[64], Bh[64];
static const float C_INIT = 42.0f;

static void arm(void) {
  calls = 0;
  last_info = 0;
  memset(last_name, 0, sizeof last_name);
  for (int i = 0; i < 64; ++i) C[i] = C_INIT;
}

/* CHKXER: exactly one xerbla_ call, for `name` and argument `infot`; C intact. */
static void chkxer(const char* name, int infot, int line) {
  ++checks;
  int touched = 0;
  for (int i = 0; i < 64; ++i) touched += C[i] != C_INIT;
  if (calls != 1 || last_info != infot || strcmp(last_name, name) != 0 || touched) {
    ++failures;
    fprintf(stderr, "line %d: expected %s parameter %d; xerbla_ called %d times, last %s %d; %d elements of C changed\n",
            line, name, infot, calls, last_name, last_info, touched);
  }
}
static void chkok(const char* what, int line) {
  ++checks;
  if (calls != 0) {
    ++failures;
    fprintf(stderr, "line %d: valid %s call reported %s parameter %d\n", line, what, last_name, last_info);
  }
}

/* Fortran gemm (sgemm_ or sbgemm_) with one argument set. */
static void f77_gemm(int bf16, const char* ta, const char* tb, int m, int n, int k, int lda, int ldb, int ldc) {
  const float alpha = 1.0f, beta = 0.5f;
  if (bf16) sbgemm_(ta, tb, &m, &n, &k, &alpha, Ah, &lda, Bh, &ldb, &beta, C, &ldc);
  else sgemm_(ta, tb, &m, &n, &k, &alpha, A, &lda, B, &ldb, &beta, C, &ldc);
}
static void c_gemm(int bf16, int order, int ta, int tb, int m, int n, int k, int lda, int ldb, int ldc) {
  in_cblas = 1, row_major = order == RowMajor;
  if (bf16) cblas_sbgemm(order, ta, tb, m, n, k, 1.0f, Ah, lda, Bh, ldb, 0.5f, C, ldc);
  else cblas_sgemm(order, ta, tb, m, n, k, 1.0f, A, lda, B, ldb, 0.5f, C, ldc);
  in_cblas = row_major = 0;
}

#define F77(INFOT, ...) (arm(), f77_gemm(bf16, __VA_ARGS__), chkxer(name, INFOT, __LINE__))
#define CBL(INFOT, ...) (arm(), c_gemm(bf16, __VA_ARGS__), chkxer(cname, INFOT, __LINE__))

static void gemm_exits(int bf16) {
  const char* name = bf16 ? "SBGEMM" : "SGEMM ";
  const char* cname = bf16 ? "cblas_sbgemm" : "cblas_sgemm";
  /* sblat3 CHKE, SGEMM: every transpose pair for each argument. */
  F77(1, "/", "N", 0, 0, 0, 1, 1, 1);
  F77(1, "/", "T", 0, 0, 0, 1, 1, 1);
  F77(2, "N", "/", 0, 0, 0, 1, 1, 1);
  F77(2, "T", "/", 0, 0, 0, 1, 1, 1);
  const char* tr[2] = {"N", "T"};
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b) {
      F77(3, tr[a], tr[b], -1, 0, 0, 1, 1, 1);
      F77(4, tr[a], tr[b], 0, -1, 0, 1, 1, 1);
      F77(5, tr[a], tr[b], 0, 0, -1, 1, 1, 1);
      /* lda too small: op(A) is m x k; A is m x k ('N') or k x m ('T'). */
      if (a == 0) F77(8, tr[a], tr[b], 2, 0, 0, 1, 1, 2);
      else F77(8, tr[a], tr[b], 0, 0, 2, 1, b ? 1 : 2, 1);
      /* ldb too small: B is k x n ('N') or n x k ('T'). */
      if (b == 0) F77(10, tr[a], tr[b], 0, 0, 2, 2, 1, 1);
      else F77(10, tr[a], tr[b], 0, 2, 0, 1, 1, 1);
      F77(13, tr[a], tr[b], 2, 0, 0, 2, 1, 1);
    }
  /* Lower-case and 'C' transposes are valid; quick returns report nothing. */
  arm();
  f77_gemm(bf16, "c", "t", 0, 0, 0, 1, 1, 1);
  chkok(name, __LINE__);

  /* c__3chke, cblas_sgemm: the caller's parameter numbers (Order = 1). */
  CBL(1, Invalid, NoTrans, NoTrans, 0, 0, 0, 1, 1, 1);
  CBL(2, ColMajor, Invalid, NoTrans, 0, 0, 0, 1, 1, 1);
  CBL(3, ColMajor, NoTrans, Invalid, 0, 0, 0, 1, 1, 1);
  CBL(2, RowMajor, Invalid, Trans, 0, 0, 0, 1, 1, 1);
  CBL(3, RowMajor, Trans, Invalid, 0, 0, 0, 1, 1, 1);
  const int ct[2] = {NoTrans, Trans};
  for (int a = 0; a < 2; ++a)
    for (int b = 0; b < 2; ++b) {
      /* Column-major. */
      CBL(4, ColMajor, ct[a], ct[b], -1, 0, 0, 1, 1, 1);
      CBL(5, ColMajor, ct[a], ct[b], 0, -1, 0, 1, 1, 1);
      CBL(6, ColMajor, ct[a], ct[b], 0, 0, -1, 1, 1, 1);
      if (a == 0) CBL(9, ColMajor, ct[a], ct[b], 2, 0, 0, 1, 1, 2);
      else CBL(9, ColMajor, ct[a], ct[b], 0, 0, 2, 1, b ? 1 : 2, 1);
      if (b == 0) CBL(11, ColMajor, ct[a], ct[b], 0, 0, 2, 2, 1, 1);
      else CBL(11, ColMajor, ct[a], ct[b], 0, 2, 0, 1, 1, 1);
      CBL(14, ColMajor, ct[a], ct[b], 2, 0, 0, 2, 1, 1);
      /* Row-major: A is m x k ('N', lda >= k) or k x m ('T', lda >= m). */
      CBL(4, RowMajor, ct[a], ct[b], -1, 0, 0, 1, 1, 1);
      CBL(5, RowMajor, ct[a], ct[b], 0, -1, 0, 1, 1, 1);
      CBL(6, RowMajor, ct[a], ct[b], 0, 0, -1, 1, 1, 1);
      if (a == 0) CBL(9, RowMajor, ct[a], ct[b], 0, 0, 2, 1, b ? 2 : 1, 1);
      else CBL(9, RowMajor, ct[a], ct[b], 2, 0, 0, 1, 1, 1);
      if (b == 0) CBL(11, RowMajor, ct[a], ct[b], 0, 2, 0, 1, 1, 2);
      else CBL(11, RowMajor, ct[a], ct[b], 0, 0, 2, a ? 1 : 2, 1, 1);
      CBL(14, RowMajor, ct[a], ct[b], 0, 2, 0, 1, 2, 1);
    }
  arm();
  c_gemm(bf16, RowMajor, NoTrans, NoTrans, 3, 0, 2, 2, 1, 1);
  chkok(name, __LINE__);
}

static void f77_syrk(const char* uplo, const char* trans, int n, int k, int lda, int ldc) {
  const float alpha = 1.0f, beta = 0.5f;
  ssyrk_(uplo, trans, &n, &k, &alpha, A, &lda, &beta, C, &ldc);
}
#define SYRK(INFOT, ...) (arm(), f77_syrk(__VA_ARGS__), chkxer("SSYRK ", INFOT, __LINE__))
static void c_syrk(int order, int uplo, int trans, int n, int k, int lda, int ldc) {
  in_cblas = 1;  /* (netlib's row-major translation does not touch syrk) */
  cblas_ssyrk(order, uplo, trans, n, k, 1.0f, A, lda, 0.5f, C, ldc);
  in_cblas = 0;
}
#define CSYRK(INFOT, ...) (arm(), c_syrk(__VA_ARGS__), chkxer("cblas_ssyrk", INFOT, __LINE__))

static void syrk_exits(void) {
  /* sblat3 CHKE, SSYRK. */
  SYRK(1, "/", "N", 0, 0, 1, 1);
  SYRK(2, "U", "/", 0, 0, 1, 1);
  const char* ul[2] = {"U", "L"};
  const char* tr[2] = {"N", "T"};
  for (int u = 0; u < 2; ++u)
    for (int t = 0; t < 2; ++t) {
      SYRK(3, ul[u], tr[t], -1, 0, 1, 1);
      SYRK(4, ul[u], tr[t], 0, -1, 1, 1);
      /* A is n x k ('N') or k x n ('T'). */
      if (t == 0) SYRK(7, ul[u], tr[t], 2, 0, 1, 2);
      else SYRK(7, ul[u], tr[t], 0, 2, 1, 1);
      SYRK(10, ul[u], tr[t], 2, 0, 2, 1);
    }
  /* c__3chke, cblas_ssyrk. */
  CSYRK(1, Invalid, Upper, NoTrans, 0, 0, 1, 1);
  CSYRK(2, ColMajor, Invalid, NoTrans, 0, 0, 1, 1);
  CSYRK(3, ColMajor, Upper, Invalid, 0, 0, 1, 1);
  const int cu[2] = {Upper, Lower}, ct[2] = {NoTrans, Trans}, order[2] = {ColMajor, RowMajor};
  for (int o = 0; o < 2; ++o)
    for (int u = 0; u < 2; ++u)
      for (int t = 0; t < 2; ++t) {
        CSYRK(4, order[o], cu[u], ct[t], -1, 0, 1, 1);
        CSYRK(5, order[o], cu[u], ct[t], 0, -1, 1, 1);
        /* lda >= n where A is n x k column-major or k x n row-major, else >= k. */
        const int stored_nk = (ct[t] == NoTrans) == (order[o] == ColMajor);
        if (stored_nk) CSYRK(8, order[o], cu[u], ct[t], 2, 0, 1, 2);
        else CSYRK(8, order[o], cu[u], ct[t], 0, 2, 1, 1);
        CSYRK(11, order[o], cu[u], ct[t], 2, 0, 2, 1);
      }
}

/* sbgemm computes what the model's bf16 unit (or, natively, fp32 sgemm on
 * the widened operands) gives: compared with sgemm on widened copies when
 * nothing is emulated. */
static void sbgemm_native_matches_sgemm(void) {
  enum { M = 5, N = 6, K = 7 };
  uint16_t a[M * K], b[K * N];
  float aw[M * K], bw[K * N], c1[M * N], c2[M * N];
  unsigned s = 7;
  for (int i = 0; i < M * K; ++i) {
    s = s * 1103515245u + 12345u;
    a[i] = (uint16_t)(0x3C00u + ((s >> 9) & 0x3FFu) + ((s >> 20) & 1u) * 0x8000u);
  }
  for (int i = 0; i < K * N; ++i) {
    s = s * 1103515245u + 12345u;
    b[i] = (uint16_t)(0x3B80u + ((s >> 9) & 0x3FFu));
  }
  for (int i = 0; i < M * K; ++i) {
    const uint32_t w = (uint32_t)a[i] << 16;
    memcpy(&aw[i], &w, 4);
  }
  for (int i = 0; i < K * N; ++i) {
    const uint32_t w = (uint32_t)b[i] << 16;
    memcpy(&bw[i], &w, 4);
  }
  for (int i = 0; i < M * N; ++i) c1[i] = c2[i] = (float)i;
  const int m = M, n = N, k = K;
  const float alpha = 1.5f, beta = -1.0f;
  sbgemm_("N", "N", &m, &n, &k, &alpha, a, &m, b, &k, &beta, c1, &m);
  sgemm_("N", "N", &m, &n, &k, &alpha, aw, &m, bw, &k, &beta, c2, &m);
  ++checks;
  if (memcmp(c1, c2, sizeof c1) != 0) {
    ++failures;
    fprintf(stderr, "native sbgemm_ differs from sgemm_ on the widened operands\n");
  }
}

int main(void) {
  for (int i = 0; i < 64; ++i) A[i] = B[i] = 1.0f, Ah[i] = Bh[i] = 0x3F80;
  const char* model = getenv("MMA_MODEL");
  const int emulated = model && *model;
  if (emulated) {  /* the emulated entries (and the forwarded sgemm otherwise) */
    gemm_exits(0);
    syrk_exits();
  } else {
    sbgemm_native_matches_sgemm();
  }
  gemm_exits(1);
  printf("%s: %d passed, %d failed\n", emulated ? model : "native", checks - failures, failures);
  return failures != 0;
}
