// SPDX-License-Identifier: BSD-3-Clause
// The decisive vectors of docs/models.md §9 (tools/hwcheck/decisive.txt):
// where libmmaemu and MMA-Sim v2.0.2 disagree and the public hardware data
// is silent. Each line is checked for libmmaemu's reading and, where the
// line names one, for the alternative reading (its custom: keys), bit for
// bit, on
//   - the reference engine (ref::dot over one instruction),
//   - the GEMM driver on every compiled SIMD target, on the scalar kernels
//     (simd_off) and on the reference (use_reference), the vector placed in
//     every element of a 3 x 20 product (so that every lane of a SIMD
//     vector, and a short lane group, carries it).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "common/hex.h"
#include "driver/gemm.h"
#include "hwy/targets.h"
#include "models/model.h"
#include "ref/reference.h"

using namespace mmaemu;

namespace {

struct Vector {
  std::string id, gpus, instr, a, b, alt;
  Fmt in = Fmt::fp16, out = Fmt::fp32;
  uint64_t c = 0, lib = 0, alt_out = 0;
  int line = 0;
};

uint64_t code(const std::string& s) { return std::stoull(s, nullptr, 16); }

Fmt format(const std::string& s, int line) {
  const std::optional<Fmt> f = parse_fmt(s);
  REQUIRE_MESSAGE(f.has_value(), "decisive.txt:" << line << ": unknown format " << s);
  return *f;
}

std::vector<Vector> load() {
  std::ifstream in(MMAEMU_SOURCE_DIR "/tools/hwcheck/decisive.txt");
  REQUIRE_MESSAGE(in.good(), "cannot read tools/hwcheck/decisive.txt");
  std::vector<Vector> vs;
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    text = text.substr(0, text.find('#'));
    std::istringstream is(text);
    std::vector<std::string> f;
    for (std::string w; is >> w;) f.push_back(w);
    if (f.empty()) continue;
    REQUIRE_MESSAGE(f.size() == 12, "decisive.txt:" << line << ": 12 columns expected, got " << f.size());
    Vector v;
    v.line = line;
    v.id = f[0], v.gpus = f[1], v.instr = f[2];
    v.in = format(f[3], line), v.out = format(f[4], line);
    v.c = code(f[5]), v.a = f[6], v.b = f[7], v.lib = code(f[8]), v.alt = f[9];
    if (v.alt != "-") v.alt_out = code(f[10]);
    vs.push_back(v);
  }
  return vs;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::istringstream is(s);
  for (std::string w; std::getline(is, w, sep);)
    if (!w.empty()) out.push_back(w);
  return out;
}

// pos:code,... ('*:code': every position; '-': none) over k elements.
std::vector<uint64_t> operand(const std::string& s, std::size_t k, int line) {
  std::vector<uint64_t> x(k, 0);
  if (s == "-") return x;
  for (const std::string& item : split(s, ',')) {
    const std::size_t colon = item.find(':');
    REQUIRE_MESSAGE(colon != std::string::npos, "decisive.txt:" << line << ": pos:code expected, got " << item);
    const uint64_t value = code(item.substr(colon + 1));
    if (item.substr(0, colon) == "*") {
      for (uint64_t& e : x) e = value;
      continue;
    }
    const std::size_t pos = std::stoul(item.substr(0, colon));
    REQUIRE_MESSAGE(pos < k, "decisive.txt:" << line << ": position " << pos << " beyond k = " << k);
    x[pos] = value;
  }
  return x;
}

// The vector in every element of an m x n GEMM (A's rows and B's columns
// all equal), the chain started from C (alpha = beta = 1, into-c).
std::vector<uint64_t> gemm(const ModelRow& row, const driver::GemmSpec& base, const std::vector<uint64_t>& a,
                           const std::vector<uint64_t>& b, uint64_t c, std::size_t m, std::size_t n) {
  const std::size_t k = a.size();
  std::vector<uint8_t> As(m * k * 8), Bs(k * n * 8), Cs(m * n * 8);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t l = 0; l < k; ++l) driver::store(row.in, As.data(), i * k + l, a[l]);
  for (std::size_t l = 0; l < k; ++l)
    for (std::size_t j = 0; j < n; ++j) driver::store(row.in, Bs.data(), l * n + j, b[l]);
  for (std::size_t e = 0; e < m * n; ++e) driver::store(row.out, Cs.data(), e, c);
  driver::GemmSpec spec = base;
  spec.row = &row;
  spec.accumulate_into_c = true;
  spec.work_per_thread = 1;
  const driver::Operand A{row.in, As.data(), static_cast<std::ptrdiff_t>(k), false};
  const driver::Operand B{row.in, Bs.data(), static_cast<std::ptrdiff_t>(n), false};
  driver::gemm(spec, m, n, k, 1.0, A, B, 1.0, row.out, Cs.data(), static_cast<std::ptrdiff_t>(n));
  std::vector<uint64_t> d(m * n);
  for (std::size_t e = 0; e < m * n; ++e) d[e] = driver::load(row.out, Cs.data(), e);
  return d;
}

// Checks one reading (model spec) of a vector on every engine.
void check_reading(const Vector& v, const std::string& spec, uint64_t want) {
  const Model model = lookup_model(spec);
  const ModelRow* row = model.find(v.in, v.out);
  REQUIRE_MESSAGE(row != nullptr, v.id << ": " << spec << " has no " << info(v.in).name << "->" << info(v.out).name
                                        << " row");
  const std::size_t k = static_cast<std::size_t>(row->k);
  const std::vector<uint64_t> a = operand(v.a, k, v.line), b = operand(v.b, k, v.line);
  const std::string what = v.id + " (decisive.txt:" + std::to_string(v.line) + ") " + spec + " " +
                           info(v.in).name + "->" + info(v.out).name + " c " + hex(v.c);
  const uint64_t r = ref::dot(*row, k, a.data(), b.data(), v.c);
  CHECK_MESSAGE(r == want, what << ": ref::dot " << hex(r) << ", expected " << hex(want));

  auto check_gemm = [&](const std::string& engine, driver::GemmSpec s) {
    for (int threads : {1, 2}) {
      s.threads = threads;
      const std::vector<uint64_t> d = gemm(*row, s, a, b, v.c, 3, 20);
      std::size_t bad = 0;
      for (uint64_t x : d) bad += x != want;
      CHECK_MESSAGE(bad == 0, what << ": GEMM on " << engine << ", " << threads << " thread(s): " << bad
                                   << " of 60 elements differ, e.g. " << hex(d[0]) << ", expected " << hex(want));
    }
  };
  driver::GemmSpec reference;
  reference.use_reference = true;
  check_gemm("the reference", reference);
  driver::GemmSpec scalar;
  scalar.simd_off = true;
  check_gemm("the scalar kernels", scalar);
  for (int64_t target : hwy::SupportedAndGeneratedTargets()) {
    hwy::SetSupportedTargetsForTest(target);
    check_gemm(hwy::TargetName(target), driver::GemmSpec{});
  }
  hwy::SetSupportedTargetsForTest(0);
}

}  // namespace

TEST_CASE("decisive vectors: libmmaemu's reading on every engine") {
  std::size_t n = 0;
  for (const Vector& v : load())
    for (const std::string& gpu : split(v.gpus, ',')) {
      check_reading(v, gpu + "@" + v.instr, v.lib);
      ++n;
    }
  CHECK(n > 20);
}

TEST_CASE("decisive vectors: the alternative reading, selected by its custom: keys") {
  std::size_t n = 0;
  for (const Vector& v : load()) {
    if (v.alt == "-") continue;
    CHECK_MESSAGE(v.alt_out != v.lib, v.id << ": the alternative must change the output");
    for (const std::string& gpu : split(v.gpus, ',')) {
      check_reading(v, "custom:base=" + gpu + "," + v.alt + "@" + v.instr, v.alt_out);
      ++n;
    }
  }
  CHECK(n > 10);
}

TEST_CASE("custom: in= and out= with a base select the rows the other keys change") {
  const Model base = lookup_model("A100");
  const Model alt = lookup_model("custom:base=A100,out=fp16,floor=-21");
  REQUIRE(alt.rows.size() == base.rows.size());
  for (std::size_t i = 0; i < base.rows.size(); ++i) {
    const bool selected = base.rows[i].out == Fmt::fp16 && base.rows[i].accum == Accumulation::aligned;
    CHECK(alt.rows[i].floor == (selected ? -21 : base.rows[i].floor));
  }
  // No row matches: refused, listing the rows.
  try {
    lookup_model("custom:base=MI250,out=fp16,floor=-21");
    FAIL("expected a refusal");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("no row of MI250 has out=fp16 (its rows: fp16->fp32") != std::string::npos);
  }
  // The selected rows must read the key.
  try {
    lookup_model("custom:base=A100,in=fp64,floor=-21");
    FAIL("expected a refusal");
  } catch (const std::invalid_argument& e) {
    CHECK(std::string(e.what()).find("rows with in=fp64") != std::string::npos);
  }
}
