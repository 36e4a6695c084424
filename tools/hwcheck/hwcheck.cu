// SPDX-License-Identifier: BSD-3-Clause
// mmaemu-hwcheck: runs the real matrix instructions on the ensembles of
// ensemble.h and writes the results in the `mmaemu validate` layout.
//
// Only kernels and their launch live here; generation, tile packing, the
// layout probe, option parsing and file writing are the plain C++ library
// mmaemu_hwcheck_host (tested on the CPU). Fragment layouts: fragments.h.
//
//   mma.sync  m16n8k16 f16/bf16 (sm_80+), m16n8k8 tf32 (sm_80+),
//             m16n8k32 e4m3/e5m2 (sm_89+; on sm_90 ptxas lowers it to fp16
//             HMMA, the interleaved path of docs/models.md §2.12)
//   wmma      16x16x16 f16 (sm_70+), bf16 (sm_80+), 16x16x8 tf32 (sm_80+)
//   wgmma     m64n8k32 e4m3/e5m2, A and B from shared memory, non-zero C
//             (sm_90a only: compiled under __CUDA_ARCH_FEAT_SM90_ALL)
// A kernel compiled for an architecture that lacks its instruction sets
// *status = 1 instead of running; the host reports and skips that job.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "decisive.h"
#include "ensemble.h"
#include "formats.h"
#include "fragments.h"
#include "options.h"
#include "tiles.h"
#include "writer.h"

using namespace mmaemu::hwcheck;

#define CUDA_CHECK(expr)                                                                     \
  do {                                                                                       \
    const cudaError_t err_ = (expr);                                                         \
    if (err_ != cudaSuccess)                                                                 \
      throw std::runtime_error(std::string(#expr) + ": " + cudaGetErrorString(err_));        \
  } while (0)

namespace {

using KernelFn = void (*)(const uint8_t*, const uint8_t*, const float*, void*, size_t, int*);

__device__ __forceinline__ size_t warp_index() { return (blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x) >> 5; }
__device__ __forceinline__ size_t warp_count() { return (gridDim.x * static_cast<size_t>(blockDim.x)) >> 5; }
[[maybe_unused]] __device__ __forceinline__ void not_compiled(int* status) {
  if (threadIdx.x == 0) atomicExch(status, 1);
}
[[maybe_unused]] __device__ __forceinline__ uint32_t pack_half2(float lo, float hi) {
  return static_cast<uint32_t>(__half_as_ushort(__float2half_rn(lo))) |
         (static_cast<uint32_t>(__half_as_ushort(__float2half_rn(hi))) << 16);
}

// ------------------------------------------------------------ mma.sync ---

// m16n8k16, A/B .f16 or .bf16 (2-byte codes), D .f32 or .f16.
template <bool kBF16, bool kOut16>
__global__ void k_mma_16816(const uint8_t* A, const uint8_t* B, const float* C, void* D, size_t tiles, int* status) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const int lane = threadIdx.x & 31;
  for (size_t t = warp_index(); t < tiles; t += warp_count()) {
    const uint16_t* a = reinterpret_cast<const uint16_t*>(A) + t * 16 * 16;
    const uint16_t* b = reinterpret_cast<const uint16_t*>(B) + t * 8 * 16;
    const float* c = C + t * 16 * 8;
    uint32_t ra[4], rb[2];
    for (int r = 0; r < 4; ++r) {
      const frag::RC lo = frag::a_16816(lane, 2 * r), hi = frag::a_16816(lane, 2 * r + 1);
      ra[r] = a[lo.row * 16 + lo.col] | (static_cast<uint32_t>(a[hi.row * 16 + hi.col]) << 16);
    }
    for (int r = 0; r < 2; ++r) {
      const frag::RC lo = frag::b_16816(lane, 2 * r), hi = frag::b_16816(lane, 2 * r + 1);  // {k, n}
      rb[r] = b[lo.col * 16 + lo.row] | (static_cast<uint32_t>(b[hi.col * 16 + hi.row]) << 16);
    }
    frag::RC cd[4];
    for (int i = 0; i < 4; ++i) cd[i] = frag::cd_m16n8(lane, i);
    if constexpr (kOut16) {
      uint32_t rc[2], rd[2];
      for (int r = 0; r < 2; ++r)
        rc[r] = pack_half2(c[cd[2 * r].row * 8 + cd[2 * r].col], c[cd[2 * r + 1].row * 8 + cd[2 * r + 1].col]);
      asm volatile(
          "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};\n"
          : "=r"(rd[0]), "=r"(rd[1])
          : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), "r"(rc[0]), "r"(rc[1]));
      uint16_t* d = static_cast<uint16_t*>(D) + t * 16 * 8;
      for (int i = 0; i < 4; ++i) d[cd[i].row * 8 + cd[i].col] = static_cast<uint16_t>(rd[i >> 1] >> (16 * (i & 1)));
    } else {
      float rc[4], rd[4];
      for (int i = 0; i < 4; ++i) rc[i] = c[cd[i].row * 8 + cd[i].col];
      if constexpr (kBF16)
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%10,%11,%12,%13};\n"
            : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
            : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), "f"(rc[0]), "f"(rc[1]),
              "f"(rc[2]), "f"(rc[3]));
      else
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
            "{%10,%11,%12,%13};\n"
            : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
            : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), "f"(rc[0]), "f"(rc[1]),
              "f"(rc[2]), "f"(rc[3]));
      float* d = static_cast<float*>(D) + t * 16 * 8;
      for (int i = 0; i < 4; ++i) d[cd[i].row * 8 + cd[i].col] = rd[i];
    }
  }
#else
  not_compiled(status);
#endif
}

// m16n8k8 tf32 (A/B = fp32 bit patterns with the low 13 bits zero), D .f32.
__global__ void k_mma_1688_tf32(const uint8_t* A, const uint8_t* B, const float* C, void* D, size_t tiles, int* status) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const int lane = threadIdx.x & 31;
  for (size_t t = warp_index(); t < tiles; t += warp_count()) {
    const uint32_t* a = reinterpret_cast<const uint32_t*>(A) + t * 16 * 8;
    const uint32_t* b = reinterpret_cast<const uint32_t*>(B) + t * 8 * 8;
    const float* c = C + t * 16 * 8;
    uint32_t ra[4], rb[2];
    for (int i = 0; i < 4; ++i) {
      const frag::RC x = frag::a_1688_tf32(lane, i);
      ra[i] = a[x.row * 8 + x.col];
    }
    for (int i = 0; i < 2; ++i) {
      const frag::RC x = frag::b_1688_tf32(lane, i);  // {k, n}
      rb[i] = b[x.col * 8 + x.row];
    }
    frag::RC cd[4];
    float rc[4], rd[4];
    for (int i = 0; i < 4; ++i) {
      cd[i] = frag::cd_m16n8(lane, i);
      rc[i] = c[cd[i].row * 8 + cd[i].col];
    }
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%10,%11,%12,%13};\n"
        : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])
        : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), "f"(rc[0]), "f"(rc[1]),
          "f"(rc[2]), "f"(rc[3]));
    float* d = static_cast<float*>(D) + t * 16 * 8;
    for (int i = 0; i < 4; ++i) d[cd[i].row * 8 + cd[i].col] = rd[i];
  }
#else
  not_compiled(status);
#endif
}

#define MMA_16832(DT, AT, CT, ...) "mma.sync.aligned.m16n8k32.row.col." DT "." AT "." AT "." CT " " __VA_ARGS__ ";\n"

// m16n8k32 e4m3/e5m2 (1-byte codes), D .f32 or .f16.
template <bool kE5M2, bool kOut16>
__global__ void k_mma_16832(const uint8_t* A, const uint8_t* B, const float* C, void* D, size_t tiles, int* status) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  const int lane = threadIdx.x & 31;
  for (size_t t = warp_index(); t < tiles; t += warp_count()) {
    const uint8_t* a = A + t * 16 * 32;
    const uint8_t* b = B + t * 8 * 32;
    const float* c = C + t * 16 * 8;
    uint32_t ra[4] = {0, 0, 0, 0}, rb[2] = {0, 0};
    for (int i = 0; i < 16; ++i) {
      const frag::RC x = frag::a_16832(lane, i);
      ra[i >> 2] |= static_cast<uint32_t>(a[x.row * 32 + x.col]) << (8 * (i & 3));
    }
    for (int i = 0; i < 8; ++i) {
      const frag::RC x = frag::b_16832(lane, i);  // {k, n}
      rb[i >> 2] |= static_cast<uint32_t>(b[x.col * 32 + x.row]) << (8 * (i & 3));
    }
    frag::RC cd[4];
    for (int i = 0; i < 4; ++i) cd[i] = frag::cd_m16n8(lane, i);
    if constexpr (kOut16) {
      uint32_t rc[2], rd[2];
      for (int r = 0; r < 2; ++r)
        rc[r] = pack_half2(c[cd[2 * r].row * 8 + cd[2 * r].col], c[cd[2 * r + 1].row * 8 + cd[2 * r + 1].col]);
#define ARGS16                                                                                                   \
  : "=r"(rd[0]), "=r"(rd[1]) : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), "r"(rc[0]), \
    "r"(rc[1])
      if constexpr (kE5M2)
        asm volatile(MMA_16832("f16", "e5m2", "f16", "{%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9}") ARGS16);
      else
        asm volatile(MMA_16832("f16", "e4m3", "f16", "{%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9}") ARGS16);
#undef ARGS16
      uint16_t* d = static_cast<uint16_t*>(D) + t * 16 * 8;
      for (int i = 0; i < 4; ++i) d[cd[i].row * 8 + cd[i].col] = static_cast<uint16_t>(rd[i >> 1] >> (16 * (i & 1)));
    } else {
      float rc[4], rd[4];
      for (int i = 0; i < 4; ++i) rc[i] = c[cd[i].row * 8 + cd[i].col];
#define ARGS32                                                                                            \
  : "=f"(rd[0]), "=f"(rd[1]), "=f"(rd[2]), "=f"(rd[3])                                                    \
  : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]), "f"(rc[0]), "f"(rc[1]), "f"(rc[2]), \
    "f"(rc[3])
      if constexpr (kE5M2)
        asm volatile(MMA_16832("f32", "e5m2", "f32", "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13}") ARGS32);
      else
        asm volatile(MMA_16832("f32", "e4m3", "f32", "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13}") ARGS32);
#undef ARGS32
      float* d = static_cast<float*>(D) + t * 16 * 8;
      for (int i = 0; i < 4; ++i) d[cd[i].row * 8 + cd[i].col] = rd[i];
    }
  }
#else
  not_compiled(status);
#endif
}

// ---------------------------------------------------------------- wmma ---

constexpr int kWarpsPerBlock = 4;

// 16x16x16 with fp16 (sm_70+) or bf16 (sm_80+) inputs; D .f32 or (fp16 only) .f16.
// The tile of warp w converts C to fp16 (__float2half_rn) in shared memory.
#define WMMA_16x16x16_BODY(T)                                                                       \
  using namespace nvcuda;                                                                           \
  __shared__ __align__(32) __half c16[kWarpsPerBlock][256];                                         \
  const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;                                          \
  for (size_t t = warp_index(); t < tiles; t += warp_count()) {                                     \
    const float* c = C + t * 256;                                                                   \
    wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> fa;                              \
    wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> fb;                              \
    wmma::load_matrix_sync(fa, reinterpret_cast<const T*>(A) + t * 256, 16);                        \
    wmma::load_matrix_sync(fb, reinterpret_cast<const T*>(B) + t * 256, 16);                        \
    if constexpr (kOut16) {                                                                         \
      for (int i = lane; i < 256; i += 32) c16[w][i] = __float2half_rn(c[i]);                       \
      __syncwarp();                                                                                 \
      wmma::fragment<wmma::accumulator, 16, 16, 16, std::conditional_t<kOut16, __half, float>> fc;  \
      wmma::load_matrix_sync(fc, c16[w], 16, wmma::mem_row_major);                                  \
      wmma::mma_sync(fc, fa, fb, fc);                                                               \
      wmma::store_matrix_sync(static_cast<__half*>(D) + t * 256, fc, 16, wmma::mem_row_major);      \
      __syncwarp();                                                                                 \
    } else {                                                                                        \
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;                                      \
      wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);                                       \
      wmma::mma_sync(fc, fa, fb, fc);                                                               \
      wmma::store_matrix_sync(static_cast<float*>(D) + t * 256, fc, 16, wmma::mem_row_major);       \
    }                                                                                               \
  }

template <bool kOut16>
__global__ void k_wmma_f16(const uint8_t* A, const uint8_t* B, const float* C, void* D, size_t tiles, int* status) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
  WMMA_16x16x16_BODY(__half)
#else
  not_compiled(status);
#endif
}

template <bool kOut16>  // only <false>: bf16 wmma has no fp16 accumulator
__global__ void k_wmma_bf16(const uint8_t* A, const uint8_t* B, const float* C, void* D, size_t tiles, int* status) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  WMMA_16x16x16_BODY(__nv_bfloat16)
#else
  not_compiled(status);
#endif
}
#undef WMMA_16x16x16_BODY

// 16x16x8 tf32 (raw fp32 patterns with the low 13 bits zero, as the public data), D .f32.
__global__ void k_wmma_tf32(const uint8_t* A, const uint8_t* B, const float* C, void* D, size_t tiles, int* status) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  using namespace nvcuda;
  for (size_t t = warp_index(); t < tiles; t += warp_count()) {
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
    wmma::load_matrix_sync(fa, reinterpret_cast<const float*>(A) + t * 128, 8);
    wmma::load_matrix_sync(fb, reinterpret_cast<const float*>(B) + t * 128, 8);
    wmma::load_matrix_sync(fc, C + t * 256, 16, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(static_cast<float*>(D) + t * 256, fc, 16, wmma::mem_row_major);
  }
#else
  not_compiled(status);
#endif
}

// --------------------------------------------------------------- wgmma ---

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
[[maybe_unused]] __device__ __forceinline__ uint64_t smem_desc(const void* p) {
  const uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(p));
  uint64_t d = static_cast<uint64_t>((addr & 0x3ffffu) >> 4);                 // bits 0-13 start address
  d |= static_cast<uint64_t>((frag::kWgmmaLBO >> 4) & 0x3fff) << 16;           // bits 16-29 LBO
  d |= static_cast<uint64_t>((frag::kWgmmaSBO >> 4) & 0x3fff) << 32;           // bits 32-45 SBO
  return d;                                                                      // base offset 0, no swizzle
}
#endif

// m64n8k32 e4m3/e5m2, A (64x32) and B (8x32) K-major in shared memory,
// accumulator loaded with C (scale-d = 1), D .f32 or .f16. One warpgroup per block.
template <bool kE5M2, bool kOut16>
__global__ void __launch_bounds__(128) k_wgmma(const uint8_t* A, const uint8_t* B, const float* C, void* D,
                                              size_t tiles, int* status) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  __shared__ __align__(128) uint8_t sa[64 * 32];
  __shared__ __align__(128) uint8_t sb[8 * 32];
  const int tid = threadIdx.x;
  for (size_t t = blockIdx.x; t < tiles; t += gridDim.x) {
    const uint8_t* a = A + t * 64 * 32;
    const uint8_t* b = B + t * 8 * 32;
    const float* c = C + t * 64 * 8;
    for (int i = tid; i < 64 * 32; i += 128) sa[frag::smem_kmajor_8bit(i / 32, i % 32)] = a[i];
    for (int i = tid; i < 8 * 32; i += 128) sb[frag::smem_kmajor_8bit(i / 32, i % 32)] = b[i];
    frag::RC cd[4];
    for (int i = 0; i < 4; ++i) cd[i] = frag::d_wgmma(tid, i);
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();
    const uint64_t da = smem_desc(sa), db = smem_desc(sb);
    if constexpr (kOut16) {
      uint32_t d[2];
      for (int r = 0; r < 2; ++r)
        d[r] = pack_half2(c[cd[2 * r].row * 8 + cd[2 * r].col], c[cd[2 * r + 1].row * 8 + cd[2 * r + 1].col]);
      asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
      if constexpr (kE5M2)
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n8k32.f16.e5m2.e5m2 {%0,%1}, %2, %3, p, 1, 1;\n}\n"
            : "+r"(d[0]), "+r"(d[1])
            : "l"(da), "l"(db), "r"(1)
            : "memory");
      else
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %4, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e4m3 {%0,%1}, %2, %3, p, 1, 1;\n}\n"
            : "+r"(d[0]), "+r"(d[1])
            : "l"(da), "l"(db), "r"(1)
            : "memory");
      asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
      uint16_t* o = static_cast<uint16_t*>(D) + t * 64 * 8;
      for (int i = 0; i < 4; ++i) o[cd[i].row * 8 + cd[i].col] = static_cast<uint16_t>(d[i >> 1] >> (16 * (i & 1)));
    } else {
      float d[4];
      for (int i = 0; i < 4; ++i) d[i] = c[cd[i].row * 8 + cd[i].col];
      asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
      if constexpr (kE5M2)
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n8k32.f32.e5m2.e5m2 {%0,%1,%2,%3}, %4, %5, p, 1, 1;\n}\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "l"(da), "l"(db), "r"(1)
            : "memory");
      else
        asm volatile(
            "{\n.reg .pred p;\nsetp.ne.b32 p, %6, 0;\n"
            "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {%0,%1,%2,%3}, %4, %5, p, 1, 1;\n}\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "l"(da), "l"(db), "r"(1)
            : "memory");
      asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
      asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
      float* o = static_cast<float*>(D) + t * 64 * 8;
      for (int i = 0; i < 4; ++i) o[cd[i].row * 8 + cd[i].col] = d[i];
    }
    __syncthreads();  // shared tiles are rewritten by the next iteration
  }
#else
  not_compiled(status);
#endif
}

// ---------------------------------------------------------------- host ---

KernelFn kernel_for(Instr in, InFmt f, OutType o) {
  const bool h = o == OutType::fp16;
  switch (in) {
    case Instr::mma_sync:
      switch (f) {
        case InFmt::fp16: return h ? k_mma_16816<false, true> : k_mma_16816<false, false>;
        case InFmt::bf16: return h ? nullptr : k_mma_16816<true, false>;
        case InFmt::tf32: return h ? nullptr : k_mma_1688_tf32;
        case InFmt::e4m3: return h ? k_mma_16832<false, true> : k_mma_16832<false, false>;
        case InFmt::e5m2: return h ? k_mma_16832<true, true> : k_mma_16832<true, false>;
      }
      break;
    case Instr::wmma:
      switch (f) {
        case InFmt::fp16: return h ? k_wmma_f16<true> : k_wmma_f16<false>;
        case InFmt::bf16: return h ? nullptr : k_wmma_bf16<false>;
        case InFmt::tf32: return h ? nullptr : k_wmma_tf32;
        default: return nullptr;
      }
    case Instr::wgmma:
      switch (f) {
        case InFmt::e4m3: return h ? k_wgmma<false, true> : k_wgmma<false, false>;
        case InFmt::e5m2: return h ? k_wgmma<true, true> : k_wgmma<true, false>;
        default: return nullptr;
      }
  }
  return nullptr;
}

template <class T>
struct DevBuf {
  T* p = nullptr;
  explicit DevBuf(size_t n) { CUDA_CHECK(cudaMalloc(&p, std::max<size_t>(n, 1) * sizeof(T))); }
  ~DevBuf() { cudaFree(p); }
  DevBuf(const DevBuf&) = delete;
  DevBuf& operator=(const DevBuf&) = delete;
};

struct DeviceTiles {
  DevBuf<uint8_t> a, b;
  DevBuf<float> c;
  size_t tiles;
  explicit DeviceTiles(const TileBatch& t) : a(t.a.size()), b(t.b.size()), c(t.c.size()), tiles(t.tiles) {
    CUDA_CHECK(cudaMemcpy(a.p, t.a.data(), t.a.size(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(b.p, t.b.data(), t.b.size(), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(c.p, t.c.data(), t.c.size() * sizeof(float), cudaMemcpyHostToDevice));
  }
};

// Runs one kernel over all tiles; returns D (tiles*M*N fp32 bit patterns,
// fp16 results widened). Throws if the kernel was not compiled for the device.
std::vector<uint32_t> run_kernel(KernelFn k, Instr in, Shape s, OutType o, const DeviceTiles& dt, int sms) {
  const size_t per_tile = static_cast<size_t>(s.m) * s.n;
  const size_t d_bytes = dt.tiles * per_tile * (o == OutType::fp16 ? 2 : 4);
  DevBuf<uint8_t> d(d_bytes);
  DevBuf<int> status(1);
  CUDA_CHECK(cudaMemset(status.p, 0, sizeof(int)));
  CUDA_CHECK(cudaMemset(d.p, 0xff, d_bytes));  // NaN pattern: unwritten results cannot pass
  const int threads = 128;
  const size_t per_block = in == Instr::wgmma ? 1 : threads / 32;
  const size_t want = (dt.tiles + per_block - 1) / per_block;
  const unsigned blocks = static_cast<unsigned>(std::max<size_t>(1, std::min<size_t>(want, static_cast<size_t>(sms) * 16)));
  k<<<blocks, threads>>>(dt.a.p, dt.b.p, dt.c.p, d.p, dt.tiles, status.p);
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  int st = 0;
  CUDA_CHECK(cudaMemcpy(&st, status.p, sizeof(int), cudaMemcpyDeviceToHost));
  if (st != 0) throw std::runtime_error("kernel not compiled for this device's architecture");
  if (o == OutType::fp16) {
    std::vector<uint16_t> h(dt.tiles * per_tile);
    CUDA_CHECK(cudaMemcpy(h.data(), d.p, d_bytes, cudaMemcpyDeviceToHost));
    return widen_fp16(h);
  }
  std::vector<uint32_t> h(dt.tiles * per_tile);
  CUDA_CHECK(cudaMemcpy(h.data(), d.p, d_bytes, cudaMemcpyDeviceToHost));
  return h;
}

std::string shape_text(Instr in, Shape s) {
  std::ostringstream os;
  if (in == Instr::wmma) os << s.m << "x" << s.n << "x" << s.k;
  else os << "m" << s.m << "n" << s.n << "k" << s.k;
  return os.str();
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  std::string err;
  const auto opt = parse_options(argc, argv, &err);
  if (!opt) {
    std::fprintf(stderr, "mmaemu-hwcheck: %s\n%s", err.c_str(), usage().c_str());
    return 2;
  }
  if (opt->help) {
    std::fputs(usage().c_str(), stdout);
    return 0;
  }
  int failures = 0;
  try {
    CUDA_CHECK(cudaSetDevice(opt->device));
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, opt->device));
    const int cc = prop.major * 10 + prop.minor;
    const std::string gpu = opt->gpu.empty() ? gpu_folder_name(prop.name) : opt->gpu;
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    std::printf("device %d: %s (sm_%d), folder %s, driver %d, runtime %d\n", opt->device, prop.name, cc, gpu.c_str(),
                driver, runtime);
    std::printf("seed %llu, %zu samples per set, packing %s\n", static_cast<unsigned long long>(opt->seed), opt->n,
                packing_name(opt->packing));
    const std::vector<DecisiveVector> decisive =
        opt->decisive.empty() ? std::vector<DecisiveVector>{} : load_decisive(opt->decisive);
    for (Instr in : opt->instrs)
      for (InFmt f : opt->fmts) {
        if (!supported(in, f)) continue;
        const char* iname = instr_name(in);
        const char* fname = info(f).folder;
        if (!runs_on(in, f, cc)) {
          std::printf("%-9s %-5s skipped: not available on sm_%d\n", iname, fname, cc);
          continue;
        }
        const Shape s = shape_of(in, f);
        const auto outs = outputs_of(in, f);
        try {
          // 1. layout probe: exact small-integer tiles, every D element checked.
          if (opt->probe_tiles > 0) {
            const TileBatch probe = make_probe(f, s, opt->probe_tiles, opt->seed);
            const DeviceTiles dp(probe);
            for (OutType o : outs) {
              const auto d = run_kernel(kernel_for(in, f, o), in, s, o, dp, prop.multiProcessorCount);
              std::string report;
              const size_t bad = probe_mismatches(probe, d, &report);
              if (bad) {
                std::printf("%-9s %-5s -> %s: LAYOUT PROBE FAILED, %zu of %zu elements wrong\n%s", iname, fname,
                            out_name(o), bad, d.size(), report.c_str());
                throw std::runtime_error("layout probe failed; no data written");
              }
            }
          }
          // 2. the ensembles.
          auto t0 = std::chrono::steady_clock::now();
          Ensemble e = generate(f, s.k, opt->sets, opt->n, opt->seed);
          if (!decisive.empty()) e.append(decisive_set(decisive, iname, f, s.k));
          const TileBatch tb = pack(e, s, opt->packing);
          const double t_gen = seconds_since(t0);
          t0 = std::chrono::steady_clock::now();
          const DeviceTiles dt(tb);
          std::vector<uint32_t> d32, d16;
          for (OutType o : outs) {
            auto d = unpack(run_kernel(kernel_for(in, f, o), in, s, o, dt, prop.multiProcessorCount), s,
                            opt->packing, e.size());
            (o == OutType::fp32 ? d32 : d16) = std::move(d);
          }
          const double t_gpu = seconds_since(t0);
          t0 = std::chrono::steady_clock::now();
          std::ostringstream meta;
          meta << "instruction " << iname << "\nshape " << shape_text(in, s) << "\nformat " << fname
               << "\noutputs";
          for (OutType o : outs) meta << " " << out_name(o);
          meta << "\nc_for_fp16_output __float2half_rn(c)\npacking " << packing_name(opt->packing)
               << "\nseed " << opt->seed << "\nn_per_set " << opt->n << "\nsamples " << e.size() << "\ndevice "
               << prop.name << "\ncompute_capability " << cc << "\ndriver " << driver << "\nruntime " << runtime
               << "\nlayout_probe_tiles " << opt->probe_tiles << "\n";
          DatasetWrite w;
          w.gpu = gpu;
          w.instruction = iname;
          w.meta = meta.str();
          w.ensemble = &e;
          w.d_fp32 = d32.empty() ? nullptr : &d32;
          w.d_fp16 = d16.empty() ? nullptr : &d16;
          const auto dir = write_dataset(opt->out / iname, w);
          std::printf("%-9s %-5s %-10s %8zu samples, outputs", iname, fname, shape_text(in, s).c_str(), e.size());
          for (OutType o : outs) std::printf(" %s", out_name(o));
          std::printf(", probe %s; gen %.1fs gpu %.1fs write %.1fs -> %s\n", opt->probe_tiles ? "ok" : "off", t_gen,
                      t_gpu, seconds_since(t0), dir.string().c_str());
        } catch (const std::exception& ex) {
          std::printf("%-9s %-5s FAILED: %s\n", iname, fname, ex.what());
          ++failures;
          cudaGetLastError();  // clear a sticky launch error where possible
        }
        std::fflush(stdout);
      }
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "mmaemu-hwcheck: %s\n", ex.what());
    return 1;
  }
  return failures ? 1 : 0;
}
