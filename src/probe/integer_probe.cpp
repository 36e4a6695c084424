// SPDX-License-Identifier: BSD-3-Clause
// The integer probe (integer_probe.h). Every test is one instruction's
// output element with a few nonzero products, c chosen so that the
// hypotheses give different s32 results (docs/models.md §11.1, §11.3):
//   reading:   a top-bit code (0xff; int4 0xf) times 1: -1 (two's
//              complement) or 255 (15: unsigned);
//   exact sum: k products of the largest magnitude from c = 0;
//   overflow:  MAX_INT32 + 1 (and MIN_INT32 - 1 where a product can be
//              negative): wraps to the other bound, or stays (clamp);
//   clamp point (.satfinite): from c = MAX_INT32 - 15, +p then -p in k
//              order: the instruction's exact sum is c (clamped once: c),
//              clamping after each addition loses p (MAX_INT32 - p). With
//              two unsigned formats every product is >= 0 and the two
//              readings never differ: n/a.
#include "probe/integer_probe.h"

#include <cstdint>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace mmaemu::probe {
namespace {

constexpr int64_t kMax = INT32_MAX, kMin = INT32_MIN;

bool is_signed(Fmt f) { return info(f).integer == IntKind::twos_complement; }
int width(Fmt f) { return info(f).width; }
int64_t max_of(Fmt f) { return is_signed(f) ? (int64_t{1} << (width(f) - 1)) - 1 : (int64_t{1} << width(f)) - 1; }
int64_t min_of(Fmt f) { return is_signed(f) ? -(int64_t{1} << (width(f) - 1)) : 0; }
uint8_t code(Fmt f, int64_t v) { return static_cast<uint8_t>(v & ((1 << width(f)) - 1)); }
uint8_t top_code(Fmt f) { return static_cast<uint8_t>((1 << width(f)) - 1); }  // all ones
int64_t s32(uint32_t d) { return static_cast<int32_t>(d); }
uint32_t bits(int64_t v) { return static_cast<uint32_t>(static_cast<int32_t>(v)); }

std::string str(int64_t v) { return std::to_string(v); }

// One instruction: products (a_i, b_i) at positions 0, 1, ..., the rest 0.
struct Bench {
  const IntegerBox& box;
  long calls = 0;
  int64_t run(const std::vector<std::pair<uint8_t, uint8_t>>& products, int64_t c) {
    std::vector<uint8_t> a(box.k, 0), b(box.k, 0);
    for (std::size_t i = 0; i < products.size(); ++i) a[i] = products[i].first, b[i] = products[i].second;
    ++calls;
    return s32(box.dot(a.data(), b.data(), bits(c)));
  }
};

std::string accepted_formats(const mmaemu_model* model) {
  std::string s, s4;
  for (const Fmt a : {Fmt::s8, Fmt::u8, Fmt::s4, Fmt::u4})
    for (const Fmt b : {Fmt::s8, Fmt::u8, Fmt::s4, Fmt::u4}) {
      if (width(a) != width(b)) continue;
      mmaemu_gemm_int_options o;
      mmaemu_gemm_int_options_init(&o);
      o.a_format = static_cast<mmaemu_format>(a);
      o.b_format = static_cast<mmaemu_format>(b);
      if (mmaemu_tile_shape_int(model, &o, nullptr, nullptr, nullptr) != MMAEMU_OK) continue;
      std::string& to = width(a) == 4 ? s4 : s;
      to += std::string(to.empty() ? "" : ", ") + info(a).name + " x " + info(b).name;
    }
  return (s.empty() ? "none" : s) + "; int4: " + (s4.empty() ? "none" : s4);
}

// How the unit reads a code of all ones in A (is_a) or B, times 1.
void detect_reading(Bench& t, bool is_a, Det<bool>& out) {
  const Fmt f = is_a ? t.box.fa : t.box.fb, other = is_a ? t.box.fb : t.box.fa;
  const uint8_t top = top_code(f), one = code(other, 1);
  const int64_t d = t.run({is_a ? std::make_pair(top, one) : std::make_pair(one, top)}, 0);
  const std::string how = "code 0x" + std::string(width(f) == 4 ? "f" : "ff") + " times 1 from c = 0 gave " + str(d);
  if (d == -1) out.set(true, how);
  else if (d == (int64_t{1} << width(f)) - 1) out.set(false, how);
  else out.na(how + ": neither -1 (two's complement) nor " + str((int64_t{1} << width(f)) - 1) + " (unsigned)");
}

// The value of the largest magnitude of a format (-128, 255, -8, 15).
int64_t extreme(Fmt f) { return is_signed(f) ? min_of(f) : max_of(f); }

void detect_exact(Bench& t, IntegerFeatures& f) {
  const int64_t va = extreme(t.box.fa), vb = extreme(t.box.fb), want = t.box.k * va * vb;
  const std::vector<std::pair<uint8_t, uint8_t>> all(t.box.k, {code(t.box.fa, va), code(t.box.fb, vb)});
  const int64_t d = t.run(all, 0);
  const std::string how = str(t.box.k) + " products " + str(va) + " * " + str(vb) + " from c = 0 gave " + str(d);
  if (d == want) f.exact.set(true, how + ", their exact sum");
  else f.exact.na(how + ", not their exact sum " + str(want));
}

// MAX_INT32 + 1 (and MIN_INT32 - 1 where a product can be negative).
void detect_overflow(Bench& t, Det<IntOverflow>& out) {
  const uint8_t a1 = code(t.box.fa, 1), b1 = code(t.box.fb, 1);
  const int64_t up = t.run({{a1, b1}}, kMax);
  std::string how = "MAX_INT32 + 1 gave " + str(up);
  IntOverflow rule;
  if (up == kMin) rule = IntOverflow::wrap;
  else if (up == kMax) rule = IntOverflow::satfinite;
  else return out.na(how + ": neither MIN_INT32 (wrap) nor MAX_INT32 (clamp)");
  if (is_signed(t.box.fa) || is_signed(t.box.fb)) {
    const std::pair<uint8_t, uint8_t> minus =
        is_signed(t.box.fa) ? std::make_pair(code(t.box.fa, -1), b1) : std::make_pair(a1, code(t.box.fb, -1));
    const int64_t down = t.run({minus}, kMin);
    how += ", MIN_INT32 - 1 gave " + str(down);
    if (down != (rule == IntOverflow::wrap ? kMax : kMin))
      return out.na(how + ": the two bounds disagree (one wraps, the other clamps)");
  }
  out.set(rule, how);
}

// From MAX_INT32 - 15: +p then -p in one instruction.
void detect_sat_point(Bench& t, Det<SatPoint>& out) {
  const Fmt fa = t.box.fa, fb = t.box.fb;
  if (!is_signed(fa) && !is_signed(fb))
    return out.na("both formats unsigned: every product is >= 0, so clamping once or after each addition give the "
                  "same result on every input");
  const int64_t va = max_of(fa), vb = max_of(fb), p = va * vb;
  const std::pair<uint8_t, uint8_t> plus{code(fa, va), code(fb, vb)};
  const std::pair<uint8_t, uint8_t> minus =
      is_signed(fb) ? std::make_pair(code(fa, va), code(fb, -vb)) : std::make_pair(code(fa, -va), code(fb, vb));
  const int64_t c = kMax - 15, d = t.run({plus, minus}, c);
  const std::string how = "from MAX_INT32 - 15, +" + str(p) + " then -" + str(p) + " gave MAX_INT32 - " + str(kMax - d);
  if (d == c) out.set(SatPoint::instruction, how + ": the instruction's exact sum, clamped once");
  else if (d == kMax - p) out.set(SatPoint::addition, how + ": clamped after the first addition");
  else out.na(how + ": neither MAX_INT32 - 15 (once per instruction) nor MAX_INT32 - " + str(p) + " (each addition)");
}

}  // namespace

const char* name(IntOverflow o) {
  return o == IntOverflow::wrap ? "wrap (modulo 2^32)" : "clamp to MIN_INT32..MAX_INT32";
}
const char* name(SatPoint p) {
  return p == SatPoint::instruction ? "instruction (the exact sum clamped once)" : "each addition, in k order";
}

IntegerBox integer_black_box(const mmaemu_model* model, Fmt fa, Fmt fb, bool saturate) {
  mmaemu_gemm_int_options opt;
  mmaemu_gemm_int_options_init(&opt);
  opt.a_format = static_cast<mmaemu_format>(fa);
  opt.b_format = static_cast<mmaemu_format>(fb);
  opt.saturate = saturate ? 1 : 0;
  IntegerBox box;
  if (mmaemu_tile_shape_int(model, &opt, &box.m, &box.n, &box.k) != MMAEMU_OK)
    throw std::invalid_argument(mmaemu_last_error());
  box.fa = fa, box.fb = fb, box.saturate = saturate;
  const bool packed = width(fa) == 4;
  const int k = box.k;
  box.dot = [model, opt, packed, k](const uint8_t* a, const uint8_t* b, uint32_t c) {
    // One code per byte, or int4 two per byte along k, element 2i low (mmaemu_dot_batch_int).
    std::vector<uint8_t> pa(k, 0), pb(k, 0);
    for (int l = 0; l < k; ++l) {
      const int at = packed ? l / 2 : l, shift = packed ? 4 * (l & 1) : 0, mask = packed ? 0xF : 0xFF;
      pa[at] = static_cast<uint8_t>(pa[at] | ((a[l] & mask) << shift));
      pb[at] = static_cast<uint8_t>(pb[at] | ((b[l] & mask) << shift));
    }
    int32_t cd = static_cast<int32_t>(c);
    if (mmaemu_dot_batch_int(model, &opt, 1, k, pa.data(), pb.data(), &cd, &cd) != MMAEMU_OK)
      throw std::runtime_error(mmaemu_last_error());
    return static_cast<uint32_t>(cd);
  };
  return box;
}

IntegerFeatures detect_integer(const mmaemu_model* model, Fmt fa, Fmt fb) {
  IntegerFeatures f;
  f.accepted = accepted_formats(model);
  const IntegerBox box = integer_black_box(model, fa, fb, false);
  Bench t{box};
  detect_reading(t, true, f.a_twos_complement);
  detect_reading(t, false, f.b_twos_complement);
  detect_exact(t, f);
  detect_overflow(t, f.overflow);
  IntegerBox sat;
  try {
    sat = integer_black_box(model, fa, fb, true);
  } catch (const std::invalid_argument& e) {
    f.has_satfinite.set(false, std::string("the C API refuses saturate = 1: ") + e.what());
    f.satfinite.na("no .satfinite variant");
    f.sat_point.na("no .satfinite variant");
    f.calls = t.calls;
    return f;
  }
  f.has_satfinite.set(true, "the C API takes saturate = 1");
  Bench ts{sat};
  detect_overflow(ts, f.satfinite);
  if (f.satfinite.known && f.satfinite.value == IntOverflow::satfinite) detect_sat_point(ts, f.sat_point);
  else f.sat_point.na("the .satfinite variant does not clamp");
  f.calls = t.calls + ts.calls;
  return f;
}

void print_integer(std::ostream& os, const IntegerFeatures& f, const IntegerBox& box, const std::string& title) {
  os << "probe: " << title << " integer unit, " << info(box.fa).name << " x " << info(box.fb).name << " -> s32, "
     << box.m << "x" << box.n << "x" << box.k << "; " << f.calls << " calls of mmaemu_dot_batch_int\n";
  auto line = [&](const char* name, bool known, const std::string& value, const std::string& note) {
    os << "  " << name << std::string(26 - std::string(name).size(), ' ') << (known ? value : std::string("n/a"))
       << "  (" << note << ")\n";
  };
  auto reading = [](const Det<bool>& d) { return std::string(d.value ? "two's complement" : "unsigned"); };
  line("inputs accepted", true, f.accepted, "the A x B formats mmaemu_tile_shape_int takes for the model");
  line("k per instruction", true, std::to_string(box.k), "the instruction's shape");
  line("A reads a top-bit code", f.a_twos_complement.known, reading(f.a_twos_complement), f.a_twos_complement.note);
  line("B reads a top-bit code", f.b_twos_complement.known, reading(f.b_twos_complement), f.b_twos_complement.note);
  line("sum", f.exact.known, "exact", f.exact.note);
  line("overflow", f.overflow.known, name(f.overflow.value), f.overflow.note);
  line(".satfinite variant", f.has_satfinite.known, f.has_satfinite.value ? "yes" : "no", f.has_satfinite.note);
  line(".satfinite overflow", f.satfinite.known, name(f.satfinite.value), f.satfinite.note);
  line(".satfinite clamps at", f.sat_point.known, name(f.sat_point.value), f.sat_point.note);
}

}  // namespace mmaemu::probe
