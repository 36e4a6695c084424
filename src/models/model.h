// SPDX-License-Identifier: BSD-3-Clause
// The generic block-FMA model: one record lists every implementation-defined
// choice of a matrix unit (docs/models.md). Models are rows of data; the
// reference engine (src/ref) reads the fields and never a GPU name.
#pragma once

#include <climits>
#include <cstdint>
#include <string>
#include <string_view>
#include <optional>
#include <vector>

#include "formats/format.h"
#include "models/scaled_units.h"

namespace mmaemu {

/// How one product a_i*b_i is formed (docs/models.md).
enum class ProductForm : uint8_t {
  denormalised,  // exact m_a*m_b at exponent e_a+e_b, |m| may be in [2,4)
  normalised,    // exact, renormalised to [1,2)
  fp32_rne,      // rounded to fp32 with RNE (CDNA2)
};

/// How the terms of one block are summed.
enum class Accumulation : uint8_t {
  aligned,   // align to the largest exponent, truncate each term to F
             // fraction bits, exact integer sum (NVIDIA, CDNA3)
  exact,     // exact (Kulisch) sum, one rounding (CDNA1)
  pairwise,  // binary tree of fp32 RNE additions (CDNA2)
  fma_chain, // d = fma(a_i, b_i, d) in IEEE arithmetic, i = 1..k (SFMA, DMMA)
  integer,   // exact integer products and sums into an s32 accumulator, with
             // the row's overflow rule (IMMA, integer MFMA; docs/models.md,
             // "Integer units")
};

/// What an integer unit does when its s32 accumulator overflows
/// (docs/models.md, "Integer units").
enum class IntOverflow : uint8_t {
  wrap,       // modulo 2^32 (PTX ISA, mma "Integer operations": no .satfinite;
              // the AMD ISA documents' integer MFMA)
  satfinite,  // clamped to MIN_INT32..MAX_INT32 (.satfinite)
};

/// Where a .satfinite unit clamps (docs/models.md, "Integer units").
enum class SatPoint : uint8_t {
  instruction,  // the accumulated value of each instruction, c + its k
                // products summed exactly, is clamped once (the PTX ISA text)
  addition,     // every partial sum is clamped: c + p_1, then + p_2, ...
                // in k order (a reading the text does not exclude)
};

/// Where the accumulator c enters a block.
enum class CEntry : uint8_t {
  early,     // a term of the block's sum (NVIDIA, CDNA1)
  late_rd,   // added after the product sum with round-down alignment (CDNA3)
  late_rne,  // added after the whole instruction by one RNE addition in the
             // output format (fp8 mma.sync on Hopper/Blackwell)
  last,      // RNE32(c + tree) (CDNA2 pairwise)
};

/// How the products of one block are split before summation.
enum class Grouping : uint8_t {
  contiguous,       // one group
  odd_even,         // positions 0,2,4,.. and 1,3,5,.. aligned separately,
                    // combined with round-down (CDNA3 fp8)
  pair_interleave,  // two chained sub-blocks {0,1,4,5,..} then {2,3,6,7,..}
                    // (HMMA fp8 path, docs/models.md)
};

/// Rounding of the late-c alignment when c dominates (docs/models.md).
enum class LateRd : uint8_t {
  two_stage,     // AMD paper, Algorithm 1: RD to 32 bits, normalise, RD to 31 (hardware)
  single_stage,  // RD to 31 bits relative to c (MATLAB toolbox and MMA-Sim)
};

/// Sign of values flushed to zero by FTZ.
enum class FlushSign : uint8_t { positive, keep };

/// Alignment exponent of a subnormal accumulator of the output format
/// entering a block (fp16 results; docs/models.md §2.4 step 2).
enum class SubnormalC : uint8_t {
  emin,  // the format's minimum normal exponent, as subnormal inputs are read
  lead,  // its leading bit, as if widened to fp32 first (the toolbox's reading)
};

/// How a product that overflows (|a_i*b_i| >= 2^128, prd_ovf)
/// meets an infinite input or c (docs/models.md §2.10).
enum class OverflowInf : uint8_t {
  ieee,          // the overflow is one more infinity: with an opposite one, NaN
  inputs_first,  // an infinite input or c decides; overflow counts among finite ones
};

/// How the pairwise path reads a -0 input or accumulator (docs/models.md §2.8).
enum class NegZero : uint8_t {
  keep,      // IEEE: -0 stays -0
  positive,  // read as +0, flushed with the subnormals (MMA-Sim's reading)
};

inline constexpr int kNoFloor = INT_MIN;

/// One (GPU family, instruction, input format, output format) row.
struct ModelRow {
  // --- identity -----------------------------------------------------------
  const char* family = "";  // "hopper", "cdna3", ... (GPUs name their family)
  const char* instr = "";   // instruction as the vendor ISA names it
  Fmt in = Fmt::fp16;  // format of A (and of B, but for in_b)
  Fmt in_b = Fmt::fp16;  // format of B: = in, except for the integer units'
                         // mixed signedness (u8 x s8 and the like)
  Fmt out = Fmt::fp32; // format of C and D
  int m = 16, n = 8, k = 16;  // instruction shape

  // --- block FMA ----------------------------------------------------------
  bool as_fp16 = false;  // A, B converted exactly to fp16 before the
                                // unit reads them (fp8 mma.sync on Hopper and
                                // B200 runs as fp16 HMMA)
  int block = 1;          // N_FMA: products fused per block (per group set)
  int frac = 23;          // F: fraction bits of the alignment window
  int out_frac = -1;      // fraction bits of the result (-1: the format's)
  ProductForm product = ProductForm::denormalised;
  Accumulation accum = Accumulation::aligned;
  CEntry c = CEntry::early;  // where c enters a block
  Grouping grouping = Grouping::contiguous;
  LateRd late_rd = LateRd::two_stage;
  bool late_exact_zero_c = false;  // late_rd with c = 0 dominating (every
                            // product below 2^zero_c_exp): the product sum
                            // enters the round-down exactly, not truncated to
                            // F bits first (AMD paper, test vector L3, i = 23; MI300)
  int cutoff = -1;        // late_rd: c more than this many binades below the
                          // product sum is dropped, not rounded (-1: never)
  int pair_group = 4;     // pairwise: products per tree (4, or 2 for CDNA2
                          // bf16 without _1k)
  int floor = kNoFloor;  // lowest alignment exponent (kNoFloor: none)
  bool zero_c_is_term = false;  // c = 0 takes part in alignment with exponent
                          // zero_c_exp (CDNA3); otherwise it is ignored
  int zero_c_exp = -126;
  Round round = Round::rz;  // rounding of each block result to `out`
  Round late_round = Round::rne;  // rounding of the late_rne addition

  // --- exceptional cases --------------------------------------------------
  bool in_sub = true;    // false: subnormal a_i, b_i read as zero
  bool out_sub = true;   // false: subnormal c, products and results -> 0
  FlushSign flush_sign = FlushSign::positive;
  bool prd_ovf = false;  // |a_i*b_i| >= 2^128 gives +-Inf (NaN if both signs)
  OverflowInf ovf_inf = OverflowInf::ieee;  // an overflowing product against infinite inputs
  SubnormalC sub_c = SubnormalC::emin;  // alignment of a subnormal fp16 c
  NegZero neg_zero = NegZero::keep;     // pairwise: how -0 inputs and c are read
  uint32_t nan32 = 0x7FFFFFFFu;   // NaN produced for fp32 results
  uint16_t nan16 = 0x7FFF;        // NaN produced for fp16 results

  // --- integer units (accum = integer) ------------------------------------
  IntOverflow overflow = IntOverflow::wrap;     // s32 overflow: wrap or clamp
  SatPoint sat_point = SatPoint::instruction;   // where satfinite clamps
  bool has_satfinite = true;  // the instruction has a .satfinite variant
                              // (NVIDIA; the AMD ISA documents none)

  // --- provenance ---------------------------------------------------------
  bool ignores_c = false;     // instruction variant with D = A*B (wgmma scale-d=0)
  bool gemm_default = true;   // the row a GEMM uses for (family, in, out)
  bool data_source = true;    // the instruction that produced the public data
  const char* note = "";

  int result_frac() const { return out_frac < 0 ? info(out).man_bits : out_frac; }
};

/// A GPU: its names and the families whose rows it uses.
struct Gpu {
  const char* name;       // canonical: "H100"
  const char* aliases;    // space separated, case-insensitive: "sm_90 hopper"
  const char* families;   // space separated families whose rows it has ("": a variant's are its base's)
  const char* vendor;     // "NVIDIA" or "AMD"
  const char* overrides;  // a variant of another GPU: the custom: keys that make it from its
                          // base, rows and units alike ("base=B200,round=rne,bs_round=rne":
                          // B200-RN), or ""
  const char* note;
};

/// A model: a GPU (or a custom variant) with its rows.
struct Model {
  std::string name;
  const Gpu* gpu = nullptr;  // null for custom models without a base
  std::vector<ModelRow> rows;
  /// Its block-scaled and narrow-format units (docs/block-scaled.md §2),
  /// with a custom model's bs_ keys applied (models/scaled_fields.h).
  std::vector<ScaledUnit> scaled;
  /// Its integer units (accum = integer; docs/models.md, "Integer units"),
  /// kept apart from `rows` until the GEMM engine, its kernel plan and the C
  /// API take them: today the scalar reference (src/ref) runs them.
  std::vector<ModelRow> integer;

  /// The row a GEMM uses for (in, out), or null if unsupported.
  const ModelRow* find(Fmt in, Fmt out) const;
  /// The integer unit for A in `a`, B in `b` and result `out`, or null.
  const ModelRow* find_integer(Fmt a, Fmt b, Fmt out) const;
  /// find_integer, or std::invalid_argument naming the model, the formats
  /// and the combinations the model has ("H100 has no integer unit for s4 x
  /// s4 -> s32; its integer units: s8 x s8 -> s32, ...").
  const ModelRow& require_integer(Fmt a, Fmt b, Fmt out) const;
  /// The row that produced public hardware data for (in, out), else find().
  const ModelRow* find_data_source(Fmt in, Fmt out) const;
  /// The row of a named instruction ("mma.sync", "wgmma", "tcgen05.mma",
  /// "wmma" = mma.sync, or a prefix of the row's instruction) for (in, out).
  const ModelRow* find_instr(std::string_view instr, Fmt in, Fmt out) const;
};

/// "fp16->fp32", or for mixed operands "u8 x s8->s32": a row's formats.
std::string formats_of(const ModelRow& row);

/// All registered GPUs and all rows.
const std::vector<Gpu>& gpus();
const std::vector<ModelRow>& rows();

/// Applies "key=value,key=value" overrides to a row (custom models); a key
/// the row's accumulation path does not read is refused (fields.h).
/// Throws std::invalid_argument naming the bad key or value.
void apply_overrides(ModelRow& row, std::string_view overrides);

/// Builds the model of a registered GPU (nullptr if `name` is unknown).
std::optional<Model> gpu_model(std::string_view name);

/// Looks up a model by name, alias or custom specification
/// ("custom:base=B200,round=rne"); a suffix "@INSTR" (at most one) keeps
/// only the rows of that instruction, as GEMM rows ("B200@mma.sync"). Throws
/// std::invalid_argument with a message that lists the valid names.
Model lookup_model(const std::string& spec);

/// A comma-separated list of every valid model name (for error messages).
std::string valid_model_names();

}  // namespace mmaemu
