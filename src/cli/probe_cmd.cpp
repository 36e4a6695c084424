// SPDX-License-Identifier: BSD-3-Clause
#include "cli/probe_cmd.h"

#include <ostream>
#include <stdexcept>

#include "models/model.h"
#include "probe/probe.h"

namespace mmaemu::cli {
namespace {

const char* const kUsage =
    "usage: mmaemu probe --model M --input F [--output O] [--instr I]\n"
    "  runs the papers' feature tests on the unit of (M, F, O) through its\n"
    "  instruction only and prints what they detect; O defaults to fp32 (the\n"
    "  input format for fp32/fp64 inputs); I picks an instruction variant\n"
    "  (e.g. wgmma.scale-d=0)\n";

std::string unit_list(const Model& m) {
  std::string s;
  for (const ModelRow& r : m.rows) {
    if (!s.empty()) s += ", ";
    s += std::string(info(r.in).name) + "->" + info(r.out).name + " (" + r.instr + ")";
  }
  return s;
}

}  // namespace

int cmd_probe(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::string model, input, output, instr;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      out << kUsage;
      return 0;
    }
    std::string* dst = a == "--model"    ? &model
                       : a == "--input"  ? &input
                       : a == "--output" ? &output
                       : a == "--instr"  ? &instr
                                         : nullptr;
    if (!dst) {
      err << "mmaemu probe: unknown option '" << a << "'\n" << kUsage;
      return 2;
    }
    if (i + 1 >= args.size()) {
      err << "mmaemu probe: " << a << " needs a value\n" << kUsage;
      return 2;
    }
    *dst = args[++i];
  }
  if (model.empty() || input.empty()) {
    err << "mmaemu probe: --model and --input are required\n" << kUsage;
    return 2;
  }
  Model m;
  try {
    m = lookup_model(model);
  } catch (const std::invalid_argument& e) {
    err << "mmaemu probe: " << e.what() << "\n";
    return 2;
  }
  const auto in = parse_fmt(input);
  if (!in) {
    err << "mmaemu probe: unknown format '" << input
        << "' (valid: fp64, fp32, tf32, bf16, fp16, e4m3, e5m2, e4m3fnuz, e5m2fnuz)\n";
    return 2;
  }
  Fmt o = (*in == Fmt::fp32 || *in == Fmt::fp64) ? *in : Fmt::fp32;
  if (!output.empty()) {
    const auto p = parse_fmt(output);
    if (!p) {
      err << "mmaemu probe: unknown format '" << output << "' (valid: fp16, fp32, fp64)\n";
      return 2;
    }
    o = *p;
  }
  const ModelRow* row = instr.empty() ? m.find(*in, o) : m.find_instr(instr, *in, o);
  if (!row) {
    err << "mmaemu probe: " << m.name << " has no unit for " << info(*in).name << " -> "
        << info(o).name << (instr.empty() ? "" : " with instruction " + instr)
        << " (units: " << unit_list(m) << ")\n";
    return 2;
  }
  const probe::Features f = probe::detect(probe::black_box(*row));
  probe::print(out, f, m.name + " " + row->instr);
  return 0;
}

}  // namespace mmaemu::cli
