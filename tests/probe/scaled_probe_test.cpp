// SPDX-License-Identifier: BSD-3-Clause
// The block-scaled probe (src/probe/scaled_probe.h) recovers, through the
// public C API only, the F and group of every B200, B200-RN and RTXPRO6000
// unit its operands can reach, and of custom variants (so a wrong answer
// cannot pass by matching a constant); where the element range cannot form
// the test, it says so.
#include <doctest/doctest.h>

#include <sstream>
#include <string>

#include "mmaemu/mmaemu.h"
#include "models/model.h"
#include "models/scaled_units.h"
#include "probe/scaled_probe.h"

using namespace mmaemu;

namespace {

struct Probed {
  probe::ScaledFeatures f;
  probe::ScaledBox box;
};

Probed run(const char* model, const char* policy, mmaemu_scaled_unit unit = MMAEMU_UNIT_AUTO) {
  mmaemu_model* h = nullptr;
  REQUIRE(mmaemu_model_lookup(model, &h) == MMAEMU_OK);
  mmaemu_block_scale_desc d;
  REQUIRE(mmaemu_parse_block_scaled_policy(policy, &d) == MMAEMU_OK);
  d.unit = unit;
  Probed p{{}, probe::scaled_black_box(h, d)};
  p.f = probe::detect_scaled(p.box);
  mmaemu_model_free(h);
  return p;
}

// The row the probe ran on (the truth it must find).
ScaledUnit truth(const char* model, const std::string& instruction) {
  const Model m = lookup_model(model);
  for (const ScaledUnit& u : m.scaled)
    if (instruction == u.instruction) return u;
  FAIL("no unit " << instruction);
  return {};
}

}  // namespace

TEST_CASE("probe: F, group and scale blocks of every reachable unit") {
  for (const char* model : {"B200", "B200-RN", "RTXPRO6000", "custom:base=B200,bs_frac=30,bs_group=8",
                            "custom:base=B200,bs_frac=21,bs_group=4,bs_round=rne"}) {
    for (const char* policy : {"mxfp8", "mxfp8:e5m2", "mxfp4", "nvfp4"}) {
      CAPTURE(std::string(model));
      CAPTURE(std::string(policy));
      const Probed p = run(model, policy);
      const ScaledUnit u = truth(model, p.box.instruction);
      CAPTURE(p.box.instruction);
      REQUIRE(p.f.frac.known);
      CHECK(p.f.frac.value == u.frac);
      if (p.f.group.known) {
        CHECK(p.f.group.value == (u.algo == ScaledAlgo::gst_fdpa ? u.group : 1));
      } else {  // F = 30 lies beyond e4m3's products (found through c): two terms cannot be formed
        CHECK(std::string(policy) == "mxfp8");
        CHECK(u.frac > 28);
        CHECK(p.f.group.note.find("cannot be formed") != std::string::npos);
      }
      CHECK(p.f.scale_blocks.known);
      CHECK(p.f.scales_before_alignment.known);
    }
  }
}

TEST_CASE("probe: MXFP4 on the ST unit, fp6 and fp4: F through c, the group said unreachable") {
  for (const char* policy : {"mxfp6", "mxfp6:e3m2"}) {
    CAPTURE(std::string(policy));
    const Probed p = run("B200", policy);
    REQUIRE(p.f.frac.known);
    CHECK(p.f.frac.value == 25);
    CHECK_FALSE(p.f.group.known);
    CHECK(p.f.group.note.find("cannot be formed") != std::string::npos);
  }
  const Probed st = run("custom:base=B200,bs_frac=28", "mxfp4", MMAEMU_UNIT_ST);
  CHECK(st.box.instruction == "tcgen05.mma.kind::mxf8f6f4.block32.ue8m0");
  REQUIRE(st.f.frac.known);
  CHECK(st.f.frac.value == 28);
}

TEST_CASE("probe: the report names F, group and the scales") {
  const Probed p = run("B200", "nvfp4");
  std::ostringstream os;
  probe::print_scaled(os, p.f, p.box, "B200");
  CHECK(os.str().find("F (window fraction bits)  35") != std::string::npos);
  CHECK(os.str().find("group (exact products)    16") != std::string::npos);
  CHECK(os.str().find("scale blocks              per 16 along k") != std::string::npos);
  CHECK(os.str().find("scales enter              before alignment") != std::string::npos);
}
