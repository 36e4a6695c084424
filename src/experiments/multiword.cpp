// SPDX-License-Identifier: BSD-3-Clause
#include "experiments/multiword.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <stdexcept>

#include "driver/gemm.h"
#include "experiments/numerics.h"
#include "experiments/plot.h"

namespace mmaemu::experiments {

namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

std::string fmt_e(double x, int digits = 6) {
  char b[48];
  std::snprintf(b, sizeof b, "%.*e", digits, x);
  return b;
}

}  // namespace

std::vector<std::size_t> multiword_sizes(int points, std::size_t nmax) {
  if (points < 1 || nmax < 10) throw std::invalid_argument("multiword_sizes: points >= 1, nmax >= 10");
  if (points == 1) return {nmax};
  std::vector<std::size_t> n;
  const double hi = std::log10(static_cast<double>(nmax));
  for (int i = 0; i < points; ++i) {
    // MATLAB's logspace: 10.^(a + (0:p-1) * (b - a) / (p - 1)); the ends exact.
    const double e = i == points - 1 ? hi : 1.0 + i * (hi - 1.0) / (points - 1);
    std::size_t v = i == points - 1 ? nmax : static_cast<std::size_t>(std::floor(std::pow(10.0, e)));
    if (!n.empty() && v <= n.back()) v = n.back() + 1;  // strictly increasing
    n.push_back(v);
  }
  return n;
}

double multiword_theta(Fmt in, Fmt out, std::size_t n) {
  return std::min(max_finite(in), std::sqrt(max_finite(out) / static_cast<double>(n)));
}

double multiword_bound(Fmt in, Fmt out, std::size_t n) {
  const double u = std::ldexp(1.0, -precision(in)), U = std::ldexp(1.0, -precision(out));
  const double fmin = min_normal(in), Fmin = min_normal(out), nd = static_cast<double>(n);
  const double theta = multiword_theta(in, out, n);
  return 2 * u + nd * U + 4 * nd * nd * fmin / theta + 4 * nd * nd * Fmin / (theta * theta);
}

void multiword_matrices(std::size_t m, std::size_t n, std::size_t q, uint64_t seed, Matrix& A, Matrix& B) {
  Dist d;
  d.kind = Dist::Kind::loguniform;
  d.a = -10;
  d.b = 10;
  Rng rng(splitmix64(seed ^ splitmix64(n)));
  A = Matrix(m, n);
  B = Matrix(n, q);
  fill(A, d, rng);
  fill(B, d, rng);
}

MultiwordInputs multiword_prepare(const Matrix& A, const Matrix& B, Fmt in, Fmt out, int pmax, Round split) {
  MultiwordInputs w;
  w.in = in;
  w.out = out;
  w.m = A.rows;
  w.n = A.cols;
  w.q = B.cols;
  w.theta = multiword_theta(in, out, w.n);
  w.L = row_scaling(A, w.theta);
  w.M = col_scaling(B, w.theta);
  Matrix LA = A, BM = B;
  for (std::size_t i = 0; i < LA.rows; ++i)
    for (std::size_t j = 0; j < LA.cols; ++j) LA(i, j) *= w.L[i];
  for (std::size_t i = 0; i < BM.rows; ++i)
    for (std::size_t j = 0; j < BM.cols; ++j) BM(i, j) *= w.M[j];
  w.Aw = split_words(LA.v.data(), LA.v.size(), in, pmax, split);
  w.Bw = split_words(BM.v.data(), BM.v.size(), in, pmax, split);
  return w;
}

namespace {

// x's values in format f (RNE, saturating), scaled by `scale`.
FormatArray recode(const FormatArray& x, Fmt f, double scale, Overflow ov) {
  std::vector<double> v(x.size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = x.value(i);
  return encode(v.data(), v.size(), f, Round::rne, ov, scale);
}

}  // namespace

Matrix multiword_product(const ModelRow& row, const MultiwordInputs& w, int p, int threads) {
  if (p < 1 || static_cast<std::size_t>(p) > w.Aw.size()) throw std::invalid_argument("multiword_product: bad p");
  // Words of another format than the unit's (the toolbox's MI300 fp8:
  // OCP words, FNUZ unit) are rounded to the unit's, RNE and saturating.
  const bool same = row.in == w.in;
  const Overflow ov = same ? Overflow::ieee : Overflow::saturate;
  std::vector<FormatArray> Bu;
  for (const FormatArray& b : w.Bw) Bu.push_back(same ? b : recode(b, row.in, 1.0, ov));
  const int t = precision(w.in);
  FormatArray C(row.out, w.m * w.q);  // all-zero bits: +0
  for (int j = 1; j <= p; ++j)
    for (int k = 1; k <= p; ++k) {
      if (j + k - 2 >= p) continue;
      const int s = j + k - 2;
      const FormatArray& Aj = w.Aw[static_cast<std::size_t>(j - 1)];
      const FormatArray& Bk = Bu[static_cast<std::size_t>(k - 1)];
      if (s == 0 && same) {
        model_gemm(row, true, w.m, w.q, w.n, Aj, Bk, C, threads);
        continue;
      }
      // The toolbox's GEMM(alpha, ...) rounds alpha*A_j to the input format.
      model_gemm(row, true, w.m, w.q, w.n, recode(Aj, row.in, std::ldexp(1.0, -t * s), ov), Bk, C, threads);
    }
  Matrix P(w.m, w.q);
  for (std::size_t i = 0; i < P.v.size(); ++i) P.v[i] = C.value(i);
  return P;
}

Matrix multiword_unscale(const MultiwordInputs& w, const Matrix& P) {
  Matrix C(P.rows, P.cols);
  for (std::size_t i = 0; i < P.rows; ++i)
    for (std::size_t j = 0; j < P.cols; ++j) C(i, j) = (1.0 / w.L[i]) * P(i, j) * (1.0 / w.M[j]);
  return C;
}

MultiwordRun run_multiword(const MultiwordConfig& cfg, std::ostream& progress) {
  MultiwordRun run;
  std::vector<std::pair<const Model*, const ModelRow*>> units;
  for (const Model& m : cfg.models) {
    if (const ModelRow* r = m.find(cfg.in, cfg.out)) units.emplace_back(&m, r);
    else run.skipped.push_back(m.name + ": " + skip_reason(m, cfg.in, cfg.out));
  }
  int pmax = 0;
  for (int p : cfg.words) pmax = std::max(pmax, p);
  const std::vector<std::size_t> sizes = multiword_sizes(cfg.points, cfg.nmax);
  // records[unit][word][point]
  std::vector<std::vector<std::vector<MultiwordRecord>>> rec(
      units.size(), std::vector<std::vector<MultiwordRecord>>(cfg.words.size(), std::vector<MultiwordRecord>(sizes.size())));
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  for (std::size_t pi = 0; pi < sizes.size() && !units.empty(); ++pi) {
    const auto t0 = clock::now();
    const std::size_t n = sizes[pi];
    Matrix A, B;
    multiword_matrices(cfg.m, n, cfg.q, cfg.seed, A, B);
    const Matrix Cref = exact_product(A, B, cfg.threads);
    const double scale = norm_inf(A) * norm_inf(B);
    const MultiwordInputs w = multiword_prepare(A, B, cfg.in, cfg.out, pmax);
    const double bound = multiword_bound(cfg.in, cfg.out, n);
    for (std::size_t ui = 0; ui < units.size(); ++ui)
      for (std::size_t wi = 0; wi < cfg.words.size(); ++wi) {
        const Matrix C = multiword_unscale(w, multiword_product(*units[ui].second, w, cfg.words[wi], cfg.threads));
        MultiwordRecord& r = rec[ui][wi][pi];
        r.model = units[ui].first->name;
        r.instr = units[ui].second->instr;
        r.words = cfg.words[wi];
        r.n = n;
        r.error = norm_inf_diff(C, Cref) / scale;
        r.bound = bound;
      }
    if (cfg.progress) {
      const double dt = std::chrono::duration<double>(clock::now() - t0).count();
      const double all = std::chrono::duration<double>(clock::now() - start).count();
      char line[200];
      std::snprintf(line, sizeof line, "multiword: n = %zu (%zu/%zu), %zu model(s) x %zu word count(s): %.1f s (total %.1f s)\n",
                    n, pi + 1, sizes.size(), units.size(), cfg.words.size(), dt, all);
      progress << line << std::flush;
    }
  }
  for (auto& u : rec)
    for (auto& wv : u)
      for (auto& r : wv) run.records.push_back(r);
  return run;
}

void write_multiword_csv(std::ostream& os, const MultiwordConfig& cfg, const MultiwordRun& run) {
  os << "model,input,words,n,error,bound\n";
  for (const MultiwordRecord& r : run.records)
    os << csv_field(r.model) << ',' << info(cfg.in).name << ',' << r.words << ',' << r.n << ',' << fmt_e(r.error, 9)
       << ',' << fmt_e(r.bound, 9) << '\n';
}

std::string multiword_plot_script(const MultiwordConfig& cfg, const MultiwordRun& run, const std::string& png) {
  std::string s = gp_png_preamble(png, 1100, 750);
  s += "set logscale xy\n"
       "set format x '10^{%L}'\n"
       "set format y '10^{%L}'\n"
       "set grid xtics ytics mxtics mytics lc rgb '#dddddd'\n"
       "set key outside right top noenhanced\n"
       "set xlabel 'n (A is 10 x n, B is n x 10)'\n"
       "set ylabel '||C - C_{ref}||_{/Symbol \\245} / (||A||_{/Symbol \\245} ||B||_{/Symbol \\245})'\n";
  std::string words;
  for (int p : cfg.words) {
    if (!words.empty()) words += ',';
    words += std::to_string(p);
  }
  s += "set title " +
       gp_quote(std::string("Multi-word GEMM (Mary & Mikaitis): ") + info(cfg.in).name + " words (p = " + words +
                ") on the " + info(cfg.out).name + " accumulator, seed " + std::to_string(cfg.seed)) +
       " noenhanced\n";
  std::string plot;
  std::size_t block = 0;
  std::vector<std::pair<std::string, std::size_t>> curves;  // title, block
  // Records come grouped by model and words, each group ordered by n.
  for (std::size_t i = 0; i < run.records.size();) {
    Series ser;
    const MultiwordRecord& r0 = run.records[i];
    ser.title = r0.model + (cfg.words.size() > 1 ? " p=" + std::to_string(r0.words) : "");
    for (; i < run.records.size() && run.records[i].model == r0.model && run.records[i].words == r0.words; ++i) {
      ser.x.push_back(static_cast<double>(run.records[i].n));
      ser.y.push_back(run.records[i].error);
    }
    if (gp_datablock(s, "d" + std::to_string(block), ser)) curves.emplace_back(ser.title, block++);
  }
  Series bound;
  bound.title = "bound (3.26)";
  for (const MultiwordRecord& r : run.records) {
    if (!bound.x.empty() && static_cast<double>(r.n) <= bound.x.back()) break;
    bound.x.push_back(static_cast<double>(r.n));
    bound.y.push_back(r.bound);
  }
  const bool have_bound = gp_datablock(s, "bound", bound);
  // Distinct markers and dashes: models with identical numerics (H100 and
  // B200 on fp16) give identical curves, which must stay visible.
  static const int kPoints[] = {7, 4, 9, 6, 11, 2, 13, 1};
  for (const auto& [title, b] : curves)
    plot += std::string(plot.empty() ? "plot " : ", ") + "$d" + std::to_string(b) +
            " using 1:2 with linespoints lw 1.5 dt " + std::to_string(1 + b % 4) + " pt " +
            std::to_string(kPoints[b % 8]) + " ps 1.1 title " + gp_quote(title);
  if (have_bound)
    plot += std::string(plot.empty() ? "plot " : ", ") + "$bound using 1:2 with lines dt 2 lw 1.5 lc rgb 'black' title " +
            gp_quote(bound.title);
  if (plot.empty()) {
    // Nothing drawable (every error exactly zero): an empty frame, labelled.
    s += "set label 1 'every error is zero' at graph 0.5, 0.5 center\nset xrange [10:1e6]\nset yrange [1e-20:1]\n"
         "plot NaN notitle\n";
  } else {
    s += plot + "\n";
  }
  return s;
}

}  // namespace mmaemu::experiments
