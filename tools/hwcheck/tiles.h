// SPDX-License-Identifier: BSD-3-Clause
// Instructions, tile shapes, and the packing of samples into device tiles.
//
// A device tile of one instruction is stored as
//   A: M x K elements, row-major (row m holds a's K values in natural k order)
//   B: N x K elements, column n's K values contiguous (K-major, "col")
//   C: M x N fp32, row-major;  D: M x N results, row-major
// and one warp (mma.sync, wmma) or warpgroup (wgmma) computes D = A*B + C.
// Elements are the format's encodings, little-endian, info(f).elem_bytes
// each (fp16/bf16 2, tf32 4 = the fp32 pattern, e4m3/e5m2 1).
//
// Packing "diagonal": sample s of a tile sits in row s of A, column s of B
// and C[s][s]; its result is D[s][s]; every other element is +0, so one
// instruction yields min(M, N) independent samples. Packing "single": one
// sample per tile in row 0 / column 0, as the public data were produced.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "ensemble.h"
#include "formats.h"

namespace mmaemu::hwcheck {

enum class Instr : uint8_t { mma_sync, wmma, wgmma };
inline constexpr Instr kAllInstrs[] = {Instr::mma_sync, Instr::wmma, Instr::wgmma};
/// "mma.sync", "wmma", "wgmma": the first line of instruction.txt.
const char* instr_name(Instr i);
bool parse_instr(const std::string& s, Instr& out);

enum class OutType : uint8_t { fp32, fp16 };
const char* out_name(OutType o);

struct Shape {
  int m, n, k;
};

/// mma.sync: fp16, bf16, tf32, e4m3, e5m2; wmma: fp16, bf16, tf32; wgmma: e4m3, e5m2.
bool supported(Instr i, InFmt f);
/// mma.sync m16n8k16 (fp16, bf16), m16n8k8 (tf32), m16n8k32 (fp8);
/// wmma 16x16x16 (fp16, bf16), 16x16x8 (tf32); wgmma m64n8k32 (fp8).
Shape shape_of(Instr i, InFmt f);
/// fp16 and fp8 inputs: fp32 and fp16 results; bf16, tf32: fp32.
std::vector<OutType> outputs_of(Instr i, InFmt f);
/// Whether a device of compute capability cc (e.g. 90) runs the instruction:
/// wmma fp16 >= 70; wmma bf16/tf32 and mma.sync fp16/bf16/tf32 >= 80;
/// mma.sync fp8 >= 89; wgmma only on 90 (sm_90a).
bool runs_on(Instr i, InFmt f, int cc);

enum class Packing : uint8_t { diagonal, single };
const char* packing_name(Packing p);
int samples_per_tile(Shape s, Packing p);

struct TileBatch {
  Shape shape{0, 0, 0};
  InFmt fmt = InFmt::fp16;
  size_t tiles = 0;
  std::vector<uint8_t> a, b;  // tiles * M*K, tiles * N*K elements
  std::vector<float> c;       // tiles * M*N
  size_t a_tile_bytes() const { return static_cast<size_t>(shape.m) * shape.k * info(fmt).elem_bytes; }
  size_t b_tile_bytes() const { return static_cast<size_t>(shape.n) * shape.k * info(fmt).elem_bytes; }
  size_t c_tile_elems() const { return static_cast<size_t>(shape.m) * shape.n; }
  /// fp32 bit pattern of A[tile][row][k] (decoded back from the encoding).
  uint32_t a_at(size_t tile, int row, int k) const;
  uint32_t b_at(size_t tile, int k, int col) const;
};

/// Packs the ensemble (its k must equal shape.k); throws if an input is not
/// representable in the ensemble's format.
TileBatch pack(const Ensemble& e, Shape s, Packing p);
/// Results of the samples, in ensemble order, from D tiles (tiles*M*N fp32
/// bit patterns, row-major per tile).
std::vector<uint32_t> unpack(const std::vector<uint32_t>& d, Shape s, Packing p, size_t n);
/// fp16 result bits -> fp32 bit patterns of the same values.
std::vector<uint32_t> widen_fp16(const std::vector<uint16_t>& d);

/// Layout probe: full tiles of small integers (a, b in [-7, 7], c in
/// [-64, 64]) whose every D element is an integer below 2048 in magnitude,
/// hence exact in fp16 and fp32 whatever the rounding and the order of the
/// additions. A wrong fragment mapping shows up as a wrong D element.
TileBatch make_probe(InFmt f, Shape s, size_t tiles, uint64_t seed);
/// Exact D = A*B + C of every tile element (tiles*M*N values).
std::vector<double> probe_expected(const TileBatch& t);
/// Number of D elements that differ from probe_expected; the first few are
/// described in *report.
size_t probe_mismatches(const TileBatch& t, const std::vector<uint32_t>& d, std::string* report);

}  // namespace mmaemu::hwcheck
