// SPDX-License-Identifier: BSD-3-Clause
#include "ozaki/dgemm.h"

#include <cmath>
#include <vector>

namespace mmaemu::ozaki {

namespace {

// The elements of D whose row of A or column of B holds an Inf or NaN: the
// plain fp64 dot product there.
void ieee_specials(const Problem& p, double* d) {
  std::vector<uint8_t> row(p.m, 0), col(p.n, 0);
  bool any = false;
  for (std::size_t i = 0; i < p.m; ++i)
    for (std::size_t l = 0; l < p.k; ++l)
      if (!std::isfinite(p.a(i, l))) row[i] = 1, any = true;
  for (std::size_t j = 0; j < p.n; ++j)
    for (std::size_t l = 0; l < p.k; ++l)
      if (!std::isfinite(p.b(l, j))) col[j] = 1, any = true;
  if (!any) return;
  for (std::size_t i = 0; i < p.m; ++i)
    for (std::size_t j = 0; j < p.n; ++j) {
      if (!row[i] && !col[j]) continue;
      double s = 0;
      for (std::size_t l = 0; l < p.k; ++l) s += p.a(i, l) * p.b(l, j);
      d[i * p.n + j] = s;
    }
}

}  // namespace

void dgemm(const Unit& unit, const Scheme& scheme, const RunOptions& opt, const Problem& p, double alpha, double beta,
           const OutView& c, Stats& stats) {
  if (p.m == 0 || p.n == 0) return;
  if (alpha == 0.0 || p.k == 0) {
    for (std::size_t i = 0; i < p.m; ++i)
      for (std::size_t j = 0; j < p.n; ++j) c(i, j) = beta == 0.0 ? 0.0 : beta * c(i, j);
    return;
  }
  std::vector<double> d(p.m * p.n);
  if (scheme.kind == Kind::scheme1) scheme1_product(unit, scheme, opt, p, d.data(), stats);
  else scheme2_product(unit, scheme, opt, p, d.data(), stats);
  ieee_specials(p, d.data());
  for (std::size_t i = 0; i < p.m; ++i)
    for (std::size_t j = 0; j < p.n; ++j) {
      const double ad = alpha * d[i * p.n + j];
      c(i, j) = beta == 0.0 ? ad : ad + beta * c(i, j);
    }
}

}  // namespace mmaemu::ozaki
