// SPDX-License-Identifier: BSD-3-Clause
#include "experiments/smd.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <memory>
#include <random>
#include <stdexcept>

#include "mmaemu/mmaemu.h"

namespace mmaemu::experiments {

double PolyMatrix::energy() const {
  double e = 0;
  for (const Eigen::MatrixXd& m : c) e += m.squaredNorm();
  return e;
}

PolyMatrix smd_test_matrix(std::size_t size, int order, uint64_t seed) {
  if (size < 2 || order < 0 || order % 2) throw std::invalid_argument("smd: size >= 2 and an even order >= 0");
  const int n = static_cast<int>(size), q = order / 2;
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0, 1);
  std::vector<Eigen::MatrixXd> A(static_cast<std::size_t>(q + 1), Eigen::MatrixXd(n, n));
  for (Eigen::MatrixXd& a : A)
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) a(i, j) = normal(rng);
  PolyMatrix R;
  R.lo = -q;
  for (int t = -q; t <= q; ++t) {
    Eigen::MatrixXd r = Eigen::MatrixXd::Zero(n, n);
    for (int s = 0; s <= q; ++s)
      if (s + t >= 0 && s + t <= q) r += A[static_cast<std::size_t>(s + t)] * A[static_cast<std::size_t>(s)].transpose();
    R.c.push_back(r);
  }
  const double norm = std::sqrt(R.energy());
  for (Eigen::MatrixXd& r : R.c) r /= norm;
  return R;
}

SmdGemm fp64_gemm() {
  return [](const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) -> Eigen::MatrixXd { return A * B; };
}

SmdGemm model_gemm(const std::string& model, Fmt input, int threads) {
  mmaemu_model* h = nullptr;
  if (mmaemu_model_lookup(model.c_str(), &h) != MMAEMU_OK) throw std::invalid_argument(mmaemu_last_error());
  std::shared_ptr<mmaemu_model> handle(h, mmaemu_model_free);
  mmaemu_gemm_options opt;
  mmaemu_gemm_options_init(&opt);
  opt.a_storage = opt.b_storage = opt.c_storage = MMAEMU_FP64;
  opt.input = static_cast<mmaemu_format>(input);
  opt.output = MMAEMU_FP32;
  opt.input_rounding = MMAEMU_RNE;
  opt.threads = threads;
  if (mmaemu_tile_shape(h, opt.input, opt.output, nullptr, nullptr, nullptr) != MMAEMU_OK)
    throw std::invalid_argument(mmaemu_last_error());
  return [handle, opt](const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) -> Eigen::MatrixXd {
    Eigen::MatrixXd C(A.rows(), B.cols());
    const int m = static_cast<int>(A.rows()), n = static_cast<int>(B.cols()), k = static_cast<int>(A.cols());
    // Eigen's storage is column-major.
    if (mmaemu_gemm(handle.get(), &opt, MMAEMU_COL_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, m, n, k, 1.0, A.data(),
                    std::max(1, m), B.data(), std::max(1, k), 0.0, C.data(), std::max(1, m)) != MMAEMU_OK)
      throw std::runtime_error(mmaemu_last_error());
    return C;
  };
}

namespace {

// The largest off-diagonal column norm of S(z): its column k and lag t.
double search(const PolyMatrix& S, int& k_out, int& t_out) {
  double best = -1;
  const Eigen::Index n = S.c[0].rows();
  for (int t = S.lo; t <= S.hi(); ++t)
    for (Eigen::Index k = 0; k < n; ++k) {
      const double v = S.at(t).col(k).squaredNorm() - S.at(t)(k, k) * S.at(t)(k, k);
      if (v > best) best = v, k_out = static_cast<int>(k), t_out = t;
    }
  return std::sqrt(std::max(best, 0.0));
}

// S'(z) = L(z) S(z) L~(z) with L = diag(.., z^-t at k, ..): column k
// advanced by t (S'[u](j, k) = S[u + t](j, k)), row k delayed by t, the
// diagonal entry unchanged; the lag range grows by |t| at both ends.
PolyMatrix shift_para(const PolyMatrix& S, int k, int t) {
  const Eigen::Index n = S.c[0].rows();
  const int g = std::abs(t);
  PolyMatrix R;
  R.lo = S.lo - g;
  R.c.assign(S.c.size() + 2 * static_cast<std::size_t>(g), Eigen::MatrixXd::Zero(n, n));
  auto get = [&](int u, Eigen::Index i, Eigen::Index j) { return u < S.lo || u > S.hi() ? 0.0 : S.at(u)(i, j); };
  for (int u = R.lo; u <= R.hi(); ++u)
    for (Eigen::Index j = 0; j < n; ++j)
      for (Eigen::Index i = 0; i < n; ++i) {
        int from = u;
        if (j == k && i != k) from = u + t;
        else if (i == k && j != k) from = u - t;
        R.at(u)(i, j) = get(from, i, j);
      }
  return R;
}

// H'(z) = L(z) H(z): row k delayed by t.
PolyMatrix shift_rows(const PolyMatrix& H, int k, int t) {
  const Eigen::Index n = H.c[0].rows(), m = H.c[0].cols();
  PolyMatrix R;
  R.lo = std::min(H.lo, H.lo + t);
  const int hi = std::max(H.hi(), H.hi() + t);
  R.c.assign(static_cast<std::size_t>(hi - R.lo + 1), Eigen::MatrixXd::Zero(n, m));
  for (int u = H.lo; u <= H.hi(); ++u)
    for (Eigen::Index i = 0; i < n; ++i) R.at(i == k ? u + t : u).row(i) = H.at(u).row(i);
  return R;
}

double lag_energy(const PolyMatrix& X, int t) { return X.at(t).squaredNorm(); }

// Outer lags of a parahermitian S(z), both ends together, while what is
// removed stays within mu of its energy (lag 0 always kept).
void truncate_para(PolyMatrix& S, double mu) {
  const double limit = mu * S.energy();
  double removed = 0;
  int drop = 0;
  while (S.lo + drop < 0 && S.hi() - drop > 0) {
    const double e = lag_energy(S, S.lo + drop) + lag_energy(S, S.hi() - drop);
    if (removed + e > limit) break;
    removed += e;
    ++drop;
  }
  if (!drop) return;
  S.c.erase(S.c.end() - drop, S.c.end());
  S.c.erase(S.c.begin(), S.c.begin() + drop);
  S.lo += drop;
}

// Outer lags of H(z) at each end while what is removed there stays within
// mu / 2 of its energy (one lag always kept).
void truncate_ends(PolyMatrix& H, double mu) {
  const double limit = mu / 2 * H.energy();
  double front = 0, back = 0;
  std::size_t f = 0, b = 0;
  while (f + b + 1 < H.c.size() && front + H.c[f].squaredNorm() <= limit) front += H.c[f++].squaredNorm();
  while (f + b + 1 < H.c.size() && back + H.c[H.c.size() - 1 - b].squaredNorm() <= limit)
    back += H.c[H.c.size() - 1 - b++].squaredNorm();
  H.c.erase(H.c.end() - static_cast<std::ptrdiff_t>(b), H.c.end());
  H.c.erase(H.c.begin(), H.c.begin() + static_cast<std::ptrdiff_t>(f));
  H.lo += static_cast<int>(f);
}

double off_diagonal_share(const PolyMatrix& S) {
  double off = 0;
  for (const Eigen::MatrixXd& m : S.c) off += m.squaredNorm() - m.diagonal().squaredNorm();
  return off / S.energy();
}

}  // namespace

PolyMatrix smd_rotate(const PolyMatrix& S, const Eigen::MatrixXd& Q, const SmdGemm& gemm) {
  const Eigen::Index n = Q.rows(), L = static_cast<Eigen::Index>(S.c.size());
  Eigen::MatrixXd wide(n, n * L);  // [S[lo] .. S[hi]]
  for (Eigen::Index t = 0; t < L; ++t) wide.middleCols(t * n, n) = S.c[static_cast<std::size_t>(t)];
  const Eigen::MatrixXd X = gemm(Q.transpose(), wide);
  Eigen::MatrixXd tall(n * L, n);  // [X_lo; ..; X_hi]
  for (Eigen::Index t = 0; t < L; ++t) tall.middleRows(t * n, n) = X.middleCols(t * n, n);
  const Eigen::MatrixXd Y = gemm(tall, Q);
  PolyMatrix R;
  R.lo = S.lo;
  for (Eigen::Index t = 0; t < L; ++t) R.c.push_back(Y.middleRows(t * n, n));
  return R;
}

PolyMatrix smd_rotate_rows(const PolyMatrix& H, const Eigen::MatrixXd& Q, const SmdGemm& gemm) {
  const Eigen::Index n = Q.rows(), m = H.c[0].cols(), L = static_cast<Eigen::Index>(H.c.size());
  Eigen::MatrixXd wide(n, m * L);
  for (Eigen::Index t = 0; t < L; ++t) wide.middleCols(t * m, m) = H.c[static_cast<std::size_t>(t)];
  const Eigen::MatrixXd X = gemm(Q.transpose(), wide);
  PolyMatrix R;
  R.lo = H.lo;
  for (Eigen::Index t = 0; t < L; ++t) R.c.push_back(X.middleCols(t * m, m));
  return R;
}

SmdResult smd(const PolyMatrix& R, const SmdConfig& cfg, const SmdGemm& gemm) {
  const Eigen::Index n = R.c[0].rows();
  const double threshold = cfg.eps * std::sqrt(R.energy());
  SmdResult r;
  r.S = R;
  r.H.lo = 0;
  r.H.c.push_back(Eigen::MatrixXd::Identity(n, n));
  // Iteration 0 rotates R[0] without a shift; then search, shift, rotate.
  for (int it = 0;; ++it) {
    int k = 0, t = 0;
    if (it > 0) {
      r.max_column = search(r.S, k, t);
      if (r.max_column <= threshold) {
        r.converged = true;
        break;
      }
      if (it > cfg.max_iterations) break;
      r.S = shift_para(r.S, k, t);
      r.H = shift_rows(r.H, k, t);
      r.iterations = it;
    }
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> evd(r.S.at(0));
    const Eigen::MatrixXd Q = evd.eigenvectors().rowwise().reverse();  // eigenvalues descending
    r.S = smd_rotate(r.S, Q, gemm);
    r.H = smd_rotate_rows(r.H, Q, gemm);
    r.gemms += 3;
    truncate_para(r.S, cfg.mu);
    truncate_ends(r.H, cfg.mu);
  }
  r.off_diagonal = off_diagonal_share(r.S);
  return r;
}

PolyMatrix poly_product(const PolyMatrix& X, const PolyMatrix& Y) {
  PolyMatrix P;
  P.lo = X.lo + Y.lo;
  P.c.assign(X.c.size() + Y.c.size() - 1, Eigen::MatrixXd::Zero(X.c[0].rows(), Y.c[0].cols()));
  for (int a = X.lo; a <= X.hi(); ++a)
    for (int b = Y.lo; b <= Y.hi(); ++b) P.at(a + b) += X.at(a) * Y.at(b);
  return P;
}

PolyMatrix para_product(const PolyMatrix& X, const PolyMatrix& Y) {
  PolyMatrix Yt;  // Y~(z): Y[-t]^T at lag t
  Yt.lo = -Y.hi();
  for (int t = Yt.lo; t <= -Y.lo; ++t) Yt.c.push_back(Y.at(-t).transpose());
  return poly_product(X, Yt);
}

double distance_from_identity(const PolyMatrix& P) {
  double e = 0;
  for (int t = P.lo; t <= P.hi(); ++t) {
    Eigen::MatrixXd d = P.at(t);
    if (t == 0) d -= Eigen::MatrixXd::Identity(d.rows(), d.cols());
    e += d.squaredNorm();
  }
  if (P.lo > 0 || P.hi() < 0) e += static_cast<double>(P.c[0].rows());  // no lag 0: I is missing
  return e;
}

double dominant_eigenvalue(const PolyMatrix& S, double omega) {
  const double w = M_PI * omega;
  double v = 0;
  for (int t = S.lo; t <= S.hi(); ++t) v += S.at(t)(0, 0) * std::cos(w * t);
  return v;
}

void analytic_eigenvalues(const PolyMatrix& R, double omega, double& lmax, double& cond) {
  const double w = M_PI * omega;
  const Eigen::Index n = R.c[0].rows();
  Eigen::MatrixXcd M = Eigen::MatrixXcd::Zero(n, n);
  for (int t = R.lo; t <= R.hi(); ++t) M += R.at(t).cast<std::complex<double>>() * std::polar(1.0, -w * t);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXcd> evd(M, Eigen::EigenvaluesOnly);
  lmax = evd.eigenvalues()(n - 1);
  const double lmin = evd.eigenvalues()(0);
  cond = lmin > 0 ? lmax / lmin : INFINITY;
}

}  // namespace mmaemu::experiments
