// SPDX-License-Identifier: BSD-3-Clause
// A model handle of the C API for doctest tests: looked up (the test stops
// if the name is unknown) and freed with the test.
#pragma once

#include <doctest/doctest.h>

#include "mmaemu/mmaemu.h"

namespace mmaemu::test {

struct ApiModel {
  mmaemu_model* m = nullptr;
  explicit ApiModel(const char* name) { REQUIRE(mmaemu_model_lookup(name, &m) == MMAEMU_OK); }
  ~ApiModel() { mmaemu_model_free(m); }
  ApiModel(const ApiModel&) = delete;
  ApiModel& operator=(const ApiModel&) = delete;
};

}  // namespace mmaemu::test
