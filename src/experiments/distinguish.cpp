// SPDX-License-Identifier: BSD-3-Clause
#include "experiments/distinguish.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <memory>
#include <random>
#include <stdexcept>

#include "driver/batch.h"
#include "experiments/common.h"
#include "experiments/distinguish_search.h"
#include "formats/fast_convert.h"
#include "validate/validate.h"

namespace mmaemu::experiments {
namespace {

constexpr std::size_t kBatch = 4096;      // samples per distribution and turn
constexpr std::size_t kKeepFound = 16;    // separating samples shrunk (the shortest result kept)
constexpr int kShrinkRounds = 400;

// ---------------------------------------------------------------------------
// Values and codes.

uint64_t code_of(Fmt f, double x, Overflow ov = Overflow::saturate) {
  return convert_input(Fmt::fp64, f, std::bit_cast<uint64_t>(x), Round::rne, ov);
}
double value_of(Fmt f, uint64_t code) { return std::bit_cast<double>(convert(f, Fmt::fp64, code, Round::rne)); }

// x as a code of f when f holds it exactly (NaN: any NaN).
bool exact_code(Fmt f, double x, uint64_t& code) {
  code = code_of(f, x, Overflow::ieee);
  const double back = value_of(f, code);
  return std::isnan(x) ? std::isnan(back) : back == x && std::signbit(back) == std::signbit(x);
}

int floor_log2(double x) { return std::ilogb(x); }

// Exponents of f's normal range, capped (the em ensembles: AMD paper Alg. 3).
int emin_of(Fmt f) { return info(f).emin(); }
int emax_of(Fmt f, int cap) { return std::min(info(f).emax(), cap); }

// ---------------------------------------------------------------------------
// The ensembles: one sample (a, b as values; c as a value) per call.

struct Sampler {
  std::mt19937_64 rng;
  Fmt in, out;
  std::size_t k;

  double uniform() { return std::uniform_real_distribution<double>(0, 1)(rng); }
  int pick(int lo, int hi) { return lo + static_cast<int>(rng() % static_cast<uint64_t>(hi - lo + 1)); }
  double sign() { return rng() & 1 ? -1.0 : 1.0; }
  // A random value of f at exponent e: significand on f's grid in [1, 2)
  // (below f's normal range: the subnormal grid).
  double at(Fmt f, int e) {
    const int man = info(f).man_bits, emin = emin_of(f);
    const int ulp = std::max(e, emin) - man;
    const double m = e >= emin ? std::ldexp(1.0, e) + std::ldexp(static_cast<double>(rng() % (1ull << man)), ulp)
                               : std::ldexp(static_cast<double>(1 + rng() % (1ull << man)), ulp);
    return sign() * std::min(m, max_finite(f));
  }
  double em(Fmt f) { return at(f, pick(emin_of(f), emax_of(f, 15))); }

  void normal(std::vector<double>& a, std::vector<double>& b, double& c) {
    std::normal_distribution<double> n(0, 1);
    for (std::size_t i = 0; i < k; ++i) a[i] = n(rng), b[i] = n(rng);
    c = 4 * n(rng);
  }
  void em_normal(std::vector<double>& a, std::vector<double>& b, double& c) {
    for (std::size_t i = 0; i < k; ++i) a[i] = em(in), b[i] = em(in);
    c = at(out, pick(emin_of(out), emax_of(out, 127)));
  }
  void em_cmatch(std::vector<double>& a, std::vector<double>& b, double& c) {
    em_normal(a, b, c);
    const std::size_t i = rng() % k;
    c = at(out, std::clamp(floor_log2(std::abs(a[i] * b[i])) + pick(-4, 4), emin_of(out), emax_of(out, 127)));
  }
  void sparse(std::vector<double>& a, std::vector<double>& b, double& c) {
    std::fill(a.begin(), a.end(), 0.0), std::fill(b.begin(), b.end(), 0.0);
    const int terms = pick(1, 3);
    int e0 = 0;
    for (int t = 0; t < terms; ++t) {
      const std::size_t i = rng() % k;
      a[i] = em(in), b[i] = em(in);
      e0 = floor_log2(std::abs(a[i] * b[i]));
    }
    c = rng() % 3 == 0 ? 0.0 : at(out, std::clamp(e0 + pick(-30, 30), emin_of(out), emax_of(out, 127)));
  }
  // Products cancelling in pairs (a_j = -a_i, b_j = b_i) around one large
  // exponent, and a few small terms below them: alignment and rounding.
  void cancel(std::vector<double>& a, std::vector<double>& b, double& c) {
    std::fill(a.begin(), a.end(), 0.0), std::fill(b.begin(), b.end(), 0.0);
    const int e = pick(emin_of(in) / 2, emax_of(in, 15) / 2);
    for (std::size_t i = 0; i + 1 < k; i += 2)
      if (rng() % 2) {
        a[i] = at(in, e + pick(-1, 1)), b[i] = at(in, e + pick(-1, 1));
        a[i + 1] = -a[i], b[i + 1] = b[i];
      }
    for (int t = pick(1, 3); t > 0; --t) {
      const std::size_t i = rng() % k;
      a[i] = at(in, std::max(emin_of(in) - info(in).man_bits, e - pick(1, 24))), b[i] = at(in, e + pick(-1, 1));
    }
    c = rng() % 2 ? 0.0 : at(out, std::clamp(2 * e - pick(0, 40), emin_of(out) - info(out).man_bits, emax_of(out, 127)));
  }
  // c dominating, the products a cluster just below its last bits (one
  // sign or both): the late-c rounding rules (docs/models.md §2.6).
  void below_c(std::vector<double>& a, std::vector<double>& b, double& c) {
    const int ec = pick(-4, 4), man = info(out).man_bits;
    c = at(out, ec);
    const double s = rng() % 2 ? sign() : 0;
    for (std::size_t i = 0; i < k; ++i) {
      const bool on = rng() % 3 != 0;
      a[i] = on ? at(in, ec - man - pick(0, 10) - 1) : 0.0;
      b[i] = on ? (s != 0 ? s * std::abs(at(in, 0)) : at(in, 0)) : 0.0;
      if (on && s != 0) a[i] = std::abs(a[i]);
    }
  }
  // Subnormal inputs, and (half the time) products and c around the output's
  // smallest normal: flushing, its sign, gradual underflow.
  void subnormal(std::vector<double>& a, std::vector<double>& b, double& c) {
    const int lo = emin_of(in) - info(in).man_bits;
    const bool at_out = rng() % 2;
    for (std::size_t i = 0; i < k; ++i) {
      if (at_out && rng() % 2) {
        const int ep = emin_of(out) + pick(-info(out).man_bits - 2, 1);  // the product's exponent
        const int ea = std::clamp(ep / 2 + pick(-2, 2), lo, emax_of(in, 15));
        a[i] = at(in, ea), b[i] = at(in, std::clamp(ep - ea, lo, emax_of(in, 15)));
      } else if (at_out) {
        a[i] = b[i] = 0.0;
      } else {
        a[i] = rng() % 2 ? at(in, pick(lo, emin_of(in))) : em(in);
        b[i] = rng() % 2 ? at(in, pick(lo, emin_of(in))) : at(in, pick(emin_of(in), emin_of(in) + 4));
      }
    }
    c = rng() % 2 ? at(out, pick(emin_of(out) - info(out).man_bits, emin_of(out))) : 0.0;
  }
  // Random bit patterns (finite values: NaN/Inf patterns redrawn, AMD Sec. 5.2).
  double bits(Fmt f) {
    for (;;) {
      const uint64_t code = rng() & (info(f).width == 64 ? ~0ull : (1ull << info(f).width) - 1);
      const double v = value_of(f, code);
      if (std::isfinite(v)) return v;
    }
  }
  void random_bits(std::vector<double>& a, std::vector<double>& b, double& c) {
    for (std::size_t i = 0; i < k; ++i) a[i] = bits(in), b[i] = bits(in);
    c = bits(out);
  }
  void specials(std::vector<double>& a, std::vector<double>& b, double& c) {
    em_normal(a, b, c);
    const double sp[] = {INFINITY, -INFINITY, NAN, 0.0, -0.0};
    for (int t = pick(1, 2); t > 0; --t) {
      const int where = pick(0, 2);
      const double v = sp[rng() % 5];
      if (where == 0) a[rng() % k] = v;
      else if (where == 1) b[rng() % k] = v;
      else c = v;
    }
  }

  void draw(const std::string& dist, std::vector<double>& a, std::vector<double>& b, double& c) {
    if (dist == "normal") return normal(a, b, c);
    if (dist == "em-normal") return em_normal(a, b, c);
    if (dist == "em-cmatch") return em_cmatch(a, b, c);
    if (dist == "sparse") return sparse(a, b, c);
    if (dist == "cancel") return cancel(a, b, c);
    if (dist == "subnormal") return subnormal(a, b, c);
    if (dist == "below-c") return below_c(a, b, c);
    if (dist == "bits") return random_bits(a, b, c);
    return specials(a, b, c);
  }
};

// ---------------------------------------------------------------------------
// Evaluation of many vectors on both rows.

struct Batch {
  std::size_t k = 0, n = 0;
  std::vector<uint64_t> a, b, c, d1, d2;
  void add(const TestVector& v) {
    a.insert(a.end(), v.a.begin(), v.a.end());
    b.insert(b.end(), v.b.begin(), v.b.end());
    c.push_back(v.c);
    ++n;
  }
  void clear() { a.clear(), b.clear(), c.clear(), n = 0; }
  TestVector vector(std::size_t i) const {
    TestVector v;
    v.a.assign(a.begin() + static_cast<std::ptrdiff_t>(i * k), a.begin() + static_cast<std::ptrdiff_t>((i + 1) * k));
    v.b.assign(b.begin() + static_cast<std::ptrdiff_t>(i * k), b.begin() + static_cast<std::ptrdiff_t>((i + 1) * k));
    v.c = c[i], v.d_first = d1[i], v.d_second = d2[i];
    return v;
  }
};

void run_rows(const ModelRow& first, const ModelRow& second, Batch& bt, int threads) {
  bt.d1.assign(bt.n, 0), bt.d2.assign(bt.n, 0);
  driver::BatchProblem p;
  p.count = bt.n, p.k = bt.k, p.A = bt.a.data(), p.B = bt.b.data(), p.C = bt.c.data();
  p.storage = driver::BatchStorage::codes;
  driver::BatchOptions o;
  o.threads = threads;
  p.D = bt.d1.data();
  driver::run_batch(first, p, o);
  p.D = bt.d2.data();
  driver::run_batch(second, p, o);
}

TestVector encode_vector(Fmt in, Fmt out, const std::vector<double>& a, const std::vector<double>& b, double c) {
  TestVector v;
  for (std::size_t i = 0; i < a.size(); ++i) {
    v.a.push_back(code_of(in, a[i], std::isfinite(a[i]) ? Overflow::saturate : Overflow::ieee));
    v.b.push_back(code_of(in, b[i], std::isfinite(b[i]) ? Overflow::saturate : Overflow::ieee));
  }
  v.c = code_of(out, c, std::isfinite(c) ? Overflow::saturate : Overflow::ieee);
  return v;
}

// ---------------------------------------------------------------------------
// Shrinking: moves that keep the vector exact in its formats.

struct Values {
  std::vector<double> a, b;
  double c;
};
Values values_of(Fmt in, Fmt out, const TestVector& v) {
  Values x;
  for (uint64_t code : v.a) x.a.push_back(value_of(in, code));
  for (uint64_t code : v.b) x.b.push_back(value_of(in, code));
  x.c = value_of(out, v.c);
  return x;
}

double pow2_like(double x) { return std::copysign(std::ldexp(1.0, floor_log2(x)), x); }

// Every candidate one move away from v (exactly representable ones only).
std::vector<TestVector> moves(Fmt in, Fmt out, const TestVector& v) {
  const Values x = values_of(in, out, v);
  const std::size_t k = x.a.size();
  std::vector<TestVector> cand;
  auto push = [&](std::size_t i, double ai, double bi, bool set_c, double c) {
    TestVector t = v;
    if (i < k && (!exact_code(in, ai, t.a[i]) || !exact_code(in, bi, t.b[i]))) return;
    if (set_c && !exact_code(out, c, t.c)) return;
    cand.push_back(std::move(t));
  };
  std::vector<int> exps;  // the terms' exponents, for the median
  for (std::size_t i = 0; i < k; ++i)
    if (std::isfinite(x.a[i] * x.b[i]) && x.a[i] * x.b[i] != 0) exps.push_back(floor_log2(x.a[i] * x.b[i]));
  if (std::isfinite(x.c) && x.c != 0) exps.push_back(floor_log2(x.c));
  std::sort(exps.begin(), exps.end());
  const int median = exps.empty() ? 0 : exps[exps.size() / 2];
  for (std::size_t i = 0; i < k; ++i) {
    const double ai = x.a[i], bi = x.b[i];
    if (ai == 0 && bi == 0) continue;
    push(i, 0.0, 0.0, false, 0);  // drop the product
    if (ai != 0 && bi != 0 && std::isfinite(ai) && std::isfinite(bi)) {
      push(i, pow2_like(ai), bi, false, 0);
      push(i, ai, pow2_like(bi), false, 0);
      push(i, ai * std::abs(bi), std::copysign(1.0, bi), false, 0);  // the product in a
      push(i, std::copysign(1.0, ai), bi * std::abs(ai), false, 0);  // ... or in b
      const int e = floor_log2(ai * bi);
      if (e != median) {  // one binade toward the other terms
        const double s = e > median ? 0.5 : 2.0;
        push(i, ai * s, bi, false, 0);
        push(i, ai, bi * s, false, 0);
      }
    }
  }
  if (x.c != 0 || std::signbit(x.c)) push(k, 0, 0, true, 0.0);
  if (x.c != 0 && std::isfinite(x.c)) {
    push(k, 0, 0, true, pow2_like(x.c));
    if (floor_log2(x.c) != median) push(k, 0, 0, true, x.c * (floor_log2(x.c) > median ? 0.5 : 2.0));
  }
  return cand;
}

// v shrunk: the best separating move, round after round, until none is shorter.
TestVector shrink(const ModelRow& first, const ModelRow& second, const SearchKind& kind, TestVector v, int threads,
                  std::size_t& evaluations) {
  Batch bt;
  bt.k = v.a.size();
  for (int round = 0; round < kShrinkRounds; ++round) {
    const std::vector<TestVector> cand = kind.moves(v);
    if (cand.empty()) break;
    bt.clear();
    for (const TestVector& t : cand) bt.add(t);
    run_rows(first, second, bt, threads);
    evaluations += bt.n;
    VectorSize best = kind.size(v);
    std::size_t pick = bt.n;
    for (std::size_t i = 0; i < bt.n; ++i) {
      if (bt.d1[i] == bt.d2[i]) continue;
      const VectorSize s = kind.size(cand[i]);
      if (s < best) best = s, pick = i;
    }
    if (pick == bt.n) break;
    v = bt.vector(pick);
  }
  return v;
}

// The floating-point units' search: the ensembles of Sampler, the moves above.
SearchKind float_search(const DistinguishConfig& cfg, std::size_t k) {
  auto sampler = std::make_shared<Sampler>(Sampler{std::mt19937_64(cfg.seed), cfg.in, cfg.out, k});
  auto buf = std::make_shared<std::pair<std::vector<double>, std::vector<double>>>(std::vector<double>(k),
                                                                                 std::vector<double>(k));
  SearchKind kind;
  kind.distributions = distinguish_distributions();
  const Fmt in = cfg.in, out = cfg.out;
  kind.draw = [sampler, buf, in, out](const std::string& dist) {
    double c = 0;
    sampler->draw(dist, buf->first, buf->second, c);
    return encode_vector(in, out, buf->first, buf->second, c);
  };
  kind.moves = [in, out](const TestVector& v) { return moves(in, out, v); };
  kind.size = [in, out](const TestVector& v) { return vector_size(in, out, v); };
  return kind;
}

}  // namespace

const std::vector<std::string>& distinguish_distributions() {
  static const std::vector<std::string> d{"sparse", "em-normal", "em-cmatch", "cancel", "below-c",
                                          "normal", "subnormal", "bits",      "specials"};
  return d;
}

bool VectorSize::operator<(const VectorSize& o) const {
  if (terms != o.terms) return terms < o.terms;
  if (exponent_range != o.exponent_range) return exponent_range < o.exponent_range;
  return bits < o.bits;
}

VectorSize vector_size(Fmt in, Fmt out, const TestVector& v) {
  const Values x = values_of(in, out, v);
  VectorSize s;
  int lo = 0, hi = 0;
  bool any = false;
  auto term = [&](double t) {
    ++s.terms;
    if (!std::isfinite(t)) return;
    const int e = floor_log2(t);
    lo = any ? std::min(lo, e) : e, hi = any ? std::max(hi, e) : e;
    any = true;
  };
  auto bits = [](double y) {
    if (!std::isfinite(y) || y == 0) return 0;
    const double m = std::abs(y) / std::ldexp(1.0, floor_log2(y));  // [1, 2)
    return std::popcount(std::bit_cast<uint64_t>(m) & ((uint64_t{1} << 52) - 1));
  };
  for (std::size_t i = 0; i < x.a.size(); ++i) {
    const double p = x.a[i] * x.b[i];
    if (p != 0 || std::isnan(p)) term(p), s.bits += bits(x.a[i]) + bits(x.b[i]);
  }
  if (x.c != 0 || std::isnan(x.c)) term(x.c), s.bits += bits(x.c);
  s.exponent_range = hi - lo;
  return s;
}

uint64_t evaluate(const ModelRow& row, const std::vector<uint64_t>& a, const std::vector<uint64_t>& b, uint64_t c) {
  uint64_t d = 0;
  driver::BatchProblem p;
  p.count = 1, p.k = a.size(), p.A = a.data(), p.B = b.data(), p.C = &c, p.D = &d;
  p.storage = driver::BatchStorage::codes;
  driver::run_batch(row, p, {1});
  return d;
}

bool harness_pattern(Fmt f, uint64_t code, uint32_t& pattern) {
  if (info(f).width > 32 || info(f).is_integer()) return false;
  pattern = f == Fmt::fp32 ? static_cast<uint32_t>(code) : to_fp32_bits(f, code);
  return true;
}

namespace {

// The one search: random samples of the kind's distributions in turns of
// kBatch until one separates the rows, then the shortest of the first
// kKeepFound shrunk (docs/distinguish.md).
DistinguishResult distinguish_search(const ModelRow& first, const ModelRow& second, const DistinguishConfig& cfg,
                                     std::size_t k, const SearchKind& kind) {
  const std::vector<std::string> dists = cfg.distributions.empty() ? kind.distributions : cfg.distributions;
  for (const std::string& d : dists)
    if (std::find(kind.distributions.begin(), kind.distributions.end(), d) == kind.distributions.end()) {
      std::string valid;
      for (const std::string& v : kind.distributions) valid += (valid.empty() ? "" : ", ") + v;
      throw std::invalid_argument("unknown distribution '" + d + "' (valid: " + valid + ")");
    }
  DistinguishResult r;
  r.k = k;
  for (const std::string& d : dists) r.per_distribution.push_back({d, 0, 0});
  Batch bt;
  bt.k = r.k;
  std::vector<TestVector> found;
  for (std::size_t turn = 0; r.samples < cfg.max_samples && found.empty(); ++turn) {
    DistributionCount& dc = r.per_distribution[turn % dists.size()];
    const std::size_t n = std::min(kBatch, cfg.max_samples - r.samples);
    bt.clear();
    for (std::size_t i = 0; i < n; ++i) bt.add(kind.draw(dc.name));
    run_rows(first, second, bt, cfg.threads);
    r.samples += n;
    dc.samples += n;
    for (std::size_t i = 0; i < n; ++i)
      if (bt.d1[i] != bt.d2[i]) {
        ++dc.separating;
        if (found.size() < kKeepFound) found.push_back(bt.vector(i));
      }
    if (!found.empty()) r.found_by = dc.name;
  }
  if (found.empty()) {
    r.bound = validate::mismatch_upper_bound(r.samples, 0, r.eps);
    return r;
  }
  r.found = true;
  r.first = found.front();
  r.shortest = r.first;
  for (const TestVector& f : found) {
    const TestVector t = shrink(first, second, kind, f, cfg.threads, r.shrink_evaluations);
    if (kind.size(t) < kind.size(r.shortest) || &f == &found.front()) r.shortest = t;
  }
  return r;
}

}  // namespace

DistinguishResult distinguish(const ModelRow& first, const ModelRow& second, const DistinguishConfig& cfg) {
  const bool i1 = first.accum == Accumulation::integer, i2 = second.accum == Accumulation::integer;
  if (i1 != i2) throw std::invalid_argument("an integer unit and a floating-point unit take different inputs");
  const std::size_t k = cfg.k ? cfg.k : static_cast<std::size_t>(first.k);
  if (i1) return distinguish_search(first, second, cfg, k, integer_search(first, second, cfg.seed, k));
  return distinguish_search(first, second, cfg, k, float_search(cfg, k));
}

}  // namespace mmaemu::experiments
