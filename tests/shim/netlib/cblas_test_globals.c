/* SPDX-License-Identifier: BSD-3-Clause */
/* The two globals netlib's C BLAS testers (xscblat3, xdcblat3) expect from
 * the reference CBLAS library; preloaded with libmmaemu, whose CBLAS entries
 * do not need them. */
int RowMajorStrg, CBLAS_CallFromC;
