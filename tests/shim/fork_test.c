/* SPDX-License-Identifier: BSD-3-Clause */
/* Fork safety: after the parent has made a GEMM on several threads, a
 * forked child's GEMM must return (the parent's worker threads do not exist
 * in the child, which starts its own pool) and give the same bits. The child runs under an
 * alarm, so a regression fails instead of hanging. Two calls per process:
 * through the C API and through cblas_sgemm (libmmaemu's BLAS entry). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmaemu/mmaemu.h"

void cblas_sgemm(int, int, int, int, int, int, float, const float*, int, const float*, int, float, float*, int);

enum { N = 200 };
static float A[N * N], C_parent[N * N], C_child[N * N], C_blas_parent[N * N], C_blas_child[N * N];

static int api_gemm(const mmaemu_model* model, float* C) {
  mmaemu_gemm_options opt;
  mmaemu_gemm_options_init(&opt);
  if (mmaemu_parse_policy("fp16", &opt) != MMAEMU_OK) return -1;
  opt.threads = 4;
  return mmaemu_gemm(model, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, N, N, N, 1.0, A, N, A, N,
                     0.0, C, N);
}

static void blas_gemm(float* C) { cblas_sgemm(101, 111, 111, N, N, N, 1.0f, A, N, A, N, 0.0f, C, N); }

/* Runs one child that repeats both products; 0 if it returned the same bits. */
static int run_child(const mmaemu_model* model, int depth) {
  const pid_t pid = fork();
  if (pid < 0) {
    perror("fork");
    return 1;
  }
  if (pid == 0) {
    alarm(60); /* a hang in the OpenMP runtime ends here, with SIGALRM */
    if (api_gemm(model, C_child) != MMAEMU_OK) _exit(3);
    blas_gemm(C_blas_child);
    if (memcmp(C_child, C_parent, sizeof C_child) != 0) _exit(4);
    if (memcmp(C_blas_child, C_blas_parent, sizeof C_blas_child) != 0) _exit(5);
    /* A grandchild too: the guard is inherited. */
    _exit(depth > 0 ? run_child(model, depth - 1) : 0);
  }
  int status = 0;
  if (waitpid(pid, &status, 0) < 0) {
    perror("waitpid");
    return 1;
  }
  if (WIFSIGNALED(status)) {
    fprintf(stderr, "child killed by signal %d%s\n", WTERMSIG(status),
            WTERMSIG(status) == SIGALRM ? " (it hung in its GEMM)" : "");
    return 1;
  }
  if (WEXITSTATUS(status) != 0) fprintf(stderr, "child failed with status %d\n", WEXITSTATUS(status));
  return WEXITSTATUS(status);
}

int main(void) {
  mmaemu_model* model = NULL;
  if (mmaemu_model_lookup("MI250", &model) != MMAEMU_OK) {
    fprintf(stderr, "%s\n", mmaemu_last_error());
    return 1;
  }
  unsigned s = 2026;
  for (int i = 0; i < N * N; ++i) {
    s = s * 1103515245u + 12345u;
    A[i] = (float)((int)((s >> 8) & 0xFFFF) - 32768) / 4096.0f;
  }
  if (api_gemm(model, C_parent) != MMAEMU_OK) {
    fprintf(stderr, "%s\n", mmaemu_last_error());
    return 1;
  }
  blas_gemm(C_blas_parent);
  int failures = 0;
  for (int round = 0; round < 3; ++round) failures += run_child(model, 1) != 0;
  /* The parent still computes on threads, with the same bits. */
  if (api_gemm(model, C_child) != MMAEMU_OK || memcmp(C_child, C_parent, sizeof C_child) != 0) ++failures;
  mmaemu_model_free(model);
  printf("fork: %d passed, %d failed\n", 4 - failures, failures);
  return failures != 0;
}
