// SPDX-License-Identifier: BSD-3-Clause
#include "models/scaled_units.h"

#include <array>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "models/model.h"

namespace mmaemu {
namespace {

constexpr ScaledAlgo T = ScaledAlgo::t_fdpa, ST = ScaledAlgo::st_fdpa, GST = ScaledAlgo::gst_fdpa;
constexpr Round RZ = Round::rz, RNE = Round::rne;
constexpr NarrowSubnormals CLAMP = NarrowSubnormals::clamp;
constexpr Fmt NONE = Fmt::fp32, UE8 = Fmt::ue8m0, UE4 = Fmt::ue4m3;

// docs/block-scaled.md §2. B200: tcgen05.mma (sm_100a); RTXPRO6000:
// mma.sync (sm_120a). hw = MMA-Sim compared the instruction with hardware
// (T/ST rows: for e4m3 and e5m2 elements only). The fp16 e_zero of mma.sync
// (-22) is never observable (§3.6).
constexpr std::array kTable = std::to_array<ScaledUnit>({
 // gpu           instruction                                     algo elements  scale blk  k grp  F  e_zero  f16   outputs  rnd32 rnd16   m n_min n_max step  hw     subnormals
 {"B200",       "tcgen05.mma.kind::f8f6f4",                       T,   kF8F6F4,  NONE,  0, 32,  0, 25, -133, -133, kF32F16, RZ,  RNE,  64,  8, 256, 8, true,  CLAMP},
 {"B200",       "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0",       ST,  kF8F6F4,  UE8,  32, 32,  0, 25, -133,    0, kF32,    RZ,  RNE, 128,  8, 256, 8, true,  CLAMP},
 {"B200",       "tcgen05.mma.kind::mxf4.block32.ue8m0",           GST, kFp4Only, UE8,  32, 64, 16, 35, -139,    0, kF32,    RZ,  RNE, 128,  8, 256, 8, true,  CLAMP},
 {"B200",       "tcgen05.mma.kind::mxf4nvf4.block32.ue8m0",       GST, kFp4Only, UE8,  32, 64, 16, 35, -139,    0, kF32,    RZ,  RNE, 128,  8, 256, 8, true,  CLAMP},
 {"B200",       "tcgen05.mma.kind::mxf4nvf4.block16.ue8m0",       GST, kFp4Only, UE8,  16, 64, 16, 35, -139,    0, kF32,    RZ,  RNE, 128,  8, 256, 8, true,  CLAMP},
 {"B200",       "tcgen05.mma.kind::mxf4nvf4.block16.ue4m3",       GST, kFp4Only, UE4,  16, 64, 16, 35, -139,    0, kF32,    RZ,  RNE, 128,  8, 256, 8, true,  CLAMP},
 {"RTXPRO6000", "mma.sync.kind::f8f6f4",                          T,   kF8F6F4,  NONE,  0, 32,  0, 25, -133,  -22, kF32F16, RZ,  RNE,  16,  8,   8, 8, true,  CLAMP},
 {"RTXPRO6000", "mma.sync.kind::mxf8f6f4.block32.ue8m0",          ST,  kF8F6F4,  UE8,  32, 32,  0, 25, -133,    0, kF32,    RZ,  RNE,  16,  8,   8, 8, true,  CLAMP},
 {"RTXPRO6000", "mma.sync.kind::mxf4.block32.ue8m0",              GST, kFp4Only, UE8,  32, 64, 16, 35, -139,    0, kF32,    RZ,  RNE,  16,  8,   8, 8, true,  CLAMP},
 {"RTXPRO6000", "mma.sync.kind::mxf4nvf4.block32.ue8m0",          GST, kFp4Only, UE8,  32, 64, 16, 35, -139,    0, kF32,    RZ,  RNE,  16,  8,   8, 8, true,  CLAMP},
 {"RTXPRO6000", "mma.sync.kind::mxf4nvf4.block16.ue8m0",          GST, kFp4Only, UE8,  16, 64, 16, 35, -139,    0, kF32,    RZ,  RNE,  16,  8,   8, 8, false, CLAMP},
 {"RTXPRO6000", "mma.sync.kind::mxf4nvf4.block16.ue4m3",          GST, kFp4Only, UE4,  16, 64, 16, 35, -139,    0, kF32,    RZ,  RNE,  16,  8,   8, 8, true,  CLAMP},
 {"RTXPRO6000", "mma.sync.kind::mxf4nvf4.block32.ue4m3",          GST, kFp4Only, UE4,  32, 64, 16, 35, -139,    0, kF32,    RZ,  RNE,  16,  8,   8, 8, false, CLAMP},
});

// The rows of one GPU, adjacent in the table and in the registry's list.
std::span<const ScaledUnit> rows_of(std::span<const ScaledUnit> rows, std::string_view gpu) {
  size_t first = rows.size(), count = 0;
  for (size_t i = 0; i < rows.size(); ++i)
    if (gpu == rows[i].gpu) {
      if (count == 0) first = i;
      ++count;
    }
  return rows.subspan(first, count);
}

std::string instructions_of(std::string_view gpu) {
  std::string s;
  for (const ScaledUnit& u : scaled_units_of(gpu)) s += (s.empty() ? "" : ", ") + std::string(u.instruction);
  return s;
}

std::string models_with_units() {
  std::string s;
  for (const ScaledUnit& u : scaled_units())
    if (s.find(u.gpu) == std::string::npos) s += (s.empty() ? "" : ", ") + std::string(u.gpu);
  return s;
}

ScaledAlgo algo_for(Fmt fa, Fmt fb, bool scaled, UnitChoice choice) {
  const bool fp4 = fa == Fmt::e2m1 && fb == Fmt::e2m1;
  switch (choice) {
    case UnitChoice::t: return T;
    case UnitChoice::st: return ST;
    case UnitChoice::gst: return GST;
    case UnitChoice::automatic: break;
  }
  if (!scaled) return T;
  return fp4 ? GST : ST;  // GST is the native fp4 path (docs/block-scaled.md §4.5)
}

}  // namespace

std::span<const ScaledUnit> table_units_of(std::string_view gpu) { return rows_of(kTable, gpu); }

std::span<const ScaledUnit> scaled_units() {
  static const std::vector<ScaledUnit> all = [] {  // in the order of the registry's GPUs
    std::vector<ScaledUnit> v;
    for (const Gpu& g : gpus()) {
      const std::vector<ScaledUnit> units = gpu_model(g.name)->scaled;
      v.insert(v.end(), units.begin(), units.end());
    }
    return v;
  }();
  return all;
}

std::span<const ScaledUnit> scaled_units_of(std::string_view gpu) { return rows_of(scaled_units(), gpu); }

const ScaledUnit& scaled_unit(std::string_view gpu, std::string_view instruction) {
  for (const ScaledUnit& u : scaled_units_of(gpu))
    if (instruction == u.instruction) return u;
  if (scaled_units_of(gpu).empty())
    throw std::invalid_argument("model " + std::string(gpu) +
                                " has no block-scaled or fp4/fp6 unit (models that have: " + models_with_units() + ")");
  throw std::invalid_argument("model " + std::string(gpu) + " has no instruction '" +
                              std::string(instruction) + "' (valid: " + instructions_of(gpu) + ")");
}

const ScaledUnit& select_scaled_unit(std::string_view gpu, Fmt fa, Fmt fb, bool scaled, Fmt scale,
                                     int block, UnitChoice choice) {
  return select_scaled_unit(gpu, scaled_units_of(gpu), fa, fb, scaled, scale, block, choice);
}

const ScaledUnit& select_scaled_unit(std::string_view gpu, std::span<const ScaledUnit> units, Fmt fa, Fmt fb,
                                     bool scaled, Fmt scale, int block, UnitChoice choice) {
  if (units.empty())
    throw std::invalid_argument("model " + std::string(gpu) +
                                " has no block-scaled or fp4/fp6 unit (models that have: " + models_with_units() + ")");
  const ScaledAlgo want = algo_for(fa, fb, scaled, choice);
  if ((want == T) == scaled)
    throw std::invalid_argument(std::string("the ") + algo_name(want) + " unit " +
                                (scaled ? "takes no scales" : "needs block scales"));
  std::string instructions;
  for (const ScaledUnit& u : units) {
    instructions += (instructions.empty() ? "" : ", ") + std::string(u.instruction);
    if (u.algo != want || !(u.elements & fmt_bit(fa)) || !(u.elements & fmt_bit(fb))) continue;
    if (scaled && (u.scale != scale || u.block != block)) continue;
    return u;
  }
  std::string what = std::string(algo_name(want)) + " unit for " + info(fa).name + " x " + info(fb).name;
  if (scaled) what += " with " + std::string(info(scale).name) + " scales per " + std::to_string(block);
  throw std::invalid_argument("model " + std::string(gpu) + " has no " + what + " (its units: " + instructions +
                              ")");
}

int e_zero_for(const ScaledUnit& u, Fmt out) {
  if (!(u.outputs & fmt_bit(out)))
    throw std::invalid_argument(std::string(u.instruction) + " has no " + info(out).name + " output");
  return out == Fmt::fp16 ? u.e_zero_f16 : u.e_zero;
}

const char* algo_name(ScaledAlgo a) {
  switch (a) {
    case ScaledAlgo::t_fdpa: return "T-FDPA";
    case ScaledAlgo::st_fdpa: return "ST-FDPA";
    case ScaledAlgo::gst_fdpa: return "GST-FDPA";
  }
  return "?";
}

}  // namespace mmaemu
