// SPDX-License-Identifier: BSD-3-Clause
// Model introspection through the C API (mmaemu_model_unit*): every unit of
// every model against the GEMM's own entry point (mmaemu_tile_shape), the
// parameter text and its buffer contract, the errors.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstring>
#include <map>
#include <string>
#include <utility>

#include "api_test_util.h"
#include "mmaemu/mmaemu.h"

using api_test::Handle;

namespace {

std::string parameters(const mmaemu_model* m, size_t i) {
  size_t length = 0;
  REQUIRE(mmaemu_model_unit_parameters(m, i, nullptr, 0, &length) == MMAEMU_OK);
  std::string s(length + 1, '?');
  size_t again = 0;
  REQUIRE(mmaemu_model_unit_parameters(m, i, s.data(), s.size(), &again) == MMAEMU_OK);
  CHECK(again == length);
  CHECK(s[length] == '\0');
  CHECK(std::strlen(s.c_str()) == length);
  s.resize(length);
  return s;
}

}  // namespace

TEST_CASE("every unit of every model: formats, shape, the GEMM's default unit, parameters") {
  REQUIRE(mmaemu_model_count() > 0);
  for (size_t g = 0; g < mmaemu_model_count(); ++g) {
    const char* name = mmaemu_model_list(g);
    INFO("model " << std::string(name));
    Handle h(name);
    const size_t count = mmaemu_model_unit_count(h.m);
    REQUIRE(count > 0);
    std::map<std::pair<int, int>, int> defaults;  // (input, output) -> default units
    for (size_t i = 0; i < count; ++i) {
      mmaemu_unit_info u;
      std::memset(&u, 0xff, sizeof u);
      REQUIRE(mmaemu_model_unit(h.m, i, &u) == MMAEMU_OK);
      INFO("unit " << i << ": " << std::string(u.instruction ? u.instruction : "(null)") << " "
                   << std::string(mmaemu_format_name(u.input)) << " -> " << std::string(mmaemu_format_name(u.output)));
      REQUIRE(u.instruction);
      CHECK(std::strlen(u.instruction) > 0);
      CHECK(std::string(mmaemu_format_name(u.input)) != "?");
      CHECK(std::string(mmaemu_format_name(u.output)) != "?");
      CHECK((u.m > 0 && u.n > 0 && u.k > 0));
      CHECK((u.gemm_default == 0 || u.gemm_default == 1));
      if (u.gemm_default) {
        ++defaults[{u.input, u.output}];
        int m = 0, n = 0, k = 0;
        REQUIRE(mmaemu_tile_shape(h.m, u.input, u.output, &m, &n, &k) == MMAEMU_OK);
        CHECK(m == u.m);
        CHECK(n == u.n);
        CHECK(k == u.k);
      }
      const std::string p = parameters(h.m, i);
      INFO("parameters \"" << p << "\"");
      // key=value words of the field table, the accumulation path among them;
      // no identity or shape keys.
      const std::string words = " " + p + " ";
      CHECK(words.find(" accum=") != std::string::npos);
      for (const char* key : {" in=", " out=", " m=", " n=", " k="}) CHECK(words.find(key) == std::string::npos);
    }
    for (const auto& [formats, n] : defaults) CHECK(n == 1);
  }
}

TEST_CASE("parameters: a short buffer holds a NUL-terminated prefix; the length is the whole text's") {
  Handle h("H100");
  size_t length = 0;
  REQUIRE(mmaemu_model_unit_parameters(h.m, 0, nullptr, 0, &length) == MMAEMU_OK);
  REQUIRE(length > 8);
  const std::string whole = parameters(h.m, 0);
  char buf[6];
  std::memset(buf, 'x', sizeof buf);
  size_t got = 0;
  REQUIRE(mmaemu_model_unit_parameters(h.m, 0, buf, sizeof buf, &got) == MMAEMU_OK);
  CHECK(got == length);
  CHECK(std::string(buf) == whole.substr(0, sizeof buf - 1));
}

TEST_CASE("introspection errors: clear messages, no crash") {
  Handle h("V100");
  const size_t count = mmaemu_model_unit_count(h.m);
  mmaemu_unit_info u;
  size_t length = 0;
  char buf[8];
  CHECK(mmaemu_model_unit_count(nullptr) == 0);
  CHECK(mmaemu_model_unit(nullptr, 0, &u) == MMAEMU_ERR_ARGUMENT);
  CHECK(std::string(mmaemu_last_error()).find("null model") != std::string::npos);
  CHECK(mmaemu_model_unit(h.m, 0, nullptr) == MMAEMU_ERR_ARGUMENT);
  CHECK(mmaemu_model_unit(h.m, count, &u) == MMAEMU_ERR_ARGUMENT);
  CHECK(std::string(mmaemu_last_error()).find("has " + std::to_string(count) + " units") != std::string::npos);
  CHECK(mmaemu_model_unit_parameters(h.m, count, buf, sizeof buf, &length) == MMAEMU_ERR_ARGUMENT);
  CHECK(mmaemu_model_unit_parameters(h.m, 0, buf, sizeof buf, nullptr) == MMAEMU_ERR_ARGUMENT);
  CHECK(mmaemu_model_unit_parameters(h.m, 0, nullptr, 4, &length) == MMAEMU_ERR_ARGUMENT);
  CHECK(mmaemu_model_unit_parameters(nullptr, 0, buf, sizeof buf, &length) == MMAEMU_ERR_ARGUMENT);
}
