// SPDX-License-Identifier: BSD-3-Clause
// The GEMM on the model that every emulated routine runs (runtime.h): the C
// API's mmaemu_gemm with the setting's options, typed for sgemm, dgemm or
// sbgemm, or under a block-scaled policy mmaemu_sgemm_block_scaled_acc, which
// quantises op(A)'s rows and op(B)'s columns and runs the block-scaled unit
// (docs/block-scaled.md); dgemm under MMA_DGEMM=ozaki... mmaemu_dgemm_ex
// (docs/ozaki.md).
#include "runtime.h"

namespace mmaemu::shim {
namespace {

// The setting's options for the element types of `kind`.
mmaemu_gemm_options options_for(const Config& cfg, Gemm kind) {
  mmaemu_gemm_options opt = cfg.options;
  if (kind == Gemm::d) {
    opt.a_storage = opt.b_storage = opt.c_storage = opt.input = opt.output = MMAEMU_FP64;
  } else if (kind == Gemm::sb) {  // bf16 operands are the unit's input as they are
    opt.a_storage = opt.b_storage = opt.input = MMAEMU_BF16;
    opt.c_storage = opt.output = MMAEMU_FP32;
    opt.saturate = 0;
  }
  return opt;
}

mmaemu_transpose op(char t) { return t == 'N' ? MMAEMU_NO_TRANS : MMAEMU_TRANS; }

}  // namespace

void model_gemm(const char* name, Gemm kind, char ta, char tb, int m, int n, int k, double alpha, const void* A,
                int lda, const void* B, int ldb, double beta, void* C, int ldc) {
  const Config& cfg = config();
  int status;
  if (kind == Gemm::d && !cfg.dgemm_scheme.empty()) {
    mmaemu_dgemm_options opt;
    mmaemu_dgemm_options_init(&opt);
    opt.scheme = cfg.dgemm_scheme.c_str();
    opt.input = cfg.ozaki_input;
    opt.schedule = ozaki_schedule_of(cfg);
    opt.check = cfg.ozaki_check;
    mmaemu_ozaki_stats stats;
    status = mmaemu_dgemm_ex(cfg.model, &opt, MMAEMU_COL_MAJOR, op(ta), op(tb), m, n, k, alpha,
                             static_cast<const double*>(A), lda, static_cast<const double*>(B), ldb, beta,
                             static_cast<double*>(C), ldc, &stats);
    if (status == MMAEMU_OK && cfg.verbose && cfg.ozaki_check) report_ozaki(m, n, k, stats);
  } else if (kind == Gemm::s && cfg.block_scaled) {
    status = mmaemu_sgemm_block_scaled_acc(cfg.model, cfg.policy.c_str(), cfg.options.accumulate, MMAEMU_COL_MAJOR,
                                           op(ta), op(tb), m, n, k, static_cast<float>(alpha),
                                           static_cast<const float*>(A), lda, static_cast<const float*>(B), ldb,
                                           static_cast<float>(beta), static_cast<float*>(C), ldc);
  } else {
    const mmaemu_gemm_options opt = options_for(cfg, kind);
    status = mmaemu_gemm(cfg.model, &opt, MMAEMU_COL_MAJOR, op(ta), op(tb), m, n, k, alpha, A, lda, B, ldb, beta, C,
                         ldc);
  }
  if (status != MMAEMU_OK) fail_call(name);
}

}  // namespace mmaemu::shim
