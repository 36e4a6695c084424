// SPDX-License-Identifier: BSD-3-Clause
#include "experiments/compare.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "experiments/common.h"
#include "experiments/numerics.h"
#include "experiments/plot.h"

namespace mmaemu::experiments {

Overflow compare_overflow(Fmt in) {
  switch (in) {
    case Fmt::e4m3:
    case Fmt::e5m2:
    case Fmt::e4m3fnuz:
    case Fmt::e5m2fnuz: return Overflow::saturate;
    default: return Overflow::ieee;
  }
}

std::vector<CompareResult> run_compare(const Matrix& A, const Matrix& B, const std::vector<Model>& models, Fmt in,
                                       Fmt out, int threads, const std::vector<driver::Schedule>& schedules) {
  const std::size_t m = A.rows, k = A.cols, n = B.cols;
  const Matrix Cref = exact_product(A, B, threads);
  // The operands as the unit reads them (the same for every model).
  const FormatArray Ai = encode(A.v.data(), A.v.size(), in, Round::rne, compare_overflow(in));
  const FormatArray Bi = encode(B.v.data(), B.v.size(), in, Round::rne, compare_overflow(in));
  Matrix Ar(m, k), Br(k, n);
  for (std::size_t i = 0; i < Ar.v.size(); ++i) Ar.v[i] = Ai.value(i);
  for (std::size_t i = 0; i < Br.v.size(); ++i) Br.v[i] = Bi.value(i);
  const Matrix Cin = exact_product(Ar, Br, threads);

  std::vector<CompareResult> res;
  for (const Model& model : models) {
    Matrix first;  // the model's result under its first schedule that ran
    for (const driver::Schedule& schedule : schedules) {
    CompareResult r;
    r.model = model.name;
    r.schedule = driver::schedule_name(schedule);
    const ModelRow* row = model.find(in, out);
    if (!row) {
      r.skipped = true;
      r.reason = skip_reason(model, in, out);
      res.push_back(r);
      continue;
    }
    r.instr = row->instr;
    try {
      driver::check_schedule(schedule, *row);
    } catch (const std::invalid_argument& e) {
      r.skipped = true;
      r.reason = e.what();
      res.push_back(r);
      continue;
    }
    const auto t0 = std::chrono::steady_clock::now();
    FormatArray c(schedule.is_chain() ? row->out : driver::main_format(*row), m * n);
    model_gemm(*row, false, m, n, k, Ai, Bi, c, threads, schedule);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    Matrix C(m, n);
    for (std::size_t i = 0; i < C.v.size(); ++i) C.v[i] = c.value(i);
    r.normwise = normwise_error_fro(C, Cref);
    r.componentwise = componentwise_error(C, Cref);
    r.unit_normwise = normwise_error_fro(C, Cin);
    if (first.v.empty()) first = C;
    std::size_t differ = 0;
    for (std::size_t i = 0; i < C.v.size(); ++i)
      differ += std::bit_cast<uint64_t>(C.v[i]) != std::bit_cast<uint64_t>(first.v[i]);
    r.differs = static_cast<double>(differ) / static_cast<double>(C.v.size());
    res.push_back(r);
    }
  }
  return res;
}

std::string compare_plot_script(const std::vector<CompareResult>& results, const std::string& title,
                                const std::string& png) {
  std::string s = gp_png_preamble(png, 1100, 700);
  double lo = INFINITY, hi = 0;
  std::string data = "$d << EOD\n";
  char line[256];
  auto val = [&](double x) {
    if (x > 0 && std::isfinite(x)) {
      lo = std::min(lo, x);
      hi = std::max(hi, x);
      char b[40];
      std::snprintf(b, sizeof b, "%.9e", x);
      return std::string(b);
    }
    return std::string("NaN");  // zero, Inf or NaN: no bar on a log scale
  };
  std::size_t rows = 0;
  bool drawable[3] = {false, false, false};  // a column with a bar (gnuplot refuses a histogram without one)
  for (const CompareResult& r : results) {
    if (r.skipped) continue;
    const double cols[3] = {r.normwise, r.componentwise, r.unit_normwise};
    for (int c = 0; c < 3; ++c) drawable[c] |= cols[c] > 0 && std::isfinite(cols[c]);
    std::string label = r.model;
    for (char& ch : label)
      if (ch == '"') ch = '\'';
    const std::string a = val(r.normwise), b = val(r.componentwise), c = val(r.unit_normwise);
    std::snprintf(line, sizeof line, "\"%s\" %s %s %s\n", label.c_str(), a.c_str(), b.c_str(), c.c_str());
    data += line;
    ++rows;
  }
  data += "EOD\n";
  if (rows == 0 || hi == 0) {
    lo = 1e-20;
    hi = 1;
  }
  const double ylo = std::pow(10.0, std::floor(std::log10(lo)) - 1), yhi = std::pow(10.0, std::ceil(std::log10(hi)) + 1);
  s += data;
  char range[96];
  std::snprintf(range, sizeof range, "set yrange [%.3g:%.3g]\n", ylo, yhi);
  s += "set style data histograms\n"
       "set style histogram clustered gap 1\n"
       "set style fill solid 0.85 border -1\n"
       "set boxwidth 0.9\n"
       "set logscale y\n"
       "set format y '10^{%L}'\n"
       "set grid ytics lc rgb '#dddddd'\n"
       "set xtics rotate by -35 noenhanced\n"
       "set key top left noenhanced\n"
       "set ylabel 'relative error (no bar: exactly 0)'\n" +
       std::string(range) + "set title " + gp_quote(title) + " noenhanced\n";
  static const char* const titles[3] = {"normwise ||C - C_ref||_F / ||C_ref||_F",
                                        "max componentwise |C - C_ref| / |C_ref|",
                                        "unit-only: normwise against the product of the rounded inputs"};
  std::string plot, zero;
  for (int c = 0; c < 3; ++c) {
    if (!drawable[c]) {
      zero += std::string(zero.empty() ? "" : "; ") + titles[c];
      continue;
    }
    const std::string column = std::to_string(c + 2);
    plot += plot.empty() ? "plot $d using " + column + ":xtic(1)" : ", '' using " + column;
    plot += std::string(" title '") + titles[c] + "'";
  }
  if (rows == 0) return s + "set label 1 'no model ran' at graph 0.5, 0.5 center\nplot NaN notitle\n";
  if (!zero.empty())
    s += "set label 2 " + gp_quote("exactly 0 (or not finite) on every model: " + zero) +
         " at graph 0.5, 0.95 center noenhanced\n";
  return s + (plot.empty() ? "plot NaN notitle" : plot) + "\n";
}

}  // namespace mmaemu::experiments
