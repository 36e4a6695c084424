// SPDX-License-Identifier: BSD-3-Clause
// The batched engine (driver/batch.h) equals N single instructions, bit for
// bit, for every row the differential tests cover, on every SIMD target:
// stacks of tiles against ref::tile (mmaemu_tile runs this engine on one
// tile), stacks of dot products of any k against ref::dot, with 1-3
// threads, both storages, NaN/Inf inputs now and then, and short last lane
// groups.
// MMAEMU_DIFF_SCALE multiplies the counts; MMAEMU_TEST_SEED the seed.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/engine_rows.h"
#include "driver/batch.h"
#include "driver/gemm.h"
#include "hwy/targets.h"
#include "driver/pack.h"
#include "kernels/product_pack.h"
#include "kernels/simd.h"
#include "ref/reference.h"

using namespace mmaemu;
using namespace mmaemu::test;

namespace {

// Storage of n elements of f, from bit patterns.
std::vector<uint8_t> stored(Fmt f, const std::vector<uint64_t>& bits) {
  std::vector<uint8_t> s(bits.size() * 8 + 8);
  for (std::size_t i = 0; i < bits.size(); ++i) driver::store(f, s.data(), i, bits[i]);
  return s;
}

// `count` tiles (m, n, k from the row, or dots of length k when dots) of
// random bits through run_batch, each element against the reference.
// Returns the number of mismatches reported.
int check_stack(const std::string& name, const ModelRow& row, Gen& g, std::size_t count, bool dots, std::size_t k,
                const driver::BatchOptions& o, driver::BatchStorage storage) {
  const std::size_t m = dots ? 1 : row.m, n = dots ? 1 : row.n, kk = dots ? k : row.k;
  const bool narrow = g.rng() % 3 == 0;
  const int centre = static_cast<int>(g.rng() % ((1u << info(row.in).exp_bits) - 1)) + 1;
  std::vector<uint64_t> A(count * m * kk), B(count * kk * n), C(count * m * n), D(C.size());
  for (auto& x : A) x = g.bits(row.in, narrow, centre);
  for (auto& x : B) x = g.bits(row.in, narrow, centre);
  for (auto& x : C) x = g.bits(row.out, narrow, centre);
  driver::BatchProblem p;
  p.count = count, p.m = m, p.n = n, p.k = kk, p.storage = storage;
  std::vector<uint8_t> As, Bs, Cs;
  if (storage == driver::BatchStorage::codes) {
    p.A = A.data(), p.B = B.data(), p.C = C.data(), p.D = D.data();
  } else {
    As = stored(row.in, A), Bs = stored(row.in, B), Cs = stored(row.out, C);
    p.A = As.data(), p.B = Bs.data(), p.C = Cs.data(), p.D = Cs.data();  // D aliases C
  }
  driver::run_batch(row, p, o);
  int bad = 0;
  std::vector<uint64_t> want(m * n), ar(kk), bc(kk);
  for (std::size_t t = 0; t < count && bad < 3; ++t) {
    if (!dots) {
      ref::tile(row, &A[t * m * kk], &B[t * kk * n], &C[t * m * n], want.data());
    } else {
      want[0] = ref::dot(row, kk, &A[t * kk], &B[t * kk], C[t]);
    }
    for (std::size_t e = 0; e < m * n; ++e) {
      const std::size_t q = t * m * n + e;
      const uint64_t got = storage == driver::BatchStorage::codes ? D[q] : driver::load(row.out, Cs.data(), q);
      if (got == want[e]) continue;
      if (++bad > 2) break;
      const std::size_t i = e / n, j = e % n;
      std::string a, b;
      for (std::size_t l = 0; l < kk; ++l) {
        a += hex(A[t * m * kk + i * kk + l]) + " ";
        b += hex(B[t * kk * n + l * n + j]) + " ";
      }
      FAIL_CHECK("seed " << kSeed << " " << name << " (" << std::string(info(row.in).name) << " -> "
                         << std::string(info(row.out).name) << ") " << std::string(dots ? "dot " : "tile ") << t << " of "
                         << count << ", element " << e << ", k " << kk << ", threads " << o.threads << ", engine "
                         << std::string(driver::batch_engine(row, o)) << ": got "
                         << hex(got) << " want " << hex(want[e]) << "\n  a: " << a << "\n  b: " << b
                         << "\n  c: " << hex(C[q]));
    }
  }
  return bad;
}

// Stacks of tiles and of dots of several lengths for one row.
void check_row(const std::string& name, const ModelRow& row, const driver::BatchOptions& base, std::size_t scale) {
  Gen g(kSeed ^ (std::hash<std::string>{}(name) * 5));
  for (std::size_t r = 0; r < scale; ++r) {
    driver::BatchOptions o = base;
    o.threads = 1 + static_cast<int>(r % 3);
    const auto storage = r % 2 ? driver::BatchStorage::codes : driver::BatchStorage::native;
    const std::size_t step = step_k(row);
    // Lengths: one instruction, a part of one, several (not whole steps).
    const std::size_t rk = static_cast<std::size_t>(row.k);
    const std::size_t ks[] = {rk, 1 + g.rng() % rk, rk * (2 + g.rng() % 3) + g.rng() % step, 600 + g.rng() % 50};
    if (check_stack(name, row, g, 1 + g.rng() % 3, false, 0, o, storage)) return;
    for (std::size_t k : ks)
      if (check_stack(name, row, g, 1 + g.rng() % (k > 500 ? 20 : 70), true, k, o, storage)) return;
  }
}

}  // namespace

TEST_CASE("batch = N single instructions: every row, every SIMD target") {
  std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  for (int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    CAPTURE(kernels::simd_target_name());
    for (const auto& [name, row] : all_rows())
      if (!is_integer_row(row)) check_row(name, row, {}, static_cast<std::size_t>(std::ceil(kScale)));
  }
  hwy::SetSupportedTargetsForTest(0);
}

TEST_CASE("batch: the scalar kernels and the reference engine give the same bits") {
  for (const auto& [name, row] : all_rows()) {
    if (is_integer_row(row)) continue;  // integer_batch_test.cpp
    driver::BatchOptions o;
    o.simd_off = true;
    check_row(name, row, o, 1);
    o.simd_off = false;
    o.use_reference = true;
    check_row(name, row, o, 1);
  }
}

TEST_CASE("batch: the engine each row runs on") {
  const Model h100 = lookup_model("H100"), mi100 = lookup_model("MI100"), mi250 = lookup_model("MI250");
  CHECK(std::string(driver::batch_engine(*h100.find(Fmt::fp16, Fmt::fp32))) == "simd");
  CHECK(std::string(driver::batch_engine(*mi100.find(Fmt::fp16, Fmt::fp32))) == "exact");
  CHECK(std::string(driver::batch_engine(*mi250.find(Fmt::fp16, Fmt::fp32))) == "simd");
  CHECK(std::string(driver::batch_engine(*h100.find(Fmt::fp64, Fmt::fp64))) == "fp64");
  driver::BatchOptions ref;
  ref.use_reference = true;
  CHECK(std::string(driver::batch_engine(*h100.find(Fmt::fp16, Fmt::fp32), ref)) == "reference");
}

TEST_CASE("the SIMD packer decodes every code as decode_operand: every row of up to 16 bits, every SIMD target") {
  std::vector<int64_t> targets = hwy::SupportedAndGeneratedTargets();
  std::vector<float> val(65536), sig(65536);
  std::vector<int32_t> exp(65536);
  std::vector<uint8_t> special(65536);
  std::vector<uint16_t> codes(65536);
  for (int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    for (const auto& [name, row] : all_rows()) {
      if (is_integer_row(row)) continue;
      const kernels::CodeDecode d = driver::batch_code_decode(row);
      if (!d.width) continue;
      const std::size_t n = std::size_t{1} << d.width;
      for (std::size_t c = 0; c < n; ++c) codes[c] = static_cast<uint16_t>(c);
      kernels::simd_code_decode(d, codes.data(), n, val.data(), sig.data(), exp.data(), special.data());
      int bad = 0;
      for (std::size_t c = 0; c < n && bad < 3; ++c) {
        bool finite = true;
        const driver::Decoded want = driver::decode_operand(row, c, finite);
        const bool same = special[c] == !finite &&
                          (!finite || (std::bit_cast<uint32_t>(val[c]) == std::bit_cast<uint32_t>(want.fval) &&
                                       std::bit_cast<uint32_t>(sig[c]) == std::bit_cast<uint32_t>(want.fsig) &&
                                       exp[c] == want.exp));
        if (same) continue;
        ++bad;
        FAIL_CHECK(name << " (" << std::string(info(row.in).name) << ") target "
                        << std::string(kernels::simd_target_name()) << " code " << hex(c) << ": val " << val[c]
                        << " sig " << sig[c] << " exp " << exp[c] << " special " << int(special[c]) << "; want "
                        << want.fval << " " << want.fsig << " " << want.exp << " finite " << finite);
      }
    }
  }
  hwy::SetSupportedTargetsForTest(0);
}
