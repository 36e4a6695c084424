// SPDX-License-Identifier: BSD-3-Clause
// The field kit (field_kit.h): value parsers and the refusal of a key no row reads.
#include "models/field_kit.h"

#include <charconv>
#include <stdexcept>

namespace mmaemu::field_kit {

void bad(std::string_view key, std::string_view value, std::string_view valid) {
  throw std::invalid_argument("custom model: invalid value '" + std::string(value) + "' for '" +
                              std::string(key) + "' (valid: " + std::string(valid) + ")");
}

int to_int(std::string_view key, std::string_view v, int lo, int hi) {
  long long x = 0;
  const char* b = v.data() + (!v.empty() && v[0] == '+' ? 1 : 0);
  auto [p, ec] = std::from_chars(b, v.data() + v.size(), x);
  if (ec != std::errc() || p != v.data() + v.size() || x < lo || x > hi)
    bad(key, v, "an integer in " + std::to_string(lo) + ".." + std::to_string(hi));
  return static_cast<int>(x);
}

uint32_t to_hex(std::string_view key, std::string_view v, std::string_view valid) {
  std::string_view d = v;
  if (d.size() > 2 && d[0] == '0' && (d[1] == 'x' || d[1] == 'X')) d.remove_prefix(2);
  uint32_t x = 0;
  auto [p, ec] = std::from_chars(d.data(), d.data() + d.size(), x, 16);
  if (d.empty() || ec != std::errc() || p != d.data() + d.size()) bad(key, v, valid);
  return x;
}

bool to_bool(std::string_view key, std::string_view v) {
  if (v == "1" || v == "true" || v == "on" || v == "yes") return true;
  if (v == "0" || v == "false" || v == "off" || v == "no") return false;
  bad(key, v, "0, 1");
}

std::string print_hex(uint32_t x, int digits) {
  char s[16];
  std::snprintf(s, sizeof s, "0x%0*x", digits, x);
  return s;
}

void refuse(std::string_view key, std::string_view value, const std::string& what,
            const std::map<std::string, std::string>& why) {
  std::string msg = "custom model: " + std::string(key) + "=" + std::string(value) + " is refused: " + what +
                    " reads it: ";
  bool first = true;
  for (const auto& [reason, rows] : why) {
    msg += (first ? "" : "; ") + reason + (rows.empty() ? "" : " (" + rows + ")");
    first = false;
  }
  throw std::invalid_argument(msg);
}

}  // namespace mmaemu::field_kit
