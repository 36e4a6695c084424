// SPDX-License-Identifier: BSD-3-Clause
// Option errors of compare and experiment: exit status 2 and a message.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "experiments/plot.h"

using namespace mmaemu::experiments;

namespace {

struct Run {
  int rc;
  std::string out, err;
};

Run compare(const std::vector<std::string>& args) {
  std::ostringstream o, e;
  const int rc = cmd_compare(args, o, e);
  return {rc, o.str(), e.str()};
}

Run experiment(const std::vector<std::string>& args) {
  std::ostringstream o, e;
  const int rc = cmd_experiment(args, o, e);
  return {rc, o.str(), e.str()};
}

void expect_error(const Run& r, const std::string& needle) {
  CAPTURE(r.err);
  CHECK(r.rc == 2);
  CHECK(r.err.find(needle) != std::string::npos);
  CHECK(r.err.find("usage:") != std::string::npos);
}

}  // namespace

TEST_CASE("compare: bad options exit with status 2 and say why") {
  expect_error(compare({"--models", "H100,NOPE"}), "unknown model 'NOPE'");
  expect_error(compare({"--input", "fp12"}), "unknown format 'fp12'");
  expect_error(compare({"--output", "int8"}), "'int8' is an integer format: this command runs the floating-point units");
  expect_error(compare({"--m", "0"}), "--m: 0 is out of range");
  expect_error(compare({"--k", "ten"}), "'ten' is not an integer");
  expect_error(compare({"--dist", "cauchy"}), "unknown distribution 'cauchy'");
  expect_error(compare({"--dist", "loguniform:0:1"}), "0 < LO <= HI");
  expect_error(compare({"--a", "x.txt"}), "--a and --b go together");
  expect_error(compare({"--a", "/nonexistent/a", "--b", "/nonexistent/b"}), "/nonexistent/a: cannot open");
  expect_error(compare({"--bogus"}), "unknown option '--bogus'");
  expect_error(compare({"stray"}), "unexpected argument 'stray'");
  expect_error(compare({"--m"}), "--m needs a value");
  expect_error(compare({"--m", "70000"}), "out of range");
  expect_error(compare({"--input", "fp16", "--input=bf16"}), "--input given twice");
  // No model with the unit at all: status 2 after the table.
  const Run r = compare({"--models", "V100", "--input", "e4m3", "--m", "4", "--n", "4", "--k", "4"});
  CHECK(r.rc == 2);
  CHECK(r.out.find("skipped") != std::string::npos);
  CHECK(r.err.find("no model has a e4m3 -> fp32 unit") != std::string::npos);
  // A fine run, and --help.
  const Run ok = compare({"--models", "MI250", "--m", "3", "--n", "5", "--k", "40", "--dist", "uniform:0:1"});
  CHECK(ok.rc == 0);
  CHECK(ok.out.find("MI250") != std::string::npos);
  CHECK(compare({"--help"}).rc == 0);
}

TEST_CASE("compare --png without gnuplot: a warning, status 0") {
  setenv("MMAEMU_GNUPLOT", "/nonexistent/gnuplot", 1);
  const Run r = compare({"--models", "H100", "--m", "4", "--n", "4", "--k", "16", "--png", "/tmp/never-written.png"});
  unsetenv("MMAEMU_GNUPLOT");
  CHECK(r.rc == 0);
  CHECK(r.err.find("warning: no chart /tmp/never-written.png") != std::string::npos);
}

TEST_CASE("compare --png: a chart also when an error column is exactly 0 (log scale)") {
  if (!run_gnuplot("set terminal dumb\nset output '/dev/null'\nplot x\n").ok) {
    MESSAGE("gnuplot not usable here: PNG not tested");
    return;
  }
  // Small integers: every product is exact, every error column is 0.
  const std::string dir = std::filesystem::temp_directory_path() / "mmaemu_cli_png";
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir + "/a.txt") << "1 2 3\n4 5 6\n";
    std::ofstream(dir + "/b.txt") << "1 0\n2 1\n-3 2\n";
  }
  const std::string png = dir + "/zero.png";
  std::filesystem::remove(png);
  const Run r = compare({"--models", "H100,MI250", "--a", dir + "/a.txt", "--b", dir + "/b.txt", "--png", png});
  CAPTURE(r.err);
  CHECK(r.rc == 0);
  CHECK(r.err.empty());
  std::ifstream f(png, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  CHECK(bytes.size() > 1000);
  CHECK(bytes.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("experiment: bad names and options exit with status 2 and say why") {
  expect_error(experiment({}), "which experiment?");
  expect_error(experiment({"multiwords"}), "unknown experiment 'multiwords'");
  expect_error(experiment({"multiword", "--words", "7"}), "--words: 7 is out of range [1, 6]");
  expect_error(experiment({"multiword", "--words", "0"}), "out of range [1, 6]");
  expect_error(experiment({"multiword", "--words", "3..1"}), "empty range");
  expect_error(experiment({"multiword", "--words", "1..9"}), "out of range [1, 6]");
  expect_error(experiment({"multiword", "--points", "0"}), "--points: 0 is out of range");
  expect_error(experiment({"multiword", "--nmax", "9"}), "--nmax: 9 is out of range");
  expect_error(experiment({"multiword", "--nmax", "20", "--points", "15"}), "more points than sizes");
  expect_error(experiment({"multiword", "--input", "fp32"}), "no low-precision input format");
  expect_error(experiment({"multiword", "--input", "fp9"}), "unknown format 'fp9'");
  expect_error(experiment({"multiword", "--models", "H1000"}), "unknown model 'H1000'");
  expect_error(experiment({"multiword", "--models", "B200@wgmma"}), "has no instruction 'wgmma'");
  expect_error(experiment({"multiword", "--seed", "-1"}), "out of range");
  expect_error(experiment({"multiword", "--quiet=yes"}), "takes no value");
  expect_error(experiment({"multiword", "--out", "/proc/nope"}), "cannot create directory");
  // No model with the unit: status 2.
  const Run r = experiment({"multiword", "--models", "V100", "--input", "bf16", "--nmax", "20", "--points", "2", "--quiet"});
  CHECK(r.rc == 2);
  CHECK(r.err.find("no model has a bf16 -> fp32 unit") != std::string::npos);
  CHECK(experiment({"multiword", "--help"}).rc == 0);
}
