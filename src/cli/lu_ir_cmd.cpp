// SPDX-License-Identifier: BSD-3-Clause
// `mmaemu experiment lu-ir`: the grid (n, spectrum, kappa) x units x
// solvers, a table of iteration counts, CSV and PNG (docs/lu-ir.md).
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <algorithm>
#include <set>
#include <ostream>
#include <sstream>

#include "experiments/common.h"
#include "experiments/lu_ir.h"
#include "experiments/plot.h"

namespace mmaemu::experiments {

const char* const kLuIrUsage =
    "usage: mmaemu experiment lu-ir [--n LIST] [--kappa LIST] [--spectrum geometric|clustered|both]\n"
    "                               [--models LIST --inputs LIST] [--solver lu-ir|gmres-ir|both] [--nb NB]\n"
    "                               [--max-iterations I] [--gmres-tol T] [--gmres-max M] [--seed S]\n"
    "                               [--threads T] [--out DIR] [--quiet]\n"
    "  Mixed-precision iterative refinement: LU in fp32 with the trailing updates on the unit's GEMM\n"
    "  (its input policy rounds L21 and U12), residuals in fp64, corrections with the fp32 factors\n"
    "  (LU-IR) or by GMRES preconditioned with them (GMRES-IR, binary64); A = U diag(sigma) V^T with\n"
    "  Haar U, V and sigma geometric (kappa^(-(i-1)/(n-1))) or clustered (1, ..., 1, 1/kappa), b normal.\n"
    "  Iterations until the backward error ||b - Ax||_inf / (||A||_inf ||x||_inf + ||b||_inf) <= n 2^-53;\n"
    "  when a step does not reduce it: 'stall' (still <= its first value) or 'div' (above it); 'max'\n"
    "  after --max-iterations (default 50); 'fail' when the factors are not finite. GMRES-IR: at most\n"
    "  20 steps, each GMRES run to --gmres-tol (1e-10), the relative residual of the preconditioned\n"
    "  system, or --gmres-max (200) iterations.\n"
    "  Defaults: --n 256,512,1024, --kappa 1e1,1e2,...,1e10, --spectrum geometric, --solver lu-ir,\n"
    "  --nb 64, --seed 1, and the units V100 fp16, A100 bf16, A100 tf32, H100 fp16, B200 fp16,\n"
    "  MI250 fp16, MI300X fp16, MI300X fp8, native fp32. --models LIST (names, custom:..., 'native')\n"
    "  with --inputs LIST (sgemm policies: fp16, bf16, tf32, fp8, ...): every model with every input\n"
    "  it has a unit for. --out DIR: DIR/lu_ir.csv and DIR/lu_ir.png.\n";

namespace {

struct RunSpec {
  std::string model, policy;  // model "native": fp32 without a unit
};

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  return out;
}

std::vector<RunSpec> parse_runs(const Options& o) {
  if (!o.has("models") && !o.has("inputs"))
    return {{"V100", "fp16"}, {"A100", "bf16"}, {"A100", "tf32"}, {"H100", "fp16"}, {"B200", "fp16"},
            {"MI250", "fp16"}, {"MI300X", "fp16"}, {"MI300X", "fp8"}, {"native", "fp32"}};
  if (!o.has("models") || !o.has("inputs")) throw UsageError("--models and --inputs go together");
  std::vector<std::string> names;
  for (const std::string& m : split(o.get("models", ""), ',')) {  // custom:... keeps its key=value pairs
    if (m.find('=') != std::string::npos && !names.empty() && names.back().rfind("custom:", 0) == 0)
      names.back() += "," + m;
    else
      names.push_back(m);
  }
  std::string rest;
  for (const std::string& m : names)
    if (m != "native") rest += (rest.empty() ? "" : ",") + m;
  if (!rest.empty()) parse_models(rest);  // unknown names: a UsageError with the valid ones
  std::vector<RunSpec> runs;
  for (const std::string& m : names) {
    if (m == "native") {
      runs.push_back({m, "fp32"});
      continue;
    }
    for (const std::string& p : split(o.get("inputs", ""), ',')) runs.push_back({m, p});
  }
  return runs;
}

std::vector<std::size_t> parse_sizes(const std::string& text) {
  std::vector<std::size_t> n;
  for (const std::string& t : split(text, ',')) n.push_back(static_cast<std::size_t>(parse_int("n", t, 8, 8192)));
  return n;
}

std::vector<double> parse_kappas(const std::string& text) {
  std::vector<double> k;
  for (const std::string& t : split(text, ',')) {
    const double v = parse_double("kappa", t);
    if (!(v >= 1) || v > 1e16) throw UsageError("--kappa: each value in [1, 1e16], not '" + t + "'");
    k.push_back(v);
  }
  return k;
}

struct Record {
  std::size_t n;
  Spectrum spectrum;
  double kappa;
  std::string unit, solver;
  IrResult ir;
  long gemm_calls;
  double lu_seconds, ir_seconds;
};

// Steps (GMRES-IR: steps/GMRES iterations), or why none.
std::string cell(const IrResult& r, bool gmres) {
  switch (r.status) {
    case IrStatus::converged: {
      char b[32];
      std::snprintf(b, sizeof b, gmres ? "%d/%d" : "%d", r.iterations, r.inner);
      return b;
    }
    case IrStatus::stalled: return "stall";
    case IrStatus::diverged: return "div";
    case IrStatus::max_iterations: return "max";
    case IrStatus::failed: return "fail";
  }
  return "?";
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void write_csv(std::ostream& f, const std::vector<Record>& recs) {
  f << "n,spectrum,kappa,unit,solver,status,iterations,gmres_iterations,initial_backward_error,final_backward_error,"
       "gemm_calls,lu_seconds,ir_seconds\n";
  char line[512];
  for (const Record& r : recs) {
    const double first = r.ir.backward.empty() ? NAN : r.ir.backward.front();
    const double last = r.ir.backward.empty() ? NAN : r.ir.backward.back();
    std::snprintf(line, sizeof line, "%zu,%s,%.3g,%s,%s,%s,%d,%d,%.6e,%.6e,%ld,%.3f,%.3f\n", r.n,
                  spectrum_name(r.spectrum), r.kappa, csv_field(r.unit).c_str(), r.solver.c_str(),
                  ir_status_name(r.ir.status), r.ir.iterations, r.ir.inner, first, last, r.gemm_calls, r.lu_seconds,
                  r.ir_seconds);
    f << line;
  }
}

// Refinement steps (GMRES-IR: GMRES iterations in all) against kappa, one
// curve per unit, one panel per (solver, spectrum) row and n column; runs
// that did not converge are crosses on the panel's top line.
std::string plot_script(const std::vector<Record>& recs, const std::vector<std::string>& units,
                        const std::vector<std::string>& solvers, const std::vector<Spectrum>& spectra,
                        const std::vector<std::size_t>& sizes, const std::string& png) {
  static const char* const kColours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
                                         "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#000000"};
  const int cols = static_cast<int>(sizes.size()), rows = static_cast<int>(solvers.size() * spectra.size());
  std::string s = gp_png_preamble(png, 480 * cols, 400 * rows);
  s += "set multiplot layout " + std::to_string(rows) + "," + std::to_string(cols) + "\n"
       "set logscale x\nset format x '10^{%L}'\nset grid\nset key left top font ',8' spacing 0.9\n"
       "set xlabel 'condition number {/Symbol k}'\n";
  int block = 0;
  bool first = true;
  for (const std::string& solver : solvers)
    for (Spectrum spec : spectra)
      for (std::size_t n : sizes) {
        const bool gmres = solver == "gmres-ir";
        auto value = [&](const Record& r) { return gmres ? r.ir.inner : r.ir.iterations; };
        int top = 0;
        for (const Record& r : recs)
          if (r.solver == solver && r.spectrum == spec && r.n == n && r.ir.status == IrStatus::converged)
            top = std::max(top, value(r));
        top = top + std::max(2, top / 8);
        std::string plots;
        for (std::size_t u = 0; u < units.size(); ++u) {
          std::string conv, fail;
          char line[96];
          for (const Record& r : recs) {
            if (r.unit != units[u] || r.solver != solver || r.spectrum != spec || r.n != n) continue;
            const bool ok = r.ir.status == IrStatus::converged;
            std::snprintf(line, sizeof line, "%.17g %d\n", r.kappa, ok ? value(r) : top);
            (ok ? conv : fail) += line;
          }
          const std::string colour = std::string(" lc rgb '") + kColours[u % 11] + "'";
          const std::string title = first ? " title " + gp_quote(units[u]) : " notitle";
          const std::string b = std::to_string(block++);
          if (!conv.empty()) {
            s += "$c" + b + " << EOD\n" + conv + "EOD\n";
            plots += std::string(plots.empty() ? "" : ", ") + "$c" + b + " using 1:2 with linespoints ps 0.7 pt " +
                     std::to_string(u % 5 + 5) + colour + title;
          }
          if (!fail.empty()) {
            s += "$f" + b + " << EOD\n" + fail + "EOD\n";
            plots += std::string(plots.empty() ? "" : ", ") + "$f" + b + " using 1:2 with points pt 2 ps 1.2" + colour +
                     (conv.empty() ? title : " notitle");
          }
        }
        s += std::string("set ylabel ") + (gmres ? "'GMRES iterations (all steps)'" : "'refinement steps'") + "\n";
        s += "set yrange [-0.5:" + std::to_string(top) + ".5]\n";
        s += "set title " + gp_quote(solver + ", " + spectrum_name(spec) + " singular values, n = " + std::to_string(n) +
                                     " (x: no convergence)") + "\n";
        s += plots.empty() ? "plot 1/0 notitle\n" : "plot " + plots + "\n";
        first = false;
      }
  return s + "unset multiplot\n";
}

}  // namespace

int cmd_lu_ir(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const Options o = parse_options(args,
                                  {"n", "kappa", "spectrum", "models", "inputs", "solver", "nb", "max-iterations",
                                   "gmres-tol", "gmres-max", "seed", "threads", "out"},
                                  {"quiet", "help"});
  if (o.flags.count("help")) {
    out << kLuIrUsage;
    return 0;
  }
  const std::vector<std::size_t> sizes = parse_sizes(o.get("n", "256,512,1024"));
  const std::vector<double> kappas = parse_kappas(o.get("kappa", "1e1,1e2,1e3,1e4,1e5,1e6,1e7,1e8,1e9,1e10"));
  const std::string sp = o.get("spectrum", "geometric");
  if (sp != "geometric" && sp != "clustered" && sp != "both")
    throw UsageError("--spectrum: '" + sp + "' (valid: geometric, clustered, both)");
  std::vector<Spectrum> spectra;
  if (sp != "clustered") spectra.push_back(Spectrum::geometric);
  if (sp != "geometric") spectra.push_back(Spectrum::clustered);
  const std::string sv = o.get("solver", "lu-ir");
  if (sv != "lu-ir" && sv != "gmres-ir" && sv != "both")
    throw UsageError("--solver: '" + sv + "' (valid: lu-ir, gmres-ir, both)");
  const int nb = static_cast<int>(parse_int("nb", o.get("nb", "64"), 1, 8192));
  IrConfig cfg;
  cfg.max_iterations = static_cast<int>(parse_int("max-iterations", o.get("max-iterations", "50"), 1, 1000));
  cfg.gmres_tol = parse_double("gmres-tol", o.get("gmres-tol", "1e-10"));
  if (!(cfg.gmres_tol > 0 && cfg.gmres_tol < 1)) throw UsageError("--gmres-tol: a number in (0, 1)");
  cfg.gmres_max = static_cast<int>(parse_int("gmres-max", o.get("gmres-max", "200"), 1, 10000));
  const auto seed = static_cast<uint64_t>(parse_int("seed", o.get("seed", "1"), 0, (1LL << 62)));
  const int threads = static_cast<int>(parse_int("threads", o.get("threads", "0"), 0, 1024));
  const std::string dir = o.get("out", "");
  if (!dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec || !std::filesystem::is_directory(dir)) throw UsageError("--out: cannot create directory '" + dir + "'");
  }

  // The units, each checked once: a model without the unit is skipped.
  struct ModelFree {
    void operator()(mmaemu_model* m) const { mmaemu_model_free(m); }
  };
  struct Unit {
    LuUnit lu;
    std::shared_ptr<mmaemu_model> handle;
  };
  std::vector<Unit> units;
  for (const RunSpec& r : parse_runs(o)) {
    Unit u;
    u.lu.threads = threads;
    if (r.model == "native") {
      u.lu.label = "native fp32";
    } else {
      mmaemu_model* m = nullptr;
      if (mmaemu_model_lookup(r.model.c_str(), &m) != MMAEMU_OK)
        throw UsageError(std::string("--models: ") + mmaemu_last_error());
      u.handle.reset(m, ModelFree{});
      mmaemu_gemm_options opt;
      int tm, tn, tk;
      if (mmaemu_parse_policy(r.policy.c_str(), &opt) != MMAEMU_OK)
        throw UsageError(std::string("--inputs: ") + mmaemu_last_error());
      if (mmaemu_tile_shape(m, opt.input, MMAEMU_FP32, &tm, &tn, &tk) != MMAEMU_OK) {
        out << "skipped " << r.model << " " << r.policy << ": " << mmaemu_last_error() << "\n";
        continue;
      }
      u.lu.model = m;
      u.lu.policy = r.policy;
      u.lu.label = std::string(mmaemu_model_name(m)) + " " + r.policy;
    }
    units.push_back(u);
  }
  if (units.empty()) {
    err << "mmaemu experiment lu-ir: no unit to run\n";
    return 2;
  }
  std::vector<std::string> solvers;
  if (sv != "gmres-ir") solvers.push_back("lu-ir");
  if (sv != "lu-ir") solvers.push_back("gmres-ir");
  const int gen_threads = threads > 0 ? threads : 2;
  out << "lu-ir: LU in fp32 with the trailing updates (nb = " << nb << ") on each unit; residuals in fp64; "
      << "stop at backward error <= n 2^-53; seed " << seed << "\n";

  const auto t_all = std::chrono::steady_clock::now();
  std::vector<Record> recs;
  for (std::size_t n : sizes) {
    const auto t_gen = std::chrono::steady_clock::now();
    const OrthogonalPair uv = random_orthogonal_pair(n, seed);
    const std::vector<double> b = lu_ir_rhs(n, seed);
    if (!o.flags.count("quiet")) err << "lu-ir: n = " << n << ": U, V in " << seconds_since(t_gen) << " s\n";
    for (Spectrum spec : spectra)
      for (double kappa : kappas) {
        const Matrix A = conditioned_matrix(uv, kappa, spec, gen_threads);
        for (const Unit& u : units) {
          const auto t_lu = std::chrono::steady_clock::now();
          const LuFactors f = lu_factor(A, u.lu, nb);
          const double lu_s = seconds_since(t_lu);
          if (!f.error.empty()) {
            err << "mmaemu experiment lu-ir: " << u.lu.label << ": " << f.error << "\n";
            return 2;
          }
          for (const std::string& solver : solvers) {
            IrConfig c = cfg;
            c.gmres = solver == "gmres-ir";
            if (c.gmres) c.max_iterations = std::min(cfg.max_iterations, 20);
            const auto t_ir = std::chrono::steady_clock::now();
            recs.push_back({n, spec, kappa, u.lu.label, solver, refine(A, b, f, c), f.gemm_calls, lu_s, seconds_since(t_ir)});
          }
        }
        if (!o.flags.count("quiet"))
          err << "lu-ir: n = " << n << ", " << spectrum_name(spec) << ", kappa = " << kappa << ": "
              << seconds_since(t_all) << " s so far\n";
      }
  }
  const double total = seconds_since(t_all);

  // The tables: one per (n, spectrum, solver), kappa down, units across.
  std::vector<std::string> labels;
  for (const Unit& u : units) labels.push_back(u.lu.label);
  char buf[64];
  for (std::size_t n : sizes)
    for (Spectrum spec : spectra)
      for (const std::string& solver : solvers) {
        out << "\n" << solver << ", " << spectrum_name(spec) << " singular values, n = " << n << " (refinement steps"
            << (solver == "gmres-ir" ? "/GMRES iterations" : "")
            << "; stall: stopped decreasing, div: grew above its start, max: the step limit, fail: factors not "
               "finite)\n";
        std::snprintf(buf, sizeof buf, "%8s", "kappa");
        out << buf;
        for (const std::string& l : labels) {
          std::snprintf(buf, sizeof buf, " %13s", l.c_str());
          out << buf;
        }
        out << "\n";
        for (double kappa : kappas) {
          std::snprintf(buf, sizeof buf, "%8.0e", kappa);
          out << buf;
          for (const std::string& l : labels)
            for (const Record& r : recs)
              if (r.n == n && r.spectrum == spec && r.solver == solver && r.kappa == kappa && r.unit == l) {
                std::snprintf(buf, sizeof buf, " %13s", cell(r.ir, solver == "gmres-ir").c_str());
                out << buf;
              }
          out << "\n";
        }
      }
  std::snprintf(buf, sizeof buf, "%.1f", total);
  out << "\nruntime: " << buf << " s (" << (threads > 0 ? std::to_string(threads) : "all") << " threads)\n";
  if (!dir.empty()) {
    const std::string csv = (std::filesystem::path(dir) / "lu_ir.csv").string();
    std::ofstream f(csv);
    write_csv(f, recs);
    f.close();
    if (!f) {
      err << "mmaemu experiment lu-ir: cannot write " << csv << "\n";
      return 2;
    }
    out << "wrote " << csv << "\n";
    const std::string png = (std::filesystem::path(dir) / "lu_ir.png").string();
    std::error_code ec;
    std::filesystem::remove(png, ec);
    const PlotStatus st = run_gnuplot(plot_script(recs, labels, solvers, spectra, sizes, png));
    if (st.ok && std::filesystem::exists(png)) out << "wrote " << png << "\n";
    else err << "mmaemu experiment lu-ir: warning: no chart " << png << ": " << (st.ok ? "gnuplot wrote nothing" : st.message) << "\n";
  }
  return 0;
}

}  // namespace mmaemu::experiments
