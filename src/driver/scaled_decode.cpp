// SPDX-License-Identifier: BSD-3-Clause
#include "driver/scaled_decode.h"

#include <bit>
#include <cmath>

namespace mmaemu::driver {

ElementTable element_table(Fmt f, NarrowSubnormals ns, bool doubled) {
  const FormatInfo& fi = info(f);
  ElementTable t{};
  for (int code = 0; code < 256; ++code) {
    const Unpacked u = decode(f, static_cast<uint64_t>(code));
    ElementCode& c = t[code];
    c.special = u.cls == Class::nan || u.cls == Class::inf;
    if (c.special || u.cls == Class::zero) continue;
    const float mag = std::ldexp(static_cast<float>(u.sig), u.exp + (doubled ? 1 : 0));
    c.val = u.neg ? -mag : mag;
    c.e = u.exp + fi.man_bits;
    if (ns == NarrowSubnormals::normalize && !fi.has_nan() && u.sig < (uint64_t{1} << fi.man_bits))
      c.e = u.exp + static_cast<int>(std::bit_width(u.sig)) - 1;
  }
  return t;
}

ScaleTable scale_table(Fmt f) {
  ScaleTable t{};
  for (int code = 0; code < 256; ++code) {
    const Unpacked u = decode(f, static_cast<uint64_t>(code));
    ScaleCode& c = t[code];
    c.nan = u.cls == Class::nan;
    if (c.nan) continue;
    c.st_exp = u.exp;
    if (u.cls == Class::zero) continue;
    c.val = std::ldexp(static_cast<double>(u.sig), u.exp);
    c.e = u.exp + info(f).man_bits;
  }
  return t;
}

}  // namespace mmaemu::driver
