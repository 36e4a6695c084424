// SPDX-License-Identifier: BSD-3-Clause
// Shared helpers of the engine tests (tests/kernels, tests/driver): the
// seed and scale from the environment, hex printing, random bit patterns of
// a format, and every row the differential tests cover (the registry's and
// a few custom variants).
//
//   MMAEMU_TEST_SEED   the random seed (default 20261130)
//   MMAEMU_DIFF_SCALE  multiplies the sample counts (default 1; 100: `full`)
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "common/hex.h"
#include "formats/format.h"
#include "models/model.h"

namespace mmaemu::test {

inline uint64_t env_u64(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}
inline const uint64_t kSeed = env_u64("MMAEMU_TEST_SEED", 20261130);
// A factor on the differential tests' sample counts: 100 in the full sweeps,
// 0.25 for the slowest under the sanitizers (mmaemu_scaled_sweep, tests/CMakeLists.txt).
inline const double kScale = [] {
  const char* v = std::getenv("MMAEMU_DIFF_SCALE");
  return v && *v ? std::strtod(v, nullptr) : 1.0;
}();

// Random bit patterns of a format: every exponent (subnormals, zero, the
// top binade), both signs, a few Inf/NaN; with `narrow`, exponents within a
// few binades of each other so that sums cancel and carries ripple.
struct Gen {
  std::mt19937_64 rng;
  explicit Gen(uint64_t seed) : rng(seed) {}
  uint64_t bits(Fmt f, bool narrow, int centre) {
    const FormatInfo& fi = info(f);
    if (fi.is_integer()) return int_bits(f);
    const uint64_t r = rng();
    const int kind = static_cast<int>(r % 100);
    const uint64_t sign = (r >> 8) & 1;
    const uint64_t frac = (rng() & ((1ull << fi.man_bits) - 1)) << fi.frac_shift;
    const int max_e = (1 << fi.exp_bits) - 1;
    uint64_t e;
    if (kind < 2) return rng() & ((fi.width == 64) ? ~0ull : (1ull << fi.width) - 1);  // anything
    if (kind < 7) e = 0;                                                               // zero/subnormal
    else if (narrow) e = static_cast<uint64_t>(std::clamp(centre + static_cast<int>(rng() % 5) - 2, 1, max_e - 1));
    else e = 1 + rng() % static_cast<uint64_t>(max_e - 1);
    if (kind < 5 && e == 0) return (sign << (fi.width - 1));  // signed zero
    return (sign << (fi.width - 1)) | (e << (fi.man_bits + fi.frac_shift)) | frac;
  }
  // An integer format's code: a third of them the extremes (s8: -128,
  // 127, 0, -1; u8: 0, 255, 1; s32: near MIN_INT32 and MAX_INT32, so that
  // sums wrap or clamp), the rest uniform.
  uint64_t int_bits(Fmt f) {
    const FormatInfo& fi = info(f);
    const uint64_t mask = fi.width == 64 ? ~0ull : (1ull << fi.width) - 1, r = rng();
    const uint64_t top = 1ull << (fi.width - 1);  // the sign bit's code
    const bool s = fi.integer == IntKind::twos_complement;
    switch (r % 9) {
      case 0: return s ? top : 0;                               // the least: -2^(w-1) or 0
      case 1: return s ? top - 1 : mask;                        // the largest
      case 2: return (s ? top - 1 - (rng() % 64) : mask - rng() % 64) & mask;  // near the largest
      case 3: return (s ? top + rng() % 64 : rng() % 4) & mask;                  // near the least
      default: return rng() & mask;
    }
  }
};

inline bool is_integer_row(const ModelRow& r) { return r.accum == Accumulation::integer; }

// Every GPU's rows and some custom variants, for the engine tests, the
// integer units (Model::integer, docs/models.md §11) last, with their
// satfinite variants (sat_point instruction and addition). Tests of the
// floating-point machinery alone skip them (is_integer_row). Each distinct
// integer unit (family, instruction, formats, k) once.
inline std::vector<std::pair<std::string, ModelRow>> all_rows() {
  std::vector<std::pair<std::string, ModelRow>> v;
  for (const Gpu& g : gpus()) {
    const Model m = *gpu_model(g.name);
    for (const ModelRow& r : m.rows) v.push_back({std::string(g.name) + " " + r.instr, r});
  }
  // Variants the registry does not hold.
  for (const char* spec : {"custom:base=MI300X,late_rd=single_stage", "custom:base=H100,round=rd",
                           "custom:base=A100,round=ru,floor=none", "custom:base=MI250,flush_sign=keep",
                           "custom:base=V100,zero_c=-126,in_sub=0,out_sub=0,product=normalised",
                           // the alternatives of docs/models.md §9
                           "custom:base=A100,out=fp16,floor=-21,sub_c=lead", "custom:base=L40S,sub_c=lead",
                           "custom:base=MI300X,ovf_inf=inputs_first", "custom:base=MI250,neg_zero=positive"})
  {
    const Model m = lookup_model(spec);
    for (const ModelRow& r : m.rows) v.push_back({std::string(spec) + " " + r.instr, r});
  }
  // The GPUs share their integer units: each distinct one once (the first GPU's name).
  std::vector<std::string> seen;
  for (const Gpu& g : gpus()) {
    const Model m = *gpu_model(g.name);
    for (const ModelRow& r : m.integer) {
      const std::string key = std::string(r.family) + " " + r.instr + " " + info(r.in).name + info(r.in_b).name +
                              std::to_string(r.k) + (r.has_satfinite ? "" : " wrap only");
      if (std::find(seen.begin(), seen.end(), key) != seen.end()) continue;
      seen.push_back(key);
      const std::string name = std::string(g.name) + " " + r.instr + " " + info(r.in).name + "x" + info(r.in_b).name;
      v.push_back({name, r});
      if (!r.has_satfinite) continue;
      ModelRow sat = r;
      sat.overflow = IntOverflow::satfinite;
      v.push_back({name + " satfinite", sat});
      sat.sat_point = SatPoint::addition;
      v.push_back({name + " satfinite,sat_point=addition", sat});
    }
  }
  return v;
}

}  // namespace mmaemu::test
