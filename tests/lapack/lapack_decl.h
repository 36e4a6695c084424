/* SPDX-License-Identifier: BSD-3-Clause */
/* The Fortran LAPACK and BLAS routines the LAPACK tests call (gfortran ABI:
   every argument by reference, then one hidden length per CHARACTER
   argument). */
#ifndef MMAEMU_TESTS_LAPACK_DECL_H_
#define MMAEMU_TESTS_LAPACK_DECL_H_

#include <stddef.h>

void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info, size_t);
void sgeqrf_(const int* m, const int* n, float* a, const int* lda, float* tau, float* work, const int* lwork,
             int* info);
void ssytrd_(const char* uplo, const int* n, float* a, const int* lda, float* d, float* e, float* tau, float* work,
             const int* lwork, int* info, size_t);
void ssyevd_(const char* jobz, const char* uplo, const int* n, float* a, const int* lda, float* w, float* work,
             const int* lwork, int* iwork, const int* liwork, int* info, size_t, size_t);
void sgesvd_(const char* jobu, const char* jobvt, const int* m, const int* n, float* a, const int* lda, float* s,
             float* u, const int* ldu, float* vt, const int* ldvt, float* work, const int* lwork, int* info, size_t,
             size_t);
int ilaenv_(const int* ispec, const char* name, const char* opts, const int* n1, const int* n2, const int* n3,
            const int* n4, size_t, size_t);
void strsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n,
            const float* alpha, const float* a, const int* lda, float* b, const int* ldb, size_t, size_t, size_t,
            size_t);

#endif
