// SPDX-License-Identifier: BSD-3-Clause
// Typed errors of the model layer, so that callers (the C API's status codes)
// tell failures apart by type, never by matching message text.
#pragma once

#include <stdexcept>

namespace mmaemu {

/// No model (or custom base model) of that name; the message lists the valid
/// names. Other bad model specifications throw plain std::invalid_argument.
struct UnknownModelError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

}  // namespace mmaemu
