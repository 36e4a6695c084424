// SPDX-License-Identifier: BSD-3-Clause
// The validation engine (driver::fast_dot_batch) returns ref::dot's bits for
// every registry row: samples of raw random bit patterns (every exponent,
// NaN and Inf included) and of values within a few binades of each other,
// with k of one to three steps, on 1 and 2 threads.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "common/engine_rows.h"
#include "driver/fast_dot.h"
#include "ref/reference.h"

using namespace mmaemu;
using mmaemu::test::kSeed;

TEST_CASE("fast_dot_batch equals ref::dot for every row") {
  const uint64_t seed = kSeed;
  std::size_t total = 0;
  for (const Gpu& g : gpus()) {
    const Model model = *gpu_model(g.name);
    for (const ModelRow& row : model.rows) {
      std::mt19937_64 rng(seed ^ std::hash<std::string>{}(std::string(g.name) + row.instr + info(row.in).name));
      const FormatInfo& fi = info(row.in);
      const std::size_t step = ref::step_k(row), k = step * (1 + rng() % 3) - rng() % step, n = 4000;
      const uint64_t in_mask = fi.width == 64 ? ~0ull : (1ull << fi.width) - 1;
      const uint64_t out_mask = info(row.out).width == 64 ? ~0ull : (1ull << info(row.out).width) - 1;
      std::vector<uint64_t> a(n * k), b(n * k), c(n), d(n);
      for (std::size_t i = 0; i < n; ++i) {
        const bool raw = i % 2;  // else: one binade's neighbourhood, so sums cancel and carry
        const uint64_t top = static_cast<uint64_t>(fi.bias) << (fi.man_bits + fi.frac_shift);
        for (std::size_t l = 0; l < k; ++l) {
          const uint64_t r1 = rng(), r2 = rng();
          a[i * k + l] = raw ? r1 & in_mask : (top ^ (r1 & ((3ull << (fi.man_bits + fi.frac_shift)) - 1))) | ((r1 >> 63) << (fi.width - 1));
          b[i * k + l] = raw ? r2 & in_mask : (top ^ (r2 & ((3ull << (fi.man_bits + fi.frac_shift)) - 1))) | ((r2 >> 63) << (fi.width - 1));
        }
        c[i] = rng() & out_mask;
      }
      for (int threads : {1, 2}) {
        driver::fast_dot_batch(row, n, k, a.data(), b.data(), c.data(), d.data(), threads);
        std::size_t bad = 0;
        for (std::size_t i = 0; i < n; ++i) {
          const uint64_t want = ref::dot(row, k, &a[i * k], &b[i * k], c[i]);
          if (d[i] != want && ++bad <= 2) {
            char msg[160];
            std::snprintf(msg, sizeof msg, "seed %llu %s %s %s->%s sample %zu (k %zu, c 0x%llx): ref 0x%llx fast 0x%llx",
                          static_cast<unsigned long long>(seed), g.name, row.instr, fi.name, info(row.out).name, i, k,
                          static_cast<unsigned long long>(c[i]), static_cast<unsigned long long>(want),
                          static_cast<unsigned long long>(d[i]));
            FAIL_CHECK(msg);
          }
        }
        CHECK(bad == 0);
        total += n;
      }
    }
  }
  MESSAGE(total << " dot products compared");
}
