/* SPDX-License-Identifier: BSD-3-Clause */
/* The reference LAPACK on the model: run as

     mmaemu-run --lapack --verbose --model M --input F -- lapack_test

   For sgetrf (square and rectangular) and spotrf (upper and lower), on
   seeded matrices:
    1. the routine under the shim; the shim's own MMA_VERBOSE report of the
       calls it emulated is read back (stderr captured around the switch
       mmaemu_shim_set("") that prints it);
    2. the same blocked algorithm composed independently (blocked.c): its
       sgemm/ssyrk calls through the C API must number exactly what the
       shim reports, and its factors must equal LAPACK's bit for bit;
    3. the routine with the shim switched off (OpenBLAS's sgemm): the
       factors must differ.
   A run whose LAPACK bypasses the shim (OpenBLAS's own LAPACK, no --lapack)
   reports "BYPASSED" and fails. */
#define _POSIX_C_SOURCE 200809L /* fileno, dup, dup2 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "blocked.h"
#include "lapack_decl.h"
#include "mmaemu/mmaemu.h"

static int g_failed = 0, g_passed = 0;
static char g_model[256], g_policy[64];
static const uint64_t kSeed = 20240917;

static void fill(float* a, size_t count, uint64_t seed) {
  uint64_t s = seed;
  for (size_t i = 0; i < count; ++i) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    a[i] = (float)((double)(s >> 40) * 0x1p-23 - 1.0); /* [-1, 1), 24 bits */
  }
}

static uint32_t bits(float x) {
  uint32_t b;
  memcpy(&b, &x, 4);
  return b;
}

/* Switches the shim off and returns the counts of sgemm and ssyrk calls its
   MMA_VERBOSE report gives for the setting that was in force. */
static void shim_off_and_count(long* sgemm, long* ssyrk) {
  *sgemm = *ssyrk = 0;
  fflush(stderr);
  FILE* tmp = tmpfile();
  const int saved = dup(2);
  if (!tmp || saved < 0 || dup2(fileno(tmp), 2) < 0) {
    fprintf(stderr, "lapack_test: cannot capture stderr\n");
    exit(2);
  }
  const int s = mmaemu_shim_set("", NULL);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  if (s != MMAEMU_OK) {
    fprintf(stderr, "lapack_test: mmaemu_shim_set: %s\n", mmaemu_last_error());
    exit(2);
  }
  rewind(tmp);
  char line[512], name[32];
  long calls;
  while (fgets(line, sizeof line, tmp)) {
    fputs(line, stderr); /* the report stays in the log */
    if (sscanf(line, "libmmaemu: %31s %ld calls", name, &calls) != 2) continue;
    if (!strcmp(name, "sgemm")) *sgemm = calls;
    if (!strcmp(name, "ssyrk")) *ssyrk = calls;
  }
  fclose(tmp);
}

static void shim_on(void) {
  if (mmaemu_shim_set(g_model, g_policy) != MMAEMU_OK) {
    fprintf(stderr, "lapack_test: mmaemu_shim_set(%s, %s): %s\n", g_model, g_policy, mmaemu_last_error());
    exit(2);
  }
}

static void check(int ok, const char* what) {
  if (ok) {
    ++g_passed;
    printf("ok: %s\n", what);
  } else {
    ++g_failed;
    printf("FAILED: %s (seed %llu, model %s, policy %s)\n", what, (unsigned long long)kSeed, g_model, g_policy);
  }
}

/* Element mismatches of two m x n column-major factors; prints the first few in hex. */
static long mismatches(const char* what, int m, int n, const float* x, const float* y, int ld) {
  long bad = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      const float a = x[(size_t)j * ld + i], b = y[(size_t)j * ld + i];
      if (bits(a) == bits(b)) continue;
      if (bad++ < 5)
        printf("  %s (%d, %d): LAPACK 0x%08x (%.9g), composition 0x%08x (%.9g)\n", what, i, j, bits(a), a, bits(b), b);
    }
  return bad;
}

static long differing(int m, int n, const float* x, const float* y, int ld) {
  long d = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) d += bits(x[(size_t)j * ld + i]) != bits(y[(size_t)j * ld + i]);
  return d;
}

static void report_counts(const char* routine, long shim, long composed, const char* kind) {
  char what[200];
  if (shim == 0)
    printf("BYPASSED: the shim computed no %s call of %s (the calls went around the model: is the reference "
           "LAPACK preloaded? mmaemu-run --lapack)\n",
           kind, routine);
  snprintf(what, sizeof what, "%s: the shim emulated %ld %s calls, the composition made %ld", routine, shim, kind,
           composed);
  check(shim > 0 && shim == composed, what);
}

static void test_getrf(const mmaemu_model* model, int m, int n) {
  const int lda = m, mn = m < n ? m : n;
  const size_t count = (size_t)lda * n;
  float *a = malloc(count * 4), *lu = malloc(count * 4), *ref = malloc(count * 4), *native = malloc(count * 4);
  int *piv = malloc(mn * sizeof(int)), *piv_ref = malloc(mn * sizeof(int)), *piv_native = malloc(mn * sizeof(int));
  fill(a, count, kSeed + (uint64_t)m * 1000 + n);
  memcpy(lu, a, count * 4);
  memcpy(ref, a, count * 4);
  memcpy(native, a, count * 4);
  char routine[64];
  snprintf(routine, sizeof routine, "sgetrf %d x %d", m, n);
  long sgemm, ssyrk;
  shim_on();
  shim_off_and_count(&sgemm, &ssyrk); /* clears the counts */
  shim_on();
  int info = 0;
  sgetrf_(&m, &n, lu, &lda, piv, &info);
  shim_off_and_count(&sgemm, &ssyrk);
  blocked_ctx c = {model, g_policy, 0, 0, 0, MMAEMU_OK};
  blocked_getrf(&c, m, n, ref, lda, piv_ref);
  printf("%s: NB %d, info %d; composition: %ld sgemm, %ld strsm calls\n", routine, blocked_nb("SGETRF", " ", m, n),
         info, c.gemm_calls, c.trsm_calls);
  check(c.status == MMAEMU_OK, "the composition's C API calls succeed");
  report_counts(routine, sgemm, c.gemm_calls, "sgemm");
  char what[200];
  snprintf(what, sizeof what, "%s: L and U equal the composition bit for bit", routine);
  check(mismatches(routine, m, n, lu, ref, lda) == 0 && memcmp(piv, piv_ref, mn * sizeof(int)) == 0, what);
  sgetrf_(&m, &n, native, &lda, piv_native, &info); /* the shim is off: OpenBLAS's sgemm */
  const long d = differing(m, n, lu, native, lda);
  snprintf(what, sizeof what, "%s: %ld of %zu factor elements differ from the native run", routine, d, count);
  check(d > 0, what);
  free(a), free(lu), free(ref), free(native), free(piv), free(piv_ref), free(piv_native);
}

static void test_potrf(const mmaemu_model* model, char uplo, int n) {
  const int lda = n;
  const size_t count = (size_t)n * n;
  float *b = malloc(count * 4), *a = malloc(count * 4), *f = malloc(count * 4), *ref = malloc(count * 4),
        *native = malloc(count * 4);
  fill(b, count, kSeed + 7u * n + (uplo == 'U'));
  /* A = B^T B / n + I, symmetric positive definite (computed in double, rounded once). */
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      double s = 0;
      for (int k = 0; k < n; ++k) s += (double)b[(size_t)i * n + k] * b[(size_t)j * n + k];
      a[(size_t)j * n + i] = (float)(s / n + (i == j));
    }
  memcpy(f, a, count * 4);
  memcpy(ref, a, count * 4);
  memcpy(native, a, count * 4);
  char routine[64], u[2] = {uplo, 0};
  snprintf(routine, sizeof routine, "spotrf '%c' %d", uplo, n);
  long sgemm, ssyrk;
  shim_on();
  shim_off_and_count(&sgemm, &ssyrk);
  shim_on();
  int info = 0;
  spotrf_(u, &n, f, &lda, &info, 1);
  shim_off_and_count(&sgemm, &ssyrk);
  blocked_ctx c = {model, g_policy, 0, 0, 0, MMAEMU_OK};
  const int info_ref = blocked_potrf(&c, uplo, n, ref, lda);
  printf("%s: NB %d, info %d (composition %d); composition: %ld sgemm, %ld ssyrk, %ld strsm calls\n", routine,
         blocked_nb("SPOTRF", u, n, -1), info, info_ref, c.gemm_calls, c.syrk_calls, c.trsm_calls);
  check(c.status == MMAEMU_OK && info == 0 && info_ref == 0, "both factorisations succeed");
  report_counts(routine, sgemm, c.gemm_calls, "sgemm");
  report_counts(routine, ssyrk, c.syrk_calls, "ssyrk");
  char what[200];
  snprintf(what, sizeof what, "%s: the factor equals the composition bit for bit", routine);
  check(mismatches(routine, n, n, f, ref, lda) == 0, what);
  spotrf_(u, &n, native, &lda, &info, 1);
  const long d = differing(n, n, f, native, lda);
  snprintf(what, sizeof what, "%s: %ld of %zu elements differ from the native run", routine, d, count);
  check(d > 0, what);
  free(b), free(a), free(f), free(ref), free(native);
}

int main(void) {
  const char *model_name, *policy;
  if (mmaemu_shim_get(&model_name, &policy) != MMAEMU_OK || !*model_name) {
    fprintf(stderr, "lapack_test: run under the shim with a model (mmaemu-run --lapack --verbose --model M)\n");
    return 2;
  }
  const char* verbose = getenv("MMA_VERBOSE");
  if (!verbose || strcmp(verbose, "1") != 0) {
    fprintf(stderr, "lapack_test: needs MMA_VERBOSE=1 (it reads the shim's report)\n");
    return 2;
  }
  snprintf(g_model, sizeof g_model, "%s", model_name);
  snprintf(g_policy, sizeof g_policy, "%s", policy);
  mmaemu_model* model;
  if (mmaemu_model_lookup(g_model, &model) != MMAEMU_OK) {
    fprintf(stderr, "lapack_test: %s\n", mmaemu_last_error());
    return 2;
  }
  printf("lapack_test: model %s, policy %s, seed %llu\n", g_model, g_policy, (unsigned long long)kSeed);
  test_getrf(model, 200, 200);
  test_getrf(model, 230, 170);
  test_potrf(model, 'U', 200);
  test_potrf(model, 'L', 200);
  mmaemu_model_free(model);
  printf("lapack_test: %d passed, %d failed\n", g_passed, g_failed);
  return g_failed ? 1 : 0;
}
