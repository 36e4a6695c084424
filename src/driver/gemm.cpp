// SPDX-License-Identifier: BSD-3-Clause
#include "driver/gemm.h"

#include <pthread.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "hwy/aligned_allocator.h"
#include "hwy/base.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#include "driver/fast_round.h"
#include "driver/fp_env.h"
#include "driver/kernels.h"
#include "driver/simd.h"
#include "ref/reference.h"
#include "ref/wide_accumulator.h"

namespace mmaemu::driver {
namespace {

constexpr long kMaxThreads = 4096;

int env_int(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return 0;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  return (*end == '\0' && x > 0 && x <= kMaxThreads) ? static_cast<int>(x) : 0;
}

// MMA_NUM_THREADS is ours: a malformed or out-of-range value is refused
// (OMP_NUM_THREADS belongs to the OpenMP runtime, which reports its own).
int mma_num_threads() {
  const char* v = std::getenv("MMA_NUM_THREADS");
  if (!v || !*v) return 0;
  if (const int t = env_int("MMA_NUM_THREADS")) return t;
  throw std::invalid_argument(std::string("MMA_NUM_THREADS='") + v + "': not a whole number from 1 to " +
                              std::to_string(kMaxThreads));
}

// libgomp's thread pool does not survive fork(): a forked child that starts
// a parallel region waits for the parent's threads forever. A child runs
// every call on its own thread (the bits never depend on the thread count).
bool g_forked_child = false;
[[maybe_unused]] const int g_fork_handler = pthread_atfork(nullptr, nullptr, [] { g_forked_child = true; });

// convert() for the conversions the driver makes per element, with the
// identity and the exact fp16 -> fp32 widening done without decoding.
uint64_t convert_fast(Fmt from, Fmt to, uint64_t bits) {
  if (from == to && !is_nan(from, bits)) return bits;
  if (from == Fmt::fp16 && to == Fmt::fp32 && (bits & 0x7C00u) != 0x7C00u) return fast::fp16_to_fp32(static_cast<uint32_t>(bits));
  return convert(from, to, bits, Round::rne);
}

// The storage -> unit-input conversion of one element; the frequent fp32 ->
// fp16/bf16/tf32 cases without the generic decode (same bits as convert()).
uint64_t convert_input(const GemmSpec& spec, Fmt from, Fmt to, uint64_t bits) {
  if (from == to) return bits;
  const uint32_t b = static_cast<uint32_t>(bits);
  const uint32_t bexp = (b >> 23) & 255;
  if (from != Fmt::fp32 || bexp == 255 || spec.input_overflow == Overflow::saturate)
    return convert(from, to, bits, spec.input_round, spec.input_overflow);
  const bool neg = b >> 31;
  const uint64_t sig = (b & 0x7FFFFFu) | (bexp ? 1u << 23 : 0u);
  const int exp = static_cast<int>(std::max(bexp, 1u)) - 127 - 23;
  const Round r = spec.input_round;
  if (sig == 0) return convert(from, to, bits, r, spec.input_overflow);  // signed zero
  switch (to) {
    case Fmt::tf32:  // fp32 layout, 10 fraction bits; no overflow possible for RZ
      if (r == Round::rz) return b & 0xFFFFE000u;
      if (r == Round::rne || r == Round::rna) return fast::round_fp32(neg, sig, exp, r, 10);
      break;
    case Fmt::fp16:  // RNE/RNA overflow is Inf, as Overflow::inf gives
      if (r == Round::rne || r == Round::rna) return fast::round_fp16(neg, sig, exp, r);
      break;
    case Fmt::bf16:
      if (r == Round::rne || r == Round::rna) return fast::round_binary<7, 127, 15>(neg, sig, exp, r, 7);
      break;
    default: break;
  }
  return convert(from, to, bits, r, spec.input_overflow);
}

// x (format f) times a double, rounded once to `out` (RNE).
uint64_t scale_round(double s, Fmt f, uint64_t x, Fmt out) {
  const Unpacked u = decode(f, x);
  const uint64_t sb = std::bit_cast<uint64_t>(s);
  const Unpacked v = decode(Fmt::fp64, sb);
  if (u.cls == Class::nan || v.cls == Class::nan ||
      (u.cls == Class::inf && v.cls == Class::zero) || (u.cls == Class::zero && v.cls == Class::inf))
    return default_nan(out);
  const bool neg = u.neg != v.neg;
  if (u.cls == Class::inf || v.cls == Class::inf) return convert(Fmt::fp64, out, neg ? 0xFFF0000000000000ull : 0x7FF0000000000000ull, Round::rne);
  if (u.cls == Class::zero || v.cls == Class::zero) return zero_bits(out, neg);
  ref::WideAccumulator acc;
  acc.add(neg, static_cast<unsigned __int128>(u.sig) * v.sig, u.exp + v.exp);
  return acc.round(out, Round::rne, Overflow::ieee);
}

// One packed operand panel: `count` vectors of `kp` elements (rows of A or
// columns of B), each vector contiguous along k.
struct Panel {
  std::size_t kp = 0, steps = 0;
  std::vector<uint64_t> bits;    // row.in bit patterns, for the reference fallback
  std::vector<int32_t> sig, exp; // fast-kernel operands (pack_element)
  std::vector<uint8_t> special;  // per (vector, step): NaN/Inf present
  // SIMD kernels: values and significands as floats; for B also
  // lane-interleaved copies (groups of 16 vectors, element l of lane j at
  // l*16 + j).
  std::vector<float> fval, fsig, lane_val, lane_sig;
  std::vector<int32_t> lane_exp;
  std::vector<uint8_t> group_special;  // per (group, step)
  // SimdKind::interleaved: the fast arrays hold each instruction's k
  // permuted (pair_position); `bits` keep the model's order.
  bool interleave = false;

  void resize(std::size_t count, bool simd, bool lanes) {
    bits.assign(count * kp, 0);
    sig.assign(count * kp, 0);
    exp.assign(count * kp, fast::kZeroExp);
    special.assign(count * steps, 0);
    if (simd) fsig.assign(count * kp, 0.0f), fval.assign(count * kp, 0.0f);
    if (simd && lanes) {
      const std::size_t groups = (count + fast::kSimdLanes - 1) / fast::kSimdLanes;
      lane_sig.assign(groups * kp * fast::kSimdLanes, 0.0f);
      lane_val.assign(groups * kp * fast::kSimdLanes, 0.0f);
      lane_exp.assign(groups * kp * fast::kSimdLanes, fast::kZeroExp);
      group_special.assign(groups * steps, 0);
    }
  }
};

// Where element j of an instruction of 2*half elements goes in the
// interleaved HMMA path's packing: its two groups contiguous.
//
//   position j:  0 1 2 3 4 5 6 7 ...      j % 4 < 2: first group
//   packed at:   0 1 h h+1 2 3 h+2 h+3    (h = half)
inline std::size_t pair_position(std::size_t j, std::size_t half) {
  return (j % 4 < 2 ? 0 : half) + (j / 4) * 2 + (j % 2);
}

// Packs vector v of the panel from op(X) row/column `index`, k elements
// from k0 on.
void pack_vector(const ModelRow& row, const GemmSpec& spec, const Operand& X, bool is_a,
                 std::size_t index, std::size_t k0, std::size_t k, Panel& p, std::size_t v) {
  const std::size_t step = ref::step_k(row);
  for (std::size_t l = 0; l < k; ++l) {
    // Element (index, k0 + l) of op(A), or (k0 + l, index) of op(B).
    const std::size_t r = is_a ? index : k0 + l, c = is_a ? k0 + l : index;
    const std::ptrdiff_t off = X.trans ? static_cast<std::ptrdiff_t>(c) * X.ld + static_cast<std::ptrdiff_t>(r)
                                       : static_cast<std::ptrdiff_t>(r) * X.ld + static_cast<std::ptrdiff_t>(c);
    uint64_t bits = load(X.storage, X.data, off);
    bits = convert_input(spec, X.storage, row.in, bits);
    p.bits[v * p.kp + l] = bits;
    const std::size_t at = v * p.kp + (p.interleave ? l - l % step + pair_position(l % step, step / 2) : l);
    if (!fast::pack_element(row, bits, p.sig[at], p.exp[at])) p.special[v * p.steps + l / step] = 1;
    if (!p.fsig.empty()) {
      if (fast::operand_kind(row) == fast::Operand::real) {
        p.fval[at] = std::bit_cast<float>(static_cast<uint32_t>(p.sig[at]));  // the fp32 value
      } else {
        // The unit's operand value (fp8 already widened to fp16): exact in fp32.
        p.fsig[at] = static_cast<float>(p.sig[at]);
        p.fval[at] = std::ldexp(p.fsig[at], p.exp[at] - fast::unit_man(row));
      }
    }
  }
  if (p.lane_sig.empty()) return;
  const std::size_t g = v / fast::kSimdLanes, lane = v % fast::kSimdLanes;
  for (std::size_t l = 0; l < (p.interleave ? p.kp : k); ++l) {  // (interleaved: k is spread)
    p.lane_sig[(g * p.kp + l) * fast::kSimdLanes + lane] = p.fsig[v * p.kp + l];
    p.lane_val[(g * p.kp + l) * fast::kSimdLanes + lane] = p.fval[v * p.kp + l];
    p.lane_exp[(g * p.kp + l) * fast::kSimdLanes + lane] = p.exp[v * p.kp + l];
  }
}

// The fp64 chain (DMMA, f64 MFMA): d = fma(a_i, b_i, d) in binary64.
uint64_t fp64_chain(const ModelRow& row, std::size_t k, const uint64_t* a, const uint64_t* b,
                    uint64_t c) {
  double d = std::bit_cast<double>(c);
  for (std::size_t l = 0; l < k; ++l)
    d = std::fma(std::bit_cast<double>(a[l]), std::bit_cast<double>(b[l]), d);
  return std::isnan(d) ? ref::nan_result(row) : std::bit_cast<uint64_t>(d);
}

// A growable 64-byte aligned buffer (contents not kept on growth).
template <typename T>
struct AlignedBuf {
  hwy::AlignedFreeUniquePtr<T[]> p;
  std::size_t cap = 0;
  T* get(std::size_t count) {
    if (count > cap || !p) {
      p = hwy::AllocateAligned<T>(std::max<std::size_t>(count, 1));
      if (!p) throw std::bad_alloc();  // the C API reports it
      cap = std::max<std::size_t>(count, 1);
    }
    return p.get();
  }
};

// Strides of vector `index` and of k in op(X) (A: rows, B: columns).
struct VecStrides {
  std::ptrdiff_t idx, k;
};
VecStrides vec_strides(const Operand& X, bool is_a) {
  const bool k_contig = is_a != X.trans;  // A(i, k) at i*ld + k; B^T(k, j) at j*ld + k
  return k_contig ? VecStrides{X.ld, 1} : VecStrides{1, X.ld};
}

// ---------------------------------------------------------------------------
// FMA-chain rows (fp32 SFMA, fp64 DMMA / f64 MFMA): operands are the unit's
// IEEE values, packed BLIS-style for simd_chain_tile: A in micro-panels of
// kChainMR rows (a[l*MR + r]), B in micro-panels of NR columns (b[l*NR + j]),
// zero-padded. fp32 storage for an fp32 unit (fp64 for fp64) is copied as is.

// The unit's value of one stored element, as the chain reads it.
template <typename T>
T chain_value(const ModelRow& row, const GemmSpec& spec, const Operand& X, std::ptrdiff_t off) {
  const uint64_t bits = convert_input(spec, X.storage, row.in, load(X.storage, X.data, off));
  if constexpr (sizeof(T) == 4)
    return std::bit_cast<float>(row.in == Fmt::fp32 ? static_cast<uint32_t>(bits) : to_fp32_bits(row.in, bits));
  else
    return std::bit_cast<double>(bits);  // row.in == fp64
}

// Packs vectors first .. first+count-1 of op(X) (k0 .. k0+kc-1) into
// micro-panels of `width` vectors: dst[(p*kc + l)*width + q].
template <typename T>
void pack_chain(const ModelRow& row, const GemmSpec& spec, const Operand& X, bool is_a, std::size_t first,
                std::size_t count, std::size_t k0, std::size_t kc, std::size_t width, T* dst) {
  const bool raw = X.storage == row.in && row.in == (sizeof(T) == 4 ? Fmt::fp32 : Fmt::fp64);
  const VecStrides st = vec_strides(X, is_a);
  const T* src = static_cast<const T*>(X.data);
  for (std::size_t p = 0; p * width < count; ++p) {
    T* d = dst + p * kc * width;
    const std::size_t base = first + p * width, qn = std::min(width, count - p * width);
    const std::ptrdiff_t o0 = static_cast<std::ptrdiff_t>(base) * st.idx + static_cast<std::ptrdiff_t>(k0) * st.k;
    if (raw && st.idx == 1) {  // vectors contiguous: rows of width values
      for (std::size_t l = 0; l < kc; ++l) {
        const T* s = src + o0 + static_cast<std::ptrdiff_t>(l) * st.k;
        T* o = d + l * width;
        for (std::size_t q = 0; q < qn; ++q) o[q] = s[q];
        for (std::size_t q = qn; q < width; ++q) o[q] = T(0);
      }
      continue;
    }
    if (raw) {  // k contiguous: interleave qn streams
      for (std::size_t q = 0; q < qn; ++q) {
        const T* s = src + o0 + static_cast<std::ptrdiff_t>(q) * st.idx;
        for (std::size_t l = 0; l < kc; ++l) d[l * width + q] = s[l];
      }
    } else {
      for (std::size_t q = 0; q < qn; ++q)
        for (std::size_t l = 0; l < kc; ++l)
          d[l * width + q] = chain_value<T>(row, spec, X, o0 + static_cast<std::ptrdiff_t>(q) * st.idx +
                                                              static_cast<std::ptrdiff_t>(l) * st.k);
    }
    for (std::size_t q = qn; q < width; ++q)
      for (std::size_t l = 0; l < kc; ++l) d[l * width + q] = T(0);
  }
}

// ---------------------------------------------------------------------------
// Exact rows (CDNA1) on simd_exact_run16: operands as doubles (exact), per
// block the power-of-two bounds of exact_bounds() and NaN/Inf flags.
struct ExactPanel {
  std::size_t kp = 0, steps = 0, count = 0, groups = 0;
  AlignedBuf<double> val, lo, hi;      // A: val[v*kp + l], lo/hi[v*steps + s]
                                       // B: val[(g*kp + l)*16 + j], lo/hi[(g*steps + s)*16 + j]
  std::vector<uint8_t> special;        // per (vector, step)
  std::vector<uint8_t> group_special;  // B: per (group, step)

  void resize(std::size_t n, std::size_t kp_, std::size_t steps_, bool lanes) {
    count = n, kp = kp_, steps = steps_;
    groups = (n + fast::kSimdLanes - 1) / fast::kSimdLanes;
    const std::size_t vecs = lanes ? groups * fast::kSimdLanes : n;
    val.get(vecs * kp);
    lo.get(vecs * steps);
    hi.get(vecs * steps);
    special.assign(n * steps, 0);
    if (lanes) group_special.assign(groups * steps, 0);
  }
};

// fp32 -> fp16 and fp32 -> bf16 with RNE, overflow to Inf (what
// convert_input gives for those policies; NaN stays NaN, pattern aside).
// fp16: normal results by integer rounding of the shifted fp32 bits, the
// subnormal range by one float addition (RNE under FpEnvGuard) that aligns
// the value at the fp16 subnormal grid 2^-24.
inline uint32_t f32_to_f16_rne(uint32_t f) {
  const uint32_t sign = (f >> 16) & 0x8000u;
  f &= 0x7FFFFFFFu;
  if (f >= (127u + 16u) << 23) return sign | (f > 0x7F800000u ? 0x7E00u : 0x7C00u);  // |x| >= 2^16, NaN
  if (f < (127u - 14u) << 23) {                                                       // below 2^-14
    const float magic = std::bit_cast<float>(((127u - 15u) + (23u - 10u) + 1u) << 23);  // 2^-1
    return sign | (std::bit_cast<uint32_t>(std::bit_cast<float>(f) + magic) - std::bit_cast<uint32_t>(magic));
  }
  const uint32_t odd = (f >> 13) & 1u;
  f += ((15u - 127u) << 23) + 0xFFFu + odd;  // rebias, round half to even
  return sign | (f >> 13);
}
inline uint32_t f32_to_bf16_rne(uint32_t f) {
  if ((f & 0x7FFFFFFFu) > 0x7F800000u) return (f >> 16) | 0x40u;  // NaN stays NaN
  return (f + 0x7FFFu + ((f >> 16) & 1u)) >> 16;
}

// The unit-format element as a double (NaN/Inf kept; `special` set for them).
double exact_value(const ModelRow& row, uint64_t bits, bool& special) {
  uint32_t f;
  if (row.in == Fmt::fp16) f = fast::fp16_to_fp32(static_cast<uint32_t>(bits));
  else if (row.in == Fmt::bf16) f = static_cast<uint32_t>(bits) << 16;
  else f = to_fp32_bits(row.in, bits);
  special = (f & 0x7F800000u) == 0x7F800000u;
  return static_cast<double>(std::bit_cast<float>(f));
}

// Packs vector v of an exact panel from op(X) vector `index` (k0 .. k0+kc-1).
void pack_exact(const ModelRow& row, const GemmSpec& spec, const Operand& X, bool is_a, std::size_t index,
                std::size_t k0, std::size_t kc, ExactPanel& p, std::size_t v) {
  const std::size_t step = ref::step_k(row);
  const int man = fast::unit_man(row), st = static_cast<int>(step);
  const VecStrides vs = vec_strides(X, is_a);
  const std::ptrdiff_t o0 = static_cast<std::ptrdiff_t>(index) * vs.idx + static_cast<std::ptrdiff_t>(k0) * vs.k;
  const bool lanes = !is_a;
  const std::size_t g = v / fast::kSimdLanes, lane = v % fast::kSimdLanes;
  double* val = p.val.p.get();
  // fp32 storage rounded to fp16/bf16 with RNE (the usual sgemm policies).
  const bool rne = X.storage == Fmt::fp32 && spec.input_round == Round::rne &&
                   spec.input_overflow != Overflow::saturate;
  const bool f16 = rne && row.in == Fmt::fp16, b16 = rne && row.in == Fmt::bf16;
  const uint32_t* f32 = static_cast<const uint32_t*>(X.data);
  for (std::size_t s = 0; s < p.steps; ++s) {
    int lo = fast::kExactNone, hi = -fast::kExactNone;
    bool special = false;
    for (std::size_t l = s * step; l < (s + 1) * step; ++l) {
      double x = 0.0;
      if (l < kc) {
        bool sp;
        const std::ptrdiff_t off = o0 + static_cast<std::ptrdiff_t>(l) * vs.k;
        if (f16 || b16) {
          const uint32_t h = f16 ? fast::fp16_to_fp32(f32_to_f16_rne(f32[off])) : f32_to_bf16_rne(f32[off]) << 16;
          sp = (h & 0x7F800000u) == 0x7F800000u;
          x = static_cast<double>(std::bit_cast<float>(h));
        } else {
          x = exact_value(row, convert_input(spec, X.storage, row.in, load(X.storage, X.data, off)), sp);
        }
        special |= sp;
        if (!sp && x != 0.0) {
          const int e = static_cast<int>((std::bit_cast<uint64_t>(x) >> 52) & 0x7FF) - 1023;  // floor(log2 |x|)
          lo = std::min(lo, e);
          hi = std::max(hi, e);
        }
      }
      val[lanes ? (g * p.kp + l) * fast::kSimdLanes + lane : v * p.kp + l] = x;
    }
    const std::size_t at = lanes ? (g * p.steps + s) * fast::kSimdLanes + lane : v * p.steps + s;
    fast::exact_bounds(is_a, lo, hi, man, st, p.lo.p[at], p.hi.p[at]);
    if (special) p.special[v * p.steps + s] = 1;
  }
}

// B lanes past the panel's last column: zero operands, neutral bounds.
void pad_exact_lanes(const ModelRow& row, ExactPanel& p) {
  const int man = fast::unit_man(row), st = static_cast<int>(ref::step_k(row));
  for (std::size_t v = p.count; v < p.groups * fast::kSimdLanes; ++v) {
    const std::size_t g = v / fast::kSimdLanes, lane = v % fast::kSimdLanes;
    for (std::size_t l = 0; l < p.kp; ++l) p.val.p[(g * p.kp + l) * fast::kSimdLanes + lane] = 0.0;
    for (std::size_t s = 0; s < p.steps; ++s) {
      const std::size_t at = (g * p.steps + s) * fast::kSimdLanes + lane;
      fast::exact_bounds(false, fast::kExactNone, -fast::kExactNone, man, st, p.lo.p[at], p.hi.p[at]);
    }
  }
}

// An integer significand and exponent of a finite double with at most
// man+1 significant bits, as pack_element() gives them (value sig * 2^(exp-man)).
void split_exact(double x, int man, int32_t& sig, int32_t& exp) {
  if (x == 0.0) {
    sig = 0;
    exp = fast::kZeroExp;
    return;
  }
  int e;
  const double m = std::frexp(x, &e);  // |m| in [0.5, 1)
  sig = static_cast<int32_t>(std::ldexp(m, man + 1));
  exp = e - 1;
}

}  // namespace

int thread_count(int requested) {
  if (g_forked_child) return 1;
  if (requested > 0) return requested;
  if (int t = mma_num_threads()) return t;
  if (int t = env_int("OMP_NUM_THREADS")) return t;
#ifdef _OPENMP
  return omp_get_num_procs();
#else
  return 1;
#endif
}

uint64_t load(Fmt f, const void* base, std::ptrdiff_t i) {
  switch (info(f).width) {
    case 64: return static_cast<const uint64_t*>(base)[i];
    case 32: return static_cast<const uint32_t*>(base)[i];
    case 16: return static_cast<const uint16_t*>(base)[i];
    default: return static_cast<const uint8_t*>(base)[i];
  }
}

void store(Fmt f, void* base, std::ptrdiff_t i, uint64_t bits) {
  switch (info(f).width) {
    case 64: static_cast<uint64_t*>(base)[i] = bits; break;
    case 32: static_cast<uint32_t*>(base)[i] = static_cast<uint32_t>(bits); break;
    case 16: static_cast<uint16_t*>(base)[i] = static_cast<uint16_t>(bits); break;
    default: static_cast<uint8_t*>(base)[i] = static_cast<uint8_t>(bits); break;
  }
}

void gemm(const GemmSpec& spec, std::size_t m, std::size_t n, std::size_t k, double alpha,
          const Operand& A, const Operand& B, double beta, Fmt c_storage, void* C,
          std::ptrdiff_t ldc) {
  if (m == 0 || n == 0) return;
  const ModelRow& row = *spec.row;
  const Fmt out = row.out;
  const bool wide = out == Fmt::fp64;
  const Fmt epi = wide ? Fmt::fp64 : Fmt::fp32;  // epilogue arithmetic
  const bool read_c = beta != 0.0;
  auto c_at = [&](std::size_t i, std::size_t j) {
    return static_cast<std::ptrdiff_t>(i) * ldc + static_cast<std::ptrdiff_t>(j);
  };

  // Epilogue in fp32 (fp64 rows: fp64), as a vendor BLAS does:
  // beta = 0: D = alpha*acc; otherwise D = fma(alpha, acc, beta*C).
  const uint64_t alpha_e = convert(Fmt::fp64, epi, std::bit_cast<uint64_t>(alpha), Round::rne);
  const uint64_t beta_e = convert(Fmt::fp64, epi, std::bit_cast<uint64_t>(beta), Round::rne);
  // NaN results are the unit's NaN (vendor pattern), in any storage format.
  const uint64_t nan_store = c_storage == Fmt::fp32   ? row.nan32
                             : c_storage == Fmt::fp16 ? row.nan16
                             : c_storage == out       ? ref::nan_result(row)
                                                      : default_nan(c_storage);
  auto epilogue = [&](uint64_t acc, std::size_t i, std::size_t j) {
    if (is_nan(out, acc)) return store(c_storage, C, c_at(i, j), nan_store);
    const uint64_t a = convert_fast(out, epi, acc);  // exact widening
    uint64_t d;
    if (wide) {
      const double x = std::bit_cast<double>(a) * std::bit_cast<double>(alpha_e);
      d = std::bit_cast<uint64_t>(x);
      if (read_c && !spec.accumulate_into_c) {
        const double t = std::bit_cast<double>(beta_e) *
                         std::bit_cast<double>(convert(c_storage, epi, load(c_storage, C, c_at(i, j)), Round::rne));
        d = std::bit_cast<uint64_t>(std::fma(std::bit_cast<double>(alpha_e), std::bit_cast<double>(a), t));
      }
    } else {
      const float al = std::bit_cast<float>(static_cast<uint32_t>(alpha_e));
      const float x = std::bit_cast<float>(static_cast<uint32_t>(a));
      float r = al * x;
      if (read_c && !spec.accumulate_into_c) {
        const float cv = std::bit_cast<float>(static_cast<uint32_t>(
            convert_fast(c_storage, epi, load(c_storage, C, c_at(i, j)))));
        r = std::fma(al, x, std::bit_cast<float>(static_cast<uint32_t>(beta_e)) * cv);
      }
      d = std::bit_cast<uint32_t>(r);
    }
    if (alpha == 1.0 && !(read_c && !spec.accumulate_into_c)) d = a;  // the accumulator itself
    store(c_storage, C, c_at(i, j), is_nan(epi, d) ? nan_store : convert_fast(epi, c_storage, d));
  };

  // The chain's first accumulator: +0, or beta*C rounded to the unit's
  // output format (accumulate-into-C).
  auto initial_acc = [&](std::size_t i, std::size_t j) {
    if (spec.accumulate_into_c && read_c && !row.ignores_c)
      return scale_round(beta, c_storage, load(c_storage, C, c_at(i, j)), out);
    return zero_bits(out, false);
  };

  // The epilogue of row i, columns j0 .. j0+nc-1, from accumulators as
  // values or bit patterns of `out`. Storage in the unit's own format: the
  // same operations as epilogue(), without the generic conversions.
  const bool use_c = read_c && !spec.accumulate_into_c;
  auto epilogue_row = [&](const auto* acc, std::size_t i, std::size_t j0, std::size_t nc) {
    using V = std::remove_cv_t<std::remove_pointer_t<decltype(acc)>>;
    using U = std::conditional_t<sizeof(V) == 4, uint32_t, uint64_t>;
    using F = std::conditional_t<sizeof(V) == 4, float, double>;
    if (c_storage != out || out != (sizeof(V) == 4 ? Fmt::fp32 : Fmt::fp64)) {
      for (std::size_t w = 0; w < nc; ++w) epilogue(std::bit_cast<U>(acc[w]), i, j0 + w);
      return;
    }
    U* crow = static_cast<U*>(C) + c_at(i, j0);
    const F al = std::bit_cast<F>(static_cast<U>(alpha_e)), be = std::bit_cast<F>(static_cast<U>(beta_e));
    const U nanv = static_cast<U>(nan_store);
    for (std::size_t w = 0; w < nc; ++w) {
      const F x = std::bit_cast<F>(acc[w]);
      F r = x;
      if (use_c) r = std::fma(al, x, be * std::bit_cast<F>(crow[w]));
      else if (alpha != 1.0) r = al * x;
      crow[w] = std::isnan(x) || std::isnan(r) ? nanv : std::bit_cast<U>(r);
    }
  };
  // The chain starts from +0 unless it reads beta*C.
  const bool zero_init = !(spec.accumulate_into_c && read_c && !row.ignores_c);

  const int threads = thread_count(spec.threads);
  FpEnvGuard env_main;

  // alpha = 0: D = beta*C (BLAS), never reading C when beta = 0.
  if (alpha == 0.0) {
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < n; ++j)
        store(c_storage, C, c_at(i, j),
              read_c ? scale_round(beta, c_storage, load(c_storage, C, c_at(i, j)), c_storage)
                     : zero_bits(c_storage, false));
    return;
  }

  const std::size_t step = ref::step_k(row);
  const fast::StepFn kernel = spec.use_reference ? nullptr : fast::step_kernel(row);
  const bool fp64 = fast::operand_kind(row) == fast::Operand::real64;
  fast::SimdParams sp{};
  const bool simd = kernel && !spec.simd_off && fast::simd_params(row, sp);

  // FMA chains (fp32 SFMA, fp64): register-blocked tiles over BLIS-style
  // packed panels. Every accumulator sees its k in order, one fma each, so
  // the blocking (NC x KC panels of B, MC x KC blocks of A, kChainMR x NR
  // tiles) never changes a bit. NaN/Inf are IEEE; the epilogue gives NaN
  // the unit's pattern.
  if (!spec.use_reference && !spec.simd_off && fast::chain_tiles(row)) {
    // Few synchronisations (the cores may be shared): per N panel and
    // super-chunk of KS k, B packed by all threads (in KC sub-chunks), then
    // tasks of MC rows (x a range of micro-panels when rows are few) that
    // run every sub-chunk and, at the end, their own epilogue.
    auto run_chain = [&](auto type_tag) {
      using T = decltype(type_tag);
      using U = std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>;
      constexpr bool dbl = sizeof(T) == 8;
      constexpr std::size_t MR = fast::kChainMR, NR = dbl ? fast::kChainNR64 : fast::kChainNR;
      const std::size_t NCc = dbl ? 512 : 1024, MCc = 64, KCc = 256, KS = 8 * KCc;
      AlignedBuf<T> acc_buf, b_buf;
      for (std::size_t j0 = 0; j0 < n; j0 += NCc) {
        const std::size_t nc = std::min(NCc, n - j0), npan = (nc + NR - 1) / NR;
        T* acc = acc_buf.get(m * nc);
        const std::size_t mblocks = (m + MCc - 1) / MCc;
        std::size_t jb = npan;
        while (jb > 1 && mblocks * ((npan + jb - 1) / jb) < 4 * static_cast<std::size_t>(threads)) jb = (jb + 1) / 2;
        const std::size_t jtasks = (npan + jb - 1) / jb;
        for (std::size_t ks0 = 0; ks0 < std::max<std::size_t>(k, 1); ks0 += KS) {
          const std::size_t ksc = std::min(KS, k - ks0), subs = (ksc + KCc - 1) / KCc;
          const bool first = ks0 == 0, last = ks0 + KS >= k;
          // Sub-chunk q's micro-panel p at bp + (q*npan + p)*KCc*NR.
          T* bp = b_buf.get(std::max<std::size_t>(subs, 1) * npan * KCc * NR);
#pragma omp parallel num_threads(threads)
          {
            FpEnvGuard env_thread;
#pragma omp for schedule(static)
            for (std::size_t qp = 0; qp < subs * npan; ++qp) {
              const std::size_t q = qp / npan, p = qp % npan, k0 = ks0 + q * KCc;
              pack_chain<T>(row, spec, B, false, j0 + p * NR, std::min(NR, nc - p * NR), k0,
                            std::min(KCc, k - k0), NR, bp + qp * KCc * NR);
            }
            AlignedBuf<T> a_buf;
            alignas(64) T tile[MR * NR];
#pragma omp for schedule(dynamic)
            for (std::size_t t = 0; t < mblocks * jtasks; ++t) {
              const std::size_t i0 = (t / jtasks) * MCc, mc = std::min(MCc, m - i0), jt = t % jtasks;
              const std::size_t p0 = jt * jb, p1 = std::min(npan, (jt + 1) * jb);
              const std::size_t w_lo = p0 * NR, w_hi = std::min(nc, p1 * NR);
              if (first)
                for (std::size_t i = i0; i < i0 + mc; ++i)
                  for (std::size_t w = w_lo; w < w_hi; ++w)
                    acc[i * nc + w] = zero_init ? T(0) : std::bit_cast<T>(static_cast<U>(initial_acc(i, j0 + w)));
              T* ap = a_buf.get(((mc + MR - 1) / MR) * KCc * MR);
              for (std::size_t q = 0; q < subs; ++q) {
                const std::size_t k0 = ks0 + q * KCc, kc = std::min(KCc, k - k0);
                pack_chain<T>(row, spec, A, true, i0, mc, k0, kc, MR, ap);
                for (std::size_t p = p0; p < p1; ++p) {
                  const std::size_t w0 = p * NR, nw = std::min(NR, nc - w0);
                  const T* bt = bp + (q * npan + p) * KCc * NR;
                  for (std::size_t r0 = 0; r0 < mc; r0 += MR) {
                    const std::size_t mr = std::min(MR, mc - r0);
                    const T* at = ap + (r0 / MR) * kc * MR;
                    T* c = acc + (i0 + r0) * nc + w0;
                    auto run_tile = [&](T* cc, std::size_t ldc) {
                      if constexpr (dbl) fast::simd_chain_tile64(static_cast<int>(kc), at, bt, cc, ldc);
                      else fast::simd_chain_tile(static_cast<int>(kc), at, bt, cc, ldc);
                    };
                    if (mr == MR && nw == NR) {
                      run_tile(c, nc);
                      continue;
                    }
                    // Edge tile: through a full-size copy (padding rows and
                    // columns compute zeros, never stored).
                    std::fill(tile, tile + MR * NR, T(0));
                    for (std::size_t r = 0; r < mr; ++r) std::copy(c + r * nc, c + r * nc + nw, tile + r * NR);
                    run_tile(tile, NR);
                    for (std::size_t r = 0; r < mr; ++r) std::copy(tile + r * NR, tile + r * NR + nw, c + r * nc);
                  }
                }
              }
              if (last)
                for (std::size_t i = i0; i < i0 + mc; ++i) epilogue_row(acc + i * nc + w_lo, i, j0 + w_lo, w_hi - w_lo);
            }
          }
        }
      }
    };
    if (fp64) run_chain(0.0);
    else run_chain(0.0f);
    return;
  }

  // CDNA1 exact rows: simd_exact_run16 on runs of blocks without NaN/Inf
  // inputs; blocks with such inputs, and lanes the kernel cannot sum
  // exactly in binary64, on the scalar exact kernel or the reference.
  if (kernel && !spec.simd_off && fast::exact_simd(row)) {
    const std::size_t NCx = 1024, MCx = 32, L = fast::kSimdLanes;
    const std::size_t KCx = std::max<std::size_t>(1, 256 / step) * step;
    const int man = fast::unit_man(row);
    std::vector<uint32_t> acc;
    ExactPanel bx;
    for (std::size_t j0 = 0; j0 < n; j0 += NCx) {
      const std::size_t nc = std::min(NCx, n - j0);
      acc.resize(m * nc);
#pragma omp parallel for num_threads(threads) schedule(static)
      for (std::size_t i = 0; i < m; ++i)
        for (std::size_t w = 0; w < nc; ++w)
          acc[i * nc + w] = zero_init ? 0u : static_cast<uint32_t>(initial_acc(i, j0 + w));
      for (std::size_t k0 = 0; k0 < k; k0 += KCx) {
        const std::size_t kc = std::min(KCx, k - k0);
        const std::size_t steps = (kc + step - 1) / step, kp = steps * step;
        bx.resize(nc, kp, steps, true);
#pragma omp parallel for num_threads(threads) schedule(static)
        for (std::size_t v = 0; v < nc; ++v) pack_exact(row, spec, B, false, j0 + v, k0, kc, bx, v);
        pad_exact_lanes(row, bx);
        for (std::size_t v = 0; v < nc; ++v)
          for (std::size_t s = 0; s < steps; ++s) bx.group_special[(v / L) * steps + s] |= bx.special[v * steps + s];
#pragma omp parallel num_threads(threads)
        {
          FpEnvGuard env_thread;
          ExactPanel ax;
          // Block s of A's vector v and B's column w on the scalar paths.
          auto lane_block = [&](std::size_t v, std::size_t w, std::size_t s, double c) {
            const std::size_t l0 = s * step, len = std::min(step, kc - l0);
            const double* a = ax.val.p.get() + v * kp + l0;
            const double* b = bx.val.p.get() + ((w / L) * kp + l0) * L + w % L;
            const uint32_t cb = std::bit_cast<uint32_t>(static_cast<float>(c));
            uint32_t d;
            if (ax.special[v * steps + s] || bx.special[w * steps + s]) {
              uint64_t ab[64], bb[64];
              for (std::size_t l = 0; l < len; ++l) {
                ab[l] = convert(Fmt::fp64, row.in, std::bit_cast<uint64_t>(a[l]), Round::rne);
                bb[l] = convert(Fmt::fp64, row.in, std::bit_cast<uint64_t>(b[l * L]), Round::rne);
              }
              d = static_cast<uint32_t>(ref::step(row, len, ab, bb, cb));
            } else {
              int32_t sa[64], ea[64], sb[64], eb[64];
              for (std::size_t l = 0; l < len; ++l) {
                split_exact(a[l], man, sa[l], ea[l]);
                split_exact(b[l * L], man, sb[l], eb[l]);
              }
              d = kernel(row, static_cast<int>(len), sa, ea, sb, eb, cb);
            }
            return static_cast<double>(std::bit_cast<float>(d));
          };
#pragma omp for schedule(dynamic)
          for (std::size_t i0 = 0; i0 < m; i0 += MCx) {
            const std::size_t mc = std::min(MCx, m - i0);
            ax.resize(mc, kp, steps, false);
            for (std::size_t v = 0; v < mc; ++v) pack_exact(row, spec, A, true, i0 + v, k0, kc, ax, v);
            for (std::size_t g = 0; g < bx.groups; ++g)
              for (std::size_t v = 0; v < mc; ++v) {
                alignas(64) double c[L], next[L];
                const std::size_t w0 = g * L, lanes = std::min(L, nc - w0);
                uint32_t* out_acc = &acc[(i0 + v) * nc + w0];
                for (std::size_t q = 0; q < L; ++q)
                  c[q] = q < lanes ? static_cast<double>(std::bit_cast<float>(out_acc[q])) : 0.0;
                for (std::size_t s = 0; s < steps;) {
                  std::size_t e = s;
                  while (e < steps && !ax.special[v * steps + e] && !bx.group_special[g * steps + e]) ++e;
                  while (s < e) {
                    const int last = static_cast<int>(e == steps ? kc - (steps - 1) * step : step);
                    uint32_t bad = 0;
                    s += static_cast<std::size_t>(fast::simd_exact_run16(
                        static_cast<int>(e - s), static_cast<int>(step), last, ax.val.p.get() + v * kp + s * step,
                        ax.lo.p.get() + v * steps + s, ax.hi.p.get() + v * steps + s,
                        bx.val.p.get() + (g * kp + s * step) * L, bx.lo.p.get() + (g * steps + s) * L,
                        bx.hi.p.get() + (g * steps + s) * L, c, next, &bad));
                    if (s == e) break;
                    for (std::size_t q = 0; q < L; ++q)
                      c[q] = q < lanes && (bad >> q) & 1 ? lane_block(v, w0 + q, s, c[q]) : next[q];
                    ++s;
                  }
                  if (s == steps) break;
                  for (std::size_t q = 0; q < lanes; ++q) c[q] = lane_block(v, w0 + q, s, c[q]);
                  ++s;
                }
                for (std::size_t q = 0; q < lanes; ++q) out_acc[q] = std::bit_cast<uint32_t>(static_cast<float>(c[q]));
              }
          }
        }
      }
#pragma omp parallel for num_threads(threads) schedule(static)
      for (std::size_t i = 0; i < m; ++i) {
        FpEnvGuard env_thread;
        epilogue_row(acc.data() + i * nc, i, j0, nc);
      }
    }
    return;
  }

  // Blocking: N panels of NC columns; along k, chunks of KC (a multiple of
  // the step, so the chain's steps are the same whatever the blocking), each
  // chunk's B panel packed once and shared; M in tasks of MC rows. The
  // accumulators of a whole N panel carry the chain from chunk to chunk.
  // Extra memory: B chunk ~KC*NC*32 bytes + accumulators m*NC*4 (8 for fp64).
  const std::size_t NC = fp64 ? 256 : 1024, MC = 32;
  const std::size_t KC = std::max<std::size_t>(1, 256 / step) * step;
  std::vector<uint32_t> acc32;
  std::vector<uint64_t> acc64;
  Panel bp;
  for (std::size_t j0 = 0; j0 < n; j0 += NC) {
    const std::size_t nc = std::min(NC, n - j0);
    (fp64 ? acc64.resize(m * nc) : acc32.resize(m * nc));
#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t w = 0; w < nc; ++w) {
        const uint64_t a0 = initial_acc(i, j0 + w);
        if (fp64) acc64[i * nc + w] = a0;
        else acc32[i * nc + w] = static_cast<uint32_t>(a0);
      }

    for (std::size_t k0 = 0; k0 < k; k0 += KC) {
      const std::size_t kc = std::min(KC, k - k0);
      const std::size_t steps = (kc + step - 1) / step, kp = steps * step;
      bp.kp = kp;
      bp.interleave = simd && sp.kind == fast::SimdKind::interleaved;
      bp.steps = steps;
      bp.resize(nc, simd, true);
#pragma omp parallel for num_threads(threads) schedule(static)
      for (std::size_t v = 0; v < nc; ++v) pack_vector(row, spec, B, false, j0 + v, k0, kc, bp, v);
      for (std::size_t v = 0; v < nc && simd; ++v)
        for (std::size_t s = 0; s < steps; ++s)
          bp.group_special[(v / fast::kSimdLanes) * steps + s] |= bp.special[v * steps + s];

#pragma omp parallel num_threads(threads)
      {
        FpEnvGuard env_thread;
        Panel ap;
        ap.kp = kp;
        ap.interleave = bp.interleave;
        ap.steps = steps;
#pragma omp for schedule(dynamic)
        for (std::size_t i0 = 0; i0 < m; i0 += MC) {
          const std::size_t mc = std::min(MC, m - i0);
          ap.resize(mc, simd, false);
          for (std::size_t v = 0; v < mc; ++v) pack_vector(row, spec, A, true, i0 + v, k0, kc, ap, v);
          // SIMD: 16 columns at a time (lanes past nc compute zeros, unused);
          // groups outer so that a group's B panel stays in cache for the rows.
          for (std::size_t g = 0; g * fast::kSimdLanes < nc && simd; ++g)
            for (std::size_t v = 0; v < mc; ++v) {
              const std::size_t i = i0 + v;
              const uint64_t* ab = ap.bits.data() + v * kp;
              HWY_ALIGN_MAX uint32_t acc[fast::kSimdLanes] = {}, prev[fast::kSimdLanes];
              const std::size_t w0 = g * fast::kSimdLanes, lanes = std::min(fast::kSimdLanes, nc - w0);
              std::memcpy(acc, &acc32[i * nc + w0], lanes * sizeof(uint32_t));
              // Runs of steps without NaN/Inf inputs go to the vector
              // kernel in one call; a step with such inputs runs on the
              // kernel too, and its affected lanes again on the reference.
              auto run = [&](std::size_t s0, std::size_t s1) {
                const std::size_t l = s0 * step, at = (g * kp + l) * fast::kSimdLanes;
                const int last = static_cast<int>(std::min(step, kc - (s1 - 1) * step));
                const int n_steps = static_cast<int>(s1 - s0), st = static_cast<int>(step);
                if (sp.kind == fast::SimdKind::aligned) {
                  fast::simd_aligned_run16(sp, n_steps, st, last, ap.fval.data() + (v * kp + l),
                                           ap.fsig.data() + (v * kp + l), ap.exp.data() + (v * kp + l),
                                           bp.lane_val.data() + at, bp.lane_sig.data() + at, bp.lane_exp.data() + at, acc);
                } else if (sp.kind == fast::SimdKind::late) {
                  // Blocks whose products may reach 2^128 go to the scalar kernel.
                  for (std::size_t s = s0; s < s1;) {
                    const std::size_t ls = s * step, as = (g * kp + ls) * fast::kSimdLanes;
                    const int done = fast::simd_late_run16(
                        sp, static_cast<int>(s1 - s), st, last, ap.fval.data() + (v * kp + ls),
                        ap.fsig.data() + (v * kp + ls), ap.exp.data() + (v * kp + ls), bp.lane_val.data() + as,
                        bp.lane_sig.data() + as, bp.lane_exp.data() + as, acc);
                    s += static_cast<std::size_t>(done);
                    if (s == s1) break;
                    const std::size_t lb = s * step, len = std::min(step, kc - lb);
                    for (std::size_t q = 0; q < lanes; ++q) {
                      const std::size_t w = w0 + q;
                      acc[q] = kernel(row, static_cast<int>(len), ap.sig.data() + (v * kp + lb),
                                      ap.exp.data() + (v * kp + lb), bp.sig.data() + (w * kp + lb),
                                      bp.exp.data() + (w * kp + lb), acc[q]);
                    }
                    ++s;
                  }
                } else if (sp.kind == fast::SimdKind::interleaved) {
                  // Per instruction: the two groups (16 products each, zero
                  // padded) as aligned blocks from +0, then acc + t in fp32
                  // with RNE (host arithmetic under FpEnvGuard; NaN bits
                  // are the host's, the epilogue gives NaN the unit's).
                  const int half = st / 2;
                  for (std::size_t s = s0; s < s1; ++s) {
                    const std::size_t ls = s * step, as = (g * kp + ls) * fast::kSimdLanes;
                    HWY_ALIGN_MAX uint32_t t[fast::kSimdLanes] = {};
                    fast::simd_aligned_run16(sp, 2, half, half, ap.fval.data() + (v * kp + ls),
                                             ap.fsig.data() + (v * kp + ls), ap.exp.data() + (v * kp + ls),
                                             bp.lane_val.data() + as, bp.lane_sig.data() + as, bp.lane_exp.data() + as, t);
                    for (std::size_t q = 0; q < fast::kSimdLanes; ++q)
                      acc[q] = std::bit_cast<uint32_t>(std::bit_cast<float>(acc[q]) + std::bit_cast<float>(t[q]));
                  }
                } else {
                  fast::simd_pairwise_run16(sp, n_steps, st, last, ap.fval.data() + (v * kp + l),
                                            ap.exp.data() + (v * kp + l), bp.lane_val.data() + at,
                                            bp.lane_exp.data() + at, reinterpret_cast<float*>(acc));
                }
              };
              for (std::size_t s = 0; s < steps;) {
                std::size_t e = s;
                while (e < steps && !ap.special[v * steps + e] && !bp.group_special[g * steps + e]) ++e;
                if (e > s) run(s, e);
                if (e == steps) break;
                std::memcpy(prev, acc, sizeof acc);
                run(e, e + 1);
                const std::size_t l = e * step, len = std::min(step, kc - l);
                for (std::size_t q = 0; q < lanes; ++q) {
                  const std::size_t w = w0 + q;
                  if (ap.special[v * steps + e] || bp.special[w * steps + e])
                    acc[q] = static_cast<uint32_t>(ref::step(row, len, ab + l, bp.bits.data() + (w * kp + l), prev[q]));
                }
                s = e + 1;
              }
              std::memcpy(&acc32[i * nc + w0], acc, lanes * sizeof(uint32_t));
            }
          for (std::size_t v = 0; v < mc && !simd; ++v) {
            const std::size_t i = i0 + v;
            const uint64_t* ab = ap.bits.data() + v * kp;
            if (fp64) {
              for (std::size_t w = 0; w < nc; ++w)
                acc64[i * nc + w] = fp64_chain(row, kc, ab, bp.bits.data() + w * kp, acc64[i * nc + w]);
              continue;
            }
            if (!simd) {
              for (std::size_t w = 0; w < nc; ++w) {
                const uint64_t* bb = bp.bits.data() + w * kp;
                uint64_t acc = acc32[i * nc + w];
                for (std::size_t s = 0; s < steps; ++s) {
                  const std::size_t l = s * step, len = std::min(step, kc - l);
                  if (kernel && !ap.special[v * steps + s] && !bp.special[w * steps + s])
                    acc = kernel(row, static_cast<int>(len), ap.sig.data() + (v * kp + l), ap.exp.data() + (v * kp + l),
                                 bp.sig.data() + (w * kp + l), bp.exp.data() + (w * kp + l), static_cast<uint32_t>(acc));
                  else
                    acc = ref::step(row, len, ab + l, bb + l, acc);
                }
                acc32[i * nc + w] = static_cast<uint32_t>(acc);
              }
              continue;
            }
          }
        }
      }
    }

#pragma omp parallel for num_threads(threads) schedule(static)
    for (std::size_t i = 0; i < m; ++i) {
      FpEnvGuard env_thread;
      if (fp64) epilogue_row(acc64.data() + i * nc, i, j0, nc);
      else epilogue_row(acc32.data() + i * nc, i, j0, nc);
    }
  }
}

}  // namespace mmaemu::driver
