// SPDX-License-Identifier: BSD-3-Clause
// Fast scalar step kernels on pre-decoded operands. The algorithms are those
// of src/ref/reference.cpp (docs/models.md §2), rewritten without allocation, generic
// decoding or generic rounding; tests/kernels checks bit identity.
#include "kernels/scalar.h"

#include <stdexcept>

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstring>
#include <optional>

#include "formats/fast_round.h"
#include "models/row_facts.h"
#include "formats/wide_accumulator.h"

namespace mmaemu::kernels {
namespace {

int bit_length(uint64_t x) { return 64 - std::countl_zero(x); }
uint64_t magnitude(int64_t x) { return x < 0 ? 0 - static_cast<uint64_t>(x) : static_cast<uint64_t>(x); }

uint32_t nan_bits(const ModelRow& row) { return row.out == Fmt::fp16 ? row.nan16 : row.nan32; }

// The accumulator c as a term with 23 fraction bits: value = (-1)^neg * sig
// * 2^(e - 23), decomposed in the output format (docs/models.md §2.4 step 2):
// a subnormal fp16 c sits at e = -14 with sig < 2^23; with sub_c = lead an
// fp16 c is read through its fp32 encoding (a subnormal at its leading bit).
struct CTerm {
  bool zero, nan, inf, neg;
  int e;
  uint32_t sig;
};

CTerm c_term(const ModelRow& row, uint32_t c) {
  CTerm t{};
  if (row.out == Fmt::fp16 && row.sub_c == SubnormalC::emin) {
    const uint32_t biased = (c >> 10) & 31, frac = c & 0x3FFu;
    t.neg = (c >> 15) & 1;
    t.nan = biased == 31 && frac;
    t.inf = biased == 31 && !frac;
    t.zero = biased == 0 && frac == 0;
    t.e = static_cast<int>(std::max(biased, 1u)) - 15;
    t.sig = (frac | (biased ? 1u << 10 : 0u)) << 13;
    return t;
  }
  const uint32_t b = row.out == Fmt::fp16 ? fp16_to_fp32(c) : c;
  const uint32_t biased = (b >> 23) & 255, frac = b & 0x7FFFFFu;
  t.neg = b >> 31;
  t.nan = biased == 255 && frac;
  t.inf = biased == 255 && !frac;
  t.zero = biased == 0 && frac == 0;
  t.e = static_cast<int>(std::max(biased, 1u)) - 127;
  t.sig = frac | (biased ? 1u << 23 : 0u);
  return t;
}

bool is_subnormal_out(Fmt out, uint32_t c) {
  return out == Fmt::fp16 ? (c & 0x7C00u) == 0 && (c & 0x3FFu) : (c & 0x7F800000u) == 0 && (c & 0x7FFFFFu);
}

uint32_t flush_out(const ModelRow& row, uint32_t bits) {
  if (row.out_sub || !is_subnormal_out(row.out, bits)) return bits;
  const uint32_t sign_bit = row.out == Fmt::fp16 ? 0x8000u : 0x80000000u;
  return row.flush_sign == FlushSign::keep ? (bits & sign_bit) : 0u;
}

// S * 2^lsb to the output format; exact zero -> +0.
uint32_t round_sum(const ModelRow& row, int64_t S, int lsb, Round r) {
  if (S == 0) return 0;
  return flush_out(row, round_out(row.out, S < 0, magnitude(S), lsb, r, row.result_frac()));
}

// |m| * 2^(F - frac - (E - e)), truncated toward zero (docs/models.md §2.4 step 4).
uint64_t align(uint64_t mag, int frac, int e, int E, int F) {
  const int sh = F - frac - (E - e);
  if (sh >= 0) return mag << sh;
  return -sh >= 64 ? 0 : mag >> -sh;
}

int64_t shift_rd(int64_t x, int d) {
  if (d <= 0) return x;
  if (d >= 63) return x < 0 ? -1 : 0;
  return x >> d;
}

// The products of one step: signed significand, frac bits, exponent.
struct Products {
  int n = 0;
  int64_t sig[kMaxStep];
  int frac[kMaxStep];
  int e[kMaxStep];
  int pos[kMaxStep];  // k position inside the step
};

// A partial sum S * 2^(E - F); `empty` when it has no term.
struct Partial {
  bool empty = true;
  int E = 0;
  int64_t S = 0;
};

template <typename Keep>
Partial sum_products(const Products& p, int F, int floor, Keep keep) {
  Partial r;
  int E = INT_MIN;
  for (int l = 0; l < p.n; ++l)
    if (keep(p.pos[l])) E = std::max(E, p.e[l]);
  if (E == INT_MIN) return r;
  r.empty = false;
  r.E = std::max(E, floor);
  for (int l = 0; l < p.n; ++l) {
    if (!keep(p.pos[l])) continue;
    const int64_t v = static_cast<int64_t>(align(magnitude(p.sig[l]), p.frac[l], p.e[l], r.E, F));
    r.S += p.sig[l] < 0 ? -v : v;
  }
  return r;
}

// Fused block with c early (NVIDIA, docs/models.md §2.4).
template <typename Keep>
uint32_t fused_early(const ModelRow& row, const Products& p, Keep keep, uint32_t c) {
  const CTerm ct = c_term(row, c);
  if (ct.nan) return nan_bits(row);
  if (ct.inf) return c;
  const int F = row.frac;
  Partial P = sum_products(p, F, row.floor, keep);
  if (ct.zero) {
    if (P.empty) return 0;
    if (row.zero_c_is_term && row.zero_c_exp > P.E) {  // c = 0 raises E (custom rows)
      P = sum_products(p, F, std::max(row.floor, row.zero_c_exp), keep);
    }
    return round_sum(row, P.S, P.E - F, row.round);
  }
  const int E = P.empty ? std::max(ct.e, row.floor) : std::max(P.E, ct.e);
  if (!P.empty && E != P.E) P = sum_products(p, F, E, keep);
  const int64_t s = static_cast<int64_t>(align(ct.sig, 23, ct.e, E, F));
  return round_sum(row, P.S + (ct.neg ? -s : s), E - F, row.round);
}

// Exact two-operand addition in the output format (late c of §2.12).
uint32_t add_round(const ModelRow& row, uint32_t x, uint32_t y, Round r) {
  const CTerm u = c_term(row, x), v = c_term(row, y);
  if (u.nan || v.nan || (u.inf && v.inf && u.neg != v.neg)) return nan_bits(row);
  if (u.inf) return x;
  if (v.inf) return y;
  const uint32_t sign_bit = row.out == Fmt::fp16 ? 0x8000u : 0x80000000u;
  if (u.zero && v.zero) return (u.neg && v.neg) || r == Round::rd ? sign_bit : 0u;
  WideAccumulator acc;  // exact for any exponent difference
  if (!u.zero) acc.add(u.neg, uint64_t{u.sig}, u.e - 23);
  if (!v.zero) acc.add(v.neg, uint64_t{v.sig}, v.e - 23);
  return flush_out(row, static_cast<uint32_t>(acc.round(row.out, r, Overflow::inf, r == Round::rd,
                                                        row.result_frac())));
}

// Late c with round-down alignment (CDNA3, docs/models.md §2.6; see reference.cpp).
uint32_t late_rd_add(const ModelRow& row, const Partial& P, uint32_t c, const Products& p) {
  const int F = row.frac;
  const CTerm ct = c_term(row, c);
  if (P.empty && ct.zero) return 0;
  if (ct.zero && !row.zero_c_is_term) return round_sum(row, P.S, P.E - F, row.round);
  if (P.empty) {
    const int64_t s = ct.neg ? -int64_t{ct.sig} : int64_t{ct.sig};
    return round_sum(row, s, ct.e - 23, row.round);
  }
  const int e_c = ct.zero ? row.zero_c_exp : ct.e;
  int64_t s_c = ct.zero ? 0 : int64_t{ct.sig} << (F - 23);
  if (ct.neg) s_c = -s_c;
  if (row.cutoff >= 0 && P.E - e_c > row.cutoff) s_c = 0;
  if (P.E >= e_c) return round_sum(row, P.S + shift_rd(s_c, P.E - e_c), P.E - F, row.round);
  const int d = e_c - P.E;
  auto products_rd = [&](int extra) {
    if (!(row.late_exact_zero_c && ct.zero)) return shift_rd(P.S * (int64_t{1} << extra), d);
    WideAccumulator exact;  // c = 0 dominating: the exact product sum
    for (int l = 0; l < p.n; ++l) exact.add(p.sig[l] < 0, magnitude(p.sig[l]), p.e[l] - p.frac[l]);
    return exact.floor_scaled(e_c - F - extra);
  };
  if (row.late_rd == LateRd::single_stage)
    return round_sum(row, products_rd(7) + s_c * 128, e_c - F - 7, row.round);
  int64_t S = products_rd(8) + s_c * 256;
  int lsb = e_c - F - 8;
  if (S != 0) {
    const int lead = std::max(lsb + bit_length(magnitude(S)) - 1, -126);
    const int cut = (lead - 31) - lsb;
    if (cut > 0) {
      S = shift_rd(S, cut);
      lsb += cut;
    }
  }
  return round_sum(row, S, lsb, row.round);
}

// Forms the products of a step from integer operands; returns false (and
// sets `special`) on product overflow (CDNA2/3, docs/models.md §2.2 item 4).
bool form_products(const ModelRow& row, int man, int len, const int32_t* sa, const int32_t* ea,
                   const int32_t* sb, const int32_t* eb, Products& p, uint32_t& special) {
  bool pos = false, neg = false;
  for (int l = 0; l < len; ++l) {
    const int64_t s = int64_t{sa[l]} * sb[l];
    if (s == 0) continue;
    int e = ea[l] + eb[l], frac = 2 * man;
    if (row.product == ProductForm::normalised && magnitude(s) >> (frac + 1)) ++e, ++frac;
    if (row.prd_ovf && e - frac + bit_length(magnitude(s)) - 1 >= 128) (s < 0 ? neg : pos) = true;
    p.sig[p.n] = s;
    p.frac[p.n] = frac;
    p.e[p.n] = e;
    p.pos[p.n] = l;
    ++p.n;
  }
  if (pos && neg) special = nan_bits(row);
  else if (pos || neg) special = row.out == Fmt::fp16 ? (neg ? 0xFC00u : 0x7C00u) : (neg ? 0xFF800000u : 0x7F800000u);
  return !(pos || neg);
}

// The step's result when c (taking part in the step) is NaN or Inf, or a
// product overflowed to `special` (docs/models.md §2.10): NaN first; with
// ovf_inf = ieee the overflow is one more infinity (against an opposite
// infinite c: NaN), with inputs_first an infinite c decides. Null: neither.
std::optional<uint32_t> special_result(const ModelRow& row, const CTerm& ct, uint32_t c, bool overflow,
                                       uint32_t special) {
  if (ct.nan) return nan_bits(row);
  if (ct.inf && overflow && row.ovf_inf == OverflowInf::ieee)
    return special == c ? c : nan_bits(row);  // NaN or the opposite infinity: NaN
  if (ct.inf) return c;
  if (overflow) return special;
  return std::nullopt;
}

}  // namespace

uint32_t aligned_step(const ModelRow& row, int len, const int32_t* sa, const int32_t* ea,
                      const int32_t* sb, const int32_t* eb, uint32_t c) {
  // A late c is no term of the sum: its NaN/Inf meet the sum in add_round
  // (a sum overflowing to +Inf plus c = -Inf is NaN), as in ref::step.
  const bool late_c = row.c == CEntry::late_rne || row.c == CEntry::last;
  const CTerm ct = c_term(row, c);
  Products p;
  uint32_t special = 0;
  const bool overflow = !form_products(row, unit_man(row), len, sa, ea, sb, eb, p, special);
  if (late_c) {
    if (overflow) return add_round(row, special, c, row.late_round);
  } else if (const auto s = special_result(row, ct, c, overflow, special)) {
    return *s;
  }
  if (!row.out_sub && is_subnormal_out(row.out, c)) c = 0;
  const auto all = [](int) { return true; };
  switch (row.c) {
    case CEntry::early:
    case CEntry::last:
    case CEntry::late_rne: {
      const bool early = row.c == CEntry::early;
      const uint32_t c0 = early ? c : 0u;
      uint32_t t;
      if (row.grouping == Grouping::pair_interleave) {
        const uint32_t t1 = fused_early(row, p, [](int i) { return i % 4 < 2; }, c0);
        t = fused_early(row, p, [](int i) { return i % 4 >= 2; }, t1);
      } else {
        t = fused_early(row, p, all, c0);
      }
      return early ? t : add_round(row, t, c, row.late_round);
    }
    case CEntry::late_rd: {
      const int F = row.frac;
      Partial P;
      if (row.grouping == Grouping::odd_even) {
        const Partial x = sum_products(p, F, row.floor, [](int i) { return i % 2 == 0; });
        const Partial y = sum_products(p, F, row.floor, [](int i) { return i % 2 == 1; });
        if (x.empty) P = y;
        else if (y.empty) P = x;
        else {
          P.empty = false;
          P.E = std::max(x.E, y.E);
          P.S = shift_rd(x.S, P.E - x.E) + shift_rd(y.S, P.E - y.E);
        }
      } else {
        P = sum_products(p, F, row.floor, all);
      }
      return late_rd_add(row, P, c, p);
    }
  }
  return 0;
}

// CDNA1: c and the block's products summed exactly, one rounding.
uint32_t exact_step(const ModelRow& row, int len, const int32_t* sa, const int32_t* ea,
                    const int32_t* sb, const int32_t* eb, uint32_t c) {
  const CTerm ct = c_term(row, c);
  Products p;
  uint32_t special = 0;
  const bool overflow = !form_products(row, unit_man(row), len, sa, ea, sb, eb, p, special);
  if (const auto s = special_result(row, ct, c, overflow, special)) return *s;
  WideAccumulator acc;
  bool any = false;
  for (int l = 0; l < p.n; ++l) {
    acc.add(p.sig[l] < 0, magnitude(p.sig[l]), p.e[l] - p.frac[l]);
    any = true;
  }
  if (!ct.zero && (row.out_sub || !is_subnormal_out(row.out, c))) {
    acc.add(ct.neg, uint64_t{ct.sig}, ct.e - 23);
    any = true;
  }
  if (!any) return 0;
  return flush_out(row, static_cast<uint32_t>(acc.round(row.out, row.round, Overflow::inf,
                                                        false, row.result_frac())));
}

namespace {

// IEEE fp32 values of the real-operand paths.
float as_float(uint32_t b) { return std::bit_cast<float>(b); }
uint32_t as_bits(float f) { return std::bit_cast<uint32_t>(f); }

// FTZ as the pairwise reference applies it (docs/models.md §2.8, pairwise).
float flush(const ModelRow& row, float x, bool keep_sign) {
  if (row.out_sub || x == 0.0f || !(std::fabs(x) < 0x1p-126f)) return x;  // NaN too
  return keep_sign && std::signbit(x) ? -0.0f : 0.0f;
}

}  // namespace

// CDNA2: products rounded to fp32, pairwise tree, c last, FTZ. A flushed
// input is already a zero (pack_element), so its product is a signed zero.
uint32_t pairwise_step(const ModelRow& row, int len, const int32_t* sa, const int32_t*,
                       const int32_t* sb, const int32_t*, uint32_t c) {
  float p[4] = {};
  const int g = row.pair_group;
  const bool keep = row.flush_sign == FlushSign::keep;  // for c and the products
  for (int i = 0; i < g; ++i) {
    const float x = i < len ? as_float(static_cast<uint32_t>(sa[i])) * as_float(static_cast<uint32_t>(sb[i])) : 0.0f;
    p[i] = flush(row, x, keep);
  }
  float cf = flush(row, as_float(c), keep);
  if (row.neg_zero == NegZero::positive) cf += 0.0f;  // -0 + +0 = +0, any other c unchanged
  float t = flush(row, p[0] + p[1], true);
  if (g == 4) t = flush(row, t + flush(row, p[2] + p[3], true), true);
  const float d = flush(row, cf + t, true);
  return std::isnan(d) ? row.nan32 : as_bits(d);
}

// fp32 inputs: d = fma(a_i, b_i, d), IEEE.
uint32_t fma_step(const ModelRow& row, int len, const int32_t* sa, const int32_t*,
                  const int32_t* sb, const int32_t*, uint32_t c) {
  float d = as_float(c);
  for (int l = 0; l < len; ++l)
    d = std::fma(as_float(static_cast<uint32_t>(sa[l])), as_float(static_cast<uint32_t>(sb[l])), d);
  return std::isnan(d) ? row.nan32 : as_bits(d);
}

uint64_t fp64_chain(const ModelRow& row, std::size_t k, const uint64_t* a, const uint64_t* b, uint64_t c) {
  double d = std::bit_cast<double>(c);
  for (std::size_t l = 0; l < k; ++l) d = std::fma(std::bit_cast<double>(a[l]), std::bit_cast<double>(b[l]), d);
  return std::isnan(d) ? nan_result(row) : std::bit_cast<uint64_t>(d);
}

int unit_man(const ModelRow& row) { return info(row.as_fp16 ? Fmt::fp16 : row.in).man_bits; }

Decoding decoding_of(const ModelRow& row) {
  if (row.in == Fmt::fp64 || row.out == Fmt::fp64) return Decoding::real64;
  return row.accum == Accumulation::pairwise || row.accum == Accumulation::fma_chain
             ? Decoding::real
             : Decoding::integer;
}

namespace {

// A finite real operand (fp32 bits) as the pairwise and FMA paths read it:
// a subnormal input the unit flushes is a zero, of its sign under
// flush_sign = keep, else +0; with neg_zero = positive every zero is +0
// (docs/models.md §2.2 step 1, §2.8).
int32_t real_operand(const ModelRow& row, uint32_t fp32, bool subnormal) {
  if (!row.in_sub && subnormal) fp32 = row.flush_sign == FlushSign::keep ? fp32 & 0x80000000u : 0u;
  if (row.neg_zero == NegZero::positive && (fp32 & 0x7FFFFFFFu) == 0) fp32 = 0;
  return static_cast<int32_t>(fp32);
}

// pack_element() for finite fp16 and bf16 elements, from the bit fields:
// what decode() and to_fp32_bits() give, without the generic tables (the
// hot path of packing). Returns false for NaN/Inf (left to the generic path).
bool pack_half(const ModelRow& row, uint32_t h, int32_t& sig, int32_t& exp) {
  const bool fp16 = row.in == Fmt::fp16;
  const int man = fp16 ? 10 : 7, bias = fp16 ? 15 : 127;
  const uint32_t emax = fp16 ? 31u : 255u, e = (h >> man) & emax, frac = h & ((1u << man) - 1);
  if (e == emax) return false;
  const bool subnormal = e == 0 && frac != 0;
  if (decoding_of(row) == Decoding::real) {
    sig = real_operand(row, fp16 ? fp16_to_fp32(h) : h << 16, subnormal);
    exp = 0;
    return true;
  }
  if ((e == 0 && frac == 0) || (!row.in_sub && subnormal)) {
    sig = 0;
    exp = kZeroExp;
    return true;
  }
  const int32_t m = static_cast<int32_t>(e ? frac | (1u << man) : frac);
  sig = h & 0x8000u ? -m : m;
  exp = static_cast<int32_t>(e ? e : 1) - bias;  // value = sig * 2^(exp - man)
  return true;
}

}  // namespace

bool pack_element(const ModelRow& row, uint64_t bits, int32_t& sig, int32_t& exp) {
  if ((row.in == Fmt::fp16 || row.in == Fmt::bf16) && !row.as_fp16 && decoding_of(row) != Decoding::real64 &&
      pack_half(row, static_cast<uint32_t>(bits), sig, exp))
    return true;
  if (decoding_of(row) == Decoding::real64) {  // the fp64 chain reads the bits
    sig = 0;
    exp = 0;
    return true;
  }
  const Fmt f = row.as_fp16 && decoding_of(row) == Decoding::integer ? Fmt::fp16 : row.in;
  if (f != row.in) bits = convert(row.in, f, bits, Round::rne);  // exact fp8 -> fp16
  const Unpacked u = decode(f, bits);
  if (u.cls == Class::nan || u.cls == Class::inf) {
    // Real operands keep the value (the IEEE kernels handle it natively).
    sig = decoding_of(row) == Decoding::real ? static_cast<int32_t>(to_fp32_bits(f, bits)) : 0;
    exp = decoding_of(row) == Decoding::real ? 0 : kZeroExp;
    return false;
  }
  const int man = info(f).man_bits;
  const bool subnormal = u.cls == Class::finite && u.sig < (1ull << man);
  if (decoding_of(row) == Decoding::real) {
    sig = real_operand(row, static_cast<uint32_t>(to_fp32_bits(f, bits)), subnormal);
    exp = 0;
    return true;
  }
  if (u.cls == Class::zero || (!row.in_sub && subnormal)) {
    sig = 0;
    exp = kZeroExp;
    return true;
  }
  sig = u.neg ? -static_cast<int32_t>(u.sig) : static_cast<int32_t>(u.sig);
  exp = u.exp + man;
  return true;
}

uint32_t scalar_step(ScalarKernel kernel, const ModelRow& row, int len, const int32_t* sa, const int32_t* ea,
                     const int32_t* sb, const int32_t* eb, uint32_t c) {
  switch (kernel) {
    case ScalarKernel::aligned: return aligned_step(row, len, sa, ea, sb, eb, c);
    case ScalarKernel::exact: return exact_step(row, len, sa, ea, sb, eb, c);
    case ScalarKernel::pairwise: return pairwise_step(row, len, sa, ea, sb, eb, c);
    case ScalarKernel::fma: return fma_step(row, len, sa, ea, sb, eb, c);
    case ScalarKernel::none: break;
  }
  throw std::invalid_argument("scalar_step: no scalar kernel");
}

}  // namespace mmaemu::kernels
