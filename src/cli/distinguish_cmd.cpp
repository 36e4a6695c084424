// SPDX-License-Identifier: BSD-3-Clause
// mmaemu distinguish A B [...] and mmaemu dot MODEL... --a ... --b ... --c ...
// (docs/distinguish.md).
#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ostream>
#include <sstream>

#include "cli/commands.h"
#include "cli/vector_args.h"
#include "experiments/common.h"
#include "experiments/distinguish.h"
#include "formats/fast_convert.h"

namespace mmaemu::experiments {

const char* const kDistinguishUsage =
    "usage: mmaemu distinguish A B [--input FMT] [--output FMT] [--input2 I,J] [--k K] [--samples N]\n"
    "                          [--seed S] [--dist LIST] [--threads T]\n"
    "  Inputs (a, b, c) of one output element d = c + sum a_i b_i on which the units of A and B\n"
    "  (models, aliases, MODEL@INSTR or custom: variants) give different bits: random ensembles\n"
    "  (LIST, default all: sparse, em-normal, em-cmatch, cancel, normal, subnormal, bits,\n"
    "  specials) until a sample separates them, then a search for a shortest one (fewest\n"
    "  nonzero terms, smallest exponent range). Prints it in the hardware harness's input\n"
    "  format (a, b: fp32 patterns in hex; c and d: 32-bit binary) with both results, and the\n"
    "  `mmaemu dot` line that re-evaluates it; when none is found, the number of samples and\n"
    "  the upper bound on the probability that a random sample separates them (eps = 1e-6,\n"
    "  AMD paper Sec. 5.4); then the same search for each unit for these formats that only\n"
    "  one model has (an instruction the other lacks, e.g. T4's m8n8k4), against the other's\n"
    "  unit at the longer instruction's k, and the formats only one model has units for.\n"
    "  Defaults: --input fp16, --output fp32, k = A's instruction k,\n"
    "  --samples 1000000, --seed 1. Exit status 0 (found or not), 2 on bad options.\n"
    "  Integer units (docs/models.md §11): --input I[,J] (A's and B's formats: s8, u8, s4, u4)\n"
    "  and --input2 I[,J] for B's unit (default --input's): both read the same codes, each under\n"
    "  its own formats, so u8 against s8 separates readings and a model against\n"
    "  custom:base=M,overflow=satfinite separates overflow rules; LIST: overflow, extremes,\n"
    "  sparse, uniform; codes and results printed in hex with their values.\n";

const char* const kDotUsage =
    "usage: mmaemu dot MODEL... [--input FMT] [--output FMT] --a LIST --b LIST [--c X] [--k K]\n"
    "  d = c + sum a_i b_i, one output element of each model's (input -> output) unit.\n"
    "  LIST: comma- or space-separated values; a token of exactly 8 hex digits is an fp32 bit\n"
    "  pattern (the hardware harness's a_/b_ files), anything else a number (1.5, -0x1p-24,\n"
    "  6.1e-5); each must be exact in the input format. c: a value or an fp32 pattern (or 32\n"
    "  binary digits, the harness's c_ file), exact in the output format; default 0. The\n"
    "  vectors are zero-padded to K (default: each unit's instruction k, or the list's length\n"
    "  if longer; a longer k chains instructions as a GEMM does). Defaults: --input fp16,\n"
    "  --output fp32.\n"
    "  Integer units (docs/models.md §11): --input I[,J] (A's and B's formats: s8, u8, s4, u4 or\n"
    "  int8, uint8, int4, uint4), values integers in range or 0x codes, c an int32 (or 0x code),\n"
    "  d printed as an s32 code and its value; --saturate runs the .satfinite variant (a unit\n"
    "  without one is skipped, saying so).\n";

namespace {

void check_unit(const Model& m, Fmt in, Fmt out) {
  if (!m.find(in, out)) throw UsageError(m.name + ": " + skip_reason(m, in, out));
}

// mmaemu dot on the integer units for ia x ib.
int integer_dot(const std::vector<std::string>& names, const Options& o, Fmt ia, Fmt ib, std::ostream& out) {
  if (o.has("output") && parse_int_fmt(o.get("output", "")) != Fmt::s32)
    throw UsageError("--output " + o.get("output", "") + ": the integer units give s32");
  const std::vector<uint64_t> a = parse_list("--a", o.get("a", ""), ia), b = parse_list("--b", o.get("b", ""), ib);
  if (a.size() != b.size())
    throw UsageError("--a has " + std::to_string(a.size()) + " values, --b " + std::to_string(b.size()));
  const uint64_t c = o.has("c") ? parse_token("--c", o.get("c", ""), Fmt::s32) : 0;
  const std::size_t k_opt = o.has("k") ? static_cast<std::size_t>(parse_int("--k", o.get("k", ""), 1, 1 << 24)) : 0;
  if (k_opt && k_opt < a.size()) throw UsageError("--k is shorter than the vectors");
  const bool saturate = o.flags.count("saturate") != 0;
  out << "dot: " << info(ia).name << " x " << info(ib).name << " -> s32" << (saturate ? " (.satfinite)" : "")
      << ", c = " << code_hex(Fmt::s32, c) << " (" << code_value(Fmt::s32, c) << ")\n";
  for (const std::string& n : names)
    for (const Model& m : parse_models(n)) {
      const ModelRow* r = m.find_integer(ia, ib, Fmt::s32);
      if (!r) {
        out << "  " << m.name << ": skipped: no integer unit for " << info(ia).name << " x " << info(ib).name << "\n";
        continue;
      }
      ModelRow row = *r;
      if (saturate && !row.has_satfinite) {
        out << "  " << m.name << ": skipped: " << row.instr << " has no .satfinite variant (it wraps)\n";
        continue;
      }
      if (saturate) row.overflow = IntOverflow::satfinite;
      const std::size_t k = k_opt ? k_opt : std::max(a.size(), static_cast<std::size_t>(row.k));
      std::vector<uint64_t> ak = a, bk = b;
      ak.resize(k, 0), bk.resize(k, 0);
      out << dot_line(m.name, row, k, evaluate(row, ak, bk, c));
    }
  return 0;
}

}  // namespace

int cmd_distinguish(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  try {
    std::vector<std::string> names, rest;
    for (const std::string& a : args) (a.rfind("--", 0) == 0 || !rest.empty() ? rest : names).push_back(a);
    const Options o =
        parse_options(rest, {"input", "input2", "output", "k", "samples", "seed", "dist", "threads"}, {"help"});
    if (o.flags.count("help")) {
      out << kDistinguishUsage;
      return 0;
    }
    if (names.size() != 2) throw UsageError("distinguish takes two models, got " + std::to_string(names.size()));
    const Model ma = parse_models(names[0]).at(0), mb = parse_models(names[1]).at(0);
    DistinguishConfig cfg;
    if (parse_integer_input("input", o.get("input", "fp16"), cfg.in, cfg.in_b)) {
      cfg.out = Fmt::s32;
      if (o.has("output") && parse_int_fmt(o.get("output", "")) != Fmt::s32)
        throw UsageError("--output " + o.get("output", "") + ": the integer units give s32");
      cfg.second_in = cfg.in, cfg.second_in_b = cfg.in_b;
      if (o.has("input2") && !parse_integer_input("input2", o.get("input2", ""), cfg.second_in, cfg.second_in_b))
        throw UsageError("--input2 " + o.get("input2", "") + ": an integer input (s8, u8, s4, u4; I,J)");
      if (info(cfg.in).width != info(cfg.second_in).width || info(cfg.in_b).width != info(cfg.second_in_b).width)
        throw UsageError("--input2 " + o.get("input2", "") + ": the second unit's operands must have the widths of " +
                         "the first's (" + info(cfg.in).name + " x " + info(cfg.in_b).name +
                         "): both read the same codes");
      ma.require_integer(cfg.in, cfg.in_b, Fmt::s32);
      mb.require_integer(cfg.second_in, cfg.second_in_b, Fmt::s32);
    } else {
      if (o.has("input2")) throw UsageError("--input2 applies to the integer units (--input s8, u8, s4, u4)");
      cfg.in = parse_format("input", o.get("input", "fp16"));
      cfg.out = parse_format("output", o.get("output", cfg.in == Fmt::fp64 ? "fp64" : "fp32"));
      check_unit(ma, cfg.in, cfg.out);
      check_unit(mb, cfg.in, cfg.out);
    }
    if (o.has("k")) cfg.k = static_cast<std::size_t>(parse_int("--k", o.get("k", ""), 1, 65536));
    cfg.max_samples = static_cast<std::size_t>(parse_int("--samples", o.get("samples", "1000000"), 1, 1000000000000));
    cfg.seed = static_cast<uint64_t>(parse_int("--seed", o.get("seed", "1"), 0, 1LL << 62));
    cfg.threads = static_cast<int>(parse_int("--threads", o.get("threads", "0"), 0, 4096));
    if (o.has("dist")) {
      std::stringstream ss(o.get("dist", ""));
      for (std::string d; std::getline(ss, d, ',');) cfg.distributions.push_back(d);
    }
    ModelsDistinction d;
    try {
      d = distinguish_models(ma, mb, cfg);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--dist: ") + e.what());
    }
    out << distinguish_models_report(ma, mb, cfg, d);
    return 0;
  } catch (const UsageError& e) {
    err << "mmaemu distinguish: " << e.what() << "\n" << kDistinguishUsage;
    return 2;
  } catch (const std::invalid_argument& e) {
    err << "mmaemu distinguish: " << e.what() << "\n";
    return 2;
  }
}

int cmd_dot(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  try {
    std::vector<std::string> names, rest;
    for (const std::string& a : args) (a.rfind("--", 0) == 0 || !rest.empty() ? rest : names).push_back(a);
    const Options o = parse_options(rest, {"input", "output", "a", "b", "c", "k"}, {"help", "saturate"});
    if (o.flags.count("help")) {
      out << kDotUsage;
      return 0;
    }
    if (names.empty()) throw UsageError("name at least one model");
    if (!o.has("a") || !o.has("b")) throw UsageError("--a and --b are needed");
    Fmt ia, ib;
    if (parse_integer_input("input", o.get("input", "fp16"), ia, ib)) return integer_dot(names, o, ia, ib, out);
    if (o.flags.count("saturate")) throw UsageError("--saturate applies to the integer units (--input s8, u8, s4, u4)");
    const Fmt in = parse_format("input", o.get("input", "fp16"));
    const Fmt fout = parse_format("output", o.get("output", in == Fmt::fp64 ? "fp64" : "fp32"));
    std::vector<uint64_t> a = parse_list("--a", o.get("a", ""), in), b = parse_list("--b", o.get("b", ""), in);
    if (a.size() != b.size())
      throw UsageError("--a has " + std::to_string(a.size()) + " values, --b " + std::to_string(b.size()));
    const uint64_t c = o.has("c") ? parse_token("--c", o.get("c", ""), fout) : zero_bits(fout, false);
    const std::size_t k_opt = o.has("k") ? static_cast<std::size_t>(parse_int("--k", o.get("k", ""), 1, 65536)) : 0;
    if (k_opt && k_opt < a.size()) throw UsageError("--k is shorter than the vectors");
    std::vector<Model> models;
    for (const std::string& n : names)
      for (const Model& m : parse_models(n)) models.push_back(m);
    out << "dot: " << info(in).name << " -> " << info(fout).name << ", c = " << harness_token(fout, c, true) << " ("
        << code_value(fout, c) << ")\n";
    for (const Model& m : models) {
      const ModelRow* r = m.find(in, fout);
      if (!r) {
        out << "  " << m.name << ": skipped: " << skip_reason(m, in, fout) << "\n";
        continue;
      }
      const std::size_t k = k_opt ? k_opt : std::max(a.size(), static_cast<std::size_t>(r->k));
      std::vector<uint64_t> ak = a, bk = b;
      ak.resize(k, 0), bk.resize(k, 0);
      const uint64_t d = evaluate(*r, ak, bk, c);
      out << dot_line(m.name, *r, k, d);
    }
    return 0;
  } catch (const UsageError& e) {
    err << "mmaemu dot: " << e.what() << "\n" << kDotUsage;
    return 2;
  } catch (const std::invalid_argument& e) {
    err << "mmaemu dot: " << e.what() << "\n";
    return 2;
  }
}

}  // namespace mmaemu::experiments
