// SPDX-License-Identifier: BSD-3-Clause
// _mmaemu_internal: the part of the Python package that reads libmmaemu's
// internal libraries, which the C API does not cover yet: probe() and
// compare() (analysis.cpp: the `mmaemu probe` and `mmaemu compare`
// commands) and the unit table of Model.units (the model registry, as
// `mmaemu models` prints it). It reads them through the internal target
// mmaemu_internal, over the engine of libmmaemu.so (docs/building.md,
// "Internal C++ target"): like _mmaemu, it holds no engine of its own.
// _mmaemu imports this module the first time one of these is used. The common.h helpers that analysis.cpp calls
// are defined here on the C API (the exceptions are _mmaemu's).
#include <string>

#include "common.h"
#include "models/model.h"
#include "probe/probe.h"

namespace mmaemu_py {
namespace {

PyObject* g_errors = nullptr;  // mmaemu._mmaemu (its exception types, Model), held for the process

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

// The registry's units of a model the C API has accepted.
py::list units(const std::string& spec) {
  lookup(spec);  // the C API's error for a bad name
  mmaemu::Model m;
  try {
    m = mmaemu::lookup_model(spec);
  } catch (const std::exception& e) {  // the C API lookup accepted it: cannot happen
    throw std::runtime_error(e.what());
  }
  py::list out;
  for (const mmaemu::ModelRow& r : m.rows) out.append(unit_dict(r));
  return out;
}

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
  m.doc() = "libmmaemu: probe, compare and the unit tables, from the internal libraries (compiled part)";
  mmaemu_py::g_errors = pybind11::module_::import("mmaemu._mmaemu").release().ptr();
  mmaemu_py::bind_analysis(m);
  mmaemu_py::bind_distinguish(m);
  m.def("units", &mmaemu_py::units, pybind11::arg("spec"), "The units of a model (mmaemu.Model.units).");
}
