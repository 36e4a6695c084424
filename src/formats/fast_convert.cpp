// SPDX-License-Identifier: BSD-3-Clause
#include "formats/fast_convert.h"

#include <bit>

#include "formats/wide_accumulator.h"

namespace mmaemu {

uint64_t scale_round(double s, Fmt f, uint64_t x, Fmt out) {
  const Unpacked u = decode(f, x);
  const uint64_t sb = std::bit_cast<uint64_t>(s);
  const Unpacked v = decode(Fmt::fp64, sb);
  if (u.cls == Class::nan || v.cls == Class::nan ||
      (u.cls == Class::inf && v.cls == Class::zero) || (u.cls == Class::zero && v.cls == Class::inf))
    return default_nan(out);
  const bool neg = u.neg != v.neg;
  if (u.cls == Class::inf || v.cls == Class::inf) return convert(Fmt::fp64, out, neg ? 0xFFF0000000000000ull : 0x7FF0000000000000ull, Round::rne);
  if (u.cls == Class::zero || v.cls == Class::zero) return zero_bits(out, neg);
  WideAccumulator acc;
  acc.add(neg, static_cast<unsigned __int128>(u.sig) * v.sig, u.exp + v.exp);
  return acc.round(out, Round::rne, Overflow::ieee);
}

}  // namespace mmaemu
