// SPDX-License-Identifier: BSD-3-Clause
// The model registry: every matrix-unit row of the two papers as data.
//
// Sources (see ../shared/spec/model-spec.md): §1.2 main table, §1.4 rows the
// toolbox lacks, §2.12 the interleaved HMMA fp8 path, §7 what not to copy.
// A field left out of a row keeps the default of ModelRow (model.h), which is
// the NVIDIA tensor-core behaviour; AMD rows spell out their differences.
#include <algorithm>
#include <cctype>
#include <sstream>
#include <stdexcept>

#include "models/model.h"

namespace mmaemu {
namespace {

constexpr uint32_t kAmdNan32 = 0xFFC00000u;  // PA: -NaN on every CDNA generation
constexpr uint16_t kAmdNan16 = 0xFE00;

// NVIDIA HMMA/QMMA rows: aligned sum, c early, denormalised products,
// RZ for fp32 results and RNE for fp16 results.
ModelRow nv(const char* family, const char* instr, Fmt in, Fmt out, int m, int n, int k,
            int block, int frac, int floor) {
  ModelRow r;
  r.family = family;
  r.instr = instr;
  r.in = in;
  r.out = out;
  r.m = m;
  r.n = n;
  r.k = k;
  r.block = block;
  r.frac_bits = frac;
  r.align_floor = floor;
  r.final_round = out == Fmt::fp16 ? Round::rne : Round::rz;
  return r;
}

// IEEE FMA chains: fp32 MFMA (SFMA) and fp64 DMMA / f64 MFMA (spec §2.11).
ModelRow fma_chain(const char* family, const char* instr, Fmt f, int m, int n, int k,
                   bool amd) {
  ModelRow r;
  r.family = family;
  r.instr = instr;
  r.in = f;
  r.out = f;
  r.m = m;
  r.n = n;
  r.k = k;
  r.accum = Accumulation::fma_chain;
  r.final_round = Round::rne;
  r.product = ProductForm::normalised;
  if (amd) {
    r.nan32 = kAmdNan32;
    r.nan16 = kAmdNan16;
  }
  return r;
}

ModelRow amd(ModelRow r) {
  r.nan32 = kAmdNan32;
  r.nan16 = kAmdNan16;
  r.final_round = Round::rne;
  return r;
}

template <typename F>
ModelRow with(ModelRow r, F&& edit) {
  edit(r);
  return r;
}

std::vector<ModelRow> build_rows() {
  using enum Fmt;
  std::vector<ModelRow> v;
  auto add = [&](ModelRow r) { v.push_back(r); };

  // --- Volta (V100), HMMA.884: N 4, F 23, no floor for fp32 (§1.2 rows 1-2).
  add(nv("volta-hmma", "mma.sync", fp16, fp32, 8, 8, 4, 4, 23, kNoFloor));
  add(nv("volta-hmma", "mma.sync", fp16, fp16, 8, 8, 4, 4, 23, -19));

  // --- Ampere and Ada HMMA: N 8 (tf32 4), F 24, floors -132 / -20 (rows 3-10).
  add(nv("ampere-hmma", "mma.sync", fp16, fp32, 16, 8, 16, 8, 24, -132));
  add(nv("ampere-hmma", "mma.sync", fp16, fp16, 16, 8, 16, 8, 24, -20));
  add(nv("ampere-hmma", "mma.sync", bf16, fp32, 16, 8, 16, 8, 24, -132));
  add(nv("ampere-hmma", "mma.sync", tf32, fp32, 16, 8, 8, 4, 24, -132));

  // --- Ada QMMA fp8: N 16, F 13 (neab -10), fp32 results keep 13 fraction
  // bits; fp16 results: same sum, RNE to fp16 per 16-block (rows 11-12, the
  // toolbox's 0-fraction-bit fp16 output is a defect, spec §2.5).
  for (Fmt in : {e4m3, e5m2}) {
    add(with(nv("ada-qmma", "mma.sync", in, fp32, 16, 8, 32, 16, 13, -132),
             [](ModelRow& r) { r.out_frac_bits = 13; }));
    add(nv("ada-qmma", "mma.sync", in, fp16, 16, 8, 32, 16, 13, -132));
  }

  // --- Hopper and Blackwell HMMA: N 16 (tf32 8), F 25, floors -133 / -21
  // (rows 13-16, 19-22).
  add(nv("hopper-hmma", "mma.sync", fp16, fp32, 16, 8, 16, 16, 25, -133));
  add(nv("hopper-hmma", "mma.sync", fp16, fp16, 16, 8, 16, 16, 25, -21));
  add(nv("hopper-hmma", "mma.sync", bf16, fp32, 16, 8, 16, 16, 25, -133));
  add(nv("hopper-hmma", "mma.sync", tf32, fp32, 16, 8, 8, 8, 25, -133));

  // --- Hopper wgmma fp8 (QGMMA): N 32, F 13, 13-bit fp32 results (row 17).
  // The public H100/H200 fp8->fp32 data were made with scale-d = 0 (D = A*B),
  // spec §4.1; that variant is its own row.
  for (Fmt in : {e4m3, e5m2}) {
    add(with(nv("hopper-wgmma", "wgmma", in, fp32, 64, 8, 32, 32, 13, -133), [](ModelRow& r) {
      r.out_frac_bits = 13;
      r.data_source = false;
    }));
    add(with(nv("hopper-wgmma", "wgmma.scale-d=0", in, fp32, 64, 8, 32, 32, 13, -133),
             [](ModelRow& r) {
               r.out_frac_bits = 13;
               r.ignores_c = true;
               r.gemm_default = false;
               r.note = "D = A*B: the accumulator is not read";
             }));
    add(with(nv("hopper-wgmma", "wgmma", in, fp16, 64, 8, 32, 32, 13, -133),
             [](ModelRow& r) { r.data_source = false; }));
  }

  // --- fp8 mma.sync on Hopper and B200: converted to fp16 and run as two
  // HMMA.16816 on interleaved pairs, c added last by RNE (spec §2.12).
  for (Fmt in : {e4m3, e5m2}) {
    for (Fmt out : {fp32, fp16}) {
      add(with(nv("hmma-fp8", "mma.sync", in, out, 16, 8, 32, 16, 25, out == fp32 ? -133 : -21),
               [&](ModelRow& r) {
                 r.inputs_as_fp16 = true;
                 r.grouping = Grouping::pair_interleave;
                 r.c_entry = CEntry::late_rne;
                 r.gemm_default = false;
               }));
    }
  }

  // --- Blackwell fp8: tcgen05 (UTCQMMA) on B200 and mma.sync (QMMA) on
  // RTX PRO 6000: N 32, F 25 (row 23; fp16 output RNE per PN Tab. 3).
  for (Fmt in : {e4m3, e5m2}) {
    add(with(nv("tcgen05-fp8", "tcgen05.mma", in, fp32, 128, 8, 32, 32, 25, -133),
             [](ModelRow& r) { r.data_source = false; }));
    add(with(nv("tcgen05-fp8", "tcgen05.mma", in, fp16, 128, 8, 32, 32, 25, -21),
             [](ModelRow& r) { r.data_source = false; }));
    add(nv("sm120-qmma", "mma.sync", in, fp32, 16, 8, 32, 32, 25, -133));
    add(nv("sm120-qmma", "mma.sync", in, fp16, 16, 8, 32, 32, 25, -21));
  }

  // --- NVIDIA fp64 DMMA: a chain of binary64 FMAs.
  add(fma_chain("ampere-dmma", "mma.sync", fp64, 8, 8, 4, false));

  // --- CDNA1 (MI100): exact sum of a block and c, one RNE (row 27-28).
  {
    ModelRow r = amd(ModelRow{});
    r.family = "cdna1";
    r.accum = Accumulation::exact;
    r.product = ProductForm::normalised;
    r.instr = "v_mfma_f32_16x16x16f16";
    r.in = fp16, r.m = 16, r.n = 16, r.k = 16, r.block = 4;
    add(r);
    r.instr = "v_mfma_f32_16x16x8bf16";
    r.in = bf16, r.k = 8, r.block = 2;
    add(r);
  }
  add(fma_chain("cdna1", "v_mfma_f32_16x16x4f32", fp32, 16, 16, 4, true));

  // --- CDNA2 (MI210/MI250): products rounded to fp32, pairwise fp32 tree,
  // c added last, no subnormals in or out (rows 29-30).
  {
    ModelRow r = amd(ModelRow{});
    r.family = "cdna2";
    r.accum = Accumulation::pairwise;
    r.product = ProductForm::fp32_rne;
    r.c_entry = CEntry::last;
    r.in_subnormals = false;
    r.out_subnormals = false;
    r.product_overflow = true;
    r.instr = "v_mfma_f32_16x16x16f16";
    r.in = fp16, r.m = 16, r.n = 16, r.k = 16, r.block = 4, r.pair_group = 4;
    add(r);
    r.instr = "v_mfma_f32_16x16x16bf16_1k";
    r.in = bf16;
    add(r);
    r.instr = "v_mfma_f32_16x16x8bf16";
    r.k = 8, r.block = 2, r.pair_group = 2, r.gemm_default = false, r.data_source = false;
    r.note = "pre-_1k bf16 instruction: pairs of 2";
    add(r);
  }
  add(fma_chain("cdna2", "v_mfma_f32_16x16x4f32", fp32, 16, 16, 4, true));
  add(fma_chain("cdna2", "v_mfma_f64_16x16x4f64", fp64, 16, 16, 4, true));

  // --- CDNA3 (MI300A/X): products aligned (F 24), c added late with the
  // two-stage round-down of PA Algorithm 1; fp8 in odd/even groups with the
  // 25-binade c cut-off (rows 31-33).
  {
    ModelRow r = amd(ModelRow{});
    r.family = "cdna3";
    r.c_entry = CEntry::late_rd;
    r.late_rd = LateRd::two_stage;
    r.frac_bits = 24;
    r.zero_c_is_term = true;
    r.zero_c_exp = -126;
    r.late_exact_zero_c = true;
    r.product_overflow = true;
    r.instr = "v_mfma_f32_16x16x16_f16";
    r.in = fp16, r.m = 16, r.n = 16, r.k = 16, r.block = 8;
    add(r);
    r.instr = "v_mfma_f32_16x16x16_bf16";
    r.in = bf16;
    add(r);
    r.instr = "v_mfma_f32_16x16x8_xf32";
    r.in = tf32, r.k = 8, r.block = 4;
    add(r);
    r.grouping = Grouping::odd_even;
    r.late_c_cutoff = 25;
    r.block = 16, r.k = 32;
    r.instr = "v_mfma_f32_16x16x32_fp8_fp8";
    r.in = e4m3fnuz;
    add(r);
    r.instr = "v_mfma_f32_16x16x32_bf8_bf8";
    r.in = e5m2fnuz;
    add(r);
  }
  add(fma_chain("cdna3", "v_mfma_f32_16x16x4_f32", fp32, 16, 16, 4, true));
  add(fma_chain("cdna3", "v_mfma_f64_16x16x4_f64", fp64, 16, 16, 4, true));
  return v;
}

const std::vector<Gpu> kGpus = {
    {"V100", "sm_70 volta", "volta-hmma", "NVIDIA", "", "Volta"},
    {"A100", "sm_80 ampere", "ampere-hmma ampere-dmma", "NVIDIA", "", "Ampere"},
    {"A2", "sm_86", "ampere-hmma", "NVIDIA", "", "Ampere GA107 (no fp64 tensor cores)"},
    {"A30", "", "ampere-hmma ampere-dmma", "NVIDIA", "", "Ampere"},
    {"L40S", "sm_89", "ampere-hmma ada-qmma", "NVIDIA", "", "Ada Lovelace"},
    {"RTX1000", "ada rtx1000ada", "ampere-hmma ada-qmma", "NVIDIA", "", "Ada Lovelace (RTX 1000 Ada)"},
    {"H100", "sm_90 sm_90a hopper", "hopper-hmma hopper-wgmma hmma-fp8 ampere-dmma", "NVIDIA", "",
     "Hopper"},
    {"H200", "", "hopper-hmma hopper-wgmma hmma-fp8 ampere-dmma", "NVIDIA", "", "Hopper"},
    {"B200", "sm_100 sm_100a blackwell", "hopper-hmma tcgen05-fp8 hmma-fp8 ampere-dmma", "NVIDIA",
     "", "Blackwell"},
    {"B200-RN", "b200rn b200tcrn", "hopper-hmma tcgen05-fp8 hmma-fp8 ampere-dmma", "NVIDIA",
     "round=rne", "hypothetical B200 with round-to-nearest-even results (PN §5)"},
    {"RTXPRO6000", "sm_120 rtx-pro-6000", "hopper-hmma sm120-qmma", "NVIDIA", "",
     "Blackwell (RTX PRO 6000)"},
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
    Model m;
    m.name = g.name;
    m.gpu = &g;
    for (const ModelRow& r : rows())
      if (in_list(g.families, r.family)) {
        ModelRow row = r;
        apply_overrides(row, g.overrides);
        m.rows.push_back(row);
      }
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
