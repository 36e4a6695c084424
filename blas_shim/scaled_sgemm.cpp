// SPDX-License-Identifier: BSD-3-Clause
// The block-scaled sgemm input policies of the BLAS shim (mxfp8, mxfp8:e5m2,
// mxfp6, mxfp6:e3m2, mxfp4, nvfp4; docs/block-scaled.md): checked once when
// the setting is made. The products run through mmaemu_sgemm_block_scaled
// (shim.cpp's gemm_col), which quantises and calls the block-scaled unit.
#include <string>

#include "shim_config.h"

namespace {

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

}  // namespace

bool mmaemu_shim::is_block_scaled_policy(const std::string& policy) {
  mmaemu_block_scale_desc desc;
  return mmaemu_parse_block_scaled_policy(policy.c_str(), &desc) == MMAEMU_OK;
}

std::string mmaemu_shim::select_block_scaled(Config& cfg, const char* policy_var) {
  mmaemu_block_scale_desc desc;
  const std::string setting = std::string(policy_var) + "=" + cfg.policy + ": ";
  if (mmaemu_parse_block_scaled_policy(cfg.policy.c_str(), &desc) != MMAEMU_OK)
    return setting + mmaemu_last_error();
  if (mmaemu_tile_block_scaled_shape(cfg.model, &desc, nullptr, nullptr, nullptr, nullptr) != MMAEMU_OK)
    return setting + "model " + mmaemu_model_name(cfg.model) + " has no unit for it (models that have one: " +
           models_with_unit(desc) + ")";
  // Settings the block-scaled path does not read are refused, not ignored.
  if (cfg.options.schedule) return setting + "MMA_SCHEDULE does not apply to a block-scaled policy";
  if (cfg.options.accumulate != MMAEMU_ACC_GPU_BLAS)
    return setting + "only MMA_ACCUMULATE=gpu-blas applies to a block-scaled policy";
  cfg.block_scaled = true;
  return "";
}
