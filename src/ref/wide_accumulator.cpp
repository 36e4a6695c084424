// SPDX-License-Identifier: BSD-3-Clause
#include "ref/wide_accumulator.h"

#include <bit>
#include <cassert>

namespace mmaemu::ref {

void WideAccumulator::add(bool neg, uint64_t sig, int exp) {
  if (sig == 0) return;
  assert(exp >= kLsbExp);
  const int pos = exp - kLsbExp;
  const int i = pos / 64, off = pos % 64;
  assert(i + 1 < kLimbs);
  // sig << off spans limbs i and i+1.
  const uint64_t lo = sig << off;
  const uint64_t hi = off == 0 ? 0 : sig >> (64 - off);
  if (!neg) {
    unsigned __int128 s = static_cast<unsigned __int128>(limb_[i]) + lo;
    limb_[i] = static_cast<uint64_t>(s);
    s = static_cast<unsigned __int128>(limb_[i + 1]) + hi + static_cast<uint64_t>(s >> 64);
    limb_[i + 1] = static_cast<uint64_t>(s);
    uint64_t carry = static_cast<uint64_t>(s >> 64);
    for (int j = i + 2; carry && j < kLimbs; ++j) carry = ++limb_[j] == 0;
  } else {
    const uint64_t old_i = limb_[i];
    limb_[i] -= lo;
    uint64_t borrow = old_i < lo;
    const uint64_t old_h = limb_[i + 1];
    limb_[i + 1] -= hi + borrow;
    borrow = old_h < hi || (old_h - hi) < borrow;
    for (int j = i + 2; borrow && j < kLimbs; ++j) borrow = limb_[j]-- == 0;
  }
}

bool WideAccumulator::is_zero() const {
  for (uint64_t l : limb_)
    if (l) return false;
  return true;
}

uint64_t WideAccumulator::round(Fmt f, Round r, Overflow ov, bool zero_neg, int prec) const {
  if (is_zero()) return zero_bits(f, zero_neg);
  const bool neg = is_negative();
  std::array<uint64_t, kLimbs> mag = limb_;
  if (neg) {  // two's complement negation
    uint64_t carry = 1;
    for (uint64_t& l : mag) {
      l = ~l + carry;
      carry = carry && l == 0;
    }
  }
  int top = kLimbs - 1;
  while (mag[top] == 0) --top;
  // Take the 64 bits starting at the leading one, and a sticky for the rest.
  const int lead = top * 64 + 63 - std::countl_zero(mag[top]);  // bit index
  const int low = lead - 63;
  if (low <= 0) return round_pack(f, neg, mag[0], kLsbExp, false, r, ov, prec);
  const int li = low / 64, lo = low % 64;
  uint64_t m = mag[li] >> lo;
  if (lo && li + 1 < kLimbs) m |= mag[li + 1] << (64 - lo);
  bool sticky = lo && (mag[li] & ((1ull << lo) - 1));
  for (int j = 0; j < li && !sticky; ++j) sticky = mag[j] != 0;
  return round_pack(f, neg, m, kLsbExp + low, sticky, r, ov, prec);
}

}  // namespace mmaemu::ref
