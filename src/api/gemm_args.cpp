// SPDX-License-Identifier: BSD-3-Clause
// The GEMM entries' shared argument handling (api/gemm_args.h).
#include "api/gemm_args.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "api/enum_args.h"

namespace mmaemu::api {

void check_layout(int layout, int ta, int tb) {
  check_enum("layout", layout, kLayouts);
  check_enum("ta", ta, kTransposes);
  check_enum("tb", tb, kTransposes);
}

std::size_t ld_need(bool row_major, bool trans, std::size_t rows, std::size_t cols) {
  const std::size_t stored_cols = trans ? rows : cols, stored_rows = trans ? cols : rows;
  return std::max<std::size_t>(1, row_major ? stored_cols : stored_rows);
}

void check_ld(const char* name, bool row_major, bool trans, std::size_t rows, std::size_t cols, int ld) {
  const std::size_t need = ld_need(row_major, trans, rows, cols);
  if (ld < 0 || static_cast<std::size_t>(ld) < need)
    throw std::invalid_argument(std::string(name) + " leading dimension " + std::to_string(ld) + " < " +
                                std::to_string(need));
}

bool chain_from_c(mmaemu_accumulate accumulate, bool alpha_is_one, bool unit_reads_c) {
  return accumulate == MMAEMU_ACC_INTO_C || (accumulate == MMAEMU_ACC_BLAS_INTO_C && alpha_is_one && unit_reads_c);
}

void to_row_major(mmaemu_layout layout, driver::Operand& a, driver::Operand& b, std::size_t& m, std::size_t& n) {
  if (layout != MMAEMU_COL_MAJOR) return;
  std::swap(a, b);
  std::swap(m, n);
}

}  // namespace mmaemu::api
