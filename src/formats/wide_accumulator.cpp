// SPDX-License-Identifier: BSD-3-Clause
#include "formats/wide_accumulator.h"

#include <bit>
#include <cassert>

namespace mmaemu {

void WideAccumulator::cover(int lo, int hi) {
  if (hi_ < lo_) {  // empty
    for (int j = lo; j <= hi; ++j) limb_[j] = ext_;
    lo_ = lo;
    hi_ = hi;
    return;
  }
  for (int j = lo; j < lo_; ++j) limb_[j] = 0;
  for (int j = hi_ + 1; j <= hi; ++j) limb_[j] = ext_;
  if (lo < lo_) lo_ = lo;
  if (hi > hi_) hi_ = hi;
}

void WideAccumulator::add(bool neg, uint64_t sig, int exp) {
  if (sig == 0) return;
  assert(exp >= kLsbExp);
  const int pos = exp - kLsbExp;
  const int i = pos / 64, off = pos % 64;
  assert(i + 2 < kLimbs);
  cover(i, i + 1);
  // sig << off spans limbs i and i+1; a carry or borrow ripples upward and,
  // past hi_, into the sign extension.
  const uint64_t lo = sig << off;
  const uint64_t hi = off == 0 ? 0 : sig >> (64 - off);
  if (!neg) {
    unsigned __int128 s = static_cast<unsigned __int128>(limb_[i]) + lo;
    limb_[i] = static_cast<uint64_t>(s);
    s = static_cast<unsigned __int128>(limb_[i + 1]) + hi + static_cast<uint64_t>(s >> 64);
    limb_[i + 1] = static_cast<uint64_t>(s);
    bool carry = (s >> 64) != 0;
    for (int j = i + 2; carry && j <= hi_; ++j) carry = ++limb_[j] == 0;
    if (carry) {
      if (ext_) ext_ = 0;  // ...111 + 1 = ...000
      else {
        cover(lo_, hi_ + 1);  // ...000 + 1: a new limb holding 1
        limb_[hi_] = 1;
      }
    }
  } else {
    const uint64_t old_i = limb_[i];
    limb_[i] -= lo;
    bool borrow = old_i < lo;
    const uint64_t old_h = limb_[i + 1];
    limb_[i + 1] -= hi + borrow;
    borrow = old_h < hi || (old_h - hi) < static_cast<uint64_t>(borrow);
    for (int j = i + 2; borrow && j <= hi_; ++j) borrow = limb_[j]-- == 0;
    if (borrow) {
      if (!ext_) ext_ = ~0ull;  // ...000 - 1 = ...111
      else {
        cover(lo_, hi_ + 1);  // ...111 - 1: a new limb ~0 - 1
        limb_[hi_] = ~0ull - 1;
      }
    }
  }
}

int64_t WideAccumulator::floor_scaled(int lsb_exp) const {
  // An arithmetic right shift of the two's complement number is a floor.
  const int pos = lsb_exp - kLsbExp;
  assert(pos >= 0 && pos / 64 + 1 < kLimbs);
  auto limb = [&](int j) { return j < lo_ ? 0 : j > hi_ ? ext_ : limb_[j]; };
  const int i = pos / 64, off = pos % 64;
  uint64_t v = limb(i) >> off;
  if (off) v |= limb(i + 1) << (64 - off);
  return static_cast<int64_t>(v);
}

bool WideAccumulator::is_zero() const {
  if (ext_) return false;
  for (int j = lo_; j <= hi_; ++j)
    if (limb_[j]) return false;
  return true;
}

uint64_t WideAccumulator::round(Fmt f, Round r, Overflow ov, bool zero_neg, int prec) const {
  if (is_zero()) return zero_bits(f, zero_neg);
  const bool neg = is_negative();
  // The magnitude over the window [lo_, hi_ + 1] (one more limb: negating
  // ...111 000...0 needs it).
  std::array<uint64_t, kLimbs + 1> mag;
  const int n = hi_ - lo_ + 2;
  for (int j = 0; j < n - 1; ++j) mag[j] = limb_[lo_ + j];
  mag[n - 1] = ext_;
  if (neg) {  // two's complement negation
    uint64_t carry = 1;
    for (int j = 0; j < n; ++j) {
      mag[j] = ~mag[j] + carry;
      carry = carry && mag[j] == 0;
    }
  }
  int top = n - 1;
  while (mag[top] == 0) --top;
  // The 64 bits from the leading one down, and a sticky for the rest.
  const int lsb = kLsbExp + 64 * lo_;
  const int lead = top * 64 + 63 - std::countl_zero(mag[top]);
  const int low = lead - 63;
  if (low <= 0) return round_pack(f, neg, mag[0], lsb, false, r, ov, prec);
  const int li = low / 64, lo = low % 64;
  uint64_t m = mag[li] >> lo;
  if (lo) m |= mag[li + 1] << (64 - lo);
  bool sticky = lo && (mag[li] & ((1ull << lo) - 1));
  for (int j = 0; j < li && !sticky; ++j) sticky = mag[j] != 0;
  return round_pack(f, neg, m, lsb + low, sticky, r, ov, prec);
}

}  // namespace mmaemu
