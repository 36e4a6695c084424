// SPDX-License-Identifier: BSD-3-Clause
// The field table (fields.h). Each row of kFields is one ModelRow field; its
// five Use entries say, for the aligned, exact, pairwise, fma and integer
// paths in that order, whether the path reads it (docs/models.md describes the paths;
// the reference engine, src/ref, is what "reads" means here).
// The integer path (accum=integer) reads only the shape, the formats, c and
// its two overflow keys; every other field holds its fixed value there.
//
// Value ranges keep every engine path free of overflow: exponents (floor,
// zero_c) stay within +-300 binades and c cut-offs within 600, beyond every
// product and accumulator exponent of the supported formats (|e| < 300), so
// exponent differences never leave int; frac <= 40 keeps a block's aligned
// terms (< 2^(F+3)) and their sums in int64.
#include "models/fields.h"

#include <algorithm>
#include <stdexcept>

namespace mmaemu::fields {
namespace {

using field_kit::bad;
using field_kit::kRounds;
using field_kit::Name;
using field_kit::parse_bool;
using field_kit::parse_enum;
using field_kit::parse_int;
using field_kit::print_bool;
using field_kit::print_enum;
using field_kit::print_int;
using field_kit::print_str;
using field_kit::to_int;

constexpr Name<ProductForm> kProducts[] = {{"denormalised", ProductForm::denormalised},
                                           {"normalised", ProductForm::normalised},
                                           {"fp32", ProductForm::fp32_rne}};
constexpr Name<Accumulation> kAccums[] = {{"aligned", Accumulation::aligned},
                                          {"exact", Accumulation::exact},
                                          {"pairwise", Accumulation::pairwise},
                                          {"fma", Accumulation::fma_chain},
                                          {"integer", Accumulation::integer}};
constexpr Name<CEntry> kCEntries[] = {{"early", CEntry::early},
                                      {"late_rd", CEntry::late_rd},
                                      {"late_rne", CEntry::late_rne},
                                      {"last", CEntry::last}};
constexpr Name<Grouping> kGroupings[] = {{"contiguous", Grouping::contiguous},
                                         {"odd_even", Grouping::odd_even},
                                         {"pair_interleave", Grouping::pair_interleave}};
constexpr Name<LateRd> kLateRds[] = {{"two_stage", LateRd::two_stage},
                                     {"single_stage", LateRd::single_stage}};
constexpr Name<FlushSign> kFlushSigns[] = {{"positive", FlushSign::positive},
                                           {"keep", FlushSign::keep}};
constexpr Name<OverflowInf> kOverflowInfs[] = {{"ieee", OverflowInf::ieee},
                                               {"inputs_first", OverflowInf::inputs_first}};
constexpr Name<SubnormalC> kSubnormalCs[] = {{"emin", SubnormalC::emin}, {"lead", SubnormalC::lead}};
constexpr Name<NegZero> kNegZeros[] = {{"keep", NegZero::keep}, {"positive", NegZero::positive}};
constexpr Name<IntOverflow> kIntOverflows[] = {{"wrap", IntOverflow::wrap}, {"satfinite", IntOverflow::satfinite}};
constexpr Name<SatPoint> kSatPoints[] = {{"instruction", SatPoint::instruction}, {"addition", SatPoint::addition}};

// --- parsers and printers, by kind of field --------------------------------

// An integer or a word meaning "none" (stored as `none`).
template <auto M, int lo, int hi, int none>
void parse_opt(ModelRow& r, std::string_view k, std::string_view v) {
  r.*M = v == "none" ? none : to_int(k, v, lo, hi);
}
template <auto M, int none>
std::string print_opt(const ModelRow& r) { return r.*M == none ? "none" : std::to_string(r.*M); }

template <auto M>
void parse_fmt(ModelRow& r, std::string_view k, std::string_view v) {
  // fp6, fp4 and the scale formats run only on the block-scaled units
  // (docs/block-scaled.md), never on a generic block-FMA row. Setting `in`
  // sets B's format too unless in_b already differs from it (mixed
  // signedness: in=s8,in_b=u8 in either order).
  std::optional<Fmt> f = mmaemu::parse_fmt(v);
  if (!f) f = mmaemu::parse_int_fmt(v);
  if (!f || (*f > Fmt::e5m2fnuz && !info(*f).is_integer()))
    bad(k, v, "fp64, fp32, tf32, bf16, fp16, e4m3, e5m2, e4m3fnuz, e5m2fnuz, s8, u8, s4, u4, s32");
  if (M == &ModelRow::in && r.in_b == r.in) r.in_b = *f;
  r.*M = *f;
}
template <auto M>
std::string print_fmt(const ModelRow& r) { return info(r.*M).name; }

void parse_zero_c(ModelRow& r, std::string_view k, std::string_view v) {
  r.zero_c_is_term = v != "ignore";
  r.zero_c_exp = r.zero_c_is_term ? to_int(k, v, -300, 300) : -126;
}
std::string print_zero_c(const ModelRow& r) {
  return r.zero_c_is_term ? std::to_string(r.zero_c_exp) : "ignore";
}

void parse_nan32(ModelRow& r, std::string_view k, std::string_view v) {
  const uint32_t x = field_kit::to_hex(k, v, "an fp32 NaN bit pattern, e.g. 0x7fc00000");
  if ((x & 0x7F800000u) != 0x7F800000u || (x & 0x7FFFFFu) == 0) bad(k, v, "an fp32 NaN bit pattern");
  r.nan32 = x;
}
void parse_nan16(ModelRow& r, std::string_view k, std::string_view v) {
  const uint32_t x = field_kit::to_hex(k, v, "an fp16 NaN bit pattern, e.g. 0x7e00");
  if (x > 0xFFFF || (x & 0x7C00) != 0x7C00 || (x & 0x3FF) == 0) bad(k, v, "an fp16 NaN bit pattern");
  r.nan16 = static_cast<uint16_t>(x);
}
void parse_pair_group(ModelRow& r, std::string_view k, std::string_view v) {
  r.pair_group = to_int(k, v, 2, 4);
  if (r.pair_group == 3) bad(k, v, "2, 4");
}

std::string print_nan32(const ModelRow& r) { return field_kit::print_hex(r.nan32, 8); }
std::string print_nan16(const ModelRow& r) { return field_kit::print_hex(r.nan16, 4); }

// --- how each path uses a field -------------------------------------------

constexpr Use R{When::always, nullptr, nullptr};
constexpr Use N(const char* fixed, const char* instead) { return {When::never, fixed, instead}; }
constexpr Use C(When w, const char* fixed) { return {w, fixed, nullptr}; }
constexpr Use L{When::lookup, nullptr, nullptr};
constexpr std::array<Use, 5> kAll{R, R, R, R, R};
constexpr std::array<Use, 5> kLookup{L, L, L, L, L};

constexpr const char* kExactNoWindow = "sums exactly, with no alignment window";
constexpr const char* kPairNoWindow = "adds in fp32 arithmetic (RNE), with no alignment window";
constexpr const char* kFmaNoWindow = "rounds each FMA in IEEE arithmetic, with no alignment window";
constexpr const char* kNoLateRd = "has no late round-down addition of c (c=late_rd is an aligned-path mode)";
constexpr const char* kNoLateRne = "has no late addition of c (c=late_rne is an aligned-path mode)";
constexpr const char* kFmaIeee = "works as IEEE FMAs do: subnormals kept, nothing flushed";
constexpr const char* kInt = "sums integers exactly: no alignment, rounding or specials";
constexpr const char* kNoIntOverflow = "has no integer accumulator (overflow is an integer-path key)";
constexpr Use NI(const char* fixed) { return N(fixed, kInt); }
constexpr const char* kOneIn = "reads A and B in one format (in)";
constexpr Use NO(const char* fixed) { return N(fixed, kNoIntOverflow); }

using M = ModelRow;
constexpr Field kFields[] = {
    {"family", "", "GPU family whose GPUs use the row", kLookup, nullptr, print_str<&M::family>, ""},
    {"instr", "", "instruction as the vendor ISA names it", kLookup, nullptr, print_str<&M::instr>, ""},
    {"in", "fp16, bf16, tf32, e4m3, e5m2, e4m3fnuz, e5m2fnuz, fp32, fp64, s8, u8, s4, u4",
     "format of A and B (B: see in_b)", kAll, parse_fmt<&M::in>, print_fmt<&M::in>, "fp16 bf16 tf32 e4m3 e5m2 fp32"},
    {"in_b", "as in", "format of B where it differs from A's: mixed-signedness integer units (u8 x s8)",
     {N("in", kOneIn), N("in", kOneIn), N("in", kOneIn), N("in", kOneIn), R}, parse_fmt<&M::in_b>,
     print_fmt<&M::in_b>, "u8 s8"},
    {"out", "fp32, fp16, fp64, s32", "format of C and D", kAll, parse_fmt<&M::out>, print_fmt<&M::out>,
     "fp32 fp16 fp64"},
    {"m", "1..1024", "instruction shape: rows of D", kAll, parse_int<&M::m, 1, 1024>, print_int<&M::m>, "8 32"},
    {"n", "1..1024", "instruction shape: columns of D", kAll, parse_int<&M::n, 1, 1024>, print_int<&M::n>,
     "4 32"},
    {"k", "1..1024", "instruction shape: products per output element", kAll, parse_int<&M::k, 1, 1024>,
     print_int<&M::k>, "4 8 64"},
    {"as_fp16", "0, 1", "fp8 A and B converted exactly to fp16 before the unit reads them",
     {C(When::in_8bit, "0"), N("0", "reads A and B in their own format"),
      N("0", "reads A and B in their own format"), N("0", "reads A and B in their own format"), NI("0")},
     parse_bool<&M::as_fp16>, print_bool<&M::as_fp16>, "1 0"},
    {"block", "1..64", "N_FMA: products fused per block",
     {R, R, N("pair_group", "sums trees of pair_group products (set pair_group)"),
      N("1", "chains one FMA per product"), N("1", "sums the k products of an instruction exactly (set k)")},
     parse_int<&M::block, 1, 64>, print_int<&M::block>, "1 2 4 16"},
    {"frac", "1..40", "F: fraction bits of the alignment window",
     {R, N("23", kExactNoWindow), N("23", kPairNoWindow), N("23", kFmaNoWindow), NI("23")},
     parse_int<&M::frac, 1, 40>, print_int<&M::frac>, "10 23 30"},
    {"out_frac", "-1 (the output format's), 0..52", "fraction bits the block result is rounded to",
     {R, R, N("-1", "rounds every sum to the full fp32 format"),
      N("-1", "rounds each FMA to the full output format"), NI("-1")},
     parse_int<&M::out_frac, -1, 52>, print_int<&M::out_frac>, "5 13"},
    {"product", "denormalised, normalised, fp32", "how each product a_i*b_i is formed",
     {R, N("normalised", "sums the products exactly, whatever their form"),
      N("fp32", "rounds every product to fp32 (RNE)"), N("normalised", "keeps each product exact inside its FMA"),
      NI("denormalised")},
     parse_enum<&M::product, kProducts>, print_enum<&M::product, kProducts>, "denormalised normalised fp32"},
    {"accum", "aligned, exact, pairwise, fma, integer", "accumulation path: how the terms of a block are summed",
     kAll,
     parse_enum<&M::accum, kAccums>, print_enum<&M::accum, kAccums>, "aligned exact pairwise fma"},
    {"c", "early, late_rd, late_rne, last", "where the accumulator c enters a block",
     {R, N("early", "sums c with the products exactly (c early)"),
      N("last", "adds c after the tree by one fp32 RNE addition"), N("early", "starts the FMA chain at c"),
      N("early", "adds c to the exact sum of the products")},
     parse_enum<&M::c, kCEntries>, print_enum<&M::c, kCEntries>, "early late_rd late_rne last"},
    {"grouping", "contiguous, odd_even, pair_interleave", "how a block's products are split before summation",
     {R, N("contiguous", "sums the whole block at once"), N("contiguous", "sums a fixed tree of pairs"),
      N("contiguous", "chains the products in order"), NI("contiguous")},
     parse_enum<&M::grouping, kGroupings>, print_enum<&M::grouping, kGroupings>,
     "contiguous odd_even pair_interleave"},
    {"late_rd", "two_stage, single_stage", "round-down of the late c addition when c dominates",
     {C(When::c_late_rd, "two_stage"), N("two_stage", kNoLateRd), N("two_stage", kNoLateRd),
      N("two_stage", kNoLateRd), NI("two_stage")},
     parse_enum<&M::late_rd, kLateRds>, print_enum<&M::late_rd, kLateRds>, "two_stage single_stage"},
    {"late_exact_zero_c", "0, 1", "c = 0 dominating: the exact product sum enters the round-down",
     {C(When::c_late_rd_zero_c, "0"), N("0", kNoLateRd), N("0", kNoLateRd), N("0", kNoLateRd), NI("0")},
     parse_bool<&M::late_exact_zero_c>, print_bool<&M::late_exact_zero_c>, "1 0"},
    {"cutoff", "none, 0..600", "late c more than this many binades below the product sum is dropped",
     {C(When::c_late_rd, "none"), N("none", kNoLateRd), N("none", kNoLateRd), N("none", kNoLateRd), NI("none")},
     parse_opt<&M::cutoff, 0, 600, -1>, print_opt<&M::cutoff, -1>, "none 0 25"},
    {"pair_group", "2, 4", "products per pairwise tree",
     {N("4", "sums blocks of `block` products (set block)"), N("4", "sums blocks of `block` products (set block)"),
      R, N("4", "chains one FMA per product"), NI("4")},
     parse_pair_group, print_int<&M::pair_group>, "2 4"},
    {"floor", "none, -300..300", "lowest alignment exponent",
     {R, N("none", kExactNoWindow), N("none", kPairNoWindow), N("none", kFmaNoWindow), NI("none")},
     parse_opt<&M::floor, -300, 300, kNoFloor>, print_opt<&M::floor, kNoFloor>, "none -20 0 100"},
    {"zero_c", "ignore, -300..300", "c = 0 takes part in the alignment with this exponent",
     {R, N("ignore", "sums exactly: a zero c adds nothing"), N("ignore", "adds a zero c in fp32 (RNE)"),
      N("ignore", "adds a zero c inside an IEEE FMA"), NI("ignore")},
     parse_zero_c, print_zero_c, "ignore -10 0 100"},
    {"round", "rne, rz, rd, ru, rna", "rounding of each block result to out",
     {R, R, N("rne", "rounds every product and addition to nearest-even (fp32 RNE)"),
      N("rne", "rounds each FMA to nearest-even (IEEE)"), N("rz", "sums exactly: nothing is rounded")},
     parse_enum<&M::round, kRounds>, print_enum<&M::round, kRounds>, "rne rz rd ru rna"},
    {"late_round", "rne, rz, rd, ru, rna", "rounding of the late c addition (c=late_rne)",
     {C(When::c_late_rne, "rne"), N("rne", kNoLateRne), N("rne", kNoLateRne), N("rne", kNoLateRne), NI("rne")},
     parse_enum<&M::late_round, kRounds>, print_enum<&M::late_round, kRounds>, "rne rz"},
    {"in_sub", "0, 1", "0: subnormal a_i, b_i are read as zero", {R, R, R, N("1", kFmaIeee), NI("1")},
     parse_bool<&M::in_sub>, print_bool<&M::in_sub>, "0 1"},
    {"out_sub", "0, 1", "0: subnormal c, products and results are flushed to zero",
     {R, R, R, N("1", kFmaIeee), NI("1")},
     parse_bool<&M::out_sub>, print_bool<&M::out_sub>, "0 1"},
    {"flush_sign", "positive, keep", "sign of the zeros that flushing (out_sub=0) produces",
     {C(When::out_flushes_small, "positive"), C(When::out_flushes_small, "positive"),
      C(When::out_flushes, "positive"), N("positive", kFmaIeee), NI("positive")},
     parse_enum<&M::flush_sign, kFlushSigns>, print_enum<&M::flush_sign, kFlushSigns>, "keep positive"},
    {"prd_ovf", "0, 1", "a product |a_i*b_i| >= 2^128 gives +-Inf (NaN if both signs)",
     {C(When::wide_products, "0"), C(When::wide_products, "0"),
      N("0", "rounds every product to fp32, where one >= 2^128 overflows to Inf by itself"),
      N("0", "forms each product inside an IEEE FMA, which overflows as IEEE does"), NI("0")},
     parse_bool<&M::prd_ovf>, print_bool<&M::prd_ovf>, "1 0"},
    {"ovf_inf", "ieee, inputs_first",
     "an overflowing product against an infinite input or c: ieee (one more infinity: opposite ones give NaN) or "
     "inputs_first (the infinite input or c decides)",
     {C(When::product_overflow, "ieee"), C(When::product_overflow, "ieee"),
      N("ieee", "rounds every product to fp32, where an overflow is an IEEE infinity"),
      N("ieee", "forms each product inside an IEEE FMA, which overflows as IEEE does"), NI("ieee")},
     parse_enum<&M::ovf_inf, kOverflowInfs>, print_enum<&M::ovf_inf, kOverflowInfs>, "inputs_first ieee"},
    {"sub_c", "emin, lead",
     "alignment exponent of a subnormal fp16 c: emin (fp16's -14, as subnormal inputs are read) or lead (its "
     "leading bit, as if widened to fp32)",
     {C(When::out_fp16, "emin"), N("emin", "sums c exactly, whatever its alignment"),
      N("emin", "adds c in fp32 arithmetic (RNE), with no alignment window"), N("emin", kFmaNoWindow), NI("emin")},
     parse_enum<&M::sub_c, kSubnormalCs>, print_enum<&M::sub_c, kSubnormalCs>, "lead emin"},
    {"neg_zero", "keep, positive", "how -0 in A, B and the c entering each block is read: keep (IEEE) or positive (+0)",
     {N("keep", "drops zero products and reads c = 0 as no term, so a zero's sign never reaches the result"),
      N("keep", "drops zero products and adds no zero c, so a zero's sign never reaches the result"), R,
      N("keep", kFmaIeee), NI("keep")},
     parse_enum<&M::neg_zero, kNegZeros>, print_enum<&M::neg_zero, kNegZeros>, "positive keep"},
    {"nan32", "an fp32 NaN bit pattern", "NaN produced for fp32 (and, widened, fp64) results",
     {C(When::out_not_fp16, "0x7fffffff"), C(When::out_not_fp16, "0x7fffffff"), C(When::out_not_fp16, "0x7fffffff"),
      C(When::out_not_fp16, "0x7fffffff"), N("0x7fffffff", "has no NaN: s32 results")},
     parse_nan32, print_nan32, "0x7fc00000 0xffffffff"},
    {"nan16", "an fp16 NaN bit pattern", "NaN produced for fp16 results",
     {C(When::out_fp16, "0x7fff"), C(When::out_fp16, "0x7fff"), C(When::out_fp16, "0x7fff"),
      C(When::out_fp16, "0x7fff"), N("0x7fff", "has no NaN: s32 results")},
     parse_nan16, print_nan16, "0x7e00 0xfe00"},
    {"overflow", "wrap, satfinite",
     "s32 overflow of an integer unit: wrap (modulo 2^32) or satfinite (clamped to MIN_INT32..MAX_INT32)",
     {NO("wrap"), NO("wrap"), NO("wrap"), NO("wrap"), R}, parse_enum<&M::overflow, kIntOverflows>,
     print_enum<&M::overflow, kIntOverflows>, "satfinite wrap"},
    {"sat_point", "instruction, addition",
     "where satfinite clamps: instruction (each instruction's exact c + sum of products) or addition (every "
     "partial sum, in k order)",
     {NO("instruction"), NO("instruction"), NO("instruction"), NO("instruction"), C(When::satfinite, "instruction")},
     parse_enum<&M::sat_point, kSatPoints>, print_enum<&M::sat_point, kSatPoints>, "addition instruction"},
    {"has_satfinite", "", "the instruction has a .satfinite variant (overflow=satfinite allowed)", kLookup, nullptr,
     print_bool<&M::has_satfinite>, ""},
    {"ignores_c", "0, 1", "1: D = A*B, the accumulator is not read (wgmma scale-d=0)", kAll,
     parse_bool<&M::ignores_c>, print_bool<&M::ignores_c>, "1 0"},
    {"gemm_default", "", "the row a GEMM uses for its (in, out)", kLookup, nullptr, print_bool<&M::gemm_default>, ""},
    {"data_source", "", "the instruction that produced the public data", kLookup, nullptr,
     print_bool<&M::data_source>, ""},
    {"note", "", "remark shown by mmaemu models", kLookup, nullptr, print_str<&M::note>, ""},
};

const char* when_text(When w) {
  switch (w) {
    case When::c_late_rd: return "c=late_rd";
    case When::c_late_rd_zero_c: return "c=late_rd, zero_c set and products that can lie below 2^zero_c";
    case When::c_late_rne: return "c=late_rne";
    case When::in_8bit: return "fp8 inputs";
    case When::wide_products: return "bf16, tf32 or fp32 inputs";
    case When::out_fp16: return "out=fp16";
    case When::out_not_fp16: return "out=fp32 or fp64";
    case When::out_flushes: return "out_sub=0";
    case When::out_flushes_small: return "out_sub=0 and products that can lie below out's normal range";
    case When::product_overflow: return "prd_ovf=1";
    case When::satfinite: return "overflow=satfinite";
    default: return "";
  }
}

bool holds(When w, const ModelRow& r) {
  const Fmt unit_in = r.as_fp16 ? Fmt::fp16 : r.in;
  switch (w) {
    case When::always: return true;
    case When::never: return false;
    case When::c_late_rd: return r.c == CEntry::late_rd;
    case When::c_late_rd_zero_c:  // some product exponent e_a + e_b < zero_c
      return r.c == CEntry::late_rd && r.zero_c_is_term && 2 * info(unit_in).emin() < r.zero_c_exp;
    case When::c_late_rne: return r.c == CEntry::late_rne;
    case When::in_8bit: return info(r.in).width == 8;
    case When::wide_products: return info(unit_in).emax() >= 64;  // max^2 >= 2^128
    case When::out_fp16: return r.out == Fmt::fp16;
    case When::out_not_fp16: return r.out != Fmt::fp16;
    case When::out_flushes: return !r.out_sub;
    case When::product_overflow: return r.prd_ovf;
    case When::satfinite: return r.overflow == IntOverflow::satfinite;
    case When::out_flushes_small:  // a sum of products can be subnormal in out
      return !r.out_sub &&
             2 * (info(unit_in).emin() - info(unit_in).man_bits) < info(r.out).emin();
    case When::lookup: return true;
  }
  return false;
}

// --- rules between fields ---------------------------------------------------

struct Rule {
  const char* text;
  const char* keys;  // the fields the rule concerns, printed with the error
  bool (*ok)(const ModelRow&);
};

bool narrow_in(const ModelRow& r) { return r.in != Fmt::fp32 && r.in != Fmt::fp64; }
bool int_fmt(Fmt f) { return info(f).is_integer(); }
bool int_in(Fmt f) { return int_fmt(f) && f != Fmt::s32; }

constexpr Rule kRules[] = {
    {"s8, u8, s4, u4 and s32 are the integer path's formats (accum=integer)", "accum in in_b out",
     [](const M& r) {
       return r.accum == Accumulation::integer || (!int_fmt(r.in) && !int_fmt(r.in_b) && !int_fmt(r.out));
     }},
    {"out must be fp32 or fp16 (fp64 only on the fma path, s32 only on the integer path)", "accum out",
     [](const M& r) {
       return r.out == Fmt::fp32 || r.out == Fmt::fp16 || r.accum == Accumulation::fma_chain ||
              r.accum == Accumulation::integer;
     }},
    {"the integer path takes s8 or u8 (or s4 or u4) for A and B, one width for both, and gives s32",
     "accum in in_b out",
     [](const M& r) {
       return r.accum != Accumulation::integer ||
              (int_in(r.in) && int_in(r.in_b) && info(r.in).width == info(r.in_b).width && r.out == Fmt::s32);
     }},
    {"overflow=satfinite needs an instruction with a .satfinite variant (PTX mma, wgmma, tcgen05.mma; the AMD "
     "ISA documents give integer MFMA none: valid here overflow=wrap)",
     "overflow has_satfinite",
     [](const M& r) { return r.overflow == IntOverflow::wrap || r.has_satfinite; }},
    {"the aligned and exact paths take fp16, bf16, tf32 or fp8 inputs", "accum in",
     [](const M& r) { return r.accum == Accumulation::pairwise || r.accum == Accumulation::fma_chain || narrow_in(r); }},
    {"the pairwise path adds in fp32: out must be fp32 and in an fp16, bf16, tf32 or fp8 format", "accum in out",
     [](const M& r) { return r.accum != Accumulation::pairwise || (r.out == Fmt::fp32 && narrow_in(r)); }},
    {"the fma path chains fp32 FMAs (out=fp32, in of at most 32 bits) or fp64 FMAs (in=out=fp64)", "accum in out",
     [](const M& r) {
       return r.accum != Accumulation::fma_chain || (r.out == Fmt::fp32 && r.in != Fmt::fp64) ||
              (r.in == Fmt::fp64 && r.out == Fmt::fp64);
     }},
    {"product=fp32 (products rounded to fp32) is the pairwise path's; the aligned path forms exact products",
     "accum product", [](const M& r) { return r.accum != Accumulation::aligned || r.product != ProductForm::fp32_rne; }},
    {"c=last is the pairwise path's; the aligned path takes c=early, late_rd or late_rne", "accum c",
     [](const M& r) { return r.accum != Accumulation::aligned || r.c != CEntry::last; }},
    {"grouping=odd_even needs c=late_rd", "grouping c",
     [](const M& r) { return r.grouping != Grouping::odd_even || r.c == CEntry::late_rd; }},
    {"grouping=pair_interleave needs c=early or c=late_rne", "grouping c",
     [](const M& r) {
       return r.grouping != Grouping::pair_interleave || r.c == CEntry::early || r.c == CEntry::late_rne;
     }},
    {"grouping=pair_interleave chains two blocks per instruction, so k must be 2*block", "grouping k block",
     [](const M& r) { return r.grouping != Grouping::pair_interleave || r.k == 2 * r.block; }},
    {"c=late_rd needs frac >= 23", "c frac", [](const M& r) { return r.c != CEntry::late_rd || r.frac >= 23; }},
    {"out_frac exceeds the fraction bits of out", "out_frac out",
     [](const M& r) { return r.out_frac <= info(r.out).man_bits; }},
};

std::string values_of(const ModelRow& r, std::string_view keys) {
  std::string s;
  while (!keys.empty()) {
    const std::size_t sp = keys.find(' ');
    const std::string_view key = keys.substr(0, sp);
    keys = sp == std::string_view::npos ? std::string_view{} : keys.substr(sp + 1);
    for (const Field& f : kFields)  // has_satfinite and the like: not settable, still printed
      if (key == f.key) s += (s.empty() ? "" : ", ") + std::string(key) + "=" + f.print(r);
  }
  return s;
}

std::string row_name(const ModelRow& r) { return formats_of(r) + " " + r.instr; }

// The block-FMA rows as a kind of the field kit.
struct Rows {
  using Row = ModelRow;
  using When = fields::When;
  using Field = fields::Field;
  static constexpr std::array<const char*, 5> kPathNames{kAccums[0].name, kAccums[1].name, kAccums[2].name,
                                                         kAccums[3].name, kAccums[4].name};
  static std::span<const Field> table() { return kFields; }
  static int path(const Row& r) { return static_cast<int>(r.accum); }
  static bool holds(When w, const Row& r) { return fields::holds(w, r); }
  static const char* when_text(When w) { return fields::when_text(w); }
};

}  // namespace

std::span<const Field> table() { return Rows::table(); }

const Field* find(std::string_view key) { return field_kit::find<Rows>(key); }

const char* path_name(Accumulation a) { return Rows::kPathNames[static_cast<int>(a)]; }

bool reads(const Field& f, const ModelRow& row) { return field_kit::reads<Rows>(f, row); }

std::string why_unread(const Field& f, const ModelRow& row) {
  const Use& u = f.use[static_cast<int>(row.accum)];
  const std::string path = std::string("the ") + path_name(row.accum) + " path";
  if (u.when == When::never) return path + " " + u.instead;
  return path + " reads " + f.key + " only with " + when_text(u.when);
}

std::string fixed_value(const Field& f, const ModelRow& row) {
  const char* fixed = f.use[static_cast<int>(row.accum)].fixed;
  if (!fixed) return f.print(row);
  if (const Field* other = find(fixed)) return other->print(row);
  ModelRow copy = row;
  f.parse(copy, f.key, fixed);
  return f.print(copy);
}

void reset_unread(ModelRow& row, const std::vector<const Field*>& keep) {
  for (const Field& f : kFields) {
    if (!f.parse || reads(f, row) || std::find(keep.begin(), keep.end(), &f) != keep.end()) continue;
    f.parse(row, f.key, fixed_value(f, row));
  }
}

void check_row(const ModelRow& row) {
  for (const Rule& rule : kRules)
    if (!rule.ok(row))
      throw std::invalid_argument("custom model: " + std::string(rule.text) + " (row " + row_name(row) +
                                  ": " + values_of(row, rule.keys) + ")");
  for (const Field& f : kFields) {
    if (!f.parse || reads(f, row) || f.print(row) == fixed_value(f, row)) continue;
    throw std::invalid_argument("custom model: " + std::string(f.key) + "=" + f.print(row) + " is not read: " +
                                why_unread(f, row) + " (row " + row_name(row) + ")");
  }
}

std::string key_list() { return "base, " + field_kit::key_list<Rows>(); }

std::string describe_keys(bool markdown) { return field_kit::describe_keys<Rows>(markdown); }

std::string dump_row(const ModelRow& row) { return field_kit::dump<Rows>(row); }

std::string dump_rows() {
  std::string s = "# Every registry row, every field: mmaemu models --dump (tests/models checks it).\n";
  for (std::size_t i = 0; i < rows().size(); ++i)
    s += "row " + std::to_string(i) + "\n" + dump_row(rows()[i]);
  return s;
}

std::string read_params(const ModelRow& row) {
  return field_kit::read_params<Rows>(row, [](const Field& f) {  // settable, identity and shape left out
    const std::string_view key = f.key;
    return f.parse && key != "in" && key != "in_b" && key != "out" && key != "m" && key != "n" && key != "k";
  });
}

}  // namespace mmaemu::fields
