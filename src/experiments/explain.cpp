// SPDX-License-Identifier: BSD-3-Clause
// mmaemu explain: the aligned block FMA (NVIDIA, CDNA3) recomputed stage by
// stage from the row's parameters (docs/models.md §2.3-2.7, §2.12), the other
// accumulation kinds in explain_paths.cpp. Every stage records its diagram.
#include "experiments/explain.h"

#include <algorithm>
#include <bit>
#include <climits>
#include <optional>

#include "experiments/distinguish.h"
#include "experiments/explain_kit.h"
#include "formats/wide_accumulator.h"
#include "models/row_facts.h"
#include "ref/reference.h"

namespace mmaemu::experiments::explain_detail {

// The products of one step (docs/models.md §2.3): finite nonzero ones only.
std::vector<Indexed> products(Stepper& s, const uint64_t* a, const uint64_t* b) {
  const ModelRow& row = s.row;
  const Fmt in = row.as_fp16 ? Fmt::fp16 : row.in;
  ExplainStage st{s.prefix + "decoded operands" + (row.as_fp16 ? " (read as fp16, exactly)" : ""), {}, ""};
  ExplainStage pr{s.prefix + "exact products (" + product_form_name(row.product) + ")", {}, ""};
  std::vector<Indexed> ps;
  for (std::size_t i = 0; i < s.k; ++i) {
    const uint64_t x = row.as_fp16 ? convert(row.in, Fmt::fp16, a[i], Round::rne) : a[i];
    const uint64_t y = row.as_fp16 ? convert(row.in, Fmt::fp16, b[i], Round::rne) : b[i];
    const Unpacked u = decode(in, x), v = decode(in, y);
    if (u.cls == Class::zero || v.cls == Class::zero) continue;
    st.lines.push_back(operand_line(s.base + i, in, x, y));
    if (u.cls != Class::finite || v.cls != Class::finite) continue;
    if (!row.in_sub && (is_subnormal(in, u) || is_subnormal(in, v))) {
      pr.lines.push_back("  p" + std::to_string(s.base + i + 1) + "  0 (a subnormal factor is read as zero)");
      continue;
    }
    XTerm p = product_term(row, in, u, v);
    p.label = std::string("p").append(std::to_string(s.base + i + 1));
    pr.lines.push_back("  " + pad(p.label, 4) + term_text(p));
    pr.bits += term_text(p) + ";";
    ps.push_back({p, i});
  }
  if (st.lines.empty()) st.lines.push_back("  every product is zero");
  for (const std::string& l : st.lines) st.bits += l;
  s.out.push_back(st);
  s.out.push_back(pr);
  return ps;
}

namespace {

std::vector<XTerm> where(const std::vector<Indexed>& ps, int which) {
  std::vector<XTerm> ts;
  for (const Indexed& p : ps) {
    const bool keep = which < 0 ? true : which < 2 ? p.index % 2 == static_cast<std::size_t>(which)
                                      : (p.index % 4 < 2) == (which == 2);
    if (keep) ts.push_back(p.t);
  }
  return ts;
}

// One fused block with c early (docs/models.md §2.4): c a term unless zero.
uint64_t fused_early(Stepper& s, std::vector<XTerm> ts, uint64_t c, std::string what) {
  const ModelRow& row = s.row;
  const Unpacked cu = decode(row.out, c);
  if (cu.cls == Class::nan || cu.cls == Class::inf) {
    const uint64_t d = cu.cls == Class::nan ? nan_result(row) : c;
    s.note("special values", "  the running sum " + code_hex(row.out, c) + " is not finite: d = " + code_hex(row.out, d), d);
    return d;
  }
  std::optional<int> zero_c;
  if (auto t = c_term(row, c)) {
    ts.push_back(*t);
    what += " and c";
    s.note("c enters early", "  c = " + code_text(row.out, c) + " is a term of the block's sum: " + term_text(*t), c);
  } else if (row.zero_c_is_term && !ts.empty()) {
    zero_c = row.zero_c_exp;
  }
  if (ts.empty()) {
    s.note("result", "  no nonzero term: d = +0", zero_bits(row.out, false));
    return zero_bits(row.out, false);
  }
  const Aligned p = align_stage(s, what, ts, zero_c);
  return round_stage(s, p.S, p.E - row.frac, row.round);
}

// Exact IEEE addition in the output format (the late c of §2.12).
uint64_t add_round(Stepper& s, uint64_t x, uint64_t y) {
  const ModelRow& row = s.row;
  const Unpacked u = decode(row.out, x), v = decode(row.out, y);
  uint64_t d;
  if (u.cls == Class::nan || v.cls == Class::nan || (u.cls == Class::inf && v.cls == Class::inf && u.neg != v.neg))
    d = nan_result(row);
  else if (u.cls == Class::inf || v.cls == Class::inf)
    d = u.cls == Class::inf ? x : y;
  else {
    WideAccumulator acc;
    if (u.cls == Class::finite) acc.add(u.neg, u.sig, u.exp);
    if (v.cls == Class::finite) acc.add(v.neg, v.sig, v.exp);
    const Round r = row.late_round;
    const bool zero_neg = (u.cls == Class::zero && v.cls == Class::zero) ? (u.neg && v.neg) : r == Round::rd;
    d = flush_out(row, acc.round(row.out, r, Overflow::inf, zero_neg, row.result_frac()));
  }
  s.note("c enters late (" + std::string(round_name(row.late_round)) + " addition in " + info(row.out).name + ")",
         "  " + code_text(row.out, x) + " + c " + code_text(row.out, y) + " = " + code_text(row.out, d), d);
  return d;
}

// CDNA3 odd/even groups combined with round-down (docs/models.md §2.7).
Aligned odd_even(Stepper& s, const std::vector<Indexed>& ps) {
  const Aligned groups[2] = {align_stage(s, "even positions", where(ps, 0), {}),
                             align_stage(s, "odd positions", where(ps, 1), {})};
  Aligned p;
  for (const Aligned& g : groups)
    if (!g.empty) p.E = p.empty ? g.E : std::max(p.E, g.E), p.empty = false;
  int present = 0;
  for (const Aligned& g : groups)
    if (!g.empty) p.S += shift_rd(g.S, p.E - g.E), ++present;  // a group alone is not shifted
  if (present == 2)
    s.note("groups combined", "  the group with the smaller exponent is shifted to 2^" + std::to_string(p.E) +
                                  " and rounded down: S = " + fixed_text(p.S, row_frac(s)),
           static_cast<uint64_t>(p.S));
  return p;
}

uint64_t aligned_step(Stepper& s, const uint64_t* a, const uint64_t* b, uint64_t c) {
  const ModelRow& row = s.row;
  const bool late_c = row.c == CEntry::late_rne || row.c == CEntry::last;
  if (std::optional<uint64_t> sp = special_step(s, a, b, late_c ? zero_bits(row.out, false) : c))
    return late_c ? add_round(s, *sp, c) : *sp;
  const std::vector<Indexed> ps = products(s, a, b);
  if (!row.out_sub && is_subnormal(row.out, decode(row.out, c))) {
    s.note("c flushed", "  c is subnormal and the unit has no subnormal outputs: c = +0", 0);
    c = zero_bits(row.out, false);
  }
  if (row.c == CEntry::late_rd) {
    const Aligned P = row.grouping == Grouping::odd_even ? odd_even(s, ps) : align_stage(s, "products", where(ps, -1), {});
    return late_rd_stage(s, P, c, where(ps, -1));
  }
  const bool early = row.c == CEntry::early;
  const uint64_t c0 = early ? c : zero_bits(row.out, false);
  uint64_t t;
  if (row.grouping == Grouping::pair_interleave) {
    const uint64_t t1 = fused_early(s, where(ps, 2), c0, "sub-block {0,1,4,5,..}");
    t = fused_early(s, where(ps, 3), t1, "sub-block {2,3,6,7,..}");
  } else {
    t = fused_early(s, where(ps, -1), c0, "products");
  }
  return early ? t : add_round(s, t, c);
}

}  // namespace

uint64_t explain_step(Stepper& s, const uint64_t* a, const uint64_t* b, uint64_t c) {
  switch (s.row.accum) {
    case Accumulation::aligned: return aligned_step(s, a, b, c);
    case Accumulation::exact: return exact_step(s, a, b, c);
    case Accumulation::pairwise: return pairwise_step(s, a, b, c);
    case Accumulation::fma_chain: return fma_step(s, a, b, c);
    case Accumulation::integer: break;  // not explained: Model::integer rows never reach here
  }
  return 0;
}

}  // namespace mmaemu::experiments::explain_detail

namespace mmaemu::experiments {

Explanation explain_dot(const std::string& model, const ModelRow& row, std::size_t k, std::vector<uint64_t> a,
                        std::vector<uint64_t> b, uint64_t c) {
  a.resize(k, 0), b.resize(k, 0);
  Explanation x;
  x.model = model, x.row = &row, x.k = k;
  x.ref_d = ref::dot(row, k, a.data(), b.data(), c);
  uint64_t d = c;
  if (row.ignores_c) {
    d = zero_bits(row.out, false);
    x.stages.push_back({"c not read", {"  " + std::string(row.instr) + " (scale-d = 0) does not read C: c = +0"}, "0"});
  }
  const std::size_t sk = step_k(row);
  for (std::size_t i = 0; i < k; i += sk) {
    explain_detail::Stepper s{row, std::min(sk, k - i), i, k > sk ? "step " + std::to_string(i / sk + 1) + ": " : "",
                              x.stages};
    d = explain_detail::explain_step(s, a.data() + i, b.data() + i, d);
  }
  x.d = d;
  return x;
}

int first_parting(const Explanation& x, const Explanation& y) {
  const std::size_t n = std::min(x.stages.size(), y.stages.size());
  for (std::size_t i = 0; i < n; ++i)
    if (x.stages[i].bits != y.stages[i].bits) return static_cast<int>(i);
  if (x.stages.size() != y.stages.size()) return static_cast<int>(n);
  return -1;
}

}  // namespace mmaemu::experiments
