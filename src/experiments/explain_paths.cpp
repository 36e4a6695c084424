// SPDX-License-Identifier: BSD-3-Clause
// mmaemu explain: special values, the late round-down c of CDNA3 (§2.6),
// and the exact (CDNA1), pairwise (CDNA2) and FMA-chain paths (§2.8, §2.11).
#include <algorithm>
#include <bit>

#include "experiments/distinguish.h"
#include "experiments/explain_kit.h"
#include "formats/wide_accumulator.h"
#include "models/row_facts.h"
#include "ref/reference.h"

namespace mmaemu::experiments::explain_detail {
namespace {

int bit_length(uint64_t x) { return 64 - std::countl_zero(x); }

// What makes a step special (docs/models.md §2.10), or "" when nothing does.
std::string special_cause(const ModelRow& row, std::size_t k, const uint64_t* a, const uint64_t* b, uint64_t c) {
  const Fmt in = row.as_fp16 ? Fmt::fp16 : row.in;
  if (decode(row.out, c).cls == Class::nan) return "c is NaN";
  if (decode(row.out, c).cls == Class::inf) return "c is infinite";
  for (std::size_t i = 0; i < k; ++i) {
    const uint64_t x = row.as_fp16 ? convert(row.in, in, a[i], Round::rne) : a[i];
    const uint64_t y = row.as_fp16 ? convert(row.in, in, b[i], Round::rne) : b[i];
    const Unpacked u = decode(in, x), v = decode(in, y);
    const std::string at = " at position " + std::to_string(i + 1);
    if (u.cls == Class::nan || v.cls == Class::nan) return "a NaN input" + at;
    if (u.cls == Class::inf || v.cls == Class::inf) return "an infinite input" + at;
    if (row.prd_ovf && u.cls == Class::finite && v.cls == Class::finite &&
        (row.in_sub || (!is_subnormal(in, u) && !is_subnormal(in, v)))) {
      const XTerm p = product_term(row, in, u, v);
      if (p.e - p.frac + bit_length(p.sig) - 1 >= 128) return "a product >= 2^128 (overflow)" + at;
    }
  }
  return "";
}

uint64_t products_rd(const ModelRow& row, const Aligned& P, bool exact, const std::vector<XTerm>& terms, int e_c,
                     int extra) {
  if (!exact) return static_cast<uint64_t>(shift_rd(P.S * (int64_t{1} << extra), e_c - P.E));
  WideAccumulator acc;
  for (const XTerm& t : terms) acc.add(t.neg, t.sig, t.e - t.frac);
  return static_cast<uint64_t>(acc.floor_scaled(e_c - row.frac - extra));
}

std::string grid(int64_t S, int F, int e) { return fixed_text(S, F) + " x 2^" + std::to_string(e); }

// CDNA3 with c dominating: the two-stage (or single-stage) round-down.
uint64_t c_dominates(Stepper& s, const Aligned& P, int64_t s_c, int e_c, bool exact, const std::vector<XTerm>& terms) {
  const ModelRow& row = s.row;
  const int F = row.frac;
  ExplainStage st{s.prefix + "c dominates (e_c = " + std::to_string(e_c) + " > E_p = " + std::to_string(P.E) + ")", {}, ""};
  const bool two = row.late_rd == LateRd::two_stage;
  const int extra = two ? 8 : 7;
  const int64_t pr = static_cast<int64_t>(products_rd(row, P, exact, terms, e_c, extra));
  int64_t S = pr + s_c * (int64_t{1} << extra);
  int lsb = e_c - F - extra;
  st.lines.push_back("  products rounded down to " + std::to_string(F + extra) + " fraction bits of 2^e_c" +
                     (exact ? " (from their exact sum: c = 0 dominates)" : "") + ": " + grid(pr, F + extra, e_c));
  st.lines.push_back("  plus c:                                   " + grid(S, F + extra, e_c));
  if (two && S != 0) {
    const uint64_t mag = S < 0 ? static_cast<uint64_t>(-S) : static_cast<uint64_t>(S);
    const int lead = std::max(lsb + bit_length(mag) - 1, -126);
    const int cut = (lead - 31) - lsb;
    st.lines.push_back("  normalise: leading one at 2^" + std::to_string(lead) + "; round down to 31 fraction bits" +
                       (cut > 0 ? " (" + std::to_string(cut) + " bits cut)" : " (nothing to cut)"));
    if (cut > 0) S = shift_rd(S, cut), lsb += cut;
  }
  st.lines.push_back("  " + std::string(two ? "second stage: " : "single stage: ") + grid(S, std::max(0, e_c - lsb), e_c));
  st.bits = std::to_string(S) + "@" + std::to_string(lsb);
  s.out.push_back(st);
  return round_stage(s, S, lsb, row.round);
}

}  // namespace

std::optional<uint64_t> special_step(Stepper& s, const uint64_t* a, const uint64_t* b, uint64_t c) {
  const std::string cause = special_cause(s.row, s.k, a, b, c);
  if (cause.empty()) return std::nullopt;
  const uint64_t d = ref::step(s.row, s.k, a, b, c);
  s.note("special values", "  " + cause + ": NaN if any NaN, 0 x Inf or +Inf with -Inf, else the infinity: d = " +
                               code_text(s.row.out, d), d);
  return d;
}

uint64_t late_rd_stage(Stepper& s, const Aligned& P, uint64_t c, const std::vector<XTerm>& terms) {
  const ModelRow& row = s.row;
  const int F = row.frac;
  const std::optional<XTerm> ct = c_term(row, c);
  const std::string title = "c enters late, round-down alignment";
  if (P.empty && !ct) return s.note(title, "  no product and c = 0: d = +0", 0), zero_bits(row.out, false);
  if (!ct && !row.zero_c_is_term) return round_stage(s, P.S, P.E - F, row.round);
  if (P.empty) {
    s.note(title, "  no product: d = c rounded", ct->sig);
    return round_stage(s, ct->neg ? -int64_t(ct->sig) : int64_t(ct->sig), ct->e - ct->frac, row.round);
  }
  const int e_c = ct ? ct->e : row.zero_c_exp;
  int64_t s_c = ct ? static_cast<int64_t>(ct->sig) << (F - ct->frac) : 0;
  if (ct && ct->neg) s_c = -s_c;
  std::string cut;
  if (row.cutoff >= 0 && P.E - e_c > row.cutoff) {
    s_c = 0;
    cut = "; c is more than " + std::to_string(row.cutoff) + " binades below: dropped";
  }
  s.note(title, "  c = " + (ct ? term_text(*ct) : "0 at 2^" + std::to_string(e_c)) + ", E_p = " + std::to_string(P.E) + cut,
         static_cast<uint64_t>(s_c));
  if (P.E < e_c) return c_dominates(s, P, s_c, e_c, row.late_exact_zero_c && !ct, terms);
  const int64_t sc = shift_rd(s_c, P.E - e_c);
  const int64_t S = P.S + sc;
  ExplainStage st{s.prefix + "products dominate (E_p >= e_c)", {}, std::to_string(S)};
  st.lines.push_back("  c rounded down to the F-bit grid of 2^E_p: " + grid(sc, F, P.E));
  st.lines.push_back("  plus the products:                     " + grid(S, F, P.E));
  s.out.push_back(st);
  return round_stage(s, S, P.E - F, row.round);
}

uint64_t exact_step(Stepper& s, const uint64_t* a, const uint64_t* b, uint64_t c) {
  const ModelRow& row = s.row;
  if (std::optional<uint64_t> sp = special_step(s, a, b, c)) return *sp;
  const std::vector<Indexed> ps = products(s, a, b);
  WideAccumulator acc;
  bool any = !ps.empty();
  for (const Indexed& p : ps) acc.add(p.t.neg, p.t.sig, p.t.e - p.t.frac);
  const Unpacked cu = decode(row.out, c);
  if (cu.cls == Class::finite && (row.out_sub || !is_subnormal(row.out, cu))) acc.add(cu.neg, cu.sig, cu.exp), any = true;
  const uint64_t exact = acc.round(Fmt::fp64, Round::rne, Overflow::ieee);
  const uint64_t d = any ? flush_out(row, acc.round(row.out, row.round, Overflow::inf, false, row.result_frac()))
                         : zero_bits(row.out, false);
  ExplainStage st{s.prefix + "exact sum of c and the products, one rounding (" + round_name(row.round) + ")", {}, ""};
  st.lines.push_back("  no alignment loss: the sum is exact (as binary64: " + code_text(Fmt::fp64, exact) + ")");
  st.lines.push_back("  rounded once: d = " + code_text(row.out, d));
  st.bits = code_hex(row.out, d);
  s.out.push_back(st);
  return d;
}

}  // namespace mmaemu::experiments::explain_detail
