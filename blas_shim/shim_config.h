// SPDX-License-Identifier: BSD-3-Clause
// The BLAS shim's setting: which model its BLAS entries emulate and how.
// One setting comes from the environment (MMA_MODEL, MMA_INPUT_FORMAT,
// MMA_ACCUMULATE, MMA_DGEMM, MMA_SCHEDULE; shim.cpp); mmaemu_shim_set() replaces it at run
// time (shim_switch.cpp). A setting is immutable once published and never
// freed, so a BLAS call keeps the one it started with.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mmaemu/mmaemu.h"

namespace mmaemu_shim {

struct Config {
  mmaemu_model* model = nullptr;  // null: forward everything
  std::string model_name;         // as named (MMA_MODEL or mmaemu_shim_set)
  std::string policy;             // sgemm / ssyrk input policy
  bool block_scaled = false;      // policy is mxfp8, ..., nvfp4 (scaled_sgemm.cpp)
  mmaemu_gemm_options options{};
  bool emulate_dgemm = false;     // MMA_DGEMM=model
  bool verbose = false;
  std::string schedule;           // MMA_SCHEDULE (options.schedule points here, or null)
};

/// The environment's setting, read once (shim.cpp).
const Config& env_config();

/// Sets cfg's model and sgemm options for `name` and `policy` ("": the
/// model's default policy); "" name: forward everything. Returns "" or the
/// error, prefixed by the names the user set them with (shim.cpp).
std::string select(Config& cfg, const std::string& name, const std::string& policy, const char* model_var,
                   const char* policy_var);

/// True for the block-scaled policies (mxfp8, ..., nvfp4).
bool is_block_scaled_policy(const std::string& policy);

/// "mxfp8, mxfp8:e5m2, ..., nvfp4" (for messages).
std::string block_scaled_policy_names();

/// select() for a block-scaled policy: refuses a model without the unit
/// (naming those that have it) and settings the path does not read
/// (scaled_sgemm.cpp).
std::string select_block_scaled(Config& cfg, const char* policy_var);

/// op(A) of an ssyrk under a block-scaled policy, quantised once as
/// mmaemu_sgemm_block_scaled quantises both operands of op(A) op(A)^T (rows
/// of kp codes, k padded to whole blocks; kb scales per row; NVFP4: the
/// decode scale of the whole op(A)) (scaled_sgemm.cpp).
struct ScaledOperand {
  mmaemu_block_scale_desc desc{};
  int n = 0, kp = 0, kb = 0;
  std::vector<uint8_t> codes, scales;
};

/// "" if k, padded to whole blocks of cfg's block-scaled policy, fits the
/// C API's int; else the message (scaled_sgemm.cpp).
std::string scaled_k_error(const Config& cfg, int k);

/// Quantises op(A) (n x k: A column-major, n x k for trans 'N', else k x n)
/// into q; returns the C API status (message: mmaemu_last_error()).
int quantise_syrk_operand(const Config& cfg, char trans, int n, int k, const float* A, int lda, ScaledOperand& q);

/// C (rows x cols, column-major, ldc) = alpha op(A)[i0:i0+rows] op(A)[j0:j0+cols]^T
/// + beta C on the block-scaled unit, accumulation as cfg says; each element
/// has the bits of the whole product's (scaled_sgemm.cpp). Returns the C API status.
int scaled_syrk_tile(const Config& cfg, const ScaledOperand& q, float alpha, float beta, int i0, int rows, int j0,
                     int cols, float* C, int ldc);

/// One line naming a setting: "model H100, sgemm input fp16, gpu-blas, dgemm native".
std::string describe(const Config& cfg);

/// MMA_VERBOSE: prints the calls made under `cfg` since the last report,
/// and resets the counts (shim.cpp).
void report_calls(const Config& cfg);

/// The setting in force: the last mmaemu_shim_set()'s, else env_config()
/// (shim_switch.cpp).
const Config& current_config();

}  // namespace mmaemu_shim
