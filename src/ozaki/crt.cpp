// SPDX-License-Identifier: BSD-3-Clause
#include "ozaki/crt.h"

#include <algorithm>
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

// The 64 bits of x from bit lo up (lo >= 0; bits beyond 192 are zero).
uint64_t bits_from(const Wide& x, int lo) {
  const int limb = lo / 64, shift = lo % 64;
  const uint64_t low = limb < 3 ? x.limb[limb] : 0, high = limb + 1 < 3 ? x.limb[limb + 1] : 0;
  return shift == 0 ? low : (low >> shift) | (high << (64 - shift));
}

// Whether any of the bits of x below bit `count` is set.
bool any_below(const Wide& x, int count) {
  for (int limb = 0; limb < 3 && count > 0; ++limb, count -= 64) {
    const uint64_t mask = count >= 64 ? ~uint64_t{0} : (uint64_t{1} << count) - 1;
    if (x.limb[limb] & mask) return true;
  }
  return false;
}

// x rounded to fp64, to nearest, ties to even: its top 53 bits, the next
// (half) bit and whether any lower bit is set (sticky).
double to_double(const Wide& x) {
  const int len = bit_length(x);
  if (len <= 53) return static_cast<double>(x.limb[0]);
  const int shift = len - 53;
  uint64_t top = bits_from(x, shift) & ((uint64_t{1} << 53) - 1);
  const bool half = (bits_from(x, shift - 1) & 1) != 0;
  const bool sticky = any_below(x, shift - 1);
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
  m.fits_u128 = bit_length(m.product) <= 127;
  for (int q : m.p) m.by.emplace_back(static_cast<uint32_t>(q));
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

// Exactly the integer steps of the 192-bit path: x < P < 2^127, so
// x p_l + v_l, 2x and P - x never leave 128 bits, and the rounding is the
// same to_double of the same integer.
double reconstruct(const Moduli& m, const uint8_t* residues, std::size_t stride) {
  const std::size_t n = m.p.size();
  uint32_t digit[20];
  // Garner: x = v_1 + p_1 (v_2 + p_2 (v_3 + ...)), 0 <= v_l < p_l.
  for (std::size_t l = 0; l < n; ++l) {  // 32-bit: every term below 2^16, sums below 2^21
    const uint32_t pl = static_cast<uint32_t>(m.p[l]);
    uint32_t known = 0;  // (v_1 + p_1 v_2 + ... ) mod p_l
    for (std::size_t j = 0; j < l; ++j) known += digit[j] * static_cast<uint32_t>(m.radix[l][j]);
    const uint32_t reduced = m.by[l](known);
    const uint32_t r = residues[l * stride];
    const uint32_t diff = r >= reduced ? r - reduced : r + pl - reduced;
    digit[l] = m.by[l](diff * static_cast<uint32_t>(m.inverse[l]));
  }
  if (m.fits_u128) {
    u128 x = 0;  // Horner from the top digit: x = x p_l + v_l
    for (std::size_t l = n; l-- > 0;) x = x * static_cast<uint64_t>(m.p[l]) + digit[l];
    const u128 P = (static_cast<u128>(m.product.limb[1]) << 64) | m.product.limb[0];
    const bool negative = (x << 1) > P;  // the symmetric representative: x - P when x > P/2
    const u128 magnitude = negative ? P - x : x;
    Wide w;
    w.limb[0] = static_cast<uint64_t>(magnitude);
    w.limb[1] = static_cast<uint64_t>(magnitude >> 64);
    const double v = to_double(w);
    return negative ? -v : v;
  }
  Wide x;  // Horner from the top digit: x = x p_l + v_l
  for (std::size_t l = n; l-- > 0;) mul_add(x, static_cast<uint64_t>(m.p[l]), static_cast<uint64_t>(digit[l]));
  // The symmetric representative: x - P when x > P/2.
  Wide twice = x;
  mul_add(twice, 2, 0);
  if (compare(twice, m.product) > 0) return -to_double(minus(m.product, x));
  return to_double(x);
}

void reconstruct_many(const Moduli& m, const uint8_t* residues, std::size_t plane, std::size_t count, double* out) {
  const std::size_t n = m.p.size();
  bool small = m.fits_u128;
  for (int p : m.p) small = small && p > 128 && p <= 256;
  if (!small) {
    for (std::size_t e = 0; e < count; ++e) out[e] = reconstruct(m, residues + e, plane);
    return;
  }
  constexpr std::size_t kBlock = 64;
  uint32_t digit[20][kBlock] = {};  // whole blocks: lanes past len hold harmless values
  std::vector<SmallMod> by;
  for (int p : m.p) by.emplace_back(p);
  // x = low + (p_1 ... p_h) high: low the first h = min(8, N) digits, high
  // the others, each mixed-radix part below 2^64 (P < 2^127, p_1 ... p_8 < 2^64).
  const std::size_t h = std::min<std::size_t>(8, n);
  uint64_t low_radix = 1;
  for (std::size_t l = 0; l < h; ++l) low_radix *= static_cast<uint64_t>(m.p[l]);
  const u128 P = (static_cast<u128>(m.product.limb[1]) << 64) | m.product.limb[0];
  for (std::size_t e0 = 0; e0 < count; e0 += kBlock) {
    const std::size_t len = std::min(kBlock, count - e0);
    const uint8_t* res = residues + e0;
    for (std::size_t l = 0; l < n; ++l) {  // Garner, as in reconstruct
      const uint32_t pl = static_cast<uint32_t>(m.p[l]), inverse = static_cast<uint32_t>(m.inverse[l]);
      uint32_t known[kBlock] = {};
      for (std::size_t j = 0; j < l; ++j) {
        const uint32_t radix = static_cast<uint32_t>(m.radix[l][j]);
        for (std::size_t b = 0; b < kBlock; ++b) known[b] += digit[j][b] * radix;  // < 2^21
      }
      const SmallMod reduce = by[l];
      for (std::size_t b = 0; b < len; ++b) {
        const uint32_t reduced = reduce(known[b]);
        const uint32_t r = res[l * plane + b];
        const uint32_t diff = r >= reduced ? r - reduced : r + pl - reduced;
        digit[l][b] = reduce(diff * inverse);  // < 2^16
      }
    }
    uint64_t low[kBlock] = {}, high[kBlock] = {};  // Horner from the top digit of each part
    for (std::size_t l = n; l-- > h;) {
      const uint64_t pl = static_cast<uint64_t>(m.p[l]);
      for (std::size_t b = 0; b < kBlock; ++b) high[b] = high[b] * pl + digit[l][b];
    }
    for (std::size_t l = h; l-- > 0;) {
      const uint64_t pl = static_cast<uint64_t>(m.p[l]);
      for (std::size_t b = 0; b < kBlock; ++b) low[b] = low[b] * pl + digit[l][b];
    }
    for (std::size_t b = 0; b < len; ++b) {
      const u128 x = static_cast<u128>(high[b]) * low_radix + low[b];
      const bool negative = (x << 1) > P;
      const u128 magnitude = negative ? P - x : x;
      Wide w;
      w.limb[0] = static_cast<uint64_t>(magnitude);
      w.limb[1] = static_cast<uint64_t>(magnitude >> 64);
      const double v = to_double(w);
      out[e0 + b] = negative ? -v : v;
    }
  }
}

}  // namespace mmaemu::ozaki
