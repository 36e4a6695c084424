// SPDX-License-Identifier: BSD-3-Clause
// Every bundled hardware set (tests/data: the toolbox's model_validation
// files) and every reference set of the authors' AMD models must be
// reproduced bit for bit.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <cmath>
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "ref/reference.h"
#include "validate/validate.h"

using namespace mmaemu;
using namespace mmaemu::validate;

namespace {

const std::string kData = MMAEMU_DATA_DIR;

std::string describe(const SetResult& r, const DataSet& s) {
  std::ostringstream os;
  os << s.dir.string() << " -> " << r.output << ": " << r.mismatches << " of " << r.samples
     << " differ";
  for (const Mismatch& m : r.first) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "; line %zu data 0x%08llx model 0x%08llx", m.line,
                  static_cast<unsigned long long>(m.expected),
                  static_cast<unsigned long long>(m.got));
    os << buf;
  }
  return os.str();
}

// The largest right-shift count the toolbox's CDNA3 late-c algorithm uses on
// one sample (single-stage form: product alignment, odd/even combine, and the
// product-sum/c alignment), block by block along k. Written independently of
// src/ref so that the errata test below does not trust the engine it checks.
int toolbox_max_shift(const ModelRow& row, std::size_t k, const uint64_t* a, const uint64_t* b,
                      uint64_t c) {
  int max_shift = 0;
  const std::size_t step = ref::step_k(row);
  for (std::size_t s = 0; s < k; s += step) {
    int E[2] = {INT32_MIN, INT32_MIN};
    std::vector<std::pair<int, int>> prods;  // (exponent, group)
    for (std::size_t i = s; i < std::min(k, s + step); ++i) {
      const Unpacked x = decode(row.in, a[i]), y = decode(row.in, b[i]);
      if (x.cls != Class::finite || y.cls != Class::finite) continue;
      const int man = info(row.in).man_bits;
      const int e = (x.exp + man) + (y.exp + man);
      const int g = row.grouping == Grouping::odd_even ? static_cast<int>((i - s) % 2) : 0;
      prods.push_back({e, g});
      E[g] = std::max(E[g], e);
    }
    for (auto [e, g] : prods)  // |m| * 2^F / 2^(E-e): a right shift by (E-e) - F + 2*man
      max_shift = std::max(max_shift, (E[g] - e) - row.frac + 2 * info(row.in).man_bits);
    int Ep = std::max(E[0], E[1]);
    if (E[0] != INT32_MIN && E[1] != INT32_MIN) max_shift = std::max(max_shift, std::abs(E[0] - E[1]));
    const Unpacked cu = decode(Fmt::fp32, c);
    const int ec = cu.cls == Class::finite ? std::max(cu.exp + 23 + (63 - __builtin_clzll(cu.sig)) - 23, -126)
                                           : -126;
    if (Ep != INT32_MIN) max_shift = std::max(max_shift, std::abs(Ep - ec));
    c = ref::step(row, std::min(step, k - s), a + s, b + s, c);
  }
  return max_shift;
}

}  // namespace

TEST_CASE("hardware data: every set and output, bit for bit") {
  std::size_t sets = 0, samples = 0;
  for (const DataSet& s : find_sets(kData + "/hwdata")) {
    for (const std::string& out : s.outputs) {
      const SetResult r = run_set(s, out);
      INFO(describe(r, s));
      CHECK(r.mismatches == 0);
      ++sets;
      samples += r.samples;
    }
  }
  MESSAGE("hwdata: " << sets << " sets, " << samples << " samples");
  CHECK(sets == 28);
  CHECK(samples == 140000);
}

TEST_CASE("reference data of the AMD models: bit for bit, errata excluded and proven") {
  const Errata errata = Errata::load(MMAEMU_ERRATA);
  std::size_t sets = 0, samples = 0, excluded = 0;
  for (const DataSet& s : find_sets(kData + "/refdata")) {
    for (const std::string& out : s.outputs) {
      const SetResult r = run_set(s, out, &errata);
      INFO(describe(r, s));
      CHECK(r.mismatches == 0);  // also fails if an errata sample agrees
      ++sets;
      samples += r.samples;
      excluded += r.excluded;
    }
  }
  MESSAGE("refdata: " << sets << " sets, " << samples << " samples, " << excluded
                      << " excluded by the errata");
  CHECK(sets == 12);
  CHECK(samples == 24000);

  // Every errata sample is one where the toolbox shifts by >= 64 bits (the
  // GNU Octave bitshift wrap), and every such MI300X sample that the toolbox
  // got right is still compared above.
  std::size_t proven = 0;
  for (const auto& [key, entry] : errata.entries) {
    const std::set<std::size_t>& lines = entry.lines;
    const std::string gpu = key.substr(0, key.find('/'));
    const std::string fmt = key.substr(gpu.size() + 1, key.find('/', gpu.size() + 1) - gpu.size() - 1);
    DataSet set;
    for (const DataSet& s : find_sets(kData + "/refdata"))
      if (s.gpu == gpu && s.fmt == fmt) set = s;
    REQUIRE(!set.dir.empty());
    CHECK(file_checksum(set.dir / ("d_" + gpu + "_fp32.txt")) == entry.checksum);
    const Model m = lookup_model(gpu);
    const ModelRow& row = row_for(m, set, "fp32");
    const Samples smp = read_samples(set, "fp32");
    std::vector<uint64_t> a(smp.k), b(smp.k);
    for (std::size_t line : lines) {
      const std::size_t i = line - 1;
      for (std::size_t j = 0; j < smp.k; ++j) {
        a[j] = convert(Fmt::fp32, row.in, smp.a[i * smp.k + j], Round::rz);
        b[j] = convert(Fmt::fp32, row.in, smp.b[i * smp.k + j], Round::rz);
      }
      INFO(key << " line " << line);
      CHECK(toolbox_max_shift(row, smp.k, a.data(), b.data(), smp.c[i]) >= 64);
      ++proven;
    }
  }
  CHECK(proven == excluded);
}

TEST_CASE("the compiled-in errata are the file's, and apply only to identical files") {
  const Errata file = Errata::load(MMAEMU_ERRATA);
  const Errata& built = Errata::bundled();
  REQUIRE(file.entries.size() == built.entries.size());
  for (const auto& [key, entry] : file.entries) {
    REQUIRE(built.entries.count(key) == 1);
    CHECK(built.entries.at(key).checksum == entry.checksum);
    CHECK(built.entries.at(key).lines == entry.lines);
  }
  // A set whose d-file differs (here: no such file) gets no exclusion.
  Errata wrong = file;
  for (auto& [key, entry] : wrong.entries) entry.checksum ^= 1;
  std::size_t excluded = 0, mismatches = 0;
  for (const DataSet& s : find_sets(kData + "/refdata"))
    for (const std::string& out : s.outputs) {
      const SetResult r = run_set(s, out, &wrong);
      excluded += r.excluded;
      mismatches += r.mismatches;
    }
  CHECK(excluded == 0);
  CHECK(mismatches == 2968);
}

TEST_CASE("Bayesian mismatch bound (AMD paper §5.4)") {
  // m = 0: p = 1 - eps^(1/(N+1)); the paper quotes ~1.38e-5 for 10^6 samples.
  CHECK(mismatch_upper_bound(1000000, 0) == doctest::Approx(1.3815e-5).epsilon(1e-3));
  CHECK(mismatch_upper_bound(5000, 0) == doctest::Approx(2.759e-3).epsilon(1e-3));
  // m > 0 is monotone in m and below 1.
  const double b1 = mismatch_upper_bound(5000, 1), b2 = mismatch_upper_bound(5000, 10);
  CHECK(b1 > mismatch_upper_bound(5000, 0));
  CHECK(b2 > b1);
  CHECK(b2 < 1);
  // m = 1: P(Beta(2, N) > p) = (1 - p)^N (1 + N p) must be eps = 1e-6.
  CHECK(std::pow(1 - b1, 5000) * (1 + 5000 * b1) == doctest::Approx(1e-6).epsilon(1e-9));
}
