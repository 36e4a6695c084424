/* SPDX-License-Identifier: BSD-3-Clause */
/* An ordinary C program linked with -lopenblas. Run under
 * MMA_MODEL=... LD_PRELOAD=libmmaemu.so, its BLAS calls must give exactly the
 * bits of the libmmaemu C API (looked up at run time in the preloaded
 * library) on the same operands. */
#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmaemu/mmaemu.h"

void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*, const float*, const int*,
            const float*, const int*, const float*, float*, const int*);
void ssyrk_(const char*, const char*, const int*, const int*, const float*, const float*, const int*, const float*,
            float*, const int*);
void cblas_sgemm(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*, const int*,
            const double*, const int*, const double*, double*, const int*);

static int failures = 0, checks = 0;
#define EXPECT(cond, ...)                                          \
  do {                                                             \
    ++checks;                                                      \
    if (!(cond)) {                                                 \
      ++failures;                                                  \
      fprintf(stderr, "%s:%d: failed: %s: ", __FILE__, __LINE__, #cond); \
      fprintf(stderr, __VA_ARGS__);                                \
      fputc('\n', stderr);                                         \
    }                                                              \
  } while (0)

/* The program's own xerbla_ (a user override must be called). */
static char last_name[7];
static int last_info;
void xerbla_(const char* name, const int* info, int len) {
  (void)len;
  memcpy(last_name, name, 6);
  last_name[6] = 0;
  last_info = *info;
}

static float rnd(unsigned* s) {
  *s = *s * 1103515245u + 12345u;
  return ldexpf((float)((*s >> 8) & 0xFFFF) / 65536.0f + 0.5f, (int)((*s >> 24) % 9) - 4) * (((*s >> 4) & 1) ? -1 : 1);
}

typedef int (*sgemm_api)(const mmaemu_model*, const char*, mmaemu_layout, mmaemu_transpose, mmaemu_transpose, int,
                         int, int, float, const float*, int, const float*, int, float, float*, int);
typedef int (*lookup_api)(mmaemu_model**);
static sgemm_api api_sgemm;
static mmaemu_model* model;
static const char* policy;

static unsigned bits(float x) {
  unsigned u;
  memcpy(&u, &x, 4);
  return u;
}

enum { M = 37, N = 29, K = 45 };
static float A[M * K], B[K * N], C0[M * N];

static void* worker(void* arg) {
  float* C = (float*)arg;
  const int m = M, n = N, k = K;
  const float one = 1.0f, zero = 0.0f;
  sgemm_("N", "N", &m, &n, &k, &one, A, &m, B, &k, &zero, C, &m);
  return NULL;
}

int main(void) {
  unsigned seed = 2026;
  for (int i = 0; i < M * K; ++i) A[i] = rnd(&seed);
  for (int i = 0; i < K * N; ++i) B[i] = rnd(&seed);
  for (int i = 0; i < M * N; ++i) C0[i] = rnd(&seed);
  {
    /* The first BLAS call reads the configuration (a bad one stops here). */
    const int one_i = 1;
    const float one = 1.0f, zero = 0.0f;
    float c = 0.0f;
    sgemm_("N", "N", &one_i, &one_i, &one_i, &one, A, &one_i, B, &one_i, &zero, &c, &one_i);
  }
  api_sgemm = (sgemm_api)dlsym(RTLD_DEFAULT, "mmaemu_sgemm");
  lookup_api from_env = (lookup_api)dlsym(RTLD_DEFAULT, "mmaemu_model_from_env");
  if (!api_sgemm || !from_env) {
    fprintf(stderr, "libmmaemu is not preloaded\n");
    return 1;
  }
  policy = getenv("MMA_INPUT_FORMAT");
  if (from_env(&model) != 0) return 1;

  /* 1. Fortran sgemm_, column-major, transposes and alpha/beta. */
  const char* tr[] = {"N", "T", "c"};
  for (int ta = 0; ta < 3; ++ta)
    for (int tb = 0; tb < 3; ++tb) {
      const int m = M, n = N, k = K, lda = ta ? K : M, ldb = tb ? N : K, ldc = M;
      const float alpha = 0.5f, beta = -2.0f;
      float C[M * N], D[M * N];
      memcpy(C, C0, sizeof C);
      memcpy(D, C0, sizeof D);
      sgemm_(tr[ta], tr[tb], &m, &n, &k, &alpha, A, &lda, B, &ldb, &beta, C, &ldc);
      api_sgemm(model, policy, MMAEMU_COL_MAJOR, ta ? MMAEMU_TRANS : MMAEMU_NO_TRANS, tb ? MMAEMU_TRANS : MMAEMU_NO_TRANS,
                m, n, k, alpha, A, lda, B, ldb, beta, D, ldc);
      int bad = 0;
      for (int i = 0; i < M * N; ++i) bad += bits(C[i]) != bits(D[i]);
      EXPECT(bad == 0, "sgemm_ %s%s: %d elements differ from the C API", tr[ta], tr[tb], bad);
    }

  /* 2. CBLAS row-major. */
  {
    float C[M * N], D[M * N];
    memcpy(C, C0, sizeof C);
    memcpy(D, C0, sizeof D);
    cblas_sgemm(101, 111, 112, M, N, K, 1.0f, A, K, B, K, 1.0f, C, N);
    api_sgemm(model, policy, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_TRANS, M, N, K, 1.0f, A, K, B, K, 1.0f, D, N);
    int bad = 0;
    for (int i = 0; i < M * N; ++i) bad += bits(C[i]) != bits(D[i]);
    EXPECT(bad == 0, "cblas_sgemm row-major: %d elements differ", bad);
  }

  /* 3. ssyrk_: each triangle element equals the GEMM element A A^T. */
  for (int lower = 0; lower < 2; ++lower) {
    const int n = M, k = K, lda = M, ldc = M;
    const float one = 1.0f, zero = 0.0f;
    float C[M * M], D[M * M];
    for (int i = 0; i < M * M; ++i) C[i] = NAN;
    ssyrk_(lower ? "L" : "U", "N", &n, &k, &one, A, &lda, &zero, C, &ldc);
    api_sgemm(model, policy, MMAEMU_COL_MAJOR, MMAEMU_NO_TRANS, MMAEMU_TRANS, n, n, k, 1.0f, A, lda, A, lda, 0.0f, D,
              ldc);
    int bad = 0;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) {
        const int tri = lower ? i >= j : i <= j;
        if (tri) bad += bits(C[j * ldc + i]) != bits(D[j * ldc + i]);
        else bad += !isnan(C[j * ldc + i]); /* the other triangle is untouched */
      }
    EXPECT(bad == 0, "ssyrk_ %s: %d elements wrong", lower ? "L" : "U", bad);
  }

  /* 4. beta = 0 never reads C (NaN must not leak). */
  {
    const int m = M, n = N, k = K;
    const float one = 1.0f, zero = 0.0f;
    float C[M * N];
    for (int i = 0; i < M * N; ++i) C[i] = NAN;
    sgemm_("N", "N", &m, &n, &k, &one, A, &m, B, &k, &zero, C, &m);
    int nans = 0;
    for (int i = 0; i < M * N; ++i) nans += isnan(C[i]);
    EXPECT(nans == 0, "%d NaN from C leaked with beta = 0", nans);
  }

  /* 5. Reference-BLAS argument checks, through the program's xerbla_. */
  {
    const int m = 4, n = 4, k = 4, bad_lda = 3, ok = 4, neg = -1;
    const float one = 1.0f;
    float C[16] = {0};
    last_info = 0;
    sgemm_("N", "N", &m, &n, &k, &one, A, &bad_lda, B, &ok, &one, C, &ok);
    EXPECT(last_info == 8 && strcmp(last_name, "SGEMM ") == 0, "lda: got %s %d", last_name, last_info);
    last_info = 0;
    sgemm_("X", "N", &m, &n, &k, &one, A, &ok, B, &ok, &one, C, &ok);
    EXPECT(last_info == 1, "transa: got %d", last_info);
    last_info = 0;
    sgemm_("N", "N", &m, &neg, &k, &one, A, &ok, B, &ok, &one, C, &ok);
    EXPECT(last_info == 4, "n < 0: got %d", last_info);
    last_info = 0;
    ssyrk_("Q", "N", &n, &k, &one, A, &ok, &one, C, &ok);
    EXPECT(last_info == 1 && strcmp(last_name, "SSYRK ") == 0, "ssyrk uplo: got %s %d", last_name, last_info);
  }

  /* 6. Concurrent calls from several threads give the sequential bits. */
  {
    static float C[4][M * N];
    pthread_t t[4];
    for (int i = 0; i < 4; ++i) pthread_create(&t[i], NULL, worker, C[i]);
    for (int i = 0; i < 4; ++i) pthread_join(t[i], NULL);
    float D[M * N];
    worker(D);
    int bad = 0;
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < M * N; ++j) bad += bits(C[i][j]) != bits(D[j]);
    EXPECT(bad == 0, "concurrent calls: %d elements differ", bad);
  }

  /* 7. dgemm_ (native by default) still works through the system BLAS. */
  {
    const int two = 2;
    const double a[4] = {1, 2, 3, 4}, b[4] = {1, 0, 0, 1}, one = 1.0, zero = 0.0;
    double c[4] = {0};
    dgemm_("N", "N", &two, &two, &two, &one, a, &two, b, &two, &zero, c, &two);
    EXPECT(c[0] == 1 && c[1] == 2 && c[2] == 3 && c[3] == 4, "dgemm_ forwarded: %g %g %g %g", c[0], c[1], c[2], c[3]);
  }

  /* 8. sbgemm_ / cblas_sbgemm (looked up at run time: Debian's OpenBLAS does
   *    not export them) on the model's bf16 unit = the C API's GEMM with
   *    bf16 storage. */
  {
    typedef void (*sbgemm_f)(const char*, const char*, const int*, const int*, const int*, const float*,
                             const uint16_t*, const int*, const uint16_t*, const int*, const float*, float*,
                             const int*);
    typedef void (*cblas_sbgemm_f)(int, int, int, int, int, int, float, const uint16_t*, int, const uint16_t*, int,
                                   float, float*, int);
    typedef int (*gemm_api)(const mmaemu_model*, const mmaemu_gemm_options*, mmaemu_layout, mmaemu_transpose,
                            mmaemu_transpose, int, int, int, double, const void*, int, const void*, int, double, void*,
                            int);
    typedef int (*shape_api)(const mmaemu_model*, mmaemu_format, mmaemu_format, int*, int*, int*);
    typedef void (*init_api)(mmaemu_gemm_options*);
    sbgemm_f sb = (sbgemm_f)dlsym(RTLD_DEFAULT, "sbgemm_");
    cblas_sbgemm_f csb = (cblas_sbgemm_f)dlsym(RTLD_DEFAULT, "cblas_sbgemm");
    gemm_api api_gemm = (gemm_api)dlsym(RTLD_DEFAULT, "mmaemu_gemm");
    shape_api shape = (shape_api)dlsym(RTLD_DEFAULT, "mmaemu_tile_shape");
    init_api init = (init_api)dlsym(RTLD_DEFAULT, "mmaemu_gemm_options_init");
    int tm, tn, tk;
    EXPECT(sb && csb && api_gemm && shape && init, "sbgemm entries or the C API not found");
    if (sb && csb && api_gemm && shape && init && shape(model, MMAEMU_BF16, MMAEMU_FP32, &tm, &tn, &tk) == 0) {
      static uint16_t Ah[M * K], Bh[K * N];
      for (int i = 0; i < M * K; ++i) Ah[i] = (uint16_t)(bits(A[i]) >> 16);
      for (int i = 0; i < K * N; ++i) Bh[i] = (uint16_t)(bits(B[i]) >> 16);
      mmaemu_gemm_options opt;
      init(&opt);
      opt.a_storage = opt.b_storage = opt.input = MMAEMU_BF16;
      opt.c_storage = opt.output = MMAEMU_FP32;
      const int m = M, n = N, k = K;
      const float alpha = 0.75f, beta = 1.5f;
      float C[M * N], D[M * N], E[M * N];
      memcpy(C, C0, sizeof C);
      memcpy(D, C0, sizeof D);
      memcpy(E, C0, sizeof E);
      sb("N", "T", &m, &n, &k, &alpha, Ah, &m, Bh, &n, &beta, C, &m);
      api_gemm(model, &opt, MMAEMU_COL_MAJOR, MMAEMU_NO_TRANS, MMAEMU_TRANS, m, n, k, alpha, Ah, m, Bh, n, beta, D, m);
      csb(101, 111, 111, M, N, K, alpha, Ah, K, Bh, N, beta, E, N);
      int bad = 0, bad_c = 0;
      for (int i = 0; i < M * N; ++i) bad += bits(C[i]) != bits(D[i]);
      api_gemm(model, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, M, N, K, alpha, Ah, K, Bh, N, beta, C0,
               N);  /* C0 is not needed after this */
      for (int i = 0; i < M * N; ++i) bad_c += bits(E[i]) != bits(C0[i]);
      EXPECT(bad == 0 && bad_c == 0, "sbgemm_: %d, cblas_sbgemm: %d elements differ from the C API", bad, bad_c);
    }
  }

  printf("%d passed, %d failed\n", checks - failures, failures);
  return failures != 0;
}
