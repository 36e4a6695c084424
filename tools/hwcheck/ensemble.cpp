// SPDX-License-Identifier: BSD-3-Clause
#include "ensemble.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace mmaemu::hwcheck {

// ---------------------------------------------------------------- PRNG ---

uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

Rng::Rng(uint64_t seed) {
  uint64_t st = seed;
  for (auto& w : s_) w = splitmix64(st);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t Rng::next() {
  const uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

int64_t Rng::uniform(int64_t lo, int64_t hi) {
  if (hi < lo) throw std::invalid_argument("Rng::uniform: empty range");
  const uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) + 1u;
  if (range == 0) return static_cast<int64_t>(next());  // the full 64-bit range
  const uint64_t reject_below = (0u - range) % range;   // 2^64 mod range
  for (;;) {
    const uint64_t x = next();
    if (x >= reject_below) return lo + static_cast<int64_t>(x % range);
  }
}

uint64_t Rng::bits(int n) { return n <= 0 ? 0 : next() >> (64 - n); }

uint64_t sample_seed(uint64_t seed, InFmt f, int k, const std::string& set, uint64_t index) {
  uint64_t h = 0xcbf29ce484222325ull;  // FNV-1a of the set name
  for (unsigned char ch : set) h = (h ^ ch) * 0x100000001b3ull;
  uint64_t st = seed;
  uint64_t x = splitmix64(st);
  st = x ^ h;
  x = splitmix64(st);
  st = x ^ ((static_cast<uint64_t>(f) << 32) | static_cast<uint32_t>(k));
  x = splitmix64(st);
  st = x ^ index;
  return splitmix64(st);
}

// ---------------------------------------------------------------- sets ---

const char* set_name(SetKind s) {
  switch (s) {
    case SetKind::em_normal: return "em-normal";
    case SetKind::em_subnormal: return "em-subnormal";
    case SetKind::em_cmatch: return "em-cmatch";
    case SetKind::bits: return "bits";
    case SetKind::edge: return "edge";
  }
  return "?";
}

bool parse_set_kind(const std::string& s, SetKind& out) {
  for (SetKind k : kAllSetKinds)
    if (s == set_name(k)) {
      out = k;
      return true;
    }
  return false;
}

static int em_hi(InFmt f) { return std::min(info(f).emax, 63); }

ExpRange exp_range(InFmt f, SetKind s) {
  const InFmtInfo& in = info(f);
  switch (s) {
    case SetKind::em_subnormal: return {min_sub_exp(f), in.emin, -149, -126};
    case SetKind::em_cmatch: {
      const int lo = std::max(2 * in.emin, -149), hi = std::min(2 * em_hi(f) + 1, 127);
      return {in.emin, em_hi(f), lo, hi};
    }
    default: return {in.emin, em_hi(f), -126, 127};
  }
}

const std::vector<std::string>& edge_case_names() {
  static const std::vector<std::string> names = {
      "c-zero",               // PN 4.2: c = 0
      "some-zero-products",   // some partial products zero
      "all-zero-products",    // all partial products zero (signed zeros)
      "huge-c-tiny-products", // extreme dynamic range: |c| ~ 2^127, tiny products
      "tiny-c-huge-products", // ... and vice versa
      "subnormal-c",          // subnormal fp32 c with products near 2^-126
      "cancel-huge-products", // products beyond 2^128 (beyond fp16 max) that cancel
      "inf-nan-inputs",       // +-Inf and NaN inputs, Inf*0, Inf-Inf
      "mixed-classes",        // zero, normal, subnormal and special values mixed
      "max-carries",          // all-ones significands, same sign, aligned c
      "overflow",             // finite inputs whose sum overflows the output
      "interleave-probe",     // PN 4.1.6: 1 + two 2^-24 products at random places
      "near-cancel-c",        // c = -(sum of products) rounded: massive cancellation
  };
  return names;
}

void Ensemble::append(const Ensemble& o) {
  if (!c.empty() && (o.fmt != fmt || o.k != k)) throw std::invalid_argument("Ensemble::append: mismatch");
  if (c.empty()) {
    fmt = o.fmt;
    k = o.k;
  }
  const size_t base = c.size();
  a.insert(a.end(), o.a.begin(), o.a.end());
  b.insert(b.end(), o.b.begin(), o.b.end());
  c.insert(c.end(), o.c.begin(), o.c.end());
  for (const auto& s : o.sets) sets.push_back({s.name, base + s.first, s.count});
}

// -------------------------------------------------------------- draws ---

static uint32_t em_generic(Rng& r, int p, int emin, int e_lo, int e_hi, uint32_t max_finite) {
  if (e_lo < emin - (p - 1)) throw std::invalid_argument("draw_em: exponent below the subnormal range");
  for (;;) {
    const int e = static_cast<int>(r.uniform(e_lo, e_hi));
    const int q = std::max(e, emin) - (p - 1);  // quantum exponent
    const int w = e + 1 - q;                    // significand bits below 2^(e+1)
    const uint64_t m = r.bits(w);
    const bool neg = r.coin();
    const uint32_t v = fp32_from_scaled(neg, m, q);
    if ((v & 0x7fffffffu) <= max_finite) return v;
  }
}

uint32_t draw_em(Rng& r, InFmt f, int e_lo, int e_hi) {
  const InFmtInfo& in = info(f);
  return em_generic(r, in.man_bits + 1, in.emin, e_lo, e_hi, in.max_finite);
}

uint32_t draw_em_fp32(Rng& r, int e_lo, int e_hi) {
  return em_generic(r, 24, -126, e_lo, e_hi, 0x7f7fffffu);
}

uint32_t draw_bits(Rng& r, InFmt f) {
  const InFmtInfo& in = info(f);
  const uint32_t sign = static_cast<uint32_t>(r.bits(1));
  const uint32_t man = static_cast<uint32_t>(r.bits(in.man_bits));
  const uint32_t e_all = (1u << in.exp_bits) - 1u;
  uint32_t e;
  for (;;) {
    e = static_cast<uint32_t>(r.bits(in.exp_bits));
    const bool special = e == e_all && (in.has_inf || man == (1u << in.man_bits) - 1u);
    if (!special) break;
  }
  if (f == InFmt::tf32) return (sign << 31) | (e << 23) | (man << 13);
  const uint32_t code = (sign << (in.exp_bits + in.man_bits)) | (e << in.man_bits) | man;
  return decode_to_fp32(f, code);
}

uint32_t draw_bits_fp32(Rng& r) {
  const uint32_t sign = static_cast<uint32_t>(r.bits(1));
  const uint32_t man = static_cast<uint32_t>(r.bits(23));
  uint32_t e;
  do e = static_cast<uint32_t>(r.bits(8));
  while (e == 255u);
  return (sign << 31) | (e << 23) | man;
}

// ---------------------------------------------------------- edge cases ---

namespace {

constexpr uint32_t kSign = 0x80000000u;

uint32_t pow2(int e, bool neg = false) { return fp32_from_scaled(neg, 1, e); }
uint32_t signed_zero(Rng& r) { return r.coin() ? kSign : 0u; }
/// +-Inf in the format, NaN where it has no Inf (E4M3).
uint32_t inf_or_nan(InFmt f, bool neg) { return (neg ? kSign : 0u) | (info(f).has_inf ? kFp32Inf : kFp32QNaN); }
uint32_t fp32_subnormal(Rng& r) {
  uint32_t m = 0;
  while (m == 0) m = static_cast<uint32_t>(r.bits(23));
  return (r.coin() ? kSign : 0u) | m;
}
/// (2^p - 1) * 2^(e - p + 1): the all-ones significand in binade e.
uint32_t all_ones(int p, int e, bool neg) { return fp32_from_scaled(neg, (1ull << p) - 1u, e - p + 1); }

/// Full-significand draw (leading bit set): binade e uniform on [e_lo, e_hi]
/// (e_lo >= emin), |value| in [2^e, 2^(e+1)), random sign.
uint32_t draw_full(Rng& r, int p, int e_lo, int e_hi, uint32_t max_finite) {
  for (;;) {
    const int e = static_cast<int>(r.uniform(e_lo, e_hi));
    const uint64_t m = (1ull << (p - 1)) | r.bits(p - 1);
    const uint32_t v = fp32_from_scaled(r.coin(), m, e - (p - 1));
    if ((v & 0x7fffffffu) <= max_finite) return v;
  }
}
uint32_t full(Rng& r, InFmt f, int e_lo, int e_hi) {
  const InFmtInfo& in = info(f);
  return draw_full(r, in.man_bits + 1, e_lo, e_hi, in.max_finite);
}
uint32_t full_fp32(Rng& r, int e_lo, int e_hi) { return draw_full(r, 24, e_lo, e_hi, 0x7f7fffffu); }

struct Row {
  uint32_t* a;
  uint32_t* b;
  uint32_t& c;
};

void fill_em(Rng& r, InFmt f, int k, uint32_t* x, int lo, int hi) {
  for (int l = 0; l < k; ++l) x[l] = draw_em(r, f, lo, hi);
}

void edge_sample(int which, Rng& r, InFmt f, int k, Row s) {
  const InFmtInfo& in = info(f);
  const int p = in.man_bits + 1, emin = in.emin, hi = em_hi(f), sub = min_sub_exp(f);
  const ExpRange cm = exp_range(f, SetKind::em_cmatch);
  auto normal_ab = [&] {
    fill_em(r, f, k, s.a, emin, hi);
    fill_em(r, f, k, s.b, emin, hi);
  };
  switch (which) {
    case 0:  // c-zero
      normal_ab();
      s.c = signed_zero(r);
      break;
    case 1:  // some-zero-products
      normal_ab();
      for (int l = 0; l < k; ++l) {
        if (!r.coin()) continue;
        const int w = static_cast<int>(r.uniform(0, 2));
        if (w != 1) s.a[l] = signed_zero(r);
        if (w != 0) s.b[l] = signed_zero(r);
      }
      s.c = draw_em_fp32(r, cm.c_lo, cm.c_hi);
      break;
    case 2: {  // all-zero-products
      const bool all_negative = r.chance(1, 4);
      for (int l = 0; l < k; ++l) {
        const int w = static_cast<int>(r.uniform(0, 2));
        s.a[l] = w == 1 ? draw_em(r, f, sub, hi) : signed_zero(r);
        s.b[l] = w == 0 ? draw_em(r, f, sub, hi) : signed_zero(r);
        if (all_negative && (((s.a[l] ^ s.b[l]) & kSign) == 0)) s.a[l] ^= kSign;
      }
      const int cw = static_cast<int>(r.uniform(0, 3));
      s.c = all_negative ? kSign
            : cw == 0    ? 0u
            : cw == 1    ? kSign
            : cw == 2    ? fp32_subnormal(r)
                         : draw_em_fp32(r, cm.c_lo, cm.c_hi);
      break;
    }
    case 3:  // huge-c-tiny-products
      fill_em(r, f, k, s.a, sub, emin);
      fill_em(r, f, k, s.b, sub, emin);
      s.c = full_fp32(r, 127, 127);
      break;
    case 4:  // tiny-c-huge-products
      for (int l = 0; l < k; ++l) s.a[l] = full(r, f, hi - 3, hi);
      for (int l = 0; l < k; ++l) s.b[l] = full(r, f, hi - 3, hi);
      s.c = r.coin() ? fp32_subnormal(r) : draw_em_fp32(r, -149, -126);
      break;
    case 5: {  // subnormal-c
      const int top = (2 * sub <= -127) ? std::max(sub, -64) : emin;
      fill_em(r, f, k, s.a, sub, top);
      fill_em(r, f, k, s.b, sub, top);
      s.c = fp32_subnormal(r);
      break;
    }
    case 6: {  // cancel-huge-products
      fill_em(r, f, k, s.a, emin, (emin + hi) / 2);
      fill_em(r, f, k, s.b, emin, (emin + hi) / 2);
      std::vector<int> pos(k);
      for (int l = 0; l < k; ++l) pos[l] = l;
      for (int l = k - 1; l > 0; --l) std::swap(pos[l], pos[static_cast<size_t>(r.uniform(0, l))]);
      const int pairs = std::max(1, k / 4);
      for (int q = 0; q < pairs && 2 * q + 1 < k; ++q) {
        const int i = pos[2 * q], j = pos[2 * q + 1];
        s.a[i] = full(r, f, in.emax - 3, in.emax);
        s.b[i] = full(r, f, in.emax - 3, in.emax);
        s.a[j] = s.a[i];
        s.b[j] = s.b[i];
        if (r.coin()) s.a[j] ^= kSign; else s.b[j] ^= kSign;
      }
      s.c = draw_em_fp32(r, cm.c_lo, cm.c_hi);
      break;
    }
    case 7: {  // inf-nan-inputs
      normal_ab();
      s.c = draw_em_fp32(r, cm.c_lo, cm.c_hi);
      const int i = static_cast<int>(r.uniform(0, k - 1));
      int j = static_cast<int>(r.uniform(0, k - 2));
      if (j >= i) ++j;
      const bool neg = r.coin();
      const int64_t sub_case = r.uniform(0, 7);
      switch (sub_case) {
        case 0: (r.coin() ? s.a : s.b)[i] = inf_or_nan(f, neg); break;
        case 1:  // Inf * 0
          s.a[i] = inf_or_nan(f, neg);
          s.b[i] = signed_zero(r);
          if (r.coin()) std::swap(s.a[i], s.b[i]);
          break;
        case 2:  // +Inf and -Inf products
          s.a[i] = inf_or_nan(f, false);
          s.a[j] = inf_or_nan(f, true);
          s.b[i] &= ~kSign;
          s.b[j] &= ~kSign;
          if (s.b[i] == 0) s.b[i] = pow2(0);
          if (s.b[j] == 0) s.b[j] = pow2(0);
          break;
        case 3: (r.coin() ? s.a : s.b)[i] = kFp32QNaN | (neg ? kSign : 0u); break;
        case 4: s.c = kFp32Inf | (neg ? kSign : 0u); break;
        case 5: s.c = kFp32QNaN; break;
        case 6:  // Inf product against the opposite Inf in c
        case 7:  // ... and against the same Inf
          s.a[i] = inf_or_nan(f, false);
          s.b[i] = pow2(0, neg);
          // product sign = neg; case 6 gives c the opposite sign, case 7 the same
          s.c = kFp32Inf | (((sub_case == 6) != neg) ? kSign : 0u);
          break;
      }
      break;
    }
    case 8: {  // mixed-classes
      auto one = [&]() -> uint32_t {
        const int w = static_cast<int>(r.uniform(0, 15));
        if (w < 3) return signed_zero(r);
        if (w < 8) return draw_em(r, f, sub, emin);
        if (w < 14) return draw_em(r, f, emin, hi);
        return w == 14 ? inf_or_nan(f, r.coin()) : (kFp32QNaN | (r.coin() ? kSign : 0u));
      };
      for (int l = 0; l < k; ++l) {
        s.a[l] = one();
        s.b[l] = one();
      }
      const int w = static_cast<int>(r.uniform(0, 15));
      s.c = w < 4 ? signed_zero(r)
            : w < 8 ? fp32_subnormal(r)
            : w < 15 ? draw_em_fp32(r, cm.c_lo, cm.c_hi)
                     : (kFp32Inf | (r.coin() ? kSign : 0u));
      break;
    }
    case 9: {  // max-carries
      int e_top = std::min(hi, 62);
      if ((all_ones(p, e_top, false) & 0x7fffffffu) > in.max_finite) --e_top;  // e4m3: 1.111*2^8 is NaN
      const int e = static_cast<int>(r.uniform(std::max(emin, -63), e_top));
      const bool neg = r.coin();
      for (int l = 0; l < k; ++l) {
        s.a[l] = all_ones(p, e, neg);
        s.b[l] = all_ones(p, e, false);
      }
      s.c = all_ones(24, std::clamp(2 * e + 1 + static_cast<int>(r.uniform(-1, 1)), -126, 127), neg);
      break;
    }
    case 10: {  // overflow
      const bool neg = r.coin();
      for (int l = 0; l < k; ++l) {
        s.a[l] = full(r, f, in.emax - 1, in.emax) & ~kSign;
        s.b[l] = full(r, f, in.emax - 1, in.emax) & ~kSign;
        if (neg) s.a[l] |= kSign;
      }
      s.c = draw_em_fp32(r, cm.c_lo, cm.c_hi) | (neg ? kSign : 0u);
      break;
    }
    case 11: {  // interleave-probe
      const int e_big = std::max(0, (24 + 2 * sub + 1) / 2);
      const int s2 = 2 * e_big - 24;
      const int ea = s2 >= 0 ? s2 / 2 : -((-s2 + 1) / 2);
      const int eb = s2 - ea;
      for (int l = 0; l < k; ++l) s.a[l] = s.b[l] = 0;
      const int i0 = static_cast<int>(r.uniform(0, k - 1));
      s.a[i0] = s.b[i0] = pow2(e_big);
      const int smalls = static_cast<int>(r.uniform(1, 4));
      for (int t = 0; t < smalls; ++t) {
        int j = static_cast<int>(r.uniform(0, k - 2));
        if (j >= i0) ++j;
        s.a[j] = pow2(ea);
        s.b[j] = pow2(eb);
      }
      s.c = r.coin() ? 0u : pow2(2 * e_big);
      break;
    }
    case 12: {  // near-cancel-c
      normal_ab();
      double sum = 0;
      for (int l = 0; l < k; ++l)
        sum += static_cast<double>(fp32_value(s.a[l])) * static_cast<double>(fp32_value(s.b[l]));
      const float c = static_cast<float>(-sum);
      s.c = std::isfinite(c) ? fp32_bits(c) : 0u;
      break;
    }
    default: throw std::logic_error("edge_sample: unknown case");
  }
}

}  // namespace

Ensemble generate_set(InFmt f, int k, SetKind kind, size_t n, uint64_t seed) {
  if (k <= 1) throw std::invalid_argument("generate_set: k must be at least 2");
  Ensemble e;
  e.fmt = f;
  e.k = k;
  auto add = [&](const std::string& name, size_t count, auto&& fill) {
    const size_t base = e.c.size();
    e.a.resize((base + count) * k);
    e.b.resize((base + count) * k);
    e.c.resize(base + count);
    for (size_t i = 0; i < count; ++i) {
      Rng r(sample_seed(seed, f, k, name, i));
      fill(r, Row{&e.a[(base + i) * k], &e.b[(base + i) * k], e.c[base + i]});
    }
    e.sets.push_back({name, base, count});
  };
  const std::string name = set_name(kind);
  switch (kind) {
    case SetKind::em_normal:
    case SetKind::em_subnormal:
    case SetKind::em_cmatch: {
      const ExpRange x = exp_range(f, kind);
      add(name, n, [&](Rng& r, Row s) {
        fill_em(r, f, k, s.a, x.a_lo, x.a_hi);
        fill_em(r, f, k, s.b, x.a_lo, x.a_hi);
        s.c = draw_em_fp32(r, x.c_lo, x.c_hi);
      });
      break;
    }
    case SetKind::bits:
      add(name, n, [&](Rng& r, Row s) {
        for (int l = 0; l < k; ++l) s.a[l] = draw_bits(r, f);
        for (int l = 0; l < k; ++l) s.b[l] = draw_bits(r, f);
        s.c = draw_bits_fp32(r);
      });
      break;
    case SetKind::edge: {
      const auto& cases = edge_case_names();
      const size_t each = std::max<size_t>(1, n / cases.size());
      for (size_t w = 0; w < cases.size(); ++w)
        add("edge:" + cases[w], each, [&](Rng& r, Row s) { edge_sample(static_cast<int>(w), r, f, k, s); });
      break;
    }
  }
  // Every input must be exactly representable (NaN included where allowed).
  for (uint32_t v : e.a)
    if (!representable(f, v)) throw std::logic_error("generate_set: non-representable a");
  for (uint32_t v : e.b)
    if (!representable(f, v)) throw std::logic_error("generate_set: non-representable b");
  return e;
}

Ensemble generate(InFmt f, int k, const std::vector<SetKind>& sets, size_t n_per_set, uint64_t seed) {
  Ensemble all;
  all.fmt = f;
  all.k = k;
  for (SetKind s : sets) all.append(generate_set(f, k, s, n_per_set, seed));
  return all;
}

}  // namespace mmaemu::hwcheck
