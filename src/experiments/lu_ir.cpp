// SPDX-License-Identifier: BSD-3-Clause
// The LU factorisation with the unit's trailing updates, the correction
// solves and the refinement loops of `mmaemu experiment lu-ir`
// (docs/lu-ir.md §2.2-2.4).
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include "experiments/lu_ir.h"

namespace mmaemu::experiments {

const char* ir_status_name(IrStatus s) {
  switch (s) {
    case IrStatus::converged: return "converged";
    case IrStatus::stalled: return "stalled";
    case IrStatus::diverged: return "diverged";
    case IrStatus::max_iterations: return "max_iterations";
    case IrStatus::failed: return "failed";
  }
  return "?";
}

namespace {

// C (m x n, ldc) -= A (m x k, lda) B (k x n, ldb), row-major, on the unit.
void trailing_update(const LuUnit& u, LuFactors& f, int m, int n, int k, const float* A, int lda, const float* B,
                     int ldb, float* C, int ldc) {
  ++f.gemm_calls;
  if (!u.model) {  // native fp32: c = c - a*b at each k, k ascending
    for (int i = 0; i < m; ++i) {
      float* c = C + static_cast<std::size_t>(i) * ldc;
      for (int p = 0; p < k; ++p) {
        const float a = A[static_cast<std::size_t>(i) * lda + p];
        const float* b = B + static_cast<std::size_t>(p) * ldb;
        for (int j = 0; j < n; ++j) c[j] -= a * b[j];
      }
    }
    return;
  }
  mmaemu_gemm_options opt;
  mmaemu_gemm_options_init(&opt);
  int st = mmaemu_parse_policy(u.policy.c_str(), &opt);
  opt.threads = u.threads;
  if (st == MMAEMU_OK)
    st = mmaemu_gemm(u.model, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, m, n, k, -1.0, A, lda, B, ldb,
                     1.0, C, ldc);
  if (st != MMAEMU_OK) {
    f.ok = false;
    if (f.error.empty()) f.error = mmaemu_last_error();
  }
}

}  // namespace

LuFactors lu_factor(const Matrix& A, const LuUnit& unit, int nb) {
  if (A.rows != A.cols || A.rows == 0) throw std::invalid_argument("lu_factor: a square matrix");
  if (nb < 1) throw std::invalid_argument("lu_factor: nb >= 1");
  const std::size_t n = A.rows;
  LuFactors f;
  f.n = n;
  f.lu.resize(n * n);
  for (std::size_t i = 0; i < n * n; ++i) f.lu[i] = static_cast<float>(A.v[i]);  // RNE
  f.perm.resize(n);
  for (std::size_t i = 0; i < n; ++i) f.perm[i] = static_cast<int>(i);
  float* a = f.lu.data();
  auto at = [&](std::size_t i, std::size_t j) -> float& { return a[i * n + j]; };
  for (std::size_t j0 = 0; j0 < n && f.ok; j0 += static_cast<std::size_t>(nb)) {
    const std::size_t w = std::min<std::size_t>(nb, n - j0), end = j0 + w;
    // Panel: unblocked elimination of columns j0..end-1 (rows j0..n-1).
    for (std::size_t c = j0; c < end; ++c) {
      std::size_t p = c;
      for (std::size_t i = c + 1; i < n; ++i)
        if (std::fabs(at(i, c)) > std::fabs(at(p, c))) p = i;
      if (!(at(p, c) != 0.0f) || !std::isfinite(at(p, c))) {
        f.ok = false;
        return f;
      }
      if (p != c) {
        std::swap_ranges(a + p * n, a + p * n + n, a + c * n);
        std::swap(f.perm[p], f.perm[c]);
      }
      const float piv = at(c, c);
      for (std::size_t i = c + 1; i < n; ++i) {
        const float l = at(i, c) / piv;
        at(i, c) = l;
        for (std::size_t q = c + 1; q < end; ++q) at(i, q) -= l * at(c, q);
      }
    }
    if (end == n) break;
    // U12 = L11^-1 A12 (unit lower), row by row in the elimination's order.
    for (std::size_t k = j0; k + 1 < end; ++k)
      for (std::size_t r = k + 1; r < end; ++r) {
        const float l = at(r, k);
        for (std::size_t q = end; q < n; ++q) at(r, q) -= l * at(k, q);
      }
    // A22 -= L21 U12 on the unit.
    const int m2 = static_cast<int>(n - end), ld = static_cast<int>(n);
    trailing_update(unit, f, m2, m2, static_cast<int>(w), &at(end, j0), ld, &at(j0, end), ld, &at(end, end), ld);
  }
  for (std::size_t i = 0; i < n * n && f.ok; ++i)
    if (!std::isfinite(f.lu[i])) f.ok = false;
  return f;
}

namespace {

// y = U^-1 L^-1 P r in arithmetic T (float or double), r already scaled.
template <class T>
std::vector<T> triangular_solves(const LuFactors& f, const std::vector<T>& r) {
  const std::size_t n = f.n;
  std::vector<T> y(n);
  for (std::size_t i = 0; i < n; ++i) y[i] = r[static_cast<std::size_t>(f.perm[i])];
  const float* a = f.lu.data();
  for (std::size_t i = 1; i < n; ++i) {
    T s = y[i];
    for (std::size_t k = 0; k < i; ++k) s -= static_cast<T>(a[i * n + k]) * y[k];
    y[i] = s;
  }
  for (std::size_t i = n; i-- > 0;) {
    T s = y[i];
    for (std::size_t k = i + 1; k < n; ++k) s -= static_cast<T>(a[i * n + k]) * y[k];
    y[i] = s / static_cast<T>(a[i * n + i]);
  }
  return y;
}

double norm_inf(const std::vector<double>& x) {
  double m = 0;
  for (double v : x) m = std::max(m, std::fabs(v));
  return m;
}

}  // namespace

std::vector<double> lu_solve32(const LuFactors& f, const std::vector<double>& r) {
  const double nr = norm_inf(r);
  std::vector<double> d(f.n, 0.0);
  if (nr == 0 || !std::isfinite(nr)) {
    if (!std::isfinite(nr)) std::fill(d.begin(), d.end(), nr);
    return d;
  }
  int e = 0;
  std::frexp(nr, &e);  // nr = m 2^e, m in [0.5, 1)
  std::vector<float> r32(f.n);
  for (std::size_t i = 0; i < f.n; ++i) r32[i] = static_cast<float>(std::ldexp(r[i], -e));
  const std::vector<float> y = triangular_solves(f, r32);
  for (std::size_t i = 0; i < f.n; ++i) d[i] = std::ldexp(static_cast<double>(y[i]), e);
  return d;
}

std::vector<double> lu_solve64(const LuFactors& f, const std::vector<double>& v) { return triangular_solves(f, v); }

namespace {

// y = A x in binary64 (y_i = sum_j a_ij x_j, j ascending).
std::vector<double> matvec(const Matrix& A, const std::vector<double>& x) {
  const std::size_t n = A.rows;
  std::vector<double> y(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double* a = &A.v[i * n];
    double s = 0;
    for (std::size_t j = 0; j < n; ++j) s += a[j] * x[j];
    y[i] = s;
  }
  return y;
}

}  // namespace

std::vector<double> residual(const Matrix& A, const std::vector<double>& b, const std::vector<double>& x) {
  std::vector<double> r = matvec(A, x);
  for (std::size_t i = 0; i < r.size(); ++i) r[i] = b[i] - r[i];
  return r;
}

double backward_error(double norm_a, const std::vector<double>& b, const std::vector<double>& x,
                      const std::vector<double>& r) {
  return norm_inf(r) / (norm_a * norm_inf(x) + norm_inf(b));
}

namespace {

double dot(const std::vector<double>& x, const std::vector<double>& y) {
  double s = 0;
  for (std::size_t i = 0; i < x.size(); ++i) s += x[i] * y[i];
  return s;
}

// GMRES on M^-1 A d = z (M = P^T L U, applied by lu_solve64) from d = 0,
// modified Gram-Schmidt, Givens rotations; stops when the estimated
// residual is <= tol ||z||_2 or after max iterations. Adds its iterations
// to `inner`.
std::vector<double> gmres(const Matrix& A, const LuFactors& f, const std::vector<double>& z, double tol, int max,
                          int& inner) {
  const std::size_t n = f.n;
  std::vector<double> d(n, 0.0);
  const double beta = std::sqrt(dot(z, z));
  if (beta == 0 || !std::isfinite(beta)) return d;
  const std::size_t m = static_cast<std::size_t>(std::max(1, max));
  std::vector<std::vector<double>> V{z};
  for (double& v : V[0]) v /= beta;
  std::vector<std::vector<double>> H;  // H[j]: column j, j + 2 entries
  std::vector<double> cs, sn, g{beta};
  std::size_t j = 0;
  for (; j < m; ++j) {
    std::vector<double> w = lu_solve64(f, matvec(A, V[j]));
    std::vector<double> h(j + 2, 0.0);
    for (std::size_t i = 0; i <= j; ++i) {
      h[i] = dot(w, V[i]);
      for (std::size_t t = 0; t < n; ++t) w[t] -= h[i] * V[i][t];
    }
    h[j + 1] = std::sqrt(dot(w, w));
    for (std::size_t i = 0; i < j; ++i) {  // the previous rotations
      const double t = cs[i] * h[i] + sn[i] * h[i + 1];
      h[i + 1] = -sn[i] * h[i] + cs[i] * h[i + 1];
      h[i] = t;
    }
    const double r = std::hypot(h[j], h[j + 1]);
    cs.push_back(r == 0 ? 1.0 : h[j] / r);
    sn.push_back(r == 0 ? 0.0 : h[j + 1] / r);
    const double hj1 = h[j + 1];
    h[j] = r;
    h[j + 1] = 0;
    g.push_back(-sn[j] * g[j]);
    g[j] = cs[j] * g[j];
    H.push_back(std::move(h));
    ++inner;
    if (std::fabs(g[j + 1]) <= tol * beta || hj1 == 0 || !std::isfinite(g[j + 1])) {
      ++j;
      break;
    }
    std::vector<double> next = std::move(w);
    for (double& x : next) x /= hj1;
    V.push_back(std::move(next));
  }
  // y = H(0:j, 0:j)^-1 g(0:j), d = V y.
  std::vector<double> y(j);
  for (std::size_t i = j; i-- > 0;) {
    double s = g[i];
    for (std::size_t t = i + 1; t < j; ++t) s -= H[t][i] * y[t];
    y[i] = s / H[i][i];
  }
  for (std::size_t i = 0; i < j; ++i)
    for (std::size_t t = 0; t < n; ++t) d[t] += y[i] * V[i][t];
  return d;
}

}  // namespace

IrResult refine(const Matrix& A, const std::vector<double>& b, const LuFactors& f, const IrConfig& cfg) {
  IrResult res;
  if (!f.ok) return res;  // failed
  const std::size_t n = f.n;
  double norm_a = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double s = 0;
    for (std::size_t j = 0; j < n; ++j) s += std::fabs(A.v[i * n + j]);
    norm_a = std::max(norm_a, s);
  }
  const double tol = static_cast<double>(n) * 0x1p-53;
  std::vector<double> x = lu_solve32(f, b);
  for (int i = 0;; ++i) {
    const std::vector<double> r = residual(A, b, x);
    const double eta = backward_error(norm_a, b, x, r);
    res.backward.push_back(eta);
    res.iterations = i;
    if (eta <= tol) {
      res.status = IrStatus::converged;
      return res;
    }
    if (!std::isfinite(eta) || (i > 0 && eta >= res.backward[static_cast<std::size_t>(i) - 1])) {
      res.status = std::isfinite(eta) && eta <= res.backward.front() ? IrStatus::stalled : IrStatus::diverged;
      return res;
    }
    if (i == cfg.max_iterations) {
      res.status = IrStatus::max_iterations;
      return res;
    }
    const std::vector<double> d =
        cfg.gmres ? gmres(A, f, lu_solve64(f, r), cfg.gmres_tol, cfg.gmres_max, res.inner) : lu_solve32(f, r);
    for (std::size_t t = 0; t < n; ++t) x[t] += d[t];
  }
}

}  // namespace mmaemu::experiments
