// SPDX-License-Identifier: BSD-3-Clause
// The message lookup_model throws for a model name ("" if it resolves).
#pragma once

#include <stdexcept>
#include <string>

#include "models/model.h"

inline std::string error_of(const std::string& spec) {
  try {
    mmaemu::lookup_model(spec);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}
