// SPDX-License-Identifier: BSD-3-Clause
// Errors, models() and Model: names and the unit table (instruction, shape,
// parameters: mmaemu_model_unit*) through the C API.
#include <cstdlib>
#include <string>
#include <vector>

#include "common.h"

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

// A parameter's value: an int where the text is a decimal integer, None
// for "none" (no floor, no cut-off), else the text ("aligned", "0xffc00000").
py::object parameter_value(const std::string& v) {
  if (v == "none") return py::none();
  char* end = nullptr;
  const long long x = std::strtoll(v.c_str(), &end, 10);
  if (!v.empty() && end == v.c_str() + v.size() && v.find_first_of("xX") == std::string::npos) return py::int_(x);
  return py::str(v);
}

// "key=value key=value ..." (mmaemu_model_unit_parameters) as a dict.
py::dict parameter_dict(const std::string& text) {
  py::dict d;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t end = text.find(' ', i);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(i, end - i);
    const std::size_t eq = word.find('=');
    if (eq != std::string::npos) d[py::str(word.substr(0, eq))] = parameter_value(word.substr(eq + 1));
    i = end + 1;
  }
  return d;
}

// mmaemu.Model: a looked-up model, immutable.
struct PyModel {
  ModelHandle h;
  std::string name() const { return mmaemu_model_name(h.get()); }
  py::list units() const {
    py::list out;
    for (size_t i = 0; i < mmaemu_model_unit_count(h.get()); ++i) {
      mmaemu_unit_info info;
      check(mmaemu_model_unit(h.get(), i, &info));
      size_t length = 0;
      check(mmaemu_model_unit_parameters(h.get(), i, nullptr, 0, &length));
      std::string text(length + 1, '\0');
      check(mmaemu_model_unit_parameters(h.get(), i, text.data(), text.size(), &length));
      text.resize(length);
      py::dict u;
      u["input"] = mmaemu_format_name(info.input);
      u["output"] = mmaemu_format_name(info.output);
      u["instruction"] = info.instruction;
      u["shape"] = py::make_tuple(info.m, info.n, info.k);
      u["gemm_default"] = info.gemm_default != 0;
      u["parameters"] = parameter_dict(text);
      out.append(u);
    }
    return out;
  }
  py::tuple tile_shape(const py::object& input, const py::object& output) const {
    const std::string in = str_arg(input, "input");
    if (is_int_input(in)) {  // the integer unit: s32 results
      if (!output.is_none() && str_arg(output, "output") != "int32" && str_arg(output, "output") != "s32")
        throw py::value_error("output = '" + str_arg(output, "output") + "': the integer input '" + in +
                              "' gives int32 (s32) results");
      return int_tile_shape(h, in);
    }
    int m = 0, n = 0, k = 0;
    check(mmaemu_tile_shape(h.get(), format_arg(in), format_arg(output.is_none() ? "fp32" : str_arg(output, "output")),
                            &m, &n, &k));
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
                             "its block-FMA units: input, output, instruction, shape (m, n, k), gemm_default, parameters"
                             " (the fields its accumulation path reads, as custom: models name them)")
      .def_property_readonly("default_policy", &PyModel::default_policy,
                             "the sgemm input policy a vendor BLAS uses on it")
      .def("tile_shape", &PyModel::tile_shape, py::arg("input"), py::arg("output") = py::none(),
           "(m, n, k) of the instruction a GEMM uses for (input, output); output None: fp32, or int32 for an "
           "integer input (int8, uint8, int4, uint4)")
      .def("__repr__", [](const PyModel& p) { return "mmaemu.Model('" + p.h.spec + "')"; });
}

}  // namespace mmaemu_py
