// SPDX-License-Identifier: BSD-3-Clause
// Model lookup by name and custom models:
//   custom:base=B200,round=rne             every row of B200, RNE results
//   custom:in=fp16,out=fp32,block=8,frac=24,floor=-132,round=rz
//                                          one row, every other field default
// Keys are the fields of ModelRow (model.h); `mmaemu models --keys` lists them.
#include <cctype>
#include <charconv>
#include <stdexcept>
#include <string>

#include "models/errors.h"
#include "models/model.h"

namespace mmaemu {
namespace {

std::string lower(std::string_view s) {
  std::string out;
  for (char ch : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

[[noreturn]] void bad(std::string_view key, std::string_view value, std::string_view valid) {
  throw std::invalid_argument("custom model: invalid value '" + std::string(value) + "' for '" +
                              std::string(key) + "' (valid: " + std::string(valid) + ")");
}

int to_int(std::string_view key, std::string_view v) {
  int x = 0;
  const char* b = v.data();
  if (!v.empty() && v[0] == '+') ++b;
  auto [p, ec] = std::from_chars(b, v.data() + v.size(), x);
  if (ec != std::errc() || p != v.data() + v.size()) bad(key, v, "an integer");
  return x;
}

uint32_t to_hex(std::string_view key, std::string_view v) {
  std::string_view d = v;
  if (d.size() > 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) d.remove_prefix(2);
  uint32_t x = 0;
  auto [p, ec] = std::from_chars(d.data(), d.data() + d.size(), x, 16);
  if (ec != std::errc() || p != d.data() + d.size()) bad(key, v, "a hexadecimal bit pattern");
  return x;
}

bool to_bool(std::string_view key, std::string_view v) {
  if (v == "1" || v == "true" || v == "on" || v == "yes") return true;
  if (v == "0" || v == "false" || v == "off" || v == "no") return false;
  bad(key, v, "0, 1");
}

template <typename E, std::size_t N>
E to_enum(std::string_view key, std::string_view v, const std::pair<const char*, E> (&table)[N]) {
  std::string valid;
  for (const auto& [name, e] : table) {
    if (v == name) return e;
    valid += valid.empty() ? "" : ", ";
    valid += name;
  }
  bad(key, v, valid);
}

constexpr std::pair<const char*, Round> kRounds[] = {
    {"rne", Round::rne}, {"rz", Round::rz}, {"rd", Round::rd}, {"ru", Round::ru}, {"rna", Round::rna}};
constexpr std::pair<const char*, ProductForm> kProducts[] = {
    {"denormalised", ProductForm::denormalised},
    {"normalised", ProductForm::normalised},
    {"fp32", ProductForm::fp32_rne}};
constexpr std::pair<const char*, Accumulation> kAccums[] = {{"aligned", Accumulation::aligned},
                                                            {"exact", Accumulation::exact},
                                                            {"pairwise", Accumulation::pairwise},
                                                            {"fma", Accumulation::fma_chain}};
constexpr std::pair<const char*, CEntry> kCEntries[] = {{"early", CEntry::early},
                                                        {"late_rd", CEntry::late_rd},
                                                        {"late_rne", CEntry::late_rne},
                                                        {"last", CEntry::last}};
constexpr std::pair<const char*, Grouping> kGroupings[] = {
    {"contiguous", Grouping::contiguous},
    {"odd_even", Grouping::odd_even},
    {"pair_interleave", Grouping::pair_interleave}};
constexpr std::pair<const char*, LateRd> kLateRds[] = {{"two_stage", LateRd::two_stage},
                                                       {"single_stage", LateRd::single_stage}};
constexpr std::pair<const char*, FlushSign> kFlushSigns[] = {{"positive", FlushSign::positive},
                                                             {"keep", FlushSign::keep}};

Fmt to_fmt(std::string_view key, std::string_view v) {
  if (auto f = parse_fmt(v)) return *f;
  bad(key, v, "fp64, fp32, tf32, bf16, fp16, e4m3, e5m2, e4m3fnuz, e5m2fnuz");
}

void set_field(ModelRow& r, std::string_view key, std::string_view v) {
  if (key == "round") r.final_round = to_enum(key, v, kRounds);
  else if (key == "late_round") r.late_round = to_enum(key, v, kRounds);
  else if (key == "block") r.block = to_int(key, v);
  else if (key == "frac") r.frac_bits = to_int(key, v);
  else if (key == "out_frac") r.out_frac_bits = to_int(key, v);
  else if (key == "product") r.product = to_enum(key, v, kProducts);
  else if (key == "accum") r.accum = to_enum(key, v, kAccums);
  else if (key == "c") r.c_entry = to_enum(key, v, kCEntries);
  else if (key == "grouping") r.grouping = to_enum(key, v, kGroupings);
  else if (key == "late_rd") r.late_rd = to_enum(key, v, kLateRds);
  else if (key == "late_exact_zero_c") r.late_exact_zero_c = to_bool(key, v);
  else if (key == "cutoff") r.late_c_cutoff = v == "none" ? -1 : to_int(key, v);
  else if (key == "pair_group") r.pair_group = to_int(key, v);
  else if (key == "floor") r.align_floor = v == "none" ? kNoFloor : to_int(key, v);
  else if (key == "zero_c") {
    r.zero_c_is_term = v != "ignore";
    if (r.zero_c_is_term) r.zero_c_exp = to_int(key, v);
  } else if (key == "in_sub") r.in_subnormals = to_bool(key, v);
  else if (key == "out_sub") r.out_subnormals = to_bool(key, v);
  else if (key == "flush_sign") r.flush_sign = to_enum(key, v, kFlushSigns);
  else if (key == "prd_ovf") r.product_overflow = to_bool(key, v);
  else if (key == "nan32") r.nan32 = to_hex(key, v);
  else if (key == "nan16") r.nan16 = static_cast<uint16_t>(to_hex(key, v));
  else if (key == "as_fp16") r.inputs_as_fp16 = to_bool(key, v);
  else if (key == "in") r.in = to_fmt(key, v);
  else if (key == "out") r.out = to_fmt(key, v);
  else if (key == "m") r.m = to_int(key, v);
  else if (key == "n") r.n = to_int(key, v);
  else if (key == "k") r.k = to_int(key, v);
  else
    throw std::invalid_argument(
        "custom model: unknown key '" + std::string(key) +
        "' (valid: base, in, out, m, n, k, block, frac, out_frac, round, late_round, product, "
        "accum, c, grouping, late_rd, late_exact_zero_c, cutoff, pair_group, floor, zero_c, in_sub, out_sub, "
        "flush_sign, prd_ovf, nan32, nan16, as_fp16)");
}

// Calls f(key, value) for every "key=value" of a comma-separated list.
template <typename F>
void for_each_pair(std::string_view list, F&& f) {
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    if (item.empty()) continue;
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      throw std::invalid_argument("custom model: expected key=value, got '" + std::string(item) +
                                  "'");
    f(lower(item.substr(0, eq)), lower(item.substr(eq + 1)));
  }
}

void check_row(const ModelRow& r) {
  auto fail = [](const std::string& what) {
    throw std::invalid_argument("custom model: " + what);
  };
  if (r.block < 1 || r.block > 64) fail("block must be in 1..64");
  if (r.frac_bits < 1 || r.frac_bits > 40) fail("frac must be in 1..40");
  if (r.out_frac_bits > info(r.out).man_bits) fail("out_frac exceeds the output format");
  if (r.pair_group != 2 && r.pair_group != 4) fail("pair_group must be 2 or 4");
  if (r.k < 1 || r.m < 1 || r.n < 1) fail("m, n, k must be positive");
  if (r.out != Fmt::fp32 && r.out != Fmt::fp16 && r.accum != Accumulation::fma_chain)
    fail("out must be fp32 or fp16");
  if (r.grouping == Grouping::pair_interleave && r.k != 2 * r.block)
    fail("pair_interleave needs k = 2*block");
  if (r.grouping == Grouping::odd_even && r.c_entry != CEntry::late_rd)
    fail("odd_even grouping needs c=late_rd");
  if (r.c_entry == CEntry::late_rd && r.frac_bits < 23)
    fail("c=late_rd needs frac >= 23");
}

}  // namespace

void apply_overrides(ModelRow& row, std::string_view overrides) {
  for_each_pair(overrides, [&](const std::string& k, const std::string& v) { set_field(row, k, v); });
  check_row(row);
}

namespace {

// MODEL@INSTR: only the rows of one instruction (Model::find_instr), each
// the GEMM row of its formats ("B200@mma.sync": the interleaved HMMA fp8 path).
Model one_instruction(const Model& model, const std::string& instr) {
  Model sel;
  sel.name = model.name + "@" + instr;
  sel.gpu = model.gpu;
  std::string instrs;
  for (const ModelRow& r : model.rows) {
    if (instrs.find(r.instr) == std::string::npos) instrs += (instrs.empty() ? "" : ", ") + std::string(r.instr);
    if (instr.empty() || model.find_instr(instr, r.in, r.out) != &r) continue;
    ModelRow copy = r;
    copy.gemm_default = true;
    sel.rows.push_back(copy);
  }
  if (sel.rows.empty())
    throw std::invalid_argument(model.name + " has no instruction '" + instr + "' (its instructions: " + instrs +
                                ")");
  return sel;
}

}  // namespace

Model lookup_model(const std::string& spec) {
  if (const std::size_t at = spec.rfind('@'); at != std::string::npos)
    return one_instruction(lookup_model(spec.substr(0, at)), spec.substr(at + 1));
  const std::string low = lower(spec);
  if (low.rfind("custom:", 0) != 0) {
    if (auto m = gpu_model(spec)) return *m;
    throw UnknownModelError("unknown model '" + spec + "'; valid models: " +
                                valid_model_names());
  }
  // Split off base=... first; every other pair applies to each row.
  std::string_view rest = std::string_view(spec).substr(7);
  std::string base, fields;
  for_each_pair(rest, [&](const std::string& k, const std::string& v) {
    if (k == "base") base = v;
    else fields += (fields.empty() ? "" : ",") + k + "=" + v;
  });
  Model m;
  m.name = "custom:" + std::string(rest);
  if (!base.empty()) {
    auto b = gpu_model(base);
    if (!b) throw UnknownModelError("custom model: unknown base '" + base + "'; valid models: " + valid_model_names());
    m.gpu = b->gpu;
    for (ModelRow r : b->rows) {
      apply_overrides(r, fields);
      m.rows.push_back(r);
    }
  } else {
    ModelRow r;
    r.family = "custom";
    r.instr = "custom";
    apply_overrides(r, fields);
    m.rows.push_back(r);
  }
  return m;
}

}  // namespace mmaemu
