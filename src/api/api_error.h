// SPDX-License-Identifier: BSD-3-Clause
// The C API's per-thread error message, shared by its translation units.
#pragma once

#include <new>
#include <stdexcept>
#include <string>

#include "mmaemu/mmaemu.h"
#include "models/errors.h"

namespace mmaemu::api {

/// Stores the message for mmaemu_last_error() and returns `status`.
int fail(int status, std::string message);

/// Clears the message (at the start of every API call).
void clear_error();

/// The model has no unit for the request: MMAEMU_ERR_UNSUPPORTED.
struct Unsupported : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Runs f, mapping exception types (never message text) to status codes;
/// no exception leaves the API.
template <typename F>
int guarded(F&& f) {
  try {
    clear_error();
    return f();
  } catch (const std::bad_alloc&) {
    return fail(MMAEMU_ERR_NO_MEMORY, "out of memory");
  } catch (const UnknownModelError& e) {
    return fail(MMAEMU_ERR_UNKNOWN_MODEL, e.what());
  } catch (const std::invalid_argument& e) {
    return fail(MMAEMU_ERR_ARGUMENT, e.what());
  } catch (const Unsupported& e) {
    return fail(MMAEMU_ERR_UNSUPPORTED, e.what());
  } catch (const std::exception& e) {
    return fail(MMAEMU_ERR_INTERNAL, e.what());
  } catch (...) {
    return fail(MMAEMU_ERR_INTERNAL, "unknown error");
  }
}

}  // namespace mmaemu::api
