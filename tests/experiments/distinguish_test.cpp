// SPDX-License-Identifier: BSD-3-Clause
// mmaemu distinguish and mmaemu dot on pairs whose answer is known: RZ vs
// RNE final rounding (H100 vs B200-RN), CDNA2 vs CDNA3, Turing against Volta
// and Ampere (through T4's m8n8k4 unit, which A100 lacks), a model against
// itself (nothing found, the bound printed), custom: variants differing in
// one field; the shortest vector, re-evaluated with `mmaemu dot` (its
// "again:" line), separates the two units with the reported results.
#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "experiments/distinguish.h"
#include "validate/validate.h"

using namespace mmaemu;
using namespace mmaemu::experiments;

namespace {

struct Run {
  int rc;
  std::string out, err;
};

Run distinguish_cli(const std::vector<std::string>& args) {
  std::ostringstream o, e;
  const int rc = cmd_distinguish(args, o, e);
  return {rc, o.str(), e.str()};
}
Run dot_cli(const std::vector<std::string>& args) {
  std::ostringstream o, e;
  const int rc = cmd_dot(args, o, e);
  return {rc, o.str(), e.str()};
}

// The words of a line (split at blanks, quotes dropped).
std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> w;
  std::istringstream ss(line);
  for (std::string t; ss >> t;) {
    if (t.size() >= 2 && t.front() == '\'' && t.back() == '\'') t = t.substr(1, t.size() - 2);
    w.push_back(t);
  }
  return w;
}

// The binary d token reported for `model` in a distinguish or dot report.
std::vector<std::string> d_tokens(const std::string& text) {
  std::vector<std::string> d;
  std::istringstream ss(text);
  for (std::string line; std::getline(ss, line);) {
    const std::size_t at = line.find("d = ");
    if (at != std::string::npos) d.push_back(line.substr(at + 4, 32));
  }
  return d;
}
std::vector<std::string> shortest_d(const std::string& text) {
  std::vector<std::string> d;
  const std::size_t from = text.find("shortest");
  std::istringstream ss(text.substr(from == std::string::npos ? 0 : from));
  for (std::string line; std::getline(ss, line);) {
    const std::size_t at = line.find(": ");
    if (line.find("    d ") == 0 && at != std::string::npos) d.push_back(line.substr(at + 2, 32));
  }
  return d;
}

// distinguish A B finds a vector; its again: line re-evaluated gives the
// two differing results it reported.
void check_found(const std::string& a, const std::string& b, const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args{a, b, "--samples", "200000"};
  args.insert(args.end(), extra.begin(), extra.end());
  const Run r = distinguish_cli(args);
  CAPTURE(r.out);
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  REQUIRE(r.out.find("found after") != std::string::npos);
  const std::size_t at = r.out.find("again: ");
  REQUIRE(at != std::string::npos);
  std::vector<std::string> cmd = words(r.out.substr(at + 7, r.out.find('\n', at) - at - 7));
  REQUIRE(cmd.size() > 3);
  REQUIRE(cmd[0] == "mmaemu");
  REQUIRE(cmd[1] == "dot");
  const Run d = dot_cli(std::vector<std::string>(cmd.begin() + 2, cmd.end()));
  CAPTURE(d.out);
  REQUIRE(d.rc == 0);
  const std::vector<std::string> got = d_tokens(d.out), want = shortest_d(r.out);
  REQUIRE(got.size() == 2);
  REQUIRE(want.size() == 2);
  CHECK(got[0] != got[1]);
  CHECK(got == want);
}

}  // namespace

TEST_CASE("distinguish: RZ vs RNE final rounding (H100 vs B200-RN, fp16)") { check_found("H100", "B200-RN"); }

TEST_CASE("distinguish: CDNA2 vs CDNA3 (MI250 vs MI300X, fp16)") { check_found("MI250", "MI300X"); }

TEST_CASE("distinguish: Turing against Volta and Ampere (T4 vs V100, T4 vs A100; docs/models.md §10.1)") {
  // V100's F 23 and blocks of 4 against T4's F 24: the units themselves.
  check_found("T4", "V100");
  // T4's m16n8k8 and A100's m16n8k16 have the same arithmetic (one block of
  // 8 per instruction, A100 splitting its k = 16 into two): the search goes on
  // to the unit only T4 has, the m8n8k4 shape, and finds inputs there.
  check_found("T4", "A100");
  check_found("A100", "T4", {"--output", "fp16"});
  const Run r = distinguish_cli({"T4", "A100", "--samples", "50000"});
  CAPTURE(r.out);
  REQUIRE(r.rc == 0);
  CHECK(r.out.find("none found in 50000 samples") != std::string::npos);
  CHECK(r.out.find("T4 has mma.sync.m8n8k4 (8x8x4), which A100 has not") != std::string::npos);
  CHECK(r.out.find("units for formats only A100 has: bf16->fp32, tf32->fp32, fp64->fp64") != std::string::npos);
  CHECK(r.out.find("distinguish: T4@mma.sync.m8n8k4 vs A100, fp16 -> fp32 (k = 16)") != std::string::npos);
  CHECK(r.out.find("again: mmaemu dot 'T4@mma.sync.m8n8k4' 'A100'") != std::string::npos);
  // The units named: the search stays with them.
  const Run units = distinguish_cli({"T4@mma.sync", "A100", "--samples", "20000"});
  CHECK(units.out.find("none found in 20000 samples") != std::string::npos);
  CHECK(units.out.find("mma.sync.m8n8k4") == std::string::npos);
}

TEST_CASE("distinguish: custom: variants differing in one field") {
  check_found("H100", "custom:base=H100,frac=24");
  check_found("A100", "custom:base=A100,floor=none", {"--input", "bf16"});
  check_found("MI250", "custom:base=MI250,flush_sign=keep", {"--input", "bf16"});
  check_found("H100", "custom:base=H100,nan32=0x7fc00000");
}

TEST_CASE("distinguish: a model against itself finds nothing and prints the bound") {
  const Run r = distinguish_cli({"H100", "H100", "--samples", "50000"});
  CAPTURE(r.out);
  REQUIRE(r.rc == 0);
  CHECK(r.out.find("none found in 50000 samples") != std::string::npos);
  char bound[32];
  std::snprintf(bound, sizeof bound, "<= %.3g", validate::mismatch_upper_bound(50000, 0, 1e-6));
  CHECK(r.out.find(bound) != std::string::npos);
  CHECK(r.out.find("where the two models differ") == std::string::npos);
  // An alias of the same unit: the same.
  const Run s = distinguish_cli({"H100", "sm_90", "--samples", "20000", "--dist", "em-normal,cancel"});
  CHECK(s.out.find("none found in 20000 samples") != std::string::npos);
}

TEST_CASE("distinguish and dot: bad options") {
  CHECK(distinguish_cli({"H100"}).rc == 2);
  CHECK(distinguish_cli({"H100", "H1000"}).err.find("valid models") != std::string::npos);
  CHECK(distinguish_cli({"H100", "MI300X", "--dist", "gauss"}).err.find("valid: sparse") != std::string::npos);
  CHECK(distinguish_cli({"V100", "H100", "--input", "bf16"}).err.find("V100") != std::string::npos);
  CHECK(dot_cli({"H100", "--a", "1e-8", "--b", "1"}).err.find("not a value of fp16") != std::string::npos);
  CHECK(dot_cli({"H100", "--a", "1,2", "--b", "1"}).err.find("--a has 2 values") != std::string::npos);
  CHECK(dot_cli({"H100", "--b", "1"}).rc == 2);
  const Run ok = dot_cli({"H100", "MI300X", "--a", "1,3c000000", "--b", "1.5,2", "--c", "0.25"});
  CAPTURE(ok.out);
  CHECK(ok.rc == 0);
  // 1*1.5 + 2^-7*2 + 0.25 = 1.765625 on both (3c000000: the fp32 pattern of 2^-7).
  CHECK(d_tokens(ok.out) == std::vector<std::string>(2, "00111111111000100000000000000000"));
}

TEST_CASE("vector_size orders by terms, then exponent range") {
  TestVector v;
  v.a = {0x3C00, 0, 0, 0};  // fp16 1.0
  v.b = {0x3C00, 0, 0, 0};
  v.c = 0;
  const VectorSize one = vector_size(Fmt::fp16, Fmt::fp32, v);
  CHECK(one.terms == 1);
  CHECK(one.exponent_range == 0);
  v.c = 0x3F800000;  // c = 1
  CHECK(vector_size(Fmt::fp16, Fmt::fp32, v).terms == 2);
  CHECK(one < vector_size(Fmt::fp16, Fmt::fp32, v));
}

namespace {

// The first word after `tag` on each line of text that has it.
std::vector<std::string> words_after(const std::string& text, const std::string& tag, const std::string& from = "") {
  std::vector<std::string> v;
  const std::size_t start = from.empty() ? 0 : text.find(from);
  std::istringstream ss(text.substr(start == std::string::npos ? 0 : start));
  for (std::string line; std::getline(ss, line);) {
    const std::size_t at = line.find(tag);
    if (at == std::string::npos || (tag == ": " && line.find("    d ") != 0)) continue;
    v.push_back(words(line.substr(at + tag.size())).at(0));
  }
  return v;
}

// An integer distinguish finds a vector; its again: lines (one per pair of
// formats) re-evaluated give the two s32 codes it reported, which differ.
void check_found_int(const std::vector<std::string>& args) {
  const Run r = distinguish_cli(args);
  CAPTURE(r.out);
  CAPTURE(r.err);
  REQUIRE(r.rc == 0);
  REQUIRE(r.out.find("found after") != std::string::npos);
  const std::vector<std::string> want = words_after(r.out, ": ", "shortest");
  REQUIRE(want.size() == 2);
  CHECK(want[0] != want[1]);
  std::vector<std::string> got;
  std::istringstream ss(r.out.substr(r.out.find("again: ") + 7));
  for (std::string line; std::getline(ss, line);) {
    const std::vector<std::string> cmd = words(line);
    REQUIRE(cmd.size() > 3);
    REQUIRE(cmd[1] == "dot");
    const Run d = dot_cli(std::vector<std::string>(cmd.begin() + 2, cmd.end()));
    CAPTURE(d.out);
    REQUIRE(d.rc == 0);
    for (const std::string& t : words_after(d.out, "d = ")) got.push_back(t);
  }
  CHECK(got == want);
}

}  // namespace

TEST_CASE("distinguish: integer units, wrap vs satfinite, clamp points, u8 vs s8 readings") {
  check_found_int({"H100", "custom:base=H100,overflow=satfinite", "--input", "s8", "--samples", "50000"});
  check_found_int({"custom:base=A100,overflow=satfinite", "custom:base=A100,overflow=satfinite,sat_point=addition",
                   "--input", "s8,u8", "--samples", "50000"});
  check_found_int({"H100", "H100", "--input", "u8", "--input2", "s8", "--samples", "50000"});
  check_found_int({"A100", "A100", "--input", "s4", "--input2", "u4", "--samples", "50000"});
  check_found_int({"T4", "custom:base=T4,overflow=satfinite", "--input", "u4", "--samples", "50000"});
  // The shortest u8 / s8 vector is one product with a top-bit code.
  const Run r = distinguish_cli({"H100", "H100", "--input", "u8", "--input2", "s8", "--samples", "20000"});
  CHECK(r.out.find("shortest") != std::string::npos);
  CHECK(r.out.find(": 1 terms") != std::string::npos);
}

TEST_CASE("distinguish: integer units with the same arithmetic are not separated") {
  // Every integer unit wraps exactly: NVIDIA's and AMD's s8 x s8 give the same bits.
  const Run r = distinguish_cli({"H100", "MI300X", "--input", "int8", "--samples", "30000"});
  CAPTURE(r.out);
  REQUIRE(r.rc == 0);
  CHECK(r.out.find("none found in 30000 samples") != std::string::npos);
  // Clamp points agree when every product is >= 0 (u8 x u8).
  const Run u = distinguish_cli({"custom:base=H100,overflow=satfinite",
                                 "custom:base=H100,overflow=satfinite,sat_point=addition", "--input", "u8",
                                 "--samples", "30000"});
  CHECK(u.out.find("none found in 30000 samples") != std::string::npos);
}

TEST_CASE("dot and distinguish: integer inputs, by hand and refused") {
  // 127*127 + 127*127 on MAX_INT32: wraps on H100 and MI300X, clamps with --saturate; MI300X has no .satfinite.
  const Run w = dot_cli({"H100", "MI300X", "--input", "s8", "--a", "127,127", "--b", "127,0x7f", "--c", "2147483647"});
  CAPTURE(w.out);
  CHECK(words_after(w.out, "d = ") == std::vector<std::string>(2, "0x80007e01"));
  const Run s = dot_cli({"H100", "MI300X", "--input", "int8", "--a", "127,127", "--b", "127,127", "--c", "0x7fffffff",
                         "--saturate"});
  CAPTURE(s.out);
  CHECK(words_after(s.out, "d = ") == std::vector<std::string>{"0x7fffffff"});
  CHECK(s.out.find("MI300X: skipped: v_mfma_i32_16x16x32_i8 has no .satfinite variant") != std::string::npos);
  // Mixed signedness: 255 * -128 + 0x80 (u8: 128) * 1.
  const Run m = dot_cli({"H100", "--input", "u8,s8", "--a", "255,0x80", "--b", "-128,1"});
  CHECK(words_after(m.out, "d = ") == std::vector<std::string>{"0xffff8100"});
  CHECK(dot_cli({"H100", "--input", "s8", "--a", "128", "--b", "1"}).err.find("not a value of s8 (an integer in [-128, 127]") !=
        std::string::npos);
  CHECK(dot_cli({"H100", "--input", "s4", "--a", "0x10", "--b", "1"}).err.find("not a code of s4") != std::string::npos);
  CHECK(dot_cli({"H100", "--input", "fp16", "--a", "1", "--b", "1", "--saturate"}).err.find("--saturate applies") !=
        std::string::npos);
  CHECK(dot_cli({"H100", "--input", "s8", "--a", "1", "--b", "1", "--output", "fp32"}).err.find("give s32") !=
        std::string::npos);
  CHECK(distinguish_cli({"H100", "H100", "--input", "s8", "--input2", "u4"}).err.find("widths") != std::string::npos);
  CHECK(distinguish_cli({"H100", "H100", "--input2", "u8"}).err.find("--input2 applies") != std::string::npos);
  CHECK(distinguish_cli({"H100", "A100", "--input", "s4"}).err.find("H100 has no integer unit for s4 x s4") !=
        std::string::npos);
  CHECK(distinguish_cli({"H100", "MI300X", "--input", "s8", "--dist", "cancel"}).err.find("valid: overflow, extremes") !=
        std::string::npos);
}

TEST_CASE("integer_vector_size: terms (products and c), then exponent range, then set bits") {
  TestVector v;
  v.a = {0x80, 0, 0x01};
  v.b = {0x01, 0x7f, 0x00};  // s8: -128, then two zero products
  v.c = 0;
  const VectorSize one = integer_vector_size(Fmt::s8, Fmt::s8, v);
  CHECK(one.terms == 1);
  CHECK(one.exponent_range == 0);
  v.c = 1;
  const VectorSize two = integer_vector_size(Fmt::s8, Fmt::s8, v);
  CHECK(two.terms == 2);
  CHECK(two.exponent_range == 7);  // 2^7 and 2^0
  CHECK(one < two);
}
