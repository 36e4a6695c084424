/* SPDX-License-Identifier: BSD-3-Clause */
/* The reference LAPACK's blocked sgetrf/spotrf (LAPACK 3.6 and later: the
   recursive sgetrf2/spotrf2 panels), composed independently of LAPACK: the
   level-3 updates through the C API (mmaemu_sgemm; ssyrk as the sgemm of the
   whole block, of which the triangle is kept, which is what the shim's ssyrk
   guarantees), strsm through the system BLAS (the shim forwards it there
   untouched), pivot search, swaps and scaling in plain C as the reference
   BLAS defines them. docs/lapack.md lists the calls. Every call is counted,
   so the counts can be held against the shim's report. */
#ifndef MMAEMU_TESTS_LAPACK_BLOCKED_H_
#define MMAEMU_TESTS_LAPACK_BLOCKED_H_

#include "mmaemu/mmaemu.h"

typedef struct blocked_ctx {
  const mmaemu_model* model;
  const char* policy;
  long gemm_calls, syrk_calls, trsm_calls;
  int status; /* first C API error, MMAEMU_OK if none */
} blocked_ctx;

/* The block size the reference LAPACK uses (ILAENV(1, name, opts, ...)). */
int blocked_nb(const char* name, const char* opts, int m, int n);

/* A = P L U of the m x n column-major A, as SGETRF: ipiv 1-based. */
void blocked_getrf(blocked_ctx* c, int m, int n, float* a, int lda, int* ipiv);
/* Cholesky factor of the n x n column-major A (uplo 'U' or 'L'), as SPOTRF;
   returns INFO (0, or the order of the first non-positive minor). */
int blocked_potrf(blocked_ctx* c, char uplo, int n, float* a, int lda);

#endif
