// SPDX-License-Identifier: BSD-3-Clause
#include "driver/epilogue.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "formats/block_quantise.h"
#include "formats/fast_convert.h"
#include "formats/fast_round.h"
#include "models/row_facts.h"

namespace mmaemu::driver {

namespace {
constexpr uint32_t kScaledNaN = 0x7FFFFFFF;  // every NaN of a block-scaled GEMM (docs/block-scaled.md §4.4)
}

Epilogue::Epilogue(const GemmSpec& spec, double alpha, double beta, Fmt c_storage, void* C, std::ptrdiff_t ldc)
    : out_(spec.scaled ? Fmt::fp32 : spec.row->out), alpha_(alpha), beta_(beta), c_storage_(c_storage), C_(C),
      ldc_(ldc), scaled_(spec.scaled != nullptr) {
  if (info(out_).is_integer()) {  // the header's integer rule
    if (alpha != 1.0 || (beta != 0.0 && beta != 1.0))
      throw std::invalid_argument("an integer GEMM computes D = A*B + C: alpha = 1, beta = 0 or 1");
    if (c_storage != out_) throw std::invalid_argument(std::string("an integer GEMM stores ") + info(out_).name);
    integer_ = true;
    epi_ = out_;
    alpha_e_ = beta_e_ = nan_store_ = 0;
    read_c_ = use_c_ = false;
    zero_init_ = beta == 0.0;
    return;
  }
  if (scaled_) alpha_ = mul3_rne32(static_cast<float>(alpha), spec.scaled->g_a, spec.scaled->g_b);
  epi_ = out_ == Fmt::fp64 ? Fmt::fp64 : Fmt::fp32;
  alpha_e_ = convert(Fmt::fp64, epi_, std::bit_cast<uint64_t>(alpha_), Round::rne);
  beta_e_ = convert(Fmt::fp64, epi_, std::bit_cast<uint64_t>(beta), Round::rne);
  nan_store_ = scaled_                  ? kScaledNaN
               : c_storage == Fmt::fp32 ? spec.row->nan32
               : c_storage == Fmt::fp16 ? spec.row->nan16
               : c_storage == out_      ? nan_result(*spec.row)
                                        : default_nan(c_storage);
  read_c_ = beta != 0.0;
  use_c_ = read_c_ && !spec.accumulate_into_c;
  zero_init_ = !(spec.accumulate_into_c && read_c_ && !(spec.row && spec.row->ignores_c));
}

uint64_t Epilogue::beta_c(std::size_t i, std::size_t j, Fmt f) const {
  const uint64_t v = scale_round(beta_, c_storage_, load(c_storage_, C_, at(i, j)), f);
  return scaled_ && is_nan(f, v) ? kScaledNaN : v;
}

uint64_t Epilogue::initial_acc_other(std::size_t i, std::size_t j) const {
  if (integer_) return load(c_storage_, C_, at(i, j));
  return zero_init_ ? zero_bits(out_, false) : beta_c(i, j, out_);
}

// The general case: any output and storage format.
void Epilogue::store_one(uint64_t acc, std::size_t i, std::size_t j) const {
  if (is_nan(out_, acc)) return store(c_storage_, C_, at(i, j), nan_store_);
  const uint64_t a = convert_fast(out_, epi_, acc);  // exact widening
  uint64_t d;
  if (epi_ == Fmt::fp64) {
    const double al = std::bit_cast<double>(alpha_e_), x = std::bit_cast<double>(a);
    d = std::bit_cast<uint64_t>(x * al);
    if (use_c_) {
      const double t = std::bit_cast<double>(beta_e_) *
                       std::bit_cast<double>(convert(c_storage_, epi_, load(c_storage_, C_, at(i, j)), Round::rne));
      d = std::bit_cast<uint64_t>(std::fma(al, x, t));
    }
  } else {
    const float al = std::bit_cast<float>(static_cast<uint32_t>(alpha_e_));
    const float x = std::bit_cast<float>(static_cast<uint32_t>(a));
    float r = al * x;
    if (use_c_) {
      const float cv = std::bit_cast<float>(static_cast<uint32_t>(convert_fast(c_storage_, epi_, load(c_storage_, C_, at(i, j)))));
      r = std::fma(al, x, std::bit_cast<float>(static_cast<uint32_t>(beta_e_)) * cv);
    }
    d = std::bit_cast<uint32_t>(r);
  }
  if (alpha_ == 1.0 && !use_c_) d = a;  // the accumulator itself
  store(c_storage_, C_, at(i, j), is_nan(epi_, d) ? nan_store_ : convert_fast(epi_, c_storage_, d));
}

// Storage in the unit's own format (fp32 or fp64), or fp16 results stored
// as fp32: the same operations as store_one(), without the generic
// conversions and decodes.
template <typename V>
void Epilogue::store_row(const V* acc, std::size_t i, std::size_t j0, std::size_t nc) const {
  using U = std::conditional_t<sizeof(V) == 4, uint32_t, uint64_t>;
  using F = std::conditional_t<sizeof(V) == 4, float, double>;
  if (integer_) {  // the codes stored as they are (s32: a row of uint32_t)
    if (sizeof(V) == 4 && info(c_storage_).width == 32)
      std::memcpy(static_cast<uint32_t*>(C_) + at(i, j0), acc, nc * 4);
    else
      for (std::size_t w = 0; w < nc; ++w) store(c_storage_, C_, at(i, j0 + w), std::bit_cast<U>(acc[w]));
    return;
  }
  // fp16 results stored as fp32 (the fp16 -> fp16 rows of an sgemm): the
  // exact widening of each result, then the fp32 case below.
  constexpr bool kBits32 = std::is_same_v<V, uint32_t>;
  const bool half_out = kBits32 && out_ == Fmt::fp16 && c_storage_ == Fmt::fp32;
  if (!half_out && (c_storage_ != out_ || out_ != (sizeof(V) == 4 ? Fmt::fp32 : Fmt::fp64))) {
    for (std::size_t w = 0; w < nc; ++w) store_one(std::bit_cast<U>(acc[w]), i, j0 + w);
    return;
  }
  U* crow = static_cast<U*>(C_) + at(i, j0);
  const F al = std::bit_cast<F>(static_cast<U>(alpha_e_)), be = std::bit_cast<F>(static_cast<U>(beta_e_));
  const U nanv = static_cast<U>(nan_store_);
  if (alpha_ == 1.0 && !use_c_ && !half_out) {
    // D = the accumulator, a NaN as the unit's: the same, in a loop the compiler vectorises.
    constexpr U kAbs = ~U{0} >> 1, kInf = static_cast<U>(sizeof(U) == 4 ? 0x7F800000ull : 0x7FF0000000000000ull);
    for (std::size_t w = 0; w < nc; ++w) {
      const U x = std::bit_cast<U>(acc[w]);
      crow[w] = (x & kAbs) > kInf ? nanv : x;
    }
    return;
  }
  for (std::size_t w = 0; w < nc; ++w) {
    U bits = std::bit_cast<U>(acc[w]);
    if constexpr (kBits32)
      if (half_out) bits = fp16_to_fp32(bits & 0xFFFFu);
    const F x = std::bit_cast<F>(bits);
    F r = x;
    if (use_c_) {
      const F bc = be * std::bit_cast<F>(crow[w]);
      r = std::fma(al, x, bc);
      if (scaled_ && r == 0 && static_cast<double>(al) * static_cast<double>(x) == -static_cast<double>(bc))
        r = 0;  // an exact zero is +0 (block-scaled, fp32: the product is exact in double)
    } else if (alpha_ != 1.0) {
      r = al * x;
    }
    crow[w] = std::isnan(x) || std::isnan(r) ? nanv : std::bit_cast<U>(r);
  }
}

template void Epilogue::store_row(const uint32_t*, std::size_t, std::size_t, std::size_t) const;
template void Epilogue::store_row(const uint64_t*, std::size_t, std::size_t, std::size_t) const;
template void Epilogue::store_row(const float*, std::size_t, std::size_t, std::size_t) const;
template void Epilogue::store_row(const double*, std::size_t, std::size_t, std::size_t) const;

void Epilogue::scale_only(std::size_t m, std::size_t n, int threads) const {
  parallel_for(threads, m, Assign::blocks, [&](std::size_t i) {
    for (std::size_t j = 0; j < n; ++j)
      store(c_storage_, C_, at(i, j), read_c_ ? beta_c(i, j, c_storage_) : zero_bits(c_storage_, false));
  });
}

}  // namespace mmaemu::driver
