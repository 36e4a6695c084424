/* SPDX-License-Identifier: BSD-3-Clause */
/* C consumer of an installed libmmaemu: the header, the version from one
 * place, and a product whose bits are known. */
#include <stdio.h>
#include <string.h>

#include <mmaemu/mmaemu.h>
#include <mmaemu/version.h>

int main(void) {
  if (strcmp(mmaemu_version(), MMAEMU_VERSION_STRING) != 0) {
    printf("mmaemu_version() %s, header %s\n", mmaemu_version(), MMAEMU_VERSION_STRING);
    return 1;
  }
#ifdef PACKAGE_VERSION
  if (strcmp(mmaemu_version(), PACKAGE_VERSION) != 0) {
    printf("mmaemu_version() %s, package %s\n", mmaemu_version(), PACKAGE_VERSION);
    return 1;
  }
#endif
  mmaemu_model* model = NULL;
  if (mmaemu_model_lookup("H100", &model) != MMAEMU_OK) {
    printf("lookup: %s\n", mmaemu_last_error());
    return 1;
  }
  /* 1 + 2^-11 is not an fp16 number: the fp16 input rounds it to 1 (RNE),
   * so the tf32-free fp16 product of a 1x2 by 2x1 is exactly 2. */
  const float a[2] = {1.0f + 0x1p-11f, 1.0f}, b[2] = {1.0f, 1.0f};
  float c = -1.0f;
  const int rc = mmaemu_sgemm(model, "fp16", MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 1, 1, 2, 1.0f, a, 2,
                              b, 1, 0.0f, &c, 1);
  mmaemu_model_free(model);
  if (rc != MMAEMU_OK || c != 2.0f) {
    printf("sgemm: status %d, c = %a (expected 0x1p+1)\n", rc, c);
    return 1;
  }
  /* The shim's switch links in every build; without the shim
   * (MMAEMU_BUILD_BLAS_SHIM=OFF) it says so. */
  const char *shim_model = NULL, *shim_policy = NULL;
  const int shim = mmaemu_shim_get(&shim_model, &shim_policy);
  if ((shim != MMAEMU_OK && shim != MMAEMU_ERR_NOT_BUILT) || (shim == MMAEMU_ERR_NOT_BUILT && !*mmaemu_last_error())) {
    printf("mmaemu_shim_get: status %d, message '%s'\n", shim, mmaemu_last_error());
    return 1;
  }
  printf("consumer (C) ok: libmmaemu %s%s\n", mmaemu_version(), shim == MMAEMU_OK ? "" : " (no BLAS shim)");
  return 0;
}
