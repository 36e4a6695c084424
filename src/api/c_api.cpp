// SPDX-License-Identifier: BSD-3-Clause
// The C API (include/mmaemu/mmaemu.h): argument checks, name parsing, and
// translation to the driver. Every exception stops here.
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "api/error.h"
#include "driver/gemm.h"
#include "mmaemu/mmaemu.h"
#include "models/model.h"
#include "ref/reference.h"

struct mmaemu_model {
  mmaemu::Model model;
};

namespace mmaemu::api {
thread_local std::string g_error;

int fail(int status, std::string message) {
  g_error = std::move(message);
  return status;
}
}  // namespace mmaemu::api

namespace {

using namespace mmaemu;
using api::fail;
using api::g_error;

// Runs f, mapping exceptions to status codes.
template <typename F>
int guarded(F&& f) {
  try {
    g_error.clear();
    return f();
  } catch (const std::bad_alloc&) {
    return fail(MMAEMU_ERR_NO_MEMORY, "out of memory");
  } catch (const std::invalid_argument& e) {
    return fail(MMAEMU_ERR_ARGUMENT, e.what());
  } catch (const std::exception& e) {
    return fail(MMAEMU_ERR_INTERNAL, e.what());
  } catch (...) {
    return fail(MMAEMU_ERR_INTERNAL, "unknown error");
  }
}

bool valid_format(int f) { return f >= MMAEMU_FP64 && f <= MMAEMU_E5M2FNUZ; }
Fmt to_fmt(mmaemu_format f) { return static_cast<Fmt>(f); }  // same order as Fmt

Round to_round(mmaemu_rounding r) {
  switch (r) {
    case MMAEMU_RZ: return Round::rz;
    case MMAEMU_RD: return Round::rd;
    case MMAEMU_RU: return Round::ru;
    case MMAEMU_RNA: return Round::rna;
    default: return Round::rne;
  }
}

std::string supported_pairs(const Model& m) {
  std::string s;
  for (const ModelRow& r : m.rows) {
    if (!r.gemm_default) continue;
    s += s.empty() ? "" : ", ";
    s += std::string(info(r.in).name) + "->" + info(r.out).name;
  }
  return s;
}

const ModelRow* unit_row(const mmaemu_model* model, mmaemu_format input, mmaemu_format output,
                         int& status) {
  status = MMAEMU_OK;
  if (!model || !valid_format(input) || !valid_format(output)) {
    status = fail(MMAEMU_ERR_ARGUMENT, "null model or invalid format");
    return nullptr;
  }
  const ModelRow* row = model->model.find(to_fmt(input), to_fmt(output));
  if (!row)
    status = fail(MMAEMU_ERR_UNSUPPORTED,
                  model->model.name + " has no unit for " + info(to_fmt(input)).name + " -> " +
                      info(to_fmt(output)).name + " (it has: " + supported_pairs(model->model) + ")");
  return row;
}

// Checks the BLAS arguments in reference-BLAS order; returns the 1-based
// position of the first bad one (0 if all are fine), as xerbla reports it.
int check_gemm_args(mmaemu_layout layout, mmaemu_transpose ta, mmaemu_transpose tb, int m, int n,
                    int k, int lda, int ldb, int ldc) {
  auto trans_ok = [](mmaemu_transpose t) {
    return t == MMAEMU_NO_TRANS || t == MMAEMU_TRANS || t == MMAEMU_CONJ_TRANS;
  };
  if (layout != MMAEMU_ROW_MAJOR && layout != MMAEMU_COL_MAJOR) return 1;
  if (!trans_ok(ta)) return 2;
  if (!trans_ok(tb)) return 3;
  if (m < 0) return 4;
  if (n < 0) return 5;
  if (k < 0) return 6;
  // Row-major A is m x k stored by rows: lda >= k unless transposed, etc.
  const bool row = layout == MMAEMU_ROW_MAJOR, at = ta != MMAEMU_NO_TRANS, bt = tb != MMAEMU_NO_TRANS;
  const int a_cols = row ? (at ? m : k) : (at ? k : m);
  const int b_cols = row ? (bt ? k : n) : (bt ? n : k);
  const int c_cols = row ? n : m;
  if (lda < std::max(1, a_cols)) return 9;
  if (ldb < std::max(1, b_cols)) return 11;
  if (ldc < std::max(1, c_cols)) return 14;
  return 0;
}

}  // namespace

extern "C" {

const char* mmaemu_last_error(void) { return g_error.c_str(); }
const char* mmaemu_version(void) { return "0.1.0"; }

int mmaemu_model_lookup(const char* name, mmaemu_model** out) {
  if (!name || !out) return fail(MMAEMU_ERR_ARGUMENT, "null argument");
  *out = nullptr;
  return guarded([&] {
    try {
      *out = new mmaemu_model{lookup_model(name)};
    } catch (const std::invalid_argument& e) {
      const bool unknown = std::strncmp(e.what(), "unknown model", 13) == 0 ||
                           std::strstr(e.what(), "unknown base") != nullptr;
      return fail(unknown ? MMAEMU_ERR_UNKNOWN_MODEL : MMAEMU_ERR_ARGUMENT, e.what());
    }
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
  return guarded([&] {
    const std::size_t m = row->m, n = row->n, k = row->k;
    std::vector<uint64_t> a(m * k), b(k * n), c(m * n), d(m * n);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = driver::load(row->in, A, i);
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = driver::load(row->in, B, i);
    for (std::size_t i = 0; i < c.size(); ++i) c[i] = driver::load(row->out, C, i);
    ref::tile(*row, a.data(), b.data(), c.data(), d.data());
    for (std::size_t i = 0; i < d.size(); ++i) driver::store(row->out, D, i, d[i]);
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
  if (!f || *f == Fmt::fp64) return fail(MMAEMU_ERR_ARGUMENT, "unknown input policy '" + p + "' (valid: " + kValid + ")");
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
  if (!valid_format(opt->a_storage) || !valid_format(opt->b_storage) || !valid_format(opt->c_storage))
    return fail(MMAEMU_ERR_ARGUMENT, "invalid storage format");
  int status;
  const ModelRow* row = unit_row(model, opt->input, opt->output, status);
  if (!row) return status;
  if (int bad = check_gemm_args(layout, ta, tb, m, n, k, lda, ldb, ldc))
    return fail(MMAEMU_ERR_ARGUMENT, "mmaemu_gemm: parameter " + std::to_string(bad) + " had an illegal value");
  if (m == 0 || n == 0) return MMAEMU_OK;
  if ((k > 0 && alpha != 0.0 && (!A || !B)) || !C) return fail(MMAEMU_ERR_ARGUMENT, "null matrix pointer");
  return guarded([&] {
    driver::GemmSpec spec;
    spec.row = row;
    spec.input_round = to_round(opt->input_rounding);
    spec.input_overflow = opt->saturate ? Overflow::saturate : Overflow::ieee;
    spec.accumulate_into_c = opt->accumulate == MMAEMU_ACC_INTO_C;
    spec.threads = opt->threads;
    driver::Operand a{to_fmt(opt->a_storage), A, lda, ta != MMAEMU_NO_TRANS};
    driver::Operand b{to_fmt(opt->b_storage), B, ldb, tb != MMAEMU_NO_TRANS};
    std::size_t mm = m, nn = n;
    if (layout == MMAEMU_COL_MAJOR) {
      // Column-major C = op(A) op(B) is row-major C^T = op(B)^T op(A)^T.
      // A column-major X read row-major is X^T, so op(B)^T keeps B's own
      // transpose flag. Products are symmetric in their factors: same bits.
      std::swap(a, b);
      std::swap(mm, nn);
    }
    driver::gemm(spec, mm, nn, static_cast<std::size_t>(k), alpha, a, b, beta, to_fmt(opt->c_storage), C, ldc);
    return static_cast<int>(MMAEMU_OK);
  });
}

const char* mmaemu_default_policy(const mmaemu_model* model) {
  if (model && model->model.find(Fmt::fp32, Fmt::fp32)) return "fp32";
  // V100 has no tf32: cuBLAS's tensor-op sgemm converts to fp16 there.
  if (model && !model->model.find(Fmt::tf32, Fmt::fp32) && model->model.find(Fmt::fp16, Fmt::fp32)) return "fp16";
  return "tf32";
}

int mmaemu_sgemm(const mmaemu_model* model, const char* policy, mmaemu_layout layout,
                 mmaemu_transpose ta, mmaemu_transpose tb, int m, int n, int k, float alpha,
                 const float* A, int lda, const float* B, int ldb, float beta, float* C, int ldc) {
  mmaemu_gemm_options opt;
  mmaemu_gemm_options_init(&opt);
  if (int s = mmaemu_parse_policy(policy && *policy ? policy : mmaemu_default_policy(model), &opt)) return s;
  return mmaemu_gemm(model, &opt, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
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

}  // extern "C"
