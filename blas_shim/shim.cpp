// SPDX-License-Identifier: BSD-3-Clause
// The BLAS shim: libmmaemu.so exports the BLAS/CBLAS names of the routines a
// GPU BLAS runs on its matrix units, so that unmodified programs compute them
// with the numerics of the model named by MMA_MODEL:
//
//   MMA_MODEL=MI250 LD_PRELOAD=libmmaemu.so ./app
//
// Only argument checking (netlib order, xerbla), translation and forwarding
// live here; the numerics are the C API's. Whatever is not emulated goes to
// the real BLAS: the next definition in the search order (RTLD_NEXT), else
// an explicit dlopen of the system BLAS (inside Python, numpy's BLAS is
// loaded RTLD_LOCAL and RTLD_NEXT finds nothing).
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "mmaemu/mmaemu.h"
#include "shim_config.h"
#include "shim_internal.h"

namespace {

// CBLAS enum values (cblas.h), without depending on a cblas header.
enum { kRowMajor = 101, kColMajor = 102, kNoTrans = 111, kTrans = 112, kConjTrans = 113, kUpper = 121, kLower = 122 };

using mmaemu_shim::Config;
using mmaemu_shim::ScaledOperand;

[[noreturn]] void config_error(const std::string& what) {
  std::fprintf(stderr, "libmmaemu: %s\n", what.c_str());
  std::fflush(stderr);
  std::_Exit(2);  // never a silent native fallback: the user would trust wrong numbers
}

// Call counts and time per routine, printed at exit under MMA_VERBOSE=1.
struct Stats {
  std::atomic<long> calls{0};
  std::atomic<double> flops{0}, seconds{0};
};
Stats g_sgemm, g_ssyrk, g_dgemm, g_sbgemm;

// At exit: the emulated calls of the setting in force, gemv, and the calls
// that went to the system BLAS untouched.
void print_stats() {
  mmaemu_shim::report_calls(mmaemu_shim::current_config());
  mmaemu::shim::print_gemv_stats();
  mmaemu::shim::print_forwarded();
}

}  // namespace

std::string mmaemu_shim::describe(const Config& cfg) {
  if (!cfg.model) return "no model (every BLAS call goes to the system BLAS)";
  return std::string("model ") + mmaemu_model_name(cfg.model) + ", sgemm input " + cfg.policy + ", " +
         (cfg.options.accumulate == MMAEMU_ACC_BLAS_INTO_C ? "accumulate-into-c" : "gpu-blas") + ", dgemm " +
         (cfg.emulate_dgemm ? "model" : "native") + (cfg.schedule.empty() ? "" : ", schedule " + cfg.schedule);
}

void mmaemu_shim::report_calls(const Config& cfg) {
  if (!g_sgemm.calls && !g_ssyrk.calls && !g_dgemm.calls && !g_sbgemm.calls) return;
  std::fprintf(stderr, "libmmaemu: calls under %s:\n", describe(cfg).c_str());
  auto line = [](const char* name, const Stats& s) {
    if (s.calls)
      std::fprintf(stderr, "libmmaemu: %-6s %8ld calls %12.4g flop %9.3f s\n", name, s.calls.load(), s.flops.load(),
                   s.seconds.load());
  };
  line("sgemm", g_sgemm);
  line("ssyrk", g_ssyrk);
  line("dgemm", g_dgemm);
  line("sbgemm", g_sbgemm);
  for (Stats* s : {&g_sgemm, &g_ssyrk, &g_dgemm, &g_sbgemm}) {
    s->calls = 0;
    s->flops = 0;
    s->seconds = 0;
  }
}

std::string mmaemu_shim::select(Config& cfg, const std::string& name, const std::string& policy,
                                const char* model_var, const char* policy_var) {
  cfg.model_name = name;
  if (name.empty()) return "";
  if (mmaemu_model_lookup(name.c_str(), &cfg.model) != MMAEMU_OK) return std::string(model_var) + ": " + mmaemu_last_error();
  cfg.policy = policy.empty() ? mmaemu_default_policy(cfg.model) : policy;
  int m, n, k;
  cfg.block_scaled = false;
  if (is_block_scaled_policy(cfg.policy)) {
    if (std::string error = select_block_scaled(cfg, policy_var); !error.empty()) return error;
  } else if (mmaemu_parse_policy(cfg.policy.c_str(), &cfg.options) != MMAEMU_OK) {
    const std::string error = std::string(policy_var) + ": " + mmaemu_last_error();
    return error + "; or a block-scaled policy: " + block_scaled_policy_names();
  } else if (mmaemu_tile_shape(cfg.model, cfg.options.input, MMAEMU_FP32, &m, &n, &k) != MMAEMU_OK) {
    return std::string(policy_var) + "=" + cfg.policy + ": " + mmaemu_last_error();
  }
  if (cfg.emulate_dgemm && mmaemu_tile_shape(cfg.model, MMAEMU_FP64, MMAEMU_FP64, &m, &n, &k) != MMAEMU_OK)
    return std::string("MMA_DGEMM=model: ") + mmaemu_last_error();
  // MMA_SCHEDULE (cfg.options.schedule): checked now against the sgemm unit,
  // and the fp64 one under MMA_DGEMM=model, by a GEMM of size zero.
  mmaemu_gemm_options opt = cfg.options;
  for (int pass = 0; cfg.options.schedule && pass < (cfg.emulate_dgemm ? 2 : 1); ++pass) {
    if (pass == 1) opt.a_storage = opt.b_storage = opt.c_storage = opt.input = opt.output = MMAEMU_FP64;
    if (mmaemu_gemm(cfg.model, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 0, 0, 0, 1.0, nullptr, 1,
                    nullptr, 1, 0.0, nullptr, 1) != MMAEMU_OK)
      return std::string("MMA_SCHEDULE: ") + mmaemu_last_error();
  }
  return "";
}

const Config& mmaemu_shim::env_config() {
  static Config cfg;
  static std::once_flag once;
  std::call_once(once, [] {
    const char* v = std::getenv("MMA_VERBOSE");
    if (v && *v && std::strcmp(v, "0") != 0 && std::strcmp(v, "1") != 0)
      config_error(std::string("MMA_VERBOSE='") + v + "' (valid: 0, 1)");
    cfg.verbose = v && std::strcmp(v, "1") == 0;
    if (cfg.verbose) std::atexit(print_stats);
    mmaemu_gemm_options_init(&cfg.options);
    if (const char* a = std::getenv("MMA_ACCUMULATE"); a && *a) {
      if (std::strcmp(a, "gpu-blas") == 0) cfg.options.accumulate = MMAEMU_ACC_GPU_BLAS;
      else if (std::strcmp(a, "accumulate-into-c") == 0) cfg.options.accumulate = MMAEMU_ACC_BLAS_INTO_C;
      else config_error(std::string("MMA_ACCUMULATE='") + a + "' (valid: gpu-blas, accumulate-into-c)");
    }
    if (const char* d = std::getenv("MMA_DGEMM"); d && *d) {
      if (std::strcmp(d, "model") == 0) cfg.emulate_dgemm = true;
      else if (std::strcmp(d, "native") != 0) config_error(std::string("MMA_DGEMM='") + d + "' (valid: native, model)");
    }
    mmaemu::shim::read_gemv_policy();
    if (const char* sched = std::getenv("MMA_SCHEDULE"); sched && *sched) cfg.schedule = sched;
    cfg.options.schedule = cfg.schedule.empty() ? nullptr : cfg.schedule.c_str();
    const char* name = std::getenv("MMA_MODEL");
    const char* policy = std::getenv("MMA_INPUT_FORMAT");
    const std::string error = mmaemu_shim::select(cfg, name ? name : "", policy ? policy : "", "MMA_MODEL", "MMA_INPUT_FORMAT");
    if (!error.empty()) config_error(error);
    if (cfg.verbose)
      std::fprintf(stderr, "libmmaemu %s: %s%s\n", mmaemu_version(), mmaemu_shim::describe(cfg).c_str(),
                   cfg.model ? "" : ": MMA_MODEL is not set");
  });
  return cfg;
}

namespace {

// A nested call (a real BLAS calling sgemm_ from its cblas_sgemm, say) must
// reach the real routine, not come back here.
thread_local int t_depth = 0;
struct Depth {
  Depth() { ++t_depth; }
  ~Depth() { --t_depth; }
};

// The setting of this call: read once when a call enters the shim from
// outside (depth 0), so that a runtime switch (mmaemu_shim_set) on another
// thread never changes a call half way.
const Config& config() {
  thread_local const Config* call_config = nullptr;
  if (t_depth == 0 || !call_config) call_config = &mmaemu_shim::current_config();
  return *call_config;
}

// The real BLAS routine `name`, or null if no BLAS in the process or on the
// system provides it.
void* find_real(const char* name) {
  if (void* f = dlsym(RTLD_NEXT, name)) return f;
  static void* lib = [] {
    for (const char* so : {"libopenblas.so.0", "libblas.so.3", "libopenblas.so", "libblas.so"})
      if (void* h = dlopen(so, RTLD_NOW | RTLD_LOCAL)) return h;
    return static_cast<void*>(nullptr);
  }();
  return lib ? dlsym(lib, name) : nullptr;
}

void* real_symbol(const char* name) {
  void* f = find_real(name);
  if (!f) {
    std::fprintf(stderr, "libmmaemu: no system BLAS provides %s\n", name);
    std::_Exit(2);
  }
  return f;
}

}  // namespace

// A weak reference, so that a program linked with libmmaemu exports its own
// xerbla_ (the reference-BLAS way to override error handling).
extern "C" void xerbla_(const char* name, const int* info, int len) __attribute__((weak));

namespace {

// Reports argument `info` of routine `name` (6 characters, blank padded, as
// the reference BLAS passes it) through the program's or the BLAS's xerbla_.
void report(const char* name, int info) {
  using Xerbla = void (*)(const char*, const int*, int);
  if (xerbla_) return xerbla_(name, &info, 6);
  if (auto x = reinterpret_cast<Xerbla>(dlsym(RTLD_DEFAULT, "xerbla_"))) return x(name, &info, 6);
  std::fprintf(stderr, " ** On entry to %.6s parameter number %2d had an illegal value\n", name, info);
}

// Reports a CBLAS-level argument error (Order, Uplo, Trans: argument `info`
// of the caller's own list) as the reference CBLAS does: through
// cblas_xerbla (the program's or the BLAS's) with the CBLAS routine name.
// The other arguments are checked on the Fortran call the CBLAS entry stands
// for, and reported through xerbla_ with its Fortran number (see report()).
void report_cblas(const char* cblas_name, int info) {
  using CblasXerbla = void (*)(int, const char*, const char*, ...);
  if (auto x = reinterpret_cast<CblasXerbla>(dlsym(RTLD_DEFAULT, "cblas_xerbla")))
    return x(info, cblas_name, "Illegal setting of parameter %d\n", info);
  std::fprintf(stderr, " ** On entry to %s parameter number %d had an illegal value\n", cblas_name, info);
}

char upper(const char* c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(*c))); }

template <class F>
void timed(Stats& s, double flops, F&& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  s.calls += 1;
  s.flops.fetch_add(flops);
  s.seconds.fetch_add(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
}

// A routine's name for messages: "SGEMM", not xerbla's padded "SGEMM ".
std::string unpadded(const char* routine) {
  std::string s(routine);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

void fail_call(const char* routine) {
  std::fprintf(stderr, "libmmaemu: %s: %s\n", unpadded(routine).c_str(), mmaemu_last_error());
  std::_Exit(2);
}

// Runs f; an exception (only allocation can throw here) stops the program
// with a message: a BLAS routine has no way to return an error.
template <class F>
void no_throw(const char* routine, F&& f) {
  try {
    f();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "libmmaemu: %s: out of memory\n", unpadded(routine).c_str());
    std::_Exit(2);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "libmmaemu: %s: %s\n", unpadded(routine).c_str(), e.what());
    std::_Exit(2);
  }
}

// The element types of the emulated gemm routines.
enum class Gemm { s, d, sb };  // sgemm (fp32), dgemm (fp64), sbgemm (bf16 A, B; fp32 C)

bool valid_trans(char t) { return t == 'N' || t == 'T' || t == 'C'; }

// Fortran gemm argument check, netlib order; returns the parameter number of
// the first bad argument (0: none).
int f77_gemm_info(char ta, char tb, int m, int n, int k, int lda, int ldb, int ldc) {
  const int nrowa = ta == 'N' ? m : k, nrowb = tb == 'N' ? k : n;
  if (!valid_trans(ta)) return 1;
  if (!valid_trans(tb)) return 2;
  if (m < 0) return 3;
  if (n < 0) return 4;
  if (k < 0) return 5;
  if (lda < std::max(1, nrowa)) return 8;
  if (ldb < std::max(1, nrowb)) return 10;
  if (ldc < std::max(1, m)) return 13;
  return 0;
}

// CBLAS gemm argument check, as the reference CBLAS and OpenBLAS make it:
// Order and the transposes are CBLAS-level errors (numbers 1-3 of the
// caller's list, `cblas_level` set); the rest is the Fortran check of the
// call the entry makes, which for row-major is the column-major transposed
// problem (A and B, M and N swapped): its Fortran number goes to xerbla_,
// and a CBLAS error handler translates it (netlib's c_xerbla adds one and,
// for row-major, swaps 4/5 and 9/11).
int cblas_gemm_info(int order, char ta, char tb, int m, int n, int k, int lda, int ldb, int ldc, bool& cblas_level) {
  cblas_level = true;
  if (order != kColMajor && order != kRowMajor) return 1;
  if (!valid_trans(ta)) return 2;
  if (!valid_trans(tb)) return 3;
  cblas_level = false;
  if (order == kColMajor) return f77_gemm_info(ta, tb, m, n, k, lda, ldb, ldc);
  return f77_gemm_info(tb, ta, n, m, k, ldb, lda, ldc);
}

// Column-major gemm on the model (arguments already checked).
void gemm_col(const char* name, Gemm kind, char ta, char tb, int m, int n, int k, double alpha, const void* A,
              int lda, const void* B, int ldb, double beta, void* C, int ldc) {
  const Config& cfg = config();
  mmaemu_gemm_options opt = cfg.options;
  if (kind == Gemm::d) {
    opt.a_storage = opt.b_storage = opt.c_storage = opt.input = opt.output = MMAEMU_FP64;
  } else if (kind == Gemm::sb) {  // bf16 operands are the unit's input as they are
    opt.a_storage = opt.b_storage = opt.input = MMAEMU_BF16;
    opt.c_storage = opt.output = MMAEMU_FP32;
    opt.saturate = 0;
  }
  const mmaemu_transpose a_op = ta == 'N' ? MMAEMU_NO_TRANS : MMAEMU_TRANS, b_op = tb == 'N' ? MMAEMU_NO_TRANS : MMAEMU_TRANS;
  if (kind == Gemm::s && cfg.block_scaled) {  // quantise, then the block-scaled unit
    if (mmaemu_sgemm_block_scaled_acc(cfg.model, cfg.policy.c_str(), cfg.options.accumulate, MMAEMU_COL_MAJOR,
                                      a_op, b_op, m, n, k, static_cast<float>(alpha), static_cast<const float*>(A),
                                      lda, static_cast<const float*>(B), ldb, static_cast<float>(beta),
                                      static_cast<float*>(C), ldc) != MMAEMU_OK)
      fail_call(name);
    return;
  }
  const int status =
      mmaemu_gemm(cfg.model, &opt, MMAEMU_COL_MAJOR, a_op, b_op, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  if (status != MMAEMU_OK) fail_call(name);
}

// The emulated Fortran and CBLAS gemm entries, shared by sgemm, dgemm and
// sbgemm. `name`: the routine's 6-character xerbla name.
void emulate_f77(Stats& stats, const char* name, Gemm kind, const char* transa, const char* transb, int m, int n,
                 int k, double alpha, const void* A, int lda, const void* B, int ldb, double beta, void* C, int ldc) {
  Depth guard;
  const char ta = upper(transa), tb = upper(transb);
  if (const int info = f77_gemm_info(ta, tb, m, n, k, lda, ldb, ldc)) return report(name, info);
  timed(stats, 2.0 * m * n * k, [&] { gemm_col(name, kind, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc); });
}

char cblas_trans(int t) { return t == kNoTrans ? 'N' : t == kTrans ? 'T' : t == kConjTrans ? 'C' : '?'; }

// Checks a CBLAS gemm call and reports its first bad argument; true if one was.
bool report_cblas_gemm(const char* cblas_name, const char* name, int order, char ta, char tb, int m, int n, int k,
                       int lda, int ldb, int ldc) {
  bool cblas_level = false;
  const int info = cblas_gemm_info(order, ta, tb, m, n, k, lda, ldb, ldc, cblas_level);
  if (info && cblas_level) report_cblas(cblas_name, info);
  else if (info) report(name, info);
  return info != 0;
}

void emulate_cblas(Stats& stats, const char* cblas_name, const char* name, Gemm kind, int order, int transa,
                   int transb, int m, int n, int k, double alpha, const void* A, int lda, const void* B, int ldb,
                   double beta, void* C, int ldc) {
  Depth guard;
  const char ta = cblas_trans(transa), tb = cblas_trans(transb);
  if (report_cblas_gemm(cblas_name, name, order, ta, tb, m, n, k, lda, ldb, ldc)) return;
  // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T.
  timed(stats, 2.0 * m * n * k, [&] {
    if (order == kColMajor) gemm_col(name, kind, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    else gemm_col(name, kind, tb, ta, n, m, k, alpha, B, ldb, A, lda, beta, C, ldc);
  });
}

}  // namespace

// ---------------------------------------------------------------------------
// sgemm

using sgemm_fn = void (*)(const char*, const char*, const int*, const int*, const int*, const float*, const float*,
                          const int*, const float*, const int*, const float*, float*, const int*);

// Fortran entry; hidden string lengths are never read (Eigen passes none).
MMAEMU_EXPORT void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                          const float* alpha, const float* A, const int* lda, const float* B, const int* ldb,
                          const float* beta, float* C, const int* ldc) {
  const Config& cfg = config();
  if (!cfg.model || t_depth) {
    static const auto real = reinterpret_cast<sgemm_fn>(real_symbol("sgemm_"));
    return real(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  }
  emulate_f77(g_sgemm, "SGEMM ", Gemm::s, transa, transb, *m, *n, *k, *alpha, A, *lda, B, *ldb, *beta, C, *ldc);
}
MMAEMU_EXPORT void SGEMM(const char* ta, const char* tb, const int* m, const int* n, const int* k, const float* alpha,
                         const float* A, const int* lda, const float* B, const int* ldb, const float* beta, float* C,
                         const int* ldc) {
  sgemm_(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

using cblas_sgemm_fn = void (*)(int, int, int, int, int, int, float, const float*, int, const float*, int, float,
                                float*, int);

MMAEMU_EXPORT void cblas_sgemm(int order, int ta, int tb, int m, int n, int k, float alpha, const float* A, int lda,
                               const float* B, int ldb, float beta, float* C, int ldc) {
  const Config& cfg = config();
  if (!cfg.model || t_depth) {
    static const auto real = reinterpret_cast<cblas_sgemm_fn>(real_symbol("cblas_sgemm"));
    return real(order, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  }
  emulate_cblas(g_sgemm, "cblas_sgemm", "SGEMM ", Gemm::s, order, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C,
                ldc);
}

// ---------------------------------------------------------------------------
// ssyrk: C = alpha op(A) op(A)^T + beta C on one triangle (numpy's A @ A.T).
// Each element gets exactly the bits the model's GEMM element would: the
// triangle is computed blockwise by GEMMs on tiles (an element of the model's
// GEMM depends only on its row of op(A), column of op(A)^T and c, never on
// the tiling). Off-diagonal tiles lie wholly in the triangle and are written
// in place; a diagonal tile goes through a small scratch tile (bounded
// memory at any n: kSyrkTile^2 floats; a block-scaled policy adds op(A)'s
// codes, one byte per element).

using ssyrk_fn = void (*)(const char*, const char*, const int*, const int*, const float*, const float*, const int*,
                          const float*, float*, const int*);

namespace {
constexpr int kSyrkTile = 512;       // diagonal tile: 1 MiB of scratch
constexpr int kSyrkPanelRows = 4096;  // rows per in-place GEMM (bounds the driver's packing)

struct SyrkCall {
  char uplo, trans;
  int n, k;
  float alpha;
  const float* A;
  int lda;
  float beta;
  const ScaledOperand* scaled;  // block-scaled policy: op(A) quantised once; else null
};

// C(i0:i0+rows, j0:j0+cols) (column-major, ldc) = the GEMM tile of op(A) op(A)^T.
void syrk_tile(const SyrkCall& s, int i0, int rows, int j0, int cols, float* C, int ldc) {
  if (s.scaled) {
    if (mmaemu_shim::scaled_syrk_tile(config(), *s.scaled, s.alpha, s.beta, i0, rows, j0, cols, C, ldc) != MMAEMU_OK)
      fail_call("SSYRK ");
    return;
  }
  const bool notrans = s.trans == 'N';
  // op(A) is n x k: A (n x k) if 'N', else A^T with A k x n; row i of op(A)
  // starts at A + i ('N') or A + i*lda ('T').
  auto row_of = [&](int i) {
    return s.A + (notrans ? static_cast<std::size_t>(i) : static_cast<std::size_t>(i) * s.lda);
  };
  gemm_col("SSYRK ", Gemm::s, notrans ? 'N' : 'T', notrans ? 'T' : 'N', rows, cols, s.k, s.alpha, row_of(i0),
           s.lda, row_of(j0), s.lda, s.beta, C, ldc);
}

void syrk_tile_col(const SyrkCall& s, float* C, int ldc) {
  auto at = [&](float* base, int ld, int i, int j) { return base + static_cast<std::size_t>(j) * ld + i; };
  const int step = kSyrkTile;
  const std::size_t tile = static_cast<std::size_t>(std::min(step, std::max(1, s.n)));
  std::vector<float> W;
  no_throw("SSYRK ", [&] { W.assign(tile * tile, 0.0f); });
  for (int j0 = 0; j0 < s.n; j0 += step) {
    const int nb = std::min(step, s.n - j0);
    // The diagonal tile through W: the triangle from C (read only if beta != 0).
    auto in_tri = [&](int i, int j) { return s.uplo == 'U' ? i <= j : i >= j; };
    for (int j = 0; j < nb; ++j)
      for (int i = 0; i < nb; ++i)
        *at(W.data(), nb, i, j) = s.beta != 0.0f && in_tri(i, j) ? *at(C, ldc, j0 + i, j0 + j) : 0.0f;
    syrk_tile(s, j0, nb, j0, nb, W.data(), nb);
    for (int j = 0; j < nb; ++j)
      for (int i = 0; i < nb; ++i)
        if (in_tri(i, j)) *at(C, ldc, j0 + i, j0 + j) = *at(W.data(), nb, i, j);
    // The rest of the block column, in place: rows above (upper) or below (lower).
    const int first = s.uplo == 'U' ? 0 : j0 + nb, last = s.uplo == 'U' ? j0 : s.n;
    for (int i0 = first; i0 < last; i0 += kSyrkPanelRows) {
      const int rows = std::min(kSyrkPanelRows, last - i0);
      syrk_tile(s, i0, rows, j0, nb, at(C, ldc, i0, j0), ldc);
    }
  }
}

void syrk_col(SyrkCall s, float* C, int ldc) {
  // A block-scaled policy quantises op(A) once, whole (nvfp4: one scale per
  // tensor); the tiles then read its codes (scaled_sgemm.cpp).
  ScaledOperand q;
  if (config().block_scaled) {
    if (const std::string error = mmaemu_shim::scaled_k_error(config(), s.k); !error.empty()) {
      std::fprintf(stderr, "libmmaemu: SSYRK: %s\n", error.c_str());
      std::_Exit(2);
    }
    int status = MMAEMU_OK;
    no_throw("SSYRK ", [&] { status = mmaemu_shim::quantise_syrk_operand(config(), s.trans, s.n, s.k, s.A, s.lda, q); });
    if (status != MMAEMU_OK) fail_call("SSYRK ");
    s.scaled = &q;
  }
  syrk_tile_col(s, C, ldc);
}

// The Fortran ssyrk check (netlib order); the parameter number, 0 if none.
int syrk_info(char uplo, char trans, int n, int k, int lda, int ldc) {
  const int nrowa = trans == 'N' ? n : k;
  if (uplo != 'U' && uplo != 'L') return 1;
  if (trans != 'N' && trans != 'T' && trans != 'C') return 2;
  if (n < 0) return 3;
  if (k < 0) return 4;
  if (lda < std::max(1, nrowa)) return 7;
  if (ldc < std::max(1, n)) return 10;
  return 0;
}
}  // namespace

MMAEMU_EXPORT void ssyrk_(const char* uplo, const char* trans, const int* n, const int* k, const float* alpha,
                          const float* A, const int* lda, const float* beta, float* C, const int* ldc) {
  const Config& cfg = config();
  if (!cfg.model || t_depth) {
    static const auto real = reinterpret_cast<ssyrk_fn>(real_symbol("ssyrk_"));
    return real(uplo, trans, n, k, alpha, A, lda, beta, C, ldc);
  }
  Depth guard;
  const char u = upper(uplo), t = upper(trans);
  if (const int info = syrk_info(u, t, *n, *k, *lda, *ldc)) return report("SSYRK ", info);
  timed(g_ssyrk, 1.0 * *n * *n * *k, [&] { syrk_col({u, t, *n, *k, *alpha, A, *lda, *beta, nullptr}, C, *ldc); });
}

using cblas_ssyrk_fn = void (*)(int, int, int, int, int, float, const float*, int, float, float*, int);

MMAEMU_EXPORT void cblas_ssyrk(int order, int uplo, int trans, int n, int k, float alpha, const float* A, int lda,
                               float beta, float* C, int ldc) {
  const Config& cfg = config();
  if (!cfg.model || t_depth) {
    static const auto real = reinterpret_cast<cblas_ssyrk_fn>(real_symbol("cblas_ssyrk"));
    return real(order, uplo, trans, n, k, alpha, A, lda, beta, C, ldc);
  }
  Depth guard;
  char u = uplo == kUpper ? 'U' : uplo == kLower ? 'L' : '?';
  char t = trans == kNoTrans ? 'N' : (trans == kTrans || trans == kConjTrans) ? 'T' : '?';
  // Order, Uplo and Trans are CBLAS-level errors (as in the reference CBLAS).
  const int cblas_info = order != kColMajor && order != kRowMajor ? 1 : u == '?' ? 2 : t == '?' ? 3 : 0;
  if (cblas_info) return report_cblas("cblas_ssyrk", cblas_info);
  if (order == kRowMajor) {  // row-major = column-major of the transpose: swap uplo and trans
    u = u == 'U' ? 'L' : 'U';
    t = t == 'N' ? 'T' : 'N';
  }
  if (const int info = syrk_info(u, t, n, k, lda, ldc)) return report("SSYRK ", info);
  timed(g_ssyrk, 1.0 * n * n * k, [&] { syrk_col({u, t, n, k, alpha, A, lda, beta, nullptr}, C, ldc); });
}

// ---------------------------------------------------------------------------
// dgemm: native by default; MMA_DGEMM=model runs the model's fp64 unit (an
// IEEE FMA chain in the unit's order).

using dgemm_fn = void (*)(const char*, const char*, const int*, const int*, const int*, const double*, const double*,
                          const int*, const double*, const int*, const double*, double*, const int*);
using cblas_dgemm_fn = void (*)(int, int, int, int, int, int, double, const double*, int, const double*, int, double,
                                double*, int);

MMAEMU_EXPORT void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                          const double* alpha, const double* A, const int* lda, const double* B, const int* ldb,
                          const double* beta, double* C, const int* ldc) {
  const Config& cfg = config();
  if (!cfg.model || !cfg.emulate_dgemm || t_depth) {
    if (cfg.model && !t_depth) mmaemu::shim::count_forwarded("dgemm", 2.0 * *m * *n * *k);
    static const auto real = reinterpret_cast<dgemm_fn>(real_symbol("dgemm_"));
    return real(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  }
  emulate_f77(g_dgemm, "DGEMM ", Gemm::d, transa, transb, *m, *n, *k, *alpha, A, *lda, B, *ldb, *beta, C, *ldc);
}

MMAEMU_EXPORT void cblas_dgemm(int order, int ta, int tb, int m, int n, int k, double alpha, const double* A, int lda,
                               const double* B, int ldb, double beta, double* C, int ldc) {
  const Config& cfg = config();
  if (!cfg.model || !cfg.emulate_dgemm || t_depth) {
    if (cfg.model && !t_depth) mmaemu::shim::count_forwarded("dgemm", 2.0 * m * n * k);
    static const auto real = reinterpret_cast<cblas_dgemm_fn>(real_symbol("cblas_dgemm"));
    return real(order, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  }
  emulate_cblas(g_dgemm, "cblas_dgemm", "DGEMM ", Gemm::d, order, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C,
                ldc);
}

// ---------------------------------------------------------------------------
// sbgemm: OpenBLAS's bf16 GEMM (A, B bf16 as uint16_t, C fp32), the routine
// a GPU BLAS runs on its bf16 unit. Emulated on the model's bf16 -> fp32 row;
// a model without one stops the program. With MMA_MODEL unset it goes to the
// system BLAS's sbgemm, or, where that BLAS has none (Debian's OpenBLAS
// declares but does not export it), to its sgemm on the exactly widened
// operands.

using sbgemm_fn = void (*)(const char*, const char*, const int*, const int*, const int*, const float*,
                           const uint16_t*, const int*, const uint16_t*, const int*, const float*, float*, const int*);
using cblas_sbgemm_fn = void (*)(int, int, int, int, int, int, float, const uint16_t*, int, const uint16_t*, int,
                                 float, float*, int);

namespace {
// bf16 -> fp32 is exact: the bf16 bits are the high half of the fp32 bits.
std::vector<float> widen_bf16(const uint16_t* x, int rows, int cols, int ld) {
  std::vector<float> w(static_cast<std::size_t>(std::max(1, rows)) * std::max(0, cols));
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) {
      const uint32_t bits = static_cast<uint32_t>(x[static_cast<std::size_t>(j) * ld + i]) << 16;
      std::memcpy(&w[static_cast<std::size_t>(j) * rows + i], &bits, 4);
    }
  return w;
}

// Native sbgemm when nothing is emulated (arguments already checked).
void native_sbgemm(char ta, char tb, int m, int n, int k, float alpha, const uint16_t* A, int lda,
                   const uint16_t* B, int ldb, float beta, float* C, int ldc) {
  static const auto sgemm = reinterpret_cast<sgemm_fn>(real_symbol("sgemm_"));
  const int ar = ta == 'N' ? m : k, ac = ta == 'N' ? k : m, br = tb == 'N' ? k : n, bc = tb == 'N' ? n : k;
  std::vector<float> a, b;
  no_throw("SBGEMM", [&] { a = widen_bf16(A, ar, ac, lda), b = widen_bf16(B, br, bc, ldb); });
  const int la = std::max(1, ar), lb = std::max(1, br);
  const char sa[2] = {ta, 0}, sb[2] = {tb, 0};
  sgemm(sa, sb, &m, &n, &k, &alpha, a.data(), &la, b.data(), &lb, &beta, C, &ldc);
}
}  // namespace

MMAEMU_EXPORT void sbgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
                           const float* alpha, const uint16_t* A, const int* lda, const uint16_t* B, const int* ldb,
                           const float* beta, float* C, const int* ldc) {
  const Config& cfg = config();
  if (cfg.model && !t_depth)
    return emulate_f77(g_sbgemm, "SBGEMM", Gemm::sb, transa, transb, *m, *n, *k, *alpha, A, *lda, B, *ldb, *beta, C,
                       *ldc);
  static const auto real = reinterpret_cast<sbgemm_fn>(find_real("sbgemm_"));
  if (real) return real(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  Depth guard;
  const char ta = upper(transa), tb = upper(transb);
  if (const int info = f77_gemm_info(ta, tb, *m, *n, *k, *lda, *ldb, *ldc)) return report("SBGEMM", info);
  native_sbgemm(ta, tb, *m, *n, *k, *alpha, A, *lda, B, *ldb, *beta, C, *ldc);
}

MMAEMU_EXPORT void cblas_sbgemm(int order, int transa, int transb, int m, int n, int k, float alpha,
                                const uint16_t* A, int lda, const uint16_t* B, int ldb, float beta, float* C,
                                int ldc) {
  const Config& cfg = config();
  if (cfg.model && !t_depth)
    return emulate_cblas(g_sbgemm, "cblas_sbgemm", "SBGEMM", Gemm::sb, order, transa, transb, m, n, k, alpha, A,
                         lda, B, ldb, beta, C, ldc);
  static const auto real = reinterpret_cast<cblas_sbgemm_fn>(find_real("cblas_sbgemm"));
  if (real) return real(order, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  Depth guard;
  const char ta = cblas_trans(transa), tb = cblas_trans(transb);
  if (report_cblas_gemm("cblas_sbgemm", "SBGEMM", order, ta, tb, m, n, k, lda, ldb, ldc)) return;
  if (order == kColMajor) native_sbgemm(ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
  else native_sbgemm(tb, ta, n, m, k, alpha, B, ldb, A, lda, beta, C, ldc);
}

// ---------------------------------------------------------------------------
// What the other shim files use (shim_internal.h).

namespace mmaemu::shim {
const mmaemu_model* model() { return config().model; }
const mmaemu_gemm_options& options() { return config().options; }
bool emulate_dgemm() { return config().emulate_dgemm; }
void* real_symbol(const char* name) { return ::real_symbol(name); }
void report(const char* name, int info) { ::report(name, info); }
void config_error(const char* message) { ::config_error(message); }
void model_gemm(const char* name, bool fp64, char ta, char tb, int m, int n, int k, double alpha, const void* A,
                int lda, const void* B, int ldb, double beta, void* C, int ldc) {
  gemm_col(name, fp64 ? Gemm::d : Gemm::s, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}
bool nested() { return t_depth != 0; }
NestGuard::NestGuard() { ++t_depth; }
NestGuard::~NestGuard() { --t_depth; }
}  // namespace mmaemu::shim
