// SPDX-License-Identifier: BSD-3-Clause
// custom: keys of the block-scaled units (src/models/scaled_fields.h): each
// bs_ key, set to the base's own value, leaves every bit alone, and set to
// another value changes bits through the C API on a unit that reads it;
// bad values, keys without a base or without a unit are refused; the
// checked-in dump of every unit and docs/block-scaled.md's key list equal the
// table.
#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "api_test_util.h"
#include "mmaemu/mmaemu.h"
#include "models/model.h"
#include "models/scaled_fields.h"

namespace {

using api_test::Handle;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Random element codes of format f (every finite code), scale codes over
// +-20 binades (ue8m0) or every finite nonzero ue4m3, C over 80 binades or
// zero: sums
// whose terms span more than the window, so F, rounding and alignment show.
uint8_t random_code(std::mt19937& rng, mmaemu_format f) {
  for (;;) {
    const uint8_t x = rng() & 0xFF;
    switch (f) {
      case MMAEMU_E4M3: if ((x & 0x7F) != 0x7F) return x; break;
      case MMAEMU_E5M2: if ((x & 0x7C) != 0x7C) return x; break;
      case MMAEMU_E2M1: return x & 0x0F;
      default: return x & 0x3F;  // e3m2, e2m3
    }
  }
}
uint8_t random_scale(std::mt19937& rng, mmaemu_format s) {
  if (s == MMAEMU_UE8M0) return static_cast<uint8_t>(107 + rng() % 41);
  return static_cast<uint8_t>(0x08 + rng() % (0x7F - 0x08));
}

// C = A*B + C (into-c), row-major, m x n x k, on the unit of the policy's
// formats. `tiny`: A holds only subnormal (fp6/fp4) codes and C = 0, so the
// largest alignment exponent comes from subnormal products (where
// bs_subnormals acts, docs/block-scaled.md §1.3).
std::vector<uint32_t> gemm_bits(const char* model, const char* policy, int m, int n, int k, uint32_t seed,
                                bool tiny = false) {
  Handle h(model);
  mmaemu_block_scale_desc d;
  REQUIRE(mmaemu_parse_block_scaled_policy(policy, &d) == MMAEMU_OK);
  d.accumulate = MMAEMU_ACC_INTO_C;
  std::mt19937 rng(seed);
  const int kb = k / d.block_size;
  std::vector<uint8_t> A(size_t(m) * k), B(size_t(k) * n), SA(size_t(m) * kb), SB(size_t(kb) * n);
  for (uint8_t& x : A) x = random_code(rng, d.a_format);
  for (uint8_t& x : B) x = random_code(rng, d.b_format);
  for (uint8_t& x : SA) x = random_scale(rng, d.scale_format);
  for (uint8_t& x : SB) x = random_scale(rng, d.scale_format);
  std::normal_distribution<float> normal;
  std::vector<float> C(size_t(m) * n);
  for (float& c : C) c = rng() % 4 ? std::ldexp(normal(rng), static_cast<int>(rng() % 81) - 40) : 0.0f;
  if (tiny) {
    const uint8_t subnormal_mask = d.a_format == MMAEMU_E2M3 ? 0x27 : d.a_format == MMAEMU_E3M2 ? 0x23 : 0x09;
    for (uint8_t& x : A) x &= subnormal_mask;  // sign and fraction: exponent field 0
    std::fill(C.begin(), C.end(), 0.0f);
  }
  REQUIRE_MESSAGE(mmaemu_gemm_block_scaled(h.m, &d, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, m, n, k,
                                           1.0f, A.data(), k, SA.data(), kb, B.data(), n, SB.data(), n, 1.0f,
                                           C.data(), n) == MMAEMU_OK,
                  mmaemu_last_error());
  std::vector<uint32_t> bits;
  for (float c : C) bits.push_back(std::bit_cast<uint32_t>(c));
  return bits;
}

// One fp16-output instruction of the unscaled unit (e4m3 x e4m3), C = +0.
std::vector<uint16_t> tile_f16_bits(const char* model, uint32_t seed) {
  Handle h(model);
  mmaemu_block_scale_desc d;
  mmaemu_block_scale_desc_init(&d);
  d.block_size = 0;
  int m = 0, n = 0, k = 0;
  REQUIRE(mmaemu_tile_block_scaled_shape(h.m, &d, &m, &n, &k, nullptr) == MMAEMU_OK);
  std::mt19937 rng(seed);
  std::vector<uint8_t> A(size_t(m) * k), B(size_t(k) * n);
  for (uint8_t& a : A) a = (rng() & 0xFF) % 0x77;  // finite, exponents up to 2^7
  for (uint8_t& b : B) b = (rng() & 0xFF) % 0x77 | (rng() & 0x80);
  std::vector<uint16_t> C(size_t(m) * n, 0), D(size_t(m) * n);
  REQUIRE_MESSAGE(mmaemu_tile_block_scaled(h.m, &d, MMAEMU_FP16, A.data(), nullptr, B.data(), nullptr, C.data(),
                                           D.data()) == MMAEMU_OK,
                  mmaemu_last_error());
  return D;
}

std::string error_of(const char* spec) {
  mmaemu_model* m = nullptr;
  const int status = mmaemu_model_lookup(spec, &m);
  mmaemu_model_free(m);
  return status == MMAEMU_OK ? "" : mmaemu_last_error();
}

struct KeyCase {
  const char* with;  // keys both models share
  const char* key;
  const char* same;   // the base's value: bits unchanged
  const char* other;  // another value: some bit changes
  const char* policy; // the formats (as the sgemm policy) of a unit that reads it; null: the fp16 tile
};
constexpr KeyCase kCases[] = {
    {"", "bs_k", "32", "64", "mxfp8"},          {"", "bs_k", "64", "128", "nvfp4"},
    // F = 35 keeps 11 bits below fp32's: a window of 25 lets a group's split show
    {"bs_frac=25,", "bs_group", "16", "8", "nvfp4"}, {"", "bs_group", "16", "4", "mxfp4"},
    {"", "bs_frac", "25", "20", "mxfp8"},       {"", "bs_frac", "35", "24", "nvfp4"},
    {"", "bs_e_zero", "-133", "20", "mxfp6"},   {"", "bs_e_zero", "-139", "20", "nvfp4"},
    {"", "bs_round", "rz", "rne", "mxfp8:e5m2"}, {"", "bs_round", "rz", "rd", "mxfp4"},
    // a window of 4 bits, so that a lower largest exponent keeps more bits
    {"bs_frac=4,", "bs_subnormals", "clamp", "normalize", "mxfp6"},
    {"bs_frac=4,", "bs_subnormals", "clamp", "normalize", "mxfp6:e3m2"},
    {"", "bs_e_zero_f16", "-133", "20", nullptr}, {"", "bs_round16", "rne", "rz", nullptr},
};

}  // namespace

TEST_CASE("custom: bs_ keys: the base's value keeps the bits, another value changes them") {
  for (const KeyCase& c : kCases) {
    const std::string base_spec = std::string("custom:base=B200,") + c.with;
    const std::string same = base_spec + c.key + "=" + c.same, other = base_spec + c.key + "=" + c.other;
    const bool tiny = std::string_view(c.key) == "bs_subnormals";
    CAPTURE(other);
    CAPTURE(c.policy ? c.policy : "fp16 tile");
    if (c.policy) {
      const std::string base_model = *c.with ? base_spec.substr(0, base_spec.size() - 1) : "B200";
      const auto base = gemm_bits(base_model.c_str(), c.policy, 24, 24, 128, 7, tiny);
      CHECK(gemm_bits(same.c_str(), c.policy, 24, 24, 128, 7, tiny) == base);
      CHECK(gemm_bits(other.c_str(), c.policy, 24, 24, 128, 7, tiny) != base);
    } else {
      const auto base = tile_f16_bits("B200", 11);
      CHECK(tile_f16_bits(same.c_str(), 11) == base);
      CHECK(tile_f16_bits(other.c_str(), 11) != base);
    }
  }
}

TEST_CASE("custom: bs_round=rne on B200 gives B200-RN's block-scaled bits") {
  for (const char* policy : {"mxfp8", "mxfp6:e3m2", "mxfp4", "nvfp4"}) {
    CAPTURE(policy);
    CHECK(gemm_bits("custom:base=B200,bs_round=rne", policy, 16, 16, 96, 3) ==
          gemm_bits("B200-RN", policy, 16, 16, 96, 3));
  }
}

TEST_CASE("custom: bs_ keys refused: bad values, no base, no unit, broken rules") {
  const struct {
    const char* spec;
    const char* says;
  } cases[] = {
      {"custom:base=B200,bs_frac=41", "invalid value '41' for 'bs_frac' (valid: an integer in 1..40)"},
      {"custom:base=B200,bs_k=257", "invalid value '257' for 'bs_k'"},
      {"custom:base=B200,bs_e_zero=-301", "invalid value '-301' for 'bs_e_zero'"},
      {"custom:base=B200,bs_round=up", "valid: rne, rz, rd, ru, rna"},
      {"custom:base=B200,bs_subnormals=flush", "valid: clamp, normalize"},
      {"custom:base=B200,bs_group=7", "bs_group=7 does not divide the block 32"},
      {"custom:base=B200,bs_k=48", "bs_k=48 is not a multiple of the block 32"},
      {"custom:base=H100,bs_frac=20", "H100 has no block-scaled or fp4/fp6 unit"},
      {"custom:in=fp16,out=fp32,bs_frac=20", "name a base model that has them"},
      {"custom:base=B200,bs_frac=20,bs_frac=21", "key 'bs_frac' given twice"},
      {"custom:base=B200,bs_fraction=20", "bs_frac, bs_e_zero"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.spec);
    CHECK(error_of(c.spec).find(c.says) != std::string::npos);
  }
}

TEST_CASE("policies refused on a custom model whose base has no block-scaled unit name the models that have") {
  Handle h("custom:base=H100,round=rne");
  std::vector<float> A(32, 1.0f), B(32, 1.0f), C(1, 0.0f);
  CHECK(mmaemu_sgemm_block_scaled(h.m, "nvfp4", MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, 1, 1, 32, 1.0f,
                                  A.data(), 32, B.data(), 1, 0.0f, C.data(), 1) == MMAEMU_ERR_UNSUPPORTED);
  CHECK(std::string(mmaemu_last_error()).find("B200") != std::string::npos);
}

TEST_CASE("the checked-in dump of every block-scaled unit equals the registry") {
  const std::string want = read_text(MMAEMU_SOURCE_DIR "/tests/models/scaled_rows.txt");
  CHECK_MESSAGE(mmaemu::scaled_fields::dump_units() == want,
                "a block-scaled unit changed: review it and regenerate tests/models/scaled_rows.txt "
                "(the units part of mmaemu models --dump)");
}

TEST_CASE("docs/block-scaled.md's key list is the field table's") {
  const std::string doc = read_text(MMAEMU_SOURCE_DIR "/docs/block-scaled.md");
  const std::string begin = "<!-- scaled-keys: mmaemu models --keys --markdown -->\n", end = "<!-- /scaled-keys -->";
  const std::size_t b = doc.find(begin), e = doc.find(end);
  REQUIRE(b != std::string::npos);
  REQUIRE(e != std::string::npos);
  CHECK(doc.substr(b + begin.size(), e - b - begin.size()) == mmaemu::scaled_fields::describe_keys(true));
}

TEST_CASE("hw_checked: a unit a custom: key changes reports 0, as B200-RN's; one left as the base's keeps it") {
  // What mmaemu models prints (scaled_fields::read_params) for each unit.
  auto checked = [](const char* model) {
    std::string flags;
    for (const mmaemu::ScaledUnit& u : mmaemu::lookup_model(model).scaled) {
      const std::string params = mmaemu::scaled_fields::read_params(u);
      const bool one = params.find(" hw_checked=1") != std::string::npos;
      const bool zero = params.find(" hw_checked=0") != std::string::npos;
      REQUIRE_MESSAGE(one != zero, params);
      flags += one ? '1' : '0';
    }
    return flags;
  };
  // B200's units: T-FDPA, ST-FDPA, then four GST-FDPA.
  CHECK(checked("B200") == "111111");
  CHECK(checked("B200-RN") == "000000");
  CHECK(checked("custom:base=B200,bs_round=rne") == "000000");
  CHECK(checked("custom:base=B200,bs_round=rz") == "111111");             // the base's own value
  CHECK(checked("custom:base=B200,round=rne") == "111111");               // block-FMA rows only
  CHECK(checked("custom:base=B200,bs_subnormals=normalize") == "001111");  // GST reads no bs_subnormals
  CHECK(checked("custom:base=B200,bs_frac=25") == "110000");               // T and ST have 25, GST 35
}
