// SPDX-License-Identifier: BSD-3-Clause
#include "experiments/compare_scaled.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <stdexcept>

#include "experiments/numerics.h"
#include "formats/format.h"
#include "mmaemu/mmaemu.h"

namespace mmaemu::experiments {
namespace {

mmaemu_block_scale_desc policy_desc(const std::string& policy) {
  mmaemu_block_scale_desc d;
  if (mmaemu_parse_block_scaled_policy(policy.c_str(), &d) != MMAEMU_OK)
    throw std::invalid_argument(mmaemu_last_error());
  return d;
}

double value(mmaemu_format f, uint8_t code) {
  return std::bit_cast<double>(to_fp64_bits(static_cast<Fmt>(f), code));  // same order as Fmt
}

void check(int status) {
  if (status != MMAEMU_OK) throw std::runtime_error(mmaemu_last_error());
}

// `lines` vectors of length k (vector i at x + i*k) quantised as the policy
// does (docs/block-scaled.md §4.6) and dequantised exactly into out (same layout).
void quantise_lines(const mmaemu_block_scale_desc& d, const std::vector<float>& x, std::size_t lines,
                    std::size_t k, std::vector<double>& out) {
  const std::size_t bs = d.block_size, kb = (k + bs - 1) / bs;
  std::vector<uint8_t> codes(k), scales(kb);
  float encode = 1, decode = 1;
  if (d.scale_format == MMAEMU_UE4M3) check(mmaemu_nvfp4_global_scale(x.size(), x.data(), &encode, &decode));
  out.assign(lines * k, 0.0);
  for (std::size_t i = 0; i < lines; ++i) {
    const float* v = x.data() + i * k;
    if (d.scale_format == MMAEMU_UE4M3) check(mmaemu_quantize_nvfp4(k, v, encode, codes.data(), scales.data()));
    else check(mmaemu_quantize_mx(d.a_format, d.block_size, k, v, codes.data(), scales.data()));
    // element * scale * global: at most 4 + 4 + 24 significant bits, exact in binary64
    for (std::size_t l = 0; l < k; ++l)
      out[i * k + l] = value(d.a_format, codes[l]) * value(d.scale_format, scales[l / bs]) * double(decode);
  }
}

std::vector<float> to_float(const Matrix& m, bool transpose) {
  std::vector<float> f(m.v.size());
  for (std::size_t i = 0; i < m.rows; ++i)
    for (std::size_t j = 0; j < m.cols; ++j)
      f[transpose ? j * m.rows + i : i * m.cols + j] = static_cast<float>(m(i, j));
  return f;
}

}  // namespace

bool is_block_scaled_input(const std::string& policy) {
  mmaemu_block_scale_desc d;
  return mmaemu_parse_block_scaled_policy(policy.c_str(), &d) == MMAEMU_OK;
}

std::string block_scaled_error(const std::string& text) {
  mmaemu_block_scale_desc d;
  return mmaemu_parse_block_scaled_policy(text.c_str(), &d) == MMAEMU_OK ? "" : mmaemu_last_error();
}

Dequantised dequantise_operands(const Matrix& A, const Matrix& B, const std::string& policy) {
  const mmaemu_block_scale_desc d = policy_desc(policy);
  const std::size_t m = A.rows, k = A.cols, n = B.cols;
  std::vector<double> a, bt;
  quantise_lines(d, to_float(A, false), m, k, a);   // rows of A
  quantise_lines(d, to_float(B, true), n, k, bt);   // columns of B
  Dequantised q{Matrix(m, k), Matrix(k, n)};
  q.A.v = a;
  for (std::size_t j = 0; j < n; ++j)
    for (std::size_t l = 0; l < k; ++l) q.B(l, j) = bt[j * k + l];
  return q;
}

std::vector<CompareResult> run_compare_scaled(const Matrix& A, const Matrix& B, const std::vector<Model>& models,
                                              const std::string& policy, int threads) {
  const std::size_t m = A.rows, k = A.cols, n = B.cols;
  const Matrix Cref = exact_product(A, B, threads);
  const Dequantised q = dequantise_operands(A, B, policy);
  const Matrix Cq = exact_product(q.A, q.B, threads);
  std::vector<CompareResult> res(1);
  res[0].model = "quantisation";
  res[0].instr = "exact product of the dequantised operands";
  res[0].normwise = normwise_error_fro(Cq, Cref);
  res[0].componentwise = componentwise_error(Cq, Cref);

  const std::vector<float> Af = to_float(A, false), Bf = to_float(B, false);
  for (const Model& model : models) {
    CompareResult r;
    r.model = model.name;
    mmaemu_model* h = nullptr;
    check(mmaemu_model_lookup(model.name.c_str(), &h));
    mmaemu_block_scale_desc d = policy_desc(policy);
    const char* instr = nullptr;
    if (mmaemu_tile_block_scaled_shape(h, &d, nullptr, nullptr, nullptr, &instr) != MMAEMU_OK) {
      r.skipped = true;
      r.reason = model.scaled.empty() ? "no block-scaled unit" : mmaemu_last_error();
      mmaemu_model_free(h);
      res.push_back(r);
      continue;
    }
    r.instr = instr;
    std::vector<float> C(m * n, 0.0f);
    const auto t0 = std::chrono::steady_clock::now();
    const int status = mmaemu_sgemm_block_scaled(h, policy.c_str(), MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS,
                                                 MMAEMU_NO_TRANS, int(m), int(n), int(k), 1.0f, Af.data(),
                                                 std::max<int>(1, int(k)), Bf.data(), std::max<int>(1, int(n)),
                                                 0.0f, C.data(), std::max<int>(1, int(n)));
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    mmaemu_model_free(h);
    if (status != MMAEMU_OK) {
      r.skipped = true;
      r.reason = mmaemu_last_error();
      res.push_back(r);
      continue;
    }
    Matrix Cm(m, n);
    for (std::size_t i = 0; i < C.size(); ++i) Cm.v[i] = C[i];
    r.normwise = normwise_error_fro(Cm, Cref);
    r.componentwise = componentwise_error(Cm, Cref);
    r.unit_normwise = normwise_error_fro(Cm, Cq);
    res.push_back(r);
  }
  return res;
}

}  // namespace mmaemu::experiments
