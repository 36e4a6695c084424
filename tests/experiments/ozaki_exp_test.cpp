// SPDX-License-Identifier: BSD-3-Clause
// mmaemu experiment ozaki (docs/ozaki.md): the CSV of a small grid against
// runs made here through the C API on the same matrices (the errors'
// exact bits), errors falling with S and N on the int8 unit, the exactness
// counts (none inexact on int8), the chart, bad options.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <mmaemu/mmaemu.h>
#include <unistd.h>

#include "cli/commands.h"
#include "experiments/numerics.h"
#include "experiments/ozaki_exp.h"
#include "experiments/plot.h"

using namespace mmaemu::experiments;

namespace {

std::vector<std::vector<std::string>> read_csv(const std::string& path) {
  std::ifstream f(path);
  std::vector<std::vector<std::string>> rows;
  std::string line;
  while (std::getline(f, line)) {
    std::vector<std::string> cells;
    std::stringstream s(line);
    std::string c;
    while (std::getline(s, c, ',')) cells.push_back(c);
    rows.push_back(cells);
  }
  return rows;
}

}  // namespace

TEST_CASE("experiment ozaki: CSV, errors against S and N, exactness counts, chart") {
  const std::string dir = (std::filesystem::temp_directory_path() / ("mmaemu_ozaki_" + std::to_string(getpid()))).string();
  std::ostringstream out, err;
  const int rc = cmd_experiment({"ozaki", "--n", "40", "--phi", "0.5,2", "--units", "H100:int8,H100:e4m3,native",
                                 "--slices", "3,7", "--moduli", "8,16", "--seed", "3", "--out", dir, "--quiet"},
                                out, err);
  REQUIRE_MESSAGE(rc == 0, err.str());
  const auto rows = read_csv(dir + "/ozaki.csv");
  REQUIRE(rows.size() == 1 + 2 * (4 + 2 + 1));
  CHECK(rows[0][0] == "unit");
  std::map<std::string, double> error;  // "unit scheme phi" -> componentwise error
  for (std::size_t r = 1; r < rows.size(); ++r) {
    error[rows[r][0] + " " + rows[r][1] + " " + rows[r][3]] = std::stod(rows[r][5]);
    if (rows[r][0] == "H100 int8") CHECK(rows[r][9] == "0");  // inexact product elements
  }
  for (const char* phi : {"0.5", "2"}) {
    const std::string p = std::string(" ") + phi;
    CHECK(error["H100 int8 ozaki1:7" + p] < error["H100 int8 ozaki1:3" + p]);
    CHECK(error["H100 int8 ozaki2:16" + p] < error["H100 int8 ozaki2:8" + p]);
    CHECK(error["H100 int8 ozaki2:16" + p] <= 10 * error["native fp64 native" + p]);
  }
  // One run again here, on the matrices the documented generator gives.
  Rng rng(3 + 40);
  const Matrix A = ozaki_test_matrix(40, 40, 2.0, rng), B = ozaki_test_matrix(40, 40, 2.0, rng);
  const OzakiRun again = run_ozaki({"H100", "int8"}, "ozaki2:8", A, B, exact_product(A, B), false, 1);
  REQUIRE(again.error.empty());
  char want[32];
  std::snprintf(want, sizeof want, "%.6e", again.componentwise);
  CHECK(std::abs(error["H100 int8 ozaki2:8 2"] - std::stod(want)) == 0);
  if (run_gnuplot("exit\n").ok) CHECK(std::filesystem::exists(dir + "/ozaki.png"));
  std::filesystem::remove_all(dir);
}

TEST_CASE("experiment ozaki: bad options") {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"ozaki", "--units", "H100"}, {"ozaki", "--units", "H101:int8"},
        {"ozaki", "--slices", "0"}, {"ozaki", "--moduli", "21"}, {"ozaki", "--phi", "-1"}, {"ozaki", "--bogus"}}) {
    std::ostringstream out, err;
    CHECK(cmd_experiment(args, out, err) == 2);
    CHECK(err.str().find("usage: mmaemu experiment ozaki") != std::string::npos);
  }
  // A unit that cannot carry the scheme: skipped with the C API's message, the rest runs.
  std::ostringstream out, err;
  CHECK(cmd_experiment({"ozaki", "--n", "8", "--phi", "1", "--units", "MI300X:fp32,H100:int8", "--slices", "3",
                        "--moduli", "8", "--quiet"},
                       out, err) == 0);
  CHECK(err.str().find("FMA chain") != std::string::npos);
  CHECK(out.str().find("H100 int8") != std::string::npos);
}
