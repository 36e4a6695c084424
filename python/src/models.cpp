// SPDX-License-Identifier: BSD-3-Clause
// Errors, models() and Model: names through the C API; the unit table
// (instruction, shape, parameters) from the model registry the CLI's
// `mmaemu models` prints, since the C API has no entry point listing units.
#include <string>
#include <vector>

#include "common.h"
#include "models/model.h"
#include "probe/probe.h"

namespace mmaemu_py {
namespace {

// mmaemu.Error (a ValueError) and its kinds; created once with the module.
PyObject* g_error = nullptr;
PyObject* g_unknown_model = nullptr;
PyObject* g_unsupported = nullptr;

PyObject* exception_type(int status) {
  switch (status) {
    case MMAEMU_ERR_UNKNOWN_MODEL: return g_unknown_model;
    case MMAEMU_ERR_UNSUPPORTED: return g_unsupported;
    case MMAEMU_ERR_NO_MEMORY: return PyExc_MemoryError;
    case MMAEMU_ERR_INTERNAL: return PyExc_RuntimeError;
    default: return g_error;
  }
}

// The registry's view of a model, for its unit table.
mmaemu::Model registry_model(const std::string& spec) {
  try {
    return mmaemu::lookup_model(spec);
  } catch (const std::exception& e) {  // the C API lookup accepted it: cannot happen
    throw std::runtime_error(e.what());
  }
}

py::dict unit_dict(const mmaemu::ModelRow& r) {
  using namespace mmaemu;
  py::dict params;
  params["accumulation"] = probe::name(r.accum);
  params["block"] = r.accum == Accumulation::fma_chain ? 1 : r.block;
  if (r.accum == Accumulation::aligned) {
    params["frac_bits"] = r.frac_bits;
    params["align_floor"] = r.align_floor == kNoFloor ? py::object(py::none()) : py::int_(r.align_floor);
    params["final_round"] = round_name(r.final_round);
  }
  if (r.accum == Accumulation::pairwise) params["pair_group"] = r.pair_group;
  params["result_frac_bits"] = r.result_frac_bits();
  params["product"] = probe::name(r.product);
  params["c_entry"] = probe::name(r.c_entry);
  params["grouping"] = probe::name(r.grouping);
  params["inputs_as_fp16"] = r.inputs_as_fp16;
  params["in_subnormals"] = r.in_subnormals;
  params["out_subnormals"] = r.out_subnormals;
  params["reads_c"] = !r.ignores_c;
  py::dict u;
  u["input"] = info(r.in).name;
  u["output"] = info(r.out).name;
  u["instruction"] = r.instr;
  u["shape"] = py::make_tuple(r.m, r.n, r.k);
  u["gemm_default"] = r.gemm_default;
  u["parameters"] = params;
  return u;
}

// mmaemu.Model: a looked-up model, immutable.
struct PyModel {
  ModelHandle h;
  std::string name() const { return mmaemu_model_name(h.get()); }
  py::list units() const {
    py::list out;
    for (const mmaemu::ModelRow& r : registry_model(h.spec).rows) out.append(unit_dict(r));
    return out;
  }
  py::tuple tile_shape(const py::object& input, const py::object& output) const {
    int m = 0, n = 0, k = 0;
    check(mmaemu_tile_shape(h.get(), format_arg(str_arg(input, "input")), format_arg(str_arg(output, "output")), &m,
                            &n, &k));
    return py::make_tuple(m, n, k);
  }
  std::string default_policy() const { return mmaemu_default_policy(h.get()); }
};

}  // namespace

[[noreturn]] void raise_status(int status, const std::string& what) {
  const std::string msg = what.empty() ? mmaemu_last_error() : what + ": " + mmaemu_last_error();
  PyErr_SetString(exception_type(status), msg.c_str());
  throw py::error_already_set();
}

ModelHandle lookup(const std::string& name) {
  mmaemu_model* raw = nullptr;
  check(mmaemu_model_lookup(name.c_str(), &raw));
  return ModelHandle{std::shared_ptr<mmaemu_model>(raw, mmaemu_model_free), name};
}

ModelHandle model_arg(const py::handle& model) {
  if (py::isinstance<PyModel>(model)) return model.cast<const PyModel&>().h;
  if (py::isinstance<py::str>(model)) return lookup(str_arg(model, "model"));
  throw py::type_error("model must be a name (str) or an mmaemu.Model, not " +
                       std::string(py::str(py::type::of(model).attr("__name__"))));
}

void bind_models(py::module_& m) {
  g_error = PyErr_NewExceptionWithDoc("mmaemu.Error", "An error reported by libmmaemu (the C API's message).",
                                      PyExc_ValueError, nullptr);
  g_unknown_model = PyErr_NewExceptionWithDoc("mmaemu.UnknownModelError",
                                              "No model of that name; the message lists the valid names.", g_error,
                                              nullptr);
  g_unsupported = PyErr_NewExceptionWithDoc("mmaemu.UnsupportedError",
                                            "The model has no unit for these formats; the message lists its units.",
                                            g_error, nullptr);
  m.attr("Error") = py::handle(g_error);
  m.attr("UnknownModelError") = py::handle(g_unknown_model);
  m.attr("UnsupportedError") = py::handle(g_unsupported);

  m.def("version", [] { return std::string(mmaemu_version()); }, "libmmaemu's version string.");
  m.def(
      "models",
      [] {
        std::vector<std::string> names;
        for (std::size_t i = 0; i < mmaemu_model_count(); ++i) names.emplace_back(mmaemu_model_list(i));
        return names;
      },
      "Canonical names of the registered GPU models.");

  py::class_<PyModel>(m, "Model", "A GPU model looked up by name, alias, custom:... or MODEL@INSTR.")
      .def(py::init([](const py::object& name) { return PyModel{lookup(str_arg(name, "name"))}; }), py::arg("name"))
      .def_property_readonly("name", &PyModel::name, "canonical name")
      .def_property_readonly("spec", [](const PyModel& p) { return p.h.spec; }, "the name it was looked up with")
      .def_property_readonly("units", &PyModel::units,
                             "its matrix units: input, output, instruction, shape (m, n, k), parameters")
      .def_property_readonly("default_policy", &PyModel::default_policy,
                             "the sgemm input policy a vendor BLAS uses on it")
      .def("tile_shape", &PyModel::tile_shape, py::arg("input"), py::arg("output") = "fp32",
           "(m, n, k) of the instruction a GEMM uses for (input, output)")
      .def("__repr__", [](const PyModel& p) { return "mmaemu.Model('" + p.h.spec + "')"; });
}

}  // namespace mmaemu_py
