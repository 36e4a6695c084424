// SPDX-License-Identifier: BSD-3-Clause
// The model behind a C API handle, for the API's translation units.
#pragma once

#include "mmaemu/mmaemu.h"
#include "models/model.h"

namespace mmaemu::api {

/// The model of a non-null handle.
const Model& model_of(const mmaemu_model* handle);

}  // namespace mmaemu::api
