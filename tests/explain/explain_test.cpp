// SPDX-License-Identifier: BSD-3-Clause
// mmaemu explain ends with the d of mmaemu dot, bit for bit, for every row of
// every registered model (random vectors, specials included) and on the
// papers' test vectors (docs/models.md §6); --vs marks where two units part.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/hex.h"
#include "cli/commands.h"
#include "experiments/explain.h"
#include "models/model.h"
#include "models/row_facts.h"
#include "ref/reference.h"

using namespace mmaemu;
using namespace mmaemu::experiments;

namespace {

// A code as a token of mmaemu dot: its value as a binary64 hex float (exact
// for every format; strtod reads it), or nan/inf.
std::string token(Fmt f, uint64_t code) {
  const double v = std::bit_cast<double>(to_fp64_bits(f, code));
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char b[48];
  std::snprintf(b, sizeof b, "%a", v);
  return b;
}

std::string list(Fmt f, const std::vector<uint64_t>& v) {
  std::string s;
  for (uint64_t x : v) s.append(s.empty() ? "" : ",").append(token(f, x));
  return s;
}

struct Run {
  int rc;
  std::string out, err;
};

Run cli(int (*cmd)(const std::vector<std::string>&, std::ostream&, std::ostream&), std::vector<std::string> args) {
  std::ostringstream o, e;
  const int rc = cmd(args, o, e);
  return {rc, o.str(), e.str()};
}

std::string last_line(const std::string& s) {
  const std::size_t end = s.find_last_not_of('\n');
  const std::size_t start = s.rfind('\n', end);
  return s.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1) + 1);
}

// mmaemu explain's last line against mmaemu dot's line, same arguments.
void check_cli(const std::string& model, Fmt in, Fmt out, const std::vector<uint64_t>& a,
               const std::vector<uint64_t>& b, uint64_t c) {
  const std::vector<std::string> args{model, "--input", info(in).name, "--output", info(out).name,
                                      "--a", list(in, a), "--b", list(in, b), "--c", token(out, c)};
  const Run x = cli(cmd_explain, args), d = cli(cmd_dot, args);
  INFO("mmaemu explain " << model << " --input " << info(in).name << " --output " << info(out).name << " --a "
                         << list(in, a) << " --b " << list(in, b) << " --c " << token(out, c) << "\n" << x.err << d.err);
  REQUIRE(x.rc == 0);
  REQUIRE(d.rc == 0);
  CHECK(last_line(x.out) == last_line(d.out));
}

// A random code of f: mostly values near 1 (alignment and carries), some
// spread over the whole range, a few zeros, subnormals and specials.
uint64_t random_code(Fmt f, std::mt19937_64& g) {
  const int pick = static_cast<int>(g() % 100);
  if (pick < 3) return g();  // any bits, NaN and Inf included
  if (pick < 8) return 0;
  const double m = 1.0 + static_cast<double>(g() >> 11) * 0x1p-53;
  const int e = pick < 70 ? static_cast<int>(g() % 24) - 12 : static_cast<int>(g() % 300) - 150;
  const double v = std::ldexp(g() & 1 ? -m : m, e);
  uint64_t code = convert(Fmt::fp64, f, std::bit_cast<uint64_t>(v), Round::rne, Overflow::saturate);
  if (info(f).width < 64) code &= (uint64_t{1} << info(f).width) - 1;
  return code;
}

}  // namespace

TEST_CASE("explain: d equals the reference engine's on every row, random vectors") {
  std::mt19937_64 g(7);
  for (const Gpu& gpu : gpus()) {
    const Model m = *gpu_model(gpu.name);
    for (const ModelRow& row : m.rows) {
      const std::size_t sk = step_k(row);
      for (int t = 0; t < 12; ++t) {
        const std::size_t k = t < 6 ? sk : std::max<std::size_t>(row.k, 2 * sk);
        std::vector<uint64_t> a(k), b(k);
        for (std::size_t i = 0; i < k; ++i) a[i] = random_code(row.in, g), b[i] = random_code(row.in, g);
        const uint64_t c = t % 3 == 0 ? zero_bits(row.out, false) : random_code(row.out, g);
        const Explanation x = explain_dot(m.name, row, k, a, b, c);
        INFO(m.name << " " << row.instr << " " << info(row.in).name << " -> " << info(row.out).name << " a "
                    << list(row.in, a) << " b " << list(row.in, b) << " c " << token(row.out, c));
        CHECK_MESSAGE(x.d == ref::dot(row, k, a.data(), b.data(), c),
                      "explain " << hex(x.d) << " ref " << hex(ref::dot(row, k, a.data(), b.data(), c)));
      }
    }
  }
}

TEST_CASE("explain: its last line is mmaemu dot's, every model and format, random vectors") {
  std::mt19937_64 g(11);
  for (const Gpu& gpu : gpus()) {
    const Model m = *gpu_model(gpu.name);
    for (const ModelRow& row : m.rows) {
      if (m.find(row.in, row.out) != &row) continue;  // the CLI's row for (in, out)
      for (int t = 0; t < 4; ++t) {
        std::vector<uint64_t> a(row.k), b(row.k);
        for (std::size_t i = 0; i < a.size(); ++i) a[i] = random_code(row.in, g), b[i] = random_code(row.in, g);
        check_cli(m.name, row.in, row.out, a, b, t ? random_code(row.out, g) : zero_bits(row.out, false));
      }
    }
  }
}

namespace {

uint64_t v(Fmt f, double x) { return convert(Fmt::fp64, f, std::bit_cast<uint64_t>(x), Round::rne); }

struct PaperVector {
  const char* id;
  const char* model;
  Fmt in;
  std::vector<double> a, b;
  double c;
  uint32_t hardware_d;  // fp32 bits
};

const std::vector<PaperVector>& paper_vectors() {
  const double u12 = 0x1p-12, u11 = 0x1p-11;
  static const std::vector<PaperVector> vs{
      {"PN-V1", "V100", Fmt::fp16, {1.5, u12, u12}, {1.5, u11, u11}, 0, 0x40100001},
      {"PN-V2", "V100", Fmt::fp16, {1, u12, u12}, {2.25, u11, u11}, 0, 0x40100000},
      {"PN-A1", "A100", Fmt::fp16, {1.5, u12, u12, u12}, {1.5, u11, u12, u12}, 0, 0x40100001},
      {"PN-H1", "H100", Fmt::fp16, {1.5, 1.75 * u12, 0x1p-13}, {1.5, u11, u12}, 0, 0x40100001},
      {"PN-H2", "H100", Fmt::bf16, {127.0 / 64 * 0x1p-75, 0x1p-78, 0x1p-79, 0x1p-79},
       {0x1p-75, 0x1p-79, 0x1p-79, 0x1p-79}, 0, 0x00000001},
      {"PN-A2", "A100", Fmt::bf16, {63.0 / 32 * 0x1p-75, 0x1p-78, 0x1p-78}, {0x1p-75, 0x1p-78, 0x1p-78}, 0,
       0x00000001},
      {"K6", "MI300X", Fmt::fp16, {u12, u12, u12}, {0x1p-13, 0x1p-13, u12}, 1, 0x3F800001},
      {"K15", "MI300X", Fmt::fp16, {-(1 + 0x1p-2 + 0x1p-3 + 0x1p-4 + 0x1p-5 + 0x1p-6 + 0x1p-7 + 0x1p-8) * u12}, {u12},
       1, 0x3F7FFFFF},
      {"K5", "MI300X", Fmt::fp16, {1.5, u12, u12, u12}, {1.5, u11, u12, u12}, 0, 0x40100001},
      {"L3", "MI300X", Fmt::bf16, {0x1p-75, 0x1p-76}, {0x1p-75, 0x1p-76}, 0, 0x00000001},
      {"G3", "MI100", Fmt::fp16, {1}, {1}, 0x1p-23 + 0x1p-24, 0x3F800002},
      {"I6", "MI250", Fmt::fp16, {1, 1.5 * u12, 1, 1.5 * u12}, {1, u11, 1, u11}, 0x1p-23 + 0x1p-25, 0x40000003},
      {"F2", "MI100", Fmt::fp32, {1, 0x1p-23}, {1, 1}, 0x1p-24, 0x3F800001},
      {"6.5 late c", "H100@mma.sync", Fmt::e5m2, {1, u12}, {1, u12}, 0x1p-24, 0x3F800000},
  };
  return vs;
}

}  // namespace

TEST_CASE("explain: the papers' test vectors, explain = dot = the hardware's d") {
  for (const PaperVector& p : paper_vectors()) {
    INFO(p.id << " on " << p.model);
    std::vector<uint64_t> a, b;
    for (double x : p.a) a.push_back(v(p.in, x));
    for (double x : p.b) b.push_back(v(p.in, x));
    check_cli(p.model, p.in, Fmt::fp32, a, b, v(Fmt::fp32, p.c));
    const Model m = lookup_model(p.model);
    const ModelRow& row = *m.find(p.in, Fmt::fp32);
    const Explanation x = explain_dot(m.name, row, std::max<std::size_t>(a.size(), row.k), a, b, v(Fmt::fp32, p.c));
    CHECK_MESSAGE(x.d == p.hardware_d, "explain " << hex(x.d) << ", hardware " << hex(p.hardware_d));
  }
}

TEST_CASE("explain --vs: H100 against A100 parts at the alignment; MI300X rounds down in two stages") {
  const std::vector<std::string> args{"H100", "--vs", "A100", "--a", "1,0x1p-12,0x1p-12,0x1p-12,0x1p-12",
                                      "--b", "1,0x1p-13,0x1p-13,0x1p-13,0x1p-13"};
  const Run r = cli(cmd_explain, args);
  INFO(r.out << r.err);
  REQUIRE(r.rc == 0);
  const std::size_t mark = r.out.find(">> the bits part here");
  REQUIRE(mark != std::string::npos);
  const std::size_t next = r.out.find('\n', mark) + 1;
  CHECK(r.out.substr(next, r.out.find('\n', next) - next).find("alignment") != std::string::npos);
  CHECK(r.out.find("(F = 25)") != std::string::npos);
  CHECK(r.out.find("(F = 24)") != std::string::npos);
  const Run k15 = cli(cmd_explain, {"MI300X", "--a", "-0x1.7fp-12", "--b", "0x1p-12", "--c", "1"});
  INFO(k15.out << k15.err);
  REQUIRE(k15.rc == 0);
  CHECK(k15.out.find("c dominates") != std::string::npos);
  CHECK(k15.out.find("round down to 31 fraction bits") != std::string::npos);
  CHECK(last_line(k15.out).find("0x3f7fffff") != std::string::npos);
}

TEST_CASE("explain: --svg writes the diagram; bad arguments are refused") {
  const std::string svg = "explain_test_out.svg";
  const Run r = cli(cmd_explain, {"H100", "--vs", "MI300X", "--a", "1,2", "--b", "3,4", "--svg", svg});
  REQUIRE(r.rc == 0);
  std::ifstream f(svg);
  std::stringstream s;
  s << f.rdbuf();
  CHECK(s.str().rfind("<svg", 0) == 0);
  CHECK(s.str().find("the bits part here") != std::string::npos);
  std::remove(svg.c_str());
  const Run bad = cli(cmd_explain, {"H101", "--a", "1", "--b", "1"});
  CHECK(bad.rc == 2);
  CHECK(bad.err.find("V100") != std::string::npos);
  CHECK(cli(cmd_explain, {"H100", "--a", "1"}).rc == 2);
  CHECK(cli(cmd_explain, {"V100", "--input", "bf16", "--a", "1", "--b", "1"}).rc == 2);
}
