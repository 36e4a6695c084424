// SPDX-License-Identifier: BSD-3-Clause
#include "cli/probe_cmd.h"

#include <ostream>
#include <stdexcept>

#include "experiments/common.h"
#include "models/model.h"
#include "probe/integer_probe.h"
#include "probe/probe.h"
#include "probe/scaled_probe.h"

namespace mmaemu::cli {
namespace {

const char* const kUsage =
    "usage: mmaemu probe --model M --input F [--output O] [--instr I]\n"
    "  runs the papers' feature tests on the unit of (M, F, O) through its\n"
    "  instruction only and prints what they detect; O defaults to fp32 (the\n"
    "  input format for fp32/fp64 inputs); I picks an instruction variant\n"
    "  (e.g. wgmma.scale-d=0)\n"
    "       mmaemu probe --model M --input P [--unit auto|t|st|gst]\n"
    "  the block-scaled units (docs/block-scaled.md) through the C API: P a block-scaled\n"
    "  policy (mxfp8, mxfp8:e5m2, mxfp6, mxfp6:e3m2, mxfp4, nvfp4) or e3m2, e2m3, e2m1 (the\n"
    "  unscaled unit); reports F, the group of exactly summed products and the scales\n"
    "       mmaemu probe --model M --input I[,J]\n"
    "  the integer units (docs/models.md §11) through the C API: I and J (B's, default I) s8, u8,\n"
    "  s4 or u4 (int8, uint8, int4, uint4); reports the formats the unit accepts, how it reads\n"
    "  a top-bit code, the exact sum, the overflow rule, the .satfinite variant and its clamp\n"
    "  point; --output, if given, is s32\n";

std::string unit_list(const Model& m) {
  std::string s;
  for (const ModelRow& r : m.rows) {
    if (!s.empty()) s += ", ";
    s += std::string(info(r.in).name) + "->" + info(r.out).name + " (" + r.instr + ")";
  }
  return s;
}

// A block-scaled policy, or an fp6/fp4 element format (the unscaled unit).
bool scaled_desc(const std::string& input, mmaemu_block_scale_desc& d) {
  if (mmaemu_parse_block_scaled_policy(input.c_str(), &d) == MMAEMU_OK) return true;
  const auto f = parse_fmt(input);
  if (!f || (*f != Fmt::e3m2 && *f != Fmt::e2m3 && *f != Fmt::e2m1)) return false;
  mmaemu_block_scale_desc_init(&d);
  d.a_format = d.b_format = static_cast<mmaemu_format>(*f);
  d.block_size = 0;
  return true;
}

// Runs `probe` on the model named `model` through the C API: 0, or 2 with the
// error on `err` (an unknown model, or what the probe threw).
template <class Probe>
int on_model(const std::string& model, std::ostream& err, Probe&& probe) {
  mmaemu_model* h = nullptr;
  if (mmaemu_model_lookup(model.c_str(), &h) != MMAEMU_OK) {
    err << "mmaemu probe: " << mmaemu_last_error() << "\n";
    return 2;
  }
  int status = 0;
  try {
    probe(h);
  } catch (const std::exception& e) {
    err << "mmaemu probe: " << e.what() << "\n";
    status = 2;
  }
  mmaemu_model_free(h);
  return status;
}

int probe_scaled(const std::string& model, mmaemu_block_scale_desc desc, const std::string& unit, std::ostream& out,
                 std::ostream& err) {
  const char* const units[] = {"auto", "t", "st", "gst"};
  int u = unit.empty() ? 0 : -1;
  for (int i = 0; i < 4 && u < 0; ++i)
    if (unit == units[i]) u = i;
  if (u < 0) {
    err << "mmaemu probe: unknown --unit '" << unit << "' (valid: auto, t, st, gst)\n";
    return 2;
  }
  desc.unit = static_cast<mmaemu_scaled_unit>(MMAEMU_UNIT_AUTO + u);
  return on_model(model, err, [&](mmaemu_model* h) {
    const probe::ScaledBox box = probe::scaled_black_box(h, desc);
    probe::print_scaled(out, probe::detect_scaled(box), box, mmaemu_model_name(h));
  });
}

int probe_integer(const std::string& model, Fmt fa, Fmt fb, const std::string& output, const std::string& instr,
                  std::ostream& out, std::ostream& err) {
  if (!instr.empty()) {
    err << "mmaemu probe: --instr does not apply to the integer units (the C API runs the unit a GEMM uses)\n";
    return 2;
  }
  if (!output.empty() && parse_int_fmt(output) != Fmt::s32) {
    err << "mmaemu probe: --output " << output << ": the integer units give s32 (int32)\n";
    return 2;
  }
  return on_model(model, err, [&](mmaemu_model* h) {
    const probe::IntegerBox box = probe::integer_black_box(h, fa, fb, false);
    probe::print_integer(out, probe::detect_integer(h, fa, fb), box, mmaemu_model_name(h));
  });
}

}  // namespace

int cmd_probe(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::string model, input, output, instr, unit;
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
                       : a == "--unit"   ? &unit
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
  mmaemu_block_scale_desc desc;
  if (scaled_desc(input, desc)) return probe_scaled(model, desc, unit, out, err);
  Fmt fa = Fmt::s8, fb = Fmt::s8;
  try {
    if (unit.empty() && experiments::parse_integer_input("input", input, fa, fb))
      return probe_integer(model, fa, fb, output, instr, out, err);
  } catch (const experiments::UsageError& e) {
    err << "mmaemu probe: " << e.what() << "\n";
    return 2;
  }
  if (!unit.empty()) {
    err << "mmaemu probe: --unit is for the block-scaled units (--input mxfp8, ..., nvfp4, e3m2, e2m3, e2m1)\n";
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
        << "' (valid: fp64, fp32, tf32, bf16, fp16, e4m3, e5m2, e4m3fnuz, e5m2fnuz; block-scaled: mxfp8, "
           "mxfp8:e5m2, mxfp6, mxfp6:e3m2, mxfp4, nvfp4, e3m2, e2m3, e2m1; integer: s8, u8, s4, u4 or A,B)\n";
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
