// SPDX-License-Identifier: BSD-3-Clause
// The batched engine's integer plug-in (driver/integer_batch.cpp) against
// ref::dot (src/ref/integer.h) and against an independent int64 reference
// written here from docs/models.md §11.3, bit for bit: every integer unit
// and its satfinite variants (sat_point instruction and addition), stacks
// of tiles and of dots of lengths k, part of k, several instructions and
// ~600, 1 and 2 threads, both storages, packed int4, on every SIMD target
// Highway compiled; edge sums (-128*-128, 255*255, -128*127 over k up to
// 2^20) that wrap or clamp both ways; the reference engine; the refusals.
// MMAEMU_DIFF_SCALE multiplies the counts; MMAEMU_TEST_SEED the seed.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/engine_rows.h"
#include "driver/batch.h"
#include "hwy/targets.h"
#include "kernels/simd.h"
#include "ref/reference.h"

using namespace mmaemu;
using namespace mmaemu::test;

namespace {

// ---------------------------------------------------------------------------
// The independent reference: the codes' values by their definition, and
// the chain of instructions in int64.

int64_t value_of(Fmt f, uint64_t code) {
  switch (f) {
    case Fmt::s8: return static_cast<int8_t>(static_cast<uint8_t>(code));
    case Fmt::u8: return static_cast<int64_t>(code & 0xFF);
    case Fmt::s4: return static_cast<int64_t>(code & 0x7) - static_cast<int64_t>(code & 0x8);
    case Fmt::u4: return static_cast<int64_t>(code & 0xF);
    default: throw std::logic_error("not an integer operand format");
  }
}

int64_t clamp32(int64_t v) { return std::clamp<int64_t>(v, INT32_MIN, INT32_MAX); }

// c + sum of a_l*b_l, instruction after instruction of `step` products:
// wrapped modulo 2^32, or clamped once per instruction, or after each
// product. Returns the s32 code.
uint64_t int64_dot(const ModelRow& row, std::size_t k, const uint64_t* a, const uint64_t* b, uint64_t c) {
  const std::size_t step = static_cast<std::size_t>(row.k);
  int64_t t = static_cast<int32_t>(static_cast<uint32_t>(c));
  for (std::size_t s = 0; s < k; s += step) {
    int64_t sum = 0;
    for (std::size_t l = s; l < std::min(k, s + step); ++l) {
      const int64_t p = value_of(row.in, a[l]) * value_of(row.in_b, b[l]);
      if (row.overflow == IntOverflow::satfinite && row.sat_point == SatPoint::addition) t = clamp32(t + p);
      else sum += p;
    }
    if (row.overflow == IntOverflow::wrap) t = static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(t + sum)));
    else if (row.sat_point == SatPoint::instruction) t = clamp32(t + sum);
  }
  return static_cast<uint32_t>(static_cast<int32_t>(t));
}

// ---------------------------------------------------------------------------
// A stack through run_batch.

struct Stack {
  std::size_t count, m, n, k;
  std::vector<uint64_t> A, B, C;  // codes: A count x m x k, B count x k x n, C count x m x n
};

// The operands in memory: codes (uint64_t), or bytes one per element, or
// int4 packed two per byte along k; C as int32.
struct Stored {
  std::vector<uint8_t> a, b;
  std::vector<int32_t> c;
};
Stored store(const Stack& s, bool packed) {
  Stored o;
  const std::size_t kb = packed ? (s.k + 1) / 2 : s.k;
  o.a.assign(s.count * s.m * kb + 1, 0);
  o.b.assign(s.count * kb * s.n + 1, 0);
  for (std::size_t t = 0; t < s.count; ++t) {
    for (std::size_t i = 0; i < s.m; ++i)
      for (std::size_t l = 0; l < s.k; ++l) {
        const uint64_t code = s.A[(t * s.m + i) * s.k + l];
        uint8_t& byte = o.a[t * s.m * kb + i * kb + (packed ? l / 2 : l)];
        byte = packed ? static_cast<uint8_t>(byte | ((code & 0xF) << (4 * (l & 1)))) : static_cast<uint8_t>(code);
      }
    for (std::size_t l = 0; l < s.k; ++l)
      for (std::size_t j = 0; j < s.n; ++j) {
        const uint64_t code = s.B[(t * s.k + l) * s.n + j];
        uint8_t& byte = o.b[t * kb * s.n + (packed ? l / 2 : l) * s.n + j];
        byte = packed ? static_cast<uint8_t>(byte | ((code & 0xF) << (4 * (l & 1)))) : static_cast<uint8_t>(code);
      }
  }
  for (uint64_t c : s.C) o.c.push_back(static_cast<int32_t>(static_cast<uint32_t>(c)));
  return o;
}

enum class Layout { codes, bytes, packed };

// Runs the stack and compares every element with ref::dot and int64_dot
// (check_ref false: int64_dot alone, for the very long chains). Returns
// the mismatches reported.
int check(const std::string& name, const ModelRow& row, const Stack& s, Layout layout, const driver::BatchOptions& o,
          bool check_ref = true) {
  driver::BatchProblem p;
  p.count = s.count, p.m = s.m, p.n = s.n, p.k = s.k;
  std::vector<uint64_t> D(s.C.size());
  Stored st;
  if (layout == Layout::codes) {
    p.storage = driver::BatchStorage::codes;
    p.A = s.A.data(), p.B = s.B.data(), p.C = s.C.data(), p.D = D.data();
  } else {
    st = store(s, layout == Layout::packed);
    p.int4_packed = layout == Layout::packed;
    p.A = st.a.data(), p.B = st.b.data(), p.C = st.c.data(), p.D = st.c.data();  // D aliases C
  }
  driver::run_batch(row, p, o);
  int bad = 0;
  std::vector<uint64_t> a(s.k), b(s.k);
  for (std::size_t q = 0; q < s.count * s.m * s.n && bad < 3; ++q) {
    const std::size_t t = q / (s.m * s.n), i = q % (s.m * s.n) / s.n, j = q % s.n;
    for (std::size_t l = 0; l < s.k; ++l) a[l] = s.A[(t * s.m + i) * s.k + l], b[l] = s.B[(t * s.k + l) * s.n + j];
    const uint64_t want = int64_dot(row, s.k, a.data(), b.data(), s.C[q]);
    const uint64_t ref = check_ref ? ref::dot(row, s.k, a.data(), b.data(), s.C[q]) : want;
    const uint64_t got = layout == Layout::codes ? D[q] : static_cast<uint32_t>(st.c[q]);
    if (got == want && ref == want) continue;
    ++bad;
    std::string as, bs;
    for (std::size_t l = 0; l < std::min<std::size_t>(s.k, 24); ++l) as += hex(a[l]) + " ", bs += hex(b[l]) + " ";
    FAIL_CHECK("seed " << kSeed << " " << name << " (" << std::string(info(row.in).name) << " x "
                       << std::string(info(row.in_b).name) << " -> s32) element " << q << " of " << s.count << "x"
                       << s.m << "x" << s.n << ", k " << s.k << ", layout " << static_cast<int>(layout)
                       << ", threads " << o.threads << ", engine " << std::string(driver::batch_engine(row, o))
                       << ", target " << std::string(kernels::simd_target_name()) << ": got " << hex(got)
                       << " ref::dot " << hex(ref) << " int64 " << hex(want) << "\n  a: " << as << "\n  b: " << bs
                       << "\n  c: " << hex(s.C[q]));
  }
  return bad;
}

Stack random_stack(Gen& g, const ModelRow& row, std::size_t count, std::size_t m, std::size_t n, std::size_t k) {
  Stack s{count, m, n, k, {}, {}, {}};
  s.A.resize(count * m * k), s.B.resize(count * k * n), s.C.resize(count * m * n);
  for (auto& x : s.A) x = g.int_bits(row.in);
  for (auto& x : s.B) x = g.int_bits(row.in_b);
  for (auto& x : s.C) x = g.int_bits(Fmt::s32);
  return s;
}

// Stacks of tiles and of dots of several lengths for one row, in every
// layout it takes.
int check_row(const std::string& name, const ModelRow& row, const driver::BatchOptions& base, Gen& g) {
  const bool int4 = info(row.in).width == 4;
  const std::size_t rk = static_cast<std::size_t>(row.k);
  int bad = 0;
  for (int threads = 1; threads <= 2; ++threads) {
    driver::BatchOptions o = base;
    o.threads = threads;
    for (const Layout layout : {Layout::codes, Layout::bytes, Layout::packed}) {
      if (layout == Layout::packed && !int4) continue;
      bad += check(name + " tiles", row, random_stack(g, row, 1 + g.rng() % 5, row.m, row.n, rk), layout, o);
      const std::size_t ks[] = {rk, 1 + g.rng() % rk, rk * (2 + g.rng() % 3) + g.rng() % rk, 600 + g.rng() % 50};
      for (std::size_t k : ks)
        bad += check(name + " dots", row, random_stack(g, row, 1 + g.rng() % (k > 500 ? 20 : 50), 1, 1, k), layout, o);
      if (bad) return bad;
    }
  }
  return bad;
}

std::vector<std::pair<std::string, ModelRow>> integer_rows() {
  std::vector<std::pair<std::string, ModelRow>> v;
  for (const auto& [name, row] : all_rows())
    if (is_integer_row(row)) v.push_back({name, row});
  return v;
}

}  // namespace

TEST_CASE("integer batch = ref::dot = the int64 reference: every integer unit, every SIMD target, 1 and 2 threads") {
  const auto rows = integer_rows();
  REQUIRE(rows.size() >= 20);
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  for (int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    CAPTURE(kernels::simd_target_name());
    for (const auto& [name, row] : rows) {
      CHECK(std::string(driver::batch_engine(row)) == "simd");
      Gen g(kSeed ^ (std::hash<std::string>{}(name) * 7));
      for (int r = 0; r < static_cast<int>(std::ceil(kScale)); ++r)
        if (check_row(name, row, {}, g)) break;
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST_CASE("integer batch: the reference engine gives the same bits") {
  driver::BatchOptions o;
  o.use_reference = true;
  for (const auto& [name, row] : integer_rows()) {
    CHECK(std::string(driver::batch_engine(row, o)) == "reference");
    Gen g(kSeed ^ (std::hash<std::string>{}(name) * 11));
    check_row(name + " reference", row, o, g);
  }
}

TEST_CASE("integer batch: extreme sums wrap or clamp both ways, k up to 2^20, every SIMD target") {
  // -128*-128 (s8), 255*255 (u8), -128*127 and 255*-128 (mixed), -8*-8 and
  // -8*15 (int4): every product the largest of its sign, C at a bound.
  // long: also chains of k near 2^20 (the others cross the bounds from C at k = 2^10).
  struct Edge {
    const char* model;
    Fmt a, b;
    uint64_t ca, cb;
    bool long_k;
  };
  const Edge edges[] = {{"H100", Fmt::s8, Fmt::s8, 0x80, 0x80, true},   {"H100", Fmt::u8, Fmt::u8, 0xFF, 0xFF, true},
                        {"H100", Fmt::s8, Fmt::s8, 0x80, 0x7F, false},  {"H100", Fmt::u8, Fmt::s8, 0xFF, 0x80, false},
                        {"A100", Fmt::s4, Fmt::s4, 0x8, 0x8, false},    {"A100", Fmt::s4, Fmt::u4, 0x8, 0xF, false},
                        {"MI300X", Fmt::s8, Fmt::s8, 0x80, 0x80, true}, {"MI100", Fmt::s8, Fmt::s8, 0x80, 0x7F, false}};
  const std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  for (int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    for (const Edge& e : edges) {
      const Model m = lookup_model(e.model);
      ModelRow row = m.require_integer(e.a, e.b, Fmt::s32);
      for (int rule = 0; rule < (row.has_satfinite ? 3 : 1); ++rule) {
        row.overflow = rule ? IntOverflow::satfinite : IntOverflow::wrap;
        row.sat_point = rule == 2 ? SatPoint::addition : SatPoint::instruction;
        const std::string name = std::string(e.model) + " " + info(e.a).name + "x" + info(e.b).name + " rule " +
                                 std::to_string(rule) + " " + kernels::simd_target_name();
        // Dots of k 2^10 (17 of them: a short lane group) on every target
        // and of k near 2^20 (5) on the first, C from each bound and zero;
        // the long ones against int64 alone.
        for (const std::size_t k : {std::size_t{1} << 10, (std::size_t{1} << 20) - 3}) {
          const bool full = k < 4096;
          if (!full && (target != targets.front() || !e.long_k)) continue;
          const std::size_t count = full ? 17 : 5;
          Stack s{count, 1, 1, k, std::vector<uint64_t>(count * k, e.ca), std::vector<uint64_t>(count * k, e.cb), {}};
          for (std::size_t i = 0; i < count; ++i)
            s.C.push_back(i % 3 == 0 ? 0x7FFFFFF0u : i % 3 == 1 ? 0x80000010u : 0);
          // Some products of the other sign (dots 1 and 3), so that sums come back into range.
          for (std::size_t i = 0; i < count * k; i += 5)
            if (i / k % 2) s.B[i] = e.cb == 0x80 ? 0x7F : e.cb == 0x7F ? 0x80 : s.B[i];
          // (the long ones on 1 or 2 threads by rule: both counts over the rules)
          for (int threads = full ? 1 : 1 + rule % 2; threads <= (full ? 2 : 1 + rule % 2); ++threads)
            CHECK(check(name + " k " + std::to_string(k), row, s, Layout::bytes, {threads}, full) == 0);
        }
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST_CASE("integer batch: by hand, and the refusals") {
  const Model h100 = *gpu_model("H100"), a100 = *gpu_model("A100");
  const ModelRow& row = h100.require_integer(Fmt::s8, Fmt::s8, Fmt::s32);
  // One dot of k 2: 127*127 + 127*127 on MAX_INT32 wraps (and clamps with satfinite).
  const int8_t a[2] = {127, 127};
  int32_t c[1] = {INT32_MAX};
  driver::BatchProblem p;
  p.count = 1, p.k = 2, p.A = a, p.B = a, p.C = c, p.D = c;
  driver::run_batch(row, p);
  CHECK(c[0] == static_cast<int32_t>(0x80000000u + 2 * 127 * 127 - 1));
  ModelRow sat = row;
  sat.overflow = IntOverflow::satfinite;
  c[0] = INT32_MAX;
  driver::run_batch(sat, p);
  CHECK(c[0] == INT32_MAX);
  // int4_packed: s4/u4 units only, native storage only.
  p.int4_packed = true;
  CHECK_THROWS_AS(driver::run_batch(row, p), std::invalid_argument);
  const ModelRow& s4 = a100.require_integer(Fmt::s4, Fmt::s4, Fmt::s32);
  p.storage = driver::BatchStorage::codes;
  CHECK_THROWS_AS(driver::run_batch(s4, p), std::invalid_argument);
  // And on a floating-point unit.
  p.storage = driver::BatchStorage::native;
  CHECK_THROWS_AS(driver::run_batch(*h100.find(Fmt::fp16, Fmt::fp32), p), std::invalid_argument);
}
