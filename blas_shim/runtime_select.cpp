// SPDX-License-Identifier: BSD-3-Clause
// A setting's model and sgemm input policy, checked when the setting is made
// (from the environment or by mmaemu_shim_set): an element-wise policy of
// mmaemu_parse_policy, or a block-scaled one (mxfp8, ..., nvfp4;
// docs/block-scaled.md) on a model with the unit; and a setting's one-line
// name (describe). Calls only the C API.
#include <string>

#include "runtime.h"

namespace mmaemu::shim {
namespace {

bool is_block_scaled_policy(const std::string& policy) {
  mmaemu_block_scale_desc desc;
  return mmaemu_parse_block_scaled_policy(policy.c_str(), &desc) == MMAEMU_OK;
}

// The policy and schedule of cfg as the one sgemm entry checks them: a GEMM
// of size zero through mmaemu_sgemm_ex; "" or its message.
std::string sgemm_ex_error(const Config& cfg) {
  mmaemu_sgemm_options opt;
  mmaemu_sgemm_options_init(&opt);
  opt.policy = cfg.policy.c_str();
  opt.schedule = cfg.options.schedule;
  opt.accumulate = cfg.options.accumulate;
  if (mmaemu_sgemm_ex(cfg.model, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 0, 0, 0, 1.0f, nullptr, 1,
                      nullptr, 1, 0.0f, nullptr, 1) != MMAEMU_OK)
    return mmaemu_last_error();
  return "";
}

// The registered models that have a unit for `desc`, comma separated.
std::string models_with_unit(const mmaemu_block_scale_desc& desc) {
  std::string names;
  for (size_t i = 0; i < mmaemu_model_count(); ++i) {
    mmaemu_model* m = nullptr;
    if (mmaemu_model_lookup(mmaemu_model_list(i), &m) != MMAEMU_OK) continue;
    if (mmaemu_tile_block_scaled_shape(m, &desc, nullptr, nullptr, nullptr, nullptr) == MMAEMU_OK)
      names += (names.empty() ? "" : ", ") + std::string(mmaemu_model_name(m));
    mmaemu_model_free(m);
  }
  return names.empty() ? "none" : names;
}

// A block-scaled policy: refuses a model without the unit (naming those
// that have it) and settings the path does not read.
std::string select_block_scaled(Config& cfg, const char* policy_var) {
  mmaemu_block_scale_desc desc;
  const std::string setting = std::string(policy_var) + "=" + cfg.policy + ": ";
  if (mmaemu_parse_block_scaled_policy(cfg.policy.c_str(), &desc) != MMAEMU_OK)
    return setting + mmaemu_last_error();
  if (mmaemu_tile_block_scaled_shape(cfg.model, &desc, nullptr, nullptr, nullptr, nullptr) != MMAEMU_OK)
    return setting + "model " + mmaemu_model_name(cfg.model) + " has no unit for it (models that have one: " +
           models_with_unit(desc) + ")";
  // MMA_SCHEDULE=chain, the default, is what the block-scaled path does.
  if (const std::string error = sgemm_ex_error(cfg); !error.empty()) return setting + "MMA_SCHEDULE: " + error;
  cfg.block_scaled = true;
  return "";
}

// An element-wise policy: parsed, and the model has its unit.
std::string select_policy(Config& cfg, const char* policy_var) {
  int m, n, k;
  if (mmaemu_parse_policy(cfg.policy.c_str(), &cfg.options) != MMAEMU_OK)
    return std::string(policy_var) + ": " + sgemm_ex_error(cfg);  // the message lists both kinds
  if (mmaemu_tile_shape(cfg.model, cfg.options.input, MMAEMU_FP32, &m, &n, &k) != MMAEMU_OK)
    return std::string(policy_var) + "=" + cfg.policy + ": " + mmaemu_last_error();
  return "";
}

// MMA_SCHEDULE (cfg.options.schedule): checked against the sgemm unit, and
// the fp64 one under MMA_DGEMM=model, by a GEMM of size zero.
std::string check_schedule(const Config& cfg) {
  mmaemu_gemm_options opt = cfg.options;
  for (int pass = 0; cfg.options.schedule && pass < (cfg.emulate_dgemm ? 2 : 1); ++pass) {
    if (pass == 1) opt.a_storage = opt.b_storage = opt.c_storage = opt.input = opt.output = MMAEMU_FP64;
    if (mmaemu_gemm(cfg.model, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 0, 0, 0, 1.0, nullptr, 1,
                    nullptr, 1, 0.0, nullptr, 1) != MMAEMU_OK)
      return std::string("MMA_SCHEDULE: ") + mmaemu_last_error();
  }
  return "";
}

}  // namespace

std::string select(Config& cfg, const std::string& name, const std::string& policy, const char* model_var,
                   const char* policy_var) {
  cfg.model_name = name;
  if (name.empty()) return "";
  if (mmaemu_model_lookup(name.c_str(), &cfg.model) != MMAEMU_OK) return std::string(model_var) + ": " + mmaemu_last_error();
  cfg.policy = policy.empty() ? mmaemu_default_policy(cfg.model) : policy;
  cfg.block_scaled = false;
  const std::string error =
      is_block_scaled_policy(cfg.policy) ? select_block_scaled(cfg, policy_var) : select_policy(cfg, policy_var);
  if (!error.empty()) return error;
  int m, n, k;
  if (cfg.emulate_dgemm && mmaemu_tile_shape(cfg.model, MMAEMU_FP64, MMAEMU_FP64, &m, &n, &k) != MMAEMU_OK)
    return std::string("MMA_DGEMM=model: ") + mmaemu_last_error();
  return check_schedule(cfg);
}

std::string describe(const Config& cfg) {
  if (!cfg.model) return "no model (every BLAS call goes to the system BLAS)";
  return std::string("model ") + mmaemu_model_name(cfg.model) + ", sgemm input " + cfg.policy + ", " +
         mmaemu_accumulate_name(cfg.options.accumulate) + ", dgemm " +
         (cfg.emulate_dgemm ? "model" : "native") + (cfg.schedule.empty() ? "" : ", schedule " + cfg.schedule);
}

}  // namespace mmaemu::shim
