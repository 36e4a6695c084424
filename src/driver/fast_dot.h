// SPDX-License-Identifier: BSD-3-Clause
// Independent dot products on the fast step kernels: what `mmaemu validate`
// runs, one hardware sample (a, b, c) after another.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/scalar.h"
#include "models/model.h"

namespace mmaemu::driver {

/// ref::dot(row, k, a, b, c) on the fast kernel of the row (the reference
/// for steps with NaN or Inf inputs, and for rows without a fast kernel):
/// the same bits, faster.
uint64_t fast_dot(const ModelRow& row, std::size_t k, const uint64_t* a, const uint64_t* b, uint64_t c);
/// The same on the scalar step kernel of the row's plan (KernelPlan::step),
/// made once by the caller for all its dot products.
uint64_t fast_dot(const ModelRow& row, kernels::ScalarKernel kernel, std::size_t k, const uint64_t* a, const uint64_t* b,
                  uint64_t c);

/// fast_dot for `count` samples: sample i has a[i*k ...], b[i*k ...], c[i];
/// d[i] receives its result. Threads as the GEMM (thread_count(threads)).
void fast_dot_batch(const ModelRow& row, std::size_t count, std::size_t k, const uint64_t* a, const uint64_t* b,
                    const uint64_t* c, uint64_t* d, int threads = 0);

}  // namespace mmaemu::driver
