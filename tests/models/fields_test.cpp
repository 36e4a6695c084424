// SPDX-License-Identifier: BSD-3-Clause
// The field table (src/models/fields.h): every key either changes bits on
// every accumulation path that accepts it, or is refused; registry rows hold
// the fixed value in every field their path does not read; the checked-in
// dump of every row and docs/models.md's key list equal the table.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/hex.h"
#include "models/fields.h"
#include "lookup_error.h"
#include "models/model.h"
#include "ref/reference.h"

using namespace mmaemu;

namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Random bit patterns of format f: uniform fields, exponents in a narrow
// window around a random centre (so alignment, floors, subnormal and tiny
// sums are reached), or mostly zeros.
struct Inputs {
  std::mt19937_64 rng;
  int centre = 0;

  uint64_t pattern(Fmt f, int mode) {
    const FormatInfo& in = info(f);
    if (in.is_integer()) {  // uniform codes; mode 1: near the extremes (overflow); mode 2: mostly 0
      const uint64_t all = (uint64_t{1} << in.width) - 1, top = uint64_t{1} << (in.width - 1);
      if (mode == 2 && rng() % 4 != 0) return 0;
      if (mode == 1) return (rng() % 2 ? top + rng() % 4 : top - 1 - rng() % 4) & all;  // MIN.. or ..MAX
      return rng() & all;
    }
    const int top = (1 << in.exp_bits) - 1;
    if (mode == 2 && rng() % 4 != 0) return (rng() % 2) << (in.width - 1);  // +-0
    int e = static_cast<int>(rng() % top);  // no Inf/NaN exponent: specials hide the sums
    if (mode != 0) e = std::clamp(centre * top / 16 + static_cast<int>(rng() % 5) - 2, 0, top - 1);
    const uint64_t man = rng() & ((uint64_t{1} << in.man_bits) - 1);
    return ((rng() % 2) << (in.width - 1)) | (uint64_t(e) << (in.man_bits + in.frac_shift)) | (man << in.frac_shift);
  }
  void fill(Fmt f, std::vector<uint64_t>& v, int mode) {
    for (uint64_t& x : v) x = pattern(f, mode);
  }
};

// Hand-made inputs for effects random ones rarely reach (in, then c, then
// the nonzero a_i, b_i; every other input 0):
struct Case {
  Fmt in;
  uint64_t c;
  std::vector<std::pair<uint64_t, uint64_t>> ab;
};
const Case kCases[] = {
    // c = -1 dominating, a*b = 2^-25 + 2^-32: RD to 32 bits then 31 below
    // the leading one keeps the 2^-32 that one RD to 31 bits drops, and
    // RNE then sees below or at a tie (late_rd two_stage vs single_stage).
    {Fmt::fp16, 0xBF800000, {{0x0808, 0x0C00}}},
    // c = 0 at 2^-126 dominating bf16 products 2^-127, 2^-150 (a tie at the
    // fp32 subnormal grid) and 2^-155 (below the F window): the exact sum
    // rounds up, the truncated one to even (late_exact_zero_c).
    {Fmt::bf16, 0, {{0x1F80, 0x2000}, {0x1A00, 0x1A00}, {0x1880, 0x1900}}},
    // -0 products and a negative subnormal c flushed with or without its
    // sign (flush_sign on the pairwise path); two steps of four.
    {Fmt::fp16, 0x80000001, std::vector<std::pair<uint64_t, uint64_t>>(8, {0x8000, 0})},
    {Fmt::bf16, 0x80000001, std::vector<std::pair<uint64_t, uint64_t>>(8, {0x8000, 0})},
    // -0 products (-0 * 1) and c = -0: -0 under IEEE, +0 where -0 reads as
    // +0 (neg_zero on the pairwise path).
    {Fmt::fp16, 0x80000000, std::vector<std::pair<uint64_t, uint64_t>>(8, {0x8000, 0x3C00})},
};

std::string hand_made_difference(const ModelRow& a, const ModelRow& b) {
  if (a.out != Fmt::fp32) return "";
  const std::size_t k = 2 * std::max(ref::step_k(a), ref::step_k(b));
  for (const Case& t : kCases) {
    if (t.in != a.in || t.ab.size() > k) continue;
    std::vector<uint64_t> x(k, 0), y(k, 0);
    for (std::size_t i = 0; i < t.ab.size(); ++i) x[i] = t.ab[i].first, y[i] = t.ab[i].second;
    const uint64_t da = ref::dot(a, k, x.data(), y.data(), t.c), db = ref::dot(b, k, x.data(), y.data(), t.c);
    if (da != db) return "hand-made case: " + hex(da) + " vs " + hex(db);
  }
  return "";
}

// Searches inputs on which the two rows give different bits: dot products
// of two steps (tile products for the shape keys). Returns a description of
// the first difference, or "" if none was found.
std::string first_difference(const ModelRow& a, const ModelRow& b, bool shape, uint64_t seed) {
  if (!shape)
    if (std::string d = hand_made_difference(a, b); !d.empty()) return d;
  Inputs g{std::mt19937_64(seed)};
  const std::size_t k = 2 * std::max(ref::step_k(a), ref::step_k(b));
  std::vector<uint64_t> x(shape ? 64 * 64 : k), y(x.size()), c(shape ? 64 * 64 : 1);
  for (int trial = 0; trial < 4000; ++trial) {
    const int mode = trial % 3;
    g.centre = static_cast<int>(g.rng() % 17);
    g.fill(a.in, x, mode);
    g.fill(a.in, y, mode);
    if (trial % 8 == 7) x[g.rng() % x.size()] = ~uint64_t{0} >> (64 - info(a.in).width);  // NaN
    if (trial % 8 == 3) x[g.rng() % x.size()] = uint64_t{1} << (info(a.in).width - 1);   // -0 or fnuz NaN
    g.fill(a.out, c, trial % 2 ? 2 : 1);
    if (trial % 4 == 1) {  // c of the products' size: a dot product of other inputs
      std::vector<uint64_t> p(x.size()), q(x.size());
      g.fill(a.in, p, mode);
      g.fill(a.in, q, mode);
      c[0] = ref::dot(a, k, p.data(), q.data(), 0);
    }
    if (shape) {
      std::vector<uint64_t> da(a.m * a.n), db(b.m * b.n);
      ref::tile(a, x.data(), y.data(), c.data(), da.data());
      ref::tile(b, x.data(), y.data(), c.data(), db.data());
      if (da != db) return "tile differs at trial " + std::to_string(trial);
      continue;
    }
    const uint64_t da = ref::dot(a, k, x.data(), y.data(), c[0]);
    const uint64_t db = ref::dot(b, k, x.data(), y.data(), c[0]);
    if (da != db) return "trial " + std::to_string(trial) + ": " + hex(da) + " vs " + hex(db);
  }
  return "";
}

// One registry row per (path, c, grouping, in, out), and each aligned,
// exact and pairwise one again with out_sub=0 (so flush_sign is reached),
// and a narrow-window fp8 row (so fp16 conversion shows).
std::vector<ModelRow> representative_rows() {
  std::vector<ModelRow> reps = lookup_model("custom:in=e4m3,out=fp32,block=4,frac=4,k=8").rows;
  // A .satfinite integer unit, so that sat_point is reached.
  reps.push_back(lookup_model("custom:in=s8,out=s32,accum=integer,k=16,overflow=satfinite").integer.at(0));
  std::map<std::string, bool> seen;
  for (const ModelRow& r : rows()) {
    const std::string id = std::string(fields::path_name(r.accum) ) + "/" +
                           std::to_string(int(r.c)) + "/" + std::to_string(int(r.grouping)) + "/" +
                           info(r.in).name + "/" + info(r.out).name;
    if (seen[id]) continue;
    seen[id] = true;
    reps.push_back(r);
    if (r.accum != Accumulation::fma_chain && r.accum != Accumulation::integer && r.out_sub) {
      ModelRow f = r;
      apply_overrides(f, "out_sub=0");
      reps.push_back(f);
    }
  }
  return reps;
}

}  // namespace

// For each path and key: every sample value on every representative row of
// the path is refused, or some accepted value changes the bits on some
// input of some row. (A value can be a no-op for one format, e.g. floor=-133
// with fp16 products, which never lie below 2^-48; the key on its path
// cannot.)
TEST_CASE("every key, on every accumulation path: refused, or it changes bits") {
  std::map<std::string, std::map<std::string, std::string>> seen;  // path -> key -> outcome
  uint64_t seed = 1;
  for (const ModelRow& row : representative_rows()) {
    const std::string path = fields::path_name(row.accum);
    for (const fields::Field& f : fields::table()) {
      if (!f.parse || seen[path][f.key].find('d') != std::string::npos) continue;
      std::istringstream samples(f.samples);
      std::string tried;
      bool changed_bits = false;
      for (std::string value; samples >> value && !changed_bits; ++seed) {
        if (f.print(row) == value) continue;
        ModelRow changed = row;
        try {
          apply_overrides(changed, std::string(f.key) + "=" + value);
        } catch (const std::invalid_argument&) {
          seen[path][f.key] += "r";
          continue;
        }
        const std::string key = f.key;
        if (key == "in" || key == "out") {  // the same bits mean other numbers
          tried += " " + key + "=" + value;
          changed_bits = true;
          continue;
        }
        const std::string diff = first_difference(row, changed, key == "m" || key == "n" || key == "k", seed);
        tried += " " + key + "=" + value + " (seed " + std::to_string(seed) + ")";
        changed_bits = !diff.empty();
      }
      if (tried.empty()) continue;  // every value refused (or the row's own)
      if (!changed_bits)
        MESSAGE("no change on row " << std::string(info(row.in).name) << "->" << std::string(info(row.out).name)
                                    << " " << std::string(row.instr) << ", tried" << tried);
      seen[path][f.key] += changed_bits ? "d" : "!";
    }
  }
  for (const char* path : {"aligned", "exact", "pairwise", "fma", "integer"})
    for (const fields::Field& f : fields::table())
      if (f.parse) {
        const std::string& outcome = seen[path][f.key];  // r: refused, d: changed bits, !: neither
        INFO(std::string(path) << " path, key " << std::string(f.key) << ": " << outcome);
        CHECK(!outcome.empty());
        CHECK((outcome.find('d') != std::string::npos || outcome.find('!') == std::string::npos));
      }
}

TEST_CASE("four keys that would change nothing on their path are refused, saying what the path does instead") {
  const std::pair<const char*, const char*> cases[] = {
      {"custom:base=MI250,round=rz", "rounds every product and addition to nearest-even"},
      {"custom:base=MI100,c=last", "sums c with the products exactly"},
      {"custom:base=MI100,frac=10", "sums exactly, with no alignment window"},
      {"custom:base=MI250,c=early", "adds c after the tree"},
  };
  for (auto [spec, what] : cases) {
    CAPTURE(spec);
    const std::string e = error_of(spec);
    CHECK(e.find("is refused: no row of") != std::string::npos);
    CHECK(e.find(what) != std::string::npos);
  }
  // Applied where read: the DMMA row of A100 does not read frac.
  const Model a100 = lookup_model("custom:base=A100,frac=27");
  for (const ModelRow& r : a100.rows) CHECK(r.frac == (r.accum == Accumulation::aligned ? 27 : 23));
}

TEST_CASE("registry rows hold the fixed value in every field their path does not read") {
  for (const ModelRow& r : rows()) {
    CAPTURE(r.instr);
    CAPTURE(info(r.in).name);
    CHECK_NOTHROW(fields::check_row(r));
    ModelRow reset = r;
    fields::reset_unread(reset);
    CHECK(fields::dump_row(reset) == fields::dump_row(r));
  }
}

TEST_CASE("the checked-in dump of every row equals the registry") {
  const std::string want = read_text(MMAEMU_SOURCE_DIR "/tests/models/rows.txt");
  CHECK_MESSAGE(fields::dump_rows() == want,
                "a registry row changed: review it and run mmaemu models --dump > tests/models/rows.txt");
}

TEST_CASE("docs/models.md's key list is the field table's") {
  const std::string readme = read_text(MMAEMU_SOURCE_DIR "/docs/models.md");
  const std::string begin = "<!-- custom-keys: mmaemu models --keys --markdown -->\n", end = "<!-- /custom-keys -->";
  const std::size_t b = readme.find(begin), e = readme.find(end);
  REQUIRE(b != std::string::npos);
  REQUIRE(e != std::string::npos);
  CHECK(readme.substr(b + begin.size(), e - b - begin.size()) == fields::describe_keys(true));
}

TEST_CASE("custom: values are range-checked so no engine path overflows") {
  for (const char* spec : {"custom:base=A100,floor=2147483647", "custom:base=MI300X,zero_c=2147483647",
                           "custom:base=MI300X,cutoff=2147483647", "custom:base=A100,frac=41",
                           "custom:base=A100,block=0", "custom:base=A100,k=100000", "custom:base=A100,m=0",
                           "custom:base=A100,floor=-301", "custom:base=A100,nan32=0x7f800000",
                           "custom:base=V100,nan16=0x17e00", "custom:base=A100,pair_group=3",
                           "custom:base=A100,out_frac=-2", "custom:base=A100,floor=99999999999999999999"}) {
    CAPTURE(spec);
    CHECK(error_of(spec).find("invalid value") != std::string::npos);
  }
  CHECK(error_of("custom:base=A100,floor=300").empty());
  CHECK(error_of("custom:base=MI300X,zero_c=-300").empty());
}

TEST_CASE("fp6, fp4 and scale formats are refused on a generic row (block-scaled units only)") {
  for (const char* spec : {"custom:in=e2m1,out=fp32", "custom:in=e3m2,out=fp32", "custom:in=e2m3,out=fp32",
                           "custom:in=fp16,out=ue8m0", "custom:base=B200,in=ue4m3"}) {
    CAPTURE(spec);
    CHECK(error_of(spec).find("invalid value") != std::string::npos);
  }
}

TEST_CASE("a custom model names a base or a whole row; keys are given once") {
  for (const char* spec : {"custom:", "custom:out=fp32", "custom:in=fp16", "custom:block=4"})
    CHECK(error_of(spec).find("needs a base model") != std::string::npos);
  CHECK(error_of("custom:in=fp16,out=fp32").empty());
  CHECK(error_of("custom:base=H100,round=rz,round=rne").find("'round' given twice") != std::string::npos);
  CHECK(error_of("custom:base=H100,base=A100").find("'base' given twice") != std::string::npos);
  CHECK(error_of("custom:base=H100,colour=red").find("unknown key 'colour'") != std::string::npos);
}

TEST_CASE("MODEL@INSTR: at most one @, and no recursion on many") {
  CHECK(error_of(std::string("B200") + std::string(30000, '@')).find("at most one @INSTR") != std::string::npos);
  CHECK(error_of("B200@mma.sync@wgmma").find("at most one @INSTR") != std::string::npos);
  CHECK(lookup_model("B200@mma.sync").rows.size() > 0);
}

TEST_CASE("k that breaks the interleaved rows names the rule, not a made-up one") {
  const std::string e = error_of("custom:base=H100,k=64");
  CHECK(e.find("grouping=pair_interleave chains two blocks per instruction, so k must be 2*block") !=
        std::string::npos);
  CHECK(e.find("k=64, block=16") != std::string::npos);
  CHECK(error_of("custom:base=H100,k=100000").find("valid: an integer in 1..1024") != std::string::npos);
}

TEST_CASE("a path switch resets the fields the new path does not read") {
  const Model m = lookup_model("custom:base=A2,accum=exact");
  for (const ModelRow& r : m.rows) {
    if (r.accum != Accumulation::exact) continue;
    CHECK(r.frac == 23);
    CHECK(r.floor == kNoFloor);
    CHECK_NOTHROW(fields::check_row(r));
  }
}
