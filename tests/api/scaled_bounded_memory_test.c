/* SPDX-License-Identifier: BSD-3-Clause */
/* The block-scaled sgemm's memory is bounded (docs/block-scaled.md,
 * "Speed"): the nvfp4 and mxfp8 policies on B200, 2 threads, under an
 * address-space limit of what the process holds with its operands plus
 * 64 MiB and the worker threads' stacks. The shapes have n = 4096 along
 * m and k (A 4096 x 4096, 64 MiB) or along n and k (B 4096 x 4096): the
 * engine's extra memory goes with the elements of A and of B it reads (an
 * engine that copies or decodes a whole operand needs about 15 bytes per
 * element, some 240 MiB here), while the third dimension, kept small,
 * only sets the time. Each product runs in a forked child; its output bits
 * hash (FNV-1a over 32-bit words) to the values the unbounded engine gave.
 * Not for sanitizer builds (their shadow memory is address space). */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mmaemu/mmaemu.h"

#define MIB (1024LL * 1024LL)

struct Case {
  const char* policy;
  long m, n, k;
  unsigned long long hash;
};

static const struct Case kCases[] = {
    {"nvfp4", 4096, 64, 4096, 0x39b0e1f8975d9c67ull},
    {"nvfp4", 64, 4096, 4096, 0xc26b045a9bd12a9aull},
    {"mxfp8", 4096, 64, 4096, 0xddda5048c186799full},
    {"mxfp8", 64, 4096, 4096, 0x467eaf1a0e86df7full},
};

static long long vm_size(void) {
  FILE* f = fopen("/proc/self/statm", "r");
  long long pages = 0;
  if (!f || fscanf(f, "%lld", &pages) != 1) pages = -1;
  if (f) fclose(f);
  return pages * sysconf(_SC_PAGESIZE);
}

static long long thread_stack(void) {
  struct rlimit r;
  if (getrlimit(RLIMIT_STACK, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return 32 * MIB;
  return (long long)r.rlim_cur;
}

/* In the child: the product under the limit; 0 when its bits are the expected ones. */
static int run(const struct Case* c, const float* A, const float* B, float* C) {
  const long long limit = vm_size() + 64 * MIB + 2 * (thread_stack() + MIB);
  struct rlimit rl = {(rlim_t)limit, (rlim_t)limit};
  if (setrlimit(RLIMIT_AS, &rl) != 0) {
    fprintf(stderr, "cannot limit the address space\n");
    return 2;
  }
  mmaemu_model* model = NULL;
  if (mmaemu_model_lookup("B200", &model) != MMAEMU_OK) return 2;
  const int status = mmaemu_sgemm_block_scaled(model, c->policy, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS,
                                               (int)c->m, (int)c->n, (int)c->k, 1.0f, A, (int)c->k, B, (int)c->n,
                                               0.0f, C, (int)c->n);
  mmaemu_model_free(model);
  if (status != MMAEMU_OK) {
    fprintf(stderr, "%s %ldx%ldx%ld: %s\n", c->policy, c->m, c->n, c->k, mmaemu_last_error());
    return 1;
  }
  unsigned long long h = 1469598103934665603ull;
  for (long i = 0; i < c->m * c->n; ++i) {
    uint32_t u;
    memcpy(&u, &C[i], 4);
    h = (h ^ u) * 1099511628211ull;
  }
  if (h != c->hash) {
    fprintf(stderr, "%s %ldx%ldx%ld: output hash 0x%016llx, want 0x%016llx\n", c->policy, c->m, c->n, c->k, h,
            c->hash);
    return 1;
  }
  return 0;
}

int main(void) {
  if (setenv("MMA_NUM_THREADS", "2", 1) != 0) return 2;
  int failures = 0, checks = 0;
  for (size_t i = 0; i < sizeof kCases / sizeof kCases[0]; ++i) {
    const struct Case* c = &kCases[i];
    float* A = malloc(sizeof(float) * (size_t)(c->m * c->k));
    float* B = malloc(sizeof(float) * (size_t)(c->k * c->n));
    float* C = malloc(sizeof(float) * (size_t)(c->m * c->n));
    if (!A || !B || !C) return 2;
    for (long j = 0; j < c->m * c->k; ++j) A[j] = (float)((j * 7919) % 2003) / 1001.0f - 1.0f;
    for (long j = 0; j < c->k * c->n; ++j) B[j] = (float)((j * 31) % 1009) / 500.0f - 1.0f;
    for (long j = 0; j < c->m * c->n; ++j) C[j] = (float)(j % 7);
    fflush(stdout);
    fflush(stderr);
    const pid_t pid = fork();
    if (pid < 0) return 2;
    if (pid == 0) _exit(run(c, A, B, C));
    int ws = 0;
    ++checks;
    if (waitpid(pid, &ws, 0) != pid || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
      ++failures;
      fprintf(stderr, "%s %ldx%ldx%ld: failed under the limit (status 0x%x)\n", c->policy, c->m, c->n, c->k, ws);
    }
    free(A);
    free(B);
    free(C);
  }
  printf("block-scaled bounded memory: %d passed, %d failed\n", checks - failures, failures);
  return failures != 0;
}
