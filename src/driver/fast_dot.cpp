// SPDX-License-Identifier: BSD-3-Clause
#include "driver/fast_dot.h"

#include <algorithm>
#include <vector>

#include "driver/gemm.h"
#include "driver/scratch.h"
#include "kernels/fp_env.h"
#include "kernels/plan.h"
#include "models/row_facts.h"
#include "ref/reference.h"

namespace mmaemu::driver {

namespace {

// The staging of one step's operands: a slot of the thread's scratch arena
// (scratch.h), no allocation per call.
struct StepOperands {
  std::vector<int32_t> sa, ea, sb, eb;
  std::size_t held_bytes() const { return scratch_bytes(sa, ea, sb, eb); }
};

}  // namespace

uint64_t fast_dot(const ModelRow& row, kernels::ScalarKernel kernel, std::size_t k, const uint64_t* a, const uint64_t* b,
                  uint64_t c) {
  kernels::FpEnvGuard env;
  if (kernel == kernels::ScalarKernel::none || kernels::decoding_of(row) == kernels::Decoding::real64) return ref::dot(row, k, a, b, c);
  // As ref::dot: wgmma with scale-d = 0 does not read C.
  uint64_t d = row.ignores_c ? zero_bits(row.out, false) : c;
  const std::size_t step = step_k(row);
  const Scratch<StepOperands> staging;
  auto& [sa, ea, sb, eb] = *staging;
  for (auto* v : {&sa, &ea, &sb, &eb}) v->resize(std::max(step, v->size()));
  for (std::size_t i = 0; i < k; i += step) {
    const std::size_t len = std::min(step, k - i);
    bool finite = true;
    for (std::size_t l = 0; l < len && finite; ++l)
      finite = kernels::pack_element(row, a[i + l], sa[l], ea[l]) && kernels::pack_element(row, b[i + l], sb[l], eb[l]);
    d = finite ? kernels::scalar_step(kernel, row, static_cast<int>(len), sa.data(), ea.data(), sb.data(), eb.data(), static_cast<uint32_t>(d))
               : ref::step(row, len, a + i, b + i, d);
  }
  return d;
}

uint64_t fast_dot(const ModelRow& row, std::size_t k, const uint64_t* a, const uint64_t* b, uint64_t c) {
  return fast_dot(row, kernels::plan(row).step, k, a, b, c);
}

void fast_dot_batch(const ModelRow& row, std::size_t count, std::size_t k, const uint64_t* a, const uint64_t* b,
                    const uint64_t* c, uint64_t* d, int threads) {
  constexpr std::size_t kBlock = 256;  // dot products per task
  const kernels::ScalarKernel kernel = kernels::plan(row).step;
  parallel_for(thread_count(threads), (count + kBlock - 1) / kBlock, Assign::blocks, [&](std::size_t t) {
    for (std::size_t s = t * kBlock; s < std::min(count, (t + 1) * kBlock); ++s)
      d[s] = fast_dot(row, kernel, k, a + s * k, b + s * k, c[s]);
  });
}

}  // namespace mmaemu::driver
