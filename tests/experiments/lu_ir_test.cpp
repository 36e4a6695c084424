// SPDX-License-Identifier: BSD-3-Clause
// mmaemu experiment lu-ir: the iteration counts (and every backward error,
// bit for bit) of LU-IR on a small grid against a second implementation
// written here from docs/lu-ir.md §2 (its own loops, the unit's GEMM through
// mmaemu_sgemm), on the same operands; the command's CSV against it; the
// test matrices; GMRES-IR where LU-IR fails; bad options.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <mmaemu/mmaemu.h>
#include <unistd.h>

#include "cli/commands.h"
#include "experiments/lu_ir.h"

using namespace mmaemu::experiments;

namespace {

constexpr std::size_t kN = 128;
constexpr int kNb = 32;
constexpr uint64_t kSeed = 7;
const double kKappas[] = {1e2, 1e5, 1e8};

// The second implementation: LU with partial pivoting in blocks of nb
// columns (panel by unblocked elimination, U12 by forward substitution,
// A22 -= L21 U12 on the unit), then LU-IR.
struct Lu2 {
  std::vector<float> a;
  std::vector<int> p;
  bool ok = true;
};

Lu2 factor2(const Matrix& A, const mmaemu_model* model, const char* policy) {
  const std::size_t n = A.rows;
  Lu2 f;
  f.a.assign(A.v.begin(), A.v.end());  // double -> float, RNE
  f.p.resize(n);
  for (std::size_t i = 0; i < n; ++i) f.p[i] = static_cast<int>(i);
  auto a = [&](std::size_t i, std::size_t j) -> float& { return f.a[i * n + j]; };
  for (std::size_t k0 = 0; k0 < n; k0 += kNb) {
    const std::size_t k1 = std::min(n, k0 + kNb);
    for (std::size_t c = k0; c < k1; ++c) {
      std::size_t piv = c;
      for (std::size_t i = c; i < n; ++i)
        if (std::fabs(a(i, c)) > std::fabs(a(piv, c))) piv = i;
      REQUIRE(a(piv, c) != 0.0f);
      for (std::size_t j = 0; j < n; ++j) std::swap(a(c, j), a(piv, j));
      std::swap(f.p[c], f.p[piv]);
      for (std::size_t i = c + 1; i < n; ++i) a(i, c) = a(i, c) / a(c, c);
      for (std::size_t i = c + 1; i < n; ++i)
        for (std::size_t j = c + 1; j < k1; ++j) a(i, j) = a(i, j) - a(i, c) * a(c, j);
    }
    if (k1 == n) break;
    for (std::size_t j = k1; j < n; ++j)  // column by column: the same operations per element
      for (std::size_t k = k0; k < k1; ++k)
        for (std::size_t i = k + 1; i < k1; ++i) a(i, j) = a(i, j) - a(i, k) * a(k, j);
    const int m = static_cast<int>(n - k1), ld = static_cast<int>(n);
    if (model) {
      REQUIRE(mmaemu_sgemm(model, policy, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, m, m, kNb, -1.0f,
                           &a(k1, k0), ld, &a(k0, k1), ld, 1.0f, &a(k1, k1), ld) == MMAEMU_OK);
    } else {
      for (std::size_t j = k1; j < n; ++j)
        for (std::size_t i = k1; i < n; ++i)
          for (std::size_t k = k0; k < k1; ++k) a(i, j) = a(i, j) - a(i, k) * a(k, j);
    }
  }
  for (float x : f.a) f.ok = f.ok && std::isfinite(x);
  return f;
}

// U^-1 L^-1 P r in binary32, r scaled by 2^-e (||r||_inf = m 2^e, m in [0.5, 1)).
std::vector<double> solve2(const Lu2& f, const std::vector<double>& r) {
  const std::size_t n = r.size();
  double big = 0;
  for (double x : r) big = std::max(big, std::fabs(x));
  std::vector<double> d(n, 0.0);
  if (big == 0) return d;
  int e;
  std::frexp(big, &e);
  std::vector<float> y(n);
  for (std::size_t i = 0; i < n; ++i) y[i] = static_cast<float>(std::ldexp(r[static_cast<std::size_t>(f.p[i])], -e));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < i; ++k) y[i] = y[i] - f.a[i * n + k] * y[k];
  for (std::size_t i = n; i-- > 0;) {
    for (std::size_t k = i + 1; k < n; ++k) y[i] = y[i] - f.a[i * n + k] * y[k];
    y[i] = y[i] / f.a[i * n + i];
  }
  for (std::size_t i = 0; i < n; ++i) d[i] = std::ldexp(static_cast<double>(y[i]), e);
  return d;
}

struct Ir2 {
  std::string status;
  int steps = 0;
  std::vector<double> eta;
};

Ir2 refine2(const Matrix& A, const std::vector<double>& b, const Lu2& f) {
  const std::size_t n = b.size();
  Ir2 out;
  if (!f.ok) return {"failed", 0, {}};
  double na = 0, nb = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double s = 0;
    for (std::size_t j = 0; j < n; ++j) s += std::fabs(A(i, j));
    na = std::max(na, s);
    nb = std::max(nb, std::fabs(b[i]));
  }
  std::vector<double> x = solve2(f, b);
  for (int it = 0; it <= 50; ++it) {
    std::vector<double> r(n);
    double nr = 0, nx = 0;
    for (std::size_t i = 0; i < n; ++i) {
      double s = 0;
      for (std::size_t j = 0; j < n; ++j) s += A(i, j) * x[j];
      r[i] = b[i] - s;
      nr = std::max(nr, std::fabs(r[i]));
      nx = std::max(nx, std::fabs(x[i]));
    }
    const double eta = nr / (na * nx + nb);
    out.eta.push_back(eta);
    out.steps = it;
    if (eta <= static_cast<double>(n) * 0x1p-53) {
      out.status = "converged";
      return out;
    }
    if (!std::isfinite(eta) || (it > 0 && eta >= out.eta[it - 1])) {
      out.status = std::isfinite(eta) && eta <= out.eta[0] ? "stalled" : "diverged";
      return out;
    }
    if (it == 50) break;
    const std::vector<double> d = solve2(f, r);
    for (std::size_t i = 0; i < n; ++i) x[i] = x[i] + d[i];
  }
  out.status = "max_iterations";
  return out;
}

struct UnitCase {
  const char* model;  // nullptr: native fp32
  const char* policy;
  const char* label;
};
const UnitCase kUnits[] = {{"H100", "fp16", "H100 fp16"}, {"A100", "bf16", "A100 bf16"},
                           {"MI300X", "fp16", "MI300X fp16"}, {nullptr, "fp32", "native fp32"}};

std::string hex(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%016llx", static_cast<unsigned long long>(std::bit_cast<uint64_t>(x)));
  return b;
}

// The second implementation's counts, "label|kappa" -> "status steps".
std::map<std::string, std::string> second_counts() {
  std::map<std::string, std::string> out;
  const OrthogonalPair uv = random_orthogonal_pair(kN, kSeed);
  const std::vector<double> b = lu_ir_rhs(kN, kSeed);
  for (double kappa : kKappas) {
    const Matrix A = conditioned_matrix(uv, kappa, Spectrum::geometric, 2);
    for (const UnitCase& u : kUnits) {
      mmaemu_model* m = nullptr;
      if (u.model) REQUIRE(mmaemu_model_lookup(u.model, &m) == MMAEMU_OK);
      const Ir2 r = refine2(A, b, factor2(A, m, u.policy));
      char key[64];
      std::snprintf(key, sizeof key, "%s|%.3g", u.label, kappa);
      out[key] = r.status + " " + std::to_string(r.steps);
      mmaemu_model_free(m);
    }
  }
  return out;
}

}  // namespace

TEST_CASE("lu-ir: iteration counts and backward errors equal a second implementation on the same operands") {
  const OrthogonalPair uv = random_orthogonal_pair(kN, kSeed);
  const std::vector<double> b = lu_ir_rhs(kN, kSeed);
  int converged = 0, diverged = 0;
  for (double kappa : kKappas) {
    const Matrix A = conditioned_matrix(uv, kappa, Spectrum::geometric, 2);
    for (const UnitCase& u : kUnits) {
      mmaemu_model* m = nullptr;
      if (u.model) REQUIRE(mmaemu_model_lookup(u.model, &m) == MMAEMU_OK);
      const LuUnit unit{u.label, m, u.policy, 2};
      const LuFactors f = lu_factor(A, unit, kNb);
      const Lu2 f2 = factor2(A, m, u.policy);
      const IrResult r = refine(A, b, f, IrConfig{});
      const Ir2 r2 = refine2(A, b, f2);
      INFO("seed " << kSeed << ", n " << kN << ", kappa " << kappa << ", " << std::string(u.label) << ": experiment "
                   << std::string(ir_status_name(r.status)) << " after " << r.iterations << ", second " << r2.status << " after "
                   << r2.steps);
      CHECK(f.lu == f2.a);
      CHECK(r.iterations == r2.steps);
      CHECK(std::string(ir_status_name(r.status)) == r2.status);
      REQUIRE(r.backward.size() == r2.eta.size());
      for (std::size_t i = 0; i < r.backward.size(); ++i) {
        INFO("eta_" << i << ": " << hex(r.backward[i]) << " vs " << hex(r2.eta[i]));
        CHECK(std::bit_cast<uint64_t>(r.backward[i]) == std::bit_cast<uint64_t>(r2.eta[i]));
      }
      converged += r.status == IrStatus::converged;
      diverged += r.status != IrStatus::converged;
      MESSAGE("kappa " << kappa << " " << std::string(u.label) << ": " << std::string(ir_status_name(r.status)) << " "
                       << r.iterations);
      mmaemu_model_free(m);
    }
  }
  CHECK(converged > 0);  // the grid holds both outcomes
  CHECK(diverged > 0);
}

TEST_CASE("lu-ir: the command's CSV gives the second implementation's counts") {
  char tmpl[] = "/tmp/mmaemu_lu_ir_XXXXXX";
  REQUIRE(mkdtemp(tmpl));
  const std::string dir = tmpl;
  std::ostringstream out, err;
  const int rc = cmd_experiment({"lu-ir", "--n", "128", "--kappa", "1e2,1e5,1e8", "--models", "H100,A100,MI300X,native",
                                 "--inputs", "fp16,bf16", "--nb", "32", "--seed", "7", "--threads", "2", "--quiet",
                                 "--out", dir},
                                out, err);
  INFO(out.str() << err.str());
  REQUIRE(rc == 0);
  const std::map<std::string, std::string> want = second_counts();
  std::ifstream csv(dir + "/lu_ir.csv");
  std::string line;
  std::getline(csv, line);
  CHECK(line.rfind("n,spectrum,kappa,unit,solver,status,iterations", 0) == 0);
  int matched = 0;
  while (std::getline(csv, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
    REQUIRE(f.size() == 13);
    const auto it = want.find(f[3] + "|" + f[2]);
    if (it == want.end()) continue;  // H100 bf16, MI300X bf16, A100 fp16: not in the second run
    INFO(line);
    CHECK(it->second == f[5] + " " + f[6]);
    ++matched;
  }
  CHECK(matched == 12);
  CHECK(out.str().find("runtime:") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("lu-ir: the test matrices are orthogonal products with the asked-for spectrum") {
  const std::size_t n = 64;
  const OrthogonalPair uv = random_orthogonal_pair(n, 3);
  double worst = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double s = 0, t = 0;
      for (std::size_t k = 0; k < n; ++k) s += uv.U(k, i) * uv.U(k, j), t += uv.V(k, i) * uv.V(k, j);
      worst = std::max({worst, std::fabs(s - (i == j)), std::fabs(t - (i == j))});
    }
  CHECK(worst < 1e-13);
  // A v_n = sigma_n u_n: the smallest singular value is 1/kappa.
  for (Spectrum s : {Spectrum::geometric, Spectrum::clustered}) {
    const Matrix A = conditioned_matrix(uv, 1e6, s);
    double err = 0;
    for (std::size_t i = 0; i < n; ++i) {
      double y = 0;
      for (std::size_t j = 0; j < n; ++j) y += A(i, j) * uv.V(j, n - 1);
      err = std::max(err, std::fabs(y - 1e-6 * uv.U(i, n - 1)));
    }
    CHECK(err < 1e-14);
  }
  // Seeded: the same seed, the same bits; another seed, other matrices.
  CHECK(random_orthogonal_pair(n, 3).U.v == uv.U.v);
  CHECK(random_orthogonal_pair(n, 4).U.v != uv.U.v);
}

TEST_CASE("lu-ir: GMRES-IR converges where LU-IR with fp16 factors diverges") {
  const OrthogonalPair uv = random_orthogonal_pair(kN, kSeed);
  const std::vector<double> b = lu_ir_rhs(kN, kSeed);
  const Matrix A = conditioned_matrix(uv, 1e8, Spectrum::geometric, 2);
  mmaemu_model* m = nullptr;
  REQUIRE(mmaemu_model_lookup("H100", &m) == MMAEMU_OK);
  const LuFactors f = lu_factor(A, LuUnit{"H100 fp16", m, "fp16", 2}, kNb);
  IrConfig lu, gm;
  gm.gmres = true;
  const IrResult a = refine(A, b, f, lu), g = refine(A, b, f, gm);
  MESSAGE("kappa 1e8, H100 fp16: LU-IR " << std::string(ir_status_name(a.status)) << " after " << a.iterations
                                         << ", GMRES-IR " << std::string(ir_status_name(g.status)) << " after " << g.iterations << " ("
                                         << g.inner << " GMRES iterations)");
  CHECK(a.status != IrStatus::converged);
  CHECK(g.status == IrStatus::converged);
  CHECK(g.backward.back() <= kN * 0x1p-53);
  mmaemu_model_free(m);
}

TEST_CASE("lu-ir: bad options are refused with a message") {
  auto error = [](std::vector<std::string> args) {
    std::ostringstream out, err;
    args.insert(args.begin(), "lu-ir");
    CHECK(cmd_experiment(args, out, err) == 2);
    return err.str();
  };
  CHECK(error({"--spectrum", "flat"}).find("--spectrum: 'flat' (valid: geometric, clustered, both)") != std::string::npos);
  CHECK(error({"--kappa", "0.5"}).find("--kappa: each value in [1, 1e16]") != std::string::npos);
  CHECK(error({"--models", "H100"}).find("--models and --inputs go together") != std::string::npos);
  CHECK(error({"--models", "H101", "--inputs", "fp16"}).find("unknown model 'H101'") != std::string::npos);
  CHECK(error({"--solver", "cg"}).find("--solver: 'cg'") != std::string::npos);
  CHECK(error({"--n", "4"}).find("--n: 4 is out of range") != std::string::npos);
  std::ostringstream out, err;
  CHECK(cmd_experiment({"lu-ir", "--n", "16", "--kappa", "10", "--models", "V100", "--inputs", "bf16", "--quiet"},
                       out, err) == 2);
  CHECK(out.str().find("skipped V100 bf16") != std::string::npos);
  // A custom model keeps its key=value pairs in the list.
  std::ostringstream out2, err2;
  CHECK(cmd_experiment({"lu-ir", "--n", "16", "--kappa", "10", "--models", "custom:base=H100,round=rne,native",
                        "--inputs", "fp16", "--quiet"},
                       out2, err2) == 0);
  INFO(out2.str() << err2.str());
  CHECK(out2.str().find("custom:base=H100,round=rne fp16") != std::string::npos);
  CHECK(out2.str().find("native fp32") != std::string::npos);
}
