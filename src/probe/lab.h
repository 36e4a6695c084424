// SPDX-License-Identifier: BSD-3-Clause
// The probe's bench: exact test values, their encodings, products realised
// as a_i * b_i in the input format, and calls of the black box.
//
// Test values are dyadic rationals held in host doubles. Every value used is
// exact in binary64 (the probe never computes with rounding in double: sums
// and scalings are of values whose bits fit 53 bits), and every encoding into
// a unit format is checked to be exact; a value a format cannot hold raises
// Unrealisable, which the caller reports as "n/a: the inputs cannot form the
// test vector".
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "probe/probe.h"

namespace mmaemu::probe {

struct Unrealisable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// The exact encoding of v in f, if f holds v exactly (+-0, +-Inf, NaN too).
std::optional<uint64_t> encode(Fmt f, double v);
/// The value of bits in f as a double (exact for every format up to fp64).
double value(Fmt f, uint64_t bits);
/// 2^e as a double.
double p2(int e);
/// floor(log2 |v|) of a finite nonzero v.
int ilog2(double v);

/// One test vector: a, b of length k in the input format, c in the output.
struct Vec {
  std::vector<uint64_t> a, b;
  uint64_t c = 0;
};

class Lab {
 public:
  explicit Lab(const BlackBox& box);

  const BlackBox& box() const { return box_; }
  int k() const { return box_.k; }
  Fmt in() const { return box_.in; }
  Fmt out() const { return box_.out; }

  /// All-zero vector (+0 inputs, c = +0).
  Vec zero() const;
  /// Sets a_i * b_i = v with both factors normal where possible.
  void set(Vec& v, int i, double value) const;
  /// Sets a_i = x, b_i = y exactly.
  void set2(Vec& v, int i, double x, double y) const;
  /// Sets c.
  void setc(Vec& v, double c) const;
  /// Whether v is a product of two input values.
  bool realisable(double v) const;
  /// Factors must be normal (the unit flushes subnormal inputs).
  void normal_factors_only(bool on) {
    normal_only_ = on;
    cache_.clear();
  }
  /// Whether v is exact in the output format.
  bool representable(double v) const { return encode(out(), v).has_value(); }

  /// Calls the unit.
  uint64_t run(const Vec& v);
  /// Calls the unit and returns the result as a double.
  double runv(const Vec& v) { return value(out(), run(v)); }
  long calls() const { return calls_; }

  /// Input bits of x (throws Unrealisable).
  uint64_t in_bits(double x) const;
  /// Output bits of x (throws Unrealisable).
  uint64_t out_bits(double x) const;

  /// Rounds the exact value x to the output format with `prec` fraction
  /// bits (the unit's result precision) and rounding r; overflow gives Inf.
  double round_out(double x, Round r, int prec) const;

 private:
  std::optional<std::pair<uint64_t, uint64_t>> factor(double v) const;

  BlackBox box_;
  long calls_ = 0;
  bool normal_only_ = false;
  mutable std::map<uint64_t, std::optional<std::pair<uint64_t, uint64_t>>> cache_;
};

}  // namespace mmaemu::probe
