// SPDX-License-Identifier: BSD-3-Clause
// The block-scaled part of the C API (include/mmaemu/mmaemu.h): argument
// checks, then the GEMM through the one driver entry (driver::gemm, which
// reads the operands where they are, in their CBLAS layouts: driver::Operand).
// Every exception stops here.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "api/api_error.h"
#include "api/enum_args.h"
#include "api/gemm_args.h"
#include "api/model_of.h"
#include "driver/batch.h"
#include "driver/gemm.h"
#include "formats/block_quantise.h"
#include "formats/fp4_packing.h"
#include "mmaemu/mmaemu.h"
#include "models/scaled_policies.h"
#include "models/scaled_units.h"

namespace {

using namespace mmaemu;
using api::check_enum;
using api::fail;
using api::guarded;
using api::Unsupported;

Fmt fmt_of(mmaemu_format f) { return static_cast<Fmt>(f); }  // same order as Fmt

void require(bool ok, const std::string& what) {
  if (!ok) throw std::invalid_argument(what);
}

// One operand's codes as the API sees them: op(X) is rows x cols, k runs along
// columns (A) or rows (B); codes one per byte or packed along k.
struct CodeMatrix {
  const uint8_t* data;
  size_t ld;
  bool row_major, trans, packed, k_is_col;
  Fmt fmt;
  const char* name;

  // Offset of op(X)(r, c) in the stored matrix.
  size_t at(size_t r, size_t c) const {
    if (trans) std::swap(r, c);
    return row_major ? r * ld + c : c * ld + r;
  }
  uint8_t code(size_t r, size_t c) const {
    uint8_t v;
    if (packed) {
      const size_t kk = k_is_col ? c : r;
      v = (data[at(k_is_col ? r : kk / 2, k_is_col ? kk / 2 : c)] >> (4 * (kk & 1))) & 0xF;
    } else {
      v = data[at(r, c)];
    }
    if (v >> info(fmt).width)
      throw std::invalid_argument(std::string(name) + "(" + std::to_string(r) + ", " + std::to_string(c) +
                                  ") = " + std::to_string(v) + " is not a " + info(fmt).name + " code");
    return v;
  }
};

// Throws for the first code of op(X) (A: by rows; B: by columns) that is
// not one of its format's; codes of 8 bits and packed fp4 nibbles all are.
void check_codes(const CodeMatrix& x, size_t lines, size_t k) {
  if (x.packed || info(x.fmt).width >= 8) return;
  for (size_t r = 0; r < lines; ++r)
    for (size_t l = 0; l < k; ++l) x.k_is_col ? x.code(r, l) : x.code(l, r);
}

// Throws for the first of n codes, one per byte, that is not one of f's.
void check_code_array(const char* name, const uint8_t* x, size_t n, Fmt f) {
  const int width = info(f).width;
  for (size_t i = 0; i < n; ++i)
    if (x[i] >> width)
      throw std::invalid_argument(std::string(name) + "[" + std::to_string(i) + "] = " + std::to_string(x[i]) +
                                  " is not a " + info(f).name + " code");
}

// The element codes of one operand of a batch (`n` of them), one per byte:
// checked against the format, unpacked from fp4 pairs where packed.
const uint8_t* batch_codes(const char* name, const uint8_t* x, size_t n, Fmt f, bool packed,
                           std::vector<uint8_t>& unpacked) {
  if (!packed) {
    check_code_array(name, x, n, f);
    return x;
  }
  unpacked.resize(n);
  unpack_fp4(x, n, unpacked.data());
  return unpacked.data();
}

// The output format of one of unit u's instructions: FP32, or FP16 where u has it.
Fmt scaled_output(const ScaledUnit& u, mmaemu_format output) {
  check_enum("output", output, api::kScaledOutputs);
  const Fmt out = fmt_of(output);
  if (!(u.outputs & fmt_bit(out))) throw Unsupported(std::string(u.instruction) + " has no fp16 output");
  return out;
}

// count tiles of m x n x k (dots: m = n = 1) on the batched engine.
// packed: fp4 pairs as the descriptor says; false for codes already one per byte.
int scaled_batch(const ScaledUnit& u, const mmaemu_block_scale_desc* desc, mmaemu_format output, size_t count,
                 size_t m, size_t n, size_t k, const uint8_t* A, const uint8_t* SA, const uint8_t* B,
                 const uint8_t* SB, const void* C, void* D, int threads, bool packed) {
  const Fmt out = scaled_output(u, output);
  if (count == 0) return MMAEMU_OK;
  require(A && B && C && D && (!u.block || (SA && SB)), "null pointer");
  driver::ScaledBatch b;
  b.unit = &u;
  b.fa = fmt_of(desc->a_format), b.fb = fmt_of(desc->b_format), b.out = out;
  b.count = count, b.m = m, b.n = n, b.k = k;
  std::vector<uint8_t> ua, ub;
  b.A = batch_codes("A", A, count * m * k, b.fa, packed, ua);
  b.B = batch_codes("B", B, count * k * n, b.fb, packed, ub);
  b.SA = u.block ? SA : nullptr, b.SB = u.block ? SB : nullptr;
  b.C = C, b.D = D;
  driver::run_scaled_batch(b, threads);
  return MMAEMU_OK;
}

}  // namespace

// The unit `desc` selects on `model`, with the descriptor's switches applied.
ScaledUnit mmaemu::api::resolve_scaled(const mmaemu_model* model, const mmaemu_block_scale_desc* d) {
  require(model && d, "null model or descriptor");
  check_enum("a_format", d->a_format, api::kScaledElements);
  check_enum("b_format", d->b_format, api::kScaledElements);
  require(d->block_size == 0 || d->block_size == 16 || d->block_size == 32, "block_size must be 0, 16 or 32");
  if (d->block_size != 0) check_enum("scale_format", d->scale_format, api::kScaleFormats);
  check_enum("unit", d->unit, api::kScaledUnits);
  require(!d->fp4_packed || (d->a_format == MMAEMU_E2M1 && d->b_format == MMAEMU_E2M1),
          "fp4_packed needs E2M1 operands");
  check_enum("accumulate", d->accumulate, api::kAccumulates);
  const UnitChoice choice[] = {UnitChoice::automatic, UnitChoice::t, UnitChoice::st, UnitChoice::gst};
  // Without scales scale_format is not read (mmaemu.h), so any value is left out.
  const Fmt scale = d->block_size != 0 ? fmt_of(d->scale_format) : Fmt::ue8m0;
  try {
    ScaledUnit u = select_scaled_unit(mmaemu_model_name(model), api::model_of(model).scaled, fmt_of(d->a_format),
                                      fmt_of(d->b_format), d->block_size != 0, scale, d->block_size,
                                      choice[d->unit]);
    if (d->narrow_subnormals_normalize) u.subnormals = NarrowSubnormals::normalize;  // else the row's
    return u;
  } catch (const std::invalid_argument& e) {
    throw Unsupported(e.what());
  }
}

// C (fp32, in place, in the caller's layout) through driver::gemm, the
// operands read where they are. The chain starts from beta*C under
// BLAS_INTO_C only where the unit's result needs no scaling, alpha_eff =
// RNE32(alpha*g_a*g_b) = 1; the block-scaled units all read their
// accumulator.
void mmaemu::api::run_scaled_gemm(const ScaledUnit& u, const mmaemu_block_scale_desc& d, mmaemu_layout layout, size_t M, size_t N,
              size_t K, float alpha, driver::Operand a, driver::Operand b, float beta, float* C, int ldc) {
  const driver::ScaledSpec scaled{&u, d.a_global_scale, d.b_global_scale};
  driver::GemmSpec spec;
  spec.scaled = &scaled;
  const bool alpha_is_one = mul3_rne32(alpha, d.a_global_scale, d.b_global_scale) == 1.0f;
  spec.accumulate_into_c = api::chain_from_c(d.accumulate, alpha_is_one, true);
  api::to_row_major(layout, a, b, M, N);
  driver::gemm(spec, M, N, K, alpha, a, b, beta, Fmt::fp32, C, ldc);
}

extern "C" {

void mmaemu_block_scale_desc_init(mmaemu_block_scale_desc* d) {
  if (!d) return;
  *d = {MMAEMU_E4M3, MMAEMU_E4M3, MMAEMU_UE8M0, 32, MMAEMU_UNIT_AUTO, 0, 1.0f, 1.0f, MMAEMU_ACC_GPU_BLAS, 0};
}

int mmaemu_gemm_block_scaled(const mmaemu_model* model, const mmaemu_block_scale_desc* desc,
                             mmaemu_layout layout, mmaemu_transpose ta, mmaemu_transpose tb, int m, int n,
                             int k, float alpha, const uint8_t* A, int lda, const uint8_t* SA, int ldsa,
                             const uint8_t* B, int ldb, const uint8_t* SB, int ldsb, float beta, float* C,
                             int ldc) {
  return guarded([&] {
    const ScaledUnit u = api::resolve_scaled(model, desc);
    api::check_layout(layout, ta, tb);
    require(m >= 0 && n >= 0 && k >= 0, "negative m, n or k");
    if (m == 0 || n == 0) return MMAEMU_OK;
    // k against the block: driver::gemm's check (std::invalid_argument,
    // MMAEMU_ERR_ARGUMENT), before it reads anything.
    const size_t M = m, N = n, K = k, KB = u.block ? K / u.block : 0;
    const bool row = layout == MMAEMU_ROW_MAJOR, at = ta != MMAEMU_NO_TRANS, bt = tb != MMAEMU_NO_TRANS;
    const bool packed = desc->fp4_packed != 0;
    api::check_ld("A", row, at, M, packed ? (K + 1) / 2 : K, lda);
    api::check_ld("B", row, bt, packed ? (K + 1) / 2 : K, N, ldb);
    api::check_ld("C", row, false, M, N, ldc);
    require(K == 0 || (A && B), "null A or B");
    require(C, "null C");
    if (u.block) {
      require(KB == 0 || (SA && SB), "null SA or SB");
      api::check_ld("SA", row, at, M, KB, ldsa);
      api::check_ld("SB", row, bt, KB, N, ldsb);
    }
    const Fmt fa = fmt_of(desc->a_format), fb = fmt_of(desc->b_format);
    // Every code checked before C is touched; then the driver reads the
    // operands where they are (driver::Operand, in the CBLAS layout's
    // row-major view, as mmaemu_gemm's).
    check_codes(CodeMatrix{A, static_cast<size_t>(lda), row, at, packed, true, fa, "A"}, M, K);
    check_codes(CodeMatrix{B, static_cast<size_t>(ldb), row, bt, packed, false, fb, "B"}, N, K);
    const driver::Operand a{fa, A, lda, at, u.block ? SA : nullptr, ldsa, packed};
    const driver::Operand b{fb, B, ldb, bt, u.block ? SB : nullptr, ldsb, packed};
    api::run_scaled_gemm(u, *desc, layout, M, N, K, alpha, a, b, beta, C, ldc);
    return MMAEMU_OK;
  });
}

int mmaemu_tile_block_scaled_shape(const mmaemu_model* model, const mmaemu_block_scale_desc* desc, int* m,
                                   int* n, int* k, const char** instruction) {
  return guarded([&] {
    const ScaledUnit u = api::resolve_scaled(model, desc);
    if (m) *m = u.m;
    if (n) *n = u.n_min;
    if (k) *k = u.k;
    if (instruction) *instruction = u.instruction;  // static storage
    return MMAEMU_OK;
  });
}

int mmaemu_tile_block_scaled(const mmaemu_model* model, const mmaemu_block_scale_desc* desc,
                             mmaemu_format output, const uint8_t* A, const uint8_t* SA, const uint8_t* B,
                             const uint8_t* SB, const void* C, void* D) {
  return guarded([&] {
    const ScaledUnit u = api::resolve_scaled(model, desc);
    scaled_output(u, output);
    require(A && B && C && D && (!u.block || (SA && SB)), "null pointer");
    const size_t M = u.m, N = u.n_min, K = u.k;
    const bool packed = desc->fp4_packed != 0;
    const CodeMatrix a{A, packed ? K / 2 : K, true, false, packed, true, fmt_of(desc->a_format), "A"};
    const CodeMatrix b{B, N, true, false, packed, false, fmt_of(desc->b_format), "B"};
    // One tile on the batched engine: the codes checked (element by
    // element, A's row i then B's columns), B unpacked along k, then a
    // batch of one.
    std::vector<uint8_t> ac(M * K), bc(K * N);
    for (size_t i = 0; i < M; ++i) {
      for (size_t l = 0; l < K; ++l) ac[i * K + l] = a.code(i, l);
      if (i == 0)
        for (size_t j = 0; j < N; ++j)
          for (size_t l = 0; l < K; ++l) bc[l * N + j] = b.code(l, j);
    }
    return scaled_batch(u, desc, output, 1, M, N, K, ac.data(), SA, bc.data(), SB, C, D, 1, false);
  });
}

int mmaemu_tile_batch_block_scaled(const mmaemu_model* model, const mmaemu_block_scale_desc* desc,
                                   mmaemu_format output, size_t count, const uint8_t* A, const uint8_t* SA,
                                   const uint8_t* B, const uint8_t* SB, const void* C, void* D, int threads) {
  return guarded([&] {
    const ScaledUnit u = api::resolve_scaled(model, desc);
    return scaled_batch(u, desc, output, count, u.m, u.n_min, u.k, A, SA, B, SB, C, D, threads,
                        desc->fp4_packed != 0);
  });
}

int mmaemu_dot_batch_block_scaled(const mmaemu_model* model, const mmaemu_block_scale_desc* desc,
                                  mmaemu_format output, size_t count, int k, const uint8_t* A, const uint8_t* SA,
                                  const uint8_t* B, const uint8_t* SB, const void* C, void* D, int threads) {
  return guarded([&] {
    const ScaledUnit u = api::resolve_scaled(model, desc);
    require(k >= 1, "k must be at least 1");
    require(!u.block || k % u.block == 0,
            "k = " + std::to_string(k) + " is not a multiple of block_size " + std::to_string(u.block));
    require(!desc->fp4_packed || k % 2 == 0, "fp4_packed needs an even k");
    return scaled_batch(u, desc, output, count, 1, 1, static_cast<size_t>(k), A, SA, B, SB, C, D, threads,
                        desc->fp4_packed != 0);
  });
}

int mmaemu_quantize_mx(mmaemu_format element, int block_size, size_t n, const float* x, uint8_t* codes,
                       uint8_t* scales) {
  return guarded([&] {
    check_enum("element", element, api::kScaledElements);
    require(block_size > 0, "block_size must be positive");
    require(n == 0 || (x && codes && scales), "null pointer");
    quantise_mx(fmt_of(element), static_cast<size_t>(block_size), x, n, codes, scales);
    return MMAEMU_OK;
  });
}

int mmaemu_nvfp4_global_scale(size_t n, const float* x, float* encode, float* decode) {
  return guarded([&] {
    require((n == 0 || x) && encode && decode, "null pointer");
    const Nvfp4Global g = nvfp4_global_scale(x, n);
    *encode = g.encode;
    *decode = g.decode;
    return MMAEMU_OK;
  });
}

int mmaemu_quantize_nvfp4(size_t n, const float* x, float encode, uint8_t* codes, uint8_t* scales) {
  return guarded([&] {
    require(n == 0 || (x && codes && scales), "null pointer");
    require(std::isfinite(encode) && encode > 0, "encode scale must be positive and finite");
    quantise_nvfp4(x, n, encode, codes, scales);
    return MMAEMU_OK;
  });
}

int mmaemu_dequantize(mmaemu_format element, mmaemu_format scale, int block_size, size_t n,
                      const uint8_t* codes, const uint8_t* scales, float global_scale, float* x) {
  return guarded([&] {
    check_enum("element", element, api::kScaledElements);
    check_enum("scale", scale, api::kScaleFormats);
    require(block_size > 0, "block_size must be positive");
    require(std::isfinite(global_scale) && global_scale > 0,
            "global_scale must be positive and finite (a decode scale), got " + std::to_string(global_scale));
    require(n == 0 || (x && codes && scales), "null pointer");
    check_code_array("codes", codes, n, fmt_of(element));
    dequantise(fmt_of(element), fmt_of(scale), static_cast<size_t>(block_size), codes, scales, n, global_scale, x);
    return MMAEMU_OK;
  });
}

}  // extern "C"

// ---- sgemm under a block-scaled input policy (the BLAS shim's drop-in) ----

extern "C" {

int mmaemu_parse_block_scaled_policy(const char* policy, mmaemu_block_scale_desc* desc) {
  return guarded([&] {
    require(desc, "null descriptor");
    const ScaledPolicy& p = scaled_policy(policy);
    mmaemu_block_scale_desc_init(desc);
    desc->a_format = desc->b_format = static_cast<mmaemu_format>(p.element);  // same order as Fmt
    desc->scale_format = static_cast<mmaemu_format>(p.scale);
    desc->block_size = p.block;
    return MMAEMU_OK;
  });
}

int mmaemu_block_scaled_policy_count(void) { return static_cast<int>(scaled_policies().size()); }

const char* mmaemu_block_scaled_policy_name(int i) {
  return i >= 0 && i < mmaemu_block_scaled_policy_count() ? scaled_policies()[i].name : nullptr;
}

// mmaemu_sgemm_ex with a block-scaled policy (the one sgemm path, c_api.cpp).
int mmaemu_sgemm_block_scaled_acc(const mmaemu_model* model, const char* policy, mmaemu_accumulate accumulate,
                                  mmaemu_layout layout, mmaemu_transpose ta, mmaemu_transpose tb, int m, int n,
                                  int k, float alpha, const float* A, int lda, const float* B, int ldb, float beta,
                                  float* C, int ldc) {
  mmaemu_block_scale_desc desc;
  if (const int status = mmaemu_parse_block_scaled_policy(policy, &desc)) return status;  // not element-wise
  mmaemu_sgemm_options opt;
  mmaemu_sgemm_options_init(&opt);
  opt.policy = policy;
  opt.accumulate = accumulate;
  return mmaemu_sgemm_ex(model, &opt, layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

int mmaemu_sgemm_block_scaled(const mmaemu_model* model, const char* policy, mmaemu_layout layout,
                              mmaemu_transpose ta, mmaemu_transpose tb, int m, int n, int k, float alpha,
                              const float* A, int lda, const float* B, int ldb, float beta, float* C, int ldc) {
  return mmaemu_sgemm_block_scaled_acc(model, policy, MMAEMU_ACC_GPU_BLAS, layout, ta, tb, m, n, k, alpha, A, lda,
                                       B, ldb, beta, C, ldc);
}

}  // extern "C"
