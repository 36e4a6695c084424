// SPDX-License-Identifier: BSD-3-Clause
// probe() and compare(): the `mmaemu probe` and `mmaemu compare` commands
// as Python values. They are analyses of the models, not GEMMs, and live in
// the internal libraries of probe and experiments (linked into
// _mmaemu_internal over libmmaemu.so; internal.cpp), so the Python results
// are the CLI's.
#include <sstream>
#include <string>
#include <vector>

#include "common.h"
#include "experiments/compare.h"
#include "experiments/matrix.h"
#include "models/model.h"
#include "probe/integer_probe.h"
#include "probe/probe.h"

namespace mmaemu_py {
namespace {

using namespace mmaemu;

mmaemu::Model registry_lookup(const std::string& name) {
  lookup(name);  // the C API's error for a bad name
  return lookup_model(name);
}

Fmt fmt_arg(const std::string& name) { return static_cast<Fmt>(format_arg(name)); }

// Feature values: bool, int, or the names the CLI prints ("none": no floor,
// no cut-off); None when the tests cannot tell (n/a).
py::object value(bool b) { return py::bool_(b); }
py::object value(int v) { return py::int_(v); }
template <typename E>
py::object value(E e) { return py::str(probe::name(e)); }

struct Report {
  py::dict features, notes;
  template <typename T, typename F>
  void add(const char* key, const probe::Det<T>& d, F&& show) {
    features[key] = d.known ? show(d.value) : py::object(py::none());
    notes[key] = d.note;
  }
  template <typename T>
  void add(const char* key, const probe::Det<T>& d) {
    add(key, d, [](const T& v) { return value(v); });
  }
};

// The integer formats of "int8" or "int8,uint8" (A's, B's); false when the
// input names no integer format.
bool integer_input(const std::string& input, Fmt& fa, Fmt& fb) {
  const std::size_t comma = input.find(',');
  const auto a = parse_int_fmt(input.substr(0, comma));
  if (!a || *a == Fmt::s32) return false;
  const auto b = comma == std::string::npos ? a : parse_int_fmt(input.substr(comma + 1));
  if (!b || *b == Fmt::s32)
    throw py::value_error("input = '" + input + "': B's format is not an integer input (valid: int8, uint8, int4, uint4)");
  fa = *a, fb = *b;
  return true;
}

// The integer probe (probe/integer_probe.h) through the C API.
py::dict probe_integer(const ModelHandle& model, Fmt fa, Fmt fb, const py::object& output,
                       const py::object& instr_obj) {
  if (!instr_obj.is_none()) throw py::value_error("instr does not apply to the integer units");
  if (!output.is_none() && parse_int_fmt(str_arg(output, "output")) != Fmt::s32)
    throw py::value_error("output = '" + str_arg(output, "output") + "': the integer units give int32 (s32)");
  probe::IntegerBox box;
  probe::IntegerFeatures f;
  try {
    py::gil_scoped_release release;
    box = probe::integer_black_box(model.get(), fa, fb, false);
    f = probe::detect_integer(model.get(), fa, fb);
  } catch (const std::invalid_argument&) {
    check(MMAEMU_ERR_UNSUPPORTED);  // the C API's message
  }
  Report r;
  r.features["accepted"] = f.accepted;
  r.notes["accepted"] = "the A x B formats mmaemu_tile_shape_int takes for the model";
  r.add("a_twos_complement", f.a_twos_complement);
  r.add("b_twos_complement", f.b_twos_complement);
  r.add("exact", f.exact);
  r.add("overflow", f.overflow, [](IntOverflow o) { return py::str(o == IntOverflow::wrap ? "wrap" : "satfinite"); });
  r.add("has_satfinite", f.has_satfinite);
  r.add("satfinite", f.satfinite, [](IntOverflow o) { return py::str(o == IntOverflow::wrap ? "wrap" : "satfinite"); });
  r.add("sat_point", f.sat_point,
        [](SatPoint p) { return py::str(p == SatPoint::instruction ? "instruction" : "addition"); });
  std::ostringstream text;
  probe::print_integer(text, f, box, mmaemu_model_name(model.get()));
  py::dict d;
  d["model"] = mmaemu_model_name(model.get());
  d["instruction"] = py::none();
  d["input"] = info(fa).name;
  d["b_input"] = info(fb).name;
  d["output"] = "s32";
  d["shape"] = py::make_tuple(box.m, box.n, box.k);
  d["k"] = box.k;
  d["calls"] = f.calls;
  d["features"] = r.features;
  d["notes"] = r.notes;
  d["anomalies"] = py::list();
  d["report"] = text.str();
  return d;
}

py::dict probe_dict(const py::handle& model_obj, const py::object& input_obj, const py::object& output,
                    const py::object& instr_obj) {
  Fmt fa, fb;
  if (integer_input(str_arg(input_obj, "input"), fa, fb)) return probe_integer(model_arg(model_obj), fa, fb, output, instr_obj);
  const std::string model_name = model_arg(model_obj).spec;
  const mmaemu::Model m = registry_lookup(model_name);
  const Fmt in = fmt_arg(str_arg(input_obj, "input"));
  const Fmt out = output.is_none() ? (in == Fmt::fp32 || in == Fmt::fp64 ? in : Fmt::fp32)
                                   : fmt_arg(str_arg(output, "output"));
  const std::string instr = instr_obj.is_none() ? "" : str_arg(instr_obj, "instr");
  const ModelRow* row = instr_obj.is_none() ? m.find(in, out) : m.find_instr(instr, in, out);
  if (!row) {  // the C API's message for a missing unit
    int mm, nn, kk;
    check(mmaemu_tile_shape(lookup(model_name).get(), static_cast<mmaemu_format>(in),
                            static_cast<mmaemu_format>(out), &mm, &nn, &kk));
    throw py::value_error(m.name + " has no instruction '" + instr +
                          "' for " + info(in).name + " -> " + info(out).name);
  }
  probe::Features f;
  {
    py::gil_scoped_release release;
    f = probe::detect(probe::black_box(*row));
  }
  Report r;
  r.add("nan", f.nan, [](uint64_t b) { return py::int_(b); });
  r.add("inf_operand", f.inf_operand);
  r.add("inf_minus_inf_nan", f.inf_minus_inf_nan);
  r.add("zero_times_inf_nan", f.zero_times_inf_nan);
  r.add("overflow_inf", f.overflow_inf);
  r.add("prd_ovf", f.prd_ovf);
  r.add("in_sub", f.in_sub);
  r.add("out_sub", f.out_sub);
  r.add("flush_sign", f.flush_sign);
  r.add("reads_c", f.reads_c);
  r.add("accum", f.accum);
  r.add("block", f.block);
  r.add("grouping", f.grouping);
  r.add("pair_group", f.pair_group);
  r.add("as_fp16", f.as_fp16);
  r.add("frac", f.frac);
  r.add("alignment", f.alignment);
  r.add("exact_normalisation", f.exact_normalisation);
  r.add("product", f.product);
  r.add("out_frac", f.out_frac);
  r.add("round", f.round);
  r.add("floor", f.floor,
        [](int e) { return e == kNoFloor ? py::object(py::str("none")) : py::object(py::int_(e)); });
  r.add("zero_c", f.zero_c, [](const probe::ZeroC& z) {
    return z.term ? py::object(py::int_(z.exp)) : py::object(py::str("ignored"));
  });
  r.add("c", f.c);
  r.add("late_rd", f.late_rd);
  r.add("late_round", f.late_round);
  r.add("cutoff", f.cutoff,
        [](int c) { return c < 0 ? py::object(py::str("none")) : py::object(py::int_(c)); });
  r.add("late_exact_zero_c", f.late_exact_zero_c);
  std::ostringstream text;
  probe::print(text, f, m.name + " " + row->instr);
  py::dict d;
  d["model"] = m.name;
  d["instruction"] = row->instr;
  d["input"] = info(f.in).name;
  d["output"] = info(f.out).name;
  d["k"] = f.k;
  d["calls"] = f.calls;
  d["features"] = r.features;
  d["notes"] = r.notes;
  d["anomalies"] = f.anomalies;
  d["report"] = text.str();
  return d;
}

experiments::Matrix matrix_arg(const py::handle& x_obj, const char* arg) {
  const py::array x = array_arg(x_obj, arg);
  if (x.dtype().kind() != 'f') throw py::type_error(std::string(arg) + " must be a float array (compare reads binary64 values)");
  const auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(x);
  if (a.ndim() != 2) throw py::value_error(std::string(arg) + " must be a 2-D array");
  experiments::Matrix m(static_cast<std::size_t>(a.shape(0)), static_cast<std::size_t>(a.shape(1)));
  std::copy(a.data(), a.data() + a.size(), m.v.begin());
  return m;
}

py::list compare_list(const py::object& a_in, const py::object& b_in, const py::object& models,
                      const py::object& input_obj, const py::object& output, const py::object& threads_obj) {
  const experiments::Matrix A = matrix_arg(a_in, "a"), B = matrix_arg(b_in, "b");
  const std::string input = str_arg(input_obj, "input");
  const int threads = int_arg(threads_obj, "threads");
  check_threads(threads);
  if (A.cols != B.rows) throw py::value_error("a and b: inner dimensions differ");
  std::vector<mmaemu::Model> list;
  if (models.is_none())
    for (std::size_t i = 0; i < mmaemu_model_count(); ++i) list.push_back(registry_lookup(mmaemu_model_list(i)));
  else if (!py::isinstance<py::str>(models) && !py::isinstance<py::iterable>(models))
    throw py::type_error("models must be a name, an mmaemu.Model or a list of them, not " + type_name(models));
  else
    for (const py::handle& h : py::isinstance<py::str>(models) ? py::list(py::make_tuple(models)) : py::list(models))
      list.push_back(registry_lookup(model_arg(h).spec));
  const Fmt in = fmt_arg(input);
  const Fmt out = output.is_none() ? (in == Fmt::fp64 ? Fmt::fp64 : Fmt::fp32) : fmt_arg(str_arg(output, "output"));
  std::vector<experiments::CompareResult> res;
  {
    py::gil_scoped_release release;
    res = experiments::run_compare(A, B, list, in, out, threads);
  }
  py::list rows;
  for (const auto& r : res) {
    py::dict d;
    d["model"] = r.model;
    d["instruction"] = r.instr;
    d["skipped"] = r.skipped;
    d["reason"] = r.reason;
    d["normwise"] = r.normwise;
    d["componentwise"] = r.componentwise;
    d["unit_only"] = r.unit_normwise;
    d["seconds"] = r.seconds;
    rows.append(d);
  }
  return rows;
}

}  // namespace

void bind_analysis(py::module_& m) {
  m.def("probe", &probe_dict, py::arg("model"), py::arg("input"), py::arg("output") = py::none(),
        py::arg("instr") = py::none(), "See mmaemu.probe.");
  m.def("compare", &compare_list, py::arg("a"), py::arg("b"), py::arg("models") = py::none(), py::kw_only(),
        py::arg("input") = "fp16", py::arg("output") = py::none(), py::arg("threads") = 0, "See mmaemu.compare.");
}

}  // namespace mmaemu_py
