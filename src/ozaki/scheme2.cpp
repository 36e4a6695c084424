// SPDX-License-Identifier: BSD-3-Clause
// Scheme II (docs/ozaki.md, "Scheme II"; Ozaki, Uchino & Imamura 2025): A
// and B scaled by powers of two to integer matrices A', B' whose product
// has |A'B'| < P/2, the products A'B' mod p_l on the int8 unit, the
// Chinese remainder reconstruction, the scaling undone.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "driver/parallel.h"
#include "ozaki/crt.h"
#include "ozaki/planes.h"
#include "ozaki/problem.h"
#include "ozaki/unit_product.h"

namespace mmaemu::ozaki {

namespace {

// floor(a / 2) for any integer a.
int floor_half(int a) { return a >= 0 ? a / 2 : -((-a + 1) / 2); }

// The scale exponent mu of a line (row of A or column of B), the fast mode
// of the paper (Cauchy-Schwarz): with e its frexp exponent (max |x| < 2^e)
// and s the sum of (x 2^-e)^2 in line order, s_up = s (1 + 2^-20) bounds
// the exact sum (k < 2^31), and 2^x the power of two above s_up (frexp).
// Then ||trunc(2^mu x)||_2 < 2^(mu + e + x/2) <= 2^((L - 1)/2) with
// mu = floor((L - 1 - x) / 2) - e, L = floor(log2 P); so for a row and a
// column |sum_l a'_l b'_l| <= ||a'|| ||b'|| < 2^(L-1) <= P/2.
template <typename At>
int line_scale(std::size_t len, int log2_p, At at) {
  double most = 0;
  for (std::size_t l = 0; l < len; ++l) {
    const double v = std::fabs(at(l));
    if (std::isfinite(v)) most = std::max(most, v);
  }
  if (most == 0) return 0;
  int e = 0;
  std::frexp(most, &e);
  double s = 0;
  for (std::size_t l = 0; l < len; ++l) {
    const double v = at(l);
    if (!std::isfinite(v)) continue;
    const double w = std::ldexp(v, -e);
    s += w * w;
  }
  int x = 0;
  std::frexp(s * (1.0 + 0x1p-20), &x);
  return floor_half(log2_p - 1 - x) - e;
}

// v mod p for an integer-valued double v >= 0, exactly: v itself below
// 2^62, else v = h 2^s (h its 53-bit significand) and (h mod p)(2^s mod p).
int64_t mod_of(double v, int64_t p) {
  if (v < 0x1p62) return static_cast<int64_t>(v) % p;
  int e = 0;
  const double f = std::frexp(v, &e);
  int64_t r = static_cast<int64_t>(std::ldexp(f, 53)) % p;
  for (int s = e - 53; s > 0; --s) r = r * 2 % p;
  return r;
}

// 2^s for s in [-1022, 1023], a normal double, from its bits.
double power_of_two(int s) {
  const uint64_t bits = static_cast<uint64_t>(s + 1023) << 52;
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

// trunc(2^mu v) for a finite v, as ldexp gives it: 2^mu v is rounded once
// either way, and the product by 2^mu (a double for mu in [-1022, 1023]) is
// that same rounding (any result below 2^-1022 truncates to 0 whichever
// rounding it had).
double scaled_integer(double v, int mu, double power) {
  if (!std::isfinite(v)) return 0.0;
  return std::trunc(mu >= -1022 && mu <= 1023 ? v * power : std::ldexp(v, mu));
}

// The residues of trunc(2^mu x) by every modulus, as the representatives in
// [-p/2, p/2) (p even) or [-(p+1)/2, (p-1)/2] (p odd): |r| <= 128 for
// p <= 256, an int8.
//
// Below 2^62 a magnitude u = a3 2^48 + a2 2^32 + a1 2^16 + a0 (a3 < 2^14,
// the others < 2^16) has u = t (mod p) with
// t = a0 + a1 (2^16 mod p) + a2 (2^32 mod p) + a3 (2^48 mod p) < 2^26, and
// t mod p comes from SmallMod (crt.h: exact, the same integer as `%`);
// every step in 32 or 64 bits, so the loops over a line vectorise. Above
// 2^62, mod_of.
class Residues {
 public:
  explicit Residues(const Moduli& mod) {
    for (int p : mod.p) {
      if (p <= 128 || p > 256) throw std::logic_error("scheme II's residues take moduli in (128, 256]");
      const int64_t q = p;
      p_.push_back(p);
      c16_.push_back(static_cast<uint32_t>((int64_t{1} << 16) % q));
      c32_.push_back(static_cast<uint32_t>((int64_t{1} << 32) % q));
      c48_.push_back(static_cast<uint32_t>((int64_t{1} << 48) % q));
      by_.emplace_back(p);
    }
  }
  std::size_t count() const { return p_.size(); }
  static bool small(double magnitude) { return magnitude < 0x1p62; }
  // The representative for any scaled integer, by mod_of (the wide path).
  int of(double scaled, std::size_t q) const {
    return symmetric(mod_of(std::fabs(scaled), p_[q]), scaled < 0, p_[q]);
  }
  // Row q of the residues of `len` magnitudes below 2^62 given as 16-bit
  // digits digit[d][l] and signs negative[l].
  void of_small(const uint16_t* const digit[4], const uint8_t* negative, std::size_t len, std::size_t q,
                int8_t* out) const {
    const uint32_t c16 = c16_[q], c32 = c32_[q], c48 = c48_[q];
    const SmallMod by = by_[q];
    const int32_t p = p_[q];
    const uint16_t *a0 = digit[0], *a1 = digit[1], *a2 = digit[2], *a3 = digit[3];
    const int32_t half = p / 2;
    for (std::size_t l = 0; l < len; ++l) {
      const uint32_t t = a0[l] + a1[l] * c16 + a2[l] * c32 + a3[l] * c48;
      const int32_t r = static_cast<int32_t>(by(t));
      // symmetric(), branch-free: the sign, then the two range corrections.
      const int32_t sign = -static_cast<int32_t>(negative[l]);  // 0 or -1
      int32_t v = (r ^ sign) - sign;
      v -= p & -static_cast<int32_t>(v >= half);
      v += p & -static_cast<int32_t>(v < -half);
      out[l] = static_cast<int8_t>(v);
    }
  }

 private:
  static int symmetric(int64_t r, bool negative, int64_t p) {
    r = negative ? -r : r;
    r = r >= p / 2 ? r - p : r;
    r = r < -(p / 2) ? r + p : r;
    return static_cast<int>(r);
  }
  std::vector<int32_t> p_;
  std::vector<uint32_t> c16_, c32_, c48_;
  std::vector<SmallMod> by_;
};

// The residues of every line of an operand: plane l holds trunc(2^mu x) mod
// p_l. A line per task: its scaled integers split into 16-bit digits once,
// then every modulus in a pass over them; magnitudes from 2^62 on (only with
// more than 16 moduli) are overwritten by the wide path.
template <typename At>
void residue_lines(std::size_t lines, std::size_t k, const Moduli& mod, const std::vector<int>& mu, At at,
                   Planes& planes, int threads) {
  const Residues residues(mod);
  const std::size_t N = residues.count();
  const int t = driver::work_threads(threads, lines, k, N, 1 << 16);
  driver::parallel_for(t, lines, driver::Assign::blocks, [&](std::size_t r) {
    std::vector<uint16_t> digits(4 * k);
    std::vector<uint8_t> negative(k);
    std::vector<std::size_t> wide;
    const uint16_t* const digit[4] = {digits.data(), digits.data() + k, digits.data() + 2 * k, digits.data() + 3 * k};
    const double power = mu[r] >= -1022 && mu[r] <= 1023 ? power_of_two(mu[r]) : 0.0;
    for (std::size_t l = 0; l < k; ++l) {
      const double scaled = scaled_integer(at(r, l), mu[r], power);
      const double magnitude = std::fabs(scaled);
      uint64_t u = 0;
      if (Residues::small(magnitude)) u = static_cast<uint64_t>(magnitude);
      else wide.push_back(l);
      negative[l] = scaled < 0;
      for (int d = 0; d < 4; ++d) digits[d * k + l] = static_cast<uint16_t>(u >> (16 * d));
    }
    for (std::size_t q = 0; q < N; ++q) {
      int8_t* row = planes.s8_row(q, r);
      residues.of_small(digit, negative.data(), k, q, row);
      for (std::size_t l : wide) row[l] = static_cast<int8_t>(residues.of(scaled_integer(at(r, l), mu[r], power), q));
    }
  });
}

}  // namespace

void scheme2_product(const Unit& unit, const Scheme& scheme, const RunOptions& opt, const Problem& p, double* d,
                     Stats& stats) {
  const std::size_t m = p.m, n = p.n, k = p.k, N = static_cast<std::size_t>(scheme.count);
  const Moduli mod = make_moduli(scheme.count);
  std::vector<int> mu(m), nu(n);
  for (std::size_t i = 0; i < m; ++i)
    mu[i] = line_scale(k, mod.product_log2, [&](std::size_t l) { return p.a(i, l); });
  for (std::size_t j = 0; j < n; ++j)
    nu[j] = line_scale(k, mod.product_log2, [&](std::size_t l) { return p.b(l, j); });
  Planes A(unit.input, N, m, k), B(unit.input, N, n, k);
  residue_lines(m, k, mod, mu, [&](std::size_t i, std::size_t l) { return p.a(i, l); }, A, opt.threads);
  residue_lines(n, k, mod, nu, [&](std::size_t j, std::size_t l) { return p.b(l, j); }, B, opt.threads);

  // Residues |r| <= 128: products <= 2^14, int32 sums exact over a chunk.
  const std::vector<Chunk> chunks = chunks_of(k, integer_chunk(128));
  UnitProduct up(unit, opt.threads, opt.check, m, n);
  std::vector<uint8_t> res(N * m * n, 0);  // (A'B' mod p_l) in [0, p_l), plane l at l m n
  std::vector<uint8_t> bad(opt.check ? m * n : 0), out_bad(opt.check ? m * n : 0);
  for (std::size_t q = 0; q < N; ++q) {
    const int pq = mod.p[q];
    std::fill(bad.begin(), bad.end(), 0);
    for (const Chunk& c : chunks) {
      up.run(A, q, B, q, c);
      const int32_t* value = up.int_values();
      const SmallMod by(pq);
      const uint32_t c16 = (uint32_t{1} << 16) % pq;
      const uint32_t offset = static_cast<uint32_t>((int64_t{1} << 31) % pq);
      uint8_t* plane = res.data() + q * m * n;
      const int t = driver::work_threads(opt.threads, m, n, 1, 1 << 16);
      driver::parallel_for(t, m, driver::Assign::blocks, [&](std::size_t i) {
        const std::size_t row = n;  // locals, so that the loop's count is known and it vectorises
        uint8_t* const out = plane + i * row;
        const int32_t* const in = value + i * row;
        const uint32_t p = static_cast<uint32_t>(pq), shift = p - offset, low16 = c16;
        const SmallMod reduce = by;
        for (std::size_t j = 0; j < row; ++j) {
          // (res + value) mod p in [0, p): u = value + 2^31 in [0, 2^32),
          // u = h 2^16 + l = h (2^16 mod p) + l < 2^25 (mod p), less 2^31 mod p.
          const uint32_t u = static_cast<uint32_t>(in[j]) + 0x80000000u;
          const uint32_t v = reduce((u >> 16) * low16 + (u & 0xFFFFu));
          uint32_t r = out[j] + v + shift;  // < 3 p
          r = r >= p ? r - p : r;
          r = r >= p ? r - p : r;
          out[j] = static_cast<uint8_t>(r);
        }
      });
      if (opt.check)
        for (std::size_t e = 0; e < m * n; ++e) bad[e] |= !up.exact(e);
    }
    ++stats.products;
    if (opt.check) {
      stats.product_elements += m * n;
      for (std::size_t e = 0; e < m * n; ++e) {
        stats.inexact_product_elements += bad[e];
        out_bad[e] |= bad[e];
      }
    }
  }
  const int threads = driver::work_threads(opt.threads, m, n, N * N, 1);
  driver::parallel_for(threads, m, driver::Assign::blocks, [&](std::size_t i) {
    double* row = d + i * n;
    reconstruct_many(mod, res.data() + i * n, m * n, n, row);
    for (std::size_t j = 0; j < n; ++j) {
      // 2^-(mu + nu) v: the product by a power of two is the one rounding
      // ldexp makes when that power is a normal double.
      const int s = -(mu[i] + nu[j]);
      row[j] = s >= -1022 && s <= 1023 ? row[j] * power_of_two(s) : std::ldexp(row[j], s);
    }
  });
  if (opt.check) {
    stats.checked = true;
    for (uint8_t b : out_bad) stats.inexact_outputs += b;
  }
}

}  // namespace mmaemu::ozaki
