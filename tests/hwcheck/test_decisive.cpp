// SPDX-License-Identifier: BSD-3-Clause
// The decisive vectors as the harness runs them (tools/hwcheck/decisive.h):
// the file parses, each NVIDIA vector lands in the ensemble of its
// instruction and format as one sample with the right fp32 patterns, and
// malformed lines name file and line.
#include <doctest/doctest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "decisive.h"

using namespace mmaemu::hwcheck;

namespace {

const std::filesystem::path kFile = std::filesystem::path(MMAEMU_SOURCE_DIR) / "tools/hwcheck/decisive.txt";

std::size_t find_set(const Ensemble& e, const std::string& name) {
  for (const SetRange& s : e.sets)
    if (s.name == name) return s.first;
  FAIL("no set " << name);
  return 0;
}

}  // namespace

TEST_CASE("decisive.txt: every line parses") {
  const auto vs = load_decisive(kFile);
  CHECK(vs.size() >= 20);
  for (const DecisiveVector& v : vs) {
    CAPTURE(v.id);
    CHECK(!v.gpus.empty());
    CHECK(!v.b.empty());
  }
}

TEST_CASE("decisive set: the vectors of one instruction and format, one sample each") {
  const auto vs = load_decisive(kFile);
  const Ensemble e = decisive_set(vs, "mma.sync", InFmt::fp16, 16);
  // A1: a = {0x1000, 0x0008}, b = {0x0400, 0x0001}, c = 0 (fp16 codes, fp32 patterns here).
  const std::size_t a1 = find_set(e, "decisive:A1");
  CHECK(e.a[a1 * 16 + 0] == 0x3A000000u);  // 2^-11
  CHECK(e.b[a1 * 16 + 1] == 0x33800000u);  // 2^-24
  CHECK(e.c[a1] == 0u);
  // B1: c = 0x0002 (2^-23) widened exactly.
  CHECK(e.c[find_set(e, "decisive:B1")] == 0x34000000u);
  // wmma runs mma.sync's vectors; the AMD and fp8 ones are elsewhere.
  CHECK(decisive_set(vs, "wmma", InFmt::fp16, 16).size() == e.size());
  for (const SetRange& s : e.sets) CHECK((s.name.rfind("decisive:A", 0) == 0 || s.name.rfind("decisive:B", 0) == 0));
  CHECK(e.size() == 6);  // A1-A4, B1, B2
  const Ensemble fp8 = decisive_set(vs, "mma.sync", InFmt::e5m2, 32);
  find_set(fp8, "decisive:B3");
  find_set(fp8, "decisive:G1");
  CHECK(decisive_set(vs, "wgmma", InFmt::e5m2, 32).size() == 1);  // B4
}

TEST_CASE("decisive file errors name file and line") {
  const std::filesystem::path bad = std::filesystem::temp_directory_path() / "mmaemu_decisive_bad.txt";
  {
    std::ofstream f(bad);
    f << "# comment\nA1 A100 mma.sync fp16 fp16 0x0 0:0x1000 0:0x0400 0x0 - - -\nA2 A100 mma.sync\n";
  }
  try {
    load_decisive(bad);
    FAIL("expected an error");
  } catch (const std::runtime_error& e) {
    CHECK(std::string(e.what()).find("mmaemu_decisive_bad.txt:3: 12 columns expected, got 3") != std::string::npos);
  }
  std::filesystem::remove(bad);
}
