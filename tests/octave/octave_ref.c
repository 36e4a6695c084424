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
     octave_ref int MODEL AFMT BFMT SAT M N K SEED FILE
         mmaemu_gemm_int (column-major, beta 1) on random codes of AFMT x
         BFMT (int8, uint8, int4, uint4; a third at the extremes) and C
         (int32, some near the bounds), SAT 0 (wrap) or 1 (satfinite);
         written as dims (int32 m, n, k, sat), A and B one code's value per
         byte (int8/uint8), C and D int32, column-major
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

/* A random code's value of an integer format, a third at the extremes. */
static int random_int(mmaemu_format f) {
  const int sgn = f == MMAEMU_S8 || f == MMAEMU_S4, bits = f == MMAEMU_S4 || f == MMAEMU_U4 ? 4 : 8;
  const int lo = sgn ? -(1 << (bits - 1)) : 0, hi = sgn ? (1 << (bits - 1)) - 1 : (1 << bits) - 1;
  const double r = uniform(0, 3);
  if (r < 0.5) return lo;
  if (r < 1) return hi;
  return lo + (int)uniform(0, hi - lo + 1);
}

/* The int mode (see the file's comment). */
static int int_gemm(char** argv) {
  mmaemu_model* mdl = model(argv[2]);
  mmaemu_gemm_int_options o;
  mmaemu_gemm_int_options_init(&o);
  o.a_format = format(argv[3]);
  o.b_format = format(argv[4]);
  o.saturate = atoi(argv[5]);
  const int m = atoi(argv[6]), n = atoi(argv[7]), k = atoi(argv[8]);
  g_state = strtoull(argv[9], NULL, 10);
  const int pa = o.a_format == MMAEMU_S4 || o.a_format == MMAEMU_U4, pb = o.b_format == MMAEMU_S4 || o.b_format == MMAEMU_U4;
  const int kb = (k + 1) / 2;
  signed char *A = calloc((size_t)m * k + 1, 1), *B = calloc((size_t)k * n + 1, 1);
  unsigned char *ap = calloc((size_t)m * k + 1, 1), *bp = calloc((size_t)k * n + 1, 1);
  int32_t *C = malloc((size_t)m * n * 4 + 4), *D = malloc((size_t)m * n * 4 + 4);
  for (int l = 0; l < k; ++l)  /* A m x k column-major; packed: byte (l/2)*m + i */
    for (int i = 0; i < m; ++i) {
      const int v = random_int(o.a_format);
      A[l * m + i] = (signed char)v;
      if (pa) ap[(l / 2) * m + i] |= (unsigned char)((v & 0xF) << (4 * (l & 1)));
      else ap[l * m + i] = (unsigned char)v;
    }
  for (int j = 0; j < n; ++j)  /* B k x n column-major; packed: byte j*kb + l/2 */
    for (int l = 0; l < k; ++l) {
      const int v = random_int(o.b_format);
      B[j * k + l] = (signed char)v;
      if (pb) bp[j * kb + l / 2] |= (unsigned char)((v & 0xF) << (4 * (l & 1)));
      else bp[j * k + l] = (unsigned char)v;
    }
  for (int i = 0; i < m * n; ++i) {
    const double r = uniform(0, 4);
    C[i] = r < 1 ? INT32_MAX - (int32_t)uniform(0, 4096) : r < 2 ? INT32_MIN + (int32_t)uniform(0, 4096)
                                                               : (int32_t)uniform(-2147483648.0, 2147483647.0);
    D[i] = C[i];
  }
  if (mmaemu_gemm_int(mdl, &o, MMAEMU_COL_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, m, n, k, ap, m, bp, pb ? kb : k, 1, D,
                      m))
    die("mmaemu_gemm_int");
  FILE* f = fopen(argv[10], "wb");
  if (!f) return 2;
  const int32_t dims[4] = {m, n, k, o.saturate};
  fwrite(dims, 4, 4, f);
  fwrite(A, 1, (size_t)m * k, f);
  fwrite(B, 1, (size_t)k * n, f);
  fwrite(C, 4, (size_t)m * n, f);
  fwrite(D, 4, (size_t)m * n, f);
  return fclose(f) ? 2 : 0;
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  const char* mode = argv[1];
  if (!strcmp(mode, "round") && argc == 6) return round_file(argv[2], argv[3], argv[4], argv[5]);
  if (!strcmp(mode, "int") && argc == 11) return int_gemm(argv);
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
