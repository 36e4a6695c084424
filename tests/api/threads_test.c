/* SPDX-License-Identifier: BSD-3-Clause */
/* The library's threads through the C API (docs/kernels.md, "Threads";
 * docs/c-api.md):
 *   threads_test idle     after threaded GEMMs (a square one and the
 *                         few-columns 10 x 10 x 20000) the process uses
 *                         almost no CPU while it sleeps 200 ms: the workers
 *                         sleep, they do not spin (an OpenMP runtime's
 *                         default wait spins milliseconds per worker);
 *   threads_test cap      options.threads outside 0 .. 4096 is refused with
 *                         a message naming the range (mmaemu_gemm and the
 *                         scaled fp8 GEMM), never a crash;
 *   threads_test limited  64 threads asked for under an address-space limit
 *                         that leaves room for a few thread stacks only: the
 *                         call runs on the threads that could be made and
 *                         gives the bits of one thread (no "Thread creation
 *                         failed" exit). Not for sanitizer builds. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, nanosleep */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "mmaemu/mmaemu.h"

static int failures = 0, checks = 0;
static void expect(int ok, const char* what) {
  ++checks;
  if (!ok) {
    ++failures;
    fprintf(stderr, "failed: %s\n", what);
  }
}

static double cpu_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void sleep_ms(long ms) {
  struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

/* m x n x k H100 fp16 product of fixed operands on `threads`; status. */
static int product(int m, int n, int k, int threads, float* C) {
  mmaemu_model* model = NULL;
  if (mmaemu_model_lookup("H100", &model) != MMAEMU_OK) return -1;
  float* A = malloc(sizeof(float) * (size_t)m * k);
  float* B = malloc(sizeof(float) * (size_t)k * n);
  if (!A || !B) return -1;
  for (long i = 0; i < (long)m * k; ++i) A[i] = (float)((i * 7919) % 1013) / 1013.0f - 0.5f;
  for (long i = 0; i < (long)k * n; ++i) B[i] = (float)((i * 104729) % 997) / 997.0f - 0.5f;
  mmaemu_gemm_options opt;
  mmaemu_gemm_options_init(&opt);
  opt.threads = threads;
  const int status = mmaemu_gemm(model, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, m, n, k, 1.0, A, k,
                                 B, n, 0.0, C, n);
  free(A);
  free(B);
  mmaemu_model_free(model);
  return status;
}

static int idle(void) {
  static float C[256 * 256];
  expect(product(256, 256, 256, 4, C) == MMAEMU_OK, "256^3 on 4 threads");
  expect(product(10, 10, 20000, 2, C) == MMAEMU_OK, "10 x 10 x 20000 on 2 threads");
  const double before = cpu_seconds();
  sleep_ms(200);
  const double used = cpu_seconds() - before;
  printf("CPU while idle for 200 ms after the GEMMs: %.3f ms\n", used * 1e3);
  expect(used < 0.003, "idle workers sleep (less than 3 ms of CPU in 200 ms)");
  return 0;
}

static int cap(void) {
  static float C[16];
  for (int i = 0; i < 3; ++i) {
    const int bad[] = {-1, 4097, 1000000};
    char what[128];
    const int status = product(4, 4, 4, bad[i], C);
    snprintf(what, sizeof what, "threads = %d refused (status %d: %s)", bad[i], status, mmaemu_last_error());
    expect(status == MMAEMU_ERR_ARGUMENT && strstr(mmaemu_last_error(), "not a whole number from 0 to 4096"), what);
  }
  expect(product(4, 4, 4, 4096, C) == MMAEMU_OK, "threads = 4096 accepted");
  mmaemu_model* model = NULL;
  mmaemu_model_lookup("H100", &model);
  mmaemu_fp8_scaled_options opt;
  mmaemu_fp8_scaled_options_init(&opt);
  opt.threads = 5000;
  unsigned char a[128] = {0}, b[128 * 4] = {0};
  float sa[1] = {1}, sb[1] = {1}, d[4];
  const int status = mmaemu_gemm_fp8_scaled(model, &opt, 1, 4, 128, a, 128, sa, b, 4, sb, d, 4);
  expect(status == MMAEMU_ERR_ARGUMENT && strstr(mmaemu_last_error(), "threads = 5000"), "fp8 scaled threads = 5000");
  mmaemu_model_free(model);
  return 0;
}

static long long address_space(void) {
  FILE* f = fopen("/proc/self/statm", "r");
  long long pages = 0;
  if (!f || fscanf(f, "%lld", &pages) != 1) pages = -1;
  if (f) fclose(f);
  return pages * 4096;
}

static int limited(void) {
  enum { N = 256 };
  static float one[N * N], many[N * N];
  expect(product(N, N, N, 1, one) == MMAEMU_OK, "one thread");
  const long long held = address_space();
  struct rlimit rl = {(rlim_t)(held + (96LL << 20)), (rlim_t)(held + (96LL << 20))};
  if (held <= 0 || setrlimit(RLIMIT_AS, &rl) != 0) {
    fprintf(stderr, "cannot limit the address space\n");
    return 2;
  }
  const int status = product(N, N, N, 64, many);
  expect(status == MMAEMU_OK, "64 threads under the limit");
  expect(status == MMAEMU_OK && memcmp(one, many, sizeof one) == 0, "the bits of one thread");
  return 0;
}

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "";
  int status = 2;
  if (strcmp(mode, "idle") == 0) status = idle();
  else if (strcmp(mode, "cap") == 0) status = cap();
  else if (strcmp(mode, "limited") == 0) status = limited();
  else fprintf(stderr, "usage: threads_test idle|cap|limited\n");
  if (status) return status;
  printf("threads %s: %d passed, %d failed\n", mode, checks - failures, failures);
  return failures != 0;
}
