// SPDX-License-Identifier: BSD-3-Clause
// Scheme I (docs/ozaki.md, "Scheme I"): the error-free splitting of Ozaki,
// Ogita, Oishi & Rump (2012) in its fixed-point form (one exponent per row
// of A and per column of B, as ozIMMU does on int8 units: Ootomo, Ozaki &
// Yokota 2024), the slice products on the unit, their sums in fp64.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "driver/parallel.h"
#include "ozaki/planes.h"
#include "ozaki/problem.h"
#include "ozaki/unit_product.h"

namespace mmaemu::ozaki {

namespace {

// ceil(log2 x) for x >= 1.
int ceil_log2(std::size_t x) {
  int b = 0;
  while ((std::size_t{1} << b) < x) ++b;
  return b;
}

std::size_t chunk_length(const Unit& unit, int bits) {
  return unit.integer() ? integer_chunk((1 << bits) - 1) : kFloatChunk;
}

// The exponent e of a line (row of A, column of B) with max |x| < 2^e: the
// frexp exponent of its largest finite magnitude; 0 for a line of zeros.
template <typename At>
int line_exponent(std::size_t len, At at) {
  double most = 0;
  for (std::size_t l = 0; l < len; ++l) {
    const double v = std::fabs(at(l));
    if (std::isfinite(v)) most = std::max(most, v);
  }
  int e = 0;
  if (most > 0) std::frexp(most, &e);
  return e;
}

// 2^s as a double when it is a normal one (s in [-1022, 1023]), else 0.
double normal_power_of_two(int s) {
  if (s < -1022 || s > 1023) return 0.0;
  const uint64_t bits = static_cast<uint64_t>(s + 1023) << 52;
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// ldexp(x, s), given power = normal_power_of_two(s): the product by a normal
// power of two is correctly rounded, as ldexp is, so the same double.
double scale(double x, int s, double power) { return power != 0.0 ? x * power : std::ldexp(x, s); }

// The slices of x in a line of exponent e (|x| < 2^e): digit s (1-based) is
// trunc(x 2^(bits s - e)) - 2^bits trunc(x 2^(bits (s-1) - e)), each of
// magnitude < 2^bits and the sign of x, so that
//   x = sum_s digit_s 2^(e - bits s) + (a remainder below 2^(e - bits S)).
// Every step is exact in fp64: a power-of-two scaling, a truncation, and
// the subtraction of x's leading part from x. up[s - 1] and down[s - 1] are
// normal_power_of_two(bits s - e) and normal_power_of_two(e - bits s).
void split(double x, int e, int bits, int slices, const double* up, const double* down, int* digits) {
  double rest = std::isfinite(x) ? x : 0.0;
  for (int s = 1; s <= slices; ++s) {
    const double d = std::trunc(scale(rest, bits * s - e, up[s - 1]));
    digits[s - 1] = static_cast<int>(d);
    rest -= scale(d, e - bits * s, down[s - 1]);
  }
}

// The slices of every line of an operand into planes (line, l), a line per
// task.
template <typename At>
void split_lines(std::size_t lines, std::size_t k, int bits, int slices, const std::vector<int>& exps, At at,
                 Planes& planes, int threads) {
  const int t = driver::work_threads(threads, lines, k, static_cast<std::size_t>(slices), 1 << 16);
  const bool s8 = planes.input() == Fmt::s8;
  driver::parallel_for(t, lines, driver::Assign::blocks, [&](std::size_t r) {
    std::vector<int> digits(slices);
    std::vector<double> up(slices), down(slices);
    for (int s = 1; s <= slices; ++s) {
      up[s - 1] = normal_power_of_two(bits * s - exps[r]);
      down[s - 1] = normal_power_of_two(exps[r] - bits * s);
    }
    std::vector<int8_t*> row(s8 ? slices : 0);
    for (int s = 0; s < slices && s8; ++s) row[s] = planes.s8_row(s, r);
    for (std::size_t l = 0; l < k; ++l) {
      split(at(r, l), exps[r], bits, slices, up.data(), down.data(), digits.data());
      if (s8)
        for (int s = 0; s < slices; ++s) row[s][l] = static_cast<int8_t>(digits[s]);
      else
        for (int s = 0; s < slices; ++s) planes.set(s, r, l, digits[s]);
    }
  });
}

}  // namespace

int slice_bits(const Unit& unit, std::size_t k) {
  const int p = info(unit.input).man_bits + (unit.integer() ? 0 : 1);
  if (unit.integer()) return p;
  const std::size_t kc = std::max<std::size_t>(1, std::min(k, kFloatChunk));
  return std::min(p, (24 - ceil_log2(kc)) / 2);
}

// The sum (docs/ozaki.md, "Summation order"): the slice products (s, t) are
// grouped by g = s + t (they share the scale 2^(e_i + f_j - bits g)); a
// group's products, s ascending, each over its k chunks in order, are added
// in fp64 from +0 (exact on a unit that computed them exactly: integers
// below 2^53); the groups, g descending (smallest scale first), are scaled
// and added in fp64 from +0. The triangle takes g <= S + 1, all pairs g <= 2S.
void scheme1_product(const Unit& unit, const Scheme& scheme, const RunOptions& opt, const Problem& p, double* d,
                     Stats& stats) {
  const std::size_t m = p.m, n = p.n, k = p.k;
  const int S = scheme.count, bits = slice_bits(unit, k);
  std::vector<int> ea(m), fb(n);
  for (std::size_t i = 0; i < m; ++i) ea[i] = line_exponent(k, [&](std::size_t l) { return p.a(i, l); });
  for (std::size_t j = 0; j < n; ++j) fb[j] = line_exponent(k, [&](std::size_t l) { return p.b(l, j); });
  Planes A(unit.input, S, m, k), B(unit.input, S, n, k);
  split_lines(m, k, bits, S, ea, [&](std::size_t i, std::size_t l) { return p.a(i, l); }, A, opt.threads);
  split_lines(n, k, bits, S, fb, [&](std::size_t j, std::size_t l) { return p.b(l, j); }, B, opt.threads);
  // Element-wise passes over m x n, a row per task (each element's own
  // order of additions unchanged).
  const int rows_threads = driver::work_threads(opt.threads, m, n, 1, 1 << 16);

  const std::vector<Chunk> chunks = chunks_of(k, chunk_length(unit, bits));
  UnitProduct up(unit, opt.threads, opt.check, m, n);
  std::vector<double> group(m * n);
  std::vector<uint8_t> pair_bad(opt.check ? m * n : 0), out_bad(opt.check ? m * n : 0);
  std::fill(d, d + m * n, 0.0);
  const int g_max = scheme.all_pairs ? 2 * S : S + 1;
  for (int g = g_max; g >= 2; --g) {
    std::fill(group.begin(), group.end(), 0.0);
    for (int s = std::max(1, g - S); s <= std::min(S, g - 1); ++s) {
      std::fill(pair_bad.begin(), pair_bad.end(), 0);
      for (const Chunk& c : chunks) {
        up.run(A, s - 1, B, g - s - 1, c);
        if (unit.integer()) {
          const int32_t* value = up.int_values();
          driver::parallel_for(rows_threads, m, driver::Assign::blocks, [&](std::size_t i) {
            double* const out = group.data() + i * n;
            const int32_t* const in = value + i * n;
            const std::size_t row = n;
            for (std::size_t j = 0; j < row; ++j) out[j] += in[j];
          });
        } else {
          for (std::size_t e = 0; e < m * n; ++e) group[e] += up.value(e);
        }
        if (opt.check)
          for (std::size_t e = 0; e < m * n; ++e) pair_bad[e] |= !up.exact(e);
      }
      ++stats.products;
      if (opt.check) {
        stats.product_elements += m * n;
        for (std::size_t e = 0; e < m * n; ++e) {
          stats.inexact_product_elements += pair_bad[e];
          out_bad[e] |= pair_bad[e];
        }
      }
    }
    driver::parallel_for(rows_threads, m, driver::Assign::blocks, [&](std::size_t i) {
      for (std::size_t j = 0; j < n; ++j) {
        const int s = ea[i] + fb[j] - bits * g;
        d[i * n + j] += scale(group[i * n + j], s, normal_power_of_two(s));
      }
    });
  }
  if (opt.check) {
    stats.checked = true;
    for (uint8_t b : out_bad) stats.inexact_outputs += b;
  }
}

}  // namespace mmaemu::ozaki
