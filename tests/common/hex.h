// SPDX-License-Identifier: BSD-3-Clause
// hex(bits): how every test prints a bit pattern when a check fails
// (0x followed by lower-case digits, no padding).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

inline std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}
