// SPDX-License-Identifier: BSD-3-Clause
// mmaemu explain MODEL --a LIST --b LIST [--c X] [--vs MODEL2] [--svg FILE]
// (docs/explain.md).
#include <algorithm>
#include <fstream>
#include <ostream>

#include "cli/commands.h"
#include "cli/vector_args.h"
#include "experiments/common.h"
#include "experiments/distinguish.h"
#include "experiments/explain.h"

namespace mmaemu::experiments {

const char* const kExplainUsage =
    "usage: mmaemu explain MODEL [--input FMT] [--output FMT] --a LIST --b LIST [--c X] [--k K]\n"
    "                      [--vs MODEL2] [--svg FILE]\n"
    "  One output element d = c + sum a_i b_i as the (input -> output) unit of MODEL computes it,\n"
    "  stage by stage from its model row: decoded operands, exact products, alignment to the\n"
    "  largest exponent in the unit's window (bits kept | bits dropped), carries, where c enters,\n"
    "  normalisation and rounding, special values. --vs puts MODEL2's unit beside it and marks\n"
    "  the first stage where their bits part; --svg writes the diagram as SVG. The last line\n"
    "  gives d as `mmaemu dot` prints it. Arguments as for mmaemu dot (mmaemu dot --help).\n";

namespace {

struct Unit {
  Model model;
  Fmt in, out;
  const ModelRow& row() const { return *model.find(in, out); }  // into this unit's own rows
};

Unit unit_of(const std::string& name, Fmt in, Fmt out) {
  const std::vector<Model> ms = parse_models(name);
  if (ms.size() != 1) throw UsageError("explain takes one model, not '" + name + "'");
  if (!ms[0].find(in, out)) throw UsageError(ms[0].name + ": " + skip_reason(ms[0], in, out));
  return {ms[0], in, out};
}

// The explanation of one unit, checked against the reference engine and the
// GEMM engine (`mmaemu dot`); an error message when they differ.
Explanation explained(const Unit& u, std::size_t k, const std::vector<uint64_t>& a, const std::vector<uint64_t>& b,
                      uint64_t c, std::string& error) {
  const std::size_t kk = k ? k : std::max(a.size(), static_cast<std::size_t>(u.row().k));
  Explanation x = explain_dot(u.model.name, u.row(), kk, a, b, c);
  std::vector<uint64_t> ak = a, bk = b;
  ak.resize(kk, 0), bk.resize(kk, 0);
  const uint64_t gemm = evaluate(u.row(), ak, bk, c);
  if (x.d != x.ref_d || x.d != gemm)
    error += "mmaemu explain: internal error: " + u.model.name + ": the explanation gives " + code_hex(u.row().out, x.d) +
             ", the reference engine " + code_hex(u.row().out, x.ref_d) + ", the GEMM engine " +
             code_hex(u.row().out, gemm) + "\n";
  return x;
}

}  // namespace

int cmd_explain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  try {
    std::vector<std::string> names, rest;
    for (const std::string& a : args) (a.rfind("--", 0) == 0 || !rest.empty() ? rest : names).push_back(a);
    const Options o = parse_options(rest, {"input", "output", "a", "b", "c", "k", "vs", "svg"}, {"help"});
    if (o.flags.count("help")) return out << kExplainUsage, 0;
    if (names.size() != 1) throw UsageError("name one model (and --vs MODEL2 for a second)");
    if (!o.has("a") || !o.has("b")) throw UsageError("--a and --b are needed");
    const Fmt in = parse_format("input", o.get("input", "fp16"));
    const Fmt fout = parse_format("output", o.get("output", in == Fmt::fp64 ? "fp64" : "fp32"));
    const std::vector<uint64_t> a = parse_list("--a", o.get("a", ""), in), b = parse_list("--b", o.get("b", ""), in);
    if (a.size() != b.size())
      throw UsageError("--a has " + std::to_string(a.size()) + " values, --b " + std::to_string(b.size()));
    const uint64_t c = o.has("c") ? parse_token("--c", o.get("c", ""), fout) : zero_bits(fout, false);
    const std::size_t k = o.has("k") ? static_cast<std::size_t>(parse_int("--k", o.get("k", ""), 1, 4096)) : 0;
    if (k && k < a.size()) throw UsageError("--k is shorter than the vectors");
    const Unit u = unit_of(names[0], in, fout);
    std::string error;
    const Explanation x = explained(u, k, a, b, c, error);
    const Unit v = o.has("vs") ? unit_of(o.get("vs", ""), in, fout) : u;  // outlive x and y (x.row, y.row point into them)
    Explanation y;
    if (o.has("vs")) y = explained(v, k, a, b, c, error);
    out << (y.row ? render_text(x, y) : render_text(x));
    if (o.has("svg")) {
      std::ofstream f(o.get("svg", ""));
      if (!(f << render_svg(x, y.row ? &y : nullptr)))
        throw std::invalid_argument("--svg: cannot write " + o.get("svg", ""));
    }
    out << dot_line(x.model, *x.row, x.k, x.d);
    if (y.row) out << dot_line(y.model, *y.row, y.k, y.d);
    if (!error.empty()) return err << error, 1;
    return 0;
  } catch (const UsageError& e) {
    err << "mmaemu explain: " << e.what() << "\n" << kExplainUsage;
    return 2;
  } catch (const std::invalid_argument& e) {
    err << "mmaemu explain: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace mmaemu::experiments
