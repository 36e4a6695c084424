// SPDX-License-Identifier: BSD-3-Clause
// The test matrices of `mmaemu experiment lu-ir`: A = U diag(sigma) V^T with
// Haar-distributed orthogonal U, V (Stewart's construction: the Q factor of
// a Gaussian matrix with R's diagonal made positive), as MATLAB's
// gallery('randsvd') builds them (docs/lu-ir.md §2.1).
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <thread>

#include "experiments/lu_ir.h"

namespace mmaemu::experiments {

const char* spectrum_name(Spectrum s) { return s == Spectrum::geometric ? "geometric" : "clustered"; }

namespace {

// x . y over [0, len): four interleaved partial sums, added as (s0 + s1) + (s2 + s3).
double dot(const double* x, const double* y, std::size_t len) {
  double s[4] = {0, 0, 0, 0};
  std::size_t i = 0;
  for (; i + 4 <= len; i += 4)
    for (int t = 0; t < 4; ++t) s[t] += x[i + t] * y[i + t];
  for (; i < len; ++i) s[i % 4] += x[i] * y[i];
  return (s[0] + s[1]) + (s[2] + s[3]);
}

// The Q factor of the Householder QR of G (column-major, n x n: column j at
// g + j n), each column times the sign of R's diagonal; returned row-major.
Matrix haar_q(std::vector<double> g, std::size_t n) {
  std::vector<std::vector<double>> v(n);
  std::vector<double> tau(n, 0.0), sign(n, 1.0);
  auto col = [&](std::vector<double>& m, std::size_t j) { return m.data() + j * n; };
  for (std::size_t k = 0; k + 1 < n; ++k) {
    double* x = col(g, k) + k;
    const std::size_t len = n - k;
    const double norm = std::sqrt(dot(x, x, len));
    v[k].assign(x, x + len);
    if (norm == 0) continue;  // (probability zero) H_k = I
    const double alpha = x[0] >= 0 ? -norm : norm;  // R_kk
    v[k][0] = x[0] - alpha;
    tau[k] = 1.0 / (norm * (norm + std::fabs(x[0])));  // 2 / (v^T v)
    sign[k] = alpha >= 0 ? 1.0 : -1.0;
    for (std::size_t j = k + 1; j < n; ++j) {
      double* y = col(g, j) + k;
      const double s = tau[k] * dot(v[k].data(), y, len);
      for (std::size_t i = 0; i < len; ++i) y[i] -= s * v[k][i];
    }
  }
  sign[n - 1] = g[(n - 1) * n + (n - 1)] >= 0 ? 1.0 : -1.0;
  // Q = H_0 H_1 ... H_(n-2), accumulated backwards on the identity.
  std::vector<double> q(n * n, 0.0);
  for (std::size_t j = 0; j < n; ++j) q[j * n + j] = 1.0;
  for (std::size_t k = n - 1; k-- > 0;) {
    if (tau[k] == 0) continue;
    const std::size_t len = n - k;
    for (std::size_t j = k; j < n; ++j) {
      double* y = col(q, j) + k;
      const double s = tau[k] * dot(v[k].data(), y, len);
      for (std::size_t i = 0; i < len; ++i) y[i] -= s * v[k][i];
    }
  }
  Matrix Q(n, n);
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t i = 0; i < n; ++i) Q(i, j) = q[j * n + i] * sign[j];
  return Q;
}

}  // namespace

OrthogonalPair random_orthogonal_pair(std::size_t n, uint64_t seed) {
  if (n < 2) throw std::invalid_argument("random_orthogonal_pair: n >= 2");
  Rng rng(seed);
  // Draws row by row, stored column-major for the factorisation.
  std::vector<double> gu(n * n), gv(n * n);
  for (std::vector<double>* g : {&gu, &gv})
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) (*g)[j * n + i] = rng.normal();
  OrthogonalPair p;
  p.n = n;
  std::thread other([&] { p.V = haar_q(std::move(gv), n); });
  p.U = haar_q(std::move(gu), n);
  other.join();
  return p;
}

Matrix conditioned_matrix(const OrthogonalPair& uv, double kappa, Spectrum s, int threads) {
  const std::size_t n = uv.n;
  if (!(kappa >= 1) || !std::isfinite(kappa)) throw std::invalid_argument("conditioned_matrix: kappa >= 1");
  std::vector<double> sigma(n, 1.0);
  if (s == Spectrum::geometric)
    for (std::size_t k = 0; k < n; ++k) sigma[k] = std::pow(kappa, -static_cast<double>(k) / static_cast<double>(n - 1));
  else
    sigma[n - 1] = 1.0 / kappa;
  Matrix Vt(n, n);  // Vt(k, j) = v_jk
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t k = 0; k < n; ++k) Vt(k, j) = uv.V(j, k);
  Matrix A(n, n);
  auto rows = [&](std::size_t i0, std::size_t i1) {
    for (std::size_t i = i0; i < i1; ++i) {
      double* a = &A.v[i * n];
      for (std::size_t k = 0; k < n; ++k) {
        const double w = uv.U(i, k) * sigma[k];
        const double* v = &Vt.v[k * n];
        for (std::size_t j = 0; j < n; ++j) a[j] += w * v[j];
      }
    }
  };
  const std::size_t t = static_cast<std::size_t>(std::clamp(threads, 1, 64));
  std::vector<std::thread> pool;
  for (std::size_t p = 1; p < t; ++p) pool.emplace_back(rows, n * p / t, n * (p + 1) / t);
  rows(0, n / t);
  for (std::thread& th : pool) th.join();
  return A;
}

std::vector<double> lu_ir_rhs(std::size_t n, uint64_t seed) {
  Rng rng(seed + 1);
  std::vector<double> b(n);
  for (double& x : b) x = rng.normal();
  return b;
}

}  // namespace mmaemu::experiments
