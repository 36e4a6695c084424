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
  const bool fp64_unit = cfg.emulate_dgemm && cfg.dgemm_scheme.empty();
  for (int pass = 0; cfg.options.schedule && pass < (fp64_unit ? 2 : 1); ++pass) {
    if (pass == 1) opt.a_storage = opt.b_storage = opt.c_storage = opt.input = opt.output = MMAEMU_FP64;
    if (mmaemu_gemm(cfg.model, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 0, 0, 0, 1.0, nullptr, 1,
                    nullptr, 1, 0.0, nullptr, 1) != MMAEMU_OK)
      return std::string("MMA_SCHEDULE: ") + mmaemu_last_error();
  }
  return "";
}

// The schedule an Ozaki scheme's unit reads: a floating-point unit's GEMM
// schedule; an integer unit's sums are exact, MMA_SCHEDULE is sgemm's there.
const char* ozaki_schedule(const Config& cfg) {
  const bool integer = cfg.ozaki_input == MMAEMU_S8 || cfg.ozaki_input == MMAEMU_S4 ||
                       cfg.ozaki_input == MMAEMU_U8 || cfg.ozaki_input == MMAEMU_U4;
  return integer ? nullptr : cfg.options.schedule;
}

// MMA_DGEMM=ozaki...: the unit is MMA_INPUT_FORMAT's format (its rounding
// suffix aside; int8 when unset). An integer format is no sgemm policy:
// sgemm then runs the model's default policy. The scheme and unit are
// checked by a dgemm of size zero.
std::string select_ozaki(Config& cfg, const std::string& policy, const char* policy_var) {
  const std::string format = policy.substr(0, policy.find(':'));
  cfg.ozaki_input = MMAEMU_S8;
  if (!format.empty() && mmaemu_format_parse(format.c_str(), &cfg.ozaki_input) != MMAEMU_OK)
    return std::string(policy_var) + "=" + policy + " (MMA_DGEMM=" + cfg.dgemm_scheme + "): " + mmaemu_last_error();
  mmaemu_dgemm_options opt;
  mmaemu_dgemm_options_init(&opt);
  opt.scheme = cfg.dgemm_scheme.c_str();
  opt.input = cfg.ozaki_input;
  opt.schedule = ozaki_schedule(cfg);
  if (mmaemu_dgemm_ex(cfg.model, &opt, MMAEMU_COL_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 0, 0, 0, 1.0, nullptr, 1,
                      nullptr, 1, 0.0, nullptr, 1, nullptr) != MMAEMU_OK)
    return "MMA_DGEMM=" + cfg.dgemm_scheme + " with " + policy_var + "=" + mmaemu_format_name(cfg.ozaki_input) +
           " on " + mmaemu_model_name(cfg.model) + ": " + mmaemu_last_error();
  return "";
}

bool is_integer_format(const std::string& policy) {
  mmaemu_format f;
  const std::string format = policy.substr(0, policy.find(':'));
  return mmaemu_format_parse(format.c_str(), &f) == MMAEMU_OK &&
         (f == MMAEMU_S8 || f == MMAEMU_U8 || f == MMAEMU_S4 || f == MMAEMU_U4 || f == MMAEMU_S32);
}

}  // namespace

const char* ozaki_schedule_of(const Config& cfg) { return ozaki_schedule(cfg); }

std::string select(Config& cfg, const std::string& name, const std::string& policy, const char* model_var,
                   const char* policy_var) {
  cfg.model_name = name;
  if (name.empty()) return "";
  if (mmaemu_model_lookup(name.c_str(), &cfg.model) != MMAEMU_OK) return std::string(model_var) + ": " + mmaemu_last_error();
  if (!cfg.dgemm_scheme.empty())
    if (std::string error = select_ozaki(cfg, policy, policy_var); !error.empty()) return error;
  const bool sgemm_default = policy.empty() || (!cfg.dgemm_scheme.empty() && is_integer_format(policy));
  cfg.policy = sgemm_default ? mmaemu_default_policy(cfg.model) : policy;
  cfg.block_scaled = false;
  const std::string error =
      is_block_scaled_policy(cfg.policy) ? select_block_scaled(cfg, policy_var) : select_policy(cfg, policy_var);
  if (!error.empty()) return error;
  int m, n, k;
  if (cfg.emulate_dgemm && cfg.dgemm_scheme.empty() && mmaemu_tile_shape(cfg.model, MMAEMU_FP64, MMAEMU_FP64, &m, &n, &k) != MMAEMU_OK)
    return std::string("MMA_DGEMM=model: ") + mmaemu_last_error();
  return check_schedule(cfg);
}

namespace {

// "native", "model", or "ozaki2:14 on int8 (exactness check)".
std::string dgemm_name(const Config& cfg) {
  if (!cfg.dgemm_scheme.empty())
    return cfg.dgemm_scheme + " on " + mmaemu_format_name(cfg.ozaki_input) +
           (cfg.ozaki_check ? " (exactness check)" : "");
  return cfg.emulate_dgemm ? "model" : "native";
}

}  // namespace

std::string describe(const Config& cfg) {
  if (!cfg.model) return "no model (every BLAS call goes to the system BLAS)";
  return std::string("model ") + mmaemu_model_name(cfg.model) + ", sgemm input " + cfg.policy + ", " +
         mmaemu_accumulate_name(cfg.options.accumulate) + ", dgemm " + dgemm_name(cfg) + (cfg.schedule.empty() ? "" : ", schedule " + cfg.schedule);
}

}  // namespace mmaemu::shim
