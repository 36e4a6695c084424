// SPDX-License-Identifier: BSD-3-Clause
// The C API's integer GEMM (mmaemu.h, mmaemu_gemm_int; docs/c-api.md,
// "Integer GEMM"): argument checks, the model's integer unit with the
// overflow rule asked for, and the column-major call as a row-major one for
// driver::gemm, which runs the integer plug-in of the steps loop nest
// (driver/integer_kind.cpp; docs/models.md §11.4).
#include <algorithm>
#include <string>
#include <utility>

#include "api/api_error.h"
#include "api/enum_args.h"
#include "api/gemm_args.h"
#include "api/model_of.h"
#include "driver/batch.h"
#include "driver/gemm.h"
#include "driver/parallel.h"
#include "mmaemu/mmaemu.h"
#include "models/model.h"

namespace {

using namespace mmaemu;
using api::fail;
using api::guarded;

// The least leading dimension of an operand: `contig` elements along its
// contiguous dimension, in bytes for packed int4 when that dimension is k.
bool ld_ok(int ld, bool k_contiguous, int k, int other, bool packed) {
  const int need = k_contiguous ? (packed ? (k + 1) / 2 : k) : other;
  return ld >= std::max(1, need);
}

// The model's integer unit for opt's formats, with the overflow rule asked
// for: MMAEMU_OK, or the status of the refusal (its message set).
int integer_unit(const char* entry, const mmaemu_model* model, const mmaemu_gemm_int_options* opt, ModelRow& row) {
  if (!model) return fail(MMAEMU_ERR_ARGUMENT, "null model");
  if (!opt) return fail(MMAEMU_ERR_ARGUMENT, "null options");
  api::clear_error();
  if (int bad = guarded([&] {
        api::check_enum("a_format", opt->a_format, api::kIntInputs);
        api::check_enum("b_format", opt->b_format, api::kIntInputs);
        driver::check_threads(opt->threads);
        return static_cast<int>(MMAEMU_OK);
      }))
    return bad;
  if (opt->saturate != 0 && opt->saturate != 1)
    return fail(MMAEMU_ERR_ARGUMENT, std::string(entry) + ": saturate = " + std::to_string(opt->saturate) + " (0 or 1)");
  const Fmt fa = static_cast<Fmt>(opt->a_format), fb = static_cast<Fmt>(opt->b_format);
  const Model& mdl = api::model_of(model);
  const ModelRow* unit = mdl.find_integer(fa, fb, Fmt::s32);
  if (!unit) {
    const int status = guarded([&] {
      mdl.require_integer(fa, fb, Fmt::s32);  // throws, naming the units the model has
      return static_cast<int>(MMAEMU_OK);
    });
    return fail(MMAEMU_ERR_UNSUPPORTED, status ? std::string(mmaemu_last_error()) : "no integer unit");
  }
  row = *unit;
  if (opt->saturate) {
    if (!row.has_satfinite)
      return fail(MMAEMU_ERR_ARGUMENT, mdl.name + "'s integer unit " + row.instr +
                                           " has no .satfinite variant (it wraps): saturate = 0 works");
    row.overflow = IntOverflow::satfinite;
  }
  return MMAEMU_OK;
}

// count tiles (m x n x k) of the unit on the batched engine.
int integer_batch(const ModelRow& row, const mmaemu_gemm_int_options* opt, std::size_t count, std::size_t m,
                  std::size_t n, std::size_t k, const void* A, const void* B, const int32_t* C, int32_t* D) {
  if (count == 0) return MMAEMU_OK;
  if (!A || !B || !C || !D) return fail(MMAEMU_ERR_ARGUMENT, "null matrix pointer");
  return guarded([&] {
    driver::BatchProblem p;
    p.count = count, p.m = m, p.n = n, p.k = k;
    p.A = A, p.B = B, p.C = C, p.D = D;
    p.int4_packed = info(row.in).width == 4;
    driver::run_batch(row, p, {opt->threads});
    return static_cast<int>(MMAEMU_OK);
  });
}

}  // namespace

extern "C" {

void mmaemu_gemm_int_options_init(mmaemu_gemm_int_options* opt) {
  if (!opt) return;
  *opt = mmaemu_gemm_int_options{};
  opt->a_format = MMAEMU_S8;
  opt->b_format = MMAEMU_S8;
  opt->saturate = 0;
  opt->threads = 0;
}

int mmaemu_gemm_int(const mmaemu_model* model, const mmaemu_gemm_int_options* opt, mmaemu_layout layout,
                    mmaemu_transpose ta, mmaemu_transpose tb, int m, int n, int k, const void* A, int lda,
                    const void* B, int ldb, int beta, int32_t* C, int ldc) {
  if (!model) return fail(MMAEMU_ERR_ARGUMENT, "null model");
  if (!opt) return fail(MMAEMU_ERR_ARGUMENT, "null options");
  if (int bad = guarded([&] {
        api::check_layout(layout, ta, tb);
        return static_cast<int>(MMAEMU_OK);
      }))
    return bad;
  if (beta != 0 && beta != 1)
    return fail(MMAEMU_ERR_ARGUMENT, "mmaemu_gemm_int: beta = " + std::to_string(beta) +
                                         " (0: D = A*B, 1: D = A*B + C)");
  ModelRow row;
  if (int bad = integer_unit("mmaemu_gemm_int", model, opt, row)) return bad;
  const Fmt fa = row.in, fb = row.in_b;
  // CBLAS: k contiguous in A iff row-major == no-trans; in B iff row-major != no-trans.
  const bool rowmaj = layout == MMAEMU_ROW_MAJOR, na = ta == MMAEMU_NO_TRANS, nb = tb == MMAEMU_NO_TRANS;
  const bool pa = info(fa).width == 4, pb = info(fb).width == 4;
  if (m < 0 || n < 0 || k < 0) return fail(MMAEMU_ERR_ARGUMENT, "mmaemu_gemm_int: negative size");
  if (!ld_ok(lda, rowmaj == na, k, m, pa))
    return fail(MMAEMU_ERR_ARGUMENT, "mmaemu_gemm_int: lda = " + std::to_string(lda) + " is too small");
  if (!ld_ok(ldb, rowmaj != nb, k, n, pb))
    return fail(MMAEMU_ERR_ARGUMENT, "mmaemu_gemm_int: ldb = " + std::to_string(ldb) + " is too small");
  if (ldc < std::max(1, rowmaj ? n : m))
    return fail(MMAEMU_ERR_ARGUMENT, "mmaemu_gemm_int: ldc = " + std::to_string(ldc) + " is too small");
  if (m == 0 || n == 0) return MMAEMU_OK;
  if ((k > 0 && (!A || !B)) || !C) return fail(MMAEMU_ERR_ARGUMENT, "null matrix pointer");
  return guarded([&] {
    driver::GemmSpec spec;
    driver::Operand a{fa, A, lda, !na}, b{fb, B, ldb, !nb};
    a.fp4_packed = pa, b.fp4_packed = pb;
    std::size_t mm = static_cast<std::size_t>(m), nn = static_cast<std::size_t>(n);
    api::to_row_major(layout, a, b, mm, nn);
    // Column-major: the row-major C^T = op(B)^T op(A)^T, on the unit with its
    // A and B formats swapped (each product, and the order along k, is the same).
    if (!rowmaj) std::swap(row.in, row.in_b);
    spec.row = &row;
    spec.threads = opt->threads;
    driver::gemm(spec, mm, nn, static_cast<std::size_t>(k), 1.0, a, b, beta, Fmt::s32, C, ldc);
    return static_cast<int>(MMAEMU_OK);
  });
}

int mmaemu_tile_shape_int(const mmaemu_model* model, const mmaemu_gemm_int_options* opt, int* m, int* n, int* k) {
  ModelRow row;
  if (int bad = integer_unit("mmaemu_tile_shape_int", model, opt, row)) return bad;
  if (m) *m = row.m;
  if (n) *n = row.n;
  if (k) *k = row.k;
  return MMAEMU_OK;
}

int mmaemu_tile_batch_int(const mmaemu_model* model, const mmaemu_gemm_int_options* opt, size_t count, const void* A,
                          const void* B, const int32_t* C, int32_t* D) {
  ModelRow row;
  if (int bad = integer_unit("mmaemu_tile_batch_int", model, opt, row)) return bad;
  return integer_batch(row, opt, count, row.m, row.n, row.k, A, B, C, D);
}

int mmaemu_dot_batch_int(const mmaemu_model* model, const mmaemu_gemm_int_options* opt, size_t count, int k,
                         const void* A, const void* B, const int32_t* C, int32_t* D) {
  ModelRow row;
  if (int bad = integer_unit("mmaemu_dot_batch_int", model, opt, row)) return bad;
  if (k < 1) return fail(MMAEMU_ERR_ARGUMENT, "mmaemu_dot_batch_int: k must be at least 1");
  return integer_batch(row, opt, count, 1, 1, static_cast<std::size_t>(k), A, B, C, D);
}

}  // extern "C"
