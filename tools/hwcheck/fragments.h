// SPDX-License-Identifier: BSD-3-Clause
// Register-fragment and shared-memory layouts the kernels rely on, as
// (row, column) functions of (lane or thread, element index). Header-only,
// usable from host C++ (tests check they are bijections onto the tile) and
// from CUDA device code.
//
// Sources: PTX ISA, "Matrix Fragments for mma.m16n8k16 with floating point
// type" (9.7.14.5.8), "... mma.m16n8k8" (9.7.14.5.7, .tf32), "... mma.m16n8k32"
// (9.7.14.5.10, .e4m3/.e5m2); wgmma: "Register Fragments" (9.7.15.5.1.1,
// accumulator D of m64nNk32) and "Shared Memory Matrix Layout" (9.7.15.5.1.2,
// K-major, no swizzle, canonical layout ((8,m),(T,2k)):((1T,SBO),(1,LBO))).
// With groupID g = lane >> 2 and threadID_in_group t = lane % 4:
//
//  mma.m16n8k16 f16/bf16  A a0..a7 : row g + 8*((i>>1)&1), col 2t + (i&1) + 8*(i>>2)
//                          B b0..b3 : row(k) 2t + (i&1) + 8*(i>>1), col g
//  mma.m16n8k8  tf32      A a0..a3 : row g + 8*(i&1), col t + 4*(i>>1)
//                          B b0..b1 : row(k) t + 4*i, col g
//  mma.m16n8k32 e4m3/e5m2 A a0..a15: row g + 8*((i>>2)&1), col 4t + (i&3) + 16*(i>>3)
//                          B b0..b7 : row(k) 4t + (i&3) + 16*(i>>2), col g
//  C/D of all three (f32 c0..c3, or f16x2 pairs c0c1, c2c3):
//                          row g + 8*(i>>1), col 2t + (i&1)
//  wgmma m64nNk32 D (thread T of the warpgroup, warp w = T/32, N/2 values):
//                          row 16w + g + 8*((i>>1)&1), col 2t + (i&1) + 8*(i>>2)
//  wgmma smem operand, K-major, no swizzle, 8-bit elements (core matrix =
//  8 rows x 16 bytes, rows 16 bytes apart):
//     byte(row, k) = (row/8)*SBO + (k/16)*LBO + (row%8)*16 + k%16
//
// Elements with lower index sit in the lower bits of a packed register
// (".f16x2", four 8-bit values in a .b32: a0 in bits 0..7).
#pragma once

#if defined(__CUDACC__)
#define MMAEMU_HD __host__ __device__
#else
#define MMAEMU_HD
#endif

namespace mmaemu::hwcheck::frag {

struct RC {
  int row, col;
};

// mma.m16n8k16, .f16/.bf16
MMAEMU_HD constexpr RC a_16816(int lane, int i) {
  return {(lane >> 2) + 8 * ((i >> 1) & 1), 2 * (lane & 3) + (i & 1) + 8 * (i >> 2)};
}
MMAEMU_HD constexpr RC b_16816(int lane, int i) {  // {k, n}
  return {2 * (lane & 3) + (i & 1) + 8 * (i >> 1), lane >> 2};
}
// mma.m16n8k8, .tf32
MMAEMU_HD constexpr RC a_1688_tf32(int lane, int i) {
  return {(lane >> 2) + 8 * (i & 1), (lane & 3) + 4 * (i >> 1)};
}
MMAEMU_HD constexpr RC b_1688_tf32(int lane, int i) { return {(lane & 3) + 4 * i, lane >> 2}; }
// mma.m16n8k32, .e4m3/.e5m2
MMAEMU_HD constexpr RC a_16832(int lane, int i) {
  return {(lane >> 2) + 8 * ((i >> 2) & 1), 4 * (lane & 3) + (i & 3) + 16 * (i >> 3)};
}
MMAEMU_HD constexpr RC b_16832(int lane, int i) {
  return {4 * (lane & 3) + (i & 3) + 16 * (i >> 2), lane >> 2};
}
// C/D of m16n8kX (i = 0..3)
MMAEMU_HD constexpr RC cd_m16n8(int lane, int i) {
  return {(lane >> 2) + 8 * (i >> 1), 2 * (lane & 3) + (i & 1)};
}
// wgmma m64nNk32 accumulator (thread 0..127, i = 0..N/2-1)
MMAEMU_HD constexpr RC d_wgmma(int thread, int i) {
  const int lane = thread & 31, warp = thread >> 5;
  return {16 * warp + (lane >> 2) + 8 * ((i >> 1) & 1), 2 * (lane & 3) + (i & 1) + 8 * (i >> 2)};
}
// wgmma shared-memory operand, K-major, no swizzle, 8-bit elements.
inline constexpr int kWgmmaLBO = 128;  // next core matrix along K
inline constexpr int kWgmmaSBO = 256;  // next 8-row group along M/N
MMAEMU_HD constexpr int smem_kmajor_8bit(int row, int k) {
  return (row / 8) * kWgmmaSBO + (k / 16) * kWgmmaLBO + (row % 8) * 16 + k % 16;
}

}  // namespace mmaemu::hwcheck::frag
