// SPDX-License-Identifier: BSD-3-Clause
// The SMD experiment (experiments/smd.h) on reduced cases: the fp64 run's
// invariants (H(z) paraunitary and S(z) = H(z) R(z) H~(z) to fp64
// precision without truncation; the off-diagonal energy falls), the
// emulated GEMMs really emulated (their bits differ from fp64 and equal
// mmaemu_gemm called directly), and the command's files and errors.
#include <doctest/doctest.h>

#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "experiments/smd.h"
#include "mmaemu/mmaemu.h"

using namespace mmaemu;
using namespace mmaemu::experiments;

namespace {

double off_diagonal(const PolyMatrix& S) {
  double e = 0;
  for (const Eigen::MatrixXd& m : S.c) e += m.squaredNorm() - m.diagonal().squaredNorm();
  return e;
}

// S(z) - X(z), as its energy (lags of either).
double distance(const PolyMatrix& S, const PolyMatrix& X) {
  double e = 0;
  for (int t = std::min(S.lo, X.lo); t <= std::max(S.hi(), X.hi()); ++t) {
    Eigen::MatrixXd d = Eigen::MatrixXd::Zero(S.c[0].rows(), S.c[0].cols());
    if (t >= S.lo && t <= S.hi()) d += S.at(t);
    if (t >= X.lo && t <= X.hi()) d -= X.at(t);
    e += d.squaredNorm();
  }
  return e;
}

}  // namespace

TEST_CASE("smd_test_matrix: parahermitian, of the asked order, unit energy, seeded") {
  const PolyMatrix R = smd_test_matrix(8, 8, 1);
  CHECK(R.lo == -4);
  CHECK(R.hi() == 4);
  CHECK(R.energy() == doctest::Approx(1.0).epsilon(1e-14));
  for (int t = -4; t <= 4; ++t) CHECK((R.at(t) - R.at(-t).transpose()).norm() == 0.0);
  CHECK((smd_test_matrix(8, 8, 1).at(2) - R.at(2)).norm() == 0.0);
  CHECK((smd_test_matrix(8, 8, 2).at(2) - R.at(2)).norm() > 0.0);
}

TEST_CASE("smd in fp64 without truncation: H paraunitary, S = H R H~, to fp64 precision") {
  const PolyMatrix R = smd_test_matrix(4, 4, 3);
  SmdConfig cfg;
  cfg.mu = 0;
  cfg.eps = 0;
  cfg.max_iterations = 25;
  const SmdResult r = smd(R, cfg, fp64_gemm());
  CHECK(r.iterations == 25);
  CAPTURE(r.H.c.size());
  CHECK(distance_from_identity(para_product(r.H, r.H)) < 1e-26);
  CHECK(distance(r.S, para_product(poly_product(r.H, R), r.H)) < 1e-26);
  CHECK(off_diagonal(r.S) < 0.05 * off_diagonal(R));
}

TEST_CASE("smd with truncation: converges on the default case, paraunitary to within what truncation removed") {
  const PolyMatrix R = smd_test_matrix(8, 8, 1);
  const SmdResult r = smd(R, {}, fp64_gemm());
  CHECK(r.converged);
  CHECK(r.max_column <= 1e-4);
  CHECK(r.iterations < 250);
  // Each iteration's truncation drops at most mu of H's energy (8): the
  // error of H H~ - I stays within that, summed over the iterations.
  const double e = distance_from_identity(para_product(r.H, r.H));
  CHECK(e > 0);
  CHECK(e < (r.iterations + 1) * 1e-4 * 8);
}

TEST_CASE("the emulated rotation is the model's GEMM: differs from fp64, equals mmaemu_gemm") {
  const PolyMatrix R = smd_test_matrix(8, 4, 5);
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> evd(R.at(0));
  const Eigen::MatrixXd Q = evd.eigenvectors();
  const PolyMatrix got = smd_rotate(R, Q, model_gemm("MI300X", Fmt::fp16));
  const PolyMatrix exact = smd_rotate(R, Q, fp64_gemm());
  CHECK(distance(got, exact) > 0);
  // The same two products through the C API directly: Q^T [R[t]..], then [X_t; ..] Q.
  mmaemu_model* h = nullptr;
  REQUIRE(mmaemu_model_lookup("MI300X", &h) == MMAEMU_OK);
  mmaemu_gemm_options opt;
  mmaemu_gemm_options_init(&opt);
  opt.a_storage = opt.b_storage = opt.c_storage = MMAEMU_FP64;
  opt.input = MMAEMU_FP16;
  opt.output = MMAEMU_FP32;
  const int n = 8, L = static_cast<int>(R.c.size());
  std::vector<double> qt(n * n), wide(n * n * L), x(n * n * L), tall(n * L * n), q(n * n), y(n * L * n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) qt[i * n + j] = Q(j, i), q[i * n + j] = Q(i, j);  // row-major
  for (int t = 0; t < L; ++t)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) wide[i * (n * L) + t * n + j] = R.c[static_cast<std::size_t>(t)](i, j);
  REQUIRE(mmaemu_gemm(h, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, n, n * L, n, 1.0, qt.data(), n,
                      wide.data(), n * L, 0.0, x.data(), n * L) == MMAEMU_OK);
  for (int t = 0; t < L; ++t)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) tall[(t * n + i) * n + j] = x[i * (n * L) + t * n + j];
  REQUIRE(mmaemu_gemm(h, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, n * L, n, n, 1.0, tall.data(), n,
                      q.data(), n, 0.0, y.data(), n) == MMAEMU_OK);
  mmaemu_model_free(h);
  int bad = 0;
  for (int t = 0; t < L; ++t)
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j)
        if (std::bit_cast<uint64_t>(got.c[static_cast<std::size_t>(t)](i, j)) !=
            std::bit_cast<uint64_t>(y[(t * n + i) * n + j]))
          ++bad;
  CHECK(bad == 0);
}

TEST_CASE("mmaemu experiment smd: a reduced run writes the figures' files; bad options") {
  const std::string dir = (std::filesystem::temp_directory_path() / "mmaemu_smd_test").string();
  std::filesystem::remove_all(dir);
  std::ostringstream out, err;
  const int rc = cmd_experiment({"smd", "--size", "4", "--order", "2", "--iterations", "10", "--points", "5", "--models",
                                 "MI250,H100", "--inputs", "fp16", "--out", dir, "--quiet"},
                                out, err);
  CAPTURE(out.str());
  CAPTURE(err.str());
  REQUIRE(rc == 0);
  CHECK(out.str().find("MI250 fp16") != std::string::npos);
  std::ifstream f(dir + "/smd_eigenvalue.csv");
  std::string header;
  std::getline(f, header);
  CHECK(header == "omega,R_lambda_max,R_condition,fp64,MI250 fp16,H100 fp16");
  for (const char* name : {"smd_difference.csv", "smd_pairwise.csv", "smd_runs.csv"})
    CHECK(std::filesystem::exists(dir + "/" + name));
  std::filesystem::remove_all(dir);
  std::ostringstream o2, e2;
  CHECK(cmd_experiment({"smd", "--order", "3"}, o2, e2) == 2);
  CHECK(e2.str().find("even order") != std::string::npos);
  std::ostringstream o3, e3;
  CHECK(cmd_experiment({"smd", "--models", "H1000"}, o3, e3) == 2);
  CHECK(e3.str().find("valid models") != std::string::npos);
}
