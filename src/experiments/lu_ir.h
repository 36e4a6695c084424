// SPDX-License-Identifier: BSD-3-Clause
// Mixed-precision iterative refinement on a matrix unit (`mmaemu experiment
// lu-ir`, docs/lu-ir.md): an fp32 LU factorisation whose trailing updates run
// on the unit's GEMM (the tensor-core LU of the GPU solvers), refined with
// residuals in fp64 (LU-IR), or with GMRES preconditioned by the factors
// (GMRES-IR), on matrices of controlled condition number.
//
// Every operation is specified (docs/lu-ir.md §2) so that the results are
// reproducible bit for bit: binary64 and binary32 arithmetic with each
// operation rounded (no contraction), sums in the stated order, the unit's
// GEMM through the C API.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "experiments/matrix.h"
#include "mmaemu/mmaemu.h"

namespace mmaemu::experiments {

/// The singular values of a test matrix (MATLAB's gallery('randsvd') modes 3 and 2).
enum class Spectrum {
  geometric,  // sigma_i = kappa^(-(i-1)/(n-1))
  clustered   // sigma_1 = ... = sigma_(n-1) = 1, sigma_n = 1/kappa
};
const char* spectrum_name(Spectrum s);

/// Two n x n orthogonal matrices U and V (row-major), Haar-distributed:
/// the Q factors of Householder QR of matrices of independent N(0, 1) draws
/// (Rng(seed): U's matrix row by row, then V's), each column of Q multiplied
/// by the sign of R's diagonal entry.
struct OrthogonalPair {
  std::size_t n = 0;
  Matrix U, V;
};
OrthogonalPair random_orthogonal_pair(std::size_t n, uint64_t seed);

/// A = U diag(sigma) V^T (binary64, a_ij = sum_k (u_ik sigma_k) v_jk in k
/// order): 2-norm condition number kappa up to rounding. threads > 1 splits
/// the rows (same bits).
Matrix conditioned_matrix(const OrthogonalPair& uv, double kappa, Spectrum s, int threads = 1);
/// The right-hand side: n N(0, 1) draws of Rng(seed + 1).
std::vector<double> lu_ir_rhs(std::size_t n, uint64_t seed);

/// The unit of the trailing updates: a model with an sgemm input policy, or
/// native fp32 (model null: c = c - a*b rounded at each step, k ascending,
/// the arithmetic of the unblocked elimination).
struct LuUnit {
  std::string label;  // "H100 fp16", "native fp32"
  const mmaemu_model* model = nullptr;
  std::string policy;
  int threads = 0;  // of the unit's GEMM (mmaemu_gemm_options.threads)
};

/// P A = L U in binary32, row-major in place, partial pivoting (the first
/// largest |a_ic|), right-looking in blocks of nb columns: panel and U12 in
/// binary32 arithmetic, trailing update A22 = A22 - L21 U12 on the unit
/// (docs/lu-ir.md §2.2).
struct LuFactors {
  std::size_t n = 0;
  std::vector<float> lu;    // unit L below the diagonal, U on and above it
  std::vector<int> perm;    // row i of P A is row perm[i] of A
  bool ok = true;           // false: a zero pivot or a non-finite factor
  long gemm_calls = 0;
  std::string error;        // C API message when a GEMM was refused
};
LuFactors lu_factor(const Matrix& A, const LuUnit& unit, int nb);

/// d = U^-1 L^-1 P r in binary32 with the factors (r scaled by a power of
/// two to infinity norm in [0.5, 1) first, and back after): the correction
/// solve of LU-IR.
std::vector<double> lu_solve32(const LuFactors& f, const std::vector<double>& r);
/// The same in binary64 arithmetic with the factors' values (GMRES-IR's
/// preconditioner).
std::vector<double> lu_solve64(const LuFactors& f, const std::vector<double>& v);

/// r = b - A x in binary64 (r_i = b_i - sum_j a_ij x_j, j ascending).
std::vector<double> residual(const Matrix& A, const std::vector<double>& b, const std::vector<double>& x);
/// ||r||_inf / (||A||_inf ||x||_inf + ||b||_inf).
double backward_error(double norm_a, const std::vector<double>& b, const std::vector<double>& x,
                      const std::vector<double>& r);

enum class IrStatus { converged, stalled, diverged, max_iterations, failed };
const char* ir_status_name(IrStatus s);

struct IrConfig {
  bool gmres = false;       // GMRES-IR: corrections by preconditioned GMRES
  int max_iterations = 50;  // refinement steps
  double gmres_tol = 1e-10; // relative residual of the preconditioned system
  int gmres_max = 200;      // GMRES iterations per correction
};

/// x_0 = lu_solve32(b); for i = 0, 1, ...: eta_i = backward error of x_i;
/// converged when eta_i <= n 2^-53; when eta_i >= eta_(i-1), stalled if
/// eta_i <= eta_0 and diverged if eta_i > eta_0 (or not finite); else
/// x_(i+1) = x_i + d (LU-IR: d = lu_solve32(r); GMRES-IR:
/// GMRES on U^-1 L^-1 P A d = U^-1 L^-1 P r from d = 0, in binary64).
struct IrResult {
  IrStatus status = IrStatus::failed;
  int iterations = 0;   // corrections applied
  int inner = 0;        // GMRES iterations in all
  std::vector<double> backward;  // eta_0, eta_1, ...
};
IrResult refine(const Matrix& A, const std::vector<double>& b, const LuFactors& f, const IrConfig& cfg);

/// mmaemu experiment lu-ir [options] (args after "lu-ir").
int cmd_lu_ir(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
extern const char* const kLuIrUsage;

}  // namespace mmaemu::experiments
