/* SPDX-License-Identifier: BSD-3-Clause */
/* Prints the file that provides mmaemu_version in this process: run under
 * an installed mmaemu-run, it must be the installed libmmaemu. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>

int main(void) {
  void* f = dlsym(RTLD_DEFAULT, "mmaemu_version");
  Dl_info info;
  if (!f || !dladdr(f, &info)) {
    printf("libmmaemu is not loaded\n");
    return 1;
  }
  printf("libmmaemu %s from %s\n", ((const char* (*)(void))f)(), info.dli_fname);
  return 0;
}
