// SPDX-License-Identifier: BSD-3-Clause
// The C API (include/mmaemu/mmaemu.h): argument checks, name parsing, and
// translation to the driver. Every exception stops here.
#include <cctype>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <new>
#include <stdexcept>
#include <string>

#include "api/api_error.h"
#include "api/enum_args.h"
#include "api/gemm_args.h"
#include "api/model_of.h"
#include "driver/batch.h"
#include "driver/gemm.h"
#include "driver/parallel.h"
#include "driver/scaled_decode.h"
#include "driver/scaled_fp8.h"
#include "driver/schedule.h"
#include "mmaemu/mmaemu.h"
#include "formats/block_quantise.h"
#include "mmaemu/version.h"
#include "models/errors.h"
#include "models/model.h"
#include "models/scaled_units.h"

struct mmaemu_model {
  mmaemu::Model model;
};

const mmaemu::Model& mmaemu::api::model_of(const mmaemu_model* handle) { return handle->model; }

static_assert(std::size(mmaemu::api::kFormats) == mmaemu::kFmtCount, "every format in the C API's check");
static_assert(MMAEMU_MAX_THREADS == mmaemu::driver::kMaxThreads, "one thread cap: mmaemu.h and driver/parallel.h");

namespace {
thread_local std::string g_error;
}  // namespace

int mmaemu::api::fail(int status, std::string message) {
  g_error = std::move(message);
  return status;
}
void mmaemu::api::clear_error() { g_error.clear(); }

namespace {

using namespace mmaemu;
using api::fail;
using api::guarded;

// The C enums are the internal ones, value for value, so that the
// conversions below are plain casts.
static_assert(MMAEMU_FP64 == static_cast<int>(Fmt::fp64) && MMAEMU_FP32 == static_cast<int>(Fmt::fp32) &&
              MMAEMU_TF32 == static_cast<int>(Fmt::tf32) && MMAEMU_BF16 == static_cast<int>(Fmt::bf16) &&
              MMAEMU_FP16 == static_cast<int>(Fmt::fp16) && MMAEMU_E4M3 == static_cast<int>(Fmt::e4m3) &&
              MMAEMU_E5M2 == static_cast<int>(Fmt::e5m2) && MMAEMU_E4M3FNUZ == static_cast<int>(Fmt::e4m3fnuz) &&
              MMAEMU_E5M2FNUZ == static_cast<int>(Fmt::e5m2fnuz) && MMAEMU_E3M2 == static_cast<int>(Fmt::e3m2) &&
              MMAEMU_E2M3 == static_cast<int>(Fmt::e2m3) && MMAEMU_E2M1 == static_cast<int>(Fmt::e2m1) &&
              MMAEMU_UE8M0 == static_cast<int>(Fmt::ue8m0) && MMAEMU_UE4M3 == static_cast<int>(Fmt::ue4m3) &&
              MMAEMU_S8 == static_cast<int>(Fmt::s8) && MMAEMU_U8 == static_cast<int>(Fmt::u8) &&
              MMAEMU_S4 == static_cast<int>(Fmt::s4) && MMAEMU_U4 == static_cast<int>(Fmt::u4) &&
              MMAEMU_S32 == static_cast<int>(Fmt::s32) && kFmtCount == MMAEMU_S32 + 1,
              "mmaemu_format must match mmaemu::Fmt value for value");
static_assert(MMAEMU_RNE == static_cast<int>(Round::rne) && MMAEMU_RZ == static_cast<int>(Round::rz) &&
              MMAEMU_RD == static_cast<int>(Round::rd) && MMAEMU_RU == static_cast<int>(Round::ru) &&
              MMAEMU_RNA == static_cast<int>(Round::rna),
              "mmaemu_rounding must match mmaemu::Round value for value");

using api::check_enum;
using api::kGemmFormats;

// A thread count asked for: 0 .. driver::kMaxThreads (the message names the range).
int check_threads(int threads) {
  return guarded([&] {
    driver::check_threads(threads);
    return static_cast<int>(MMAEMU_OK);
  });
}

Fmt to_fmt(mmaemu_format f) { return static_cast<Fmt>(f); }
Round to_round(mmaemu_rounding r) { return static_cast<Round>(r); }

std::string supported_pairs(const Model& m) {
  std::string s;
  for (const ModelRow& r : m.rows) {
    if (!r.gemm_default) continue;
    s += s.empty() ? "" : ", ";
    s += std::string(info(r.in).name) + "->" + info(r.out).name;
  }
  return s;
}

// The unit for (input, output), or null with the error stored in `status`.
const ModelRow* unit_row(const mmaemu_model* model, mmaemu_format input, mmaemu_format output,
                         int& status) {
  status = guarded([&] {
    check_enum("input", input, kGemmFormats);
    check_enum("output", output, kGemmFormats);
    return static_cast<int>(MMAEMU_OK);
  });
  if (status) return nullptr;
  if (!model) {
    status = fail(MMAEMU_ERR_ARGUMENT, "null model");
    return nullptr;
  }
  const ModelRow* row = model->model.find(to_fmt(input), to_fmt(output));
  if (!row)
    status = fail(MMAEMU_ERR_UNSUPPORTED,
                  model->model.name + " has no unit for " + info(to_fmt(input)).name + " -> " +
                      info(to_fmt(output)).name + " (it has: " + supported_pairs(model->model) + ")");
  return row;
}

// The enum fields of mmaemu_gemm's options and its layout and transposes,
// read as integers and checked by name.
int check_gemm_enums(const mmaemu_gemm_options& opt, mmaemu_layout layout, mmaemu_transpose ta,
                     mmaemu_transpose tb) {
  return guarded([&] {
    check_enum("a_storage", opt.a_storage, kGemmFormats);
    check_enum("b_storage", opt.b_storage, kGemmFormats);
    check_enum("c_storage", opt.c_storage, kGemmFormats);
    check_enum("input_rounding", opt.input_rounding, api::kRoundings);
    check_enum("accumulate", opt.accumulate, api::kAccumulates);
    api::check_layout(layout, ta, tb);
    return static_cast<int>(MMAEMU_OK);
  });
}

// Checks the sizes of a GEMM (its enums checked) in reference-BLAS order;
// returns the 1-based position of the first bad one (0 if all are fine), as
// xerbla reports it.
int check_gemm_sizes(mmaemu_layout layout, mmaemu_transpose ta, mmaemu_transpose tb, int m, int n, int k, int lda,
                     int ldb, int ldc) {
  if (m < 0) return 4;
  if (n < 0) return 5;
  if (k < 0) return 6;
  // Row-major A is m x k stored by rows: lda >= k unless transposed, etc.
  const bool row = layout == MMAEMU_ROW_MAJOR, at = ta != MMAEMU_NO_TRANS, bt = tb != MMAEMU_NO_TRANS;
  auto short_ld = [](int ld, std::size_t need) { return ld < 0 || static_cast<std::size_t>(ld) < need; };
  if (short_ld(lda, api::ld_need(row, at, m, k))) return 9;
  if (short_ld(ldb, api::ld_need(row, bt, k, n))) return 11;
  if (short_ld(ldc, api::ld_need(row, false, m, n))) return 14;
  return 0;
}

// mmaemu_sgemm and mmaemu_sgemm_scheduled (kept for the ABI): mmaemu_sgemm_ex
// with the policy and schedule set. They take the element-wise policies only,
// as before (a block-scaled name is refused as unknown, with the message of
// mmaemu_parse_policy).
int sgemm_elementwise(const mmaemu_model* model, const char* policy, const char* schedule, mmaemu_layout layout,
                      mmaemu_transpose ta, mmaemu_transpose tb, int m, int n, int k, float alpha, const float* A,
                      int lda, const float* B, int ldb, float beta, float* C, int ldc) {
  mmaemu_gemm_options probe;
  mmaemu_gemm_options_init(&probe);
  if (int s = mmaemu_parse_policy(policy && *policy ? policy : mmaemu_default_policy(model), &probe)) return s;
  mmaemu_sgemm_options opt;
  mmaemu_sgemm_options_init(&opt);
  opt.policy = policy;
  opt.schedule = schedule;
  return mmaemu_sgemm_ex(model, &opt, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

// sgemm under a block-scaled policy (desc parsed from it; docs/block-scaled.md
// §4.6): op(A)'s rows and op(B)'s columns quantised a chunk at a time where
// they are (driver/scaled_decode.h, LineQuantiser), then the block-scaled
// GEMM. k is padded with zeros to a whole block (a zero leaves every
// block's amax, so its scale, as quantising the short block would); NVFP4's
// tensor scales come from one read of each operand first (zeros leave amax
// alone).
int sgemm_block_scaled(const mmaemu_model* model, mmaemu_block_scale_desc desc, mmaemu_accumulate accumulate,
                       mmaemu_layout layout, mmaemu_transpose ta, mmaemu_transpose tb, int m, int n, int k,
                       float alpha, const float* A, int lda, const float* B, int ldb, float beta, float* C, int ldc) {
  desc.accumulate = accumulate;
  return guarded([&] {
    // The unit (the global scales, set below for NVFP4, do not choose it).
    const ScaledUnit u = api::resolve_scaled(model, &desc);
    if (m < 0 || n < 0 || k < 0) throw std::invalid_argument("negative m, n or k");
    const bool row = layout == MMAEMU_ROW_MAJOR, at = ta != MMAEMU_NO_TRANS, bt = tb != MMAEMU_NO_TRANS;
    const std::size_t M = m, N = n, K = k, bs = desc.block_size, KP = (K + bs - 1) / bs * bs;
    // The padded k stays within the C API's int range, as mmaemu_gemm_block_scaled's k.
    if (KP > static_cast<std::size_t>(INT_MAX))
      throw std::invalid_argument("k = " + std::to_string(k) + " padded to whole blocks of " + std::to_string(bs) +
                                  " is " + std::to_string(KP) + ", beyond the C API's int range (2^31 - 1)");
    api::check_ld("A", row, at, M, K, lda);
    api::check_ld("B", row, bt, K, N, ldb);
    api::check_ld("C", row, false, M, N, ldc);
    if (M * N != 0 && K != 0 && (!A || !B)) throw std::invalid_argument("null A or B");
    if (M * N != 0 && !C) throw std::invalid_argument("null C");
    if (M == 0 || N == 0) return static_cast<int>(MMAEMU_OK);
    driver::LineQuantiser qa{to_fmt(desc.a_format), bs, desc.scale_format == MMAEMU_UE4M3, 1.0f, K}, qb = qa;
    driver::Operand a{qa.element, A, lda, at, nullptr, 0, false, &qa}, b{qb.element, B, ldb, bt, nullptr, 0, false, &qb};
    if (qa.nvfp4 && K > 0) {
      const int threads = driver::work_threads(0, M + N, K, 1, std::size_t{1} << 16);  // one read per element
      // (the row-major view of a column-major op(X) is op(X)^T: the same elements)
      const Nvfp4Global ga = nvfp4_global_of_amax(row ? driver::operand_amax(a, M, K, threads)
                                                      : driver::operand_amax(a, K, M, threads));
      const Nvfp4Global gb = nvfp4_global_of_amax(row ? driver::operand_amax(b, K, N, threads)
                                                      : driver::operand_amax(b, N, K, threads));
      qa.encode = ga.encode, desc.a_global_scale = ga.decode;
      qb.encode = gb.encode, desc.b_global_scale = gb.decode;
    }
    api::run_scaled_gemm(u, desc, layout, M, N, KP, alpha, a, b, beta, C, ldc);
    return static_cast<int>(MMAEMU_OK);
  });
}

}  // namespace

extern "C" {

const char* mmaemu_last_error(void) { return g_error.c_str(); }
int mmaemu_set_last_error(int status, const char* message) { return fail(status, message ? message : ""); }
const char* mmaemu_version(void) { return MMAEMU_VERSION_STRING; }

int mmaemu_model_lookup(const char* name, mmaemu_model** out) {
  if (!name || !out) return fail(MMAEMU_ERR_ARGUMENT, "null argument");
  *out = nullptr;
  return guarded([&] {
    *out = new mmaemu_model{lookup_model(name)};
    return static_cast<int>(MMAEMU_OK);
  });
}

int mmaemu_model_from_env(mmaemu_model** out) {
  const char* name = std::getenv("MMA_MODEL");
  if (!name || !*name)
    return fail(MMAEMU_ERR_UNKNOWN_MODEL, "MMA_MODEL is not set; valid models: " + valid_model_names());
  return mmaemu_model_lookup(name, out);
}

void mmaemu_model_free(mmaemu_model* model) { delete model; }

const char* mmaemu_model_name(const mmaemu_model* model) {
  return model ? model->model.name.c_str() : "";
}

size_t mmaemu_model_count(void) { return gpus().size(); }

const char* mmaemu_model_list(size_t i) { return i < gpus().size() ? gpus()[i].name : nullptr; }

int mmaemu_tile_shape(const mmaemu_model* model, mmaemu_format input, mmaemu_format output,
                      int* m, int* n, int* k) {
  int status;
  const ModelRow* row = unit_row(model, input, output, status);
  if (!row) return status;
  if (m) *m = row->m;
  if (n) *n = row->n;
  if (k) *k = row->k;
  return MMAEMU_OK;
}

int mmaemu_tile(const mmaemu_model* model, mmaemu_format input, mmaemu_format output,
                const void* A, const void* B, const void* C, void* D) {
  int status;
  const ModelRow* row = unit_row(model, input, output, status);
  if (!row) return status;
  if (!A || !B || !C || !D) return fail(MMAEMU_ERR_ARGUMENT, "null matrix pointer");
  // One tile of the batched engine on this thread: ref::tile's bits
  // (tests/driver/batch_test.cpp, every row and SIMD target) without the
  // reference's allocations per product, and no thread started.
  return guarded([&] {
    driver::BatchProblem p;
    p.count = 1, p.m = row->m, p.n = row->n, p.k = row->k;
    p.A = A, p.B = B, p.C = C, p.D = D;
    driver::run_batch(*row, p, {1});
    return static_cast<int>(MMAEMU_OK);
  });
}

int mmaemu_tile_batch(const mmaemu_model* model, mmaemu_format input, mmaemu_format output, size_t count,
                      const void* A, const void* B, const void* C, void* D, int threads) {
  int status;
  const ModelRow* row = unit_row(model, input, output, status);
  if (!row) return status;
  if (count == 0) return MMAEMU_OK;
  if (!A || !B || !C || !D) return fail(MMAEMU_ERR_ARGUMENT, "null matrix pointer");
  return guarded([&] {
    driver::BatchProblem p;
    p.count = count, p.m = row->m, p.n = row->n, p.k = row->k;
    p.A = A, p.B = B, p.C = C, p.D = D;
    driver::run_batch(*row, p, {threads});
    return static_cast<int>(MMAEMU_OK);
  });
}

int mmaemu_dot_batch(const mmaemu_model* model, mmaemu_format input, mmaemu_format output, size_t count, int k,
                     const void* A, const void* B, const void* C, void* D, int threads) {
  int status;
  const ModelRow* row = unit_row(model, input, output, status);
  if (!row) return status;
  if (k < 1) return fail(MMAEMU_ERR_ARGUMENT, "mmaemu_dot_batch: k must be at least 1");
  if (count == 0) return MMAEMU_OK;
  if (!A || !B || !C || !D) return fail(MMAEMU_ERR_ARGUMENT, "null matrix pointer");
  return guarded([&] {
    driver::BatchProblem p;
    p.count = count, p.m = 1, p.n = 1, p.k = static_cast<std::size_t>(k);
    p.A = A, p.B = B, p.C = C, p.D = D;
    driver::run_batch(*row, p, {threads});
    return static_cast<int>(MMAEMU_OK);
  });
}

void mmaemu_gemm_options_init(mmaemu_gemm_options* opt) {
  if (!opt) return;
  opt->a_storage = opt->b_storage = opt->c_storage = MMAEMU_FP32;
  opt->input = MMAEMU_FP16;
  opt->output = MMAEMU_FP32;
  opt->input_rounding = MMAEMU_RNE;
  opt->saturate = 0;
  opt->accumulate = MMAEMU_ACC_GPU_BLAS;
  opt->threads = 0;
  opt->schedule = nullptr;
}

int mmaemu_parse_policy(const char* policy, mmaemu_gemm_options* opt) {
  if (!opt) return fail(MMAEMU_ERR_ARGUMENT, "null options");
  std::string p = policy && *policy ? policy : "fp16";
  for (char& ch : p) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  std::string fmt = p, rnd;
  if (auto colon = p.find(':'); colon != std::string::npos) {
    fmt = p.substr(0, colon);
    rnd = p.substr(colon + 1);
  }
  static const char* kValid =
      "fp16, bf16, tf32, xf32, e4m3, e5m2, e4m3fnuz (fp8), e5m2fnuz (bf8), fp32, "
      "each optionally followed by :rne, :rz or :rna";
  const auto f = parse_fmt(fmt);
  if (!f || *f == Fmt::fp64 || *f > Fmt::e5m2fnuz) return fail(MMAEMU_ERR_ARGUMENT, "unknown input policy '" + p + "' (valid: " + kValid + ")");
  opt->input = static_cast<mmaemu_format>(*f);
  // Defaults follow what the vendor stacks do: tf32/xf32 units truncate the
  // fp32 registers they read; fp16/bf16/fp8 conversions round to nearest.
  opt->input_rounding = *f == Fmt::tf32 ? MMAEMU_RZ : MMAEMU_RNE;
  // fp8 conversions saturate (__NV_SATFINITE, what the vendor libraries use);
  // fp16/bf16 overflow to Inf as __float2half_rn and numpy do.
  opt->saturate = info(*f).width == 8;
  if (rnd == "rne") opt->input_rounding = MMAEMU_RNE;
  else if (rnd == "rz") opt->input_rounding = MMAEMU_RZ;
  else if (rnd == "rna") opt->input_rounding = MMAEMU_RNA;
  else if (!rnd.empty())
    return fail(MMAEMU_ERR_ARGUMENT, "unknown rounding '" + rnd + "' in policy '" + p + "' (valid: " + kValid + ")");
  return MMAEMU_OK;
}

int mmaemu_gemm(const mmaemu_model* model, const mmaemu_gemm_options* opt, mmaemu_layout layout,
                mmaemu_transpose ta, mmaemu_transpose tb, int m, int n, int k, double alpha,
                const void* A, int lda, const void* B, int ldb, double beta, void* C, int ldc) {
  if (!opt) return fail(MMAEMU_ERR_ARGUMENT, "null options");
  if (int bad = check_gemm_enums(*opt, layout, ta, tb)) return bad;
  int status;
  const ModelRow* row = unit_row(model, opt->input, opt->output, status);
  if (!row) return status;
  if (int bad = check_gemm_sizes(layout, ta, tb, m, n, k, lda, ldb, ldc))
    return fail(MMAEMU_ERR_ARGUMENT, "mmaemu_gemm: parameter " + std::to_string(bad) + " had an illegal value");
  driver::Schedule schedule;
  if (int bad = check_threads(opt->threads)) return bad;
  if (int bad = guarded([&] {
        schedule = driver::parse_schedule(opt->schedule && *opt->schedule ? opt->schedule : "chain");
        driver::check_schedule(schedule, *row);
        return static_cast<int>(MMAEMU_OK);
      }))
    return bad;
  if (m == 0 || n == 0) return MMAEMU_OK;
  if ((k > 0 && alpha != 0.0 && (!A || !B)) || !C) return fail(MMAEMU_ERR_ARGUMENT, "null matrix pointer");
  return guarded([&] {
    driver::GemmSpec spec;
    spec.row = row;
    spec.input_round = to_round(opt->input_rounding);
    spec.input_overflow = opt->saturate ? Overflow::saturate : Overflow::ieee;
    spec.accumulate_into_c = api::chain_from_c(opt->accumulate, alpha == 1.0, !row->ignores_c);
    spec.threads = opt->threads;
    driver::Operand a{to_fmt(opt->a_storage), A, lda, ta != MMAEMU_NO_TRANS};
    driver::Operand b{to_fmt(opt->b_storage), B, ldb, tb != MMAEMU_NO_TRANS};
    std::size_t mm = m, nn = n;
    api::to_row_major(layout, a, b, mm, nn);
    driver::scheduled_gemm(schedule, spec, mm, nn, static_cast<std::size_t>(k), alpha, a, b, beta,
                           to_fmt(opt->c_storage), C, ldc);
    return static_cast<int>(MMAEMU_OK);
  });
}

const char* mmaemu_default_policy(const mmaemu_model* model) {
  if (model && model->model.find(Fmt::fp32, Fmt::fp32)) return "fp32";
  // V100 has no tf32: cuBLAS's tensor-op sgemm converts to fp16 there.
  if (model && !model->model.find(Fmt::tf32, Fmt::fp32) && model->model.find(Fmt::fp16, Fmt::fp32)) return "fp16";
  return "tf32";
}

void mmaemu_sgemm_options_init(mmaemu_sgemm_options* opt) {
  if (!opt) return;
  opt->policy = nullptr;
  opt->schedule = nullptr;
  opt->accumulate = MMAEMU_ACC_GPU_BLAS;
}

// The one sgemm entry (docs/c-api.md, "One sgemm entry"): an element-wise
// policy is mmaemu_gemm on fp32 storage; a block-scaled one is
// sgemm_block_scaled above (mmaemu_sgemm_block_scaled and _acc are this entry
// with the policy set), which takes the chain only.
int mmaemu_sgemm_ex(const mmaemu_model* model, const mmaemu_sgemm_options* opt, mmaemu_layout layout,
                    mmaemu_transpose ta, mmaemu_transpose tb, int m, int n, int k, float alpha, const float* A,
                    int lda, const float* B, int ldb, float beta, float* C, int ldc) {
  if (!opt) return fail(MMAEMU_ERR_ARGUMENT, "mmaemu_sgemm_ex: null options");
  if (int bad = guarded([&] {
        check_enum("accumulate", opt->accumulate, api::kAccumulates);
        api::check_layout(layout, ta, tb);
        return static_cast<int>(MMAEMU_OK);
      }))
    return bad;
  const char* policy = opt->policy && *opt->policy ? opt->policy : mmaemu_default_policy(model);
  mmaemu_block_scale_desc desc;
  if (mmaemu_parse_block_scaled_policy(policy, &desc) == MMAEMU_OK) {
    if (int bad = guarded([&] {
          if (opt->schedule && *opt->schedule && !driver::parse_schedule(opt->schedule).is_chain())
            throw std::invalid_argument("mmaemu_sgemm_ex: schedule '" + std::string(opt->schedule) +
                                        "' does not apply to the block-scaled policy '" + policy +
                                        "' (only chain does)");
          return static_cast<int>(MMAEMU_OK);
        }))
      return bad;
    return sgemm_block_scaled(model, desc, opt->accumulate, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C,
                              ldc);
  }
  mmaemu_gemm_options g;
  mmaemu_gemm_options_init(&g);
  if (mmaemu_parse_policy(policy, &g) != MMAEMU_OK) {
    std::string scaled;
    for (int i = 0; i < mmaemu_block_scaled_policy_count(); ++i)
      scaled += (i ? ", " : "") + std::string(mmaemu_block_scaled_policy_name(i));
    return fail(MMAEMU_ERR_ARGUMENT, std::string(mmaemu_last_error()) + "; or a block-scaled policy: " + scaled);
  }
  g.schedule = opt->schedule;
  g.accumulate = opt->accumulate;
  return mmaemu_gemm(model, &g, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

int mmaemu_sgemm(const mmaemu_model* model, const char* policy, mmaemu_layout layout,
                 mmaemu_transpose ta, mmaemu_transpose tb, int m, int n, int k, float alpha,
                 const float* A, int lda, const float* B, int ldb, float beta, float* C, int ldc) {
  return sgemm_elementwise(model, policy, nullptr, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

int mmaemu_sgemm_scheduled(const mmaemu_model* model, const char* policy, const char* schedule, mmaemu_layout layout,
                           mmaemu_transpose ta, mmaemu_transpose tb, int m, int n, int k, float alpha, const float* A,
                           int lda, const float* B, int ldb, float beta, float* C, int ldc) {
  return sgemm_elementwise(model, policy, schedule, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

int mmaemu_hgemm(const mmaemu_model* model, mmaemu_format output, mmaemu_layout layout,
                 mmaemu_transpose ta, mmaemu_transpose tb, int m, int n, int k, float alpha,
                 const uint16_t* A, int lda, const uint16_t* B, int ldb, float beta, uint16_t* C,
                 int ldc) {
  mmaemu_gemm_options opt;
  mmaemu_gemm_options_init(&opt);
  opt.a_storage = opt.b_storage = opt.c_storage = MMAEMU_FP16;
  opt.input = MMAEMU_FP16;
  opt.output = output;
  return mmaemu_gemm(model, &opt, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

void mmaemu_fp8_scaled_options_init(mmaemu_fp8_scaled_options* opt) {
  if (!opt) return;
  opt->format = MMAEMU_E4M3;
  opt->block_k = opt->block_n = 128;
  opt->b_trans = 0;
  opt->threads = 0;
}

int mmaemu_gemm_fp8_scaled(const mmaemu_model* model, const mmaemu_fp8_scaled_options* opt, int m, int n, int k,
                           const uint8_t* A, int lda, const float* a_scales, const uint8_t* B, int ldb,
                           const float* b_scales, float* D, int ldd) {
  if (!opt) return fail(MMAEMU_ERR_ARGUMENT, "null options");
  static constexpr api::EnumValue kFp8[] = {{MMAEMU_E4M3, "MMAEMU_E4M3"}, {MMAEMU_E5M2, "MMAEMU_E5M2"}};
  if (int bad = api::enum_status("format", opt->format, kFp8)) return bad;
  int status;
  const ModelRow* row = unit_row(model, opt->format, MMAEMU_FP32, status);
  if (!row) return status;
  if (m < 0 || n < 0 || k < 0 || opt->block_k <= 0 || opt->block_n <= 0)
    return fail(MMAEMU_ERR_ARGUMENT, "scaled fp8 GEMM: negative size or non-positive block size");
  if (lda < std::max(1, k) || ldb < std::max(1, opt->b_trans ? k : n) || ldd < std::max(1, n))
    return fail(MMAEMU_ERR_ARGUMENT, "scaled fp8 GEMM: a leading dimension is too small");
  if (int bad = check_threads(opt->threads)) return bad;
  if (m == 0 || n == 0) return MMAEMU_OK;
  if ((k > 0 && (!A || !B || !a_scales || !b_scales)) || !D) return fail(MMAEMU_ERR_ARGUMENT, "null matrix pointer");
  return guarded([&] {
    driver::GemmSpec spec;
    spec.row = row;
    spec.threads = opt->threads;
    const driver::Operand a{row->in, A, lda, false}, b{row->in, B, ldb, opt->b_trans != 0};
    driver::scaled_fp8_gemm(spec, m, n, k, a, a_scales, b, b_scales,
                            {static_cast<std::size_t>(opt->block_k), static_cast<std::size_t>(opt->block_n)}, D, ldd);
    return static_cast<int>(MMAEMU_OK);
  });
}

int mmaemu_quantize_fp8_blocks(mmaemu_format format, int rows, int cols, const float* X, int ldx, int block_rows,
                               int block_cols, uint8_t* Q, int ldq, float* scales) {
  if (rows < 0 || cols < 0 || block_rows <= 0 || block_cols <= 0 || ldx < std::max(1, cols) || ldq < std::max(1, cols))
    return fail(MMAEMU_ERR_ARGUMENT, "fp8 quantisation: bad size, block size or leading dimension");
  if (rows > 0 && cols > 0 && (!X || !Q || !scales)) return fail(MMAEMU_ERR_ARGUMENT, "null pointer");
  return guarded([&] {
    check_enum("format", format, kGemmFormats);
    driver::quantize_fp8_blocks(to_fmt(format), rows, cols, X, ldx, block_rows, block_cols, Q, ldq, scales);
    return static_cast<int>(MMAEMU_OK);
  });
}

}  // extern "C"
