// SPDX-License-Identifier: BSD-3-Clause
// The model registry: every matrix-unit row of the two papers as data
// (Khattak & Mikaitis, "Accurate Models of NVIDIA Tensor Cores" and
// "Accurate Models of AMD Matrix Cores"; docs/models.md gives the meaning of
// each parameter). A family base names every field its rows share (designated
// initialisers; a field left out keeps ModelRow's default); the row table
// adds the instruction, formats, shape and block size. Nothing is reused by
// mutation. A field a row's accumulation path does not read holds the fixed
// value of the field table (fields.h); tests/models/rows.txt lists every
// field of every row.
#include <algorithm>
#include <cctype>
#include <sstream>
#include <stdexcept>

#include "models/fields.h"
#include "models/model.h"

namespace mmaemu {
namespace {

using enum Fmt;
using enum Round;

constexpr uint32_t kAmdNan32 = 0xFFC00000u;  // -NaN on every CDNA generation (AMD paper)

// --- NVIDIA HMMA/QMMA: aligned sum, c early, denormalised products; RZ for
// fp32 results, RNE for fp16 results; F and the alignment floor by
// generation (NVIDIA paper; docs/models.md).
constexpr ModelRow kVoltaF32{.family = "volta-hmma", .frac = 23, .round = rz};
constexpr ModelRow kVoltaF16{.family = "volta-hmma", .frac = 23, .floor = -19, .round = rne};
// Turing HMMA (T4, RTX 20): F = 24 (one bit more than Volta) and the
// alignment floors of Ampere's F = 24 unit; m16n8k8 fuses its 8 products in
// one block, the m8n8k4 shape kept from Volta fuses 4 (docs/models.md §10:
// MMA-Sim's Turing design and the PeerJ T4 experiments; no bit-level data).
constexpr ModelRow kTuringF32{.family = "turing-hmma", .frac = 24, .floor = -132, .round = rz};
constexpr ModelRow kTuringF16{.family = "turing-hmma", .frac = 24, .floor = -20, .round = rne};
constexpr ModelRow kTuring884F32{.family = "turing-hmma", .frac = 24, .floor = -132, .round = rz,
                                 .gemm_default = false, .data_source = false,
                                 .note = "m8n8k4 kept from Volta: one block of 4"};
constexpr ModelRow kTuring884F16{.family = "turing-hmma", .frac = 24, .floor = -20, .round = rne,
                                 .gemm_default = false, .data_source = false,
                                 .note = "m8n8k4 kept from Volta: one block of 4"};
constexpr ModelRow kAmpereF32{.family = "ampere-hmma", .frac = 24, .floor = -132, .round = rz};
constexpr ModelRow kAmpereF16{.family = "ampere-hmma", .frac = 24, .floor = -20, .round = rne};
// Ada QMMA fp8: F = 13, fp32 results keep 13 fraction bits; fp16 results are
// the same sum rounded (RNE) to fp16 per block.
constexpr ModelRow kAdaF32{
    .family = "ada-qmma", .frac = 13, .out_frac = 13, .floor = -132, .round = rz};
constexpr ModelRow kAdaF16{.family = "ada-qmma", .frac = 13, .floor = -132, .round = rne};
constexpr ModelRow kHopperF32{.family = "hopper-hmma", .frac = 25, .floor = -133, .round = rz};
constexpr ModelRow kHopperF16{.family = "hopper-hmma", .frac = 25, .floor = -21, .round = rne};
// Hopper wgmma fp8 (QGMMA): F = 13, 13-bit fp32 results. The public H100/H200
// fp8->fp32 data were made with scale-d = 0 (D = A*B): that variant is its
// own row, the data source but not the GEMM row.
constexpr ModelRow kWgmmaF32{.family = "hopper-wgmma", .frac = 13, .out_frac = 13, .floor = -133,
                             .round = rz, .data_source = false};
constexpr ModelRow kWgmmaD0{.family = "hopper-wgmma", .frac = 13, .out_frac = 13, .floor = -133,
                            .round = rz, .ignores_c = true, .gemm_default = false,
                            .note = "D = A*B: the accumulator is not read"};
constexpr ModelRow kWgmmaF16{
    .family = "hopper-wgmma", .frac = 13, .floor = -133, .round = rne, .data_source = false};
// fp8 mma.sync on Hopper and B200: converted to fp16 and run as two chained
// HMMA blocks on interleaved pairs, c added last by one RNE addition
// (docs/models.md, the interleaved HMMA fp8 path).
constexpr ModelRow kHmmaFp8F32{.family = "hmma-fp8", .as_fp16 = true, .frac = 25,
                               .c = CEntry::late_rne, .grouping = Grouping::pair_interleave,
                               .floor = -133, .round = rz, .gemm_default = false};
constexpr ModelRow kHmmaFp8F16{.family = "hmma-fp8", .as_fp16 = true, .frac = 25,
                               .c = CEntry::late_rne, .grouping = Grouping::pair_interleave,
                               .floor = -21, .round = rne, .gemm_default = false};
// Blackwell fp8: tcgen05 (UTCQMMA) on B200, mma.sync (QMMA) on RTX PRO 6000.
constexpr ModelRow kTcgen05F32{
    .family = "tcgen05-fp8", .frac = 25, .floor = -133, .round = rz, .data_source = false};
constexpr ModelRow kTcgen05F16{
    .family = "tcgen05-fp8", .frac = 25, .floor = -21, .round = rne, .data_source = false};
constexpr ModelRow kSm120F32{.family = "sm120-qmma", .frac = 25, .floor = -133, .round = rz};
constexpr ModelRow kSm120F16{.family = "sm120-qmma", .frac = 25, .floor = -21, .round = rne};
// NVIDIA fp64 DMMA: a chain of binary64 FMAs.
constexpr ModelRow kDmma{.family = "ampere-dmma", .product = ProductForm::normalised,
                         .accum = Accumulation::fma_chain, .round = rne};

// --- AMD (AMD paper). CDNA1: exact sum of a block and c, one RNE.
constexpr ModelRow kCdna1{.family = "cdna1", .product = ProductForm::normalised, .accum = Accumulation::exact,
                          .round = rne, .nan32 = kAmdNan32};
// IEEE FMA chains: the fp32 and fp64 MFMA instructions of every generation.
constexpr ModelRow kCdna1Fma{.family = "cdna1", .product = ProductForm::normalised,
                             .accum = Accumulation::fma_chain, .round = rne, .nan32 = kAmdNan32};
constexpr ModelRow kCdna2Fma{.family = "cdna2", .product = ProductForm::normalised,
                             .accum = Accumulation::fma_chain, .round = rne, .nan32 = kAmdNan32};
constexpr ModelRow kCdna3Fma{.family = "cdna3", .product = ProductForm::normalised,
                             .accum = Accumulation::fma_chain, .round = rne, .nan32 = kAmdNan32};
// CDNA2: products rounded to fp32, a pairwise fp32 tree, c added last, no
// subnormals in or out. (A product >= 2^128 overflows to Inf by itself in
// fp32: the pairwise path has no separate product-overflow rule.)
constexpr ModelRow kCdna2{.family = "cdna2", .product = ProductForm::fp32_rne, .accum = Accumulation::pairwise,
                          .c = CEntry::last, .round = rne, .in_sub = false,
                          .out_sub = false, .nan32 = kAmdNan32};
constexpr ModelRow kCdna2Pairs{.family = "cdna2", .product = ProductForm::fp32_rne,
                               .accum = Accumulation::pairwise, .c = CEntry::last, .pair_group = 2,
                               .round = rne, .in_sub = false, .out_sub = false,
                               .nan32 = kAmdNan32, .gemm_default = false, .data_source = false,
                               .note = "pre-_1k bf16 instruction: pairs of 2"};
// CDNA3: products aligned (F = 24), c added late with the two-stage
// round-down of the AMD paper's Algorithm 1, c = 0 a term at 2^-126. Only
// bf16 and tf32 products reach 2^128 (where they overflow) and lie below
// 2^-126 (where the exact sum enters the round-down, late_exact_zero_c);
// fp8 sums odd and even positions apart, with a 25-binade c cut-off.
constexpr ModelRow kCdna3{.family = "cdna3", .frac = 24, .c = CEntry::late_rd, .zero_c_is_term = true,
                          .zero_c_exp = -126, .round = rne, .nan32 = kAmdNan32};
constexpr ModelRow kCdna3Wide{.family = "cdna3", .frac = 24, .c = CEntry::late_rd,
                              .late_exact_zero_c = true, .zero_c_is_term = true, .zero_c_exp = -126,
                              .round = rne, .prd_ovf = true, .nan32 = kAmdNan32};
constexpr ModelRow kCdna3Fp8{.family = "cdna3", .frac = 24, .c = CEntry::late_rd,
                             .grouping = Grouping::odd_even, .cutoff = 25,
                             .zero_c_is_term = true, .zero_c_exp = -126, .round = rne, .nan32 = kAmdNan32};

// --- Integer units (docs/models.md, "Integer units"): exact products summed
// into an s32 accumulator, one instruction of k products at a time. Plain
// instructions wrap modulo 2^32 (PTX ISA, "Multiply-and-Accumulate
// Instruction: mma", Integer operations; the same wording for wgmma); the
// .satfinite variants are custom:...,overflow=satfinite. The AMD ISA
// documents give the integer MFMA no clamp: wrap only. No public bit-level
// data exist for these units (data_source = 0).
constexpr ModelRow kTuringImma{.family = "turing-imma", .accum = Accumulation::integer, .data_source = false};
// mma.sync s8/u8 m16n8k32 and m16n8k16 (sm_80 and later; PTX ISA, mma, Target ISA Notes).
constexpr ModelRow kImmaS8{.family = "imma-s8", .accum = Accumulation::integer, .data_source = false};
constexpr ModelRow kImmaS8Alt{.family = "imma-s8", .accum = Accumulation::integer, .gemm_default = false,
                              .data_source = false, .note = "the k=16 shape"};
// mma.sync s4/u4 m16n8k64 and m16n8k32: Ampere and Ada only; Hopper and
// Blackwell document no int4 tensor-core path (docs/models.md).
constexpr ModelRow kImmaS4{.family = "imma-s4", .accum = Accumulation::integer, .data_source = false};
constexpr ModelRow kImmaS4Alt{.family = "imma-s4", .accum = Accumulation::integer, .gemm_default = false,
                              .data_source = false, .note = "the k=32 shape"};
constexpr ModelRow kWgmmaInt{.family = "hopper-wgmma-int", .accum = Accumulation::integer, .gemm_default = false,
                             .data_source = false, .note = "wgmma.mma_async .s32 (sm_90a)"};
constexpr ModelRow kTcgen05Int{.family = "tcgen05-int", .accum = Accumulation::integer, .gemm_default = false,
                               .data_source = false, .note = "tcgen05.mma .kind::i8 (sm_100a)"};
constexpr ModelRow kCdna1Int{.family = "cdna1", .accum = Accumulation::integer, .has_satfinite = false,
                             .data_source = false};
constexpr ModelRow kCdna1IntAlt{.family = "cdna1", .accum = Accumulation::integer, .has_satfinite = false,
                                .gemm_default = false, .data_source = false};
constexpr ModelRow kCdna2Int{.family = "cdna2", .accum = Accumulation::integer, .has_satfinite = false,
                             .data_source = false};
constexpr ModelRow kCdna2IntAlt{.family = "cdna2", .accum = Accumulation::integer, .has_satfinite = false,
                                .gemm_default = false, .data_source = false};
constexpr ModelRow kCdna3Int{.family = "cdna3", .accum = Accumulation::integer, .has_satfinite = false,
                             .data_source = false};
constexpr ModelRow kCdna3IntAlt{.family = "cdna3", .accum = Accumulation::integer, .has_satfinite = false,
                                .gemm_default = false, .data_source = false};

// One row: a family base plus the instruction, formats, shape and block.
struct Line {
  const ModelRow& base;
  const char* instr;
  Fmt in, out;
  int m, n, k, block;
};

// clang-format off
const Line kLines[] = {
//  base          instr                          in        out    m    n   k  block
  {kVoltaF32,   "mma.sync",                    fp16,     fp32,    8,   8,  4,  4},
  {kVoltaF16,   "mma.sync",                    fp16,     fp16,    8,   8,  4,  4},
  {kTuringF32,  "mma.sync",                    fp16,     fp32,   16,   8,  8,  8},
  {kTuringF16,  "mma.sync",                    fp16,     fp16,   16,   8,  8,  8},
  {kTuring884F32, "mma.sync.m8n8k4",           fp16,     fp32,    8,   8,  4,  4},
  {kTuring884F16, "mma.sync.m8n8k4",           fp16,     fp16,    8,   8,  4,  4},
  {kAmpereF32,  "mma.sync",                    fp16,     fp32,   16,   8, 16,  8},
  {kAmpereF16,  "mma.sync",                    fp16,     fp16,   16,   8, 16,  8},
  {kAmpereF32,  "mma.sync",                    bf16,     fp32,   16,   8, 16,  8},
  {kAmpereF32,  "mma.sync",                    tf32,     fp32,   16,   8,  8,  4},
  {kAdaF32,     "mma.sync",                    e4m3,     fp32,   16,   8, 32, 16},
  {kAdaF16,     "mma.sync",                    e4m3,     fp16,   16,   8, 32, 16},
  {kAdaF32,     "mma.sync",                    e5m2,     fp32,   16,   8, 32, 16},
  {kAdaF16,     "mma.sync",                    e5m2,     fp16,   16,   8, 32, 16},
  {kHopperF32,  "mma.sync",                    fp16,     fp32,   16,   8, 16, 16},
  {kHopperF16,  "mma.sync",                    fp16,     fp16,   16,   8, 16, 16},
  {kHopperF32,  "mma.sync",                    bf16,     fp32,   16,   8, 16, 16},
  {kHopperF32,  "mma.sync",                    tf32,     fp32,   16,   8,  8,  8},
  {kWgmmaF32,   "wgmma",                       e4m3,     fp32,   64,   8, 32, 32},
  {kWgmmaD0,    "wgmma.scale-d=0",             e4m3,     fp32,   64,   8, 32, 32},
  {kWgmmaF16,   "wgmma",                       e4m3,     fp16,   64,   8, 32, 32},
  {kWgmmaF32,   "wgmma",                       e5m2,     fp32,   64,   8, 32, 32},
  {kWgmmaD0,    "wgmma.scale-d=0",             e5m2,     fp32,   64,   8, 32, 32},
  {kWgmmaF16,   "wgmma",                       e5m2,     fp16,   64,   8, 32, 32},
  {kHmmaFp8F32, "mma.sync",                    e4m3,     fp32,   16,   8, 32, 16},
  {kHmmaFp8F16, "mma.sync",                    e4m3,     fp16,   16,   8, 32, 16},
  {kHmmaFp8F32, "mma.sync",                    e5m2,     fp32,   16,   8, 32, 16},
  {kHmmaFp8F16, "mma.sync",                    e5m2,     fp16,   16,   8, 32, 16},
  {kTcgen05F32, "tcgen05.mma",                 e4m3,     fp32,  128,   8, 32, 32},
  {kTcgen05F16, "tcgen05.mma",                 e4m3,     fp16,  128,   8, 32, 32},
  {kSm120F32,   "mma.sync",                    e4m3,     fp32,   16,   8, 32, 32},
  {kSm120F16,   "mma.sync",                    e4m3,     fp16,   16,   8, 32, 32},
  {kTcgen05F32, "tcgen05.mma",                 e5m2,     fp32,  128,   8, 32, 32},
  {kTcgen05F16, "tcgen05.mma",                 e5m2,     fp16,  128,   8, 32, 32},
  {kSm120F32,   "mma.sync",                    e5m2,     fp32,   16,   8, 32, 32},
  {kSm120F16,   "mma.sync",                    e5m2,     fp16,   16,   8, 32, 32},
  {kDmma,       "mma.sync",                    fp64,     fp64,    8,   8,  4,  1},
  {kCdna1,      "v_mfma_f32_16x16x16f16",      fp16,     fp32,   16,  16, 16,  4},
  {kCdna1,      "v_mfma_f32_16x16x8bf16",      bf16,     fp32,   16,  16,  8,  2},
  {kCdna1Fma,   "v_mfma_f32_16x16x4f32",       fp32,     fp32,   16,  16,  4,  1},
  {kCdna2,      "v_mfma_f32_16x16x16f16",      fp16,     fp32,   16,  16, 16,  4},
  {kCdna2,      "v_mfma_f32_16x16x16bf16_1k",  bf16,     fp32,   16,  16, 16,  4},
  {kCdna2Pairs, "v_mfma_f32_16x16x8bf16",      bf16,     fp32,   16,  16,  8,  2},
  {kCdna2Fma,   "v_mfma_f32_16x16x4f32",       fp32,     fp32,   16,  16,  4,  1},
  {kCdna2Fma,   "v_mfma_f64_16x16x4f64",       fp64,     fp64,   16,  16,  4,  1},
  {kCdna3,      "v_mfma_f32_16x16x16_f16",     fp16,     fp32,   16,  16, 16,  8},
  {kCdna3Wide,  "v_mfma_f32_16x16x16_bf16",    bf16,     fp32,   16,  16, 16,  8},
  {kCdna3Wide,  "v_mfma_f32_16x16x8_xf32",     tf32,     fp32,   16,  16,  8,  4},
  {kCdna3Fp8,   "v_mfma_f32_16x16x32_fp8_fp8", e4m3fnuz, fp32,   16,  16, 32, 16},
  {kCdna3Fp8,   "v_mfma_f32_16x16x32_bf8_bf8", e5m2fnuz, fp32,   16,  16, 32, 16},
  {kCdna3Fma,   "v_mfma_f32_16x16x4_f32",      fp32,     fp32,   16,  16,  4,  1},
  {kCdna3Fma,   "v_mfma_f64_16x16x4_f64",      fp64,     fp64,   16,  16,  4,  1},
};
// clang-format on

// One integer row: a family base plus the instruction, A's and B's formats
// and the shape; the result is s32, and one step is the whole instruction.
struct IntLine {
  const ModelRow& base;
  const char* instr;
  Fmt a, b;
  int m, n, k;
};

// clang-format off
const IntLine kIntLines[] = {
//  base           instr                      A    B     m    n   k
  {kTuringImma,  "mma.sync",                s8,  s8,    8,   8, 16},
  {kTuringImma,  "mma.sync",                s8,  u8,    8,   8, 16},
  {kTuringImma,  "mma.sync",                u8,  s8,    8,   8, 16},
  {kTuringImma,  "mma.sync",                u8,  u8,    8,   8, 16},
  {kTuringImma,  "mma.sync",                s4,  s4,    8,   8, 32},
  {kTuringImma,  "mma.sync",                s4,  u4,    8,   8, 32},
  {kTuringImma,  "mma.sync",                u4,  s4,    8,   8, 32},
  {kTuringImma,  "mma.sync",                u4,  u4,    8,   8, 32},
  {kImmaS8,      "mma.sync",                s8,  s8,   16,   8, 32},
  {kImmaS8,      "mma.sync",                s8,  u8,   16,   8, 32},
  {kImmaS8,      "mma.sync",                u8,  s8,   16,   8, 32},
  {kImmaS8,      "mma.sync",                u8,  u8,   16,   8, 32},
  {kImmaS8Alt,   "mma.sync.m16n8k16",       s8,  s8,   16,   8, 16},
  {kImmaS4,      "mma.sync",                s4,  s4,   16,   8, 64},
  {kImmaS4,      "mma.sync",                s4,  u4,   16,   8, 64},
  {kImmaS4,      "mma.sync",                u4,  s4,   16,   8, 64},
  {kImmaS4,      "mma.sync",                u4,  u4,   16,   8, 64},
  {kImmaS4Alt,   "mma.sync.m16n8k32",       s4,  s4,   16,   8, 32},
  {kWgmmaInt,    "wgmma",                   s8,  s8,   64,   8, 32},
  {kWgmmaInt,    "wgmma",                   s8,  u8,   64,   8, 32},
  {kWgmmaInt,    "wgmma",                   u8,  s8,   64,   8, 32},
  {kWgmmaInt,    "wgmma",                   u8,  u8,   64,   8, 32},
  {kTcgen05Int,  "tcgen05.mma",             s8,  s8,  128,   8, 32},
  {kTcgen05Int,  "tcgen05.mma",             s8,  u8,  128,   8, 32},
  {kTcgen05Int,  "tcgen05.mma",             u8,  s8,  128,   8, 32},
  {kTcgen05Int,  "tcgen05.mma",             u8,  u8,  128,   8, 32},
  {kCdna1Int,    "v_mfma_i32_16x16x16i8",   s8,  s8,   16,  16, 16},
  {kCdna1IntAlt, "v_mfma_i32_32x32x8i8",    s8,  s8,   32,  32,  8},
  {kCdna2Int,    "v_mfma_i32_16x16x16i8",   s8,  s8,   16,  16, 16},
  {kCdna2IntAlt, "v_mfma_i32_32x32x8i8",    s8,  s8,   32,  32,  8},
  {kCdna3Int,    "v_mfma_i32_16x16x32_i8",  s8,  s8,   16,  16, 32},
  {kCdna3IntAlt, "v_mfma_i32_32x32x16_i8",  s8,  s8,   32,  32, 16},
};
// clang-format on

ModelRow row_of(const IntLine& l) {
  ModelRow r = l.base;
  r.instr = l.instr;
  r.in = l.a;
  r.in_b = l.b;
  r.out = s32;
  r.m = l.m;
  r.n = l.n;
  r.k = l.k;
  return r;
}

ModelRow row_of(const Line& l) {
  ModelRow r = l.base;
  r.instr = l.instr;
  r.in = l.in;
  r.in_b = l.in;
  r.out = l.out;
  r.m = l.m;
  r.n = l.n;
  r.k = l.k;
  r.block = l.block;
  return r;
}

std::vector<ModelRow> build_rows() {
  std::vector<ModelRow> v;
  for (const Line& l : kLines) v.push_back(row_of(l));
  for (const IntLine& l : kIntLines) v.push_back(row_of(l));
  return v;
}

const std::vector<Gpu> kGpus = {
    {"V100", "sm_70 volta", "volta-hmma", "NVIDIA", "", "Volta"},
    {"T4", "sm_75 turing rtx20", "turing-hmma turing-imma", "NVIDIA", "",
     "Turing (T4, GeForce RTX 20, Quadro RTX); no bit-level hardware data"},
    {"A100", "sm_80 ampere", "ampere-hmma ampere-dmma imma-s8 imma-s4", "NVIDIA", "", "Ampere"},
    {"A2", "sm_86 a10 rtx30", "ampere-hmma imma-s8 imma-s4", "NVIDIA", "",
     "Ampere GA107 (no fp64 tensor cores); A10 and RTX 30 by architecture"},
    {"A30", "", "ampere-hmma ampere-dmma imma-s8 imma-s4", "NVIDIA", "", "Ampere"},
    {"L40S", "sm_89 rtx40", "ampere-hmma ada-qmma imma-s8 imma-s4", "NVIDIA", "",
     "Ada Lovelace; RTX 40 by architecture"},
    {"RTX1000", "ada rtx1000ada", "ampere-hmma ada-qmma imma-s8 imma-s4", "NVIDIA", "", "Ada Lovelace (RTX 1000 Ada)"},
    {"H100", "sm_90 sm_90a hopper", "hopper-hmma hopper-wgmma hmma-fp8 ampere-dmma imma-s8 hopper-wgmma-int",
     "NVIDIA", "",
     "Hopper"},
    {"H200", "", "hopper-hmma hopper-wgmma hmma-fp8 ampere-dmma imma-s8 hopper-wgmma-int", "NVIDIA", "", "Hopper"},
    {"B200", "sm_100 sm_100a blackwell", "hopper-hmma tcgen05-fp8 hmma-fp8 ampere-dmma imma-s8 tcgen05-int",
     "NVIDIA",
     "", "Blackwell"},
    {"B200-RN", "b200rn b200tcrn", "", "NVIDIA", "base=B200,round=rne,bs_round=rne",
     "hypothetical B200 with round-to-nearest-even results (NVIDIA paper, Section 5)"},
    {"RTXPRO6000", "sm_120 rtx-pro-6000 rtx50", "hopper-hmma sm120-qmma imma-s8", "NVIDIA", "",
     "Blackwell GB202 (RTX PRO 6000); RTX 50 by architecture"},
    {"MI100", "gfx908 cdna1 cdna", "cdna1", "AMD", "", "CDNA1"},
    {"MI210", "", "cdna2", "AMD", "", "CDNA2"},
    {"MI250", "gfx90a cdna2 mi250x", "cdna2", "AMD", "", "CDNA2"},
    {"MI300A", "", "cdna3", "AMD", "", "CDNA3"},
    {"MI300X", "gfx942 cdna3 mi300", "cdna3", "AMD", "", "CDNA3"},
};

std::string lower(std::string_view s) {
  std::string out;
  for (char ch : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

bool in_list(std::string_view list, std::string_view word) {
  std::istringstream is{std::string(list)};
  std::string w;
  while (is >> w)
    if (lower(w) == word) return true;
  return false;
}

// A GPU of the papers and the specification: its families' rows, its units.
Model measured(const Gpu& g) {
  Model m;
  for (const ModelRow& r : rows())
    if (in_list(g.families, r.family)) (r.accum == Accumulation::integer ? m.integer : m.rows).push_back(r);
  const auto units = table_units_of(g.name);
  m.scaled.assign(units.begin(), units.end());
  return m;
}

// A variant: its base with its overrides, as custom:base=... makes it, rows
// and units alike. No hardware has it: MMA-Sim checked none of its units.
Model variant(const Gpu& g) {
  Model m = lookup_model(std::string("custom:") + g.overrides);
  for (ScaledUnit& u : m.scaled) {
    u.gpu = g.name;
    u.hw_checked = false;
  }
  return m;
}

}  // namespace

const std::vector<ModelRow>& rows() {
  static const std::vector<ModelRow> kRows = build_rows();
  return kRows;
}

const std::vector<Gpu>& gpus() { return kGpus; }

std::optional<Model> gpu_model(std::string_view name) {
  const std::string want = lower(name);
  for (const Gpu& g : kGpus) {
    if (lower(g.name) != want && !in_list(g.aliases, want)) continue;
    Model m = *g.overrides ? variant(g) : measured(g);
    m.name = g.name;
    m.gpu = &g;
    return m;
  }
  return std::nullopt;
}

std::string valid_model_names() {
  std::string s;
  for (const Gpu& g : kGpus) {
    if (!s.empty()) s += ", ";
    s += g.name;
  }
  return s + ", custom:base=<model>,<key>=<value>,..., <model>@<instruction>";
}

const ModelRow* Model::find(Fmt in, Fmt out) const {
  for (const ModelRow& r : rows)
    if (r.in == in && r.out == out && r.gemm_default) return &r;
  return nullptr;
}

const ModelRow* Model::find_integer(Fmt a, Fmt b, Fmt out) const {
  for (const ModelRow& r : integer)
    if (r.in == a && r.in_b == b && r.out == out && r.gemm_default) return &r;
  return nullptr;
}

const ModelRow& Model::require_integer(Fmt a, Fmt b, Fmt out) const {
  if (const ModelRow* r = find_integer(a, b, out)) return *r;
  std::string valid;
  for (const ModelRow& r : integer)
    if (r.gemm_default) valid += (valid.empty() ? "" : ", ") + formats_of(r);
  throw std::invalid_argument(name + " has no integer unit for " + info(a).name + " x " + info(b).name + "->" +
                              info(out).name + "; its integer units: " + (valid.empty() ? "none" : valid) +
                              " (docs/models.md, Integer units)");
}

std::string formats_of(const ModelRow& row) {
  const std::string ab = row.in_b == row.in && !info(row.in).is_integer()
                             ? info(row.in).name
                                            : std::string(info(row.in).name) + " x " + info(row.in_b).name;
  return ab + "->" + info(row.out).name;
}

const ModelRow* Model::find_data_source(Fmt in, Fmt out) const {
  for (const ModelRow& r : rows)
    if (r.in == in && r.out == out && r.data_source) return &r;
  return find(in, out);
}

const ModelRow* Model::find_instr(std::string_view instr, Fmt in, Fmt out) const {
  // WMMA lowers to the same HMMA instructions as mma.sync.
  const std::string want = lower(instr) == "wmma" ? "mma.sync" : lower(instr);
  for (const ModelRow& r : rows)
    if (r.in == in && r.out == out && lower(r.instr) == want) return &r;
  for (const ModelRow& r : rows)
    if (r.in == in && r.out == out && lower(r.instr).rfind(want, 0) == 0) return &r;
  return nullptr;
}

}  // namespace mmaemu
