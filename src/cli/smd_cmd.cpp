// SPDX-License-Identifier: BSD-3-Clause
// mmaemu experiment smd: SMD on the models (experiments/smd.h, docs/smd.md),
// the AMD paper's Sec. 8.2, Figs. 7-9.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <sstream>

#include "cli/commands.h"
#include "experiments/common.h"
#include "experiments/plot.h"
#include "experiments/smd.h"

namespace mmaemu::experiments {

const char* const kSmdUsage =
    "usage: mmaemu experiment smd [--models LIST] [--inputs LIST] [--size N] [--order P] [--seed S]\n"
    "                             [--eps E] [--mu M] [--iterations I] [--points W] [--out DIR]\n"
    "                             [--threads T] [--quiet]\n"
    "  Sequential matrix diagonalisation (Redif et al. 2015) of an N x N real parahermitian\n"
    "  polynomial matrix of order P, R(z) = A(z) A~(z) normalised (A(z) of order P/2 with N(0,1)\n"
    "  coefficients, seed S), as the AMD paper (Sec. 8.2) runs it: the reference entirely in\n"
    "  fp64; then the dominant GEMMs (Q^T S(z) Q and Q^T H(z), every lag at once) on each model's\n"
    "  (input -> fp32) unit, everything else in fp64. Defaults: --models MI100,MI250,MI300X,B200,\n"
    "  --inputs fp16,bf16, N 8, P 8, seed 1, eps 1e-4, mu 1e-4, 250 iterations, 512 frequencies.\n"
    "  Prints per run the iterations, whether eps was reached, the last search's largest\n"
    "  off-diagonal column norm and the final off-diagonal energy. --out DIR writes\n"
    "  smd_eigenvalue.csv (Fig. 7: the dominant eigenvalue over normalised frequency per run,\n"
    "  and R's own largest eigenvalue and condition number), smd_difference.csv (Fig. 8: |run -\n"
    "  fp64|), smd_pairwise.csv (Fig. 9: |run i - run j|), smd_runs.csv, and their PNGs.\n";

namespace {

struct Run {
  std::string name;  // "fp64", "MI300X fp16", ...
  SmdResult result;
  double seconds = 0;
};

std::string num(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%.17g", x);
  return b;
}

void write_file(const std::string& path, const std::string& text, std::ostream& out) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  f.close();
  if (!f) throw UsageError("cannot write " + path);
  out << "wrote " << path << "\n";
}

// A log-scale (or linear) chart of series over the normalised frequency.
std::string chart(const std::string& png, const std::string& title, const std::string& ylabel, bool log_y,
                  const std::vector<Series>& series) {
  std::string s = gp_png_preamble(png, 1000, 600);
  std::string plots;
  for (std::size_t i = 0; i < series.size(); ++i) {
    const std::string block = std::string("d") + std::to_string(i);
    if (!gp_datablock(s, block, series[i])) continue;
    plots += (plots.empty() ? "plot " : ", ") + std::string("$") + block + " using 1:2 with lines lw 1.5 title " +
             gp_quote(series[i].title);
  }
  s += "set title " + gp_quote(title) + "\nset xlabel 'normalised frequency {/Symbol W}/{/Symbol p}'\nset ylabel " +
       gp_quote(ylabel) + "\nset grid\nset key outside right\n";
  if (log_y) s += "set logscale y\nset format y '10^{%L}'\n";
  return s + (plots.empty() ? "plot 0 notitle\n" : plots + "\n");
}

void draw_png(const std::string& script, const std::string& png, std::ostream& out, std::ostream& err) {
  const PlotStatus st = run_gnuplot(script);
  if (st.ok && std::filesystem::exists(png)) out << "wrote " << png << "\n";
  else err << "mmaemu experiment smd: warning: no chart " << png << ": " << (st.ok ? "gnuplot wrote nothing" : st.message) << "\n";
}

void write_outputs(const std::string& dir, const PolyMatrix& R, const std::vector<Run>& runs, int points,
                   std::ostream& out, std::ostream& err) {
  namespace fs = std::filesystem;
  std::vector<double> w(static_cast<std::size_t>(points));
  for (int i = 0; i < points; ++i) w[static_cast<std::size_t>(i)] = points > 1 ? static_cast<double>(i) / (points - 1) : 0;
  std::vector<std::vector<double>> lam(runs.size(), std::vector<double>(w.size()));
  for (std::size_t r = 0; r < runs.size(); ++r)
    for (std::size_t i = 0; i < w.size(); ++i) lam[r][i] = dominant_eigenvalue(runs[r].result.S, w[i]);
  // Fig. 7.
  std::string eig = "omega,R_lambda_max,R_condition";
  for (const Run& r : runs) eig += std::string(",") + csv_field(r.name);
  eig += "\n";
  std::vector<Series> s7(runs.size());
  for (std::size_t r = 0; r < runs.size(); ++r) s7[r] = {runs[r].name, w, lam[r], ""};
  for (std::size_t i = 0; i < w.size(); ++i) {
    double lmax, cond;
    analytic_eigenvalues(R, w[i], lmax, cond);
    eig += num(w[i]);
    eig += std::string(",") + num(lmax);
    eig += std::string(",") + num(cond);
    for (std::size_t r = 0; r < runs.size(); ++r) eig += std::string(",") + num(lam[r][i]);
    eig += "\n";
  }
  write_file((fs::path(dir) / "smd_eigenvalue.csv").string(), eig, out);
  // Fig. 8: against the fp64 run (runs[0]).
  std::string dif = "omega";
  std::vector<Series> s8;
  for (std::size_t r = 1; r < runs.size(); ++r) {
    dif += std::string(",") + csv_field(runs[r].name);
    Series s{runs[r].name, w, {}, ""};
    for (std::size_t i = 0; i < w.size(); ++i) s.y.push_back(std::abs(lam[r][i] - lam[0][i]));
    s8.push_back(s);
  }
  dif += "\n";
  for (std::size_t i = 0; i < w.size(); ++i) {
    dif += num(w[i]);
    for (const Series& s : s8) dif += std::string(",") + num(s.y[i]);
    dif += "\n";
  }
  write_file((fs::path(dir) / "smd_difference.csv").string(), dif, out);
  // Fig. 9: every pair of emulated runs.
  std::string pw = "omega";
  std::vector<Series> s9;
  for (std::size_t a = 1; a < runs.size(); ++a)
    for (std::size_t b = a + 1; b < runs.size(); ++b) {
      const std::string name = runs[a].name + " - " + runs[b].name;
      pw += std::string(",") + csv_field(name);
      Series s{name, w, {}, ""};
      for (std::size_t i = 0; i < w.size(); ++i) s.y.push_back(std::abs(lam[a][i] - lam[b][i]));
      s9.push_back(s);
    }
  pw += "\n";
  for (std::size_t i = 0; i < w.size(); ++i) {
    pw += num(w[i]);
    for (const Series& s : s9) pw += std::string(",") + num(s.y[i]);
    pw += "\n";
  }
  write_file((fs::path(dir) / "smd_pairwise.csv").string(), pw, out);
  std::string rc = "run,iterations,converged,max_off_diagonal_column,off_diagonal_energy,S_lags,H_lags,gemms,seconds\n";
  for (const Run& r : runs)
    rc += csv_field(r.name) + "," + std::to_string(r.result.iterations) + "," + (r.result.converged ? "1" : "0") + "," +
          num(r.result.max_column) + "," + num(r.result.off_diagonal) + "," + std::to_string(r.result.S.c.size()) +
          "," + std::to_string(r.result.H.c.size()) + "," + std::to_string(r.result.gemms) + "," + num(r.seconds) + "\n";
  write_file((fs::path(dir) / "smd_runs.csv").string(), rc, out);
  const std::string p7 = (fs::path(dir) / "smd_eigenvalue.png").string(),
                    p8 = (fs::path(dir) / "smd_difference.png").string(),
                    p9 = (fs::path(dir) / "smd_pairwise.png").string();
  draw_png(chart(p7, "SMD: dominant eigenvalue", "{/Symbol l}_1(e^{j{/Symbol W}})", false, s7), p7, out, err);
  draw_png(chart(p8, "SMD: |{/Symbol l}_1 - {/Symbol l}_1 (fp64)|", "absolute difference", true, s8), p8, out, err);
  draw_png(chart(p9, "SMD: pairwise |{/Symbol l}_{1,i} - {/Symbol l}_{1,j}|", "absolute difference", true, s9), p9,
           out, err);
}

}  // namespace

int cmd_smd(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  try {
    const Options o = parse_options(args, {"models", "inputs", "size", "order", "seed", "eps", "mu", "iterations",
                                           "points", "out", "threads"},
                                    {"quiet", "help"});
    if (o.flags.count("help")) {
      out << kSmdUsage;
      return 0;
    }
    const auto size = static_cast<std::size_t>(parse_int("size", o.get("size", "8"), 2, 256));
    const int order = static_cast<int>(parse_int("order", o.get("order", "8"), 0, 200));
    if (order % 2) throw UsageError("--order: an even order (R(z) = A(z) A~(z))");
    const auto seed = static_cast<uint64_t>(parse_int("seed", o.get("seed", "1"), 0, 1LL << 62));
    SmdConfig cfg;
    cfg.eps = parse_double("eps", o.get("eps", "1e-4"));
    cfg.mu = parse_double("mu", o.get("mu", "1e-4"));
    if (cfg.eps < 0 || cfg.mu < 0 || cfg.mu >= 1) throw UsageError("--eps >= 0 and 0 <= --mu < 1");
    cfg.max_iterations = static_cast<int>(parse_int("iterations", o.get("iterations", "250"), 0, 1000000));
    const int points = static_cast<int>(parse_int("points", o.get("points", "512"), 1, 100000));
    const int threads = static_cast<int>(parse_int("threads", o.get("threads", "0"), 0, 1024));
    const std::vector<Model> models = parse_models(o.get("models", "MI100,MI250,MI300X,B200"));
    std::vector<Fmt> inputs;
    {
      std::stringstream ss(o.get("inputs", "fp16,bf16"));
      for (std::string f; std::getline(ss, f, ',');) inputs.push_back(parse_format("inputs", f));
    }
    const std::string dir = o.get("out", "");
    if (!dir.empty()) {
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      if (ec || !std::filesystem::is_directory(dir)) throw UsageError("--out: cannot create directory '" + dir + "'");
    }
    const PolyMatrix R = smd_test_matrix(size, order, seed);
    out << "smd: " << size << " x " << size << " parahermitian R(z) of order " << order << " (seed " << seed
        << "), eps " << cfg.eps << ", mu " << cfg.mu << ", at most " << cfg.max_iterations << " iterations\n";
    std::vector<Run> runs;
    auto run = [&](const std::string& name, const SmdGemm& g) {
      const auto t0 = std::chrono::steady_clock::now();
      Run r{name, smd(R, cfg, g), 0};
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (!o.flags.count("quiet")) err << "smd: " << name << ": " << r.seconds << " s\n";
      runs.push_back(std::move(r));
    };
    run("fp64", fp64_gemm());
    for (const Model& m : models)
      for (Fmt in : inputs) {
        if (!m.find(in, Fmt::fp32)) {
          out << "skipped " << m.name << " " << info(in).name << ": " << skip_reason(m, in, Fmt::fp32) << "\n";
          continue;
        }
        run(m.name + " " + info(in).name, model_gemm(m.name, in, threads));
      }
    char line[200];
    std::snprintf(line, sizeof line, "%-16s %10s %9s %14s %14s %6s %6s %9s\n", "run", "iterations", "converged",
                  "max off-diag", "off-diag energy", "S lags", "H lags", "seconds");
    out << line;
    for (const Run& r : runs) {
      std::snprintf(line, sizeof line, "%-16s %10d %9s %14.3e %14.3e %6zu %6zu %9.3f\n", r.name.c_str(),
                    r.result.iterations, r.result.converged ? "yes" : "no", r.result.max_column, r.result.off_diagonal,
                    r.result.S.c.size(), r.result.H.c.size(), r.seconds);
      out << line;
    }
    if (!dir.empty()) write_outputs(dir, R, runs, points, out, err);
    return 0;
  } catch (const UsageError& e) {
    err << "mmaemu experiment smd: " << e.what() << "\n" << kSmdUsage;
    return 2;
  } catch (const std::invalid_argument& e) {
    err << "mmaemu experiment smd: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace mmaemu::experiments
