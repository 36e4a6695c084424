/* SPDX-License-Identifier: BSD-3-Clause */
/* The C API side of the Octave tests: seeded operands and the product the
   Octave front end must reproduce bit for bit, written as raw little-endian
   binary64, column-major (A m x k, B k x n, C m x n, D m x n).

     octave_ref toolbox MODEL IN OUT M N K ALPHA BETA SEED FILE
         the toolbox's GEMM (docs/octave.md §3): A' = fl_IN(alpha A) (RNE,
         tf32 RZ), B' = fl_IN(B), C' = fl_OUT(beta C) (fp32 RZ, fp16 RNE),
         D = A' B' + C' with C' the first accumulator (mmaemu_gemm,
         MMAEMU_ACC_INTO_C, alpha = beta = 1)
     octave_ref gemm MODEL POLICY OUT M N K ALPHA BETA SEED ACC FILE
         mmaemu_gemm on binary64 storage under the sgemm policy POLICY (or
         fp64: the fp64 unit), ACC a name of mmaemu_accumulate_parse
     octave_ref sgemm MODEL POLICY M N K SEED FILE
         fp32 operands, D = mmaemu_sgemm (what the shim gives sgemm_)
     octave_ref multiword MODEL IN P M N K SEED FILE
         A, B in [-1, 1) as doubles; p words each (the toolbox experiment's split,
         RNE), D = sum over j + k - 2 < p of the toolbox GEMM of
         (u^(j+k-2) A_j, B_k) accumulated into D (u = 2^-t of IN)
     octave_ref round FORMAT ROUNDING INFILE OUTFILE
         the binary64 values of INFILE rounded to FORMAT (ROUNDING rne, rz,
         rd, ru or rna; mmaemu_convert there and back), written to OUTFILE

   A and B (toolbox, gemm) hold values of the input format; C of the output
   format. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mmaemu/mmaemu.h"

static uint64_t g_state;
static double uniform(double lo, double hi) {
  g_state = g_state * 6364136223846793005ull + 1442695040888963407ull;
  return lo + (hi - lo) * ((double)(g_state >> 11) * 0x1p-53);
}

static void die(const char* what) {
  fprintf(stderr, "octave_ref: %s: %s\n", what, mmaemu_last_error());
  exit(2);
}

/* y = fl_f(scale x) as doubles, rounding r. */
static void round_to(mmaemu_format f, mmaemu_rounding r, const double* x, double scale, size_t n, double* y) {
  void* buf = malloc(n * 8 + 8);
  double* t = malloc(n * 8 + 8);
  for (size_t i = 0; i < n; ++i) t[i] = x[i] * scale;
  if (mmaemu_convert(MMAEMU_FP64, f, t, buf, n, r, 0) || mmaemu_convert(f, MMAEMU_FP64, buf, y, n, MMAEMU_RNE, 0))
    die("convert");
  free(buf);
  free(t);
}

static double* random_values(size_t n, mmaemu_format f, double lo, double hi) {
  double* x = malloc(n * 8 + 8);
  for (size_t i = 0; i < n; ++i) x[i] = uniform(lo, hi);
  if (f != MMAEMU_FP64) round_to(f, MMAEMU_RNE, x, 1.0, n, x);
  return x;
}

static void write_all(const char* file, int m, int n, int k, double alpha, double beta, const double* A,
                      const double* B, const double* C, const double* D) {
  FILE* f = fopen(file, "wb");
  if (!f) {
    perror(file);
    exit(2);
  }
  const int32_t dims[3] = {m, n, k};
  const double ab[2] = {alpha, beta};
  fwrite(dims, 4, 3, f);
  fwrite(ab, 8, 2, f);
  fwrite(A, 8, (size_t)m * k, f);
  fwrite(B, 8, (size_t)k * n, f);
  fwrite(C, 8, (size_t)m * n, f);
  fwrite(D, 8, (size_t)m * n, f);
  if (fclose(f)) exit(2);
}

static mmaemu_model* model(const char* name) {
  mmaemu_model* m;
  if (mmaemu_model_lookup(name, &m)) die(name);
  return m;
}

static mmaemu_format format(const char* name) {
  mmaemu_format f;
  if (mmaemu_format_parse(name, &f)) die(name);
  return f;
}

/* D = fl_IN(alpha A) fl_IN(B) + fl_OUT(beta C) as the toolbox's GEMM (D may be C). */
static void toolbox_gemm(const mmaemu_model* mdl, mmaemu_format in, mmaemu_format out, int m, int n, int k,
                         double alpha, const double* A, const double* B, double beta, const double* C, double* D) {
  double* a = malloc((size_t)m * k * 8 + 8);
  double* b = malloc((size_t)k * n * 8 + 8);
  const mmaemu_rounding rin = in == MMAEMU_TF32 ? MMAEMU_RZ : MMAEMU_RNE;
  round_to(in, rin, A, alpha, (size_t)m * k, a);
  round_to(in, rin, B, 1.0, (size_t)k * n, b);
  round_to(out, out == MMAEMU_FP32 ? MMAEMU_RZ : MMAEMU_RNE, C, beta, (size_t)m * n, D);
  mmaemu_gemm_options o;
  mmaemu_gemm_options_init(&o);
  o.a_storage = o.b_storage = o.c_storage = MMAEMU_FP64;
  o.input = in;
  o.output = out;
  o.accumulate = MMAEMU_ACC_INTO_C;
  if (mmaemu_gemm(mdl, &o, MMAEMU_COL_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, m, n, k, 1.0, a, m, b, k, 1.0, D, m))
    die("mmaemu_gemm");
  free(a);
  free(b);
}

static mmaemu_rounding rounding(const char* name) {
  const char* names[] = {"rne", "rz", "rd", "ru", "rna"};
  const mmaemu_rounding r[] = {MMAEMU_RNE, MMAEMU_RZ, MMAEMU_RD, MMAEMU_RU, MMAEMU_RNA};
  for (int i = 0; i < 5; ++i)
    if (!strcmp(name, names[i])) return r[i];
  fprintf(stderr, "octave_ref: unknown rounding '%s'\n", name);
  exit(2);
}

/* The round mode: INFILE's doubles rounded to FORMAT, written to OUTFILE. */
static int round_file(const char* fmt, const char* rnd, const char* in, const char* out) {
  const mmaemu_format f = format(fmt);
  const mmaemu_rounding r = rounding(rnd);
  FILE* fi = fopen(in, "rb");
  if (!fi) return 2;
  fseek(fi, 0, SEEK_END);
  const size_t n = (size_t)ftell(fi) / 8;
  fseek(fi, 0, SEEK_SET);
  double *x = malloc(n * 8 + 8), *y = malloc(n * 8 + 8);
  int ok = fread(x, 8, n, fi) == n;
  fclose(fi);
  if (ok) {
    round_to(f, r, x, 1.0, n, y);
    FILE* fo = fopen(out, "wb");
    ok = fo && fwrite(y, 8, n, fo) == n;
    if (fo) fclose(fo);
  }
  free(x);
  free(y);
  return ok ? 0 : 2;
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const char* mode = argv[1];
  if (!strcmp(mode, "round") && argc == 6) return round_file(argv[2], argv[3], argv[4], argv[5]);
  if (!strcmp(mode, "toolbox") && argc == 12) {
    mmaemu_model* mdl = model(argv[2]);
    const mmaemu_format in = format(argv[3]), out = format(argv[4]);
    const int m = atoi(argv[5]), n = atoi(argv[6]), k = atoi(argv[7]);
    const double alpha = atof(argv[8]), beta = atof(argv[9]);
    g_state = strtoull(argv[10], NULL, 10);
    double *A = random_values((size_t)m * k, in, -2, 2), *B = random_values((size_t)k * n, in, -2, 2),
           *C = random_values((size_t)m * n, out, -4, 4), *D = malloc((size_t)m * n * 8 + 8);
    toolbox_gemm(mdl, in, out, m, n, k, alpha, A, B, beta, C, D);
    write_all(argv[11], m, n, k, alpha, beta, A, B, C, D);
    return 0;
  }
  if (!strcmp(mode, "gemm") && argc == 13) {
    mmaemu_model* mdl = model(argv[2]);
    mmaemu_gemm_options o;
    mmaemu_gemm_options_init(&o);
    mmaemu_format f64;
    if (!mmaemu_format_parse(argv[3], &f64) && f64 == MMAEMU_FP64) o.input = MMAEMU_FP64;
    else if (mmaemu_parse_policy(argv[3], &o)) die(argv[3]);
    o.output = format(argv[4]);
    o.a_storage = o.b_storage = o.c_storage = MMAEMU_FP64;
    if (mmaemu_accumulate_parse(argv[11], &o.accumulate) != MMAEMU_OK) {
      fprintf(stderr, "octave_ref: %s\n", mmaemu_last_error());
      return 2;
    }
    const int m = atoi(argv[5]), n = atoi(argv[6]), k = atoi(argv[7]);
    const double alpha = atof(argv[8]), beta = atof(argv[9]);
    g_state = strtoull(argv[10], NULL, 10);
    const mmaemu_format cf = o.output == MMAEMU_FP64 ? MMAEMU_FP64 : o.output;
    double *A = random_values((size_t)m * k, o.input, -2, 2), *B = random_values((size_t)k * n, o.input, -2, 2),
           *C = random_values((size_t)m * n, cf, -4, 4), *D = malloc((size_t)m * n * 8 + 8);
    memcpy(D, C, (size_t)m * n * 8);
    if (mmaemu_gemm(mdl, &o, MMAEMU_COL_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, m, n, k, alpha, A, m, B, k, beta, D,
                    m))
      die("mmaemu_gemm");
    write_all(argv[12], m, n, k, alpha, beta, A, B, C, D);
    return 0;
  }
  if (!strcmp(mode, "sgemm") && argc == 9) {
    mmaemu_model* mdl = model(argv[2]);
    const int m = atoi(argv[4]), n = atoi(argv[5]), k = atoi(argv[6]);
    g_state = strtoull(argv[7], NULL, 10);
    double *A = random_values((size_t)m * k, MMAEMU_FP32, -1, 1), *B = random_values((size_t)k * n, MMAEMU_FP32, -1, 1),
           *C = calloc((size_t)m * n + 1, 8), *D = malloc((size_t)m * n * 8 + 8);
    float *a = malloc((size_t)m * k * 4 + 4), *b = malloc((size_t)k * n * 4 + 4), *d = calloc((size_t)m * n + 1, 4);
    for (size_t i = 0; i < (size_t)m * k; ++i) a[i] = (float)A[i];
    for (size_t i = 0; i < (size_t)k * n; ++i) b[i] = (float)B[i];
    if (mmaemu_sgemm(mdl, argv[3], MMAEMU_COL_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, m, n, k, 1.0f, a, m, b, k,
                     0.0f, d, m))
      die("mmaemu_sgemm");
    for (size_t i = 0; i < (size_t)m * n; ++i) D[i] = d[i];
    write_all(argv[8], m, n, k, 1.0, 0.0, A, B, C, D);
    return 0;
  }
  if (!strcmp(mode, "multiword") && argc == 10) {
    mmaemu_model* mdl = model(argv[2]);
    const mmaemu_format in = format(argv[3]);
    const int p = atoi(argv[4]), m = atoi(argv[5]), n = atoi(argv[6]), k = atoi(argv[7]);
    g_state = strtoull(argv[8], NULL, 10);
    /* u = 2^-t, t the significand bits of IN (the implicit bit counted). */
    const int t = in == MMAEMU_FP16 ? 11 : in == MMAEMU_BF16 ? 8 : in == MMAEMU_E4M3 ? 4 : in == MMAEMU_E5M2 ? 3 : 0;
    if (!t || p < 1 || p > 6) return 2;
    const double u = ldexp(1.0, -t);
    double *A = random_values((size_t)m * k, MMAEMU_FP64, -1, 1), *B = random_values((size_t)k * n, MMAEMU_FP64, -1, 1);
    double *wa[6], *wb[6], *ra = malloc((size_t)m * k * 8), *rb = malloc((size_t)k * n * 8);
    memcpy(ra, A, (size_t)m * k * 8);
    memcpy(rb, B, (size_t)k * n * 8);
    for (int j = 0; j < p; ++j) { /* temp -= w_(j-1) u^(j-1); w_j = fl(temp / u^j) */
      wa[j] = malloc((size_t)m * k * 8);
      wb[j] = malloc((size_t)k * n * 8);
      if (j > 0) {
        for (size_t i = 0; i < (size_t)m * k; ++i) ra[i] -= wa[j - 1][i] * pow(u, j - 1);
        for (size_t i = 0; i < (size_t)k * n; ++i) rb[i] -= wb[j - 1][i] * pow(u, j - 1);
      }
      round_to(in, MMAEMU_RNE, ra, 1.0 / pow(u, j), (size_t)m * k, wa[j]);
      round_to(in, MMAEMU_RNE, rb, 1.0 / pow(u, j), (size_t)k * n, wb[j]);
    }
    double *C = calloc((size_t)m * n + 1, 8), *D = calloc((size_t)m * n + 1, 8);
    for (int j = 0; j < p; ++j)
      for (int q = 0; q < p; ++q)
        if (j + q < p) toolbox_gemm(mdl, in, MMAEMU_FP32, m, n, k, pow(u, j + q), wa[j], wb[q], 1.0, D, D);
    write_all(argv[9], m, n, k, 1.0, 1.0, A, B, C, D);
    return 0;
  }
  fprintf(stderr, "octave_ref: bad arguments (see the file's comment)\n");
  return 2;
}
