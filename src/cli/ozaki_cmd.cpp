// SPDX-License-Identifier: BSD-3-Clause
// `mmaemu experiment ozaki`: the grid units x schemes x phi x n, a table of
// errors and exactness counts, CSV and PNG (docs/ozaki.md, "The experiment").
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <ostream>
#include <sstream>

#include "cli/commands.h"
#include "experiments/common.h"
#include "experiments/numerics.h"
#include "experiments/ozaki_exp.h"
#include "experiments/plot.h"

namespace mmaemu::experiments {

const char* const kOzakiUsage =
    "usage: mmaemu experiment ozaki [--n LIST] [--phi LIST] [--units LIST] [--slices LIST] [--moduli LIST]\n"
    "                               [--seed S] [--threads T] [--nonnegative] [--no-check] [--out DIR] [--quiet]\n"
    "  fp64 GEMM by the Ozaki schemes on the units' GEMMs (docs/ozaki.md): A, B n x n with entries\n"
    "  (rand - 0.5) exp(phi randn) (the papers' matrices; Rng(seed + n), A then B), C = A B by\n"
    "  ozaki1:S for each S of --slices (every unit) and ozaki2:N for each N of --moduli (int8 units),\n"
    "  (--nonnegative: |rand - 0.5| exp(phi randn), whose slice sums grow as k, not sqrt(k))\n"
    "  and natively (binary64 dot products); errors against the exact product rounded once:\n"
    "  componentwise max |C - R| / |R| and normwise ||C - R||_F / ||R||_F; the exactness check's\n"
    "  counts (inexact slice product elements of all, --no-check skips it) and the time of each run.\n"
    "  Defaults: --n 256, --phi 0,1,2,4, --slices 3,4,5,6,7,8,9,10,12,14, --moduli 8,10,12,14,16,18,20,\n"
    "  --units H100:int8,B200:int8,MI300X:int8,V100:fp16,A100:fp16,H100:fp16,A100:bf16,H100:e4m3,\n"
    "  B200:e4m3,MI300X:fp8,native; --seed 1. --out DIR: DIR/ozaki.csv and DIR/ozaki.png (error\n"
    "  against S and N, one panel per phi). A progress line on a terminal's stderr unless --quiet.\n";

namespace {

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, ',')) out.push_back(cur);
  return out;
}

std::vector<OzakiUnit> parse_units(const std::string& text) {
  std::vector<OzakiUnit> units;
  for (const std::string& u : split_list(text)) {
    if (u == "native") {
      units.push_back({"native", "fp64"});
      continue;
    }
    const auto colon = u.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == u.size())
      throw UsageError("--units: '" + u + "' is not MODEL:INPUT (e.g. H100:int8, A100:fp16) or native");
    units.push_back({u.substr(0, colon), u.substr(colon + 1)});
    parse_models(units.back().model);  // an unknown model: the valid names
  }
  return units;
}

std::vector<int> parse_counts(const std::string& option, const std::string& text, int most) {
  std::vector<int> v;
  for (const std::string& t : split_list(text)) v.push_back(static_cast<int>(parse_int(option, t, 1, most)));
  return v;
}

bool integer_input(const std::string& input) {
  mmaemu_format f;
  return mmaemu_format_parse(input.c_str(), &f) == MMAEMU_OK && (f == MMAEMU_S8 || f == MMAEMU_S4);
}

void write_csv(std::ostream& f, const std::vector<OzakiRun>& runs) {
  f << "unit,scheme,count,phi,n,componentwise_error,normwise_error,products,product_elements,"
       "inexact_product_elements,inexact_outputs,seconds\n";
  char line[512];
  for (const OzakiRun& r : runs) {
    std::snprintf(line, sizeof line, "%s,%s,%d,%.17g,%zu,%.6e,%.6e,%llu,%llu,%llu,%llu,%.4f\n",
                  csv_field(r.unit).c_str(), r.scheme.c_str(), r.count, r.phi, r.n, r.componentwise, r.normwise,
                  static_cast<unsigned long long>(r.stats.products),
                  static_cast<unsigned long long>(r.stats.product_elements),
                  static_cast<unsigned long long>(r.stats.inexact_product_elements),
                  static_cast<unsigned long long>(r.stats.inexact_outputs), r.seconds);
    f << line;
  }
}

// An error of 0 (the exact product, rounded once) is drawn here.
constexpr double kZeroDrawnAt = 1e-18;

// Componentwise error against S (scheme I, solid) and N (scheme II, dashed),
// one curve per unit, native as a horizontal line; one panel per phi (the
// largest n).
std::string plot_script(const std::vector<OzakiRun>& runs, const std::vector<OzakiUnit>& units,
                        const std::vector<double>& phis, std::size_t n, const std::string& png) {
  static const char* const kColours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                                         "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#000000"};
  const int cols = static_cast<int>(std::min<std::size_t>(phis.size(), 2)),
            rows = static_cast<int>((phis.size() + 1) / 2);
  std::string s = gp_png_preamble(png, 560 * cols, 440 * rows);
  s += "set multiplot layout " + std::to_string(rows) + "," + std::to_string(cols) + "\n"
       "set logscale y\nset format y '10^{%L}'\nset grid\nset key right top font ',8' spacing 0.9\n"
       "set xlabel 'slices S (solid) or moduli N (dashed)'\nset ylabel 'max |C - R| / |R|'\n";
  int block = 0;
  for (std::size_t p = 0; p < phis.size(); ++p) {
    std::string plots;
    for (std::size_t u = 0; u < units.size(); ++u) {
      const std::string colour = std::string(" lc rgb '") + kColours[u % 11] + "'";
      for (const char* kind : {"ozaki1:", "ozaki2:", "native"}) {
        Series series;
        for (const OzakiRun& r : runs)
          if (r.unit == units[u].label() && r.phi == phis[p] && r.n == n && r.error.empty() &&
              r.scheme.rfind(kind, 0) == 0) {
            series.x.push_back(r.count);
            series.y.push_back(std::max(r.componentwise, kZeroDrawnAt));
          }
        const std::string b = "$d" + std::to_string(block++);
        if (std::string(kind) == "native") {
          if (series.y.empty() || !(series.y[0] > 0)) continue;
          char v[64];
          std::snprintf(v, sizeof v, "%.6e", series.y[0]);
          plots += std::string(plots.empty() ? "" : ", ") + v + " with lines dt 3" + colour +
                   (p == 0 ? " title " + gp_quote(units[u].label()) : " notitle");
          continue;
        }
        if (!gp_datablock(s, b.substr(1), series)) continue;
        const bool second = std::string(kind) == "ozaki2:";
        plots += std::string(plots.empty() ? "" : ", ") + b + " using 1:2 with linespoints ps 0.6 pt " +
                 std::to_string(u % 5 + 5) + (second ? " dt 2" : "") + colour +
                 (p == 0 ? " title " + gp_quote(units[u].label() + (second ? " ozaki2" : " ozaki1")) : " notitle");
      }
    }
    char title[96];
    std::snprintf(title, sizeof title, "phi = %g, n = %zu (error 0 drawn at 1e-18)", phis[p], n);
    s += "set title " + gp_quote(title) + "\n";
    s += plots.empty() ? "plot 1/0 notitle\n" : "plot " + plots + "\n";
  }
  return s + "unset multiplot\n";
}

}  // namespace

int cmd_ozaki(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const Options o = parse_options(args, {"n", "phi", "units", "slices", "moduli", "seed", "threads", "out"},
                                  {"no-check", "nonnegative", "quiet", "help"});
  if (o.flags.count("help")) {
    out << kOzakiUsage;
    return 0;
  }
  std::vector<std::size_t> sizes;
  for (const std::string& t : split_list(o.get("n", "256")))
    sizes.push_back(static_cast<std::size_t>(parse_int("n", t, 1, 8192)));
  std::vector<double> phis;
  for (const std::string& t : split_list(o.get("phi", "0,1,2,4"))) {
    const double v = parse_double("phi", t);
    if (v < 0 || v > 20) throw UsageError("--phi: each value in [0, 20], not '" + t + "'");
    phis.push_back(v);
  }
  const std::vector<OzakiUnit> units = parse_units(o.get(
      "units", "H100:int8,B200:int8,MI300X:int8,V100:fp16,A100:fp16,H100:fp16,A100:bf16,H100:e4m3,B200:e4m3,"
               "MI300X:fp8,native"));
  const std::vector<int> slices = parse_counts("slices", o.get("slices", "3,4,5,6,7,8,9,10,12,14"), 40);
  const std::vector<int> moduli = parse_counts("moduli", o.get("moduli", "8,10,12,14,16,18,20"), 20);
  const uint64_t seed = static_cast<uint64_t>(parse_int("seed", o.get("seed", "1"), 0, (1LL << 62)));
  const int threads = static_cast<int>(parse_int("threads", o.get("threads", "0"), 0, MMAEMU_MAX_THREADS));
  const bool check = !o.flags.count("no-check"), nonnegative = o.flags.count("nonnegative") != 0;
  const bool quiet = o.flags.count("quiet") != 0 || !isatty(2);
  const std::string dir = o.get("out", "");
  if (!dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
  }

  std::size_t total = 0;
  for (const OzakiUnit& u : units)
    total += u.model == "native" ? 1 : slices.size() + (integer_input(u.input) ? moduli.size() : 0);
  total *= phis.size() * sizes.size();
  std::vector<OzakiRun> runs;
  char line[256];
  std::snprintf(line, sizeof line, "%-16s %-12s %5s %5s %12s %12s %22s %9s\n", "unit", "scheme", "phi", "n",
                "max rel err", "normwise", "inexact slice products", "seconds");
  out << line;
  for (std::size_t n : sizes)
    for (double phi : phis) {
      Rng rng(seed + n);
      Matrix A = ozaki_test_matrix(n, n, phi, rng), B = ozaki_test_matrix(n, n, phi, rng);
      if (nonnegative)
        for (Matrix* x : {&A, &B})
          for (double& v : x->v) v = std::fabs(v);
      const Matrix R = exact_product(A, B, threads);
      for (const OzakiUnit& u : units) {
        std::vector<std::string> schemes;
        if (u.model == "native") schemes.push_back("native");
        for (int s : (u.model == "native" ? std::vector<int>{} : slices)) schemes.push_back("ozaki1:" + std::to_string(s));
        if (u.model != "native" && integer_input(u.input))
          for (int q : moduli) schemes.push_back("ozaki2:" + std::to_string(q));
        for (const std::string& scheme : schemes) {
          if (!quiet)
            std::fprintf(stderr, "[%zu/%zu] %s %s phi %g n %zu", runs.size() + 1, total, u.label().c_str(),
                         scheme.c_str(), phi, n);
          OzakiRun r = run_ozaki(u, scheme, A, B, R, check, threads);
          r.phi = phi;
          r.n = n;
          if (!r.error.empty()) {
            if (!quiet) std::fprintf(stderr, "\r%78s\r", "");
            err << "mmaemu experiment ozaki: " << u.label() << " " << scheme << ": skipped: " << r.error << "\n";
          } else {
            char inexact[48] = "-";
            if (r.stats.checked)
              std::snprintf(inexact, sizeof inexact, "%llu of %llu",
                            static_cast<unsigned long long>(r.stats.inexact_product_elements),
                            static_cast<unsigned long long>(r.stats.product_elements));
            std::snprintf(line, sizeof line, "%-16s %-12s %5g %5zu %12.3e %12.3e %22s %9.3f\n", r.unit.c_str(),
                          r.scheme.c_str(), phi, n, r.componentwise, r.normwise, inexact, r.seconds);
            if (!quiet) std::fprintf(stderr, "\r%78s\r", "");  // the progress line cleared
            out << line << std::flush;
          }
          runs.push_back(r);
        }
      }
    }
  if (dir.empty()) return 0;
  const std::string csv = (std::filesystem::path(dir) / "ozaki.csv").string();
  std::ofstream f(csv);
  write_csv(f, runs);
  f.close();
  if (!f) {
    err << "mmaemu experiment ozaki: cannot write " << csv << "\n";
    return 2;
  }
  out << "wrote " << csv << "\n";
  const std::string png = (std::filesystem::path(dir) / "ozaki.png").string();
  std::error_code ec;
  std::filesystem::remove(png, ec);
  const PlotStatus st = run_gnuplot(plot_script(runs, units, phis, sizes.back(), png));
  if (st.ok && std::filesystem::exists(png)) out << "wrote " << png << "\n";
  else err << "mmaemu experiment ozaki: warning: no chart " << png << ": " << (st.ok ? "gnuplot wrote nothing" : st.message) << "\n";
  return 0;
}

}  // namespace mmaemu::experiments
