// SPDX-License-Identifier: BSD-3-Clause
#include "ozaki/crt.h"

#include <cmath>
#include <cstddef>
#include <numeric>
#include <stdexcept>

namespace mmaemu::ozaki {

namespace {

using u128 = unsigned __int128;

// x = x * f + add (x * f + add < 2^192).
void mul_add(Wide& x, uint64_t f, uint64_t add) {
  u128 carry = add;
  for (uint64_t& limb : x.limb) {
    const u128 t = static_cast<u128>(limb) * f + carry;
    limb = static_cast<uint64_t>(t);
    carry = t >> 64;
  }
}

int compare(const Wide& a, const Wide& b) {
  for (int i = 2; i >= 0; --i)
    if (a.limb[i] != b.limb[i]) return a.limb[i] < b.limb[i] ? -1 : 1;
  return 0;
}

// a - b, a >= b.
Wide minus(const Wide& a, const Wide& b) {
  Wide r;
  uint64_t borrow = 0;
  for (int i = 0; i < 3; ++i) {
    const u128 t = static_cast<u128>(a.limb[i]) - b.limb[i] - borrow;
    r.limb[i] = static_cast<uint64_t>(t);
    borrow = static_cast<uint64_t>(t >> 64) & 1;
  }
  return r;
}

int bit_length(const Wide& x) {
  for (int i = 2; i >= 0; --i)
    if (x.limb[i]) return 64 * i + 64 - __builtin_clzll(x.limb[i]);
  return 0;
}

bool bit(const Wide& x, int b) { return (x.limb[b / 64] >> (b % 64)) & 1; }

// Bits [lo, lo + 53) of x as an integer (lo >= 0).
uint64_t bits_from(const Wide& x, int lo) {
  uint64_t v = 0;
  for (int b = 52; b >= 0; --b) v = (v << 1) | (lo + b < 192 && bit(x, lo + b));
  return v;
}

// x rounded to fp64, to nearest, ties to even.
double to_double(const Wide& x) {
  const int len = bit_length(x);
  if (len <= 53) return static_cast<double>(x.limb[0]);
  const int shift = len - 53;
  uint64_t top = bits_from(x, shift);
  const bool half = bit(x, shift - 1);
  bool sticky = false;
  for (int b = 0; b < shift - 1 && !sticky; ++b) sticky = bit(x, b);
  if (half && (sticky || (top & 1))) ++top;  // 2^53 is exact
  return std::ldexp(static_cast<double>(top), shift);
}

int64_t inverse_mod(int64_t a, int64_t p) {
  // Extended Euclid: a x = 1 (mod p), a and p coprime.
  int64_t r0 = p, r1 = a % p, x0 = 0, x1 = 1;
  while (r1 != 0) {
    const int64_t q = r0 / r1;
    int64_t t = r0 - q * r1;
    r0 = r1, r1 = t;
    t = x0 - q * x1;
    x0 = x1, x1 = t;
  }
  return ((x0 % p) + p) % p;
}

}  // namespace

Moduli make_moduli(int count) {
  if (count < 1 || count > 20) throw std::invalid_argument("scheme II takes 1 to 20 moduli");
  Moduli m;
  for (int c = 256; static_cast<int>(m.p.size()) < count; --c) {
    bool coprime = true;
    for (int q : m.p) coprime = coprime && std::gcd(c, q) == 1;
    if (coprime) m.p.push_back(c);
  }
  m.product.limb[0] = 1;
  for (int q : m.p) mul_add(m.product, static_cast<uint64_t>(q), 0);
  m.product_log2 = bit_length(m.product) - 1;
  const std::size_t n = m.p.size();
  m.radix.assign(n, {});
  m.inverse.assign(n, 1);
  for (std::size_t l = 1; l < n; ++l) {
    const int64_t pl = m.p[l];
    int64_t prod = 1;
    for (std::size_t j = 0; j < l; ++j) {
      m.radix[l].push_back(static_cast<int>(prod));  // (p_1 ... p_j) mod p_l, the empty product first
      prod = prod * m.p[j] % pl;
    }
    m.inverse[l] = static_cast<int>(inverse_mod(prod, pl));
  }
  return m;
}

double reconstruct(const Moduli& m, const uint8_t* residues, std::size_t stride) {
  const std::size_t n = m.p.size();
  int digit[20];
  // Garner: x = v_1 + p_1 (v_2 + p_2 (v_3 + ...)), 0 <= v_l < p_l.
  for (std::size_t l = 0; l < n; ++l) {
    const int64_t pl = m.p[l];
    int64_t known = 0;  // (v_1 + p_1 v_2 + ... ) mod p_l
    for (std::size_t j = 0; j < l; ++j) known += static_cast<int64_t>(digit[j]) * m.radix[l][j];
    const int64_t r = residues[l * stride];
    const int64_t diff = ((r - known) % pl + pl) % pl;
    digit[l] = static_cast<int>(diff * m.inverse[l] % pl);
  }
  Wide x;  // Horner from the top digit: x = x p_l + v_l
  for (std::size_t l = n; l-- > 0;) mul_add(x, static_cast<uint64_t>(m.p[l]), static_cast<uint64_t>(digit[l]));
  // The symmetric representative: x - P when x > P/2.
  Wide twice = x;
  mul_add(twice, 2, 0);
  if (compare(twice, m.product) > 0) return -to_double(minus(m.product, x));
  return to_double(x);
}

}  // namespace mmaemu::ozaki
