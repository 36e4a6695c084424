// SPDX-License-Identifier: BSD-3-Clause
// mmaemu-bench --dgemm: fp64 GEMM by an Ozaki scheme (docs/ozaki.md) timed
// against OpenBLAS dgemm on the same matrices in the same run.
#pragma once

#include <string>
#include <vector>

/// One line per (scheme, n, thread count): the best of `repeat` times of
/// mmaemu_dgemm_ex (scheme on `model`'s unit `input`) and of cblas_dgemm,
/// and their ratio. Returns 0, or 2 when the C API refuses a scheme.
int dgemm_rows(const std::vector<std::string>& schemes, const std::string& model, const std::string& input,
               const std::vector<int>& sizes, const std::vector<int>& threads, int repeat);
