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

  mmaemu_model_free(h100);
  printf("%d passed, %d failed\n", checks - failures, failures);
  return failures != 0;
}
