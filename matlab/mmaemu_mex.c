/* SPDX-License-Identifier: BSD-3-Clause */
/* mmaemu_mex: the MEX gateway of libmmaemu for GNU Octave and MATLAB (the
   same source: `mkoctfile --mex` or `mex`; docs/octave.md). The .m files
   beside it call it; every product is the C API's mmaemu_gemm on binary64
   storage.

     D = mmaemu_mex('gemm', alpha, A, B, beta, C, informat, outformat, model[, accumulate])
         libmmaemu's semantics (docs/models.md §7): A and B converted to
         informat by the sgemm policy of that name (RNE; tf32 truncates; fp8
         saturates; or fp64, the fp64 unit), alpha and beta outside the unit, accumulate a
         mode of the C API's table (mmaemu_accumulate_parse): 'gpu-blas' (default), 'into-c'
         or 'blas-into-c' (also spelt 'accumulate-into-c').
     D = mmaemu_mex('gemm', 1, A, B, beta, C, 'int8', 'int32', model[, overflow])
         the integer unit (docs/models.md §11; mmaemu_gemm_int): A and B
         int8 or uint8 matrices of codes (informat 'int8', 'uint8', 'int4',
         'uint4', or 'int8,uint8' etc. for B's own; int4 values in range),
         C int32 (or [] / 0), beta 0 or 1; D = A*B + C an int32 matrix,
         overflow 'wrap' (default) or 'satfinite' (.satfinite).
     D = mmaemu_mex('toolbox', fname, model, alpha, A, B, beta, C, informat, outformat)
         the MATLAB Tensor Core toolbox's GEMM: alpha*A and B rounded to
         informat (RNE; tf32 toward zero), beta*C to outformat (fp32 toward
         zero, fp16 RNE), then D = A*B + C with C the first accumulator.
     Y = mmaemu_mex('round', X, format[, rounding])
         X rounded to format ('rne', 'rz', 'rd', 'ru', 'rna'), as doubles.
     S = mmaemu_mex('accumulate_modes')
         the C API's accumulate modes (mmaemu_accumulate_name), comma-separated.

   Inputs are real double matrices; results are doubles holding values of
   the output format. */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mex.h"
#include "mmaemu/mmaemu.h"

/* Reports an error to the interpreter (does not return). */
static void fail(const char* id, const char* fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  mexErrMsgIdAndTxt(id, "%s", msg);
}

/* A char row argument, copied into buf. */
static void string_arg(const mxArray* a, const char* fname, const char* what, char* buf, size_t size) {
  if (!a || !mxIsChar(a) || mxGetM(a) > 1) fail("mmaemu:argument", "%s: %s must be a string", fname, what);
  char* s = mxArrayToString(a);
  if (!s) fail("mmaemu:argument", "%s: %s must be a string", fname, what);
  snprintf(buf, size, "%s", s);
  mxFree(s);
}

/* A real, full double matrix. */
static const double* matrix_arg(const mxArray* a, const char* fname, const char* what) {
  if (!mxIsDouble(a) || mxIsComplex(a) || mxIsSparse(a) || mxGetNumberOfDimensions(a) > 2)
    fail("mmaemu:argument", "%s: %s must be a real double matrix (convert with double(%s))", fname, what, what);
  return mxGetPr(a);
}

static double scalar_arg(const mxArray* a, const char* fname, const char* what) {
  const double* p = matrix_arg(a, fname, what);
  if (mxGetNumberOfElements(a) != 1) fail("mmaemu:argument", "%s: %s must be a scalar", fname, what);
  return p[0];
}

static mmaemu_model* model_arg(const mxArray* a, const char* fname) {
  char name[512];
  string_arg(a, fname, "the model", name, sizeof name);
  mmaemu_model* m = NULL;
  if (mmaemu_model_lookup(name, &m) != MMAEMU_OK) fail("mmaemu:model", "%s: %s", fname, mmaemu_last_error());
  return m;
}

static mmaemu_format format_arg(const mxArray* a, const char* fname, const char* what) {
  char name[64];
  string_arg(a, fname, what, name, sizeof name);
  mmaemu_format f;
  if (mmaemu_format_parse(name, &f) != MMAEMU_OK) fail("mmaemu:format", "%s: %s: %s", fname, what, mmaemu_last_error());
  return f;
}

/* y[i] = x[i] (times scale) rounded to f and back to binary64; the first
   finite value that becomes Inf or NaN is an error when `overflow_error`. */
static void round_to(mmaemu_format f, mmaemu_rounding r, const double* x, double scale, size_t n, size_t rows,
                     double* y, const char* fname, const char* what, int overflow_error) {
  const int bytes = mmaemu_format_storage_bytes(f);
  unsigned char* buf = mxMalloc(n * (size_t)bytes + 8);
  for (size_t i = 0; i < n; ++i) y[i] = x[i] * scale;
  if (mmaemu_convert(MMAEMU_FP64, f, y, buf, n, r, 0) != MMAEMU_OK ||
      mmaemu_convert(f, MMAEMU_FP64, buf, y, n, MMAEMU_RNE, 0) != MMAEMU_OK)
    fail("mmaemu:format", "%s: %s: %s", fname, what, mmaemu_last_error());
  mxFree(buf);
  if (!overflow_error) return;
  for (size_t i = 0; i < n; ++i)
    if (isfinite(x[i] * scale) && !isfinite(y[i]))
      fail("mmaemu:range", "%s: %s(%zu,%zu) = %g is beyond the range of %s", fname, what, i % rows + 1, i / rows + 1,
           x[i] * scale, mmaemu_format_name(f));
}

/* C as an m x n matrix: a copy of C, or zeros for [] or a scalar 0 (as the
   toolbox's GEMM), or the scalar broadcast. */
static double* c_operand(const mxArray* C, size_t m, size_t n, const char* fname) {
  const double* c = matrix_arg(C, fname, "C");
  double* out = mxCalloc(m * n + 1, sizeof(double));
  const size_t count = mxGetNumberOfElements(C);
  if (count == 0) return out;
  if (count == 1) {
    for (size_t i = 0; i < m * n; ++i) out[i] = c[0];
    return out;
  }
  if (mxGetM(C) != m || mxGetN(C) != n)
    fail("mmaemu:size", "%s: C is %zux%zu, but A*B is %zux%zu", fname, (size_t)mxGetM(C), (size_t)mxGetN(C), m, n);
  memcpy(out, c, m * n * sizeof(double));
  return out;
}

static void check_sizes(const mxArray* A, const mxArray* B, const char* fname) {
  if (mxGetN(A) != mxGetM(B))
    fail("mmaemu:size", "%s: Matrix dimensions are not compatible for multiplication: A is %zux%zu, B is %zux%zu.",
         fname, (size_t)mxGetM(A), (size_t)mxGetN(A), (size_t)mxGetM(B), (size_t)mxGetN(B));
  if (mxGetM(A) > 2147483647u || mxGetN(A) > 2147483647u || mxGetN(B) > 2147483647u)
    fail("mmaemu:size", "%s: dimensions beyond 2^31 - 1", fname);
}

static mxArray* run_gemm(const mmaemu_model* model, const mmaemu_gemm_options* opt, double alpha, const double* A,
                         const double* B, double beta, double* C, size_t m, size_t n, size_t k, const char* fname) {
  const int st = mmaemu_gemm(model, opt, MMAEMU_COL_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, (int)m, (int)n, (int)k,
                             alpha, A, m ? (int)m : 1, B, k ? (int)k : 1, beta, C, m ? (int)m : 1);
  if (st != MMAEMU_OK) fail(st == MMAEMU_ERR_UNSUPPORTED ? "mmaemu:unsupported" : "mmaemu:gemm", "%s: %s", fname,
                            mmaemu_last_error());
  mxArray* D = mxCreateDoubleMatrix(m, n, mxREAL);
  if (m > 0 && n > 0) memcpy(mxGetPr(D), C, m * n * sizeof(double));
  return D;
}

/* ---- The integer units (mmaemu_gemm_int) ---- */

static int is_int4(mmaemu_format f) { return f == MMAEMU_S4 || f == MMAEMU_U4; }
static int is_signed_int(mmaemu_format f) { return f == MMAEMU_S8 || f == MMAEMU_S4; }

/* The integer formats of informat ("int8", or "int8,uint8": A's and B's);
   0 when informat names no integer format. */
static int int_formats(const char* in, mmaemu_format* fa, mmaemu_format* fb, const char* fname) {
  char a[64], b[64];
  const char* comma = strchr(in, ',');
  snprintf(a, sizeof a, "%.*s", comma ? (int)(comma - in) : (int)strlen(in), in);
  snprintf(b, sizeof b, "%s", comma ? comma + 1 : a);
  static const mmaemu_format ints[] = {MMAEMU_S8, MMAEMU_U8, MMAEMU_S4, MMAEMU_U4};
  int found_a = 0, found_b = 0;
  for (int pass = 0; pass < 2; ++pass) {
    mmaemu_format f;
    if (mmaemu_format_parse(pass ? b : a, &f) != MMAEMU_OK) continue;
    for (int i = 0; i < 4; ++i)
      if (f == ints[i]) {
        if (pass) *fb = f, found_b = 1;
        else *fa = f, found_a = 1;
      }
  }
  if (!found_a && !comma) return 0;
  if (!found_a || !found_b)
    fail("mmaemu:format", "%s: informat '%s': integer inputs are int8, uint8, int4, uint4, or two of them as "
         "'int8,uint8' (A's, B's)", fname, in);
  return 1;
}

/* X's codes (an int8 or uint8 matrix, rows x cols, column-major) for
   mmaemu_gemm_int's column-major call: one per byte, or int4 packed two per
   byte along k (A: k along columns, byte (l/2)*rows + i; B: k along rows,
   byte j*ceil(k/2) + l/2). */
static unsigned char* int_codes(const mxArray* X, mmaemu_format f, int k_along_rows, const char* fname,
                                const char* what) {
  const int sgn = is_signed_int(f);
  if (!(sgn ? mxIsInt8(X) : mxIsUint8(X)) || mxIsComplex(X) || mxGetNumberOfDimensions(X) > 2)
    fail("mmaemu:argument", "%s: %s must be a real %s matrix for the input %s (convert with %s(%s))", fname, what,
         sgn ? "int8" : "uint8", mmaemu_format_name(f), sgn ? "int8" : "uint8", what);
  const size_t rows = mxGetM(X), cols = mxGetN(X), n = rows * cols;
  const unsigned char* v = (const unsigned char*)mxGetData(X);
  unsigned char* out = mxCalloc(n + 1, 1);
  if (!is_int4(f)) {
    if (n) memcpy(out, v, n);
    return out;
  }
  const int lo = sgn ? -8 : 0, hi = sgn ? 7 : 15;
  const size_t kb = (rows + 1) / 2;
  for (size_t j = 0; j < cols; ++j)
    for (size_t i = 0; i < rows; ++i) {
      const unsigned char c = v[j * rows + i];
      const int val = sgn ? (int)(signed char)c : (int)c;
      if (val < lo || val > hi)
        fail("mmaemu:range", "%s: %s(%zu,%zu) = %d is outside the 4-bit range [%d, %d]", fname, what, i + 1, j + 1, val,
             lo, hi);
      const size_t l = k_along_rows ? i : j, line = k_along_rows ? j : i;
      const size_t at = k_along_rows ? line * kb + l / 2 : (l / 2) * rows + line;
      out[at] = (unsigned char)(out[at] | ((c & 0xF) << (4 * (l & 1))));
    }
  return out;
}

/* 'gemm' on an integer unit: alpha 1, beta 0 or 1, outformat int32,
   args[8] (if given) the overflow rule. */
static mxArray* cmd_gemm_int(int nrhs, const mxArray* prhs[], mmaemu_format fa, mmaemu_format fb, const char* fname) {
  const double alpha = scalar_arg(prhs[0], fname, "alpha"), beta = scalar_arg(prhs[3], fname, "beta");
  if (alpha != 1 || (beta != 0 && beta != 1))
    fail("mmaemu:argument", "%s: the integer units compute D = A*B + C: alpha must be 1 and beta 0 or 1 (got %g, %g)",
         fname, alpha, beta);
  mmaemu_format out;
  char outname[64];
  string_arg(prhs[6], fname, "outformat", outname, sizeof outname);
  if (mmaemu_format_parse(outname, &out) != MMAEMU_OK || out != MMAEMU_S32)
    fail("mmaemu:format", "%s: outformat '%s': the integer units give int32 (s32) results", fname, outname);
  mmaemu_gemm_int_options opt;
  mmaemu_gemm_int_options_init(&opt);
  opt.a_format = fa;
  opt.b_format = fb;
  if (nrhs == 9) {
    char rule[32];
    string_arg(prhs[8], fname, "overflow", rule, sizeof rule);
    if (!strcmp(rule, "satfinite")) opt.saturate = 1;
    else if (strcmp(rule, "wrap"))
      fail("mmaemu:argument", "%s: overflow '%s' for an integer input (valid: wrap, satfinite)", fname, rule);
  }
  check_sizes(prhs[1], prhs[2], fname);
  const size_t m = mxGetM(prhs[1]), k = mxGetN(prhs[1]), n = mxGetN(prhs[2]);
  unsigned char* a = int_codes(prhs[1], fa, 0, fname, "A");
  unsigned char* b = int_codes(prhs[2], fb, 1, fname, "B");
  mxArray* D = mxCreateNumericMatrix(m, n, mxINT32_CLASS, mxREAL);
  int32_t* d = (int32_t*)mxGetData(D);
  const mxArray* C = prhs[4];
  const size_t count = mxGetNumberOfElements(C);
  const int zero_c = count == 0 || (count == 1 && mxIsDouble(C) && !mxIsComplex(C) && mxGetPr(C)[0] == 0);
  if (!zero_c) {
    if (!mxIsInt32(C) || mxIsComplex(C) || mxGetM(C) != m || mxGetN(C) != n)
      fail("mmaemu:argument", "%s: C must be an int32 %zux%zu matrix, [] or 0 for the integer units", fname, m, n);
    if (m * n != 0) memcpy(d, mxGetData(C), m * n * sizeof(int32_t));
  }
  mmaemu_model* model = model_arg(prhs[7], fname);
  const int lda = m ? (int)m : 1, ldb = k ? (int)(is_int4(fb) ? (k + 1) / 2 : k) : 1;
  const int st = mmaemu_gemm_int(model, &opt, MMAEMU_COL_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, (int)m, (int)n,
                                 (int)k, a, lda, b, ldb, beta != 0 && !zero_c, d, m ? (int)m : 1);
  mmaemu_model_free(model);
  mxFree(a);
  mxFree(b);
  if (st != MMAEMU_OK)
    fail(st == MMAEMU_ERR_UNSUPPORTED ? "mmaemu:unsupported" : "mmaemu:gemm", "%s: %s", fname, mmaemu_last_error());
  return D;
}

/* 'gemm' with an Ozaki scheme as its last argument (docs/ozaki.md): fp64
   D = alpha*A*B + beta*C by mmaemu_dgemm_ex on the unit `informat` names
   (int8, int4, or for scheme I fp16, bf16, tf32, e4m3, ...); outformat fp64. */
static mxArray* run_ozaki(const mxArray* prhs[], const char* scheme, double alpha, const double* A, const double* B,
                          double beta, const char* fname) {
  mmaemu_dgemm_options opt;
  mmaemu_dgemm_options_init(&opt);
  opt.scheme = scheme;
  opt.input = format_arg(prhs[5], fname, "informat (the scheme's unit)");
  if (format_arg(prhs[6], fname, "outformat") != MMAEMU_FP64)
    fail("mmaemu:format", "%s: outformat: an Ozaki scheme (%s) computes fp64: 'fp64'", fname, scheme);
  const size_t m = mxGetM(prhs[1]), k = mxGetN(prhs[1]), n = mxGetN(prhs[2]);
  double* C = c_operand(prhs[4], m, n, fname);
  mmaemu_model* model = model_arg(prhs[7], fname);
  const int st = mmaemu_dgemm_ex(model, &opt, MMAEMU_COL_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, (int)m, (int)n,
                                 (int)k, alpha, A, m ? (int)m : 1, B, k ? (int)k : 1, beta, C, m ? (int)m : 1, NULL);
  mmaemu_model_free(model);
  if (st != MMAEMU_OK) fail(st == MMAEMU_ERR_UNSUPPORTED ? "mmaemu:unsupported" : "mmaemu:gemm", "%s: %s", fname,
                            mmaemu_last_error());
  mxArray* D = mxCreateDoubleMatrix(m, n, mxREAL);
  if (m > 0 && n > 0) memcpy(mxGetPr(D), C, m * n * sizeof(double));
  mxFree(C);
  return D;
}

/* 'gemm', alpha, A, B, beta, C, informat, outformat, model[, accumulate or scheme] */
static mxArray* cmd_gemm(int nrhs, const mxArray* prhs[]) {
  const char* fname = "mmaemu_gemm";
  if (nrhs != 8 && nrhs != 9)
    fail("mmaemu:nargin", "usage: D = mmaemu_gemm(alpha, A, B, beta, C, informat, outformat, model"
                         "[, accumulate, overflow or scheme])");
  char in[64], last[64] = "";
  string_arg(prhs[5], fname, "informat", in, sizeof in);
  if (nrhs == 9) string_arg(prhs[8], fname, "accumulate, overflow or scheme", last, sizeof last);
  const int ozaki = !strncmp(last, "ozaki", 5); /* fp64 by an Ozaki scheme on the unit informat names */
  mmaemu_format fa = MMAEMU_S8, fb = MMAEMU_S8;
  if (!ozaki && int_formats(in, &fa, &fb, fname)) return cmd_gemm_int(nrhs, prhs, fa, fb, fname);
  const double alpha = scalar_arg(prhs[0], fname, "alpha"), beta = scalar_arg(prhs[3], fname, "beta");
  const double *A = matrix_arg(prhs[1], fname, "A"), *B = matrix_arg(prhs[2], fname, "B");
  check_sizes(prhs[1], prhs[2], fname);
  if (ozaki) return run_ozaki(prhs, last, alpha, A, B, beta, fname);
  mmaemu_gemm_options opt;
  mmaemu_gemm_options_init(&opt);
  mmaemu_format in_fmt;
  if (mmaemu_format_parse(in, &in_fmt) == MMAEMU_OK && in_fmt == MMAEMU_FP64) opt.input = MMAEMU_FP64;  /* DMMA */
  else if (mmaemu_parse_policy(in, &opt) != MMAEMU_OK)
    fail("mmaemu:format", "%s: informat: %s; or fp64", fname, mmaemu_last_error());
  opt.output = format_arg(prhs[6], fname, "outformat");
  opt.a_storage = opt.b_storage = opt.c_storage = MMAEMU_FP64;
  if (nrhs == 9) {
    char acc[64];
    string_arg(prhs[8], fname, "accumulate", acc, sizeof acc);
    /* The C API's one table of modes (mmaemu_accumulate_parse): gpu-blas,
       into-c, blas-into-c (also spelt accumulate-into-c). */
    if (mmaemu_accumulate_parse(acc, &opt.accumulate) != MMAEMU_OK)
      fail("mmaemu:argument", "%s: %s", fname, mmaemu_last_error());
  }
  const size_t m = mxGetM(prhs[1]), k = mxGetN(prhs[1]), n = mxGetN(prhs[2]);
  double* C = c_operand(prhs[4], m, n, fname);
  mmaemu_model* model = model_arg(prhs[7], fname);
  mxArray* D = run_gemm(model, &opt, alpha, A, B, beta, C, m, n, k, fname);
  mmaemu_model_free(model);
  mxFree(C);
  return D;
}

/* 'toolbox', fname, model, alpha, A, B, beta, C, informat, outformat */
static mxArray* cmd_toolbox(int nrhs, const mxArray* prhs[]) {
  char fname[64];
  if (nrhs != 9) fail("mmaemu:nargin", "mmaemu_mex('toolbox', ...): 9 arguments");
  string_arg(prhs[0], "mmaemu_mex", "the function name", fname, sizeof fname);
  const double alpha = scalar_arg(prhs[2], fname, "alpha"), beta = scalar_arg(prhs[5], fname, "beta");
  const double *A = matrix_arg(prhs[3], fname, "A"), *B = matrix_arg(prhs[4], fname, "B");
  check_sizes(prhs[3], prhs[4], fname);
  const mmaemu_format in = format_arg(prhs[7], fname, "informat"), out = format_arg(prhs[8], fname, "outformat");
  if (out != MMAEMU_FP32 && out != MMAEMU_FP16)
    fail("mmaemu:format", "%s: the output format must be fp32 or fp16, not %s", fname, mmaemu_format_name(out));
  const size_t m = mxGetM(prhs[3]), k = mxGetN(prhs[3]), n = mxGetN(prhs[4]);
  double* a = mxMalloc(m * k * sizeof(double) + 8);
  double* b = mxMalloc(k * n * sizeof(double) + 8);
  double* c = c_operand(prhs[6], m, n, fname);
  /* The toolbox's GEMM (docs/octave.md §3): alpha*A and B rounded to the input format (RNE;
     tf32 RZ), beta*C to the output format (fp32 RZ, fp16 RNE). */
  const mmaemu_rounding rin = in == MMAEMU_TF32 ? MMAEMU_RZ : MMAEMU_RNE;
  round_to(in, rin, A, alpha, m * k, m, a, fname, "alpha*A", 1);
  round_to(in, rin, B, 1.0, k * n, k, b, fname, "B", 1);
  round_to(out, out == MMAEMU_FP32 ? MMAEMU_RZ : MMAEMU_RNE, c, beta, m * n, m, c, fname, "beta*C", 0);
  mmaemu_gemm_options opt;
  mmaemu_gemm_options_init(&opt);
  opt.a_storage = opt.b_storage = opt.c_storage = MMAEMU_FP64;
  opt.input = in;
  opt.output = out;
  opt.accumulate = MMAEMU_ACC_INTO_C;
  mmaemu_model* model = model_arg(prhs[1], fname);
  mxArray* D = run_gemm(model, &opt, 1.0, a, b, 1.0, c, m, n, k, fname);
  mmaemu_model_free(model);
  mxFree(a);
  mxFree(b);
  mxFree(c);
  return D;
}

/* 'round', X, format[, rounding] */
static mxArray* cmd_round(int nrhs, const mxArray* prhs[]) {
  const char* fname = "mmaemu_round";
  if (nrhs != 2 && nrhs != 3) fail("mmaemu:nargin", "usage: Y = mmaemu_round(X, format[, rounding])");
  const double* x = matrix_arg(prhs[0], fname, "X");
  const mmaemu_format f = format_arg(prhs[1], fname, "format");
  mmaemu_rounding r = MMAEMU_RNE;
  if (nrhs == 3) {
    char mode[16];
    static const char* names[] = {"rne", "rz", "rd", "ru", "rna"};
    string_arg(prhs[2], fname, "rounding", mode, sizeof mode);
    int found = 0;
    for (int i = 0; i < 5; ++i)
      if (!strcmp(mode, names[i])) r = (mmaemu_rounding)i, found = 1;
    if (!found) fail("mmaemu:argument", "%s: rounding '%s' (valid: rne, rz, rd, ru, rna)", fname, mode);
  }
  mxArray* Y = mxCreateDoubleMatrix(mxGetM(prhs[0]), mxGetN(prhs[0]), mxREAL);
  round_to(f, r, x, 1.0, mxGetNumberOfElements(prhs[0]), mxGetM(prhs[0]) ? mxGetM(prhs[0]) : 1, mxGetPr(Y), fname, "X",
           0);
  return Y;
}

/* 'accumulate_modes': "gpu-blas,into-c,blas-into-c", the table's names. */
static mxArray* cmd_accumulate_modes(int nrhs) {
  if (nrhs != 0) fail("mmaemu:nargin", "mmaemu_mex('accumulate_modes'): no arguments");
  char names[256] = "";
  for (int mode = 0; mmaemu_accumulate_name(mode); ++mode) {
    if (mode) strncat(names, ",", sizeof names - strlen(names) - 1);
    strncat(names, mmaemu_accumulate_name(mode), sizeof names - strlen(names) - 1);
  }
  return mxCreateString(names);
}

void mexFunction(int nlhs, mxArray* plhs[], int nrhs, const mxArray* prhs[]) {
  (void)nlhs;
  char cmd[32];
  if (nrhs < 1) fail("mmaemu:nargin", "mmaemu_mex: which command? (gemm, toolbox, round, accumulate_modes)");
  string_arg(prhs[0], "mmaemu_mex", "the command", cmd, sizeof cmd);
  if (!strcmp(cmd, "gemm")) plhs[0] = cmd_gemm(nrhs - 1, prhs + 1);
  else if (!strcmp(cmd, "toolbox")) plhs[0] = cmd_toolbox(nrhs - 1, prhs + 1);
  else if (!strcmp(cmd, "round")) plhs[0] = cmd_round(nrhs - 1, prhs + 1);
  else if (!strcmp(cmd, "accumulate_modes")) plhs[0] = cmd_accumulate_modes(nrhs - 1);
  else fail("mmaemu:argument", "mmaemu_mex: unknown command '%s' (valid: gemm, toolbox, round, accumulate_modes)", cmd);
}
