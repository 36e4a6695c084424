// SPDX-License-Identifier: BSD-3-Clause
#include "cli/commands.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <stdexcept>

#include "experiments/common.h"
#include "experiments/compare.h"
#include "experiments/compare_scaled.h"
#include "experiments/lu_ir.h"
#include "experiments/matrix.h"
#include "experiments/multiword.h"
#include "experiments/plot.h"
#include "experiments/toolbox.h"

namespace mmaemu::experiments {

const char* const kCompareUsage =
    "usage: mmaemu compare [--m M --n N --k K] [--dist D] [--seed S] | [--a FILE --b FILE]\n"
    "                      [--input FMT] [--output FMT] [--models LIST] [--schedule LIST] [--threads T]\n"
    "                      [--png FILE]\n"
    "  C = A*B (A m x k, B k x n) on each model's (input -> output) unit; errors against the\n"
    "  exact product: normwise ||C - C_ref||_F / ||C_ref||_F, max componentwise\n"
    "  |C - C_ref|_ij / |C_ref|_ij, and the normwise error against the exact product of the\n"
    "  rounded operands (the unit's own share). Defaults: 64 x 64 x 64, --dist normal,\n"
    "  --seed 1, --input fp16 (RNE; fp8 saturating), --output fp32 (fp64 for fp64 input),\n"
    "  every model. D: uniform[:LO:HI], normal[:MU:SIGMA], loguniform[:LO:HI] (random\n"
    "  signs), int:LO:HI. FILE: text (one row per line) or .npy (2-D float64/32, int64/32).\n"
    "  LIST: models by name or alias, custom:... specifications, MODEL@INSTR for one\n"
    "  instruction's rows (B200@mma.sync), comma-separated.\n"
    "  --schedule LIST: the k structure above the unit, each schedule on the same data\n"
    "  (default chain): chain, promote:P, splitk:S, splitk:S:tree, comma-separated or\n"
    "  repeated; a combination joins its parts with '+' (splitk:2+promote:128). With\n"
    "  --schedule, each row also gives the share of elements whose bits differ from the\n"
    "  model's first schedule.\n"
    "  --input mxfp8, mxfp8:e5m2, mxfp6, mxfp6:e3m2, mxfp4 or nvfp4: the block-scaled policy\n"
    "  (docs/block-scaled.md §4.6) on every model that has the unit, as the BLAS shim runs\n"
    "  it; a first row gives the quantisation's own share (the exact product of the\n"
    "  dequantised operands), and unit-only is measured against that product.\n";

const char* const kExperimentUsage =
    "usage: mmaemu experiment multiword [--input FMT] [--words LIST] [--models LIST] [--out DIR]\n"
    "                                   [--points P] [--nmax N] [--seed S] [--threads T] [--quiet]\n"
    "                                   [--toolbox [--session-start]]\n"
    "  The multi-word GEMM experiment of Mary & Mikaitis (2025, Sec. 5) as in the tensor-core\n"
    "  and matrix-core papers: A 10 x n, B n x 10, log-uniform magnitudes in [1e-10, 1e10],\n"
    "  power-of-two diagonal scaling, p words of FMT accumulated on the unit's fp32\n"
    "  accumulator; error ||C - C_ref||_inf / (||A||_inf ||B||_inf). Defaults: --input fp16,\n"
    "  --words 2 (LIST: 1,2,3 or 1..6; each in 1..6), every model, --points 20, --nmax 550000\n"
    "  (10^6 gives the papers' grid), --seed 1. --out DIR writes DIR/multiword.csv and\n"
    "  DIR/multiword.png (gnuplot). LIST of models as for compare (the default B200 row is\n"
    "  the one the toolbox's B200TC models; B200@mma.sync is the path of the hardware data).\n"
    "  --toolbox: the toolbox's own run (experiments.m, experiments_CDNA.m), reproducing its\n"
    "  published data files: MATLAB's rng(1) stream in the script's draw order, truncated\n"
    "  words, n up to --nmax\n"
    "  (default 10^6) of floor(logspace(1,6,20)); --input fp16, bf16 or e5m2; models and words\n"
    "  as the script runs them (default: all). Prints each file (\"==> FILE <==\" first);\n"
    "  --out DIR writes DIR/matmul_test_<in>_binary32_words_<p>_model_<gpu>.dat.\n"
    "  --session-start: the model's run opened its MATLAB session, so its first point's words\n"
    "  are rounded to nearest (CPFloat's default before the first GEMM call; one model).\n"
    "usage: mmaemu experiment smd [options]   (mmaemu experiment smd --help; docs/smd.md)\n"
    "usage: mmaemu experiment ozaki [options] (mmaemu experiment ozaki --help; docs/ozaki.md)\n";

namespace {

std::string fmt_err(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return "inf";
  if (x == 0) return "0";
  char b[32];
  std::snprintf(b, sizeof b, "%.3e", x);
  return b;
}

int usage_error(std::ostream& err, const std::string& cmd, const std::string& msg, const char* usage) {
  err << "mmaemu " << cmd << ": " << msg << "\n" << usage;
  return 2;
}

// Draws a PNG; failures are warnings (exit status stays 0).
void draw(const std::string& script, const std::string& png, const std::string& cmd, std::ostream& out,
          std::ostream& err) {
  std::error_code ec;
  std::filesystem::remove(png, ec);  // no stale chart left behind on failure
  const PlotStatus st = run_gnuplot(script);
  if (st.ok && std::filesystem::exists(png)) out << "wrote " << png << "\n";
  else err << "mmaemu " << cmd << ": warning: no chart " << png << ": " << (st.ok ? "gnuplot wrote nothing" : st.message) << "\n";
}

}  // namespace

namespace {

// --schedule LIST: comma-separated schedules, each a combination with '+'.
std::vector<driver::Schedule> parse_schedules(const std::string& list) {
  std::vector<driver::Schedule> out;
  std::size_t at = 0;
  for (std::size_t next = 0; next != std::string::npos; at = next + 1) {
    next = list.find(',', at);
    try {
      out.push_back(driver::parse_schedule(list.substr(at, next == std::string::npos ? next : next - at)));
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--schedule: ") + e.what() + "; in a list, join a combination with '+'");
    }
  }
  return out;
}

}  // namespace

namespace {

// compare --input under a block-scaled policy (compare_scaled.h).
int report_scaled(const Options& o, const Matrix& A, const Matrix& B, const std::string& what, std::ostream& out,
                  std::ostream& err) {
  const std::string policy = o.get("input", "");
  if (o.has("output") && o.get("output", "") != "fp32")
    throw UsageError("--input " + policy + ": the block-scaled units give fp32 (--output fp32 or none)");
  if (o.has("schedule")) throw UsageError("--schedule does not apply to a block-scaled --input");
  const std::vector<Model> models = o.has("models") ? parse_models(o.get("models", "")) : all_models();
  const int threads = static_cast<int>(parse_int("threads", o.get("threads", "0"), 0, 1024));
  char line[600];
  std::snprintf(line, sizeof line,
                "compare: C = A*B, A %zu x %zu, B %zu x %zu (%s); input %s (quantised per block along k as the "
                "BLAS shim does), output fp32\n",
                A.rows, A.cols, B.rows, B.cols, what.c_str(), policy.c_str());
  out << line
      << "reference C_ref: the exact product of the binary64 operands, rounded once to binary64\n"
         "normwise = ||C - C_ref||_F / ||C_ref||_F; componentwise = max |C - C_ref|_ij / |C_ref|_ij;\n"
         "quantisation = the exact product of the dequantised operands (the quantisation's own share);\n"
         "unit-only = normwise error against that product\n\n";
  const std::vector<CompareResult> res = run_compare_scaled(A, B, models, policy, threads);
  std::snprintf(line, sizeof line, "%-12s %-42s %11s %13s %11s %9s\n", "model", "instruction", "normwise",
                "componentwise", "unit-only", "time (s)");
  out << line;
  std::size_t ran = 0;
  for (std::size_t i = 0; i < res.size(); ++i) {
    const CompareResult& r = res[i];
    if (r.skipped) {
      std::snprintf(line, sizeof line, "%-12s skipped: %s\n", r.model.c_str(), r.reason.c_str());
    } else if (i == 0) {
      std::snprintf(line, sizeof line, "%-12s %-42s %11s %13s %11s %9s\n", r.model.c_str(), r.instr.c_str(),
                    fmt_err(r.normwise).c_str(), fmt_err(r.componentwise).c_str(), "-", "-");
    } else {
      ++ran;
      std::snprintf(line, sizeof line, "%-12s %-42s %11s %13s %11s %9.3f\n", r.model.c_str(), r.instr.c_str(),
                    fmt_err(r.normwise).c_str(), fmt_err(r.componentwise).c_str(),
                    fmt_err(r.unit_normwise).c_str(), r.seconds);
    }
    out << line;
  }
  if (ran == 0) {
    err << "mmaemu compare: no model has a unit for " << policy << "\n";
    return 2;
  }
  if (o.has("png")) {
    const std::string title = "C = A*B, " + std::to_string(A.rows) + "x" + std::to_string(A.cols) + " times " +
                              std::to_string(B.rows) + "x" + std::to_string(B.cols) + ", " + policy + " (" + what + ")";
    draw(compare_plot_script(res, title, o.get("png", "")), o.get("png", ""), "compare", out, err);
  }
  return 0;
}

// A number format, or (the error says so) one of the block-scaled policies.
Fmt parse_input(const std::string& text) {
  try {
    return parse_format("input", text);
  } catch (const UsageError& e) {
    throw UsageError(std::string(e.what()) + "; or a block-scaled policy: " + block_scaled_error(text));
  }
}

}  // namespace

int cmd_compare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  try {
    const Options o = parse_options(
        args, {"m", "n", "k", "dist", "seed", "a", "b", "input", "output", "models", "schedule", "threads", "png"},
        {"help"});
    if (o.flags.count("help")) {
      out << kCompareUsage;
      return 0;
    }
    const bool files = o.has("a") || o.has("b");
    if (files && !(o.has("a") && o.has("b"))) throw UsageError("--a and --b go together");
    if (files && (o.has("m") || o.has("n") || o.has("k") || o.has("dist") || o.has("seed")))
      throw UsageError("--a/--b take the sizes from the files: no --m, --n, --k, --dist or --seed with them");
    constexpr long long kMaxDim = 1 << 16, kMaxElems = 1LL << 26;
    Matrix A, B;
    std::string what;
    if (files) {
      A = read_matrix(o.get("a", ""));
      B = read_matrix(o.get("b", ""));
      if (A.cols != B.rows)
        throw UsageError("A is " + std::to_string(A.rows) + " x " + std::to_string(A.cols) + " but B is " +
                         std::to_string(B.rows) + " x " + std::to_string(B.cols) + ": inner dimensions differ");
      if (static_cast<long long>(A.rows * B.cols) > kMaxElems) throw UsageError("C would be too large");
      what = "A = " + o.get("a", "") + ", B = " + o.get("b", "");
    } else {
      const long long m = parse_int("m", o.get("m", "64"), 1, kMaxDim);
      const long long n = parse_int("n", o.get("n", "64"), 1, kMaxDim);
      const long long k = parse_int("k", o.get("k", "64"), 1, kMaxElems);
      if (m * k > kMaxElems || k * n > kMaxElems || m * n > kMaxElems)
        throw UsageError("matrices too large (at most 2^26 elements each)");
      const Dist d = parse_dist(o.get("dist", "normal"));
      const long long seed = parse_int("seed", o.get("seed", "1"), 0, (1LL << 62));
      Rng rng(static_cast<uint64_t>(seed));
      A = Matrix(static_cast<std::size_t>(m), static_cast<std::size_t>(k));
      B = Matrix(static_cast<std::size_t>(k), static_cast<std::size_t>(n));
      fill(A, d, rng);
      fill(B, d, rng);
      what = "random " + d.text + ", seed " + std::to_string(seed);
    }
    if (is_block_scaled_input(o.get("input", ""))) return report_scaled(o, A, B, what, out, err);
    const Fmt in = parse_input(o.get("input", "fp16"));
    const Fmt out_fmt = o.has("output") ? parse_format("output", o.get("output", ""))
                                        : (in == Fmt::fp64 ? Fmt::fp64 : Fmt::fp32);
    const std::vector<Model> models = o.has("models") ? parse_models(o.get("models", "")) : all_models();
    const int threads = static_cast<int>(parse_int("threads", o.get("threads", "0"), 0, 1024));
    const std::vector<driver::Schedule> schedules = parse_schedules(o.get("schedule", "chain"));
    const bool show_schedule = o.has("schedule");

    char head[400];
    std::snprintf(head, sizeof head,
                  "compare: C = A*B, A %zu x %zu, B %zu x %zu (%s); input %s (RNE%s), output %s\n", A.rows, A.cols,
                  B.rows, B.cols, what.c_str(), info(in).name,
                  compare_overflow(in) == Overflow::saturate ? ", saturating" : "", info(out_fmt).name);
    out << head
        << "reference C_ref: the exact product of the binary64 operands, rounded once to binary64\n"
           "normwise = ||C - C_ref||_F / ||C_ref||_F; componentwise = max |C - C_ref|_ij / |C_ref|_ij;\n"
           "unit-only = normwise error against the exact product of the operands rounded to the input format\n\n";
    const std::vector<CompareResult> res = run_compare(A, B, models, in, out_fmt, threads, schedules);
    char line[600];
    auto model_col = [&](const CompareResult& r) {
      return show_schedule ? r.model + " " + r.schedule : r.model;
    };
    std::snprintf(line, sizeof line, "%-*s %-28s %11s %13s %11s %9s%s\n", show_schedule ? 36 : 12,
                  show_schedule ? "model schedule" : "model", "instruction", "normwise", "componentwise", "unit-only",
                  "time (s)", show_schedule ? "  bits differ from first" : "");
    out << line;
    std::size_t ran = 0;
    for (const CompareResult& r : res) {
      if (r.skipped) {
        std::snprintf(line, sizeof line, "%-*s skipped: %s\n", show_schedule ? 36 : 12, model_col(r).c_str(),
                      r.reason.c_str());
      } else {
        ++ran;
        char differs[48] = "";
        if (show_schedule) std::snprintf(differs, sizeof differs, "  %21.1f%%", 100.0 * r.differs);
        std::snprintf(line, sizeof line, "%-*s %-28s %11s %13s %11s %9.3f%s\n", show_schedule ? 36 : 12,
                      model_col(r).c_str(), r.instr.c_str(), fmt_err(r.normwise).c_str(),
                      fmt_err(r.componentwise).c_str(), fmt_err(r.unit_normwise).c_str(), r.seconds, differs);
      }
      out << line;
    }
    if (ran == 0) {
      err << "mmaemu compare: no model has a " << info(in).name << " -> " << info(out_fmt).name << " unit\n";
      return 2;
    }
    if (o.has("png")) {
      const std::string title = std::string("C = A*B, ") + std::to_string(A.rows) + "x" + std::to_string(A.cols) +
                                " times " + std::to_string(B.rows) + "x" + std::to_string(B.cols) + ", " + info(in).name +
                                " -> " + info(out_fmt).name + " (" + what + ")";
      draw(compare_plot_script(res, title, o.get("png", "")), o.get("png", ""), "compare", out, err);
    }
    return 0;
  } catch (const UsageError& e) {
    return usage_error(err, "compare", e.what(), kCompareUsage);
  }
}

namespace {

std::vector<int> parse_words(const std::string& text) {
  std::vector<int> w;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t c = std::min(text.find(',', pos), text.size());
    const std::string tok = text.substr(pos, c - pos);
    pos = c + 1;
    if (const std::size_t dots = tok.find(".."); dots != std::string::npos) {
      const int a = static_cast<int>(parse_int("words", tok.substr(0, dots), 1, 6));
      const int b = static_cast<int>(parse_int("words", tok.substr(dots + 2), 1, 6));
      if (a > b) throw UsageError("--words: empty range '" + tok + "'");
      for (int i = a; i <= b; ++i) w.push_back(i);
    } else {
      w.push_back(static_cast<int>(parse_int("words", tok, 1, 6)));
    }
  }
  std::sort(w.begin(), w.end());
  w.erase(std::unique(w.begin(), w.end()), w.end());
  return w;
}

std::string make_out_dir(const Options& o) {
  const std::string dir = o.get("out", "");
  if (!dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec || !std::filesystem::is_directory(dir)) throw UsageError("--out: cannot create directory '" + dir + "'");
  }
  return dir;
}

// The toolbox's series (toolbox_series) that --input and --models select.
std::vector<const ToolboxSeries*> toolbox_selection(const Options& o, Fmt in) {
  std::vector<const ToolboxSeries*> all;
  std::string names;
  for (const ToolboxSeries& s : toolbox_series())
    if (s.in == in) {
      all.push_back(&s);
      names += std::string(names.empty() ? "" : ", ") + s.model;
    }
  if (all.empty()) throw UsageError("--toolbox: the toolbox's experiments.m runs no such --input (valid: fp16, bf16, e5m2)");
  if (!o.has("models")) return all;
  std::vector<const ToolboxSeries*> chosen;
  for (const Model& m : parse_models(o.get("models", ""))) {
    const ToolboxSeries* hit = nullptr;
    for (const ToolboxSeries* s : all)
      if (lookup_model(s->model).name == m.name) hit = s;
    if (!hit)
      throw UsageError("--toolbox: experiments.m runs " + std::string(info(in).name) + " only on " + names + ", not " +
                       m.name);
    chosen.push_back(hit);
  }
  return chosen;
}

int cmd_multiword_toolbox(const Options& o, std::ostream& out, std::ostream& err) {
  if (o.has("points")) throw UsageError("--toolbox: the grid is the toolbox's (no --points; --nmax cuts it)");
  if (o.flags.count("session-start") && o.has("models") && parse_models(o.get("models", "")).size() != 1)
    throw UsageError("--session-start: one model (the series that opened the MATLAB session)");
  const Fmt in = parse_format("input", o.get("input", "fp16"));
  const std::vector<const ToolboxSeries*> series = toolbox_selection(o, in);
  const std::vector<int> words = o.has("words") ? parse_words(o.get("words", "")) : std::vector<int>{};
  const auto nmax = static_cast<std::size_t>(parse_int("nmax", o.get("nmax", "1000000"), 10, 1000000));
  const auto seed = static_cast<uint32_t>(parse_int("seed", o.get("seed", "1"), 0, 0xFFFFFFFFLL));
  const int threads = static_cast<int>(parse_int("threads", o.get("threads", "0"), 0, 1024));
  const std::string dir = make_out_dir(o);
  for (const ToolboxSeries* s : series)
    for (int p : words)
      if (std::find(s->words.begin(), s->words.end(), p) == s->words.end()) {
        std::string run;
        for (int w : s->words) run += (run.empty() ? "" : ", ") + std::to_string(w);
        throw UsageError("--toolbox: experiments.m runs " + std::string(s->model) + " on " + info(in).name +
                         " with p = " + run + " words, not " + std::to_string(p));
      }
  for (const ToolboxSeries* s : series) {
    const Model model = s->model_used();
    const ModelRow* row = model.find(s->unit(), Fmt::fp32);
    if (!row) throw UsageError("--toolbox: " + model.name + ": " + skip_reason(model, s->unit(), Fmt::fp32));
    for (const ToolboxSet& set :
         run_toolbox_series(*s, *row, words, nmax, seed, threads, o.flags.count("quiet") ? nullptr : &err,
                            o.flags.count("session-start") != 0)) {
      const std::string name = toolbox_file_name(in, s->model, set.words);
      const std::string dat = toolbox_dat(set.points);
      out << "==> " << name << " <==\n" << dat;
      if (dir.empty()) continue;
      const std::string path = (std::filesystem::path(dir) / name).string();
      std::ofstream f(path, std::ios::binary);
      f << dat;
      f.close();
      if (!f) {
        err << "mmaemu experiment multiword: cannot write " << path << "\n";
        return 2;
      }
      out << "wrote " << path << "\n";
    }
  }
  return 0;
}

int cmd_multiword(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const Options o = parse_options(
      args, {"input", "words", "models", "out", "points", "nmax", "seed", "threads"}, {"quiet", "help", "toolbox", "session-start"});
  if (o.flags.count("help")) {
    out << kExperimentUsage;
    return 0;
  }
  if (o.flags.count("toolbox")) return cmd_multiword_toolbox(o, out, err);
  if (o.flags.count("session-start")) throw UsageError("--session-start goes with --toolbox");
  MultiwordConfig cfg;
  cfg.in = parse_format("input", o.get("input", "fp16"));
  if (info(cfg.in).width > 16 && cfg.in != Fmt::tf32)
    throw UsageError(std::string("--input: ") + info(cfg.in).name +
                     " is no low-precision input format (fp16, bf16, tf32, e4m3, e5m2, fp8, bf8)");
  cfg.out = Fmt::fp32;
  cfg.words = parse_words(o.get("words", "2"));
  cfg.models = o.has("models") ? parse_models(o.get("models", "")) : all_models();
  cfg.points = static_cast<int>(parse_int("points", o.get("points", "20"), 1, 100));
  cfg.nmax = static_cast<std::size_t>(parse_int("nmax", o.get("nmax", "550000"), 10, 10000000));
  if (static_cast<std::size_t>(cfg.points) > cfg.nmax - 9)
    throw UsageError("--points: more points than sizes between 10 and --nmax");
  cfg.seed = static_cast<uint64_t>(parse_int("seed", o.get("seed", "1"), 0, (1LL << 62)));
  cfg.threads = static_cast<int>(parse_int("threads", o.get("threads", "0"), 0, 1024));
  cfg.progress = !o.flags.count("quiet");
  const std::string dir = make_out_dir(o);

  std::string words;
  for (int p : cfg.words) {
    if (!words.empty()) words += ',';
    words += std::to_string(p);
  }
  out << "multiword: " << info(cfg.in).name << " words (p = " << words << ") on the " << info(cfg.out).name
      << " accumulator; A " << cfg.m << " x n, B n x " << cfg.q
      << ", |a_ij|, |b_ij| log-uniform in [1e-10, 1e10], random signs; seed " << cfg.seed << "\n"
      << "error = ||C - C_ref||_inf / (||A||_inf ||B||_inf), C_ref = exact product rounded to binary64; "
         "bound = (3.26) of Mary & Mikaitis\n";
  MultiwordRun run = run_multiword(cfg, err);
  for (const std::string& s : run.skipped) out << "skipped " << s << "\n";
  if (run.records.empty()) {
    err << "mmaemu experiment multiword: no model has a " << info(cfg.in).name << " -> " << info(cfg.out).name
        << " unit\n";
    return 2;
  }
  // Table: one row per n, one column per (model, words).
  const std::size_t npts = multiword_sizes(cfg.points, cfg.nmax).size();
  const std::size_t curves = run.records.size() / npts;
  char cell[64];
  std::snprintf(cell, sizeof cell, "%9s", "n");
  std::string header = cell;
  for (std::size_t c = 0; c < curves; ++c) {
    const MultiwordRecord& r = run.records[c * npts];
    std::snprintf(cell, sizeof cell, " %13s", (r.model + " p=" + std::to_string(r.words)).c_str());
    header += cell;
  }
  std::snprintf(cell, sizeof cell, " %13s", "bound");
  header += cell;
  out << "\n" << header << "\n";
  for (std::size_t i = 0; i < npts; ++i) {
    std::snprintf(cell, sizeof cell, "%9zu", run.records[i].n);
    out << cell;
    for (std::size_t c = 0; c < curves; ++c) {
      std::snprintf(cell, sizeof cell, " %13s", fmt_err(run.records[c * npts + i].error).c_str());
      out << cell;
    }
    std::snprintf(cell, sizeof cell, " %13s", fmt_err(run.records[i].bound).c_str());
    out << cell << "\n";
  }
  if (!dir.empty()) {
    const std::string csv = (std::filesystem::path(dir) / "multiword.csv").string();
    std::ofstream f(csv);
    write_multiword_csv(f, cfg, run);
    f.close();
    if (!f) {
      err << "mmaemu experiment multiword: cannot write " << csv << "\n";
      return 2;
    }
    out << "wrote " << csv << "\n";
    const std::string png = (std::filesystem::path(dir) / "multiword.png").string();
    draw(multiword_plot_script(cfg, run, png), png, "experiment multiword", out, err);
  }
  return 0;
}

}  // namespace

int cmd_experiment(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty() || args[0].rfind("--", 0) == 0) {
    if (!args.empty() && (args[0] == "--help")) {
      out << kExperimentUsage << kLuIrUsage;
      return 0;
    }
    return usage_error(err, "experiment", "which experiment? (valid: multiword, smd, lu-ir, ozaki)", kExperimentUsage);
  }
  if (args[0] == "lu-ir") {
    try {
      return cmd_lu_ir(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
    } catch (const UsageError& e) {
      return usage_error(err, "experiment lu-ir", e.what(), kLuIrUsage);
    }
  }
  if (args[0] == "ozaki") {
    try {
      return cmd_ozaki(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
    } catch (const UsageError& e) {
      return usage_error(err, "experiment ozaki", e.what(), kOzakiUsage);
    }
  }
  if (args[0] == "smd") return cmd_smd(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
  if (args[0] != "multiword")
    return usage_error(err, "experiment", "unknown experiment '" + args[0] + "' (valid: multiword, smd, lu-ir, ozaki)",
                       kExperimentUsage);
  try {
    return cmd_multiword(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
  } catch (const UsageError& e) {
    return usage_error(err, "experiment multiword", e.what(), kExperimentUsage);
  }
}

}  // namespace mmaemu::experiments
