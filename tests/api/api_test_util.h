// SPDX-License-Identifier: BSD-3-Clause
// Shared by the C API tests: the seed, a model handle, hex printing.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "common/hex.h"
#include "mmaemu/mmaemu.h"

namespace api_test {

/// MMAEMU_TEST_SEED, else `fallback`.
inline uint64_t test_seed(uint64_t fallback) {
  const char* s = std::getenv("MMAEMU_TEST_SEED");
  return s ? std::strtoull(s, nullptr, 10) : fallback;
}

struct Handle {
  mmaemu_model* m = nullptr;
  explicit Handle(const char* name) { REQUIRE(mmaemu_model_lookup(name, &m) == MMAEMU_OK); }
  ~Handle() { mmaemu_model_free(m); }
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
};

}  // namespace api_test
