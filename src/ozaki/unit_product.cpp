// SPDX-License-Identifier: BSD-3-Clause
#include "ozaki/unit_product.h"

#include <algorithm>

#include "driver/gemm.h"
#include "driver/parallel.h"
#include "driver/schedule.h"

namespace mmaemu::ozaki {

std::vector<Chunk> chunks_of(std::size_t k, std::size_t most) {
  std::vector<Chunk> out;
  for (std::size_t k0 = 0; k0 < k; k0 += most) out.push_back({k0, std::min(most, k - k0)});
  return out;
}

std::size_t integer_chunk(int digit_max) {
  const int64_t d = digit_max;
  const std::size_t c = static_cast<std::size_t>(((int64_t{1} << 31) - 1) / (d * d));
  return std::max<std::size_t>(2, c & ~std::size_t{1});
}

UnitProduct::UnitProduct(const Unit& unit, int threads, bool check, std::size_t m, std::size_t n)
    : unit_(unit), threads_(threads), check_(check), m_(m), n_(n), value_(unit.integer() ? 0 : m * n), exact_(check ? m * n : 0) {
  if (unit.integer()) int_out_.resize(m * n);
  else float_out_.resize(m * n);
}

void UnitProduct::run(const Planes& a, std::size_t pa, const Planes& b, std::size_t pb, const Chunk& c) {
  run_unit(a, pa, b, pb, c);
  if (check_) run_exact(a, pa, b, pb, c);
}

// The unit's GEMM, the library's own: the integer plug-in (D = A*B, int32,
// the unit's overflow rule) or the floating-point unit with fp32 output
// under the schedule, alpha = 1 and beta = 0 (the unit's accumulator as it
// is: driver/gemm.h).
void UnitProduct::run_unit(const Planes& a, std::size_t pa, const Planes& b, std::size_t pb, const Chunk& c) {
  driver::GemmSpec spec;
  spec.row = unit_.row;
  spec.threads = threads_;
  const std::size_t m = m_, n = n_;
  if (unit_.integer()) {
    driver::Operand A{unit_.input, a.at(pa, c.k0), static_cast<std::ptrdiff_t>(a.ld()), false};
    driver::Operand B{unit_.input, b.at(pb, c.k0), static_cast<std::ptrdiff_t>(b.ld()), true};
    A.fp4_packed = B.fp4_packed = unit_.input == Fmt::s4;
    driver::gemm(spec, m, n, c.len, 1.0, A, B, 0.0, Fmt::s32, int_out_.data(), static_cast<std::ptrdiff_t>(n));
  } else {
    spec.input_round = Round::rne;
    spec.input_overflow = Overflow::ieee;
    driver::Operand A{Fmt::fp32, a.at(pa, c.k0), static_cast<std::ptrdiff_t>(a.ld()), false};
    driver::Operand B{Fmt::fp32, b.at(pb, c.k0), static_cast<std::ptrdiff_t>(b.ld()), true};
    driver::scheduled_gemm(unit_.schedule, spec, m, n, c.len, 1.0, A, B, 0.0, Fmt::fp32, float_out_.data(),
                           static_cast<std::ptrdiff_t>(n));
    for (std::size_t e = 0; e < m * n; ++e) value_[e] = float_out_[e];
  }
}

// The exact product: int64 sums of the digits' products (|digit| <= 2^11,
// k < 2^31: no overflow), compared with the unit's value.
void UnitProduct::run_exact(const Planes& a, std::size_t pa, const Planes& b, std::size_t pb, const Chunk& c) {
  std::vector<int32_t> bd(n_ * c.len);  // plane pb's chunk, read once
  for (std::size_t j = 0; j < n_; ++j)
    for (std::size_t l = 0; l < c.len; ++l) bd[j * c.len + l] = static_cast<int32_t>(b.get(pb, j, c.k0 + l));
  const int threads = driver::work_threads(threads_, m_, n_, c.len);
  driver::parallel_for(threads, m_, driver::Assign::dynamic, [&](std::size_t i) {
    std::vector<int32_t> ad(c.len);
    for (std::size_t l = 0; l < c.len; ++l) ad[l] = static_cast<int32_t>(a.get(pa, i, c.k0 + l));
    for (std::size_t j = 0; j < n_; ++j) {
      const int32_t* bj = bd.data() + j * c.len;
      int64_t sum = 0;
      for (std::size_t l = 0; l < c.len; ++l) sum += static_cast<int64_t>(ad[l]) * bj[l];
      const std::size_t e = i * n_ + j;
      exact_[e] = value(e) == static_cast<double>(sum);
    }
  });
}

}  // namespace mmaemu::ozaki
