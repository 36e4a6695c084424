// SPDX-License-Identifier: BSD-3-Clause
// What shim.cpp shares with the other files of the BLAS shim (forwarders.cpp,
// gemv.cpp): the configuration read from the environment, the real BLAS, the
// xerbla report and the nesting guard. Internal to libmmaemu.so.
#pragma once

#include "mmaemu/mmaemu.h"

#define MMAEMU_EXPORT extern "C" __attribute__((visibility("default")))

namespace mmaemu::shim {

/// The model MMA_MODEL names, or null (then every call is forwarded). The
/// first call reads and checks the environment; a bad value exits with 2.
const mmaemu_model* model();
/// The sgemm options MMA_INPUT_FORMAT / MMA_ACCUMULATE give.
const mmaemu_gemm_options& options();
/// MMA_DGEMM=model: double-precision products run on the model's fp64 unit.
bool emulate_dgemm();
/// The system BLAS's `name`; exits with 2 if no BLAS provides it.
void* real_symbol(const char* name);
/// Reports bad argument `info` of `name` (6 characters) through xerbla_.
void report(const char* name, int info);
/// Column-major GEMM on the model, fp32 (the sgemm options) or fp64 (the
/// model's fp64 unit); exits with 2 if the C API refuses it.
void model_gemm(const char* name, bool fp64, char ta, char tb, int m, int n, int k, double alpha, const void* A,
                int lda, const void* B, int ldb, double beta, void* C, int ldc);
/// Prints `message` and exits with 2 (a configuration error).
[[noreturn]] void config_error(const char* message);

/// True inside another BLAS routine of this thread (a real BLAS calling its
/// own Fortran entry): such calls go to the real routine uncounted.
bool nested();
/// Marks this thread as inside a BLAS routine while it lives.
struct NestGuard {
  NestGuard();
  ~NestGuard();
  NestGuard(const NestGuard&) = delete;
  NestGuard& operator=(const NestGuard&) = delete;
};

// forwarders.cpp: the routines that went to the system BLAS.
/// Counts one call of `routine` ("dgemm", "strsm", ...) forwarded untouched.
void count_forwarded(const char* routine, double flops);
/// Prints the forwarded routines (MMA_VERBOSE report at exit).
void print_forwarded();

// gemv.cpp: MMA_GEMV=native|model.
/// Reads and checks MMA_GEMV (called while the configuration is read).
void read_gemv_policy();
/// Prints the emulated gemv calls (MMA_VERBOSE report at exit).
void print_gemv_stats();

}  // namespace mmaemu::shim
