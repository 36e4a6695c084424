// SPDX-License-Identifier: BSD-3-Clause
// The feature probe recovers every parameter of every unit from outside.
//
// For every row of every registered GPU (and a set of custom variants) the
// probe gets only the row's black box (formats, k and the dot product of one
// instruction). Each detected feature must equal the row's field. A feature
// the probe reports as n/a must really be irrelevant for that row: the row
// with that field changed must give the same outputs as the original on the
// probe's own test vectors (replayed) and on random vectors.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <functional>
#include <memory>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "models/model.h"
#include "probe/lab.h"
#include "probe/probe.h"
#include "ref/reference.h"

using namespace mmaemu;
using namespace mmaemu::probe;

namespace {

struct Recorded {
  std::vector<Vec> vecs;
};

// The row's black box, recording every vector the probe sends.
BlackBox recording_box(const ModelRow& row, std::shared_ptr<Recorded> rec) {
  BlackBox box = black_box(row);
  auto inner = box.dot;
  const std::size_t k = static_cast<std::size_t>(box.k);
  box.dot = [inner, rec, k](const uint64_t* a, const uint64_t* b, uint64_t c) {
    rec->vecs.push_back(Vec{std::vector<uint64_t>(a, a + k), std::vector<uint64_t>(b, b + k), c});
    return inner(a, b, c);
  };
  return box;
}

// Random vectors: exponents over the whole input range (and near its
// bottom), mixed signs, zeros, subnormals, a few specials; c likewise.
std::vector<Vec> random_vectors(const ModelRow& row, int count, unsigned seed) {
  std::mt19937_64 rng(seed);
  const FormatInfo& fi = info(row.in);
  const FormatInfo& fo = info(row.out);
  auto rnd_bits = [&](Fmt f, const FormatInfo& x, int spread) -> uint64_t {
    const int kind = static_cast<int>(rng() % 16);
    if (kind == 0) return zero_bits(f, false);
    const bool neg = rng() & 1;
    int e;
    if (kind < 4) e = x.emin() - x.man_bits + static_cast<int>(rng() % (x.man_bits + 6));
    else e = x.emin() + static_cast<int>(rng() % static_cast<uint64_t>(x.emax() - x.emin() + 1));
    if (spread && kind >= 4) e = static_cast<int>(rng() % (2 * spread + 1)) - spread;
    const uint64_t mag = (1ull << x.man_bits) | (rng() & ((1ull << x.man_bits) - 1));
    return round_pack(f, neg, mag, e - x.man_bits, false, Round::rz, Overflow::saturate);
  };
  std::vector<Vec> v;
  for (int n = 0; n < count; ++n) {
    Vec x;
    const int spread = n % 3 == 0 ? 0 : (n % 3 == 1 ? 4 : 30);
    for (int i = 0; i < row.k; ++i) {
      x.a.push_back(rnd_bits(row.in, fi, spread));
      x.b.push_back(rnd_bits(row.in, fi, spread));
    }
    x.c = rnd_bits(row.out, fo, spread ? spread * 2 : 0);
    v.push_back(std::move(x));
  }
  return v;
}


// The first vector on which the two rows differ, as a message ("" if none).
std::string differ(const ModelRow& a, const ModelRow& b, const std::vector<Vec>& vecs) {
  for (const Vec& v : vecs) {
    const uint64_t x = ref::dot(a, static_cast<std::size_t>(a.k), v.a.data(), v.b.data(), v.c);
    const uint64_t y = ref::dot(b, static_cast<std::size_t>(b.k), v.a.data(), v.b.data(), v.c);
    if (x != y) {
      std::ostringstream os;
      os << std::hex << "outputs 0x" << x << " vs 0x" << y << " on c = 0x" << v.c;
      return os.str();
    }
  }
  return "";
}

struct Case {
  std::string model;
  ModelRow row;
};

std::string label(const Case& c) {
  std::ostringstream os;
  os << c.model << " " << c.row.instr << " " << info(c.row.in).name << "->" << info(c.row.out).name;
  return os.str();
}

// Every row of every registered GPU, rows shared by several GPUs once.
std::vector<Case> registry_cases() {
  std::vector<Case> cases;
  std::set<std::string> seen;
  for (const Gpu& g : gpus()) {
    const Model m = *gpu_model(g.name);
    for (const ModelRow& r : m.rows) {
      const std::string key = std::string(r.family) + "|" + r.instr + "|" + info(r.in).name + "|" +
                              info(r.out).name + "|" + g.overrides;
      if (seen.insert(key).second) cases.push_back({m.name, r});
    }
  }
  return cases;
}

class Checker {
 public:
  Checker(const Case& c) : c_(c), rec_(std::make_shared<Recorded>()) {
    f_ = detect(recording_box(c.row, rec_));
    vecs_ = rec_->vecs;
    const auto more = random_vectors(c.row, 400, 12345u + static_cast<unsigned>(c.row.k));
    vecs_.insert(vecs_.end(), more.begin(), more.end());
  }

  template <typename T, typename U>
  void eq(const char* feature, const Det<T>& d, const U& want) {
    const std::string what = label(c_) + ": " + feature + " (" + d.note + ")";
    INFO(what);
    CHECK_MESSAGE(d.known, "n/a but the row has a value");
    if (d.known) CHECK_MESSAGE(d.value == static_cast<T>(want), "detected ", show(d.value), ", row ", show(static_cast<T>(want)));
  }

  // n/a must mean irrelevant: every mutation of the row gives the same bits.
  void irrelevant(const char* feature, const std::string& note,
                  const std::vector<std::function<void(ModelRow&)>>& mutations) {
    const std::string what = label(c_) + ": " + feature + " reported n/a (" + note + ")";
    INFO(what);
    for (const auto& mutate : mutations) {
      ModelRow m = c_.row;
      mutate(m);
      const std::string d = differ(c_.row, m, vecs_);
      CHECK_MESSAGE(d.empty(), "but changing it changes the outputs: ", d);
    }
  }

  template <typename T, typename U>
  void field(const char* feature, const Det<T>& d, const U& want,
             const std::vector<std::function<void(ModelRow&)>>& mutations) {
    if (d.known) eq(feature, d, want);
    else irrelevant(feature, d.note, mutations);
  }

  const Features& f() const { return f_; }
  const ModelRow& row() const { return c_.row; }
  const std::vector<Vec>& vecs() const { return vecs_; }
  const Case& kase() const { return c_; }

 private:
  template <typename T>
  static std::string show(const T& v) {
    if constexpr (std::is_same_v<T, bool>) return v ? "yes" : "no";
    else if constexpr (std::is_same_v<T, int>) return std::to_string(v);
    else if constexpr (std::is_same_v<T, uint64_t>) {
      std::ostringstream os;
      os << "0x" << std::hex << v;
      return os.str();
    } else if constexpr (std::is_same_v<T, ZeroC>) {
      return v.term ? "term at " + std::to_string(v.exp) : "ignored";
    } else return name(v);
  }

  Case c_;
  std::shared_ptr<Recorded> rec_;
  Features f_;
  std::vector<Vec> vecs_;
};

void check_case(const Case& c) {
  Checker k(c);
  const Features& f = k.f();
  const ModelRow& r = c.row;
  using M = std::function<void(ModelRow&)>;
  INFO(label(c));
  {
    INFO("anomalies: ", f.anomalies.size() ? f.anomalies[0] : "");
    CHECK(f.anomalies.empty());
  }

  // Special values. The NaN of the output format; the other NaN field
  // can never show.
  if (r.out == Fmt::fp32) {
    k.eq("NaN", f.nan, uint64_t{r.nan32});
    k.irrelevant("fp16 NaN pattern", "fp32 results", {[](ModelRow& m) { m.nan16 ^= 0x0101; }});
  } else if (r.out == Fmt::fp16) {
    k.eq("NaN", f.nan, uint64_t{r.nan16});
    k.irrelevant("fp32 NaN pattern", "fp16 results", {[](ModelRow& m) { m.nan32 ^= 0x00010101; }});
  } else {
    k.eq("NaN", f.nan, ref::nan_result(r));
  }
  // Engine-wide rules (no field): where detected they hold; n/a only where
  // the formats make them unobservable.
  const bool has_inf = info(r.in).specials == Specials::ieee;
  for (const Det<bool>* d : {&f.inf_operand, &f.inf_minus_inf_nan, &f.zero_times_inf_nan}) {
    CHECK(d->known == has_inf);
    if (d->known) CHECK(d->value);
  }
  {
    const double mx = value(r.in, max_finite_bits(r.in, false));
    CHECK(f.overflow_inf.known == (mx * mx >= p2(info(r.out).emax() + 1)));
    if (f.overflow_inf.known) CHECK(f.overflow_inf.value);
  }
  k.field("product overflow", f.prd_ovf, r.prd_ovf,
          {M([](ModelRow& m) { m.prd_ovf = !m.prd_ovf; })});

  // Subnormals.
  k.eq("subnormal inputs", f.in_sub, r.in_sub);
  k.field("subnormal results", f.out_sub, r.out_sub,
          {M([](ModelRow& m) { m.out_sub = !m.out_sub; })});
  k.field("flush sign", f.flush_sign, r.flush_sign, {M([](ModelRow& m) {
            m.flush_sign = m.flush_sign == FlushSign::keep ? FlushSign::positive : FlushSign::keep;
          })});

  // Structure.
  k.eq("C read", f.reads_c, !r.ignores_c);
  k.eq("accumulation", f.accum, r.accum);
  k.field("block", f.block, std::min(r.block, r.k),
          {M([](ModelRow& m) { m.block = m.block == 2 ? 4 : 2; })});
  k.field("grouping", f.grouping, r.grouping,
          {M([](ModelRow& m) { m.grouping = Grouping::contiguous; }),
           M([](ModelRow& m) { m.grouping = Grouping::odd_even; })});
  k.field("pair group", f.pair_group, r.pair_group,
          {M([](ModelRow& m) { m.pair_group = m.pair_group == 2 ? 4 : 2; })});
  k.field("inputs as fp16", f.as_fp16, r.as_fp16,
          {M([](ModelRow& m) { m.as_fp16 = !m.as_fp16; })});

  // Alignment and rounding.
  k.field("F", f.frac, r.frac,
          {M([](ModelRow& m) { m.frac = 20; }), M([](ModelRow& m) { m.frac = 30; })});
  if (r.accum == Accumulation::aligned) {
    k.eq("alignment", f.alignment, AlignRound::truncate);
    k.eq("normalisation", f.exact_normalisation, true);
  } else {
    CHECK_MESSAGE(!f.alignment.known, "alignment rounding reported for a unit without a window");
  }
  k.field("products", f.product, r.product,
          {M([](ModelRow& m) { m.product = ProductForm::denormalised; }),
           M([](ModelRow& m) { m.product = ProductForm::normalised; })});
  k.eq("result fraction bits", f.out_frac, r.result_frac());
  k.eq("final rounding", f.round, r.round);

  // Floor and c = 0. "none" and "ignored" may also stand for a floor or a
  // term that nothing the unit can compute reaches: then removing it must
  // change nothing.
  const M no_floor = [](ModelRow& m) { m.floor = kNoFloor; };
  const M no_zero_term = [](ModelRow& m) { m.zero_c_is_term = false; };
  if (f.floor.known && f.floor.value == kNoFloor) {
    if (r.floor != kNoFloor) k.irrelevant("floor (reported none)", f.floor.note, {no_floor});
  } else {
    k.field("floor", f.floor, r.floor, {no_floor, M([](ModelRow& m) { m.floor = -140; })});
  }
  if (f.zero_c.known && !f.zero_c.value.term) {
    if (r.zero_c_is_term) k.irrelevant("c = 0 term (reported ignored)", f.zero_c.note, {no_zero_term});
  } else if (f.zero_c.known && f.zero_c_exp_ambiguous) {
    // The probe reads one exponent of a range that gives the same outputs.
    CHECK(r.zero_c_is_term);
    const int e = f.zero_c.value.exp;
    k.irrelevant("c = 0 exponent (one of a range)", f.zero_c.note,
                 {M([e](ModelRow& m) { m.zero_c_exp = e; })});
  } else {
    k.field("c = 0", f.zero_c, ZeroC{r.zero_c_is_term, r.zero_c_exp},
            {no_zero_term, M([](ModelRow& m) {
               m.zero_c_is_term = true;
               m.zero_c_exp = -126;
             })});
  }

  // The accumulator.
  k.field("c entry", f.c, r.c,
          {M([](ModelRow& m) { m.c = CEntry::early; }),
           M([](ModelRow& m) { m.c = CEntry::late_rd; })});
  k.field("late RD rule", f.late_rd, r.late_rd, {M([](ModelRow& m) {
            m.late_rd = m.late_rd == LateRd::two_stage ? LateRd::single_stage : LateRd::two_stage;
          })});
  k.field("late rounding", f.late_round, r.late_round,
          {M([](ModelRow& m) { m.late_round = m.late_round == Round::rne ? Round::rz : Round::rne; })});
  k.field("late c cut-off", f.cutoff, r.cutoff,
          {M([](ModelRow& m) { m.cutoff = 3; }), M([](ModelRow& m) { m.cutoff = -1; })});
  k.field("late exact c = 0", f.late_exact_zero_c, r.late_exact_zero_c,
          {M([](ModelRow& m) { m.late_exact_zero_c = !m.late_exact_zero_c; })});
}

}  // namespace

TEST_CASE("the probe recovers every registry row from its black box") {
  const auto cases = registry_cases();
  CHECK(cases.size() > 40);
  for (const Case& c : cases) check_case(c);
}

TEST_CASE("the probe recovers custom variants") {
  const char* specs[] = {
      "custom:base=B200,round=rne",
      "custom:base=A100,block=4",
      "custom:base=A100,frac=27",
      "custom:base=L40S,floor=-120",
      "custom:base=MI300X,late_rd=single_stage",
      "custom:base=MI300X,cutoff=30",
      "custom:base=MI250,pair_group=2",
      "custom:base=V100,out_sub=0,flush_sign=keep",
      "custom:base=H100,c=late_rne",
      "custom:in=fp16,out=fp32,block=8,frac=24,floor=-132,round=rz",
      "custom:in=bf16,out=fp32,block=4,frac=26,round=rd,product=normalised",
      "custom:in=bf16,out=fp32,k=8,block=8,c=late_rd,zero_c=-120,frac=24,round=rne",
  };
  for (const char* s : specs) {
    CAPTURE(s);
    const Model m = lookup_model(s);
    for (const ModelRow& r : m.rows) check_case({m.name, r});
  }
}

namespace {
// Every detected value (n/a included) as one string.
std::string summary(const Features& f) {
  std::ostringstream os;
  print(os, f, "");
  std::string s = os.str();
  // Drop the evidence notes and the call count: only the values matter.
  std::string out;
  std::istringstream is(s);
  std::string line;
  std::getline(is, line);
  while (std::getline(is, line)) out += line.substr(0, line.find('[')) + "\n";
  return out;
}
}  // namespace

TEST_CASE("units that compute differently get different feature reports") {
  // The probe separates every pair of distinct registry units with the same
  // interface: if two rows give different outputs, their reports differ.
  const auto cases = registry_cases();
  std::vector<std::string> sums;
  std::vector<std::vector<Vec>> vecs;
  for (const Case& c : cases) {
    auto rec = std::make_shared<Recorded>();
    sums.push_back(summary(detect(recording_box(c.row, rec))));
    vecs.push_back(rec->vecs);
    const auto more = random_vectors(c.row, 200, 777u);
    vecs.back().insert(vecs.back().end(), more.begin(), more.end());
  }
  int pairs = 0;
  for (std::size_t i = 0; i < cases.size(); ++i)
    for (std::size_t j = i + 1; j < cases.size(); ++j) {
      const ModelRow &a = cases[i].row, &b = cases[j].row;
      if (a.in != b.in || a.out != b.out || a.k != b.k) continue;
      if (differ(a, b, vecs[i]).empty() && differ(a, b, vecs[j]).empty()) continue;
      ++pairs;
      INFO(label(cases[i]), " vs ", label(cases[j]));
      CHECK(sums[i] != sums[j]);
    }
  CHECK(pairs > 20);
}

TEST_CASE("the probe does not see through a wrong interface") {
  // A unit that ignores its inputs entirely: nothing may be detected as a
  // block FMA, and the test vectors' contradictions are reported.
  BlackBox box;
  box.in = Fmt::fp16;
  box.out = Fmt::fp32;
  box.k = 8;
  box.dot = [](const uint64_t*, const uint64_t*, uint64_t) { return uint64_t{0x3F800000}; };
  const Features f = detect(box);
  CHECK(!f.accum.known);
  CHECK(!f.anomalies.empty());
}
