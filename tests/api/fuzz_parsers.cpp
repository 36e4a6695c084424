// SPDX-License-Identifier: BSD-3-Clause
// A bounded random driver (a fuzzer without libFuzzer, so that it runs in
// every CI build, plain and ASan+UBSan) for the text parsers behind the C
// API: model names (aliases, MODEL@INSTR, custom:key=value,...) through
// mmaemu_model_lookup, and sgemm input policies through mmaemu_parse_policy.
//
// Inputs are random sequences of the grammar's tokens (names, keys, values
// at the integer limits, separators) and random bytes, up to 48 tokens.
// A finding is a crash, a sanitizer report, an exception other than
// invalid_argument (the C API maps it to MMAEMU_ERR_INTERNAL), a status
// outside the documented ones, an error without a message, or an accepted
// model the API cannot describe (no name, no tile shape for its own rows).
//
//   fuzz_parsers [SECONDS]   budget (default 3 s); MMAEMU_FUZZ_SEED sets the
//                            seed (default 10), MMAEMU_FUZZ_TRACE=1 prints
//                            each input before it runs (to find a crash).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "mmaemu/mmaemu.h"

namespace {

const std::vector<std::string> kModelTokens = {
    "V100", "A100", "A2", "A30", "L40S", "RTX1000", "H100", "H200", "B200", "B200-RN", "RTXPRO6000", "MI100",
    "MI210", "MI250", "MI300A", "MI300X", "gfx90a", "gfx942", "h100", "custom:", "custom", "base=", "@",
    "mma.sync", "wgmma", "tcgen05.mma", "v_mfma_f32_16x16x16f16", ",", "=", ":", "", " "};
const std::vector<std::string> kKeys = {
    "accum", "as_fp16", "base", "block", "c", "cutoff", "floor", "flush_sign", "frac", "grouping", "in", "in_sub",
    "k", "late_exact_zero_c", "late_round", "m", "n", "nan16", "nan32", "out", "out_frac", "out_sub", "pair_group",
    "product", "prd_ovf", "round", "zero_c"};
const std::vector<std::string> kValues = {
    "0", "1", "2", "4", "8", "16", "32", "-1", "-133", "23", "25", "2147483647", "-2147483648", "4294967296",
    "99999999999999999999", "0x7FFF", "1e3", "", "fp16", "bf16", "tf32", "fp32", "fp64", "e4m3", "e5m2",
    "rne", "rz", "rd", "ru", "rna", "aligned", "exact", "pairwise", "fma", "early", "late_rd", "late_rne",
    "last", "contiguous", "odd_even", "pair_interleave", "two_stage", "single_stage", "positive", "keep",
    "denormalised", "normalised", "true", "false", "yes", "no", "on", "off", "none", "ignore"};
const std::vector<std::string> kPolicyTokens = {
    "fp16", "bf16", "tf32", "xf32", "e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz", "fp8", "bf8", "fp32", "fp64",
    ":", "rne", "rz", "rna", "rd", "FP16", "TF32:RNA", "", " ", "::"};

struct Fuzzer {
  std::mt19937_64 rng;
  std::size_t findings = 0, accepted = 0;

  std::size_t below(std::size_t n) { return static_cast<std::size_t>(rng() % n); }
  const std::string& pick(const std::vector<std::string>& v) { return v[below(v.size())]; }

  std::string random_bytes() {
    std::string s;
    for (std::size_t i = below(4) + 1; i > 0; --i) s += static_cast<char>(1 + below(255));  // no NUL
    return s;
  }

  std::string model_name() {
    if (below(2)) {  // mostly well formed: custom:base=M,key=value,... (an alias or @INSTR now and then)
      std::string s = below(8) ? "custom:base=" + pick(kModelTokens) : pick(kModelTokens);
      for (std::size_t t = below(7); t > 0; --t) s += "," + pick(kKeys) + "=" + pick(kValues);
      if (below(8) == 0) s += "@" + pick(kModelTokens);
      return s;
    }
    std::string s;
    if (below(3) == 0) s = "custom:base=" + pick(kModelTokens);
    for (std::size_t t = below(48); t > 0; --t) {
      switch (below(6)) {
        case 0: s += pick(kModelTokens); break;
        case 1: s += "," + pick(kKeys) + "=" + pick(kValues); break;
        case 2: s += pick(kKeys); break;
        case 3: s += pick(kValues); break;
        case 4: s += random_bytes(); break;
        default: s += "@" + pick(kModelTokens); break;
      }
    }
    return s;
  }

  std::string policy() {
    std::string s;
    for (std::size_t t = below(5); t > 0; --t) s += below(8) ? pick(kPolicyTokens) : random_bytes();
    return s;
  }

  void finding(const char* what, const std::string& input, int status) {
    if (++findings > 10) return;
    std::string shown;
    for (unsigned char ch : input) {
      char buf[8];
      std::snprintf(buf, sizeof buf, ch >= 32 && ch < 127 ? "%c" : "\\x%02X", ch);
      shown += buf;
    }
    std::fprintf(stderr, "FINDING: %s; input \"%s\"; status %d; message \"%s\"\n", what, shown.c_str(), status,
                 mmaemu_last_error());
  }

  static bool documented(int status) {
    return status == MMAEMU_OK || status == MMAEMU_ERR_ARGUMENT || status == MMAEMU_ERR_UNKNOWN_MODEL;
  }

  void one_model(const std::string& name) {
    mmaemu_model* model = nullptr;
    const int status = mmaemu_model_lookup(name.c_str(), &model);
    if (!documented(status)) return finding("undocumented status of mmaemu_model_lookup", name, status);
    if (status != MMAEMU_OK) {
      if (model) finding("a model despite an error", name, status);
      if (!*mmaemu_last_error()) finding("an error without a message", name, status);
      return;
    }
    if (!model) return finding("no model despite MMAEMU_OK", name, status);
    ++accepted;
    const char* shown = mmaemu_model_name(model);
    if (!shown || !*shown) finding("an accepted model without a name", name, status);
    // Every (input, output) pair: a shape or a documented refusal.
    for (int in = MMAEMU_FP64; in <= MMAEMU_E5M2FNUZ; ++in)
      for (int out : {MMAEMU_FP16, MMAEMU_FP32, MMAEMU_FP64}) {
        int m = 0, n = 0, k = 0;
        const int s = mmaemu_tile_shape(model, static_cast<mmaemu_format>(in), static_cast<mmaemu_format>(out), &m,
                                        &n, &k);
        if (s == MMAEMU_OK && (m <= 0 || n <= 0 || k <= 0)) finding("a tile shape that is not positive", name, s);
        if (s != MMAEMU_OK && s != MMAEMU_ERR_UNSUPPORTED) finding("undocumented status of mmaemu_tile_shape", name, s);
      }
    mmaemu_model_free(model);
  }

  void one_policy(const std::string& p) {
    mmaemu_gemm_options opt;
    mmaemu_gemm_options_init(&opt);
    const int status = mmaemu_parse_policy(p.c_str(), &opt);
    if (status != MMAEMU_OK && status != MMAEMU_ERR_ARGUMENT)
      finding("undocumented status of mmaemu_parse_policy", p, status);
    if (status == MMAEMU_ERR_ARGUMENT && !*mmaemu_last_error()) finding("an error without a message", p, status);
  }
};

}  // namespace

int main(int argc, char** argv) {
  const double budget = argc > 1 ? std::atof(argv[1]) : 3.0;
  const char* seed_env = std::getenv("MMAEMU_FUZZ_SEED");
  const unsigned long long seed = seed_env ? std::strtoull(seed_env, nullptr, 10) : 10ull;
  const bool trace = std::getenv("MMAEMU_FUZZ_TRACE") != nullptr;
  Fuzzer fz{std::mt19937_64(seed)};
  const auto start = std::chrono::steady_clock::now();
  std::size_t models = 0, policies = 0;
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < budget) {
    for (int i = 0; i < 64; ++i) {
      const std::string name = fz.model_name(), p = fz.policy();
      if (trace) std::fprintf(stderr, "model '%s' policy '%s'\n", name.c_str(), p.c_str());
      fz.one_model(name);
      fz.one_policy(p);
      ++models, ++policies;
    }
  }
  std::printf("fuzz_parsers: seed %llu, %zu model names (%zu accepted) and %zu policies in %.1f s, %zu findings\n",
              seed, models, fz.accepted, policies, budget, fz.findings);
  return fz.findings != 0;
}
