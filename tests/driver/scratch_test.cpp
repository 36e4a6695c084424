// SPDX-License-Identifier: BSD-3-Clause
// The per-thread scratch arena (driver/scratch.h): a slot is kept between
// leases, two sites of one type hold two slots, each thread has its own,
// and the one trim rule releases a slot over kKeepBytes when its last
// lease ends (not while an outer lease holds it).
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdint>
#include <thread>
#include <vector>

#include "driver/scratch.h"

using mmaemu::driver::kKeepBytes;
using mmaemu::driver::Scratch;
using mmaemu::driver::scratch_bytes;

namespace {

struct SiteA;
struct SiteB;
using Bytes = std::vector<uint8_t>;

struct Pair {
  std::vector<uint32_t> x;
  std::vector<uint64_t> y;
  std::size_t held_bytes() const { return scratch_bytes(x, y); }
};

}  // namespace

TEST_CASE("a slot keeps its buffer between leases up to kKeepBytes") {
  const uint8_t* first = nullptr;
  {
    const Scratch<Bytes, SiteA> s;
    s->resize(1000, 7);
    first = s->data();
  }
  const Scratch<Bytes, SiteA> again;
  CHECK(again->data() == first);
  CHECK(again->size() == 1000);
  CHECK((*again)[999] == 7);
}

TEST_CASE("two sites of one type hold two slots") {
  const Scratch<Bytes, SiteA> a;
  const Scratch<Bytes, SiteB> b;
  CHECK(&*a != &*b);
}

TEST_CASE("each thread has its own arena") {
  const Scratch<Bytes, SiteA> mine;
  const Bytes* theirs = nullptr;
  std::thread t([&] { theirs = &*Scratch<Bytes, SiteA>{}; });
  t.join();
  CHECK(theirs != &*mine);
}

TEST_CASE("the trim rule: a slot over kKeepBytes is released when its last lease ends") {
  {
    const Scratch<Bytes, SiteB> outer;
    {
      const Scratch<Bytes, SiteB> inner;
      inner->resize(kKeepBytes + 1);
    }
    CHECK(outer->capacity() > kKeepBytes);  // the outer lease still holds it
  }
  CHECK(Scratch<Bytes, SiteB>{}->capacity() == 0);
  {
    const Scratch<Bytes, SiteB> s;
    s->resize(kKeepBytes);  // at the limit: kept
  }
  CHECK(Scratch<Bytes, SiteB>{}->capacity() >= kKeepBytes);
}

TEST_CASE("a slot of several buffers counts them all") {
  {
    const Scratch<Pair> p;
    p->x.resize(kKeepBytes / 8);  // half the limit
    p->y.resize(kKeepBytes / 16 + 1);  // and a little over half
    CHECK(scratch_bytes(*p) > kKeepBytes);
  }
  const Scratch<Pair> p;
  CHECK(p->x.capacity() == 0);
  CHECK(p->y.capacity() == 0);
}
