// SPDX-License-Identifier: BSD-3-Clause
// The tests' reference GEMM of the block-scaled units (docs/block-scaled.md
// §4): each element's chain on the reference engine (ref::scaled_chain,
// §4.2-§4.3) and the GEMM driver's one epilogue (driver::Epilogue, §4.4:
// alpha_eff = RNE32(alpha*g_a*g_b), gpu-blas or into-c), the epilogue rule
// of both unit kinds. The GEMM vectors of tests/ref pin its bits.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "driver/epilogue.h"
#include "driver/gemm.h"
#include "models/scaled_units.h"
#include "ref/block_scaled.h"

namespace mmaemu::test {

/// How the chain along K starts (as mmaemu_accumulate): from +0 with the
/// epilogue adding beta*C (gpu_blas), or from beta*C (into_c).
enum class ScaledAccumulate : uint8_t { gpu_blas, into_c };

/// One GEMM on the unit, fp32 C and D.
///   A: m rows of k codes, row i at A + i*k;  SA: m rows of k/block codes.
///   B: n columns of k codes, column j at B + j*k;  SB: n columns of k/block.
///   C, D: m x n fp32, row-major; C may be null when it is not read (beta =
///   0), and D may be C.
/// k must be a multiple of the block (T rows: any k); g_a, g_b are the
/// per-tensor decode scales (1 when unused).
struct ScaledGemm {
  const ScaledUnit* unit;
  Fmt fa, fb;
  std::size_t m, n, k;
  const uint8_t* A;
  const uint8_t* SA;
  const uint8_t* B;
  const uint8_t* SB;
  float alpha, beta, g_a, g_b;
  ScaledAccumulate accumulate;
  const float* C;
  float* D;
};

inline void scaled_gemm(const ScaledGemm& g) {
  const ScaledUnit& u = *g.unit;
  if (u.block && g.k % static_cast<std::size_t>(u.block))
    throw std::invalid_argument("k = " + std::to_string(g.k) + " is not a multiple of the scale block " +
                                std::to_string(u.block));
  ref::check_formats(u, g.fa, g.fb, Fmt::fp32);
  const driver::ScaledSpec scaled{&u, g.g_a, g.g_b};
  driver::GemmSpec spec;
  spec.scaled = &scaled;
  spec.accumulate_into_c = g.accumulate == ScaledAccumulate::into_c;
  if (g.beta != 0 && g.D != g.C) std::copy(g.C, g.C + g.m * g.n, g.D);  // the epilogue works on D in place
  const driver::Epilogue ep(spec, g.alpha, g.beta, Fmt::fp32, g.D, static_cast<std::ptrdiff_t>(g.n));
  if (ep.alpha() == 0) return ep.scale_only(g.m, g.n, 1);
  const std::size_t nb = u.block ? g.k / static_cast<std::size_t>(u.block) : 0;
  for (std::size_t i = 0; i < g.m; ++i)
    for (std::size_t j = 0; j < g.n; ++j) {
      const uint32_t acc = static_cast<uint32_t>(
          ref::scaled_chain(u, Fmt::fp32, g.fa, g.fb, g.k, g.A + i * g.k, g.SA ? g.SA + i * nb : nullptr,
                            g.B + j * g.k, g.SB ? g.SB + j * nb : nullptr, ep.initial_acc(i, j)));
      ep.store_row(&acc, i, j, 1);
    }
}

}  // namespace mmaemu::test
