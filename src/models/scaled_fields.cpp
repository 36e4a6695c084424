// SPDX-License-Identifier: BSD-3-Clause
// The field table of the block-scaled units (scaled_fields.h). Each entry's
// three Use values say whether T-FDPA, ST-FDPA and GST-FDPA, in that order,
// read the field (the reference engine, src/ref/block_scaled.cpp, is what
// "reads" means).
//
// Ranges keep the reference's integer sum in int64 (docs/block-scaled.md
// §3.5): a T/ST term is below 2^(F+2) and a GST group term below
// group * 2^(F+13) after alignment, so k <= 256 and F <= 40 bound |S| by 2^61.
// Exponents stay within +-300 binades, beyond every term's (|e| < 300).
#include "models/scaled_fields.h"

#include <charconv>
#include <cstdio>
#include <map>
#include <stdexcept>

namespace mmaemu::scaled_fields {
namespace {

[[noreturn]] void bad(std::string_view key, std::string_view value, std::string_view valid) {
  throw std::invalid_argument("custom model: invalid value '" + std::string(value) + "' for '" +
                              std::string(key) + "' (valid: " + std::string(valid) + ")");
}

int to_int(std::string_view key, std::string_view v, int lo, int hi) {
  long long x = 0;
  const char* b = v.data() + (!v.empty() && v[0] == '+' ? 1 : 0);
  auto [p, ec] = std::from_chars(b, v.data() + v.size(), x);
  if (ec != std::errc() || p != v.data() + v.size() || x < lo || x > hi)
    bad(key, v, "an integer in " + std::to_string(lo) + ".." + std::to_string(hi));
  return static_cast<int>(x);
}

template <typename E>
struct Name {
  const char* name;
  E value;
};
constexpr Name<Round> kRounds[] = {
    {"rne", Round::rne}, {"rz", Round::rz}, {"rd", Round::rd}, {"ru", Round::ru}, {"rna", Round::rna}};
constexpr Name<NarrowSubnormals> kSubnormals[] = {{"clamp", NarrowSubnormals::clamp},
                                                   {"normalize", NarrowSubnormals::normalize}};

template <typename E, std::size_t N>
E to_enum(std::string_view key, std::string_view v, const Name<E> (&names)[N]) {
  std::string valid;
  for (const auto& [name, e] : names) {
    if (v == name) return e;
    valid += (valid.empty() ? "" : ", ") + std::string(name);
  }
  bad(key, v, valid);
}
template <typename E, std::size_t N>
std::string name_of(E e, const Name<E> (&names)[N]) {
  for (const auto& [name, value] : names)
    if (value == e) return name;
  return "?";
}

template <auto M, int lo, int hi>
void parse_int(ScaledUnit& u, std::string_view k, std::string_view v) { u.*M = to_int(k, v, lo, hi); }
template <auto M>
std::string print_int(const ScaledUnit& u) { return std::to_string(u.*M); }
template <auto M, const auto& names>
void parse_enum(ScaledUnit& u, std::string_view k, std::string_view v) { u.*M = to_enum(k, v, names); }
template <auto M, const auto& names>
std::string print_enum(const ScaledUnit& u) { return name_of(u.*M, names); }

std::string print_gpu(const ScaledUnit& u) { return u.gpu; }
std::string print_instruction(const ScaledUnit& u) { return u.instruction; }
std::string print_algo(const ScaledUnit& u) { return algo_name(u.algo); }
std::string print_elements(const ScaledUnit& u) { return format_list(u.elements); }
std::string print_scale(const ScaledUnit& u) { return u.block ? info(u.scale).name : "none"; }
std::string print_outputs(const ScaledUnit& u) { return format_list(u.outputs); }
std::string print_shape(const ScaledUnit& u) {
  const std::string n = u.n_min == u.n_max ? std::to_string(u.n_min)
                                           : std::to_string(u.n_min) + ".." + std::to_string(u.n_max) + "/" +
                                                 std::to_string(u.n_step);
  return std::to_string(u.m) + "x" + n + "x" + std::to_string(u.k);
}
std::string print_hw(const ScaledUnit& u) { return u.hw_checked ? "1" : "0"; }

constexpr Use R{When::always, nullptr};
constexpr Use L{When::lookup, nullptr};
constexpr Use F16{When::out_fp16, nullptr};
constexpr Use N(const char* instead) { return {When::never, instead}; }
constexpr const char* kNoScales = "takes no scales";
constexpr const char* kOneTerm = "aligns every product as its own term (no exact groups)";
constexpr const char* kNoElementAlign =
    "sums the e2m1 products of a group exactly as integers: no element is aligned on its own";
constexpr const char* kFp32Only = "has only an fp32 output";

using U = ScaledUnit;
constexpr Field kFields[] = {
    {"gpu", "", "registry model of the unit", {L, L, L}, nullptr, print_gpu},
    {"instruction", "", "instruction (validation-set name, docs/block-scaled.md §2)", {L, L, L}, nullptr,
     print_instruction},
    {"algo", "", "fused dot-product algorithm (docs/block-scaled.md §3)", {L, L, L}, nullptr, print_algo},
    {"elements", "", "element formats A and B take (each independently)", {L, L, L}, nullptr, print_elements},
    {"scale", "", "scale format", {N(kNoScales), L, L}, nullptr, print_scale},
    {"block", "", "elements per scale", {N(kNoScales), L, L}, nullptr, print_int<&U::block>},
    {"bs_k", "1..256 (a multiple of the block and the group)",
     "elements per instruction; a GEMM chains instructions along K and pads the last one (§4.2, §4.3)",
     {R, R, R}, parse_int<&U::k, 1, 256>, print_int<&U::k>},
    {"bs_group", "1..64 (dividing the block)", "GST: products summed exactly per group before alignment",
     {N(kOneTerm), N(kOneTerm), R}, parse_int<&U::group, 1, 64>, print_int<&U::group>},
    {"bs_frac", "1..40", "F: fraction bits of the alignment window (§3.1)", {R, R, R},
     parse_int<&U::F, 1, 40>, print_int<&U::F>},
    {"bs_e_zero", "-300..300", "alignment exponent of a zero term, fp32 output (§3.1)", {R, R, R},
     parse_int<&U::e_zero, -300, 300>, print_int<&U::e_zero>},
    {"bs_e_zero_f16", "-300..300", "alignment exponent of a zero term, fp16 output",
     {F16, N(kFp32Only), N(kFp32Only)}, parse_int<&U::e_zero_f16, -300, 300>,
     print_int<&U::e_zero_f16>},
    {"outputs", "", "output formats", {L, L, L}, nullptr, print_outputs},
    {"bs_round", "rne, rz, rd, ru, rna", "rounding of the fused sum to fp32", {R, R, R},
     parse_enum<&U::round32, kRounds>, print_enum<&U::round32, kRounds>},
    {"bs_round16", "rne, rz, rd, ru, rna", "rounding of the fused sum to fp16",
     {F16, N(kFp32Only), N(kFp32Only)}, parse_enum<&U::round16, kRounds>,
     print_enum<&U::round16, kRounds>},
    {"shape", "", "tile shape m x n x k (n: min..max/step)", {L, L, L}, nullptr, print_shape},
    {"hw_checked", "", "1: MMA-Sim compared the instruction with hardware", {L, L, L}, nullptr, print_hw},
    {"bs_subnormals", "clamp, normalize", "fp6/fp4 subnormal elements: alignment exponent clamped at emin or "
     "renormalised (§1.3)", {R, R, N(kNoElementAlign)}, parse_enum<&U::narrow_subnormals, kSubnormals>,
     print_enum<&U::narrow_subnormals, kSubnormals>},
};

bool holds(When w, const ScaledUnit& u) {
  switch (w) {
    case When::always: return true;
    case When::never: return false;
    case When::out_fp16: return (u.outputs & fmt_bit(Fmt::fp16)) != 0;
    case When::lookup: return true;
  }
  return false;
}

const char* kAlgoIndexNames[] = {"T-FDPA", "ST-FDPA", "GST-FDPA"};

}  // namespace

std::span<const Field> table() { return kFields; }

const Field* find(std::string_view key) {
  for (const Field& f : kFields)
    if (f.parse && key == f.key) return &f;
  return nullptr;
}

bool reads(const Field& f, const ScaledUnit& u) { return holds(f.use[static_cast<int>(u.algo)].when, u); }

std::string why_unread(const Field& f, const ScaledUnit& u) {
  const Use& use = f.use[static_cast<int>(u.algo)];
  const std::string unit = std::string("the ") + algo_name(u.algo) + " unit";
  if (use.when == When::never) return unit + " " + use.instead;
  return unit + " " + kFp32Only;  // out_fp16, the only condition
}

void check_unit(const ScaledUnit& u) {
  const std::string row = " (" + std::string(u.gpu) + " " + u.instruction + ")";
  if (u.block && u.k % u.block)
    throw std::invalid_argument("custom model: bs_k=" + std::to_string(u.k) + " is not a multiple of the block " +
                                std::to_string(u.block) + row);
  if (u.algo == ScaledAlgo::gst_fdpa && u.block % u.group)
    throw std::invalid_argument("custom model: bs_group=" + std::to_string(u.group) +
                                " does not divide the block " + std::to_string(u.block) +
                                ": a group lies under one scale" + row);
}

std::vector<ScaledUnit> apply(std::span<const ScaledUnit> units, const std::vector<Override>& ovs,
                              const std::string& model) {
  std::vector<ScaledUnit> out(units.begin(), units.end());
  if (!ovs.empty() && units.empty())
    throw std::invalid_argument("custom model: " + std::string(ovs[0].field->key) + "=" + ovs[0].value +
                                " is refused: " + model + " has no block-scaled or fp4/fp6 unit");
  for (const Override& o : ovs) {
    bool read = false;
    for (ScaledUnit& u : out)
      if (reads(*o.field, u)) o.field->parse(u, o.field->key, o.value), read = true;
    if (read) continue;
    std::map<std::string, std::string> why;  // reason -> algorithms
    for (const ScaledUnit& u : out) why[why_unread(*o.field, u)];
    std::string msg = "custom model: " + std::string(o.field->key) + "=" + o.value +
                      " is refused: no block-scaled unit of " + model + " reads it: ";
    bool first = true;
    for (const auto& entry : why) msg += (first ? "" : "; ") + entry.first, first = false;
    throw std::invalid_argument(msg);
  }
  for (const ScaledUnit& u : out) check_unit(u);
  return out;
}

std::string key_list() {
  std::string s;
  for (const Field& f : kFields)
    if (f.parse) s += (s.empty() ? "" : ", ") + std::string(f.key);
  return s;
}

namespace {
std::string readers(const Field& f) {
  std::string s;
  int always = 0;
  for (int a = 0; a < 3; ++a) {
    const Use& u = f.use[a];
    if (u.when == When::never) continue;
    always += u.when == When::always;
    s += (s.empty() ? "" : ", ") + std::string(kAlgoIndexNames[a]);
    if (u.when == When::out_fp16) s += " (fp16 output)";
  }
  return always == 3 ? "all" : s;
}
}  // namespace

std::string describe_keys(bool markdown) {
  std::string s = markdown ? "| key | values | read by | meaning |\n|---|---|---|---|\n" : "";
  char line[512];
  for (const Field& f : kFields) {
    if (!f.parse) continue;
    if (markdown) {
      s += "| `" + std::string(f.key) + "` | " + f.values + " | " + readers(f) + " | " + f.doc + " |\n";
    } else {
      std::snprintf(line, sizeof line, "%-18s %-44s %s\n%18s read by: %s\n", f.key, f.values, f.doc, "",
                    readers(f).c_str());
      s += line;
    }
  }
  return s;
}

std::string dump_units() {
  std::string s = "# Every block-scaled unit, every field: mmaemu models --dump (tests/api/scaled_custom_test checks it).\n";
  for (std::size_t i = 0; i < scaled_units().size(); ++i) {
    s += "unit " + std::to_string(i) + "\n";
    for (const Field& f : kFields) s += std::string("  ") + f.key + " " + f.print(scaled_units()[i]) + "\n";
  }
  return s;
}

std::string read_params(const ScaledUnit& u) {
  std::string s;
  for (const Field& f : kFields) {
    const std::string_view key = f.key;
    if (!reads(f, u) || key == "gpu" || key == "instruction" || key == "algo") continue;
    if (!s.empty()) s += ' ';
    s.append(key).append("=").append(f.print(u));
  }
  return s;
}

std::string format_list(FmtMask mask) {
  std::string s;
  for (int i = 0; i < kFmtCount; ++i)
    if (mask & (FmtMask{1} << i)) {
      if (!s.empty()) s += ',';
      s += info(static_cast<Fmt>(i)).name;
    }
  return s;
}

}  // namespace mmaemu::scaled_fields
