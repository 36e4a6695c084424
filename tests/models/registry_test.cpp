// SPDX-License-Identifier: BSD-3-Clause
// The model registry: names, aliases, reachability of every row, the rows
// that produced the public data, and custom models.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <set>
#include <stdexcept>
#include <string>

#include "lookup_error.h"
#include "models/model.h"

using namespace mmaemu;


TEST_CASE("every model name of the papers resolves, case-insensitively") {
  for (const char* name : {"V100", "T4", "A100", "A2", "A30", "L40S", "RTX1000", "H100", "H200", "B200",
                           "B200-RN", "RTXPRO6000", "MI100", "MI210", "MI250", "MI300A", "MI300X"}) {
    CAPTURE(name);
    const Model m = lookup_model(name);
    CHECK(m.name == name);
    CHECK(!m.rows.empty());
    std::string low = name;
    for (char& ch : low) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    CHECK(lookup_model(low).name == name);
  }
}

TEST_CASE("architecture aliases") {
  const std::pair<const char*, const char*> cases[] = {
      {"sm_70", "V100"},   {"sm_80", "A100"},     {"sm_89", "L40S"},    {"Ada", "RTX1000"},
      {"sm_90", "H100"},   {"sm_90a", "H100"},    {"Hopper", "H100"},   {"sm_100", "B200"},
      {"sm_120", "RTXPRO6000"}, {"gfx908", "MI100"}, {"CDNA1", "MI100"}, {"gfx90a", "MI250"},
      {"CDNA2", "MI250"},  {"gfx942", "MI300X"},  {"CDNA3", "MI300X"},
      // Turing and the consumer names (docs/models.md §10): the row of the
      // architecture, whichever chip of it the data came from.
      {"sm_75", "T4"},     {"Turing", "T4"},      {"RTX20", "T4"},      {"sm_86", "A2"},
      {"A10", "A2"},       {"RTX30", "A2"},       {"RTX40", "L40S"},    {"rtx50", "RTXPRO6000"}};
  for (auto [alias, name] : cases) {
    CAPTURE(alias);
    CHECK(lookup_model(alias).name == name);
  }
}

TEST_CASE("an unknown model is refused with the list of valid names") {
  for (const char* bad : {"H101", "sm_61", "RTX10", "T5"}) {
    CAPTURE(bad);
    const std::string e = error_of(bad);
    CHECK(e.find("unknown model '" + std::string(bad) + "'") != std::string::npos);
    for (const Gpu& g : gpus()) CHECK(e.find(g.name) != std::string::npos);
    CHECK(e.find("custom:") != std::string::npos);
  }
}

TEST_CASE("T4: the Turing HMMA rows (docs/models.md §10)") {
  const Model t4 = lookup_model("T4");
  REQUIRE(t4.rows.size() == 4);
  const ModelRow& f32 = *t4.find(Fmt::fp16, Fmt::fp32);
  CHECK(std::string(f32.family) == "turing-hmma");
  CHECK(std::string(f32.instr) == "mma.sync");
  CHECK((f32.m == 16 && f32.n == 8 && f32.k == 8));
  CHECK(f32.block == 8);
  CHECK(f32.frac == 24);
  CHECK(f32.floor == -132);
  CHECK(f32.round == Round::rz);
  const ModelRow& f16 = *t4.find(Fmt::fp16, Fmt::fp16);
  CHECK(f16.block == 8);
  CHECK(f16.floor == -20);
  CHECK(f16.round == Round::rne);
  for (Fmt out : {Fmt::fp32, Fmt::fp16}) {
    const ModelRow* r = t4.find_instr("mma.sync.m8n8k4", Fmt::fp16, out);
    REQUIRE(r != nullptr);
    CHECK((r->m == 8 && r->n == 8 && r->k == 4 && r->block == 4 && r->frac == 24));
    CHECK(!r->gemm_default);
  }
  CHECK(t4.find(Fmt::bf16, Fmt::fp32) == nullptr);  // Turing HMMA: fp16 only
  CHECK(std::string(t4.find_instr("wmma", Fmt::fp16, Fmt::fp32)->instr) == "mma.sync");
  CHECK(lookup_model("T4@mma.sync.m8n8k4").find(Fmt::fp16, Fmt::fp32)->k == 4);
}

TEST_CASE("every registry row belongs to some GPU, every GPU pair has a GEMM row") {
  std::set<std::string> used;
  for (const Gpu& g : gpus()) {
    const Model m = *gpu_model(g.name);
    for (const ModelRow& r : m.rows) {
      used.insert(r.family);
      CAPTURE(g.name);
      CAPTURE(r.instr);
      const ModelRow* d = m.find(r.in, r.out);
      REQUIRE(d != nullptr);
      CHECK(d->gemm_default);
      CHECK(m.find_data_source(r.in, r.out) != nullptr);
    }
    for (const ModelRow& r : m.integer) {  // the integer units (docs/models.md, Integer units)
      used.insert(r.family);
      CAPTURE(g.name);
      CAPTURE(r.instr);
      const ModelRow* d = m.find_integer(r.in, r.in_b, r.out);
      REQUIRE(d != nullptr);
      CHECK(d->gemm_default);
      CHECK(r.accum == Accumulation::integer);
      CHECK(!r.data_source);  // no public hardware data
    }
  }
  for (const ModelRow& r : rows()) CHECK(used.count(r.family) == 1);
  MESSAGE(rows().size() << " rows in " << used.size() << " families");
}

TEST_CASE("the instructions that produced the public data (docs/models.md §4.3)") {
  const Model h100 = lookup_model("H100"), b200 = lookup_model("B200");
  CHECK(std::string(h100.find_data_source(Fmt::e4m3, Fmt::fp32)->instr) == "wgmma.scale-d=0");
  CHECK(h100.find_data_source(Fmt::e4m3, Fmt::fp32)->ignores_c);
  CHECK(std::string(h100.find_data_source(Fmt::e5m2, Fmt::fp16)->instr) == "mma.sync");
  CHECK(h100.find_data_source(Fmt::e5m2, Fmt::fp16)->grouping == Grouping::pair_interleave);
  CHECK(std::string(b200.find_data_source(Fmt::e4m3, Fmt::fp32)->instr) == "mma.sync");
  // A GEMM uses the unit cuBLAS would: wgmma on Hopper, tcgen05 on B200.
  CHECK(std::string(h100.find(Fmt::e4m3, Fmt::fp32)->instr) == "wgmma");
  CHECK(!h100.find(Fmt::e4m3, Fmt::fp32)->ignores_c);
  CHECK(std::string(b200.find(Fmt::e4m3, Fmt::fp32)->instr) == "tcgen05.mma");
  CHECK(std::string(h100.find_instr("wmma", Fmt::fp16, Fmt::fp32)->instr) == "mma.sync");
}

TEST_CASE("parameters of the spec's main table (§1.2)") {
  const Model v100_model = lookup_model("V100");
  const ModelRow& v100 = *v100_model.find(Fmt::fp16, Fmt::fp32);
  CHECK(v100.block == 4);
  CHECK(v100.frac == 23);
  CHECK(v100.round == Round::rz);
  CHECK(lookup_model("V100").find(Fmt::fp16, Fmt::fp16)->floor == -19);
  const Model a100 = lookup_model("A100");
  CHECK(a100.find(Fmt::fp16, Fmt::fp32)->floor == -132);
  CHECK(a100.find(Fmt::fp16, Fmt::fp16)->floor == -20);
  CHECK(a100.find(Fmt::tf32, Fmt::fp32)->block == 4);
  const Model h100 = lookup_model("H100");
  CHECK(h100.find(Fmt::tf32, Fmt::fp32)->block == 8);
  CHECK(h100.find(Fmt::fp16, Fmt::fp16)->floor == -21);
  CHECK(h100.find(Fmt::e4m3, Fmt::fp32)->result_frac() == 13);
  CHECK(lookup_model("L40S").find(Fmt::e5m2, Fmt::fp16)->result_frac() == 10);
  const Model mi300 = lookup_model("MI300X");
  CHECK(mi300.find(Fmt::e4m3, Fmt::fp32) == nullptr);  // MI300 fp8 is FNUZ
  const ModelRow& fp8 = *mi300.find(Fmt::e4m3fnuz, Fmt::fp32);
  CHECK(fp8.grouping == Grouping::odd_even);
  CHECK(fp8.cutoff == 25);
  CHECK(fp8.nan32 == 0xFFC00000u);
  CHECK(mi300.find(Fmt::fp16, Fmt::fp32)->late_rd == LateRd::two_stage);
  CHECK(lookup_model("MI250").find(Fmt::bf16, Fmt::fp32)->pair_group == 4);
  CHECK(lookup_model("MI250").find_instr("v_mfma_f32_16x16x8bf16", Fmt::bf16, Fmt::fp32)->pair_group == 2);
  CHECK(lookup_model("MI100").find(Fmt::bf16, Fmt::fp32)->block == 2);
  CHECK(lookup_model("A2").find(Fmt::fp64, Fmt::fp64) == nullptr);  // GA107: no DMMA
  CHECK(lookup_model("A100").find(Fmt::fp64, Fmt::fp64) != nullptr);
}

TEST_CASE("custom models") {
  SUBCASE("B200-RN is B200 with RNE results") {
    const Model rn = lookup_model("B200-RN"), c = lookup_model("custom:base=B200,round=rne");
    REQUIRE(rn.rows.size() == c.rows.size());
    for (std::size_t i = 0; i < rn.rows.size(); ++i) {
      CHECK(rn.rows[i].round == c.rows[i].round);
      CHECK(rn.rows[i].round == Round::rne);
      CHECK(rn.rows[i].block == c.rows[i].block);
    }
  }
  SUBCASE("a row spelled out") {
    const Model m = lookup_model("custom:in=bf16,out=fp32,block=8,frac=24,floor=-132,round=rz");
    REQUIRE(m.rows.size() == 1);
    CHECK(m.rows[0].in == Fmt::bf16);
    CHECK(m.rows[0].block == 8);
    CHECK(m.rows[0].floor == -132);
    CHECK(m.find(Fmt::bf16, Fmt::fp32) != nullptr);
  }
  SUBCASE("bad keys and values are refused, naming the valid ones") {
    CHECK(error_of("custom:base=B200,rounding=rne").find("unknown key 'rounding'") != std::string::npos);
    CHECK(error_of("custom:base=B200,round=nearest").find("valid: rne, rz, rd, ru, rna") != std::string::npos);
    CHECK(error_of("custom:base=B201").find("unknown base 'b201'") != std::string::npos);
    CHECK(error_of("custom:base=B200,block=0").find("'block' (valid: an integer in 1..64)") != std::string::npos);
    CHECK(error_of("custom:base=B200,frac").find("expected key=value") != std::string::npos);
    CHECK(error_of("custom:in=fp16,out=bf16").find("out must be fp32 or fp16") != std::string::npos);
  }
}

TEST_CASE("MODEL@INSTR keeps one instruction's rows as the GEMM rows") {
  const Model b = lookup_model("B200@mma.sync");
  CHECK(b.name == "B200@mma.sync");
  const ModelRow* r = b.find(Fmt::e4m3, Fmt::fp32);
  REQUIRE(r != nullptr);
  CHECK(std::string(r->instr) == "mma.sync");
  CHECK(r->grouping == Grouping::pair_interleave);  // not the tcgen05 default
  for (const ModelRow& row : b.rows) CHECK(std::string(row.instr) == "mma.sync");
  // The default B200 model runs fp8 on tcgen05.
  CHECK(std::string(lookup_model("B200").find(Fmt::e4m3, Fmt::fp32)->instr) != "mma.sync");
  // Aliases and custom bases combine with it; unknown instructions are refused.
  CHECK(lookup_model("sm_90@wgmma").find(Fmt::e5m2, Fmt::fp32) != nullptr);
  CHECK(lookup_model("custom:base=H100,round=rne@mma.sync").find(Fmt::fp16, Fmt::fp32)->round == Round::rne);
  CHECK_THROWS_WITH_AS(lookup_model("H100@tcgen05"), doctest::Contains("has no instruction 'tcgen05'"),
                       std::invalid_argument);
  CHECK_THROWS_AS(lookup_model("H101@mma.sync"), std::invalid_argument);
}
