// SPDX-License-Identifier: BSD-3-Clause
// The check of the C API's enum arguments (api/enum_args.h).
#include "api/enum_args.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "api/api_error.h"

namespace mmaemu::api {

void check_enum(const char* arg, int value, std::span<const EnumValue> valid) {
  if (std::any_of(valid.begin(), valid.end(), [&](const EnumValue& v) { return v.value == value; })) return;
  std::string names;
  for (const EnumValue& v : valid) names += (names.empty() ? "" : ", ") + std::string(v.name);
  throw std::invalid_argument(std::string(arg) + " = " + std::to_string(value) + " is not valid (valid: " + names +
                              ")");
}

int enum_status(const char* arg, int value, std::span<const EnumValue> valid) {
  return guarded([&] {
    check_enum(arg, value, valid);
    return static_cast<int>(MMAEMU_OK);
  });
}

}  // namespace mmaemu::api
