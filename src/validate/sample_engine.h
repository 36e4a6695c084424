// SPDX-License-Identifier: BSD-3-Clause
// The engine of `mmaemu validate`: one dot product per hardware sample, on
// the batched engine (driver/batch.h: the SIMD step kernels on product
// panels, the reference for blocks with NaN or Inf), ref::dot's bits.
// The data files hold fp32 patterns: each distinct pattern of a set is
// converted to the unit's input format, checked and decoded once (a memo),
// so a campaign runs at the step kernels' speed. Tested against
// driver::fast_dot and the generic conversions in
// tests/validation/validation_test.cpp.
#pragma once

#include <cstdint>
#include <vector>

#include "formats/format.h"
#include "kernels/plan.h"
#include "models/model.h"

namespace mmaemu::validate {

/// One fp32 pattern x of an a_ or b_ file as the unit reads it.
struct Element {
  uint64_t code = 0;  // convert(fp32, row.in, x, RZ for tf32, else RNE)
  int32_t sig = 0, exp = 0;  // kernels::pack_element(row, code) (rows with a step kernel)
  bool exact = false;  // x is a value of row.in (zero, NaN and any tf32 pattern are)
  bool finite = false;  // pack_element's result: not NaN or Inf
};

/// The Element of x by the generic code (convert, to_fp32_bits, pack_element).
Element element_reference(const ModelRow& row, uint32_t x);

/// element_reference(row, x), memoised in a direct-mapped table.
class Elements {
 public:
  /// `count`: about how many patterns will be looked up (sizes the table).
  Elements(const ModelRow& row, std::size_t count);
  Element operator()(uint32_t x) {
    Slot& s = slots_[(key(x) * 2654435761u) >> shift_];  // Knuth's multiplicative hash
    if (!s.filled || s.key != key(x)) {
      const Element e = element_reference(row_, x);
      s = {e.code, e.sig, e.exp, key(x), e.exact, e.finite, true};
    }
    return {s.code, s.sig, s.exp, s.exact, s.finite};
  }

 private:
  // tf32 units truncate (RZ): the code of a finite pattern depends on its
  // top 19 bits only (formats/fast_convert.h), so those are the key.
  uint32_t key(uint32_t x) const { return truncate_ && (x & 0x7F800000u) != 0x7F800000u ? x & 0xFFFFE000u : x; }
  struct Slot {  // an Element, its key, and whether it is filled (24 bytes)
    uint64_t code = 0;
    int32_t sig = 0, exp = 0;
    uint32_t key = 0;
    bool exact = false, finite = false, filled = false;
  };
  const ModelRow& row_;
  bool truncate_;
  int shift_;
  std::vector<Slot> slots_;
};

/// The operands of `count` samples, k per sample, as the engine reads them.
struct Operands {
  std::vector<uint64_t> code;
  std::vector<int32_t> sig, exp;
  std::vector<uint8_t> finite;
  void resize(std::size_t n) {
    code.resize(n), sig.resize(n), exp.resize(n), finite.resize(n);
  }
  void set(std::size_t i, const Element& e) {
    code[i] = e.code, sig[i] = e.sig, exp[i] = e.exp, finite[i] = e.finite;
  }
};

/// d[i] = ref::dot(row, k, a[i*k...], b[i*k...], c[i]) for i < count (the
/// bits of driver::fast_dot), on driver::run_batch with a's and b's codes;
/// threads as the GEMM (driver::thread_count(threads)).
void dot_samples(const ModelRow& row, std::size_t count, std::size_t k, const Operands& a, const Operands& b,
                 const uint64_t* c, uint64_t* d, int threads = 0);

/// convert(fp32, to, x, RNE): a c_ or d_ value as a code of the unit's
/// output format (the CUDA __float2half of the data's generator).
uint64_t output_code(Fmt to, uint32_t x);

}  // namespace mmaemu::validate
