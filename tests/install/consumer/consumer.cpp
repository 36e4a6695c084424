// SPDX-License-Identifier: BSD-3-Clause
// C++ consumer of an installed libmmaemu: the C header from C++, typed
// status codes for a misspelt model.
#include <mmaemu/mmaemu.h>
#include <mmaemu/version.h>

#include <cstdio>
#include <string>

int main() {
  mmaemu_model* model = nullptr;
  if (mmaemu_model_lookup("H101", &model) != MMAEMU_ERR_UNKNOWN_MODEL ||
      std::string(mmaemu_last_error()).find("valid models") == std::string::npos) {
    std::printf("lookup of H101: %s\n", mmaemu_last_error());
    return 1;
  }
  if (mmaemu_model_lookup("custom:base=H101", &model) != MMAEMU_ERR_UNKNOWN_MODEL) {
    std::printf("custom base H101: %s\n", mmaemu_last_error());
    return 1;
  }
  if (mmaemu_model_lookup("custom:base=H100,nokey=1", &model) != MMAEMU_ERR_ARGUMENT) {
    std::printf("custom bad key: %s\n", mmaemu_last_error());
    return 1;
  }
  if (mmaemu_model_lookup("MI300X", &model) != MMAEMU_OK) return 1;
  int m = 0, n = 0, k = 0;
  const int rc = mmaemu_tile_shape(model, MMAEMU_FP16, MMAEMU_FP32, &m, &n, &k);
  mmaemu_model_free(model);
  if (rc != MMAEMU_OK || m * n * k == 0) return 1;
  std::printf("consumer (C++) ok: libmmaemu %s, MI300X fp16 tile %dx%dx%d\n", mmaemu_version(), m, n, k);
  return 0;
}
