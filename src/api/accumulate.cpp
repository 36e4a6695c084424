// SPDX-License-Identifier: BSD-3-Clause
// The accumulate modes' names (mmaemu.h, mmaemu_accumulate_name): the one
// table that the C API, the BLAS shim's MMA_ACCUMULATE, both mmaemu-run
// front ends, Python and the Octave/MATLAB gateway (mmaemu_gemm) read.
#include <cstring>
#include <iterator>
#include <string>

#include "api/api_error.h"
#include "mmaemu/mmaemu.h"

namespace {

struct AccumulateName {
  mmaemu_accumulate mode;
  const char* name;
  bool keeps_blas;  // D = alpha*op(A)*op(B) + beta*C for every alpha (mmaemu.h)
};

// Indexed by the mode's value.
constexpr AccumulateName kModes[] = {
    {MMAEMU_ACC_GPU_BLAS, "gpu-blas", true},
    {MMAEMU_ACC_INTO_C, "into-c", false},
    {MMAEMU_ACC_BLAS_INTO_C, "blas-into-c", true},
};
static_assert(kModes[MMAEMU_ACC_GPU_BLAS].mode == MMAEMU_ACC_GPU_BLAS &&
              kModes[MMAEMU_ACC_INTO_C].mode == MMAEMU_ACC_INTO_C &&
              kModes[MMAEMU_ACC_BLAS_INTO_C].mode == MMAEMU_ACC_BLAS_INTO_C);

// The one other accepted spelling: the shim's first name of blas-into-c.
constexpr AccumulateName kAlias = {MMAEMU_ACC_BLAS_INTO_C, "accumulate-into-c", true};

bool is_mode(int mode) { return mode >= 0 && mode < static_cast<int>(std::size(kModes)); }

std::string mode_names() {
  std::string s;
  for (const AccumulateName& a : kModes) s += (s.empty() ? "" : ", ") + std::string(a.name);
  return s + " (" + kAlias.name + " = " + kModes[kAlias.mode].name + ")";
}

}  // namespace

extern "C" {

const char* mmaemu_accumulate_name(int mode) { return is_mode(mode) ? kModes[mode].name : nullptr; }

int mmaemu_accumulate_keeps_blas(int mode) { return is_mode(mode) && kModes[mode].keeps_blas ? 1 : 0; }

int mmaemu_accumulate_parse(const char* name, mmaemu_accumulate* out) {
  if (!name || !out) return mmaemu::api::fail(MMAEMU_ERR_ARGUMENT, "mmaemu_accumulate_parse: null argument");
  mmaemu::api::clear_error();
  const AccumulateName* found = std::strcmp(name, kAlias.name) == 0 ? &kAlias : nullptr;
  for (const AccumulateName& a : kModes)
    if (std::strcmp(name, a.name) == 0) found = &a;
  if (found) {
    *out = found->mode;
    return MMAEMU_OK;
  }
  return mmaemu::api::fail(MMAEMU_ERR_ARGUMENT,
                           "unknown accumulate '" + std::string(name) + "' (valid: " + mode_names() + ")");
}

}  // extern "C"
