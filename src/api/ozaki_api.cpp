// SPDX-License-Identifier: BSD-3-Clause
// The C API's fp64 GEMM by an Ozaki scheme (mmaemu.h, mmaemu_dgemm_ex;
// docs/ozaki.md): argument checks, the unit, the CBLAS operands as strided
// views for ozaki::dgemm.
#include <string>

#include "api/api_error.h"
#include "api/enum_args.h"
#include "api/gemm_args.h"
#include "api/model_of.h"
#include "driver/parallel.h"
#include "mmaemu/mmaemu.h"
#include "models/model.h"
#include "ozaki/dgemm.h"
#include "ozaki/scheme.h"

namespace {

using namespace mmaemu;
using api::fail;
using api::guarded;

// The units a scheme can name (the message of a bad `input` lists them).
constexpr api::EnumValue kOzakiInputs[] = {
    {MMAEMU_S8, "MMAEMU_S8"},     {MMAEMU_S4, "MMAEMU_S4"},     {MMAEMU_U8, "MMAEMU_U8"},
    {MMAEMU_U4, "MMAEMU_U4"},     {MMAEMU_FP64, "MMAEMU_FP64"}, {MMAEMU_FP32, "MMAEMU_FP32"},
    {MMAEMU_TF32, "MMAEMU_TF32"}, {MMAEMU_BF16, "MMAEMU_BF16"}, {MMAEMU_FP16, "MMAEMU_FP16"},
    {MMAEMU_E4M3, "MMAEMU_E4M3"}, {MMAEMU_E5M2, "MMAEMU_E5M2"}, {MMAEMU_E4M3FNUZ, "MMAEMU_E4M3FNUZ"},
    {MMAEMU_E5M2FNUZ, "MMAEMU_E5M2FNUZ"}};

// op(X) of a CBLAS operand as a view: element (r, c) of op(X).
ozaki::View view_of(const double* x, bool row_major, bool trans, int ld) {
  const std::ptrdiff_t l = ld;
  const bool rows_contiguous = row_major != trans;  // op(X)(r, c) at r*ld + c
  return rows_contiguous ? ozaki::View{x, l, 1} : ozaki::View{x, 1, l};
}

}  // namespace

extern "C" {

void mmaemu_dgemm_options_init(mmaemu_dgemm_options* opt) {
  if (!opt) return;
  *opt = mmaemu_dgemm_options{};
  opt->scheme = nullptr;
  opt->input = MMAEMU_S8;
  opt->schedule = nullptr;
  opt->threads = 0;
  opt->check = 0;
}

int mmaemu_dgemm_ex(const mmaemu_model* model, const mmaemu_dgemm_options* opt, mmaemu_layout layout,
                    mmaemu_transpose ta, mmaemu_transpose tb, int m, int n, int k, double alpha, const double* A,
                    int lda, const double* B, int ldb, double beta, double* C, int ldc, mmaemu_ozaki_stats* stats) {
  if (!model) return fail(MMAEMU_ERR_ARGUMENT, "mmaemu_dgemm_ex: null model");
  if (!opt) return fail(MMAEMU_ERR_ARGUMENT, "mmaemu_dgemm_ex: null options");
  if (stats) *stats = mmaemu_ozaki_stats{};
  ozaki::Scheme scheme;
  ozaki::Unit unit;
  if (int bad = guarded([&] {
        api::check_enum("input", opt->input, kOzakiInputs);
        api::check_layout(layout, ta, tb);
        driver::check_threads(opt->threads);
        if (opt->check != 0 && opt->check != 1)
          throw std::invalid_argument("mmaemu_dgemm_ex: check = " + std::to_string(opt->check) + " (0 or 1)");
        if (!opt->scheme || !*opt->scheme)
          throw std::invalid_argument(std::string("mmaemu_dgemm_ex: no scheme (valid: ") + ozaki::scheme_syntax() +
                                      ")");
        scheme = ozaki::parse_scheme(opt->scheme);
        try {
          unit = ozaki::resolve_unit(api::model_of(model), static_cast<Fmt>(opt->input),
                                     opt->schedule ? opt->schedule : "", scheme);
        } catch (const ozaki::NoUnit& e) {
          throw api::Unsupported(e.what());
        }
        if (m < 0 || n < 0 || k < 0) throw std::invalid_argument("mmaemu_dgemm_ex: negative m, n or k");
        const bool row = layout == MMAEMU_ROW_MAJOR, at = ta != MMAEMU_NO_TRANS, bt = tb != MMAEMU_NO_TRANS;
        api::check_ld("A", row, at, m, k, lda);
        api::check_ld("B", row, bt, k, n, ldb);
        api::check_ld("C", row, false, m, n, ldc);
        return static_cast<int>(MMAEMU_OK);
      }))
    return bad;
  if (m == 0 || n == 0) return MMAEMU_OK;
  if ((k > 0 && alpha != 0.0 && (!A || !B)) || !C) return fail(MMAEMU_ERR_ARGUMENT, "null matrix pointer");
  return guarded([&] {
    const bool row = layout == MMAEMU_ROW_MAJOR;
    const ozaki::Problem p{static_cast<std::size_t>(m), static_cast<std::size_t>(n), static_cast<std::size_t>(k),
                           view_of(A, row, ta != MMAEMU_NO_TRANS, lda), view_of(B, row, tb != MMAEMU_NO_TRANS, ldb)};
    const ozaki::OutView c = row ? ozaki::OutView{C, ldc, 1} : ozaki::OutView{C, 1, ldc};
    ozaki::RunOptions run;
    run.threads = opt->threads;
    run.check = opt->check == 1;
    ozaki::Stats st;
    ozaki::dgemm(unit, scheme, run, p, alpha, beta, c, st);
    if (stats) {
      stats->products = st.products;
      stats->product_elements = st.product_elements;
      stats->inexact_product_elements = st.inexact_product_elements;
      stats->inexact_outputs = st.inexact_outputs;
      stats->checked = st.checked ? 1 : 0;
    }
    return static_cast<int>(MMAEMU_OK);
  });
}

}  // extern "C"
