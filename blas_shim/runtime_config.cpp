// SPDX-License-Identifier: BSD-3-Clause
// The setting from the environment (docs/shim.md, the table of variables):
// read and checked at the first BLAS call; an unknown or malformed value
// stops the program with exit status 2, never a silent native fallback.
// Calls runtime_select, runtime_stats and runtime.cpp, none of which calls
// it.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "runtime.h"

namespace mmaemu::shim {
namespace {

// MMA_VERBOSE=0|1 (at exit: the report of runtime_stats.cpp, started once
// the setting is complete).
void read_verbose(Config& cfg) {
  const char* v = std::getenv("MMA_VERBOSE");
  if (v && *v && std::strcmp(v, "0") != 0 && std::strcmp(v, "1") != 0)
    config_error(std::string("MMA_VERBOSE='") + v + "' (valid: 0, 1)");
  cfg.verbose = v && std::strcmp(v, "1") == 0;
}

// The modes that keep the BLAS contract, the ones a BLAS call may run under
// (mmaemu_accumulate_keeps_blas): "gpu-blas, blas-into-c".
std::string blas_modes() {
  std::string names;
  for (int mode = 0; const char* name = mmaemu_accumulate_name(mode); ++mode)
    if (mmaemu_accumulate_keeps_blas(mode)) names += (names.empty() ? "" : ", ") + std::string(name);
  return names;
}

// MMA_ACCUMULATE: a mode of the C API's table (mmaemu_accumulate_parse) that
// keeps the BLAS contract.
void read_accumulate(Config& cfg) {
  const char* a = std::getenv("MMA_ACCUMULATE");
  if (!a || !*a) return;
  mmaemu_accumulate mode;
  if (mmaemu_accumulate_parse(a, &mode) != MMAEMU_OK)
    config_error(std::string("MMA_ACCUMULATE: ") + mmaemu_last_error() + "; the BLAS shim takes " + blas_modes());
  if (!mmaemu_accumulate_keeps_blas(mode))
    config_error(std::string("MMA_ACCUMULATE='") + a + "' does not keep the BLAS contract alpha*op(A)*op(B) + " +
                 "beta*C (valid: " + blas_modes() + ")");
  cfg.options.accumulate = mode;
}

// A "native" or "model" variable (MMA_DGEMM, MMA_GEMV): true for model.
bool read_native_or_model(const char* var) {
  const char* v = std::getenv(var);
  if (!v || !*v || std::strcmp(v, "native") == 0) return false;
  if (std::strcmp(v, "model") != 0) config_error(std::string(var) + "='" + v + "' (valid: native, model)");
  return true;
}

// MMA_DGEMM: native, model, or an Ozaki scheme (ozaki1:S, ozaki1:S:all,
// ozaki2:N; checked with its unit in select()); MMA_OZAKI_CHECK=0|1.
void read_dgemm(Config& cfg) {
  const char* v = std::getenv("MMA_DGEMM");
  if (v && std::strncmp(v, "ozaki", 5) == 0) {
    cfg.dgemm_scheme = v;
    cfg.emulate_dgemm = true;
  } else if (v && *v && std::strcmp(v, "native") != 0 && std::strcmp(v, "model") != 0) {
    config_error(std::string("MMA_DGEMM='") + v + "' (valid: native, model, ozaki1:S, ozaki1:S:all, ozaki2:N)");
  } else {
    cfg.emulate_dgemm = read_native_or_model("MMA_DGEMM");
  }
  const char* c = std::getenv("MMA_OZAKI_CHECK");
  if (c && *c && std::strcmp(c, "0") != 0 && std::strcmp(c, "1") != 0)
    config_error(std::string("MMA_OZAKI_CHECK='") + c + "' (valid: 0, 1)");
  cfg.ozaki_check = c && std::strcmp(c, "1") == 0;
  if (cfg.ozaki_check && cfg.dgemm_scheme.empty())
    config_error("MMA_OZAKI_CHECK=1 checks an Ozaki scheme's products: set MMA_DGEMM=ozaki1:S or ozaki2:N");
}

void read_environment(Config& cfg) {
  read_verbose(cfg);
  mmaemu_gemm_options_init(&cfg.options);
  read_accumulate(cfg);
  read_dgemm(cfg);
  cfg.gemv_on_model = read_native_or_model("MMA_GEMV");
  if (const char* sched = std::getenv("MMA_SCHEDULE"); sched && *sched) cfg.schedule = sched;
  cfg.options.schedule = cfg.schedule.empty() ? nullptr : cfg.schedule.c_str();
  const char* name = std::getenv("MMA_MODEL");
  const char* policy = std::getenv("MMA_INPUT_FORMAT");
  const std::string error = select(cfg, name ? name : "", policy ? policy : "", "MMA_MODEL", "MMA_INPUT_FORMAT");
  if (!error.empty()) config_error(error);
  if (cfg.verbose) {
    std::fprintf(stderr, "libmmaemu %s: %s%s\n", mmaemu_version(), describe(cfg).c_str(),
                 cfg.model ? "" : ": MMA_MODEL is not set");
    start_report(cfg);
  }
}

}  // namespace

const Config& env_config() {
  static Config cfg;
  static std::once_flag once;
  std::call_once(once, [] { read_environment(cfg); });
  return cfg;
}

}  // namespace mmaemu::shim
