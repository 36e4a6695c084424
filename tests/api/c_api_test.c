/* SPDX-License-Identifier: BSD-3-Clause */
/* The public header compiles as C99 and the basic calls behave. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mmaemu/mmaemu.h"

static int failures = 0, checks = 0;
#define EXPECT(cond)                                                   \
  do {                                                                 \
    ++checks;                                                          \
    if (!(cond)) {                                                     \
      ++failures;                                                      \
      fprintf(stderr, "%s:%d: check failed: %s (last error: %s)\n", __FILE__, __LINE__, #cond, \
              mmaemu_last_error());                                    \
    }                                                                  \
  } while (0)

int main(void) {
  mmaemu_model* h100 = NULL;
  mmaemu_model* bad = NULL;
  float A[2 * 3] = {1, 2, 3, 4, 5, 6}, B[3 * 2] = {1, 0, 0, 1, 1, 1}, C[4] = {NAN, NAN, NAN, NAN};
  int m = 0, n = 0, k = 0;
  size_t i;

  EXPECT(mmaemu_model_lookup("h100", &h100) == MMAEMU_OK);
  EXPECT(strcmp(mmaemu_model_name(h100), "H100") == 0);
  EXPECT(mmaemu_model_lookup("H101", &bad) == MMAEMU_ERR_UNKNOWN_MODEL);
  EXPECT(bad == NULL);
  EXPECT(strstr(mmaemu_last_error(), "MI300X") != NULL); /* the message lists the valid names */
  EXPECT(mmaemu_model_count() >= 16);
  for (i = 0; i < mmaemu_model_count(); ++i) EXPECT(mmaemu_model_list(i) != NULL);

  EXPECT(mmaemu_tile_shape(h100, MMAEMU_FP16, MMAEMU_FP32, &m, &n, &k) == MMAEMU_OK);
  EXPECT(m == 16 && n == 8 && k == 16);
  EXPECT(mmaemu_tile_shape(h100, MMAEMU_E4M3FNUZ, MMAEMU_FP32, &m, &n, &k) == MMAEMU_ERR_UNSUPPORTED);

  /* Small integers are exact in fp16: C = A*B exactly; beta = 0 never reads the NaNs in C. */
  EXPECT(mmaemu_sgemm(h100, "fp16", MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 2, 2, 3, 1.0f,
                      A, 3, B, 2, 0.0f, C, 2) == MMAEMU_OK);
  EXPECT(C[0] == 4 && C[1] == 5 && C[2] == 10 && C[3] == 11);
  /* BLAS argument errors: lda too small is parameter 9. */
  EXPECT(mmaemu_sgemm(h100, "fp16", MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 2, 2, 3, 1.0f,
                      A, 2, B, 2, 0.0f, C, 2) == MMAEMU_ERR_ARGUMENT);
  EXPECT(strstr(mmaemu_last_error(), "parameter 9") != NULL);
  EXPECT(mmaemu_sgemm(h100, "fp12", MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 2, 2, 3, 1.0f,
                      A, 3, B, 2, 0.0f, C, 2) == MMAEMU_ERR_ARGUMENT);
  EXPECT(strstr(mmaemu_last_error(), "tf32") != NULL);

  /* The block-scaled policies, enumerated: each name parses, the list ends,
     and the parser's message names every one. */
  EXPECT(mmaemu_block_scaled_policy_count() >= 6);
  EXPECT(mmaemu_block_scaled_policy_name(-1) == NULL);
  EXPECT(mmaemu_block_scaled_policy_name(mmaemu_block_scaled_policy_count()) == NULL);
  EXPECT(strcmp(mmaemu_block_scaled_policy_name(0), "mxfp8") == 0);
  {
    mmaemu_block_scale_desc desc;
    int p, nvfp4 = 0;
    char message[1024];
    EXPECT(mmaemu_parse_block_scaled_policy("mxfp9", &desc) == MMAEMU_ERR_ARGUMENT);
    snprintf(message, sizeof message, "%s", mmaemu_last_error());
    for (p = 0; p < mmaemu_block_scaled_policy_count(); ++p) {
      const char* name = mmaemu_block_scaled_policy_name(p);
      EXPECT(name != NULL);
      if (!name) continue;
      EXPECT(mmaemu_parse_block_scaled_policy(name, &desc) == MMAEMU_OK);
      EXPECT(strstr(message, name) != NULL);
      nvfp4 += strcmp(name, "nvfp4") == 0;
    }
    EXPECT(nvfp4 == 1);
  }

  /* mmaemu_sgemm_ex, the one sgemm entry: the suffixed entries are it with
     some options set (the same bits), a block-scaled policy runs
     mmaemu_sgemm_block_scaled_acc, and its refusals name what is wrong. */
  {
    enum { M = 13, N = 11, K = 70 };
    static float X[M * K], Y[K * N], C0[M * N], D1[M * N], D2[M * N];
    mmaemu_sgemm_options opt;
    mmaemu_model* b200 = NULL;
    const mmaemu_accumulate modes[] = {MMAEMU_ACC_GPU_BLAS, MMAEMU_ACC_INTO_C, MMAEMU_ACC_BLAS_INTO_C};
    const float alphas[] = {1.0f, 0.75f};
    int a, q;
    for (i = 0; i < M * K; ++i) X[i] = (float)((int)(i * 37 % 29) - 14) / 8.0f;
    for (i = 0; i < K * N; ++i) Y[i] = (float)((int)(i * 53 % 31) - 15) / 16.0f;
    for (i = 0; i < M * N; ++i) C0[i] = (float)((int)(i * 11 % 17) - 8) / 4.0f;
    mmaemu_sgemm_options_init(&opt);
    EXPECT(opt.policy == NULL && opt.schedule == NULL && opt.accumulate == MMAEMU_ACC_GPU_BLAS);
    EXPECT(mmaemu_model_lookup("B200", &b200) == MMAEMU_OK);
    /* = mmaemu_sgemm (default policy too) and mmaemu_sgemm_scheduled */
    opt.policy = "fp16";
    memcpy(D1, C0, sizeof D1);
    memcpy(D2, C0, sizeof D2);
    EXPECT(mmaemu_sgemm_ex(h100, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_TRANS, M, N, K, 0.75f, X, K, Y, K,
                           1.5f, D1, N) == MMAEMU_OK);
    EXPECT(mmaemu_sgemm(h100, "fp16", MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_TRANS, M, N, K, 0.75f, X, K, Y, K, 1.5f,
                        D2, N) == MMAEMU_OK);
    EXPECT(memcmp(D1, D2, sizeof D1) == 0);
    opt.policy = NULL;
    opt.schedule = "splitk:2";
    memcpy(D1, C0, sizeof D1);
    memcpy(D2, C0, sizeof D2);
    EXPECT(mmaemu_sgemm_ex(h100, &opt, MMAEMU_COL_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, M, N, K, 1.0f, X, M, Y, K,
                           0.5f, D1, M) == MMAEMU_OK);
    EXPECT(mmaemu_sgemm_scheduled(h100, NULL, "splitk:2", MMAEMU_COL_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, M, N, K,
                                  1.0f, X, M, Y, K, 0.5f, D2, M) == MMAEMU_OK);
    EXPECT(memcmp(D1, D2, sizeof D1) == 0);
    /* each accumulate mode: = mmaemu_gemm with the policy's options */
    for (q = 0; q < 3; ++q)
      for (a = 0; a < 2; ++a) {
        mmaemu_gemm_options g;
        mmaemu_sgemm_options_init(&opt);
        opt.policy = "bf16";
        opt.accumulate = modes[q];
        mmaemu_gemm_options_init(&g);
        EXPECT(mmaemu_parse_policy("bf16", &g) == MMAEMU_OK);
        g.accumulate = modes[q];
        memcpy(D1, C0, sizeof D1);
        memcpy(D2, C0, sizeof D2);
        EXPECT(mmaemu_sgemm_ex(h100, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, M, N, K, alphas[a], X,
                               K, Y, N, 1.0f, D1, N) == MMAEMU_OK);
        EXPECT(mmaemu_gemm(h100, &g, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, M, N, K, alphas[a], X, K, Y,
                           N, 1.0f, D2, N) == MMAEMU_OK);
        EXPECT(memcmp(D1, D2, sizeof D1) == 0);
      }
    /* a block-scaled policy: = mmaemu_sgemm_block_scaled_acc, every mode */
    for (q = 0; q < 3; ++q) {
      mmaemu_sgemm_options_init(&opt);
      opt.policy = "mxfp8";
      opt.accumulate = modes[q];
      opt.schedule = " Chain";
      memcpy(D1, C0, sizeof D1);
      memcpy(D2, C0, sizeof D2);
      EXPECT(mmaemu_sgemm_ex(b200, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, M, N, K, 1.0f, X, K, Y,
                             N, 1.0f, D1, N) == MMAEMU_OK);
      EXPECT(mmaemu_sgemm_block_scaled_acc(b200, "mxfp8", modes[q], MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS,
                                           MMAEMU_NO_TRANS, M, N, K, 1.0f, X, K, Y, N, 1.0f, D2, N) == MMAEMU_OK);
      EXPECT(memcmp(D1, D2, sizeof D1) == 0);
    }
    /* refusals */
    EXPECT(mmaemu_sgemm_ex(h100, NULL, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, M, N, K, 1.0f, X, K, Y, N,
                           0.0f, D1, N) == MMAEMU_ERR_ARGUMENT);
    EXPECT(strstr(mmaemu_last_error(), "null options") != NULL);
    opt.schedule = "splitk:2";
    EXPECT(mmaemu_sgemm_ex(b200, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, M, N, K, 1.0f, X, K, Y, N,
                           0.0f, D1, N) == MMAEMU_ERR_ARGUMENT);
    EXPECT(strstr(mmaemu_last_error(), "only chain") != NULL);
    opt.schedule = "splitk:x";
    EXPECT(mmaemu_sgemm_ex(b200, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, M, N, K, 1.0f, X, K, Y, N,
                           0.0f, D1, N) == MMAEMU_ERR_ARGUMENT);
    opt.schedule = NULL;
    opt.policy = "fp12";
    EXPECT(mmaemu_sgemm_ex(h100, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, M, N, K, 1.0f, X, K, Y, N,
                           0.0f, D1, N) == MMAEMU_ERR_ARGUMENT);
    EXPECT(strstr(mmaemu_last_error(), "tf32") != NULL && strstr(mmaemu_last_error(), "nvfp4") != NULL);
    opt.policy = "nvfp4";  /* H100 has no block-scaled unit */
    EXPECT(mmaemu_sgemm_ex(h100, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, M, N, K, 1.0f, X, K, Y, N,
                           0.0f, D1, N) == MMAEMU_ERR_UNSUPPORTED);
    /* the element-wise suffixed entries still refuse a block-scaled name */
    EXPECT(mmaemu_sgemm(b200, "mxfp8", MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, M, N, K, 1.0f, X, K, Y, N,
                        0.0f, D1, N) == MMAEMU_ERR_ARGUMENT);
    mmaemu_model_free(b200);
  }

  mmaemu_model_free(h100);
  printf("%d passed, %d failed\n", checks - failures, failures);
  return failures != 0;
}
