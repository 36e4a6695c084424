// SPDX-License-Identifier: BSD-3-Clause
// mmaemu_shim_set / mmaemu_shim_get of a libmmaemu.so built without the BLAS
// shim (MMAEMU_BUILD_BLAS_SHIM=OFF, docs/building.md): mmaemu.h declares them
// in every build, so they are defined in every build and say that the shim
// is not there.
#include "api/api_error.h"
#include "mmaemu/mmaemu.h"

namespace {

constexpr const char* kNotBuilt =
    ": this libmmaemu was built without the BLAS shim (MMAEMU_BUILD_BLAS_SHIM=OFF); rebuild with it ON";

}  // namespace

extern "C" {

int mmaemu_shim_set(const char*, const char*) {
  return mmaemu::api::fail(MMAEMU_ERR_NOT_BUILT, std::string("mmaemu_shim_set") + kNotBuilt);
}

int mmaemu_shim_get(const char** model, const char** policy) {
  if (model) *model = "";
  if (policy) *policy = "";
  return mmaemu::api::fail(MMAEMU_ERR_NOT_BUILT, std::string("mmaemu_shim_get") + kNotBuilt);
}

}  // extern "C"
