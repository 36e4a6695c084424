// SPDX-License-Identifier: BSD-3-Clause
// The feature tests of special values and subnormals: NaN, infinities and
// overflow, subnormal inputs and results, whether C is read, and products
// beyond the fp32 range.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "probe/detect_probe.h"

namespace mmaemu::probe::detail {
namespace {

std::string hex(uint64_t x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llX", static_cast<unsigned long long>(x));
  return buf;
}

}  // namespace

// --- special values (PN §4.1.6 list, PA §4.1) ------------------------------
void Probe::specials() {
  const Fmt in = lab_.in(), out = lab_.out();
  {
    Vec v = lab_.zero();
    v.a[0] = default_nan(in);
    v.b[0] = lab_.in_bits(1);
    const uint64_t d = lab_.run(v);
    if (is_nan(out, d))
      f_.nan.set(d, "a1 = NaN, b1 = 1 gives " + hex(d));
    else
      anomaly("a NaN input gave the non-NaN " + hex(d));
  }
  if (fin_.specials == Specials::ieee) {
    Vec v = lab_.zero();
    v.a[0] = inf_bits(in, false);
    v.b[0] = lab_.in_bits(1);
    const double pos = lab_.runv(v);
    v.a[0] = inf_bits(in, true);
    const double neg = lab_.runv(v);
    f_.inf_operand.set(pos == HUGE_VAL && neg == -HUGE_VAL, "a1 = +-Inf, b1 = 1");
    v = lab_.zero();
    v.a[0] = inf_bits(in, false);
    v.a[1] = inf_bits(in, true);
    v.b[0] = v.b[1] = lab_.in_bits(1);
    f_.inf_minus_inf_nan.set(std::isnan(lab_.runv(v)), "a1 = +Inf, a2 = -Inf, b = 1");
    v = lab_.zero();
    v.a[0] = inf_bits(in, false);
    f_.zero_times_inf_nan.set(std::isnan(lab_.runv(v)), "a1 = Inf, b1 = 0");
  } else {
    const char* why = "the input format has no infinity";
    f_.inf_operand.na(why);
    f_.inf_minus_inf_nan.na(why);
    f_.zero_times_inf_nan.na(why);
  }
  // Overflow: only observable when one product exceeds the output range.
  const double mx = value(in, max_finite_bits(in, false));
  if (mx * mx >= p2(fout_.emax() + 1)) {
    Vec v = lab_.zero();
    for (int i = 0; i < lab_.k(); ++i) lab_.set2(v, i, mx, mx);
    const uint64_t d = lab_.run(v);
    if (d == inf_bits(out, false))
      f_.overflow_inf.set(true, "k products max_in^2 give +Inf");
    else if (d == max_finite_bits(out, false))
      f_.overflow_inf.set(false, "k products max_in^2 saturate");
    else
      anomaly("k products max_in^2 gave " + hex(d));
  } else {
    f_.overflow_inf.na("the largest product, max_in^2, is inside the output range");
  }
}

// --- subnormals (PN §3.1 examples) ---------------------------------------
void Probe::in_sub() {
  const double x = p2(fin_.emin() - fin_.man_bits);  // smallest subnormal input
  const double y = p2(fin_.emax());
  const double p = x * y;
  Vec v = lab_.zero();
  lab_.set2(v, 0, x, y);
  lab_.out_bits(p);
  const double d = lab_.runv(v);
  const std::string how = "a1 = 2^" + std::to_string(ilog2(x)) + " (subnormal), b1 = 2^" +
                          std::to_string(ilog2(y));
  if (d == p) f_.in_sub.set(true, how + ": exact product");
  else if (d == 0) {
    f_.in_sub.set(false, how + ": 0");
    lab_.normal_factors_only(true);  // every later test uses normal inputs
  }
  else anomaly(how + " gave an unexpected value");
}

void Probe::reads_c() {
  Vec v = lab_.zero();
  lab_.set(v, 0, 1);
  lab_.setc(v, 1);
  const double d = lab_.runv(v);
  if (d == 2) f_.reads_c.set(true, "c = 1, p1 = 1 gives 2");
  else if (d == 1) f_.reads_c.set(false, "c = 1, p1 = 1 gives 1: D = A*B");
  else anomaly("c = 1, p1 = 1 gave an unexpected value");
}

// A subnormal output from normal inputs (a1 = 2^i, b1 = 2^j), else from c.
void Probe::out_sub() {
  const int te = fout_.emin() - 1;
  const double t = p2(te);
  int i = te / 2, j = te - i;
  if (j < fin_.emin()) j = fin_.emin(), i = te - j;
  const bool normal = i >= fin_.emin() && i <= fin_.emax() && j >= fin_.emin() && j <= fin_.emax();
  if (normal) {
    sub_by_products_ = true;
    sub_i_ = i;
    sub_j_ = j;
    Vec v = lab_.zero();
    lab_.set2(v, 0, p2(i), p2(j));
    const double d = lab_.runv(v);
    const std::string how = "p1 = 2^" + std::to_string(te) + " from normal inputs";
    if (d == t) f_.out_sub.set(true, how + ": kept");
    else if (d == 0) f_.out_sub.set(false, how + ": flushed");
    else anomaly(how + " gave an unexpected value");
  } else if (have(f_.reads_c)) {
    Vec v = lab_.zero();
    lab_.setc(v, t);
    const double d = lab_.runv(v);
    const std::string how = "c = 2^" + std::to_string(te) + ", no products";
    if (d == t) f_.out_sub.set(true, how + ": kept");
    else if (d == 0) f_.out_sub.set(false, how + ": flushed");
    else anomaly(how + " gave an unexpected value");
  } else {
    f_.out_sub.na("products cannot be subnormal in the output and C is not read");
    f_.flush_sign.na("no subnormal result can be formed");
  }
  if (f_.out_sub.known && f_.out_sub.value) {
    f_.flush_sign.na("nothing is flushed");
  } else if (f_.out_sub.known && sub_by_products_) {
    // -t alone, every other product -0 and c = -0: a flushed -t is -0 if
    // the sign is kept, else +0.
    Vec v = lab_.zero();
    for (int k = 1; k < lab_.k(); ++k) v.b[static_cast<std::size_t>(k)] = lab_.in_bits(-1);
    v.c = zero_bits(lab_.out(), true);
    lab_.set2(v, 0, -p2(sub_i_), p2(sub_j_));
    const uint64_t d = lab_.run(v);
    if (d == zero_bits(lab_.out(), true)) f_.flush_sign.set(FlushSign::keep, "-2^emin/2 flushes to -0");
    else if (d == zero_bits(lab_.out(), false)) f_.flush_sign.set(FlushSign::positive, "-2^emin/2 flushes to +0");
    else anomaly("a flushed negative subnormal gave " + hex(d));
  } else if (f_.out_sub.known) {
    f_.flush_sign.na("no negative subnormal result can be formed from products");
  }
}

// --- products >= 2^128 (PA H5 / L1) ---------------------------------------
void Probe::prd_ovf() {
  if (!f_.accum.known) return;
  const double big = p2(129);
  if (!lab_.realisable(big)) {
    f_.prd_ovf.na("products stay below 2^128");
    return;
  }
  if (f_.accum.value == Accumulation::fma_chain) {
    f_.prd_ovf.na("IEEE FMAs: a product is never formed apart from the addition");
    return;
  }
  Vec v = lab_.zero();
  lab_.set(v, W_[0], big);
  lab_.set(v, W_.size() > 1 ? W_[1] : 1, -big);
  const double d = lab_.runv(v);
  const std::string how = "p1 = 2^129, p2 = -2^129: ";
  if (f_.accum.value == Accumulation::pairwise) {
    if (std::isnan(d))
      f_.product.set(ProductForm::fp32_rne, how + "NaN: products rounded to the output "
                                                  "format (to +-Inf) before the tree");
    f_.prd_ovf.na("implied by products rounded to fp32 before the additions");
    return;
  }
  if (d == 0) f_.prd_ovf.set(false, how + "0: products beyond 2^128 are kept");
  else if (std::isnan(d)) f_.prd_ovf.set(true, how + "NaN: |p| >= 2^128 is Inf");
  else anomaly("product overflow test gave an unexpected value");
}

}  // namespace mmaemu::probe::detail
