// SPDX-License-Identifier: BSD-3-Clause
// The C API's per-thread error message, shared by the files of libmmaemu
// that implement C entry points (c_api.cpp, convert.cpp, the shim switch).
#pragma once

#include <string>

namespace mmaemu::api {

/// The calling thread's last error message (mmaemu_last_error()).
extern thread_local std::string g_error;

/// Records `message` as the calling thread's last error; returns `status`.
int fail(int status, std::string message);

}  // namespace mmaemu::api
