// SPDX-License-Identifier: BSD-3-Clause
// Sequential matrix diagonalisation (SMD; S. Redif, S. Weiss and J. G.
// McWhirter, "Sequential matrix diagonalization algorithms for polynomial
// EVD of parahermitian matrices", IEEE Trans. Signal Process. 63(1), 2015)
// with its dominant GEMMs on a matrix-unit model, as the AMD paper's
// Sec. 8.2 (Figs. 7-9) runs it. The algorithm's choices where the paper
// leaves room are in docs/smd.md.
//
// A polynomial matrix X(z) = sum_t X[t] z^-t is held as its coefficient
// matrices over lags lo .. lo + size - 1. Per iteration:
//   search    the column k and lag t of the largest off-diagonal column
//             norm ||S[t](j != k, k)||_2 of S(z);
//   shift     S'(z) = L(z) S(z) L~(z), H'(z) = L(z) H(z), L(z) = diag(1 .. z^-t
//             (entry k) .. 1): that column's energy moves to lag 0;
//   rotate    S'[0] = Q D Q^T (Eigen, fp64, eigenvalues descending);
//             S(z) = Q^T S'(z) Q and H(z) = Q^T H'(z), every lag at once:
//             the dominant GEMMs (on the model, or in fp64);
//   truncate  outer lags holding at most a share mu of the energy.
// It stops when the largest off-diagonal column norm is at most eps times
// ||R(z)||_F, or after max_iterations.
#pragma once

#include <Eigen/Dense>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "formats/format.h"

namespace mmaemu::experiments {

struct PolyMatrix {
  int lo = 0;                           // lag of c[0]
  std::vector<Eigen::MatrixXd> c;       // coefficients, lag lo + i at c[i]
  int hi() const { return lo + static_cast<int>(c.size()) - 1; }
  const Eigen::MatrixXd& at(int t) const { return c[static_cast<std::size_t>(t - lo)]; }
  Eigen::MatrixXd& at(int t) { return c[static_cast<std::size_t>(t - lo)]; }
  double energy() const;  // sum over lags of ||X[t]||_F^2
};

/// The parahermitian matrix of the experiment: R(z) = A(z) A~(z) / ||.||_F
/// with A(z) = sum_{t=0}^{order/2} A[t] z^-t, A[t] size x size with
/// independent N(0, 1) entries (std::mt19937_64(seed), column by column,
/// lag by lag): R[t] = sum_s A[s + t] A[s]^T, lags -order/2 .. order/2
/// (polynomial order `order`), scaled to ||R(z)||_F = 1.
PolyMatrix smd_test_matrix(std::size_t size, int order, uint64_t seed);

/// C = A * B on the unit under test (or exactly in fp64).
using SmdGemm = std::function<Eigen::MatrixXd(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B)>;
/// The fp64 product (Eigen).
SmdGemm fp64_gemm();
/// mmaemu_gemm of the model's unit for (input -> fp32): fp64 storage, the
/// operands rounded to `input` with RNE, the fp32 accumulator stored as
/// fp64 (exact). Throws std::invalid_argument if the model has no such unit.
SmdGemm model_gemm(const std::string& model, Fmt input, int threads = 0);

struct SmdConfig {
  double eps = 1e-4, mu = 1e-4;
  int max_iterations = 250;
};

struct SmdResult {
  PolyMatrix S, H;            // diagonalised S(z) ~= H(z) R(z) H~(z), paraunitary H(z)
  int iterations = 0;
  bool converged = false;     // stopped by eps
  double off_diagonal = 0;    // off-diagonal energy of S(z) / its energy, at the end
  double max_column = 0;      // the last search's largest off-diagonal column norm
  std::size_t gemms = 0;      // GEMM calls on the unit
};

/// SMD of R(z) with the dominant GEMMs on `gemm`.
SmdResult smd(const PolyMatrix& R, const SmdConfig& cfg, const SmdGemm& gemm);

/// The rotation step's two products for every lag at once, on `gemm`:
/// X = Q^T [S[lo] .. S[hi]], then [X_lo; ..; X_hi] Q (lag by lag Q^T S[t] Q).
PolyMatrix smd_rotate(const PolyMatrix& S, const Eigen::MatrixXd& Q, const SmdGemm& gemm);
/// Q^T [H[lo] .. H[hi]] on `gemm`.
PolyMatrix smd_rotate_rows(const PolyMatrix& H, const Eigen::MatrixXd& Q, const SmdGemm& gemm);

/// X(z) Y~(z) (every lag pair, fp64): the paraunitarity and reconstruction checks.
PolyMatrix para_product(const PolyMatrix& X, const PolyMatrix& Y);
/// P(z) - I, as its energy (fp64).
double distance_from_identity(const PolyMatrix& P);
/// X(z) Y(z) (fp64).
PolyMatrix poly_product(const PolyMatrix& X, const PolyMatrix& Y);

/// S_11(e^{j w}) = sum_t S_11[t] e^{-j w t} at w = pi * omega (omega in [0, 1]):
/// the dominant eigenvalue SMD estimates (real for a parahermitian S).
double dominant_eigenvalue(const PolyMatrix& S, double omega);
/// The largest eigenvalue of R(e^{j pi omega}) and the condition number (EVD, fp64).
void analytic_eigenvalues(const PolyMatrix& R, double omega, double& lmax, double& cond);

}  // namespace mmaemu::experiments
