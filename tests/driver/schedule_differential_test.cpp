// SPDX-License-Identifier: BSD-3-Clause
// Schedules on the driver (driver/schedule.h) against their plain
// definition (docs/schedules.md) computed here with ref::dot per piece:
// every row of the differential tests, on the SIMD, scalar and reference
// paths; shapes that reach each loop nest of the steps macro-kernel (private
// B, few columns, N panels) and pieces shorter and longer than its k chunks.
// The per-k-range entry driver::add_range is also checked on its own with
// 1-3 threads. MMAEMU_DIFF_SCALE multiplies the counts; MMAEMU_TEST_SEED
// changes the seed (tests/common/engine_rows.h).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "common/engine_rows.h"
#include "driver/acc_sink.h"
#include "driver/schedule.h"
#include "driver/schedule_parts.h"
#include "formats/fast_round.h"
#include "kernels/fp_env.h"
#include "kernels/plan.h"
#include "ref/reference.h"

using namespace mmaemu;
using namespace mmaemu::test;

namespace {

enum class Path { fast, scalar, reference };

// One random product: A (m x k) and B (k x n) as bit patterns of row.in,
// stored (transposed or not) in row.in; element access by (i, l) / (l, j).
struct Product {
  std::size_t m, n, k;
  bool ta, tb;
  std::vector<uint64_t> A, B;
  std::vector<uint8_t> As, Bs;
  uint64_t a(std::size_t i, std::size_t l) const { return A[ta ? l * m + i : i * k + l]; }
  uint64_t b(std::size_t l, std::size_t j) const { return B[tb ? j * k + l : l * n + j]; }
  driver::Operand op_a(const ModelRow& row) const {
    return {row.in, As.data(), static_cast<std::ptrdiff_t>(ta ? m : k), ta};
  }
  driver::Operand op_b(const ModelRow& row) const {
    return {row.in, Bs.data(), static_cast<std::ptrdiff_t>(tb ? k : n), tb};
  }
};

Product make_product(const ModelRow& row, Gen& g, std::size_t m, std::size_t n, std::size_t k) {
  Product p{m, n, k, (g.rng() & 1) != 0, (g.rng() & 1) != 0, {}, {}, {}, {}};
  const bool narrow = g.rng() % 3 == 0;
  const int centre = static_cast<int>(g.rng() % ((1u << info(row.in).exp_bits) - 1)) + 1;
  p.A.resize(m * k);
  p.B.resize(k * n);
  p.As.resize(p.A.size() * 8 + 8);
  p.Bs.resize(p.B.size() * 8 + 8);
  for (std::size_t i = 0; i < p.A.size(); ++i) driver::store(row.in, p.As.data(), i, p.A[i] = g.bits(row.in, narrow, centre));
  for (std::size_t i = 0; i < p.B.size(); ++i) driver::store(row.in, p.Bs.data(), i, p.B[i] = g.bits(row.in, narrow, centre));
  return p;
}

// The definition, element by element, in the main format T.
template <typename T>
struct Definition {
  const ModelRow& row;
  const Product& p;
  std::size_t i, j;
  // The unit's result over [k0, k0 + len) from +0, widened exactly.
  T piece(std::size_t k0, std::size_t len) const {
    std::vector<uint64_t> a(len), b(len);
    for (std::size_t l = 0; l < len; ++l) a[l] = p.a(i, k0 + l), b[l] = p.b(k0 + l, j);
    const uint64_t r = ref::dot(row, len, a.data(), b.data(), zero_bits(row.out, false));
    const Fmt F = sizeof(T) == 8 ? Fmt::fp64 : Fmt::fp32;
    using U = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
    return std::bit_cast<T>(static_cast<U>(convert(row.out, F, r, Round::rne)));
  }
  // dst + the pieces of `interval` (0: one) of [k0, k0 + len), in order.
  T promoted(T dst, std::size_t k0, std::size_t len, std::size_t interval) const {
    const std::size_t P = interval ? interval : len;
    for (std::size_t at = 0; at < len; at += P) dst = dst + piece(k0 + at, std::min(P, len - at));
    return dst;
  }
  // The main accumulator of the whole schedule from init.
  T schedule(const driver::Schedule& s, T init) const {
    if (!s.split) return promoted(init, 0, p.k, s.promote);
    std::vector<T> v;
    for (const driver::KRange& r : driver::split_slices(p.k, s.split, row.k))
      v.push_back(s.promote ? promoted(T(0), r.k0, r.len, s.promote) : piece(r.k0, r.len));
    if (!s.tree) {
      for (T x : v) init = init + x;
      return init;
    }
    while (v.size() > 1) {  // (0+1), (2+3), ...; an odd last one waits
      std::vector<T> next;
      for (std::size_t q = 0; q < v.size(); q += 2) next.push_back(q + 1 < v.size() ? v[q] + v[q + 1] : v[q]);
      v = next;
    }
    return v.empty() ? init : init + v[0];
  }
};

template <typename T>
using Bits = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;

driver::Schedule random_schedule(const ModelRow& row, Gen& g) {
  driver::Schedule s;
  const std::size_t kind = g.rng() % 5;
  // Intervals from one instruction to past the macro-kernel's k chunks (256).
  const std::size_t most = std::max<std::size_t>(1, 320 / static_cast<std::size_t>(row.k));
  if (kind != 1 && kind != 2) s.promote = static_cast<std::size_t>(row.k) * (1 + g.rng() % most);
  if (kind != 0) s.split = 1 + g.rng() % 5;
  s.tree = s.split && (kind == 2 || kind == 4);
  return s;
}

// Shapes: t % 3 == 0 private B (m <= 32, many columns), 1 few columns
// (m <= 32, n <= 16; 2 threads), 2 N panels (m > 32); now and then k = 0.
void random_shape(Gen& g, int t, std::size_t& m, std::size_t& n, std::size_t& k) {
  m = t % 3 == 2 ? 33 + g.rng() % 8 : 1 + g.rng() % 12;
  n = t % 3 == 1 ? 1 + g.rng() % 16 : 17 + g.rng() % 12;
  k = g.rng() % 16 == 0 ? 0 : 1 + g.rng() % 420;
}

driver::GemmSpec spec_for(const ModelRow& row, Path path) {
  driver::GemmSpec spec;
  spec.row = &row;
  spec.work_per_thread = 1;  // thread even the small products
  spec.simd_off = path == Path::scalar;
  spec.use_reference = path == Path::reference;
  return spec;
}

// scheduled_gemm, alpha = 1: gpu-blas with beta = 0 (D = main from +0), or
// into-C with beta = 1 (main from C). Returns the number of mismatches.
template <typename T>
std::size_t check_scheduled(const std::string& name, const ModelRow& row, Path path, Gen& g, int t) {
  const Fmt F = sizeof(T) == 8 ? Fmt::fp64 : Fmt::fp32;
  std::size_t m, n, k;
  random_shape(g, t, m, n, k);
  const Product p = make_product(row, g, m, n, k);
  const driver::Schedule s = random_schedule(row, g);
  driver::GemmSpec spec = spec_for(row, path);
  spec.accumulate_into_c = (g.rng() & 1) != 0;
  spec.threads = 1 + t % 3;
  std::vector<Bits<T>> C(m * n);
  for (auto& c : C) c = static_cast<Bits<T>>(g.bits(F, false, 0));
  const std::vector<Bits<T>> C0 = C;
  driver::scheduled_gemm(s, spec, m, n, k, 1.0, p.op_a(row), p.op_b(row), spec.accumulate_into_c ? 1.0 : 0.0, F,
                         C.data(), static_cast<std::ptrdiff_t>(n));
  const Bits<T> nan = static_cast<Bits<T>>(F == Fmt::fp64 ? ref::nan_result(row) : row.nan32);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const T init = spec.accumulate_into_c ? std::bit_cast<T>(C0[i * n + j]) : T(0);
      const T main = Definition<T>{row, p, i, j}.schedule(s, init);
      const Bits<T> want = std::isnan(main) ? nan : std::bit_cast<Bits<T>>(main), got = C[i * n + j];
      if (got != want && bad++ < 3)
        FAIL_CHECK("seed " << kSeed << " " << name << " path " << static_cast<int>(path) << " "
                           << driver::schedule_name(s) << " m " << m << " n " << n << " k " << k << " ta " << p.ta
                           << " tb " << p.tb << " into_c " << spec.accumulate_into_c << " threads " << spec.threads
                           << " at (" << i << "," << j << "): definition " << hex(want) << " scheduled " << hex(got));
    }
  return bad;
}

// driver::add_range on a block of columns [j0, j0 + nc) of a random dst,
// 1-3 threads. Returns the number of mismatches.
template <typename T>
std::size_t check_add_range(const std::string& name, const ModelRow& row, Path path, Gen& g, int t) {
  const Fmt F = sizeof(T) == 8 ? Fmt::fp64 : Fmt::fp32;
  std::size_t m, n, k;
  random_shape(g, t, m, n, k);
  const Product p = make_product(row, g, m, n, k);
  const std::size_t j0 = g.rng() % n, nc = n - j0;
  const std::size_t k0 = k ? g.rng() % k : 0, len = k - k0;
  const std::size_t interval = g.rng() % 4 == 0 ? 0 : static_cast<std::size_t>(row.k) * (1 + g.rng() % 24);
  driver::GemmSpec spec = spec_for(row, path);
  spec.threads = 1 + t % 3;
  std::vector<Bits<T>> dst(m * nc);
  for (auto& d : dst) d = static_cast<Bits<T>>(g.bits(F, false, 0));
  const std::vector<Bits<T>> dst0 = dst;
  const driver::Block blk{m, j0, nc, spec.threads};
  driver::add_range(spec, driver::plan_of(spec), blk, {k0, len}, interval, p.op_a(row), p.op_b(row), reinterpret_cast<T*>(dst.data()));
  std::size_t bad = 0;
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t w = 0; w < nc; ++w) {
      const T want = Definition<T>{row, p, i, j0 + w}.promoted(std::bit_cast<T>(dst0[i * nc + w]), k0, len, interval);
      const Bits<T> got = dst[i * nc + w], wb = std::bit_cast<Bits<T>>(want);
      // NaN: any NaN (the main accumulator's NaN is stored as the unit's pattern later).
      if (got != wb && !(std::isnan(want) && std::isnan(std::bit_cast<T>(got))) && bad++ < 3)
        FAIL_CHECK("seed " << kSeed << " " << name << " path " << static_cast<int>(path) << " add_range k0 " << k0
                           << " len " << len << " interval " << interval << " m " << m << " j0 " << j0 << " nc "
                           << nc << " ta " << p.ta << " tb " << p.tb << " threads " << spec.threads << " at (" << i
                           << "," << w << "): definition " << hex(wb) << " add_range " << hex(got));
    }
  return bad;
}

// Runs check(name, row, path, gen, trial) -> mismatches on every row and
// path; returns the number of products checked.
template <typename Check>
std::size_t each_row_and_path(int trials, Check check) {
  std::size_t products = 0;
  for (const auto& [name, row] : all_rows()) {
    if (is_integer_row(row)) continue;  // the schedules sum floating-point pieces (docs/schedules.md)
    const kernels::KernelPlan plan = kernels::plan(row);
    std::vector<Path> paths{Path::fast, Path::reference};
    if (plan.simd) paths.push_back(Path::scalar);
    for (Path path : paths) {
      Gen g(kSeed ^ (std::hash<std::string>{}(name) * 5 + static_cast<uint64_t>(path)));
      for (int t = 0; t < trials; ++t, ++products)
        if (check(name, row, path, g, t)) return products + 1;
    }
  }
  return products;
}

}  // namespace

TEST_CASE("every schedule equals its definition from ref::dot pieces, on every row and path") {
  const int trials = static_cast<int>(3 * kScale);
  const std::size_t products =
      each_row_and_path(trials, [](const std::string& name, const ModelRow& row, Path path, Gen& g, int t) {
        return row.out == Fmt::fp64 ? check_scheduled<double>(name, row, path, g, t)
                                    : check_scheduled<float>(name, row, path, g, t);
      });
  MESSAGE(products << " scheduled products compared");
  CHECK(products > 0);
}

TEST_CASE("add_range adds each piece of a k range into the main accumulator, on every row and path") {
  const int trials = static_cast<int>(3 * kScale);
  const std::size_t products =
      each_row_and_path(trials, [](const std::string& name, const ModelRow& row, Path path, Gen& g, int t) {
        return row.out == Fmt::fp64 ? check_add_range<double>(name, row, path, g, t)
                                    : check_add_range<float>(name, row, path, g, t);
      });
  MESSAGE(products << " ranges compared");
  CHECK(products > 0);
}

TEST_CASE("the sink's branch-free fp16 widening equals fp16_to_fp32 on every finite half") {
  kernels::FpEnvGuard env;  // as inside the macro-kernel: RNE, no FTZ/DAZ
  int mismatches = 0;
  for (uint32_t h = 0; h < 0x10000u; ++h) {
    if ((h & 0x7C00u) == 0x7C00u) continue;
    const uint32_t got = driver::widen_finite_fp16(h), want = fp16_to_fp32(h);
    if (got != want && ++mismatches <= 5)
      FAIL_CHECK("fp16 0x" << std::hex << h << ": widened 0x" << got << ", fp16_to_fp32 0x" << want);
  }
  CHECK(mismatches == 0);
}
