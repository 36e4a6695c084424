// SPDX-License-Identifier: BSD-3-Clause
// Shared pieces of the Python module (_mmaemu): C API status -> Python
// exception, model handles, format names and numpy array checks.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <string>

#include "mmaemu/mmaemu.h"

namespace mmaemu_py {

namespace py = pybind11;

/// Raises the Python exception of a failed C API call, with its message.
[[noreturn]] void raise_status(int status, const std::string& what = "");
/// Raises if `status` is not MMAEMU_OK.
inline void check(int status, const std::string& what = "") {
  if (status != MMAEMU_OK) raise_status(status, what);
}

/// An owned C API model handle, and the name it was looked up with.
struct ModelHandle {
  std::shared_ptr<mmaemu_model> handle;
  std::string spec;  // as the user named it ("sm_90", "custom:...", "B200@mma.sync")
  const mmaemu_model* get() const { return handle.get(); }
};
ModelHandle lookup(const std::string& name);
/// A model given as a name or as an mmaemu.Model.
ModelHandle model_arg(const py::handle& model);

/// Format by name (C API parser: aliases, the list of names on error).
mmaemu_format format_arg(const std::string& name);
const char* format_name(mmaemu_format f);
/// The numpy dtype that stores format f: float64, float32, uint16 or uint8.
py::dtype storage_dtype(mmaemu_format f);

/// The storage format of array x: the one `named` (a str, or None), else
/// fp64, fp32 or fp16 for numpy's float types; codes (uint8, uint16) must be
/// named (the message says with which keyword, `format_arg_name`).
mmaemu_format operand_format(const py::array& x, const py::object& named, const char* arg,
                             const char* format_arg_name);
/// x viewed as f's storage type (float16 arrays are fp16 codes); checks the dtype.
py::array as_storage(const py::array& x, mmaemu_format f, const char* arg);
/// "rne", "rz", "rd", "ru", "rna".
mmaemu_rounding rounding_arg(const std::string& name);

/// Checks that `a` has dtype `want` (message names the argument and the
/// format it should hold).
void check_dtype(const py::array& a, const py::dtype& want, const char* arg, const std::string& why);

/// v as the C API's int; refuses larger values (message names `what`).
int dim(py::ssize_t v, const char* what);
/// Refuses an array that is not 2-D (message names the argument).
void check_2d(const py::array& x, const char* arg);
/// Row-major operand: C-contiguous as it is, Fortran-contiguous as the
/// transpose of a C-contiguous array; anything else is refused.
struct Layout {
  mmaemu_transpose trans;
  int ld;
};
Layout layout_of(const py::array& x, const char* arg);
/// A name of mmaemu_accumulate_parse: "gpu-blas", "into-c" or "blas-into-c".
mmaemu_accumulate accumulate_arg(const std::string& a);

/// Arguments are taken as objects and converted by these (args.cpp): a
/// wrong type is a TypeError naming the argument; a str holding a NUL byte
/// is a ValueError.
py::array array_arg(const py::handle& x, const char* arg);
std::string str_arg(const py::handle& x, const char* arg);
double float_arg(const py::handle& x, const char* arg);
int int_arg(const py::handle& x, const char* arg);
bool bool_arg(const py::handle& x, const char* arg);
/// Refuses a thread count outside 0 .. 4096 (as the C API and MMA_NUM_THREADS).
void check_threads(int threads);
/// The name of x's type ("list").
std::string type_name(const py::handle& x);

void bind_models(py::module_& m);
void bind_formats(py::module_& m);
void bind_gemm(py::module_& m);
void bind_analysis(py::module_& m);
void bind_scaled(py::module_& m);
void bind_batch(py::module_& m);
void bind_integer(py::module_& m);  // integer.cpp: the integer units
/// Whether `name` is an integer input (int8, uint8, int4, uint4; s8, u8, s4, u4).
bool is_int_input(const std::string& name);
/// (m, n, k) of the model's integer unit for input x input (mmaemu_tile_shape_int).
py::tuple int_tile_shape(const ModelHandle& model, const std::string& input);
void bind_ozaki(py::module_& m);
void bind_distinguish(py::module_& m);  // _mmaemu_internal

}  // namespace mmaemu_py
