// SPDX-License-Identifier: BSD-3-Clause
#include "driver/gemm.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "hwy/base.h"

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif

#include "driver/fast_round.h"
#include "driver/kernels.h"
#include "driver/simd.h"
#include "ref/reference.h"
#include "ref/wide_accumulator.h"

namespace mmaemu::driver {
namespace {

// The real-operand kernels use host IEEE arithmetic: they need round to
// nearest and no flush-to-zero / denormals-are-zero, whatever the caller
// (a program built with -ffast-math, say) has set. Saved and restored per
// thread.
class FpEnvGuard {
 public:
  FpEnvGuard() {
#if defined(__x86_64__) || defined(__i386__)
    saved_ = _mm_getcsr();
    _mm_setcsr((saved_ & ~0x8040u & ~0x6000u) | 0x1F80u);  // no FTZ/DAZ, RNE, masked
#endif
  }
  ~FpEnvGuard() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_setcsr(saved_);
#endif
  }
  FpEnvGuard(const FpEnvGuard&) = delete;
  FpEnvGuard& operator=(const FpEnvGuard&) = delete;

 private:
  unsigned saved_ = 0;
};

int env_int(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return 0;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  return (*end == '\0' && x > 0 && x < 4096) ? static_cast<int>(x) : 0;
}

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
    const std::size_t at = v * p.kp + l;
    p.bits[at] = bits;
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
  for (std::size_t l = 0; l < k; ++l) {
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

}  // namespace

int thread_count(int requested) {
  if (requested > 0) return requested;
  if (int t = env_int("MMA_NUM_THREADS")) return t;
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
              if (sp.kind == fast::SimdKind::fma_chain) {
                // One IEEE chain over the whole chunk; NaN and Inf need no
                // fallback (the epilogue gives NaN the unit's pattern).
                fast::simd_fma_chain16(static_cast<int>(kc), ap.fval.data() + v * kp,
                                       bp.lane_val.data() + g * kp * fast::kSimdLanes, reinterpret_cast<float*>(acc));
                std::memcpy(&acc32[i * nc + w0], acc, lanes * sizeof(uint32_t));
                continue;
              }
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
      for (std::size_t w = 0; w < nc; ++w) epilogue(fp64 ? acc64[i * nc + w] : acc32[i * nc + w], i, j0 + w);
    }
  }
}

}  // namespace mmaemu::driver
