/* SPDX-License-Identifier: BSD-3-Clause */
/* The BLAS contract C = alpha op(A) op(B) + beta C under every
 * MMA_ACCUMULATE (docs/c-api.md, "Accumulation semantics"), linked with -lmmaemu,
 * MMA_MODEL and MMA_INPUT_FORMAT set:
 *   values  1 x 1 products with exact results: alpha = -1, beta = 1,
 *           A = B = 1, C = 5 gives 4 (not the toolbox's alpha (beta C + AB)
 *           = -6); alpha = 2, beta = 0.5: 4.5; k = 0 leaves beta C; beta = 0
 *           never reads C (a NaN there stays out). sgemm, cblas_sgemm, ssyrk,
 *           sgemv (MMA_GEMV=model) and dgemm (MMA_DGEMM=model) when set.
 *           (NVFP4 quantises 1 inexactly: there only k = 0 and beta = 0.)
 *   bits    13 x 11 x 40 sgemm: the bits of the C API with
 *           MMAEMU_ACC_BLAS_INTO_C (accumulate-into-c) or GPU_BLAS, which
 *           for alpha = 1 are those of the toolbox's INTO_C (not for MX
 *           scales' alpha_eff != 1) and otherwise those of GPU_BLAS; INTO_C
 *           and GPU_BLAS differ there, so the check can fail. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmaemu/mmaemu.h"

void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*, const float*, const int*,
            const float*, const int*, const float*, float*, const int*);
void cblas_sgemm(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
void ssyrk_(const char*, const char*, const int*, const int*, const float*, const float*, const int*, const float*,
            float*, const int*);
void sgemv_(const char*, const int*, const int*, const float*, const float*, const int*, const float*, const int*,
            const float*, float*, const int*);
void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*, const int*,
            const double*, const int*, const double*, double*, const int*);

enum { ColMajor = 102, NoTrans = 111 };

static int checks = 0, failures = 0;
static const char* g_model;
static const char* g_policy;
static const char* g_acc;

static unsigned bits_of(float x) {
  unsigned u;
  memcpy(&u, &x, 4);
  return u;
}

static void expect(int ok, const char* what, float got, float want) {
  ++checks;
  if (ok) return;
  ++failures;
  fprintf(stderr, "%s %s %s: %s: got %g (0x%08X), want %g (0x%08X)\n", g_model, g_policy, g_acc, what, got,
          bits_of(got), want, bits_of(want));
}
static void expect_eq(const char* what, float got, float want) { expect(got == want, what, got, want); }

/* 1 x 1 x k sgemm through the Fortran and the CBLAS entries. */
static float sgemm1(int k, float alpha, float beta, float c, int cblas) {
  const float a = 1.0f, b = 1.0f;
  const int one = 1;
  if (cblas) cblas_sgemm(ColMajor, NoTrans, NoTrans, 1, 1, k, alpha, &a, 1, &b, 1, beta, &c, 1);
  else sgemm_("N", "N", &one, &one, &k, &alpha, &a, &one, &b, &one, &beta, &c, &one);
  return c;
}

static void values(int exact_one) {
  const float nan = nanf("");
  for (int cblas = 0; cblas <= 1; ++cblas) {
    const char* entry = cblas ? "cblas_sgemm" : "sgemm_";
    char what[96];
    if (exact_one) {
      snprintf(what, sizeof what, "%s alpha -1 beta 1 C 5", entry);
      expect_eq(what, sgemm1(1, -1.0f, 1.0f, 5.0f, cblas), 4.0f);
      snprintf(what, sizeof what, "%s alpha 2 beta 0.5 C 5", entry);
      expect_eq(what, sgemm1(1, 2.0f, 0.5f, 5.0f, cblas), 4.5f);
      snprintf(what, sizeof what, "%s alpha 1 beta 1 C 5", entry);
      expect_eq(what, sgemm1(1, 1.0f, 1.0f, 5.0f, cblas), 6.0f);
    }
    snprintf(what, sizeof what, "%s k 0 alpha 3 beta 0.5 C 5", entry);
    expect_eq(what, sgemm1(0, 3.0f, 0.5f, 5.0f, cblas), 2.5f);
    snprintf(what, sizeof what, "%s k 0 alpha 1 beta 1 C 5", entry);
    expect_eq(what, sgemm1(0, 1.0f, 1.0f, 5.0f, cblas), 5.0f);
    snprintf(what, sizeof what, "%s beta 0 C NaN", entry);
    const float d = sgemm1(1, -1.0f, 0.0f, nan, cblas);
    expect(!isnan(d) && (!exact_one || d == -1.0f), what, d, -1.0f);
  }
  if (!exact_one) return;
  const int one = 1;
  const float a = 1.0f, alpha = -1.0f, beta = 1.0f;
  float c = 5.0f;
  ssyrk_("U", "N", &one, &one, &alpha, &a, &one, &beta, &c, &one);
  expect_eq("ssyrk alpha -1 beta 1 C 5", c, 4.0f);
  const char* gemv = getenv("MMA_GEMV");
  if (gemv && strcmp(gemv, "model") == 0) {
    float y = 5.0f;
    sgemv_("N", &one, &one, &alpha, &a, &one, &a, &one, &beta, &y, &one);
    expect_eq("sgemv alpha -1 beta 1 y 5", y, 4.0f);
  }
  const char* dg = getenv("MMA_DGEMM");
  if (dg && strcmp(dg, "model") == 0) {
    const double da = 1.0, dalpha = -1.0, dbeta = 1.0;
    double dc = 5.0;
    dgemm_("N", "N", &one, &one, &one, &dalpha, &da, &one, &da, &one, &dbeta, &dc, &one);
    expect_eq("dgemm alpha -1 beta 1 C 5", (float)dc, 4.0f);
  }
}

static unsigned g_seed = 27;
static float rnd(void) {
  g_seed = g_seed * 1103515245u + 12345u;
  return ldexpf((float)((int)((g_seed >> 8) & 0xFFFF) - 32768), -14 - (int)((g_seed >> 4) & 7));
}

enum { M = 13, N = 11, K = 40 };

/* C = alpha A B + beta C0 through the C API under `acc` (column-major). */
static int api(const mmaemu_model* model, int scaled, mmaemu_accumulate acc, float alpha, const float* A,
               const float* B, float beta, const float* C0, float* C) {
  memcpy(C, C0, sizeof(float) * M * N);
  if (scaled)
    return mmaemu_sgemm_block_scaled_acc(model, g_policy, acc, MMAEMU_COL_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, M,
                                         N, K, alpha, A, M, B, K, beta, C, M);
  mmaemu_gemm_options opt;
  mmaemu_gemm_options_init(&opt);
  if (mmaemu_parse_policy(g_policy, &opt) != MMAEMU_OK) return -1;
  opt.accumulate = acc;
  return mmaemu_gemm(model, &opt, MMAEMU_COL_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, M, N, K, alpha, A, M, B, K,
                     beta, C, M);
}

static int same(const float* x, const float* y, const char* what, float alpha) {
  for (int i = 0; i < M * N; ++i)
    if (bits_of(x[i]) != bits_of(y[i])) {
      char line[128];
      snprintf(line, sizeof line, "%s, alpha %g, element %d", what, alpha, i);
      expect(0, line, x[i], y[i]);
      return 0;
    }
  ++checks;
  return 1;
}

static int bit_checks(const mmaemu_model* model, mmaemu_accumulate acc) {
  mmaemu_block_scale_desc desc;
  const int scaled = mmaemu_parse_block_scaled_policy(g_policy, &desc) == MMAEMU_OK;
  const int mx = scaled && desc.scale_format == MMAEMU_UE8M0;
  static float A[M * K], B[K * N], C0[M * N], S[M * N], R[M * N], T[M * N], G[M * N];
  for (int i = 0; i < M * K; ++i) A[i] = rnd();
  for (int i = 0; i < K * N; ++i) B[i] = rnd();
  for (int i = 0; i < M * N; ++i) C0[i] = rnd();
  const float alphas[] = {1.0f, -1.5f}, beta = -0.75f;
  const int m = M, n = N, k = K;
  for (int a = 0; a < 2; ++a) {
    const float alpha = alphas[a];
    memcpy(S, C0, sizeof S);
    sgemm_("N", "N", &m, &n, &k, &alpha, A, &m, B, &k, &beta, S, &m);
    if (api(model, scaled, acc, alpha, A, B, beta, C0, R) || api(model, scaled, MMAEMU_ACC_INTO_C, alpha, A, B, beta, C0, T) ||
        api(model, scaled, MMAEMU_ACC_GPU_BLAS, alpha, A, B, beta, C0, G)) {
      fprintf(stderr, "C API: %s\n", mmaemu_last_error());
      return 2;
    }
    same(S, R, "sgemm_ against the C API", alpha);
    if (acc == MMAEMU_ACC_BLAS_INTO_C && (alpha == 1.0f ? (!scaled || mx) : 1))
      same(R, alpha == 1.0f ? T : G, alpha == 1.0f ? "BLAS_INTO_C against INTO_C" : "BLAS_INTO_C against GPU_BLAS",
           alpha);
    ++checks;
    if (memcmp(T, G, sizeof T) == 0) {
      ++failures;
      fprintf(stderr, "%s %s: INTO_C and GPU_BLAS give the same bits (alpha %g)\n", g_model, g_policy, alpha);
    }
  }
  return 0;
}

int main(void) {
  g_model = getenv("MMA_MODEL");
  g_policy = getenv("MMA_INPUT_FORMAT");
  g_acc = getenv("MMA_ACCUMULATE");
  if (!g_acc || !*g_acc) g_acc = "gpu-blas";
  mmaemu_model* model = NULL;
  if (!g_model || !g_policy || mmaemu_model_from_env(&model) != MMAEMU_OK) {
    fprintf(stderr, "blas_contract_test: set MMA_MODEL and MMA_INPUT_FORMAT\n");
    return 2;
  }
  values(strcmp(g_policy, "nvfp4") != 0);
  const mmaemu_accumulate acc = strcmp(g_acc, "accumulate-into-c") == 0 ? MMAEMU_ACC_BLAS_INTO_C : MMAEMU_ACC_GPU_BLAS;
  const int status = bit_checks(model, acc);
  mmaemu_model_free(model);
  printf("blas contract %s %s %s: %d passed, %d failed\n", g_model, g_policy, g_acc, checks - failures, failures);
  return status ? status : failures != 0;
}
