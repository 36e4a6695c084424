// SPDX-License-Identifier: BSD-3-Clause
// Scheme II's exact arithmetic (src/ozaki/crt.h, fast_mod.h): FastMod equals
// `%`, and the reconstruction's 128-bit path equals its 192-bit path, bits
// compared, for every modulus count.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "common/hex.h"
#include "ozaki/crt.h"
#include "ozaki/fast_mod.h"

using mmaemu::ozaki::FastMod;
using mmaemu::ozaki::make_moduli;
using mmaemu::ozaki::Moduli;
using mmaemu::ozaki::reconstruct;
using mmaemu::ozaki::reconstruct_many;

namespace {

uint64_t bits(double x) {
  uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

}  // namespace

TEST_CASE("FastMod equals % on the ranges scheme II reduces") {
  std::mt19937_64 rng(20250607);
  const Moduli mod = make_moduli(20);
  std::size_t bad = 0;
  for (int p : mod.p) {
    const FastMod by(static_cast<uint32_t>(p));
    const auto check32 = [&](uint32_t a) {
      if (by(a) != a % static_cast<uint32_t>(p)) {
        if (++bad < 10) MESSAGE("p " << p << " a " << a << ": got " << by(a) << ", % " << a % static_cast<uint32_t>(p));
      }
    };
    const auto check64 = [&](uint64_t a) {
      if (by.wide(a) != a % static_cast<uint64_t>(p)) {
        if (++bad < 10) MESSAGE("p " << p << " wide a " << a << ": got " << by.wide(a));
      }
    };
    for (uint32_t a = 0; a < (1u << 16); ++a) check32(a);
    for (uint32_t a = 0; a < (1u << 16); ++a) check32(~a);
    for (int i = 0; i < 20000; ++i) {
      check32(static_cast<uint32_t>(rng()));
      check64(rng());
      check64(rng() >> (rng() % 64));
    }
    for (int s = 0; s < 64; ++s) {
      check64(uint64_t{1} << s);
      check64((uint64_t{1} << s) - 1);
    }
    check64(~uint64_t{0});
  }
  CHECK(bad == 0);
}

TEST_CASE("SmallMod equals % below 2^26 for every scheme II modulus") {
  const Moduli mod = make_moduli(20);
  std::size_t bad = 0;
  for (int p : mod.p) {
    const mmaemu::ozaki::SmallMod by(p);
    for (uint32_t t = 0; t < (1u << 26); t += (t < (1u << 20) || t > (1u << 26) - (1u << 20)) ? 1 : 97)
      if (by(t) != t % static_cast<uint32_t>(p) && ++bad < 10) MESSAGE("p " << p << " t " << t << ": got " << by(t));
  }
  CHECK(bad == 0);
}

TEST_CASE("the reconstruction's 128-bit path equals its 192-bit path") {
  std::mt19937_64 rng(20250608);
  std::size_t bad = 0, fast = 0;
  for (int count = 1; count <= 20; ++count) {
    const Moduli mod = make_moduli(count);
    Moduli wide = mod;
    wide.fits_u128 = false;
    fast += mod.fits_u128;
    uint8_t r[20];
    for (int i = 0; i < 3000; ++i) {
      for (int l = 0; l < count; ++l) {
        const int p = mod.p[l];
        const uint64_t pick = rng() % 8;  // the edges 0, 1, p - 1 often
        r[l] = static_cast<uint8_t>(pick == 0 ? 0 : pick == 1 ? 1 : pick == 2 ? p - 1 : rng() % p);
      }
      if (i == 0) std::memset(r, 0, sizeof r);
      const double got = reconstruct(mod, r, 1), want = reconstruct(wide, r, 1);
      if (bits(got) != bits(want) && ++bad < 10)
        MESSAGE("moduli " << count << " case " << i << ": got " << hex(bits(got)) << ", 192-bit "
                          << hex(bits(want)));
    }
  }
  CHECK(fast == 16);  // 16 moduli still fit (P < 2^127), 17 do not
  CHECK(bad == 0);
}

TEST_CASE("reconstruct_many equals the 192-bit reconstruction, element by element") {
  std::mt19937_64 rng(20250609);
  std::size_t bad = 0;
  for (int count = 1; count <= 20; ++count) {
    const Moduli mod = make_moduli(count);
    Moduli wide = mod;
    wide.fits_u128 = false;
    const std::size_t elements = 1 + rng() % 300;  // several blocks and a partial one
    const std::size_t plane = elements + rng() % 5;
    std::vector<uint8_t> r(plane * count);
    for (std::size_t e = 0; e < elements; ++e)
      for (int l = 0; l < count; ++l) {
        const int p = mod.p[l];
        const uint64_t pick = rng() % 8;
        r[l * plane + e] = static_cast<uint8_t>(pick == 0 ? 0 : pick == 1 ? 1 : pick == 2 ? p - 1 : rng() % p);
      }
    std::vector<double> got(elements);
    reconstruct_many(mod, r.data(), plane, elements, got.data());
    for (std::size_t e = 0; e < elements; ++e) {
      const double want = reconstruct(wide, r.data() + e, plane);
      if (bits(got[e]) != bits(want) && ++bad < 10)
        MESSAGE("moduli " << count << " element " << e << ": got " << hex(bits(got[e])) << ", 192-bit "
                          << hex(bits(want)));
    }
  }
  CHECK(bad == 0);
}
