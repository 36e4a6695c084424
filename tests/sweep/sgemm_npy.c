/* SPDX-License-Identifier: BSD-3-Clause */
/* A small C program for mmaemu sweep's tests: C = A*B (cblas_sgemm, 24 x 40
 * times 40 x 16) written as OUT.npy; under the model named by CRASH_UNDER
 * (optional second argument, compared with MMA_MODEL) it aborts instead. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { M = 24, N = 16, K = 40 };

static int write_npy(const char* path, const float* c) {
  char header[128];
  int len = snprintf(header, sizeof header, "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }", M, N);
  while ((len + 11) % 64 != 0) header[len++] = ' ';
  header[len - 1] = '\n';
  FILE* f = fopen(path, "wb");
  if (!f) return 1;
  const unsigned char magic[] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0, (unsigned char)(len & 0xff), (unsigned char)(len >> 8)};
  fwrite(magic, 1, sizeof magic, f);
  fwrite(header, 1, (size_t)len, f);
  fwrite(c, sizeof(float), M * N, f);
  return fclose(f) != 0;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: sgemm_npy OUT.npy [CRASH_UNDER]\n");
    return 2;
  }
  const char* model = getenv("MMA_MODEL");
  if (argc > 2 && model && strcmp(model, argv[2]) == 0) {
    fprintf(stderr, "sgemm_npy: refusing to run under %s\n", model);
    abort();
  }
  static float a[M * K], b[K * N], c[M * N];
  for (int i = 0; i < M * K; ++i) a[i] = (float)((i * 37 % 101) - 50) / 17.0f;
  for (int i = 0; i < K * N; ++i) b[i] = (float)((i * 53 % 89) - 44) / 13.0f;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, a, K, b, N, 0.0f, c, N);
  return write_npy(argv[1], c);
}
