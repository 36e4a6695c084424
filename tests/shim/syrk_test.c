/* SPDX-License-Identifier: BSD-3-Clause */
/* ssyrk (issue 10, item 3), linked with -lmmaemu, MMA_MODEL set:
 *   syrk_test exact    every triangle element equals the cblas_sgemm element
 *                      (both layouts, uplo, trans, beta 0 and not, n across
 *                      two 512-tiles); the other triangle is untouched.
 *   syrk_test bounded  n = 6144 under an address-space limit of what the
 *                      process holds plus 96 MiB: a full n x n copy
 *                      (144 MiB) cannot be made; the blockwise one fits.
 *   syrk_test starved  the limit is what the process holds: the call must
 *                      stop with "out of memory" and exit status 2, not
 *                      abort with an uncaught exception. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

void cblas_sgemm(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);
void cblas_ssyrk(int, int, int, int, int, float, const float*, int, float, float*, int);

enum { RowMajor = 101, ColMajor = 102, NoTrans = 111, Trans = 112, Upper = 121, Lower = 122 };

static unsigned g_seed = 10;
static float rnd(void) {
  g_seed = g_seed * 1103515245u + 12345u;
  return ldexpf((float)((int)((g_seed >> 8) & 0xFFFF) - 32768), -12 - (int)((g_seed >> 4) & 7));
}

static int exact(void) {
  const int sizes[] = {1, 7, 600};
  int failures = 0, checks = 0;
  for (int si = 0; si < 3; ++si) {
    const int n = sizes[si], k = 19 + si, ld = n + 3, lda = (n > k ? n : k) + 2;
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
            const float alpha = 1.5f, beta = b ? -0.75f : 0.0f;
            /* op(A) is n x k: stored n x k (NoTrans) or k x n (Trans) in `order`. */
            memcpy(C, C0, csz * sizeof *C);
            memcpy(G, C0, csz * sizeof *G);
            cblas_ssyrk(order, uplo, trans, n, k, alpha, A, lda, beta, C, ld);
            cblas_sgemm(order, trans, trans == NoTrans ? Trans : NoTrans, n, n, k, alpha, A, lda, A, lda, beta, G,
                        ld);
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
                  fprintf(stderr, "n %d k %d order %d uplo %d trans %d beta %g at (%d,%d): ssyrk 0x%08X, %s 0x%08X\n",
                          n, k, order, uplo, trans, beta, i, j, got_bits, in_tri ? "sgemm" : "untouched C",
                          want_bits);
                }
              }
            ++checks;
            failures += bad != 0;
          }
    free(A), free(C), free(G), free(C0);
  }
  printf("ssyrk exact: %d passed, %d failed\n", checks - failures, failures);
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

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "exact";
  if (strcmp(mode, "exact") == 0) return exact();
  if (strcmp(mode, "bounded") == 0) return limited(96ll << 20, 6144);
  if (strcmp(mode, "starved") == 0) return limited(0, 6144);
  fprintf(stderr, "usage: syrk_test exact|bounded|starved\n");
  return 2;
}
