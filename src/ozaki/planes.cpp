// SPDX-License-Identifier: BSD-3-Clause
#include "ozaki/planes.h"

namespace mmaemu::ozaki {

Planes::Planes(Fmt input, std::size_t count, std::size_t rows, std::size_t k)
    : input_(input), rows_(rows), k_(k), ld_(input == Fmt::s4 ? (k + 1) / 2 : k) {
  const std::size_t n = count * rows * ld_;
  if (info(input).is_integer()) bytes_.assign(n, 0);
  else values_.assign(n, 0.0f);
}

void Planes::set(std::size_t plane, std::size_t row, std::size_t l, int digit) {
  const std::size_t at = index(plane, row, l);
  if (input_ == Fmt::s4) {
    const int shift = (l & 1) ? 4 : 0;
    const unsigned keep = (l & 1) ? 0x0Fu : 0xF0u;
    const unsigned byte = static_cast<uint8_t>(bytes_[at]);
    bytes_[at] = static_cast<int8_t>((byte & keep) | ((static_cast<unsigned>(digit) & 0xFu) << shift));
  } else if (input_ == Fmt::s8) {
    bytes_[at] = static_cast<int8_t>(digit);
  } else {
    values_[at] = static_cast<float>(digit);
  }
}

int64_t Planes::get(std::size_t plane, std::size_t row, std::size_t l) const {
  const std::size_t at = index(plane, row, l);
  if (input_ == Fmt::s4) {
    const int nibble = (static_cast<uint8_t>(bytes_[at]) >> ((l & 1) ? 4 : 0)) & 0xF;
    return nibble >= 8 ? nibble - 16 : nibble;
  }
  if (input_ == Fmt::s8) return bytes_[at];
  return static_cast<int64_t>(values_[at]);
}

const void* Planes::at(std::size_t plane, std::size_t l0) const {
  const std::size_t i = index(plane, 0, l0);
  if (info(input_).is_integer()) return bytes_.data() + i;
  return values_.data() + i;
}

}  // namespace mmaemu::ozaki
