// SPDX-License-Identifier: BSD-3-Clause
// mmaemu explain: terms as the reference engine reads them, and the
// alignment and rounding diagrams (the papers' figures, in text).
#include <algorithm>
#include <bit>
#include <climits>
#include <cstdio>

#include "experiments/distinguish.h"
#include "experiments/explain_kit.h"

namespace mmaemu::experiments::explain_detail {
namespace {

int bit_length(uint64_t x) { return 64 - std::countl_zero(x); }

uint64_t magnitude(int64_t S) { return S < 0 ? static_cast<uint64_t>(-S) : static_cast<uint64_t>(S); }

// Digits below the window: a run of more than 8 leading or trailing zeros is counted.
std::string dropped_text(uint64_t sig, int n) {
  const uint64_t low = n >= 64 ? sig : sig & ((uint64_t{1} << n) - 1);
  std::string s = binary(low, n);
  const std::size_t one = s.find('1');
  auto zeros = [](std::size_t z) { return std::string("[").append(std::to_string(z)).append(" zeros]"); };
  if (one == std::string::npos) return n > 8 ? zeros(s.size()) : s;
  const std::size_t last = s.find_last_of('1');
  if (s.size() - 1 - last > 8) s = s.substr(0, last + 1) + zeros(s.size() - 1 - last);
  if (one > 8) s = zeros(one) + s.substr(one);
  return s;
}

// A fixed-point row: sign, `ib` integer and F fraction digits, dropped digits.
std::string fixed_row(const std::string& label, bool neg, uint64_t kept, int ib, int F, const std::string& dropped) {
  const std::string digits = binary(kept, ib + F);
  return "  " + pad(label, 5) + (neg ? "- " : "+ ") + digits.substr(0, ib) + "." + digits.substr(ib) + "|" + dropped;
}

std::string exp_text(int e) { return "2^" + std::to_string(e); }

}  // namespace

void Stepper::note(const std::string& title, const std::string& line, uint64_t bits) {
  char b[24];
  std::snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(bits));
  out.push_back({prefix + title, {line}, b});
}

std::string pad(const std::string& s, std::size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

std::string binary(uint64_t v, int width) {
  std::string s;
  for (int i = width - 1; i >= 0; --i) s += i < 64 && ((v >> i) & 1) ? '1' : '0';
  return s;
}

std::string term_text(const XTerm& t) {
  const uint64_t ip = t.frac >= 64 ? 0 : t.sig >> t.frac;
  std::string s(t.neg ? "-" : "+");
  s += std::to_string(ip);
  if (t.frac > 0) s.append(".").append(binary(t.sig, t.frac));
  return s + " x " + exp_text(t.e);
}

std::string code_text(Fmt f, uint64_t code) { return code_hex(f, code) + " (" + code_value(f, code) + ")"; }

std::string operand_line(std::size_t i, Fmt in, uint64_t a, uint64_t b) {
  const std::string n = std::to_string(i + 1);
  return "  " + pad("a" + n + " = " + code_text(in, a), 34) + "b" + n + " = " + code_text(in, b);
}

std::string fixed_text(int64_t S, int F) {
  const uint64_t m = magnitude(S);
  const int ib = std::max(1, bit_length(m) - F);
  const std::string d = binary(m, ib + F);
  return std::string(S < 0 ? "-" : "+") + d.substr(0, ib) + "." + d.substr(ib);
}

const char* product_form_name(ProductForm p) {
  switch (p) {
    case ProductForm::denormalised: return "denormalised: m_a*m_b in [1,4) at e_a+e_b";
    case ProductForm::normalised: return "normalised to [1,2)";
    case ProductForm::fp32_rne: return "exact here; the tree rounds each to fp32, RNE";
  }
  return "";
}

int row_frac(const Stepper& s) { return s.row.frac; }

bool is_subnormal(Fmt f, const Unpacked& u) { return u.cls == Class::finite && u.sig < (1ull << info(f).man_bits); }

XTerm product_term(const ModelRow& row, Fmt in, const Unpacked& u, const Unpacked& v) {
  const int man = info(in).man_bits;
  XTerm p{u.neg != v.neg, u.exp + v.exp + 2 * man, u.sig * v.sig, 2 * man, ""};
  if (row.product == ProductForm::normalised && p.sig >> (p.frac + 1)) ++p.frac, ++p.e;
  return p;
}

std::optional<XTerm> c_term(const ModelRow& row, uint64_t c) {
  const bool widen = row.out == Fmt::fp16 && row.sub_c == SubnormalC::lead;
  const Fmt f = widen ? Fmt::fp32 : row.out;
  const Unpacked u = decode(f, widen ? to_fp32_bits(row.out, c) : c);
  if (u.cls != Class::finite) return std::nullopt;
  const int man = info(f).man_bits;
  return XTerm{u.neg, u.exp + man, u.sig, man, "c"};
}

uint64_t flush_out(const ModelRow& row, uint64_t bits) {
  const Unpacked u = decode(row.out, bits);
  if (row.out_sub || !is_subnormal(row.out, u)) return bits;
  return zero_bits(row.out, row.flush_sign == FlushSign::keep && u.neg);
}

int64_t shift_rd(int64_t x, int d) {
  if (d <= 0) return x;
  if (d >= 63) return x < 0 ? -1 : 0;
  return x >> d;
}

Aligned align_stage(Stepper& s, const std::string& what, const std::vector<XTerm>& ts, std::optional<int> extra_e) {
  Aligned p;
  if (ts.empty() && !extra_e) return p;
  const int F = s.row.frac;
  p.empty = false;
  p.E = extra_e ? *extra_e : INT_MIN;
  for (const XTerm& t : ts) p.E = std::max(p.E, t.e);
  const bool floored = s.row.floor > p.E;
  p.E = std::max(p.E, s.row.floor);
  std::vector<uint64_t> kept;
  std::vector<std::string> dropped;
  for (const XTerm& t : ts) {
    const int sh = F - t.frac - (p.E - t.e);
    kept.push_back(sh >= 0 ? t.sig << sh : -sh >= 64 ? 0 : t.sig >> -sh);
    dropped.push_back(sh >= 0 ? "" : dropped_text(t.sig, -sh));
    p.S += t.neg ? -static_cast<int64_t>(kept.back()) : static_cast<int64_t>(kept.back());
  }
  int ib = std::max(2, bit_length(magnitude(p.S)) - F);
  for (uint64_t v : kept) ib = std::max(ib, bit_length(v) - F);
  ExplainStage st{s.prefix + "alignment of the " + what + " (F = " + std::to_string(F) + ")", {}, ""};
  st.lines.push_back("  E = " + std::to_string(p.E) + (floored ? " (the alignment floor)" : extra_e ? " (c = 0 counts at this exponent)" : " (largest exponent)") +
                     "; window 2^" + std::to_string(p.E + ib - 1) + " .. " + exp_text(p.E - F) +
                     "; after |: truncated");
  for (std::size_t i = 0; i < ts.size(); ++i) {
    st.lines.push_back(fixed_row(ts[i].label, ts[i].neg, kept[i], ib, F, dropped[i]));
    st.bits.append(ts[i].neg ? "-" : "+").append(binary(kept[i], ib + F)).append(";");
  }
  st.lines.push_back("  " + std::string(ib + F + 10, '-'));
  st.lines.push_back(fixed_row("sum", p.S < 0, magnitude(p.S), ib, F, ""));
  st.bits.append("S").append(std::to_string(p.S));
  if (p.S != 0) {
    const int lead = p.E - F + bit_length(magnitude(p.S)) - 1;
    st.lines.push_back(lead > p.E ? "  carry: the sum's leading one is at " + exp_text(lead) + ", " + std::to_string(lead - p.E) + " above 2^E"
                       : lead < p.E ? "  cancellation: the sum's leading one is at " + exp_text(lead) + ", " + std::to_string(p.E - lead) + " below 2^E"
                                    : "  no carry: the sum's leading one is at 2^E");
  }
  s.out.push_back(st);
  return p;
}

uint64_t round_stage(Stepper& s, int64_t S, int lsb, Round r) {
  const ModelRow& row = s.row;
  const std::string title = s.prefix + "normalisation and rounding (" + round_name(r) + ")";
  if (S == 0) {
    s.note(title, "  the sum is exactly zero: d = +0", zero_bits(row.out, false));
    return zero_bits(row.out, false);
  }
  const uint64_t mag = magnitude(S);
  const int n = bit_length(mag), lead = lsb + n - 1, p = row.result_frac();
  const int keep = std::min(p, p - (info(row.out).emin() - lead));  // fewer bits for a subnormal result
  const std::string digits = binary(mag, n) + std::string(std::max(0, keep + 1 - n), '0');
  const int k1 = std::max(keep, 0) + 1;
  ExplainStage st{title, {}, ""};
  st.lines.push_back("  |sum| = " + digits.substr(0, 1) + "." + digits.substr(1, k1 - 1) + "|" + digits.substr(k1) +
                     " x " + exp_text(lead) + "   keeps " + std::to_string(keep) + " fraction bits" +
                     (keep < p ? " (subnormal result)" : ""));
  const uint64_t rounded = round_pack(row.out, S < 0, mag, lsb, false, r, Overflow::inf, p);
  const uint64_t d = flush_out(row, rounded);
  st.lines.push_back("  " + std::string(round_name(r)) + " of the bits after |: d = " + code_text(row.out, rounded) +
                     (d != rounded ? "; subnormal result flushed: " + code_text(row.out, d) : ""));
  st.bits = code_hex(row.out, d);
  s.out.push_back(st);
  return d;
}

}  // namespace mmaemu::experiments::explain_detail
