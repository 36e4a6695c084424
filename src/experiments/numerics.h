// SPDX-License-Identifier: BSD-3-Clause
// Numerics of the experiments: the exact reference product, error norms,
// power-of-two diagonal scaling and the multi-word splitting of Mary and
// Mikaitis, and GEMMs on a model row through the fast engine.
#pragma once

#include <cstddef>
#include <vector>

#include "driver/schedule.h"
#include "experiments/common.h"
#include "experiments/matrix.h"
#include "models/model.h"

namespace mmaemu::experiments {

/// C = A*B with every element the exact sum of the exact products, rounded
/// once to binary64 (RNE): an exact (Kulisch) accumulator, no host
/// floating-point rounding. Elements whose operands hold NaN or Inf are
/// computed by plain binary64 arithmetic instead. `threads` as driver.
Matrix exact_product(const Matrix& A, const Matrix& B, int threads = 0);

/// ||C - R||_F / ||R||_F (0 if both are zero, Inf if only R is).
double normwise_error_fro(const Matrix& C, const Matrix& R);
/// max_ij |C_ij - R_ij| / |R_ij|; an element with R_ij = 0 counts 0 if
/// C_ij = 0 and Inf otherwise; NaN anywhere gives NaN.
double componentwise_error(const Matrix& C, const Matrix& R);
/// ||X||_inf, the largest row sum of magnitudes.
double norm_inf(const Matrix& X);
/// ||C - R||_inf.
double norm_inf_diff(const Matrix& C, const Matrix& R);

/// 2^floor(log2 x) for finite x > 0 (exact, via frexp).
double pow2_floor(double x);
/// Diagonal power-of-two scalings so that |L_i A_ij| <= theta and
/// |B_ij M_j| <= theta: L_i = 2^floor(log2(theta / max_j |A_ij|)) (Mary and
/// Mikaitis; the toolbox's previous_pow2). A zero row (column) gets 1.
std::vector<double> row_scaling(const Matrix& A, double theta);
std::vector<double> col_scaling(const Matrix& B, double theta);

/// Splits x[0..count) into p words of format f (rounding r, RNE by default;
/// subnormals kept):
///   w_1 = fl(x),  w_j = fl((x - sum_{i<j} u^(i-1) w_i) / u^(j-1)),
/// so x ~ sum_j u^(j-1) w_j with u = 2^-t, t = precision(f) (fp16: 2^-11).
/// Every residual is exact in binary64 (a value minus its own rounding);
/// |x - sum_{j<=p} u^(j-1) w_j| <= u^p |x| + p u^(p-1) 2^(emin-t) (the
/// second term from subnormal words). Words never overflow when
/// |x| <= max_finite(f). With r = Round::rz (the MATLAB toolbox's split,
/// see toolbox.h) every residual keeps the sign of x and the error bound
/// doubles; a word above max_finite(f) becomes max_finite(f) (IEEE RZ).
std::vector<FormatArray> split_words(const double* x, std::size_t count, Fmt f, int p, Round r = Round::rne);

/// D = A*B (+ C) on the unit `row`: A (m x k) and B (k x n) row-major, held
/// in row.in; C/D (m x n) row-major in `c` (its format is the storage).
/// accumulate_into_c: the chain starts from C (MMAEMU_ACC_INTO_C with alpha
/// = beta = 1, the toolbox's GEMM(1, A, B, 1, C)); otherwise from +0 and C
/// is only written. Few rows (the multi-word experiment's 10) are split
/// over the threads in slices; each element's chain is the model's either
/// way, so the bits do not depend on the threads. `schedule`: the k
/// structure above the unit (driver/schedule.h; c then in main_format).
void model_gemm(const ModelRow& row, bool accumulate_into_c, std::size_t m, std::size_t n, std::size_t k,
                const FormatArray& A, const FormatArray& B, FormatArray& c, int threads = 0,
                const driver::Schedule& schedule = {});

}  // namespace mmaemu::experiments
