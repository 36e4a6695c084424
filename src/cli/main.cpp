// SPDX-License-Identifier: BSD-3-Clause
// The mmaemu command-line tool.
//   mmaemu models [MODEL]        table of models and their rows (--keys, --dump)
//   mmaemu validate ROOT...      compare models with hardware data
//   mmaemu probe --model M ...   detect a unit's features (black box)
//   mmaemu compare [...]         one product on several models, errors
//   mmaemu experiment NAME [...] the experiments (multiword, smd, lu-ir)
//   mmaemu distinguish A B [...] inputs that tell two units apart
//   mmaemu dot MODEL... [...]    one test vector on many units
//   mmaemu explain MODEL [...]   one dot product, stage by stage
//   mmaemu sweep [...] -- PROG   a program under many GPU settings
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "cli/probe_cmd.h"
#include "cli/commands.h"
#include "models/fields.h"
#include "kernels/plan.h"
#include "kernels/simd.h"
#include "models/model.h"
#include "models/scaled_fields.h"
#include "validate/convert.h"
#include "validate/validate.h"

namespace {

using namespace mmaemu;

// mmaemu models --keys [--markdown] | --dump: the field table (fields.h).
int cmd_model_fields(const std::vector<std::string>& args) {
  bool keys = false, markdown = false, dump = false;
  for (const std::string& a : args) {
    if (a == "--keys") keys = true;
    else if (a == "--markdown") markdown = true;
    else if (a == "--dump") dump = true;
    else {
      std::fprintf(stderr, "usage: mmaemu models [MODEL...] | --keys [--markdown] | --dump\n");
      return 2;
    }
  }
  if (keys == dump || (markdown && !keys)) {
    std::fprintf(stderr, "usage: mmaemu models [MODEL...] | --keys [--markdown] | --dump\n");
    return 2;
  }
  if (dump) {
    std::fputs(fields::dump_rows().c_str(), stdout);
    std::fputs(scaled_fields::dump_units().c_str(), stdout);
    return 0;
  }
  std::fputs(fields::describe_keys(markdown).c_str(), stdout);
  std::fputs(markdown ? "\nBlock-scaled units (docs/block-scaled.md):\n\n" : "\nblock-scaled units:\n", stdout);
  std::fputs(scaled_fields::describe_keys(markdown).c_str(), stdout);
  return 0;
}

// The block-scaled and narrow-format units of the models (docs/block-scaled.md §2).
void print_scaled_units(const std::vector<Model>& models) {
  bool any = false;
  for (const Model& m : models) any |= !m.scaled.empty();
  if (!any) return;
  std::printf("\nBlock-scaled and narrow-format units (docs/block-scaled.md; they follow the specification, no "
              "hardware has checked them):\n%-11s %-42s %-8s %s\n", "model", "instruction", "algo",
              "parameters (bs_*: custom: keys)");
  for (const Model& m : models)
    for (const ScaledUnit& u : m.scaled)
      std::printf("%-11s %-42s %-8s %s\n", m.name.c_str(), u.instruction, algo_name(u.algo),
                  scaled_fields::read_params(u).c_str());
}

// The integer units (Model::integer): the GEMM engine runs them on the
// integer SIMD kernel (docs/models.md §11.4).
// Indented like the section of rows without a SIMD kernel, so that a line
// starting with a model's name is still one of its GEMM rows.
void print_integer_units(const std::vector<Model>& models) {
  bool any = false;
  for (const Model& m : models) any |= !m.integer.empty();
  if (!any) return;
  std::printf("\nInteger units (docs/models.md, Integer units; the GEMM engine runs them on its integer SIMD kernel; "
              "no hardware data):\n  %-11s %-28s %-9s %-5s %-11s %-7s %s\n", "model", "instruction", "A x B", "out",
              "m x n x k", "default", "parameters its accumulation path reads");
  for (const Model& m : models)
    for (const ModelRow& r : m.integer) {
      char shape[40], ab[24];
      std::snprintf(shape, sizeof shape, "%dx%dx%d", r.m, r.n, r.k);
      std::snprintf(ab, sizeof ab, "%sx%s", info(r.in).name, info(r.in_b).name);
      std::printf("  %-11s %-28s %-9s %-5s %-11s %-7s %s\n", m.name.c_str(), r.instr, ab, info(r.out).name, shape,
                  r.gemm_default ? "yes" : "no", fields::read_params(r).c_str());
    }
}

int cmd_models(const std::vector<std::string>& args) {
  if (!args.empty() && args[0].rfind("--", 0) == 0) return cmd_model_fields(args);
  std::vector<Model> models;
  try {
    if (args.empty())
      for (const Gpu& g : gpus()) models.push_back(*gpu_model(g.name));
    for (const std::string& a : args) models.push_back(lookup_model(a));
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "mmaemu: %s\n", e.what());
    return 2;
  }
  std::printf("%-11s %-28s %-9s %-5s %-11s %-6s %s\n", "model", "instruction", "input", "out", "m x n x k",
              "kernel", "parameters its accumulation path reads");
  for (const Model& m : models) {
    for (const ModelRow& r : m.rows) {
      char shape[40];
      std::snprintf(shape, sizeof shape, "%dx%dx%d", r.m, r.n, r.k);
      std::printf("%-11s %-28s %-9s %-5s %-11s %-6s %s\n", m.name.c_str(), r.instr, info(r.in).name,
                  info(r.out).name, shape, kernels::kernel_name(r), fields::read_params(r).c_str());
    }
  }
  print_scaled_units(models);
  print_integer_units(models);
  std::printf("\nThe parameters are the custom: keys (mmaemu models --keys); kernel: the GEMM engine's path "
              "(simd: Highway, dispatched here to %s; scalar: fast scalar kernel; fp64: host binary64 FMAs).\n"
              "Aliases:",
              kernels::simd_target_name());
  for (const Gpu& g : gpus())
    if (*g.aliases) std::printf(" %s=[%s]", g.name, g.aliases);
  std::printf("\n");
  bool heading = false;  // rows no SIMD kernel serves, and why
  for (const Model& m : models)
    for (const ModelRow& r : m.rows) {
      const kernels::KernelPlan p = kernels::plan(r);
      if (p.simd || p.macro != kernels::Macro::steps) continue;
      if (!heading) std::printf("\nRows without a SIMD kernel:\n");
      heading = true;
      std::printf("  %-11s %-28s %s -> %s: %s: %s\n", m.name.c_str(), r.instr, info(r.in).name, info(r.out).name,
                  p.name, p.why);
    }
  return 0;
}

// mmaemu validate --convert SRC DST: the sets as .npy files.
int cmd_validate_convert(const std::vector<std::string>& args) {
  if (args.size() != 3) {
    std::fprintf(stderr, "usage: mmaemu validate --convert SRC DST\n");
    return 2;
  }
  try {
    validate::convert_sets(args[1], args[2], std::cout);
    return 0;
  } catch (const validate::DataError& e) {
    std::cout.flush();
    std::fprintf(stderr, "mmaemu validate --convert: %s\n", e.what());
    return 2;
  } catch (const std::filesystem::filesystem_error& e) {
    std::cout.flush();
    std::fprintf(stderr, "mmaemu validate --convert: %s\n", e.what());
    return 2;
  }
}

int cmd_validate(const std::vector<std::string>& args) {
  if (!args.empty() && args[0] == "--convert") return cmd_validate_convert(args);
  std::vector<std::string> roots;
  std::string errata_file;
  bool bad_option = false, no_errata = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--errata" && i + 1 < args.size()) errata_file = args[++i];
    else if (args[i] == "--no-errata") no_errata = true;
    else if (args[i].rfind("--", 0) == 0) bad_option = true;
    else roots.push_back(args[i]);
  }
  if (roots.empty() || bad_option) {
    std::fprintf(stderr, "usage: mmaemu validate [--errata FILE | --no-errata] ROOT...\n"
                         "       mmaemu validate --convert SRC DST\n");
    return 2;
  }
  try {
    validate::Errata errata = validate::Errata::bundled();
    if (!errata_file.empty()) errata = validate::Errata::load(errata_file);
    return validate::run(roots, std::cout, no_errata ? nullptr : &errata, stderr) ? 1 : 0;
  } catch (const validate::DataError& e) {
    std::cout.flush();
    std::fprintf(stderr, "mmaemu validate: %s\n", e.what());
    return 2;
  }
}

void usage(FILE* f) {
  std::fprintf(f,
               "usage: mmaemu <command> [args]\n"
               "  models [MODEL...]   list the models (every registered GPU by default)\n"
               "  models --keys [--markdown] | --dump\n"
               "                      the custom: keys and the paths that read them; every\n"
               "                      registry row, every field\n"
               "  validate [--errata FILE | --no-errata] ROOT...\n"
               "                      compare the models with data in ROOT/<GPU>/<format>/;\n"
               "                      reference samples known to be wrong (the bundled errata,\n"
               "                      or FILE) are reported apart; a set's .npy files are\n"
               "                      read in place of its .txt files\n"
               "  validate --convert SRC DST\n"
               "                      write the sets under SRC as .npy files under DST\n"
               "  probe --model M --input F [--output O] [--instr I]\n"
               "                      detect a unit's numerical features with the papers'\n"
               "                      test vectors, the unit used as a black box\n"
               "  compare [options]   C = A*B on every model (or --models), errors against the\n"
               "                      exact product; mmaemu compare --help\n"
               "  experiment multiword [options]\n"
               "                      the papers' multi-word GEMM experiment (CSV, PNG);\n"
               "                      mmaemu experiment multiword --help\n"
               "  experiment smd [options]\n"
               "                      sequential matrix diagonalisation on the models (CSV, PNG)\n"
               "  experiment lu-ir [options]\n"
               "                      mixed-precision iterative refinement with the unit's LU\n"
               "                      (CSV, PNG); mmaemu experiment lu-ir --help\n"
               "  distinguish A B [options]\n"
               "                      inputs on which two units differ, shrunk to a shortest\n"
               "                      one; mmaemu distinguish --help\n"
               "  dot MODEL... --a LIST --b LIST [--c X] [--input F] [--output O]\n"
               "                      one test vector on many units\n"
               "  explain MODEL --a LIST --b LIST [--c X] [--vs MODEL2] [--svg FILE]\n"
               "                      one dot product as the unit computes it, stage by stage;\n"
               "                      mmaemu explain --help\n"
               "  sweep [options] -- PROGRAM ARGS...\n"
               "                      run a program natively and under GPU settings (BLAS shim),\n"
               "                      compare its outputs; mmaemu sweep --help\n");
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const std::string cmd = argv[1];
  const std::vector<std::string> args(argv + 2, argv + argc);
  if (cmd == "models") return cmd_models(args);
  if (cmd == "validate") return cmd_validate(args);
  if (cmd == "probe") return cli::cmd_probe(args, std::cout, std::cerr);
  if (cmd == "compare") return experiments::cmd_compare(args, std::cout, std::cerr);
  if (cmd == "experiment") return experiments::cmd_experiment(args, std::cout, std::cerr);
  if (cmd == "distinguish") return experiments::cmd_distinguish(args, std::cout, std::cerr);
  if (cmd == "dot") return experiments::cmd_dot(args, std::cout, std::cerr);
  if (cmd == "explain") return experiments::cmd_explain(args, std::cout, std::cerr);
  if (cmd == "sweep") return experiments::cmd_sweep(args, std::cerr);
  if (cmd == "-h" || cmd == "--help" || cmd == "help") {
    usage(stdout);
    return 0;
  }
  std::fprintf(stderr, "mmaemu: unknown command '%s'\n", cmd.c_str());
  usage(stderr);
  return 2;
}
