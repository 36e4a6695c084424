// SPDX-License-Identifier: BSD-3-Clause
#include "driver/schedule.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "driver/schedule_parts.h"
#include "formats/fast_convert.h"
#include "ref/reference.h"

namespace mmaemu::driver {
namespace {

const char* const kScheduleSyntax =
    "valid: chain, promote:P, splitk:S, splitk:S:tree, or one splitk and one promote joined by ',' "
    "or '+' (splitk:2,promote:128); P a positive multiple of the unit's instruction k, S >= 1";

[[noreturn]] void bad_schedule(const std::string& text, const std::string& why) {
  throw std::invalid_argument("invalid schedule '" + text + "': " + why + " (" + kScheduleSyntax + ")");
}

// A count P or S: a positive integer of at most 18 digits (any larger
// interval or slice count acts as the largest k would).
std::size_t parse_count(const std::string& text, const std::string& digits) {
  constexpr std::size_t kMaxDigits = 18;
  if (digits.empty() || !std::all_of(digits.begin(), digits.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c)) != 0;
      }))
    bad_schedule(text, "'" + digits + "' is not a positive integer");
  const std::size_t first = std::min(digits.find_first_not_of('0'), digits.size());
  if (digits.size() - first > kMaxDigits) bad_schedule(text, "'" + digits + "' is too large (at most 18 digits)");
  const std::size_t v = first == digits.size() ? 0 : static_cast<std::size_t>(std::stoull(digits.substr(first)));
  if (v == 0) bad_schedule(text, "'" + digits + "' is not a positive integer");
  return v;
}

std::vector<std::string> split_on(const std::string& s, char sep) {
  std::vector<std::string> parts;
  std::size_t at = 0;
  for (std::size_t next; (next = s.find(sep, at)) != std::string::npos; at = next + 1) parts.push_back(s.substr(at, next - at));
  parts.push_back(s.substr(at));
  return parts;
}

// Bytes of scratch (all buffers together) a block of columns may use; one
// buffer is add_range's, where it runs a GEMM per piece.
constexpr std::size_t kScratchBudget = std::size_t{64} << 20;

template <typename T>
void run_scheduled(const Schedule& s, const GemmSpec& spec, const kernels::KernelPlan& plan, std::size_t m, std::size_t n,
                   std::size_t k, double alpha, const Operand& A, const Operand& B, double beta, Fmt c_storage,
                   void* C, std::ptrdiff_t ldc) {
  const ModelRow& row = *spec.row;
  const Fmt F = main_format(row);
  const int threads = thread_count(spec.threads);
  const std::vector<KRange> slices = s.split ? split_slices(k, s.split, row.k) : std::vector<KRange>{{0, k}};
  const bool tree = s.split && s.tree, slice_acc = s.split && s.promote && !tree;
  const std::size_t buffers = 2 + (slice_acc ? 1 : 0) + (tree ? slices.size() : 0);
  std::size_t nb = std::max<std::size_t>(1, kScratchBudget / (buffers * std::max<std::size_t>(m, 1) * sizeof(T)));
  if (nb >= 16) nb -= nb % 16;
  nb = std::min(nb, n);
  std::vector<T> main(m * nb), acc(slice_acc ? m * nb : 0);
  std::vector<std::vector<T>> parts(tree ? slices.size() : 0, std::vector<T>(m * nb));
  const MainEpilogue epi{row, alpha, beta, spec.accumulate_into_c, c_storage, C, ldc, threads};
  for (std::size_t j0 = 0; j0 < n; j0 += nb) {
    const std::size_t nc = std::min(nb, n - j0);
    const Block blk{m, j0, nc, threads};
    // dst (+)= the pieces of r: dst = ((dst + p0) + p1) + ...
    auto add_pieces = [&](KRange r, T* dst) { add_range(spec, plan, blk, r, s.promote, A, B, dst); };
    init_main(epi, blk, main.data());
    if (!s.split) {
      add_pieces(slices.front(), main.data());
    } else if (!tree) {
      for (const KRange& r : slices) {
        if (!s.promote) {
          add_pieces(r, main.data());
          continue;
        }
        fill_zero(blk, acc.data());
        add_pieces(r, acc.data());
        add_into(blk, main.data(), acc.data());
      }
    } else {
      for (std::size_t q = 0; q < slices.size(); ++q) {
        if (!s.promote) {
          unit_piece(spec, plan, blk, slices[q], A, B, F, parts[q].data());
          continue;
        }
        fill_zero(blk, parts[q].data());
        add_pieces(slices[q], parts[q].data());
      }
      // Stride-doubling pairwise tree: level 1 adds (0,1), (2,3), ...;
      // level 2 (0,2), (4,6), ...; a slice without a partner waits.
      for (std::size_t stride = 1; stride < slices.size(); stride *= 2)
        for (std::size_t q = 0; q + stride < slices.size(); q += 2 * stride)
          add_into(blk, parts[q].data(), parts[q + stride].data());
      if (!slices.empty()) add_into(blk, main.data(), parts[0].data());
    }
    store_main(epi, blk, main.data());
  }
}

}  // namespace

Fmt main_format(const ModelRow& row) { return row.out == Fmt::fp64 ? Fmt::fp64 : Fmt::fp32; }

Schedule parse_schedule(const std::string& text) {
  std::string t;
  for (char c : text)
    if (!std::isspace(static_cast<unsigned char>(c))) t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  Schedule s;
  if (t == "chain") return s;
  if (t.empty()) bad_schedule(text, "empty");
  std::replace(t.begin(), t.end(), '+', ',');  // '+' joins too (lists of schedules use ',')
  for (const std::string& item : split_on(t, ',')) {
    const std::vector<std::string> f = split_on(item, ':');
    if (f[0] == "promote" && f.size() == 2) {
      if (s.promote) bad_schedule(text, "promote given twice");
      s.promote = parse_count(text, f[1]);
    } else if (f[0] == "splitk" && (f.size() == 2 || (f.size() == 3 && f[2] == "tree"))) {
      if (s.split) bad_schedule(text, "splitk given twice");
      s.split = parse_count(text, f[1]);
      s.tree = f.size() == 3;
    } else if (f[0] == "chain") {
      bad_schedule(text, "chain combines with nothing");
    } else {
      bad_schedule(text, "unknown item '" + item + "'");
    }
  }
  return s;
}

std::string schedule_name(const Schedule& s) {
  if (s.is_chain()) return "chain";
  std::string out;
  if (s.split) {
    out.append("splitk:").append(std::to_string(s.split));
    if (s.tree) out.append(":tree");
  }
  if (s.split && s.promote) out.append(",");
  if (s.promote) out.append("promote:").append(std::to_string(s.promote));
  return out;
}

void check_schedule(const Schedule& s, const ModelRow& row) {
  if (s.promote && s.promote % row.k != 0)
    throw std::invalid_argument("schedule " + schedule_name(s) + ": the promotion interval " + std::to_string(s.promote) +
                                " is not a multiple of the instruction k = " + std::to_string(row.k) + " of " +
                                row.instr + " (" + info(row.in).name + " -> " + info(row.out).name + ")");
}

std::vector<KRange> split_slices(std::size_t k, std::size_t slices, std::size_t unit_k) {
  // First slices: ceil(k / S) rounded up to the instruction k.
  const std::size_t per = slices == 0 ? k : ((k + slices - 1) / slices + unit_k - 1) / unit_k * unit_k;
  std::vector<KRange> out;
  for (std::size_t q = 0, at = 0; q < std::max<std::size_t>(slices, 1) && at < k; ++q) {
    const std::size_t len = q + 1 == slices ? k - at : std::min(per, k - at);
    out.push_back({at, len});
    at += len;
  }
  return out;
}

void scheduled_gemm(const Schedule& s, const GemmSpec& spec, std::size_t m, std::size_t n, std::size_t k,
                    double alpha, const Operand& A, const Operand& B, double beta, Fmt c_storage, void* C,
                    std::ptrdiff_t ldc) {
  check_schedule(s, *spec.row);
  if (s.is_chain() || alpha == 0.0 || m == 0 || n == 0) return gemm(spec, m, n, k, alpha, A, B, beta, c_storage, C, ldc);
  const kernels::KernelPlan plan = plan_of(spec);  // once per call, for every piece
  const auto run_all = [&](const GemmSpec& sp, std::size_t i0, std::size_t rows, void* c) {
    if (main_format(*spec.row) == Fmt::fp64)
      run_scheduled<double>(s, sp, plan, rows, n, k, alpha, shifted(A, i0, 0), B, beta, c_storage, c, ldc);
    else
      run_scheduled<float>(s, sp, plan, rows, n, k, alpha, shifted(A, i0, 0), B, beta, c_storage, c, ldc);
  };
  // promote:P alone on the steps macro-kernel: one pass of it per block of
  // columns, on all threads (B packed once, the kernel's own task split).
  if (!s.split && in_kernel(plan, *spec.row, s.promote, k)) return run_all(spec, 0, m, C);
  // Otherwise threads take slices of rows, each running the whole schedule
  // on one thread: one synchronisation per call instead of several per
  // piece (each element's arithmetic is the same either way). B is packed
  // per slice.
  constexpr std::size_t kMinRows = 8;
  const std::size_t slices = std::min<std::size_t>(static_cast<std::size_t>(thread_count(spec.threads)),
                                                   (m + kMinRows - 1) / kMinRows);
  GemmSpec one = spec;
  one.threads = 1;
  const std::size_t c_width = info(c_storage).width / 8;
  parallel_for(static_cast<int>(slices), slices, Assign::blocks, [&](std::size_t q) {
    const std::size_t i0 = m * q / slices, rows = m * (q + 1) / slices - i0;
    const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(i0) * ldc * static_cast<std::ptrdiff_t>(c_width);
    run_all(one, i0, rows, static_cast<unsigned char*>(C) + at);
  });
}

// ---------------------------------------------------------------------------
// Building blocks (schedule_parts.h).

Operand shifted(const Operand& X, std::size_t r, std::size_t c) {
  const std::ptrdiff_t at = X.trans ? static_cast<std::ptrdiff_t>(c) * X.ld + static_cast<std::ptrdiff_t>(r)
                                    : static_cast<std::ptrdiff_t>(r) * X.ld + static_cast<std::ptrdiff_t>(c);
  Operand o = X;
  o.data = static_cast<const unsigned char*>(X.data) + at * (info(X.storage).width / 8);
  return o;
}

namespace {
std::ptrdiff_t c_at(const Block& b, std::ptrdiff_t ldc, std::size_t i, std::size_t w) {
  return static_cast<std::ptrdiff_t>(i) * ldc + static_cast<std::ptrdiff_t>(b.j0 + w);
}
}  // namespace

void unit_piece(const GemmSpec& spec, const kernels::KernelPlan& plan, const Block& b, KRange r, const Operand& A,
                const Operand& B, Fmt F, void* out) {
  if (b.m == 0 || b.nc == 0) return;
  GemmSpec piece = spec;
  piece.accumulate_into_c = false;
  gemm_on_plan(piece, plan, b.m, b.nc, r.len, 1.0, shifted(A, 0, r.k0), shifted(B, r.k0, b.j0), 0.0, F, out,
       static_cast<std::ptrdiff_t>(b.nc));
}

template <typename T>
void fill_zero(const Block& b, T* dst) {
  std::fill(dst, dst + b.m * b.nc, T(0));
}

template <typename T>
void add_into(const Block& b, T* dst, const T* src) {
  parallel_for(b.threads, b.m, Assign::blocks, [&](std::size_t i) {  // binary32/64 RNE, no flush to zero
    T* __restrict d = dst + i * b.nc;
    const T* __restrict x = src + i * b.nc;
    for (std::size_t w = 0; w < b.nc; ++w) d[w] += x[w];
  });
}

template <typename T>
void init_main(const MainEpilogue& e, const Block& b, T* main) {
  if (!(e.into_c && e.beta != 0.0)) return fill_zero(b, main);
  const Fmt F = sizeof(T) == 8 ? Fmt::fp64 : Fmt::fp32;
  using U = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
  parallel_for(b.threads, b.m, Assign::blocks, [&](std::size_t i) {
    for (std::size_t w = 0; w < b.nc; ++w)
      main[i * b.nc + w] = std::bit_cast<T>(static_cast<U>(scale_round(e.beta, e.c_storage, load(e.c_storage, e.C, c_at(b, e.ldc, i, w)), F)));
  });
}

// The driver's epilogue on the main accumulator x (format F):
//   gpu-blas, beta != 0:  D = fma(alpha, x, beta*C)  (alpha, beta, C in F)
//   otherwise:            D = alpha*x  (x itself when alpha = 1)
// NaN becomes the unit's NaN pattern of the storage format.
template <typename T>
void store_main(const MainEpilogue& e, const Block& b, const T* main) {
  const Fmt F = sizeof(T) == 8 ? Fmt::fp64 : Fmt::fp32;
  using U = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
  const ModelRow& row = e.row;
  const uint64_t nan_store = e.c_storage == Fmt::fp32   ? row.nan32
                             : e.c_storage == Fmt::fp16 ? row.nan16
                             : e.c_storage == row.out   ? ref::nan_result(row)
                                                        : default_nan(e.c_storage);
  const T al = std::bit_cast<T>(static_cast<U>(convert(Fmt::fp64, F, std::bit_cast<uint64_t>(e.alpha), Round::rne)));
  const T be = std::bit_cast<T>(static_cast<U>(convert(Fmt::fp64, F, std::bit_cast<uint64_t>(e.beta), Round::rne)));
  const bool use_c = e.beta != 0.0 && !e.into_c;
  parallel_for(b.threads, b.m, Assign::blocks, [&](std::size_t i) {
    const bool same = e.c_storage == F;  // C in the main format: no conversions
    U* crow = same ? static_cast<U*>(e.C) + c_at(b, e.ldc, i, 0) : nullptr;
    for (std::size_t w = 0; w < b.nc; ++w) {
      const std::ptrdiff_t at = c_at(b, e.ldc, i, w);
      const T x = main[i * b.nc + w];
      T r = e.alpha == 1.0 ? x : al * x;
      if (use_c) {
        const U c = same ? crow[w] : static_cast<U>(convert(e.c_storage, F, load(e.c_storage, e.C, at), Round::rne));
        r = std::fma(al, x, be * std::bit_cast<T>(c));
      }
      const bool nan = std::isnan(x) || std::isnan(r);
      if (same) crow[w] = nan ? static_cast<U>(nan_store) : std::bit_cast<U>(r);
      else store(e.c_storage, e.C, at, nan ? nan_store : convert(F, e.c_storage, std::bit_cast<U>(r), Round::rne));
    }
  });
}

template void fill_zero(const Block&, float*);
template void fill_zero(const Block&, double*);
template void add_into(const Block&, float*, const float*);
template void add_into(const Block&, double*, const double*);
template void init_main(const MainEpilogue&, const Block&, float*);
template void init_main(const MainEpilogue&, const Block&, double*);
template void store_main(const MainEpilogue&, const Block&, const float*);
template void store_main(const MainEpilogue&, const Block&, const double*);

}  // namespace mmaemu::driver
