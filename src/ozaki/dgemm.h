// SPDX-License-Identifier: BSD-3-Clause
// dgemm by an Ozaki scheme (docs/ozaki.md): C = alpha op(A) op(B) + beta C.
#pragma once

#include <cstddef>

#include "ozaki/problem.h"
#include "ozaki/scheme.h"

namespace mmaemu::ozaki {

/// Element (i, j) of C at data[i*rs + j*cs].
struct OutView {
  double* data;
  std::ptrdiff_t rs, cs;
  double& operator()(std::size_t i, std::size_t j) const {
    return data[static_cast<std::ptrdiff_t>(i) * rs + static_cast<std::ptrdiff_t>(j) * cs];
  }
};

/// C = alpha D + beta C (fp64, two roundings; beta = 0 never reads C) with
/// D = op(A) op(B) by the scheme on the unit. alpha = 0 or k = 0: C = beta C
/// (A and B not read), as the reference BLAS. An element of D whose row of
/// A or column of B holds an Inf or NaN is the plain fp64 dot product
/// (l ascending), so that it is Inf or NaN as IEEE arithmetic makes it; the
/// schemes read those entries as zero. Adds to `stats`.
void dgemm(const Unit& unit, const Scheme& scheme, const RunOptions& opt, const Problem& p, double alpha, double beta,
           const OutView& c, Stats& stats);

}  // namespace mmaemu::ozaki
