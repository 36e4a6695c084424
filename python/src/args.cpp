// SPDX-License-Identifier: BSD-3-Clause
// Arguments taken as Python objects and converted here: a wrong type is a
// TypeError naming the argument and what it got (not pybind11's list of
// signatures), and a string with a NUL byte is refused (the C API would
// read it cut at the NUL).
#include <climits>
#include <stdexcept>
#include <string>

#include "common.h"

namespace mmaemu_py {

std::string type_name(const py::handle& x) { return py::str(py::type::of(x).attr("__name__")); }

namespace {

[[noreturn]] void wrong_type(const py::handle& x, const char* arg, const char* want) {
  throw py::type_error(std::string(arg) + " must be " + want + ", not " + type_name(x));
}

}  // namespace

py::array array_arg(const py::handle& x, const char* arg) {
  if (!py::isinstance<py::array>(x)) wrong_type(x, arg, "a numpy array");
  return py::reinterpret_borrow<py::array>(x);
}

std::string str_arg(const py::handle& x, const char* arg) {
  if (!py::isinstance<py::str>(x)) wrong_type(x, arg, "a str");
  std::string s = x.cast<std::string>();
  if (s.find('\0') != std::string::npos)
    throw py::value_error(std::string(arg) + " holds a NUL byte at position " + std::to_string(s.find('\0')) +
                          " ('" + s.substr(0, s.find('\0')) + "\\x00...'); names never do");
  return s;
}

double float_arg(const py::handle& x, const char* arg) {
  if (py::isinstance<py::str>(x) || py::isinstance<py::bytes>(x)) wrong_type(x, arg, "a number");
  const double v = PyFloat_AsDouble(x.ptr());
  if (v == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    wrong_type(x, arg, "a number");
  }
  return v;
}

int int_arg(const py::handle& x, const char* arg) {
  PyObject* i = PyNumber_Index(x.ptr());  // int, numpy integers; not float or str
  if (!i) {
    PyErr_Clear();
    wrong_type(x, arg, "an integer");
  }
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(i, &overflow);
  Py_DECREF(i);
  if (overflow || v < INT_MIN || v > INT_MAX)
    throw py::value_error(std::string(arg) + " = " + std::string(py::str(x)) + " exceeds the C API's int range");
  return static_cast<int>(v);
}

void check_threads(int threads) {  // the library's own rule and message (driver::check_threads)
  if (threads < 0 || threads > MMAEMU_MAX_THREADS)
    throw py::value_error("threads = " + std::to_string(threads) + ": not a whole number from 0 to " +
                          std::to_string(MMAEMU_MAX_THREADS) + " (0: MMA_NUM_THREADS, OMP_NUM_THREADS, all cores)");
}

bool bool_arg(const py::handle& x, const char* arg) {
  if (py::isinstance<py::bool_>(x) || py::isinstance(x, py::module_::import("numpy").attr("bool_")))
    return x.cast<bool>();
  if (PyObject* i = PyNumber_Index(x.ptr())) {  // 0 and 1 as ints
    const int truth = PyObject_IsTrue(i);
    Py_DECREF(i);
    return truth == 1;
  }
  PyErr_Clear();
  wrong_type(x, arg, "True or False");
}

}  // namespace mmaemu_py
