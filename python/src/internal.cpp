// SPDX-License-Identifier: BSD-3-Clause
// _mmaemu_internal: the part of the Python package that reads libmmaemu's
// internal libraries, which the C API does not cover: probe(), compare()
// (analysis.cpp: the `mmaemu probe` and `mmaemu compare` commands) and
// distinguish() (distinguish.cpp). It reads them through the internal
// target mmaemu_internal, over the engine of libmmaemu.so (docs/building.md,
// "Internal C++ target"): like _mmaemu, it holds no engine of its own.
// _mmaemu imports this module the first time one of these is used. The
// common.h helpers that analysis.cpp calls are defined here on the C API
// (the exceptions are _mmaemu's).
#include <string>

#include "common.h"

namespace mmaemu_py {
namespace {

PyObject* g_errors = nullptr;  // mmaemu._mmaemu (its exception types, Model), held for the process

}  // namespace

[[noreturn]] void raise_status(int status, const std::string& what) {
  const std::string msg = what.empty() ? mmaemu_last_error() : what + ": " + mmaemu_last_error();
  const char* type = status == MMAEMU_ERR_UNKNOWN_MODEL ? "UnknownModelError"
                     : status == MMAEMU_ERR_UNSUPPORTED ? "UnsupportedError"
                                                        : "Error";
  PyObject* exc = status == MMAEMU_ERR_NO_MEMORY  ? PyExc_MemoryError
                  : status == MMAEMU_ERR_INTERNAL ? PyExc_RuntimeError
                                                  : py::handle(g_errors).attr(type).ptr();
  PyErr_SetString(exc, msg.c_str());
  throw py::error_already_set();
}

ModelHandle lookup(const std::string& name) {
  mmaemu_model* raw = nullptr;
  check(mmaemu_model_lookup(name.c_str(), &raw));
  return ModelHandle{std::shared_ptr<mmaemu_model>(raw, mmaemu_model_free), name};
}

// A name, or an mmaemu.Model (by the name it was looked up with).
ModelHandle model_arg(const py::handle& model) {
  if (py::isinstance<py::str>(model)) return lookup(model.cast<std::string>());
  if (py::isinstance(model, py::handle(g_errors).attr("Model"))) return lookup(model.attr("spec").cast<std::string>());
  throw py::type_error("model must be a name (str) or an mmaemu.Model, not " +
                       std::string(py::str(py::type::of(model).attr("__name__"))));
}

mmaemu_format format_arg(const std::string& name) {
  mmaemu_format f;
  check(mmaemu_format_parse(name.c_str(), &f));
  return f;
}

}  // namespace mmaemu_py

PYBIND11_MODULE(_mmaemu_internal, m) {
  m.doc() = "libmmaemu: probe, compare and distinguish, from the internal libraries (compiled part)";
  mmaemu_py::g_errors = pybind11::module_::import("mmaemu._mmaemu").release().ptr();
  mmaemu_py::bind_analysis(m);
  mmaemu_py::bind_distinguish(m);
}
