/* SPDX-License-Identifier: BSD-3-Clause */
/* The block-scaled sgemm works on C in place: a 2048 x 2048 x 32 mxfp8
 * product (C 16 MiB) under an address-space limit of what the process
 * holds plus 12 MiB succeeds (a copy of C and a result array, 32 MiB,
 * cannot be made), both layouts, beta 0 and not; rows 0..3 and the last
 * have the bits of the same product on those rows alone (MX scales are
 * per row of A and column of B). One thread; not for sanitizer builds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "mmaemu/mmaemu.h"

enum { M = 2048, N = 2048, K = 32, R = 5 };

static long long address_space(void) {
  FILE* f = fopen("/proc/self/statm", "r");
  long long pages = 0;
  if (!f || fscanf(f, "%lld", &pages) != 1) pages = -1;
  if (f) fclose(f);
  return pages * 4096;
}

static float value(long i) { return (float)((i * 7919) % 2003) / 1001.0f - 1.0f; }

int main(void) {
  mmaemu_model* model = NULL;
  if (mmaemu_model_lookup("B200", &model) != MMAEMU_OK) return 2;
  float* A = malloc(sizeof(float) * M * K);
  float* B = malloc(sizeof(float) * K * N);
  float* C = malloc(sizeof(float) * (size_t)M * N);
  if (!A || !B || !C) return 2;
  for (long i = 0; i < (long)M * K; ++i) A[i] = value(i);
  for (long i = 0; i < (long)K * N; ++i) B[i] = value(3 * i + 1);
  for (long i = 0; i < (long)M * N; ++i) C[i] = value(5 * i + 2);
  const long long held = address_space();
  struct rlimit rl = {(rlim_t)(held + (12LL << 20)), (rlim_t)(held + (12LL << 20))};
  if (held <= 0 || setrlimit(RLIMIT_AS, &rl) != 0) {
    fprintf(stderr, "cannot limit the address space\n");
    return 2;
  }
  int failures = 0, checks = 0;
  static float rows[R][N], want[R][N], sub_a[R][K], c0[R][N];
  const int pick[R] = {0, 1, 2, 3, M - 1};
  for (int layout = MMAEMU_ROW_MAJOR; layout <= MMAEMU_COL_MAJOR; ++layout)
    for (int b = 0; b < 2; ++b) {
      const float beta = b ? -0.5f : 0.0f;
      const int row = layout == MMAEMU_ROW_MAJOR;
      for (int r = 0; r < R; ++r)
        for (int j = 0; j < N; ++j) c0[r][j] = C[row ? (size_t)pick[r] * N + j : (size_t)j * M + pick[r]];
      const int status = mmaemu_sgemm_block_scaled(model, "mxfp8", (mmaemu_layout)layout, MMAEMU_NO_TRANS,
                                                   MMAEMU_NO_TRANS, M, N, K, 1.0f, A, row ? K : M, B, row ? N : K,
                                                   beta, C, row ? N : M);
      ++checks;
      if (status != MMAEMU_OK) {
        ++failures;
        fprintf(stderr, "layout %d beta %g: %s\n", layout, beta, mmaemu_last_error());
        continue;
      }
      for (int r = 0; r < R; ++r) {
        for (int l = 0; l < K; ++l) sub_a[r][l] = A[row ? (size_t)pick[r] * K + l : (size_t)l * M + pick[r]];
        for (int j = 0; j < N; ++j) rows[r][j] = C[row ? (size_t)pick[r] * N + j : (size_t)j * M + pick[r]];
      }
      /* The same rows alone, row-major (B as stored: transposed if column-major). */
      memcpy(want, c0, sizeof want);
      if (mmaemu_sgemm_block_scaled(model, "mxfp8", MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS,
                                    row ? MMAEMU_NO_TRANS : MMAEMU_TRANS, R, N, K, 1.0f, &sub_a[0][0], K, B,
                                    row ? N : K, beta, &want[0][0], N) != MMAEMU_OK) {
        fprintf(stderr, "rows alone: %s\n", mmaemu_last_error());
        return 2;
      }
      ++checks;
      if (memcmp(rows, want, sizeof rows) != 0) {
        ++failures;
        fprintf(stderr, "layout %d beta %g: the rows differ from the product of those rows alone\n", layout, beta);
      }
    }
  mmaemu_model_free(model);
  printf("block-scaled memory: %d passed, %d failed\n", checks - failures, failures);
  return failures != 0;
}
