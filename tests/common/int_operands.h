// SPDX-License-Identifier: BSD-3-Clause
// An integer GEMM's operands as the C API and the driver take them
// (docs/c-api.md, mmaemu_gemm_int): op(A) m x k and op(B) k x n given as
// codes (row-major A[i*k + l], B[l*n + j]), stored one code per byte or,
// `packed` (s4/u4), two per byte along k with element 2i in the low nibble;
// A transposed (ta) keeps k along its columns, B transposed (tb) along its rows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mmaemu::test {

struct IntOperandBytes {
  std::vector<uint8_t> a, b;  // one byte past the end so empty operands have data()
};

inline IntOperandBytes int_operand_bytes(std::size_t m, std::size_t n, std::size_t k, bool ta, bool tb, bool packed,
                                         const uint64_t* A, const uint64_t* B) {
  // op(A)(i, l) and op(B)(l, j) at byte (line, l / kd) of their views, kd = 2 when packed.
  const std::size_t kd = packed ? 2 : 1, kb = (k + kd - 1) / kd;
  IntOperandBytes x{std::vector<uint8_t>(m * kb + 1, 0), std::vector<uint8_t>(kb * n + 1, 0)};
  auto put = [&](std::vector<uint8_t>& X, std::size_t at, std::size_t l, uint64_t code) {
    if (!packed) X[at] = static_cast<uint8_t>(code);
    else X[at] = static_cast<uint8_t>(X[at] | ((code & 0xF) << (4 * (l & 1))));
  };
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t l = 0; l < k; ++l) put(x.a, ta ? (l / kd) * m + i : i * kb + l / kd, l, A[i * k + l]);
  for (std::size_t l = 0; l < k; ++l)
    for (std::size_t j = 0; j < n; ++j) put(x.b, tb ? j * kb + l / kd : (l / kd) * n + j, l, B[l * n + j]);
  return x;
}

}  // namespace mmaemu::test
