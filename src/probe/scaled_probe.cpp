// SPDX-License-Identifier: BSD-3-Clause
// The block-scaled probe (scaled_probe.h). Every test value is a power of
// two (normal in its format, so that its alignment exponent is its value's
// exponent, docs/block-scaled.md §1.3) or a sum of them, exact in fp32.
//
// Window (F): a big part of the sum cancels exactly -- two products +-V
// (one scale block per instruction), or a scale block full of products and
// c = -V (several blocks) -- so the largest alignment exponent is E = log2 V
// and the result is the small term 2^(E-j) alone if the window keeps it, +0
// if it drops it: F is the largest j kept.
// Group: two terms of half a window unit each, 2^(E-F-1), at distance d: a
// unit that sums them exactly first (same group) keeps 2^(E-F); aligned
// apart, each is dropped. The group is the first d that separates them.
#include "probe/scaled_probe.h"

#include <cmath>
#include <cstring>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <vector>

#include "probe/lab.h"

namespace mmaemu::probe {
namespace {

Fmt fmt_of(mmaemu_format f) { return static_cast<Fmt>(f); }  // same order as Fmt

// The normal powers of two of a format: exponents lo..hi.
struct Pow2Range {
  int lo = 1, hi = 0;
  bool empty() const { return lo > hi; }
};
Pow2Range pow2_range(Fmt f) {
  Pow2Range r{1000, -1000};
  for (int e = -140; e <= 140; ++e) {
    const auto bits = encode(f, p2(e));
    if (!bits) continue;
    const Unpacked u = decode(f, *bits);
    if (u.sig < (uint64_t{1} << info(f).man_bits)) continue;  // subnormal: clamped alignment
    r.lo = std::min(r.lo, e);
    r.hi = std::max(r.hi, e);
  }
  return r;
}

uint8_t code(Fmt f, double v) {
  const auto bits = encode(f, v);
  if (!bits) throw Unrealisable("not exact in the format");
  return static_cast<uint8_t>(*bits);
}
uint32_t f32(double v) { return static_cast<uint32_t>(*encode(Fmt::fp32, v)); }

class Bench {
 public:
  explicit Bench(const ScaledBox& box)
      : box_(box), blocks_(box.block ? box.k / box.block : 0), ea_(pow2_range(box.fa)), eb_(pow2_range(box.fb)) {
    if (box.block) es_ = pow2_range(box.scale);
    clear();
  }
  int k() const { return box_.k; }
  int block() const { return box_.block; }
  int blocks() const { return blocks_; }
  long calls() const { return calls_; }
  const Pow2Range& ea() const { return ea_; }
  const Pow2Range& eb() const { return eb_; }
  const Pow2Range& es() const { return es_; }

  void clear() {
    a_.assign(box_.k, code(box_.fa, 0.0));
    b_.assign(box_.k, code(box_.fb, 0.0));
    sa_.assign(blocks_, box_.block ? code(box_.scale, 1.0) : 0);
    sb_ = sa_;
    c_ = 0;
  }
  void product(int i, double a, double b) {
    a_[i] = code(box_.fa, a);
    b_[i] = code(box_.fb, b);
  }
  void scales(int j, double sa, double sb) {
    sa_[j] = code(box_.scale, sa);
    sb_[j] = code(box_.scale, sb);
  }
  void c(double v) { c_ = f32(v); }
  uint32_t run() {
    ++calls_;
    return box_.dot(a_.data(), b_.data(), sa_.data(), sb_.data(), c_);
  }

 private:
  const ScaledBox& box_;
  int blocks_;
  Pow2Range ea_, eb_, es_;
  std::vector<uint8_t> a_, b_, sa_, sb_;
  uint32_t c_ = 0;
  long calls_ = 0;
};

// The cancelling part of the window tests; returns E (log2 of the cancelled
// value). One block (or none): +-2^E from two products at the end of the
// instruction. Several blocks: block 0 full of X*X at scales 2^s each and c = -V.
int cancel(Bench& b) {
  if (b.blocks() < 2) {
    const double x = p2(b.ea().hi), y = p2(b.eb().hi);
    b.product(b.k() - 2, x, y);
    b.product(b.k() - 1, -x, y);
    return b.ea().hi + b.eb().hi;
  }
  const int s = std::min(b.es().hi, 8);
  for (int i = 0; i < b.block(); ++i) b.product(i, p2(b.ea().hi), p2(b.eb().hi));
  b.scales(0, p2(s), p2(s));
  const double v = b.block() * p2(b.ea().hi + b.eb().hi + 2 * s);
  b.c(-v);
  return ilog2(v);
}

// Places a term of value 2^t at position i (in block 1 when there are
// several blocks, shaped by that block's scales); false if out of reach.
bool small_term(Bench& b, int i, int t) {
  const bool by_scales = b.blocks() >= 2;
  const Pow2Range none{0, 0};
  const Pow2Range& s = by_scales ? b.es() : none;
  for (int sa = s.hi; sa >= s.lo; --sa)
    for (int sb = s.hi; sb >= s.lo; --sb)
      for (int ta = b.ea().hi; ta >= b.ea().lo; --ta) {
        const int tb = t - sa - sb - ta;
        if (tb < b.eb().lo || tb > b.eb().hi) continue;
        if (by_scales) b.scales(1, p2(sa), p2(sb));
        b.product(i, p2(ta), p2(tb));
        return true;
      }
  return false;
}

int small_position(const Bench& b) { return b.blocks() >= 2 ? b.block() : 0; }

// The highest value exponent a small term can take.
int reach(const Bench& b) { return b.ea().hi + b.eb().hi + (b.blocks() >= 2 ? 2 * b.es().hi : 0); }

// The small term 2^t as a product, or else (one scale block: the products'
// range ran out) as c, an early term of the same fused sum; false if neither.
bool small_or_c(Bench& b, int t, bool& by_c) {
  by_c = false;
  if (small_term(b, small_position(b), t)) return true;
  if (b.blocks() >= 2 || t < -126) return false;
  b.c(p2(t));
  return by_c = true;
}

void detect_window(Bench& b, ScaledFeatures& f) {
  bool tested = false, via_c = false;
  for (int j = 1;; ++j) {
    b.clear();
    const int E = cancel(b);
    if (E - j > reach(b) && b.blocks() >= 2) continue;  // too large for one term: not a test
    bool by_c = false;
    if (!small_or_c(b, E - j, by_c)) {
      f.frac.na("F >= " + std::to_string(j - 1) + ": no exact term lies further below the cancelled part with " +
                     "these formats (every term up to 2^-" + std::to_string(j - 1) + " of it was kept)");
      return;
    }
    via_c |= by_c;
    const uint32_t d = b.run();
    if (d == 0) {
      if (!tested) return f.frac.na("F < " + std::to_string(j) + ": the first term this probe can form, 2^-" +
                                         std::to_string(j) + " of the cancelled part, was dropped");
      return f.frac.set(j - 1, "a term 2^-" + std::to_string(j - 1) + " of the largest cancelled term is kept, "
                                    "2^-" + std::to_string(j) + " dropped" +
                                    (via_c ? " (the smallest terms formed as c: the products' range ran out)" : ""));
    }
    tested = true;
    if (d != f32(p2(E - j)))
      return f.frac.na("the small term came back altered (bits " + std::to_string(d) + "): no window model fits");
  }
}

void detect_group(Bench& b, ScaledFeatures& f) {
  if (!f.frac.known) return f.group.na("needs F");
  const int first = small_position(b);
  const int last = b.blocks() >= 2 ? b.block() + b.block() - 1 : b.k() - 3;
  for (int d = 1; first + d <= last; ++d) {
    b.clear();
    const int E = cancel(b), t = E - f.frac.value - 1;
    if (!small_term(b, first, t) || !small_term(b, first + d, t))
      return f.group.na("two half-unit terms 2^" + std::to_string(t) + " cannot be formed");
    const uint32_t r = b.run();
    if (r == 0)
      return f.group.set(d, d == 1 ? "two half-unit terms side by side are aligned apart (each dropped)"
                                   : "two half-unit terms are summed exactly when fewer than " + std::to_string(d) +
                                         " positions apart (kept), aligned apart at " + std::to_string(d));
    if (r != f32(p2(E - f.frac.value)))
      return f.group.na("two half-unit terms gave neither 0 nor one unit");
  }
  if (b.blocks() >= 2)  // blocks have scales of their own: a group cannot be told longer than one
    return f.group.set(b.block(), "the whole scale block: two half-unit terms anywhere in one block of " +
                                      std::to_string(b.block()) + " are summed exactly (at least " +
                                      std::to_string(b.block()) + ")");
  f.group.na("at least " + std::to_string(last - first + 1) +
             ": terms this far apart in one instruction are still summed exactly");
}

void detect_scales(Bench& b, ScaledFeatures& f) {
  if (!b.block()) {
    f.scale_blocks.na("an unscaled unit");
    f.scales_before_alignment.na("an unscaled unit");
    return;
  }
  // Granularity: the last product of block j, scale 2 on block j (A's, then B's) or on the next block.
  bool ok = true;
  for (int j = 0; j < b.blocks() && ok; ++j)
    for (int side = 0; side < 2 && ok; ++side)
      for (int other = 0; other < (b.blocks() > 1 ? 2 : 1) && ok; ++other) {
        b.clear();
        b.product(j * b.block() + b.block() - 1, 1.0, 1.0);
        const int js = (j + other) % b.blocks();
        b.scales(js, side ? 1.0 : 2.0, side ? 2.0 : 1.0);
        ok = b.run() == f32(other ? 1.0 : 2.0);
      }
  if (ok)
    f.scale_blocks.set(true, "a scale code multiplies exactly the " + std::to_string(b.block()) +
                                 " products of its block (A's per row, B's per column)");
  else
    f.scale_blocks.na("a scale code does not act on exactly its block of products");
  // A scaled product cancels c exactly: the scales are applied before the sum.
  b.clear();
  b.product(0, p2(b.ea().hi), 1.0);
  b.scales(0, p2(b.es().hi), p2(b.es().lo));
  b.c(-p2(b.ea().hi + b.es().hi + b.es().lo));
  if (b.run() != 0) return f.scales_before_alignment.na("c = -(scaled product) does not cancel it exactly");
  f.scales_before_alignment.set(
      true, b.blocks() >= 2 ? "scaled products enter the fused sum with c (c cancels one exactly), and the window "
                              "dropped a term made small by its block's scales alone: a block's scale exponents "
                              "set its terms' alignment exponents"
                            : "scaled products enter the fused sum with c (c cancels one exactly); one scale block "
                              "per instruction scales all its products alike");
}

}  // namespace

ScaledBox scaled_black_box(const mmaemu_model* model, const mmaemu_block_scale_desc& desc) {
  int m = 0, n = 0, k = 0;
  const char* instr = nullptr;
  if (mmaemu_tile_block_scaled_shape(model, &desc, &m, &n, &k, &instr) != MMAEMU_OK)
    throw std::invalid_argument(mmaemu_last_error());
  ScaledBox box;
  box.fa = fmt_of(desc.a_format);
  box.fb = fmt_of(desc.b_format);
  box.scale = fmt_of(desc.scale_format);
  box.block = desc.block_size;
  box.k = k;
  box.instruction = instr;
  const int kb = desc.block_size ? k / desc.block_size : 0;
  box.dot = [model, desc, m, n, k, kb](const uint8_t* a, const uint8_t* b, const uint8_t* sa, const uint8_t* sb,
                                       uint32_t c) {
    // Row 0 of A and column 0 of B hold the vector; the rest is zero with neutral scales.
    const uint8_t one = desc.scale_format == MMAEMU_UE4M3 ? 0x38 : 0x7F;
    std::vector<uint8_t> A(size_t(m) * k, 0), B(size_t(k) * n, 0), SA(size_t(m) * kb, one), SB(size_t(kb) * n, one);
    std::vector<float> C(size_t(m) * n, 0.0f), D(size_t(m) * n);
    for (int l = 0; l < k; ++l) A[l] = a[l], B[size_t(l) * n] = b[l];
    for (int j = 0; j < kb; ++j) SA[j] = sa[j], SB[size_t(j) * n] = sb[j];
    std::memcpy(&C[0], &c, 4);
    if (mmaemu_tile_block_scaled(model, &desc, MMAEMU_FP32, A.data(), SA.data(), B.data(), SB.data(), C.data(),
                                 D.data()) != MMAEMU_OK)
      throw std::runtime_error(mmaemu_last_error());
    uint32_t d;
    std::memcpy(&d, &D[0], 4);
    return d;
  };
  return box;
}

ScaledFeatures detect_scaled(const ScaledBox& box) {
  ScaledFeatures f;
  Bench b(box);
  if (b.ea().empty() || b.eb().empty() || box.k < 3) {
    f.frac.na("the element formats hold no normal power of two, or k < 3");
    f.group.na("needs F");
  } else {
    try {
      detect_window(b, f);
      detect_group(b, f);
    } catch (const Unrealisable& e) {
      if (!f.frac.known) f.frac.na(std::string("the test values cannot be formed: ") + e.what());
      f.group.na(std::string("the test values cannot be formed: ") + e.what());
    }
  }
  try {
    detect_scales(b, f);
  } catch (const Unrealisable& e) {
    f.scale_blocks.na(std::string("the test values cannot be formed: ") + e.what());
    f.scales_before_alignment.na(f.scale_blocks.note);
  }
  f.calls = b.calls();
  return f;
}

void print_scaled(std::ostream& os, const ScaledFeatures& f, const ScaledBox& box, const std::string& title) {
  os << "probe: " << title << " (" << box.instruction << "), " << info(box.fa).name << " x " << info(box.fb).name;
  if (box.block) os << ", " << info(box.scale).name << " scales per " << box.block;
  os << ", k = " << box.k << "; " << f.calls << " calls of mmaemu_tile_block_scaled\n";
  auto line = [&](const char* name, const auto& det, const std::string& value) {
    os << "  " << name << std::string(26 - std::string(name).size(), ' ')
       << (det.known ? value : std::string("n/a")) << "  (" << det.note << ")\n";
  };
  line("F (window fraction bits)", f.frac, std::to_string(f.frac.value));
  line("group (exact products)", f.group, std::to_string(f.group.value));
  line("scale blocks", f.scale_blocks, "per " + std::to_string(box.block) + " along k");
  line("scales enter", f.scales_before_alignment, "before alignment");
}

}  // namespace mmaemu::probe
