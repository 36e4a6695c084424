// SPDX-License-Identifier: BSD-3-Clause
// Runtime control of the BLAS shim (mmaemu_shim_set / mmaemu_shim_get): the
// in-process switch behind Python's `with mmaemu.emulate(...)`, and the
// setting a BLAS call runs under (current_config, config). The top of the
// runtime: it calls runtime_config, runtime_select, runtime_stats and
// runtime.cpp, none of which calls it.
//
// A switch publishes a pointer to an immutable setting with one atomic
// store; a BLAS call loads it once when it enters the shim (config()), so
// calls on other threads never see half a setting and a call runs entirely
// under the setting it started with. Settings are kept for the life of the
// process, one per distinct (model, policy) ever set, so a call still
// running on an old one never reads freed memory.
#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "runtime.h"

namespace mmaemu::shim {
namespace {

std::mutex g_switch;  // serialises mmaemu_shim_set
std::atomic<const Config*> g_current{nullptr};
// Never destroyed (the settings live as long as the process; a call on
// another thread during exit may still read one), so that their models stay
// reachable for LeakSanitizer too.
auto& g_settings = *new std::map<std::pair<std::string, std::string>, std::unique_ptr<Config>>;  // under g_switch

// A new setting for (name, policy): the environment's accumulation, dgemm,
// gemv, schedule and verbosity; returns the C API status.
int make_setting(const std::string& name, const std::string& policy, std::unique_ptr<Config>& slot) {
  const Config& env = env_config();
  auto cfg = std::make_unique<Config>();
  cfg->verbose = env.verbose;
  cfg->emulate_dgemm = env.emulate_dgemm;
  cfg->dgemm_scheme = env.dgemm_scheme;
  cfg->ozaki_check = env.ozaki_check;
  cfg->gemv_on_model = env.gemv_on_model;
  mmaemu_gemm_options_init(&cfg->options);
  cfg->options.accumulate = env.options.accumulate;
  cfg->schedule = env.schedule;
  cfg->options.schedule = cfg->schedule.empty() ? nullptr : cfg->schedule.c_str();
  if (std::string error = select(*cfg, name, policy, "model", "input"); !error.empty()) {
    mmaemu_model_free(cfg->model);
    return mmaemu_set_last_error(cfg->model ? MMAEMU_ERR_ARGUMENT : MMAEMU_ERR_UNKNOWN_MODEL,
                                 ("mmaemu_shim_set: " + error).c_str());
  }
  slot = std::move(cfg);
  return MMAEMU_OK;
}

}  // namespace

const Config& current_config() {
  const Config* c = g_current.load(std::memory_order_acquire);
  return c ? *c : env_config();
}

const Config& config() {
  thread_local const Config* call_config = nullptr;
  if (!nested() || !call_config) call_config = &current_config();
  return *call_config;
}

}  // namespace mmaemu::shim

using mmaemu::shim::Config;

extern "C" MMAEMU_API int mmaemu_shim_set(const char* model, const char* policy) {
  namespace shim = mmaemu::shim;
  const Config& env = shim::env_config();
  const std::string name = model ? model : "", pol = policy ? policy : "";
  std::lock_guard<std::mutex> lock(shim::g_switch);
  std::unique_ptr<Config>& slot = shim::g_settings[{name, pol}];
  if (!slot) {
    if (const int status = shim::make_setting(name, pol, slot)) {
      shim::g_settings.erase({name, pol});
      return status;
    }
  }
  if (env.verbose && &shim::current_config() != slot.get()) shim::report_switch(*slot);
  shim::g_current.store(slot.get(), std::memory_order_release);
  return mmaemu_set_last_error(MMAEMU_OK, "");
}

extern "C" MMAEMU_API int mmaemu_shim_get(const char** model, const char** policy) {
  if (!model || !policy) return mmaemu_set_last_error(MMAEMU_ERR_ARGUMENT, "mmaemu_shim_get: null argument");
  const Config& cfg = mmaemu::shim::current_config();
  *model = cfg.model_name.c_str();
  *policy = cfg.policy.c_str();
  return mmaemu_set_last_error(MMAEMU_OK, "");
}
