// SPDX-License-Identifier: BSD-3-Clause
// The class behind probe::detect (private to the probe): the feature tests
// and the state they share. detect.cpp runs them in the papers' order (and
// explains the method); each family of tests has its own file:
//   detect_specials.cpp   special values, subnormal inputs and results, C
//                         read, products >= 2^128
//   detect_structure.cpp  result precision, the fused positions, the kind of
//                         accumulation, the window F, rounding at alignment
//                         and grouping, product form, normalisation
//   detect_rounding.cpp   the final rounding, where c enters
//   detect_late_c.cpp     the late round-down rules for c (PA K15, N3, L3)
//   detect_floor.cpp      the exponent floor and the c = 0 term, inputs read
//                         as fp16
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "probe/lab.h"

namespace mmaemu::probe::detail {

// floor(x / 2^g) * 2^g: rounding down to the grid 2^g (exact in double for
// the values used: their bits span fewer than 53 binades above 2^g).
inline double floor_grid(double x, int g) { return std::floor(std::ldexp(x, -g)) * p2(g); }

class Probe {
 public:
  explicit Probe(const BlackBox& box);

  Features run();

 private:
  // detect.cpp
  void guard(void (Probe::*step)());
  void fill_na();

  void anomaly(const std::string& what) { f_.anomalies.push_back(what); }

  bool is(double d, double v) const { return d == v && std::signbit(d) == std::signbit(v); }
  bool aligned() const { return f_.accum.known && f_.accum.value == Accumulation::aligned; }
  bool have(const Det<bool>& d) const { return d.known && d.value; }
  bool late() const { return f_.c.known && f_.c.value == CEntry::late_rd; }

  // detect_specials.cpp
  void specials();
  void in_sub();
  void reads_c();
  void out_sub();
  void prd_ovf();

  // detect_structure.cpp
  void precision();
  bool test_c(int j);
  bool test_h(int j);
  bool test_k(int j);
  void structure();
  void accumulation();
  void window();
  AlignRound align_mode(int j);
  void alignment_and_grouping();
  void product_form();
  void normalisation();

  // detect_rounding.cpp
  std::optional<Round> classify(double r1, double r2, double r3) const;
  std::optional<Round> rounding_by_products();
  std::optional<Round> rounding_by_c();
  void rounding();
  void c();

  // detect_late_c.cpp
  double late_dominant(double P, double c, int e_c, LateRd mode) const;
  std::vector<int> group0() const;
  void place_negative_bits(Vec& v, const std::vector<int>& bits, const std::vector<int>& pos);
  void late_rd();
  void late_cutoff();
  void late_exact_zero_c();

  // detect_floor.cpp: the base X of the observation kept(es).
  struct Base {
    std::vector<double> terms;  // products of X
    double yes, no;             // results if 2^es is kept / lost
  };
  Base base(int es) const;
  std::optional<bool> kept(int es);
  void floor_and_zero_c();
  void as_fp16();

  Lab lab_;
  const FormatInfo& fin_;
  const FormatInfo& fout_;
  Features f_;  // what the tests found so far
  // L = 2^e0 and u = 2^-q (see detect.cpp).
  int e0_ = 0;
  double L_ = 1;
  int q_ = 0;
  double u_ = 0;
  int N_ = 0;                       // the number of fused positions
  int F_ = 0;                       // the window's fraction bits
  int z_ = -1;                      // W[2], the position that cancels position 0 (-1: none)
  std::vector<int> W_;              // the positions fused with position 0
  Round final_round_ = Round::rne;  // the final rounding found
  std::string block_how_;           // how N was found
  // A subnormal result formed from products, as 2^sub_i * 2^sub_j.
  bool sub_by_products_ = false;
  int sub_i_ = 0, sub_j_ = 0;
  std::string last_unrealisable_;  // why the last abandoned test was abandoned
};

}  // namespace mmaemu::probe::detail
