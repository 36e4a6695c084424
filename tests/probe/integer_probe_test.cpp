// SPDX-License-Identifier: BSD-3-Clause
// The integer probe (src/probe/integer_probe.h) recovers, through the public
// C API only, the reading, exact sum, overflow rule, .satfinite variant and
// clamp point of every integer unit of every registered GPU, and of custom
// variants whose rows differ from the registry's (so an answer cannot pass
// by matching a constant); the refusals name the model's units.
#include <doctest/doctest.h>

#include <sstream>
#include <stdexcept>
#include <string>

#include "mmaemu/mmaemu.h"
#include "models/model.h"
#include "probe/integer_probe.h"

using namespace mmaemu;

namespace {

struct Handle {
  mmaemu_model* h = nullptr;
  explicit Handle(const std::string& name) { REQUIRE(mmaemu_model_lookup(name.c_str(), &h) == MMAEMU_OK); }
  ~Handle() { mmaemu_model_free(h); }
};

// The probe's findings against the row a GEMM of those formats runs.
void check_unit(const std::string& model, const ModelRow& row) {
  CAPTURE(model);
  CAPTURE(info(row.in).name);
  CAPTURE(info(row.in_b).name);
  Handle h(model);
  const probe::IntegerFeatures f = probe::detect_integer(h.h, row.in, row.in_b);
  const bool sa = info(row.in).integer == IntKind::twos_complement, sb = info(row.in_b).integer == IntKind::twos_complement;
  REQUIRE(f.a_twos_complement.known);
  CHECK(f.a_twos_complement.value == sa);
  REQUIRE(f.b_twos_complement.known);
  CHECK(f.b_twos_complement.value == sb);
  CHECK(f.exact.known);
  REQUIRE(f.overflow.known);
  CHECK(f.overflow.value == row.overflow);
  REQUIRE(f.has_satfinite.known);
  CHECK(f.has_satfinite.value == row.has_satfinite);
  if (!row.has_satfinite) {
    CHECK(!f.sat_point.known);
    CHECK(f.has_satfinite.note.find("saturate = 0 works") != std::string::npos);
    return;
  }
  REQUIRE(f.satfinite.known);
  CHECK(f.satfinite.value == IntOverflow::satfinite);
  CHECK(f.sat_point.known == (sa || sb));  // two unsigned formats: n/a, with the reason
  if (f.sat_point.known) CHECK(f.sat_point.value == row.sat_point);
  else CHECK(f.sat_point.note.find("both formats unsigned") != std::string::npos);
  CHECK(f.accepted.find(std::string(info(row.in).name) + " x " + info(row.in_b).name) != std::string::npos);
}

}  // namespace

TEST_CASE("integer probe: every integer unit of every GPU") {
  int units = 0;
  for (const Gpu& g : gpus()) {
    const Model m = *gpu_model(g.name);
    for (const ModelRow& r : m.integer)
      if (r.gemm_default) check_unit(g.name, r), ++units;
  }
  CHECK(units >= 30);
}

TEST_CASE("integer probe: custom variants (satfinite rows, the other clamp point)") {
  for (const char* spec : {"custom:base=H100,overflow=satfinite", "custom:base=A100,overflow=satfinite,sat_point=addition",
                           "custom:base=T4,overflow=satfinite,sat_point=addition"}) {
    const Model m = lookup_model(spec);
    for (const ModelRow& r : m.integer)
      if (r.gemm_default) check_unit(spec, r);
  }
  // The plain instruction of a satfinite row clamps; the addition point shows with a signed operand.
  Handle h("custom:base=H100,overflow=satfinite,sat_point=addition");
  const probe::IntegerFeatures f = probe::detect_integer(h.h, Fmt::u8, Fmt::s8);
  CHECK(f.overflow.value == IntOverflow::satfinite);
  CHECK(f.sat_point.value == SatPoint::addition);
}

TEST_CASE("integer probe: the report, and the refusals") {
  Handle h100("H100"), mi300("MI300X");
  const probe::IntegerBox box = probe::integer_black_box(h100.h, Fmt::s8, Fmt::s8, false);
  CHECK(box.k == 32);
  std::ostringstream os;
  probe::print_integer(os, probe::detect_integer(h100.h, Fmt::s8, Fmt::s8), box, "H100");
  CAPTURE(os.str());
  CHECK(os.str().find("inputs accepted           s8 x s8, s8 x u8, u8 x s8, u8 x u8; int4: none") != std::string::npos);
  CHECK(os.str().find("overflow                  wrap (modulo 2^32)") != std::string::npos);
  CHECK(os.str().find(".satfinite clamps at      instruction") != std::string::npos);
  CHECK_THROWS_WITH_AS(probe::integer_black_box(h100.h, Fmt::s4, Fmt::s4, false),
                       doctest::Contains("H100 has no integer unit for s4 x s4"), std::invalid_argument);
  CHECK_THROWS_WITH_AS(probe::integer_black_box(mi300.h, Fmt::s8, Fmt::s8, true),
                       doctest::Contains("has no .satfinite variant"), std::invalid_argument);
}
