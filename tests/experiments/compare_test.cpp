// SPDX-License-Identifier: BSD-3-Clause
// mmaemu compare: errors are zero where the arithmetic is exact, agree with
// an independent binary64 FMA chain on the fp64 units, and the metrics are
// those documented.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <unistd.h>

#include "cli/commands.h"
#include "experiments/common.h"
#include "experiments/compare.h"
#include "experiments/compare_scaled.h"
#include "experiments/matrix.h"
#include "experiments/numerics.h"

using namespace mmaemu;
using namespace mmaemu::experiments;

namespace {

Matrix random_matrix(std::size_t r, std::size_t c, const std::string& dist, uint64_t seed) {
  Matrix m(r, c);
  Rng rng(seed);
  fill(m, parse_dist(dist), rng);
  return m;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("mmaemu_exp_test_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

}  // namespace

TEST_CASE("error metrics on hand-made matrices") {
  Matrix C(1, 2), R(1, 2);
  C(0, 0) = 1;
  C(0, 1) = 2;
  R(0, 0) = 1;
  R(0, 1) = 4;
  CHECK(componentwise_error(C, R) == 0.5);
  CHECK(normwise_error_fro(C, R) == doctest::Approx(2 / std::sqrt(17.0)).epsilon(1e-15));
  CHECK(norm_inf_diff(C, R) == 2);
  R(0, 1) = 0;
  CHECK(std::isinf(componentwise_error(C, R)));
  C(0, 1) = 0;
  CHECK(componentwise_error(C, R) == 0);
  CHECK(normwise_error_fro(C, R) == 0);
  // Huge values: the Frobenius norms neither overflow nor underflow.
  C(0, 0) = 1e300;
  R(0, 0) = 2e300;
  CHECK(normwise_error_fro(C, R) == doctest::Approx(0.5));
  C(0, 0) = NAN;
  CHECK(std::isnan(componentwise_error(C, R)));
}

TEST_CASE("compare: small integers are exact on every model and every input format") {
  // |a|, |b| <= 4, k = 48: every product and partial sum is an integer below
  // 2^10, exact in every input format and accumulator (fp8 results keep 13
  // bits; fp16 outputs hold integers to 2048).
  const Matrix A = random_matrix(8, 48, "int:-4:4", 7), B = random_matrix(48, 16, "int:-4:4", 8);
  for (Fmt in : {Fmt::fp16, Fmt::bf16, Fmt::tf32, Fmt::e4m3, Fmt::e5m2, Fmt::e4m3fnuz, Fmt::e5m2fnuz, Fmt::fp32})
    for (Fmt out : {Fmt::fp32, Fmt::fp16}) {
      CAPTURE(info(in).name);
      CAPTURE(info(out).name);
      const std::vector<CompareResult> res = run_compare(A, B, all_models(), in, out, 2);
      int ran = 0;
      for (const CompareResult& r : res) {
        CAPTURE(r.model);
        if (r.skipped) continue;
        ++ran;
        CHECK(r.normwise == 0);
        CHECK(r.componentwise == 0);
        CHECK(r.unit_normwise == 0);
      }
      if (out == Fmt::fp32) CHECK(ran > 0);
    }
}

TEST_CASE("compare: the fp64 units agree with an independent binary64 FMA chain") {
  const Matrix A = random_matrix(5, 200, "normal", 11), B = random_matrix(200, 7, "loguniform:1e-3:1e3", 12);
  Matrix chain(5, 7);
  for (std::size_t i = 0; i < 5; ++i)
    for (std::size_t j = 0; j < 7; ++j) {
      double d = 0;
      for (std::size_t l = 0; l < 200; ++l) d = std::fma(A(i, l), B(l, j), d);
      chain(i, j) = d;
    }
  const Matrix R = exact_product(A, B);
  const double want_norm = normwise_error_fro(chain, R), want_comp = componentwise_error(chain, R);
  CHECK(want_norm > 0);          // the chain does round
  CHECK(want_norm < 1e-14);
  const std::vector<CompareResult> res = run_compare(A, B, parse_models("H100,A100,MI250,MI300X"), Fmt::fp64, Fmt::fp64);
  REQUIRE(res.size() == 4);
  for (const CompareResult& r : res) {
    CAPTURE(r.model);
    REQUIRE_FALSE(r.skipped);
    CHECK(r.normwise == want_norm);
    CHECK(r.componentwise == want_comp);
    CHECK(r.unit_normwise == want_norm);  // fp64 inputs are not rounded
  }
}

TEST_CASE("compare: models without the unit are skipped with the reason") {
  const Matrix A = random_matrix(4, 8, "normal", 1), B = random_matrix(8, 4, "normal", 2);
  const std::vector<CompareResult> res = run_compare(A, B, parse_models("V100,MI300X,H100"), Fmt::e5m2, Fmt::fp32);
  REQUIRE(res.size() == 3);
  CHECK(res[0].skipped);
  CHECK(res[0].reason.find("no e5m2 -> fp32 unit") != std::string::npos);
  CHECK(res[0].reason.find("fp16->fp32") != std::string::npos);
  CHECK(res[1].skipped);
  CHECK(res[1].reason.find("--input bf8") != std::string::npos);
  CHECK_FALSE(res[2].skipped);
  CHECK(res[2].instr == std::string("wgmma"));
  // fp16 on a normal matrix: the error is that of the input rounding (about
  // 2^-11 relative), the unit-only error far smaller.
  const std::vector<CompareResult> h = run_compare(A, B, parse_models("H100"), Fmt::fp16, Fmt::fp32);
  CHECK(h[0].normwise > 1e-5);
  CHECK(h[0].normwise < 1e-3);
  CHECK(h[0].unit_normwise < 1e-6);
}

TEST_CASE("compare: MODEL@INSTR selects an instruction's rows") {
  const std::vector<Model> m = parse_models("B200@mma.sync,B200");
  REQUIRE(m.size() == 2);
  CHECK(m[0].name == "B200@mma.sync");
  REQUIRE(m[0].find(Fmt::e5m2, Fmt::fp32));
  CHECK(std::string(m[0].find(Fmt::e5m2, Fmt::fp32)->instr) == "mma.sync");
  CHECK(std::string(m[1].find(Fmt::e5m2, Fmt::fp32)->instr) == "tcgen05.mma");
  CHECK_THROWS_AS(parse_models("H100@tcgen05"), UsageError);
  // Custom models keep their key=value pairs.
  const std::vector<Model> c = parse_models("H100,custom:base=B200,round=rne,MI300X");
  REQUIRE(c.size() == 3);
  CHECK(c[1].name == "custom:base=B200,round=rne");
}

TEST_CASE("compare: matrices from text and .npy files") {
  const std::string ta = temp_path("a.txt"), tb = temp_path("b.txt"), npy = temp_path("b.npy");
  {
    std::ofstream f(ta);
    f << "# A, 2 x 3\n1 2 3\n\n4, 5, 0x1p-3\n";
  }
  const Matrix A = read_matrix(ta);
  REQUIRE(A.rows == 2);
  REQUIRE(A.cols == 3);
  CHECK(A(1, 2) == 0.125);
  {
    // A 3 x 2 float64 array in Fortran order: columns (1,2,3), (4,5,6).
    std::string header = "{'descr': '<f8', 'fortran_order': True, 'shape': (3, 2), }";
    while ((10 + header.size() + 1) % 64) header += ' ';
    header += '\n';
    std::ofstream f(npy, std::ios::binary);
    f.write("\x93NUMPY\x01\x00", 8);
    const char len[2] = {static_cast<char>(header.size() & 255), static_cast<char>(header.size() >> 8)};
    f.write(len, 2);
    f << header;
    for (double v : {1.0, 2.0, 3.0, 4.0, 5.0, 6.0}) f.write(reinterpret_cast<const char*>(&v), 8);
  }
  const Matrix B = read_matrix(npy);
  REQUIRE(B.rows == 3);
  REQUIRE(B.cols == 2);
  CHECK(B(0, 1) == 4);
  CHECK(B(2, 0) == 3);
  std::ostringstream out, err;
  CHECK(cmd_compare({"--a", ta, "--b", npy, "--models", "H100,MI100", "--input", "bf16"}, out, err) == 0);
  CHECK(out.str().find("A 2 x 3, B 3 x 2") != std::string::npos);
  // Small integers and 1/8: exact, the table shows zeros.
  {
    std::istringstream table(out.str());
    std::string line;
    int rows = 0;
    while (std::getline(table, line)) {
      std::istringstream ls(line);
      std::string model, instr, e1, e2, e3;
      ls >> model >> instr >> e1 >> e2 >> e3;
      if (model != "H100" && model != "MI100") continue;
      ++rows;
      CHECK(e1 == "0");
      CHECK(e2 == "0");
      CHECK(e3 == "0");
    }
    CHECK(rows == 2);
  }
  {
    std::ofstream f(tb);
    f << "1 2\n3\n";
  }
  CHECK_THROWS_WITH_AS(read_matrix(tb), doctest::Contains("line 2: 1 numbers, expected 2"), UsageError);
  {
    std::ofstream f(tb);
    f << "1 2\n3 x\n";
  }
  CHECK_THROWS_WITH_AS(read_matrix(tb), doctest::Contains("'x' is not a finite number"), UsageError);
  // Infinite, NaN and out-of-range entries are refused (no error can be measured on them).
  for (const char* bad : {"inf", "-inf", "nan", "1e400", "-1e400", "Infinity"}) {
    {
      std::ofstream f(tb);
      f << "1 2\n3 " << bad << "\n";
    }
    const std::string want = "line 2: '" + std::string(bad) + "' is not a finite number";
    CHECK_THROWS_WITH_AS(read_matrix(tb), doctest::Contains(want.c_str()), UsageError);
  }
  CHECK_THROWS_AS(read_matrix(temp_path("missing.txt")), UsageError);
  std::filesystem::remove(ta);
  std::filesystem::remove(tb);
  std::filesystem::remove(npy);
}

TEST_CASE("compare --schedule: each schedule on the same data; k = 4P: promote:P and splitk:4 agree") {
  const Matrix A = [] {
    Matrix a(6, 512);
    Rng rng(5);
    fill(a, parse_dist("normal"), rng);
    return a;
  }();
  Matrix B(512, 5);
  Rng rng(6);
  fill(B, parse_dist("normal"), rng);
  const std::vector<driver::Schedule> s = {driver::parse_schedule("chain"), driver::parse_schedule("promote:128"),
                                           driver::parse_schedule("splitk:4"), driver::parse_schedule("promote:48")};
  const std::vector<CompareResult> res = run_compare(A, B, parse_models("H100"), Fmt::e4m3, Fmt::fp32, 1, s);
  REQUIRE(res.size() == 4);
  CHECK(res[0].schedule == "chain");
  CHECK(res[0].differs == 0);
  CHECK(res[1].differs > 0);  // the fp8 accumulator's bits change with promotion
  // Slices of 128 added in order are promotion every 128: the same bits.
  CHECK(res[1].unit_normwise == res[2].unit_normwise);
  CHECK(res[1].differs == res[2].differs);
  CHECK(res[3].skipped);  // 48 is not a multiple of the instruction k = 32
  CHECK(res[3].reason.find("instruction k = 32") != std::string::npos);
  std::ostringstream out, err;
  CHECK(cmd_compare({"--m", "4", "--n", "4", "--k", "300", "--input", "e4m3", "--models", "H100", "--schedule",
                     "chain,splitk:2+promote:64", "--schedule", "splitk:3:tree"},
                    out, err) == 0);
  CHECK(out.str().find("H100 splitk:2,promote:64") != std::string::npos);
  CHECK(out.str().find("H100 splitk:3:tree") != std::string::npos);
  std::ostringstream out2, err2;
  CHECK(cmd_compare({"--models", "H100", "--schedule", "splitk:two"}, out2, err2) == 2);
  CHECK(err2.str().find("invalid schedule 'splitk:two'") != std::string::npos);
}

TEST_CASE("compare --input block-scaled: integers exact in the element format give zero error everywhere") {
  // Small integers: every block's scale makes them exact elements (MX, §4.6),
  // and their sums are exact in the units' windows.
  const struct {
    const char* policy;
    const char* dist;
  } cases[] = {{"mxfp8", "int:-8:8"}, {"mxfp8:e5m2", "int:-8:8"}, {"mxfp6", "int:-8:8"},
               {"mxfp6:e3m2", "int:-8:8"}, {"mxfp4", "int:-4:4"}};
  for (const auto& c : cases) {
    CAPTURE(c.policy);
    const Matrix A = random_matrix(5, 96, c.dist, 3), B = random_matrix(96, 7, c.dist, 4);
    const Dequantised q = dequantise_operands(A, B, c.policy);
    CHECK(q.A.v == A.v);
    CHECK(q.B.v == B.v);
    const std::vector<CompareResult> res = run_compare_scaled(A, B, parse_models("B200,RTXPRO6000"), c.policy, 1);
    REQUIRE(res.size() == 3);
    CHECK(res[0].model == "quantisation");
    CHECK(res[0].normwise == 0);
    for (std::size_t i = 1; i < res.size(); ++i) {
      CAPTURE(res[i].model);
      REQUIRE_FALSE(res[i].skipped);
      CHECK(res[i].normwise == 0);
      CHECK(res[i].unit_normwise == 0);
    }
  }
}

TEST_CASE("compare --input nvfp4: the quantisation's share, every model with the unit, the rest skipped") {
  const Matrix A = random_matrix(8, 160, "normal", 1), B = random_matrix(160, 6, "normal", 2);
  const std::vector<CompareResult> res = run_compare_scaled(A, B, parse_models("B200,B200-RN,RTXPRO6000,H100"),
                                                            "nvfp4", 1);
  REQUIRE(res.size() == 5);
  CHECK(res[0].normwise > 0.01);  // e2m1 elements: a coarse quantisation
  for (std::size_t i = 1; i <= 3; ++i) {
    CAPTURE(res[i].model);
    REQUIRE_FALSE(res[i].skipped);
    CHECK(res[i].instr.find("mxf4nvf4.block16.ue4m3") != std::string::npos);
    CHECK(res[i].unit_normwise > 0);     // fp32 results of the accumulation
    CHECK(res[i].unit_normwise < 1e-6);  // against the dequantised product
  }
  CHECK(res[4].skipped);
  CHECK(res[4].reason == "no block-scaled unit");
  // NVFP4's per-tensor scale: the dequantised operands are e2m1 * ue4m3 * decode.
  const Dequantised q = dequantise_operands(A, B, "nvfp4");
  CHECK(q.A.v != A.v);
}

TEST_CASE("compare --input block-scaled from the command line") {
  std::ostringstream out, err;
  CHECK(cmd_compare({"--m", "4", "--n", "4", "--k", "64", "--input", "mxfp4", "--models", "B200,H100"}, out, err) ==
        0);
  CHECK(out.str().find("quantisation exact product of the dequantised operands") != std::string::npos);
  CHECK(out.str().find("B200         tcgen05.mma.kind::mxf4.block32.ue8m0") != std::string::npos);
  CHECK(out.str().find("H100         skipped: no block-scaled unit") != std::string::npos);
  std::ostringstream out2, err2;
  CHECK(cmd_compare({"--input", "mxfp8", "--models", "H100"}, out2, err2) == 2);
  CHECK(err2.str().find("no model has a unit for mxfp8") != std::string::npos);
  std::ostringstream out3, err3;
  CHECK(cmd_compare({"--input", "nvfp5"}, out3, err3) == 2);
  CHECK(err3.str().find("valid: mxfp8, mxfp8:e5m2, mxfp6, mxfp6:e3m2, mxfp4, nvfp4") != std::string::npos);
  std::ostringstream out4, err4;
  CHECK(cmd_compare({"--input", "nvfp4", "--output", "fp16"}, out4, err4) == 2);
  CHECK(cmd_compare({"--input", "nvfp4", "--schedule", "splitk:2"}, out4, err4) == 2);
}
