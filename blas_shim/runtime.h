// SPDX-License-Identifier: BSD-3-Clause
// The BLAS shim's runtime (docs/shim.md): the setting (environment and
// runtime switch), the one statistics table, the re-entrancy guard, the real
// BLAS, the reference-BLAS error reports and the GEMM on the model. The
// routine families (gemm.cpp, syrk.cpp, gemv.cpp, forwarders.cpp, level1.cpp)
// use it and not each other. Internal to libmmaemu.so.
#pragma once

#include <chrono>
#include <exception>
#include <new>
#include <string>

#include "mmaemu/mmaemu.h"

#define MMAEMU_EXPORT extern "C" __attribute__((visibility("default")))

namespace mmaemu::shim {

// The runtime's files call each other in one direction only (docs/building.md,
// the source layout): runtime.cpp and runtime_select.cpp call the C API
// only; runtime_stats.cpp calls runtime_select.cpp; runtime_config.cpp calls
// those three; runtime_switch.cpp calls all four.

// ---- The setting (runtime_config.cpp, runtime_select.cpp, runtime_switch.cpp)
// One setting comes from the environment (MMA_MODEL, MMA_INPUT_FORMAT,
// MMA_ACCUMULATE, MMA_DGEMM, MMA_OZAKI_CHECK, MMA_GEMV, MMA_SCHEDULE, MMA_VERBOSE);
// mmaemu_shim_set() replaces it at run time. A setting is immutable once
// published and never freed, so a BLAS call keeps the one it started with.

struct Config {
  mmaemu_model* model = nullptr;  // null: forward everything
  std::string model_name;         // as named (MMA_MODEL or mmaemu_shim_set)
  std::string policy;             // sgemm / ssyrk input policy
  bool block_scaled = false;      // policy is mxfp8, ..., nvfp4
  mmaemu_gemm_options options{};
  bool emulate_dgemm = false;     // MMA_DGEMM=model or an Ozaki scheme
  std::string dgemm_scheme;       // MMA_DGEMM=ozaki1:S[:all] | ozaki2:N ("": the fp64 unit or native)
  mmaemu_format ozaki_input = MMAEMU_S8;  // the scheme's unit (MMA_INPUT_FORMAT's format; int8 unset)
  bool ozaki_check = false;       // MMA_OZAKI_CHECK=1: the exactness check
  bool gemv_on_model = false;     // MMA_GEMV=model
  bool verbose = false;
  std::string schedule;           // MMA_SCHEDULE (options.schedule points here, or null)
};

/// The environment's setting, read and checked once; a bad value exits with 2.
const Config& env_config();

/// Sets cfg's model and sgemm options for `name` and `policy` ("": the
/// model's default policy); "" name: forward everything. Returns "" or the
/// error, prefixed by the names the user set them with.
std::string select(Config& cfg, const std::string& name, const std::string& policy, const char* model_var,
                   const char* policy_var);

/// The schedule an Ozaki scheme's unit reads (a floating-point unit's
/// MMA_SCHEDULE; null for an integer unit).
const char* ozaki_schedule_of(const Config& cfg);

/// One line naming a setting: "model H100, sgemm input fp16, gpu-blas, dgemm native"
/// (runtime_select.cpp).
std::string describe(const Config& cfg);

/// The setting in force: the last mmaemu_shim_set()'s, else env_config().
const Config& current_config();

/// The setting of this call (runtime_switch.cpp): current_config() as the call
/// entered the shim from outside, kept for its nested calls, so that a
/// switch on another thread never changes a call half way.
const Config& config();

// ---- The re-entrancy guard (runtime.cpp) ---------------------------------

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

// ---- The real BLAS (runtime.cpp) -----------------------------------------

/// The system BLAS's `name`: the next definition (RTLD_NEXT), else one of
/// an explicitly opened system BLAS; null if none provides it.
void* find_real(const char* name);
/// find_real(name); exits with 2 if no BLAS provides it.
void* real_symbol(const char* name);

// ---- Errors (runtime.cpp) ------------------------------------------------

/// Reports bad argument `info` of `name` (6 characters, blank padded, as the
/// reference BLAS passes it) through the program's or the BLAS's xerbla_.
void report(const char* name, int info);
/// Reports a CBLAS-level argument error (Order, Uplo, Trans: argument `info`
/// of the caller's own list) through cblas_xerbla, as the reference CBLAS does.
void report_cblas(const char* cblas_name, int info);
/// Prints `message` and exits with 2 (a configuration error: never a silent
/// native fallback).
[[noreturn]] void config_error(const std::string& message);
/// Prints "routine: message" and exits with 2: a BLAS routine cannot return
/// an error.
[[noreturn]] void fail(const char* routine, const char* message);
/// fail() with the C API's last error.
[[noreturn]] void fail_call(const char* routine);

/// Runs f; an exception (only allocation can throw here) stops the program
/// with a message.
template <class F>
void no_throw(const char* routine, F&& f) {
  try {
    f();
  } catch (const std::bad_alloc&) {
    fail(routine, "out of memory");
  } catch (const std::exception& e) {
    fail(routine, e.what());
  }
}

// ---- Arguments -----------------------------------------------------------

// CBLAS enum values (cblas.h), without depending on a cblas header.
enum : int { kRowMajor = 101, kColMajor = 102, kNoTrans = 111, kTrans = 112, kConjTrans = 113 };
enum : int { kUpper = 121, kLower = 122, kLeft = 141 };

/// A Fortran character argument in upper case.
char upper(const char* c);
/// A CBLAS transpose as its Fortran letter ('N', 'T', 'C'); '?' if invalid.
char cblas_trans(int t);

// ---- Statistics: one table (runtime_stats.cpp) ---------------------------

/// The emulated routines, in the order the MMA_VERBOSE report lists them.
enum class Emulated { sgemm, ssyrk, dgemm, sbgemm, sgemv, dgemv };

/// Counts one emulated call.
void count_emulated(Emulated routine, double flops, double seconds);
/// Counts one call of `routine` ("dgemm", "strsm", ...) forwarded untouched.
void count_forwarded(const char* routine, double flops);
/// MMA_VERBOSE: counts the emulated calls under the environment's setting
/// `env` (kept for the life of the process) and prints the report at exit.
void start_report(const Config& env);
/// MMA_VERBOSE, at a switch to the setting `next` (kept for the life of the
/// process): prints the sgemm, ssyrk, dgemm and sbgemm calls made under the
/// setting in force since the last report, resets their counts, and counts
/// the calls from here on under `next`.
void report_switch(const Config& next);
/// MMA_VERBOSE at exit: the calls under the setting in force, the gemv
/// calls, the forwarded routines.
void print_report();
/// MMA_VERBOSE with MMA_OZAKI_CHECK=1: prints one dgemm call's exactness
/// counts and adds them to the totals the report prints.
void report_ozaki(int m, int n, int k, const mmaemu_ozaki_stats& stats);

/// Runs f, counting it as one call of `routine` with its time.
template <class F>
void timed(Emulated routine, double flops, F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  count_emulated(routine, flops, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

// ---- The GEMM on the model (runtime_gemm.cpp) ----------------------------

/// The element types of the emulated products.
enum class Gemm { s, d, sb };  // fp32 (sgemm options), fp64 (the fp64 unit), bf16 A, B with fp32 C

/// Column-major C = alpha op(A) op(B) + beta C on the model of config()
/// (arguments already checked); under a block-scaled policy an fp32 product
/// quantises and runs the block-scaled unit. Exits with 2 if the C API
/// refuses it, naming `name` (the routine's xerbla name).
void model_gemm(const char* name, Gemm kind, char ta, char tb, int m, int n, int k, double alpha, const void* A,
                int lda, const void* B, int ldb, double beta, void* C, int ldc);

}  // namespace mmaemu::shim
