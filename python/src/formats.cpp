// SPDX-License-Identifier: BSD-3-Clause
// formats(), convert() and decode(): conversions by the C API's
// mmaemu_convert, on arrays of any shape.
#include <string>
#include <vector>

#include "common.h"

namespace mmaemu_py {
namespace {

py::array convert_array(const py::array& x, mmaemu_format from, mmaemu_format to, mmaemu_rounding r,
                        bool saturate) {
  const py::array in = py::array::ensure(as_storage(x, from, "x"), py::array::c_style);
  py::array out(storage_dtype(to), std::vector<py::ssize_t>(in.shape(), in.shape() + in.ndim()));
  const void* src = in.data();
  void* dst = out.mutable_data();
  const auto n = static_cast<std::size_t>(in.size());
  int status;
  {
    py::gil_scoped_release release;
    status = mmaemu_convert(from, to, src, dst, n, r, saturate ? 1 : 0);
  }
  check(status);
  return out;
}

}  // namespace

mmaemu_rounding rounding_arg(const std::string& name) {
  static const char* const kNames[] = {"rne", "rz", "rd", "ru", "rna"};  // mmaemu_rounding order
  for (int i = 0; i < 5; ++i)
    if (name == kNames[i]) return static_cast<mmaemu_rounding>(i);
  throw py::value_error("unknown rounding '" + name + "' (valid: rne, rz, rd, ru, rna)");
}

mmaemu_format operand_format(const py::array& x, const py::object& named, const char* arg, const char* format_arg_name) {
  if (!named.is_none()) return format_arg(str_arg(named, format_arg_name));
  const char kind = x.dtype().kind();
  const auto size = x.dtype().itemsize();
  if (kind == 'f' && size == 8) return MMAEMU_FP64;
  if (kind == 'f' && size == 4) return MMAEMU_FP32;
  if (kind == 'f' && size == 2) return MMAEMU_FP16;
  if (kind == 'u' && (size == 1 || size == 2))
    throw py::type_error(std::string(arg) + " holds codes (" + std::string(py::str(py::handle(x.dtype()))) +
                         "): name their format with " + format_arg_name + "='fp16', 'bf16', 'e4m3', ...");
  throw py::type_error(std::string(arg) + " has dtype " + std::string(py::str(py::handle(x.dtype()))) +
                       ": expected float64, float32, float16, or uint8/uint16 codes with " + format_arg_name);
}

py::array as_storage(const py::array& x, mmaemu_format f, const char* arg) {
  py::array a = x;
  if (a.dtype().kind() == 'f' && a.dtype().itemsize() == 2 && f == MMAEMU_FP16) a = a.view("uint16");
  check_dtype(a, storage_dtype(f), arg, std::string("to hold ") + format_name(f) + ",");
  return a;
}

mmaemu_format format_arg(const std::string& name) {
  mmaemu_format f;
  check(mmaemu_format_parse(name.c_str(), &f));
  return f;
}

const char* format_name(mmaemu_format f) { return mmaemu_format_name(f); }

py::dtype storage_dtype(mmaemu_format f) {
  switch (mmaemu_format_storage_bytes(f)) {
    case 8: return py::dtype("float64");
    case 4: return py::dtype("float32");
    case 2: return py::dtype("uint16");
    case 1: return py::dtype("uint8");
  }
  throw py::value_error("invalid format");
}

void check_dtype(const py::array& a, const py::dtype& want, const char* arg, const std::string& why) {
  if (!a.dtype().is(want))
    throw py::type_error(std::string(arg) + " has dtype " + std::string(py::str(py::handle(a.dtype()))) + "; " + why +
                         " it must be " + std::string(py::str(py::handle(want))));
}

void bind_formats(py::module_& m) {
  m.def(
      "formats",
      [] {
        std::vector<std::string> names;
        for (int f = 0; mmaemu_format_name(f); ++f) names.emplace_back(mmaemu_format_name(f));
        return names;
      },
      "Names of every storage and unit format, in the C API's order.");
  m.def(
      "storage_dtype", [](const py::object& fmt) { return storage_dtype(format_arg(str_arg(fmt, "fmt"))); },
      py::arg("fmt"),
      "The numpy dtype holding values of a format: float64 (fp64), float32 (fp32, tf32), uint16 or uint8 (codes).");
  m.def(
      "convert",
      [](const py::object& x_obj, const py::object& to, const py::object& rounding, const py::object& saturate,
         const py::object& source) {
        const py::array x = array_arg(x_obj, "x");
        const mmaemu_format from = operand_format(x, source, "x", "source");
        return convert_array(x, from, format_arg(str_arg(to, "to")), rounding_arg(str_arg(rounding, "rounding")),
                             bool_arg(saturate, "saturate"));
      },
      py::arg("x"), py::arg("to"), py::arg("rounding") = "rne", py::arg("saturate") = false,
      py::arg("source") = py::none(),
      "Converts x to format `to` with `rounding` (rne, rz, rd, ru, rna); saturate=True sends overflow to the "
      "largest finite value (SATFINITE) instead of Inf (NaN where `to` has no Inf). x is float64, float32 or "
      "float16, or codes of the format named by `source`. Returns `to`'s storage: float64, float32, or "
      "uint16/uint8 codes. Non-contiguous x is copied.");
  m.def(
      "decode",
      [](const py::object& codes, const py::object& fmt) {
        return convert_array(array_arg(codes, "codes"), format_arg(str_arg(fmt, "fmt")), MMAEMU_FP64, MMAEMU_RNE,
                             false);
      },
      py::arg("codes"), py::arg("fmt"), "The exact values (float64) of codes of format `fmt`.");
}

}  // namespace mmaemu_py
