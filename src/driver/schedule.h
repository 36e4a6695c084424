// SPDX-License-Identifier: BSD-3-Clause
// GEMM schedules: how a GPU library above the matrix unit combines the
// unit's partial sums over k (docs/schedules.md).
//
//   chain            one unit accumulator along all of k (driver::gemm)
//   promote:P        k in consecutive pieces of P (a multiple of the
//                    instruction k); each piece on the unit from +0; a main
//                    accumulator adds the pieces in k order, one binary32
//                    RNE addition each (CUTLASS's mma_promotion_interval,
//                    DeepGEMM's promotion every 128)
//   splitk:S         k in S contiguous slices (first slices ceil(k/S) rounded
//                    up to the instruction k, the last takes the rest, empty
//                    slices dropped); each slice on the unit from +0; slices
//                    added in order: ((init + s0) + s1) + ...
//   splitk:S:tree    the same, slices reduced as a pairwise tree
//                    (stride-doubling: s0+s1, s2+s3, ...; then (s0+s1)+(s2+s3);
//                    an odd slice waits for the next level): init + tree
//   splitk:S,promote:P  nesting: split outside, promotion inside each slice
//                    (pieces of P from the slice's start, summed from +0 in
//                    the slice's own binary32 accumulator), then the slices
//                    reduced as above.
//
// The main accumulator is binary32 (binary64 for an fp64 unit). Its initial
// value `init` is +0, or beta*C rounded once in accumulate-into-C mode (the
// unit then starts every piece from +0). The epilogue is the driver's:
// gpu-blas D = fma(alpha, main, beta*C), into-C D = alpha*main.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "driver/gemm.h"

namespace mmaemu::driver {

struct Schedule {
  std::size_t split = 0;    // splitk:S slices (0: no split)
  bool tree = false;        // splitk:S:tree
  std::size_t promote = 0;  // promote:P interval (0: no promotion)

  bool is_chain() const { return split == 0 && promote == 0; }
};

/// Parses "chain", "promote:P", "splitk:S", "splitk:S:tree", or a
/// combination of one splitk and one promote joined by ',' or '+' (any
/// order; '+' where a list of schedules is comma-separated).
/// Throws std::invalid_argument with the valid syntax.
Schedule parse_schedule(const std::string& text);
/// The canonical text ("splitk:2,promote:128").
std::string schedule_name(const Schedule& s);
/// Throws std::invalid_argument unless the schedule fits the unit: P a
/// positive multiple of the instruction k (the message names it).
void check_schedule(const Schedule& s, const ModelRow& row);

/// The slices [k0, k0 + len) of splitk:S over k (instruction k `unit_k`).
struct KRange {
  std::size_t k0, len;
};
std::vector<KRange> split_slices(std::size_t k, std::size_t slices, std::size_t unit_k);

/// driver::gemm under a schedule (same arguments and storage rules; chain
/// and alpha = 0 go to driver::gemm unchanged). check_schedule first.
void scheduled_gemm(const Schedule& s, const GemmSpec& spec, std::size_t m, std::size_t n, std::size_t k,
                    double alpha, const Operand& A, const Operand& B, double beta, Fmt c_storage, void* C,
                    std::ptrdiff_t ldc);

/// The format of the main accumulator: fp64 for an fp64 unit, else fp32.
Fmt main_format(const ModelRow& row);

}  // namespace mmaemu::driver
