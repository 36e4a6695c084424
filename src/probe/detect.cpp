// SPDX-License-Identifier: BSD-3-Clause
// The feature tests (GNFT, PN §3.1 and PA §4), generalised to any pair of
// formats and any instruction k, run against a black box only.
//
// Every test builds a vector whose exact result under each hypothesis is
// known, calls the unit and compares bits. Values are scaled to L = 2^e0, a
// power of two high in the ranges of both formats, so the same test works
// for fp16, bf16, tf32, fp8 and fp32/fp64 inputs; u = 2^-q is the ulp of 1 in
// the unit's result precision q. The order follows the papers: special
// values and subnormals, result precision, which positions are fused (N_FMA),
// the kind of accumulation, the window F and its rounding, product form,
// final rounding, where c enters, then the finer late-c, floor and zero-c
// rules. A test that needs a value the formats cannot hold reports n/a.
//
// The tests are the members of detail::Probe (detect_probe.h), one file per
// family; this file runs them and fills in what none of them reached.
#include <algorithm>
#include <string>

#include "probe/detect_probe.h"

namespace mmaemu::probe {
namespace detail {

Probe::Probe(const BlackBox& box) : lab_(box), fin_(info(box.in)), fout_(info(box.out)) {
  f_.in = box.in;
  f_.out = box.out;
  f_.k = box.k;
  e0_ = std::min(2 * fin_.emax() - 1, fout_.emax() - 4);
  L_ = p2(e0_);
}

Features Probe::run() {
  guard(&Probe::specials);
  guard(&Probe::in_sub);
  guard(&Probe::reads_c);
  guard(&Probe::out_sub);
  guard(&Probe::precision);
  if (q_ > 0) {
    guard(&Probe::structure);
    guard(&Probe::accumulation);
    guard(&Probe::window);
    guard(&Probe::alignment_and_grouping);
    guard(&Probe::product_form);
    guard(&Probe::rounding);
    guard(&Probe::c);
    guard(&Probe::late_rd);
    guard(&Probe::late_cutoff);
    guard(&Probe::floor_and_zero_c);
    guard(&Probe::late_exact_zero_c);
    guard(&Probe::prd_ovf);
    guard(&Probe::normalisation);
  }
  guard(&Probe::as_fp16);
  fill_na();
  f_.calls = lab_.calls();
  return f_;
}

// A test that needs values the formats cannot hold is abandoned; the
// features it would have set stay n/a with fill_na's reason.
void Probe::guard(void (Probe::*step)()) {
  try {
    (this->*step)();
  } catch (const Unrealisable& e) {
    last_unrealisable_ = e.what();
  }
}

// Features no test reached get the reason they are n/a.
void Probe::fill_na() {
  auto na = [](auto& d, const std::string& why) {
    if (!d.known && d.note.empty()) d.na(why);
  };
  const bool al = aligned();
  const bool acc = f_.accum.known;
  const std::string kind = acc ? std::string("not an aligned block (") + name(f_.accum.value) + ")"
                               : "the accumulation was not recognised";
  if (acc && f_.accum.value == Accumulation::pairwise)
    f_.pair_group.set(N_, block_how_ + ": fp32 pairwise tree of " + std::to_string(N_));
  else
    na(f_.pair_group, "not a pairwise tree");
  if (acc && (f_.accum.value == Accumulation::aligned || f_.accum.value == Accumulation::exact))
    f_.block.set(N_, block_how_);
  else
    na(f_.block, acc ? std::string("no block FMA: ") + name(f_.accum.value) : kind);
  for (Det<int>* d : {&f_.frac, &f_.floor}) na(*d, al ? "test failed" : kind);
  na(f_.alignment, al ? "test failed" : kind);
  na(f_.exact_normalisation, al ? "test failed" : kind);
  na(f_.grouping, al ? "test failed" : kind);
  na(f_.zero_c, al ? "test failed" : kind);
  if (acc && f_.accum.value != Accumulation::aligned)
    na(f_.product, "no alignment window: the form of a product cannot change a sum that is "
                   "exact or made of exact fp32 products");
  na(f_.product, "test failed");
  na(f_.round, "test failed");
  na(f_.out_frac, "test failed");
  na(f_.accum, "test failed");
  na(f_.prd_ovf, "test failed");
  na(f_.c, "test failed");
  na(f_.as_fp16, "test failed");
  const std::string nl = "c is not added late with round-down";
  na(f_.late_rd, late() ? "test failed" : nl);
  na(f_.cutoff, late() ? "test failed" : nl);
  na(f_.late_exact_zero_c, late() ? "test failed" : nl);
  na(f_.late_round, "c is not added by a separate late addition");
  na(f_.in_sub, "test failed");
  na(f_.out_sub, "test failed");
  na(f_.flush_sign, "test failed");
  na(f_.reads_c, "test failed");
  na(f_.nan, "test failed");
  if (!last_unrealisable_.empty())
    for (auto* d : {&f_.frac, &f_.floor})
      if (!d->known && d->note == "test failed") d->note += " (" + last_unrealisable_ + ")";
}

}  // namespace detail

Features detect(const BlackBox& box) { return detail::Probe(box).run(); }

}  // namespace mmaemu::probe
