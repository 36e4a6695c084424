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

#include <map>
#include <stdexcept>

namespace mmaemu::scaled_fields {
namespace {

using field_kit::kRounds;
using field_kit::Name;
using field_kit::parse_enum;
using field_kit::parse_int;
using field_kit::print_enum;
using field_kit::print_bool;
using field_kit::print_int;
using field_kit::print_str;

constexpr Name<NarrowSubnormals> kSubnormals[] = {{"clamp", NarrowSubnormals::clamp},
                                                   {"normalize", NarrowSubnormals::normalize}};

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

constexpr Use R{When::always, nullptr, nullptr};
constexpr Use L{When::lookup, nullptr, nullptr};
constexpr Use F16{When::out_fp16, nullptr, nullptr};
constexpr Use N(const char* instead) { return {When::never, nullptr, instead}; }
constexpr const char* kNoScales = "takes no scales";
constexpr const char* kOneTerm = "aligns every product as its own term (no exact groups)";
constexpr const char* kNoElementAlign =
    "sums the e2m1 products of a group exactly as integers: no element is aligned on its own";
constexpr const char* kFp32Only = "has only an fp32 output";

using U = ScaledUnit;
constexpr Field kFields[] = {
    {"gpu", "", "registry model of the unit", {L, L, L}, nullptr, print_str<&U::gpu>},
    {"instruction", "", "instruction (validation-set name, docs/block-scaled.md §2)", {L, L, L}, nullptr,
     print_str<&U::instruction>},
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
     parse_int<&U::frac, 1, 40>, print_int<&U::frac>},
    {"bs_e_zero", "-300..300", "alignment exponent of a zero term, fp32 output (§3.1)", {R, R, R},
     parse_int<&U::e_zero, -300, 300>, print_int<&U::e_zero>},
    {"bs_e_zero_f16", "-300..300", "alignment exponent of a zero term, fp16 output",
     {F16, N(kFp32Only), N(kFp32Only)}, parse_int<&U::e_zero_f16, -300, 300>,
     print_int<&U::e_zero_f16>},
    {"outputs", "", "output formats", {L, L, L}, nullptr, print_outputs},
    {"bs_round", "rne, rz, rd, ru, rna", "rounding of the fused sum to fp32", {R, R, R},
     parse_enum<&U::round, kRounds>, print_enum<&U::round, kRounds>},
    {"bs_round16", "rne, rz, rd, ru, rna", "rounding of the fused sum to fp16",
     {F16, N(kFp32Only), N(kFp32Only)}, parse_enum<&U::round16, kRounds>,
     print_enum<&U::round16, kRounds>},
    {"shape", "", "tile shape m x n x k (n: min..max/step)", {L, L, L}, nullptr, print_shape},
    {"hw_checked", "", "1: MMA-Sim compared the instruction with hardware", {L, L, L}, nullptr,
     print_bool<&U::hw_checked>},
    {"bs_subnormals", "clamp, normalize", "fp6/fp4 subnormal elements: alignment exponent clamped at emin or "
     "renormalised (§1.3)", {R, R, N(kNoElementAlign)}, parse_enum<&U::subnormals, kSubnormals>,
     print_enum<&U::subnormals, kSubnormals>},
};

// The block-scaled units as a kind of the field kit.
struct Units {
  using Row = ScaledUnit;
  using When = scaled_fields::When;
  using Field = scaled_fields::Field;
  static constexpr std::array<const char*, 3> kPathNames{"T-FDPA", "ST-FDPA", "GST-FDPA"};
  static std::span<const Field> table() { return kFields; }
  static int path(const Row& u) { return static_cast<int>(u.algo); }
  static bool holds(When w, const Row& u) {
    switch (w) {
      case When::always: return true;
      case When::never: return false;
      case When::out_fp16: return (u.outputs & fmt_bit(Fmt::fp16)) != 0;
      case When::lookup: return true;
    }
    return false;
  }
  static const char* when_text(When w) { return w == When::out_fp16 ? "fp16 output" : ""; }
};

}  // namespace

std::span<const Field> table() { return Units::table(); }

const Field* find(std::string_view key) { return field_kit::find<Units>(key); }

bool reads(const Field& f, const ScaledUnit& u) { return field_kit::reads<Units>(f, u); }

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
    std::map<std::string, std::string> why;  // reason -> (no rows named)
    for (const ScaledUnit& u : out) why[why_unread(*o.field, u)];
    field_kit::refuse(o.field->key, o.value, "no block-scaled unit of " + model, why);
  }
  // hw_checked: MMA-Sim compared the base's unit with hardware, so a unit
  // keeps it only while every field is still the base's (a key set to the
  // base's own value changes nothing); B200-RN's units are 0 by the same rule.
  for (std::size_t i = 0; i < out.size(); ++i) {
    check_unit(out[i]);
    if (field_kit::dump<Units>(out[i]) != field_kit::dump<Units>(units[i])) out[i].hw_checked = false;
  }
  return out;
}

std::string key_list() { return field_kit::key_list<Units>(); }

std::string describe_keys(bool markdown) { return field_kit::describe_keys<Units>(markdown); }

std::string dump_units() {
  std::string s = "# Every block-scaled unit, every field: mmaemu models --dump (tests/api/scaled_custom_test checks it).\n";
  for (std::size_t i = 0; i < scaled_units().size(); ++i)
    s += "unit " + std::to_string(i) + "\n" + field_kit::dump<Units>(scaled_units()[i]);
  return s;
}

std::string read_params(const ScaledUnit& u) {
  return field_kit::read_params<Units>(u, [](const Field& f) {  // the identity left out
    const std::string_view key = f.key;
    return key != "gpu" && key != "instruction" && key != "algo";
  });
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
