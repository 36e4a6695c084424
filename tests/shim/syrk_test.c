/* SPDX-License-Identifier: BSD-3-Clause */
/* ssyrk, linked with -lmmaemu, MMA_MODEL set:
 *   syrk_test exact    every triangle element equals the cblas_sgemm element
 *                      (both layouts, uplo, trans, beta 0 and not, n across
 *                      two 512-tiles); the other triangle is untouched.
 *   syrk_test bounded  n = 6144 under an address-space limit of what the
 *                      process holds plus 96 MiB: a full n x n copy
 *                      (144 MiB) cannot be made; the blockwise one fits.
 *   syrk_test starved  the limit is what the process holds: the call must
 *                      stop with "out of memory" and exit status 2, not
 *                      abort with an uncaught exception.
 *   syrk_test scaled   MMA_INPUT_FORMAT a block-scaled policy (MMA_ACCUMULATE
 *                      either): cblas_sgemm gives the bits of
 *                      mmaemu_sgemm_block_scaled_acc with that accumulation
 *                      (and not the other's), and ssyrk those of cblas_sgemm
 *                      on the triangle, n across two 512-tiles (op(A) is
 *                      quantised once; tiles over n keep the bits).
 *   syrk_test krange   MMA_INPUT_FORMAT a block-scaled policy: ssyrk with
 *                      k = 2^31 - 31 (past the C API's int range once padded
 *                      to whole blocks of 32) must stop with a clear message
 *                      and exit status 2 before it reads A or allocates: A
 *                      (k x 1, lda = k, valid BLAS) is address space mapped
 *                      without access, so touching it would crash instead. */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "mmaemu/mmaemu.h"

void cblas_sgemm(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
void cblas_ssyrk(int, int, int, int, int, float, const float*, int, float, float*, int);

enum { RowMajor = 101, ColMajor = 102, NoTrans = 111, Trans = 112, Upper = 121, Lower = 122 };

static unsigned g_seed = 10;
static float rnd(void) {
  g_seed = g_seed * 1103515245u + 12345u;
  return ldexpf((float)((int)((g_seed >> 8) & 0xFFFF) - 32768), -12 - (int)((g_seed >> 4) & 7));
}

/* ssyrk against cblas_sgemm on one case; the number of wrong elements. */
static int syrk_vs_sgemm(const float* A, int lda, const float* C0, float* C, float* G, int n, int k, int ld, int order,
                         int uplo, int trans, float beta) {
  const float alpha = 1.5f;
  const size_t csz = (size_t)n * (size_t)ld;
  /* op(A) is n x k: stored n x k (NoTrans) or k x n (Trans) in `order`. */
  memcpy(C, C0, csz * sizeof *C);
  memcpy(G, C0, csz * sizeof *G);
  cblas_ssyrk(order, uplo, trans, n, k, alpha, A, lda, beta, C, ld);
  cblas_sgemm(order, trans, trans == NoTrans ? Trans : NoTrans, n, n, k, alpha, A, lda, A, lda, beta, G, ld);
  int bad = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const size_t at = order == RowMajor ? (size_t)i * ld + j : (size_t)j * ld + i;
      const int in_tri = uplo == Upper ? i <= j : i >= j;
      const float want = in_tri ? G[at] : C0[at];
      if (memcmp(&C[at], &want, sizeof want) != 0 && ++bad <= 2) {
        unsigned got_bits, want_bits;
        memcpy(&got_bits, &C[at], 4);
        memcpy(&want_bits, &want, 4);
        fprintf(stderr, "n %d k %d order %d uplo %d trans %d beta %g at (%d,%d): ssyrk 0x%08X, %s 0x%08X\n", n, k,
                order, uplo, trans, beta, i, j, got_bits, in_tri ? "sgemm" : "untouched C", want_bits);
      }
    }
  return bad;
}

/* Runs syrk_vs_sgemm on n x k operands; `all`: every order, uplo, trans and
 * beta, else two cases (upper/NoTrans and lower/Trans, column-major, beta != 0). */
static void syrk_cases(int n, int k, int all, int* checks, int* failures) {
  const int ld = n + 3, lda = (n > k ? n : k) + 2;
  const size_t asz = (size_t)(n > k ? n : k) * (size_t)lda, csz = (size_t)n * (size_t)ld;
  float* A = malloc(asz * sizeof *A);
  float* C = malloc(csz * sizeof *C);
  float* G = malloc(csz * sizeof *G);
  float* C0 = malloc(csz * sizeof *C0);
  for (size_t i = 0; i < asz; ++i) A[i] = rnd();
  for (size_t i = 0; i < csz; ++i) C0[i] = rnd();
  for (int order = RowMajor; order <= ColMajor; ++order)
    for (int uplo = Upper; uplo <= Lower; ++uplo)
      for (int trans = NoTrans; trans <= Trans; ++trans)
        for (int b = 0; b < 2; ++b) {
          if (!all && !(order == ColMajor && b && (uplo == Upper) == (trans == NoTrans))) continue;
          ++*checks;
          *failures += syrk_vs_sgemm(A, lda, C0, C, G, n, k, ld, order, uplo, trans, b ? -0.75f : 0.0f) != 0;
        }
  free(A), free(C), free(G), free(C0);
}

static int exact(void) {
  const int sizes[] = {1, 7, 600};
  int failures = 0, checks = 0;
  for (int si = 0; si < 3; ++si) syrk_cases(sizes[si], 19 + si, 1, &checks, &failures);
  printf("ssyrk exact: %d passed, %d failed\n", checks - failures, failures);
  return failures != 0;
}

/* cblas_sgemm under the block-scaled policy against the C API, m 9, n 11,
 * k 70 (not a multiple of a block), alpha 1.5, beta -0.75, both layouts. */
static int sgemm_vs_api(mmaemu_model* model, const char* policy, mmaemu_accumulate acc, int* checks) {
  enum { M = 9, N = 11, K = 70 };
  static float A[M * K], B[K * N], C0[M * N], C[M * N], W[M * N], O[M * N];
  for (int i = 0; i < M * K; ++i) A[i] = rnd();
  for (int i = 0; i < K * N; ++i) B[i] = rnd();
  for (int i = 0; i < M * N; ++i) C0[i] = rnd();
  /* (alpha 1.5: BLAS_INTO_C is GPU_BLAS, the toolbox's INTO_C differs from both) */
  const mmaemu_accumulate other = MMAEMU_ACC_INTO_C;
  int failures = 0;
  for (int order = RowMajor; order <= ColMajor; ++order) {
    const int lda = order == RowMajor ? K : M, ldb = order == RowMajor ? N : K, ldc = order == RowMajor ? N : M;
    memcpy(C, C0, sizeof C), memcpy(W, C0, sizeof W), memcpy(O, C0, sizeof O);
    cblas_sgemm(order, NoTrans, NoTrans, M, N, K, 1.5f, A, lda, B, ldb, -0.75f, C, ldc);
    if (mmaemu_sgemm_block_scaled_acc(model, policy, acc, (mmaemu_layout)order, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, M, N,
                                      K, 1.5f, A, lda, B, ldb, -0.75f, W, ldc) != MMAEMU_OK ||
        mmaemu_sgemm_block_scaled_acc(model, policy, other, (mmaemu_layout)order, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, M,
                                      N, K, 1.5f, A, lda, B, ldb, -0.75f, O, ldc) != MMAEMU_OK) {
      fprintf(stderr, "C API: %s\n", mmaemu_last_error());
      return 2;
    }
    *checks += 2;
    if (memcmp(C, W, sizeof C) != 0) {
      fprintf(stderr, "order %d: cblas_sgemm differs from mmaemu_sgemm_block_scaled_acc\n", order);
      ++failures;
    }
    if (memcmp(C, O, sizeof C) == 0) {  /* the check can fail: the other accumulation differs */
      fprintf(stderr, "order %d: both accumulations give the same bits\n", order);
      ++failures;
    }
  }
  return failures;
}

static int scaled(void) {
  mmaemu_model* model = NULL;
  const char* policy = getenv("MMA_INPUT_FORMAT");
  const char* acc_env = getenv("MMA_ACCUMULATE");
  if (!policy || mmaemu_model_from_env(&model) != MMAEMU_OK) {
    fprintf(stderr, "scaled: set MMA_MODEL and MMA_INPUT_FORMAT\n");
    return 2;
  }
  const mmaemu_accumulate acc =
      acc_env && strcmp(acc_env, "accumulate-into-c") == 0 ? MMAEMU_ACC_BLAS_INTO_C : MMAEMU_ACC_GPU_BLAS;
  int checks = 0, failures = sgemm_vs_api(model, policy, acc, &checks);
  syrk_cases(7, 20, 1, &checks, &failures);
  syrk_cases(516, 20, 0, &checks, &failures);
  mmaemu_model_free(model);
  printf("ssyrk scaled %s: %d passed, %d failed\n", policy, checks - failures, failures);
  return failures != 0;
}

/* Bytes of address space this process holds now. */
static long long address_space(void) {
  FILE* f = fopen("/proc/self/statm", "r");
  long long pages = 0;
  if (!f || fscanf(f, "%lld", &pages) != 1) pages = -1;
  if (f) fclose(f);
  return pages * 4096;
}

static int limited(long long headroom, int n) {
  const int k = 4;
  float* A = malloc((size_t)n * k * sizeof *A);
  float* C = calloc((size_t)n * n, sizeof *C);
  if (!A || !C) {
    fprintf(stderr, "cannot allocate the operands\n");
    return 1;
  }
  for (size_t i = 0; i < (size_t)n * k; ++i) A[i] = rnd();
  /* Warm up: threads, their stacks and malloc arenas exist before the limit. */
  cblas_ssyrk(ColMajor, Upper, NoTrans, 600, k, 1.0f, A, n, 0.0f, C, n);
  const long long held = address_space();
  const struct rlimit lim = {(rlim_t)(held + headroom), (rlim_t)(held + headroom)};
  if (held <= 0 || setrlimit(RLIMIT_AS, &lim) != 0) {
    perror("setrlimit");
    return 1;
  }
  cblas_ssyrk(ColMajor, Lower, NoTrans, n, k, 1.0f, A, n, 0.0f, C, n);
  /* Spot check: C(n-1, 0) = sum_l A(n-1, l) A(0, l) on the model is finite
   * and the upper triangle (above the diagonal) is still zero. */
  const int ok = isfinite(C[n - 1]) && C[(size_t)(n - 1) * n] == 0.0f;
  printf("ssyrk n %d under a limit of %lld MiB more: %s\n", n, headroom >> 20, ok ? "1 passed, 0 failed" : "failed");
  return !ok;
}

/* ssyrk with k past the C API's int range once padded to blocks: the call
 * must exit (status 2, checked by the test's regular expression) before
 * touching A or allocating k-sized scratch. */
static int k_range(void) {
  const int k = INT_MAX - 30, n = 1;
  const size_t bytes = (size_t)k * sizeof(float);
  void* A = mmap(NULL, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (A == MAP_FAILED) {
    perror("mmap (address space for A)");
    return 1;
  }
  float C = 0.0f;
  fflush(stdout);
  cblas_ssyrk(ColMajor, Upper, Trans, n, k, 1.0f, (const float*)A, k, 0.0f, &C, 1);
  printf("ssyrk k = %d returned instead of refusing\n", k);
  munmap(A, bytes);
  return 1;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "exact";
  if (strcmp(mode, "exact") == 0) return exact();
  if (strcmp(mode, "bounded") == 0) return limited(96ll << 20, 6144);
  if (strcmp(mode, "starved") == 0) return limited(0, 6144);
  if (strcmp(mode, "scaled") == 0) return scaled();
  if (strcmp(mode, "krange") == 0) return k_range();
  fprintf(stderr, "usage: syrk_test exact|bounded|starved|scaled|krange\n");
  return 2;
}
