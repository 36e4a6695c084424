// SPDX-License-Identifier: BSD-3-Clause
// PNG charts through gnuplot (Debian: gnuplot-nox), run as a subprocess
// with a generated script on its standard input. Without gnuplot the
// commands warn and carry on: the numbers never depend on it.
#pragma once

#include <string>
#include <vector>

namespace mmaemu::experiments {

struct PlotStatus {
  bool ok = false;
  std::string message;  // why not, when !ok
};

/// The gnuplot program: $MMAEMU_GNUPLOT if set, else "gnuplot" on PATH.
std::string gnuplot_program();

/// Runs gnuplot with `script` on stdin; ok when it exits with status 0.
/// Never throws; a missing program or a failing script is a message.
PlotStatus run_gnuplot(const std::string& script);

/// A gnuplot single-quoted string literal (no escapes; ' doubled).
std::string gp_quote(const std::string& s);

/// Script preamble: PNG terminal (pngcairo if this gnuplot has it, else
/// png), size, output file.
std::string gp_png_preamble(const std::string& png_path, int width, int height);

/// One series of a chart: (x, y) points; non-positive or non-finite y are
/// left out (log scales).
struct Series {
  std::string title;
  std::vector<double> x, y;
  std::string style;  // gnuplot "with ..." clause, e.g. "linespoints pt 7"
};

/// A datablock definition "$name << EOD ... EOD" holding the drawable points
/// of a series; returns false (and defines nothing) if none is drawable.
bool gp_datablock(std::string& script, const std::string& name, const Series& s);

}  // namespace mmaemu::experiments
