// SPDX-License-Identifier: BSD-3-Clause
#include "validate/sample_engine.h"

#include <algorithm>
#include <bit>

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
  return fast::plan(row).step && fast::operand_kind(row) != fast::Operand::real64;
}

}  // namespace

Element element_reference(const ModelRow& row, uint32_t x) {
  Element e;
  e.code = convert(Fmt::fp32, row.in, x, row.in == Fmt::tf32 ? Round::rz : Round::rne);
  // (-0 has no fnuz encoding and reads as +0.)
  const bool zero = (x & 0x7FFFFFFFu) == 0;
  e.exact = row.in == Fmt::tf32 || zero || is_nan(Fmt::fp32, x) || to_fp32_bits(row.in, e.code) == x;
  e.finite = has_step_kernel(row) && fast::pack_element(row, e.code, e.sig, e.exp);
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
  constexpr std::size_t kBlock = 256;  // samples per task
  const std::size_t tasks = (count + kBlock - 1) / kBlock;
  const int team = driver::thread_count(threads);
  if (!has_step_kernel(row)) {
    driver::parallel_for(team, tasks, driver::Assign::blocks, [&](std::size_t t) {
      for (std::size_t i = t * kBlock; i < std::min(count, (t + 1) * kBlock); ++i)
        d[i] = ref::dot(row, k, &a.code[i * k], &b.code[i * k], c[i]);
    });
    return;
  }
  const fast::StepFn kernel = fast::plan(row).step;
  const std::size_t step = step_k(row);
  driver::parallel_for(team, tasks, driver::Assign::blocks, [&](std::size_t t) {  // (the kernels' FP environment)
    for (std::size_t i = t * kBlock; i < std::min(count, (t + 1) * kBlock); ++i) {
      // As ref::dot: wgmma with scale-d = 0 does not read C.
      uint64_t acc = row.ignores_c ? zero_bits(row.out, false) : c[i];
      for (std::size_t j = i * k, end = j + k; j < end; j += step) {
        const std::size_t len = std::min(step, end - j);
        bool finite = true;
        for (std::size_t l = j; l < j + len; ++l) finite = finite && a.finite[l] && b.finite[l];
        acc = finite ? kernel(row, static_cast<int>(len), &a.sig[j], &a.exp[j], &b.sig[j], &b.exp[j],
                              static_cast<uint32_t>(acc))
                     : ref::step(row, len, &a.code[j], &b.code[j], acc);
      }
      d[i] = acc;
    }
  });
}

uint64_t output_code(Fmt to, uint32_t x) {
  if (to == Fmt::fp32) return fp32_nan(x) ? convert(Fmt::fp32, to, x, Round::rne) : x;
  return convert_input(Fmt::fp32, to, x, Round::rne, Overflow::ieee);
}

}  // namespace mmaemu::validate
