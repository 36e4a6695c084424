// SPDX-License-Identifier: BSD-3-Clause
#include "validate/sample_engine.h"

#include <algorithm>
#include <bit>

#include "driver/batch.h"
#include "driver/gemm.h"
#include "formats/fast_convert.h"
#include "kernels/scalar.h"
#include "models/row_facts.h"
#include "ref/reference.h"

namespace mmaemu::validate {

namespace {

bool fp32_nan(uint32_t x) { return (x & 0x7FFFFFFFu) > 0x7F800000u; }

// Rows the engine runs on the step kernels (else: ref::dot, as fast_dot).
bool has_step_kernel(const ModelRow& row) {
  return kernels::plan(row).step != kernels::ScalarKernel::none && kernels::decoding_of(row) != kernels::Decoding::real64;
}

}  // namespace

Element element_reference(const ModelRow& row, uint32_t x) {
  Element e;
  e.code = convert(Fmt::fp32, row.in, x, row.in == Fmt::tf32 ? Round::rz : Round::rne);
  // (-0 has no fnuz encoding and reads as +0.)
  const bool zero = (x & 0x7FFFFFFFu) == 0;
  e.exact = row.in == Fmt::tf32 || zero || is_nan(Fmt::fp32, x) || to_fp32_bits(row.in, e.code) == x;
  e.finite = has_step_kernel(row) && kernels::pack_element(row, e.code, e.sig, e.exp);
  return e;
}

Elements::Elements(const ModelRow& row, std::size_t count)
    : row_(row), truncate_(row.in == Fmt::tf32) {
  // About one slot per pattern, 2^8 to 2^18 slots (at most 6 MiB: the
  // narrow formats' values fit with few collisions).
  const int bits = std::clamp(static_cast<int>(std::bit_width(count)), 8, 18);
  shift_ = 32 - bits;
  slots_.resize(std::size_t{1} << bits);
}

void dot_samples(const ModelRow& row, std::size_t count, std::size_t k, const Operands& a, const Operands& b,
                 const uint64_t* c, uint64_t* d, int threads) {
  // The batched engine (driver/batch.h) on the codes: ref::dot's bits.
  driver::BatchProblem p;
  p.count = count, p.m = 1, p.n = 1, p.k = k;
  p.A = a.code.data(), p.B = b.code.data(), p.C = c, p.D = d;
  p.storage = driver::BatchStorage::codes;
  driver::BatchOptions o;
  o.threads = threads;
  driver::run_batch(row, p, o);
}

uint64_t output_code(Fmt to, uint32_t x) {
  if (to == Fmt::fp32) return fp32_nan(x) ? convert(Fmt::fp32, to, x, Round::rne) : x;
  return convert_input(Fmt::fp32, to, x, Round::rne, Overflow::ieee);
}

}  // namespace mmaemu::validate
