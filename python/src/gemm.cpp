// SPDX-License-Identifier: BSD-3-Clause
// matmul() and tile(): argument checks and translation to mmaemu_gemm and
// mmaemu_tile, which run with the GIL released.
#include <algorithm>
#include <climits>
#include <cstring>
#include <string>
#include <vector>

#include "common.h"

namespace mmaemu_py {

int dim(py::ssize_t v, const char* what) {
  if (v > INT_MAX) throw py::value_error(std::string(what) + " = " + std::to_string(v) + " exceeds the C API's int range");
  return static_cast<int>(v);
}

Layout layout_of(const py::array& x, const char* arg) {
  const bool c = x.flags() & py::array::c_style, f = x.flags() & py::array::f_style;
  if (c) return {MMAEMU_NO_TRANS, std::max(1, dim(x.shape(1), "a dimension"))};
  if (f) return {MMAEMU_TRANS, std::max(1, dim(x.shape(0), "a dimension"))};
  throw py::value_error(std::string(arg) + " is not contiguous (a strided view); pass np.ascontiguousarray(" + arg +
                        ")");
}

void check_2d(const py::array& x, const char* arg) {
  if (x.ndim() != 2)
    throw py::value_error(std::string(arg) + " must be a 2-D array (m x k, k x n); it has " +
                          std::to_string(x.ndim()) + " dimensions");
}

mmaemu_accumulate accumulate_arg(const std::string& a) {
  mmaemu_accumulate mode;
  if (mmaemu_accumulate_parse(a.c_str(), &mode) != MMAEMU_OK) throw py::value_error(mmaemu_last_error());
  return mode;
}

namespace {

// The accumulate modes' names, from the C API's table; blas_only: those
// that keep the BLAS contract (the shim's MMA_ACCUMULATE).
py::list accumulate_modes(bool blas_only) {
  py::list names;
  for (int mode = 0; const char* name = mmaemu_accumulate_name(mode); ++mode)
    if (!blas_only || mmaemu_accumulate_keeps_blas(mode)) names.append(name);
  return names;
}

bool is_value_format(mmaemu_format f) { return f == MMAEMU_FP64 || f == MMAEMU_FP32; }

// input=: a policy ("fp16", "tf32:rna", ...) or fp64; None: the operands'
// code format, else the model's sgemm default policy.
// An fp64 output with no input named means the fp64 unit.
void set_input(mmaemu_gemm_options& opt, const ModelHandle& model, const py::object& input) {
  std::string policy;
  if (!input.is_none()) policy = str_arg(input, "input");
  else if (opt.output == MMAEMU_FP64) policy = "fp64";
  else if (opt.a_storage == opt.b_storage && !is_value_format(opt.a_storage)) policy = format_name(opt.a_storage);
  else policy = mmaemu_default_policy(model.get());
  mmaemu_format f;
  if (mmaemu_format_parse(policy.c_str(), &f) == MMAEMU_OK && f == MMAEMU_FP64) {
    opt.input = MMAEMU_FP64;
    return;
  }
  check(mmaemu_parse_policy(policy.c_str(), &opt), "input");
}

py::array matmul(const py::object& a_obj, const py::object& b_obj, const py::handle& model_obj, const py::object& input,
                 const py::object& output, const py::object& c_in, const py::object& alpha_obj,
                 const py::object& beta_obj, const py::object& accumulate_obj, const py::object& rounding,
                 const py::object& saturate, const py::object& a_format, const py::object& b_format,
                 const py::object& c_format, const py::object& threads_obj, const py::object& schedule_obj) {
  const py::array a_in = array_arg(a_obj, "a"), b_in = array_arg(b_obj, "b");
  const double alpha = float_arg(alpha_obj, "alpha"), beta = float_arg(beta_obj, "beta");
  const std::string accumulate = str_arg(accumulate_obj, "accumulate"), schedule = str_arg(schedule_obj, "schedule");
  const int threads = int_arg(threads_obj, "threads");
  const ModelHandle model = model_arg(model_obj);
  check_2d(a_in, "a");
  check_2d(b_in, "b");
  if (a_in.shape(1) != b_in.shape(0))
    throw py::value_error("a is " + std::to_string(a_in.shape(0)) + " x " + std::to_string(a_in.shape(1)) +
                          " but b is " + std::to_string(b_in.shape(0)) + " x " + std::to_string(b_in.shape(1)) +
                          ": inner dimensions differ");
  check_threads(threads);
  mmaemu_gemm_options opt;
  mmaemu_gemm_options_init(&opt);
  opt.a_storage = operand_format(a_in, a_format, "a", "a_format");
  opt.b_storage = operand_format(b_in, b_format, "b", "b_format");
  const py::array a = as_storage(a_in, opt.a_storage, "a"), b = as_storage(b_in, opt.b_storage, "b");
  if (!output.is_none()) opt.output = format_arg(str_arg(output, "output"));
  set_input(opt, model, input);
  if (!rounding.is_none()) opt.input_rounding = rounding_arg(str_arg(rounding, "rounding"));
  if (!saturate.is_none()) opt.saturate = bool_arg(saturate, "saturate") ? 1 : 0;
  if (output.is_none()) opt.output = opt.input == MMAEMU_FP64 ? MMAEMU_FP64 : MMAEMU_FP32;
  opt.accumulate = accumulate_arg(accumulate);
  opt.threads = threads;
  opt.schedule = schedule.c_str();  // "chain", "promote:128", "splitk:4", ...: checked by mmaemu_gemm
  // C and the result: values (float32/float64) for float operands, codes of
  // the output format for code operands, unless c_format says otherwise.
  const bool float_operands = is_value_format(opt.a_storage) && is_value_format(opt.b_storage);
  if (!c_in.is_none() && !py::isinstance<py::array>(c_in)) throw py::type_error("c must be a numpy array");
  if (!c_format.is_none()) opt.c_storage = format_arg(str_arg(c_format, "c_format"));
  else if (!c_in.is_none() && py::array(c_in).dtype().kind() == 'f')
    opt.c_storage = operand_format(py::array(c_in), py::none(), "c", "c_format");
  else if (opt.output == MMAEMU_FP64) opt.c_storage = MMAEMU_FP64;
  else opt.c_storage = float_operands ? MMAEMU_FP32 : opt.output;

  const int m = dim(a.shape(0), "m"), k = dim(a.shape(1), "k"), n = dim(b.shape(1), "n");
  py::array d(storage_dtype(opt.c_storage), {a.shape(0), b.shape(1)});
  if (!c_in.is_none()) {
    const py::array c = as_storage(py::array(c_in), opt.c_storage, "c");
    if (c.ndim() != 2 || c.shape(0) != a.shape(0) || c.shape(1) != b.shape(1))
      throw py::value_error("c must be " + std::to_string(m) + " x " + std::to_string(n) + " (a's rows, b's columns)");
    py::module_::import("numpy").attr("copyto")(d, c);
  } else if (beta != 0.0) {
    throw py::value_error("beta != 0 needs c");
  }
  const Layout la = layout_of(a, "a"), lb = layout_of(b, "b");
  const void* pa = a.data();
  const void* pb = b.data();
  void* pd = d.mutable_data();
  int status;
  {
    py::gil_scoped_release release;
    status = mmaemu_gemm(model.get(), &opt, MMAEMU_ROW_MAJOR, la.trans, lb.trans, m, n, k, alpha, pa, la.ld, pb,
                         lb.ld, beta, pd, std::max(1, n));
  }
  check(status);
  return d;
}

py::array tile(const py::handle& model_obj, const py::object& a_obj, const py::object& b_obj, const py::object& c_in,
               const py::object& input, const py::object& output) {
  const ModelHandle model = model_arg(model_obj);
  const py::array a_in = array_arg(a_obj, "a"), b_in = array_arg(b_obj, "b");
  if (!c_in.is_none()) array_arg(c_in, "c");
  const mmaemu_format in = input.is_none() ? operand_format(a_in, py::none(), "a", "input")
                                           : format_arg(str_arg(input, "input"));
  const mmaemu_format out = format_arg(str_arg(output, "output"));
  int m = 0, n = 0, k = 0;
  check(mmaemu_tile_shape(model.get(), in, out, &m, &n, &k));
  auto operand = [](const py::array& x, mmaemu_format f, const char* arg, int rows, int cols) {
    const py::array s = py::array::ensure(as_storage(x, f, arg), py::array::c_style);
    if (s.ndim() != 2 || s.shape(0) != rows || s.shape(1) != cols)
      throw py::value_error(std::string(arg) + " must be " + std::to_string(rows) + " x " + std::to_string(cols) +
                            " (the instruction's shape)");
    return s;
  };
  const py::array a = operand(a_in, in, "a", m, k), b = operand(b_in, in, "b", k, n);
  py::array d(storage_dtype(out), {m, n});
  if (c_in.is_none()) std::memset(d.mutable_data(), 0, static_cast<std::size_t>(d.nbytes()));  // +0 in every format
  else py::module_::import("numpy").attr("copyto")(d, operand(py::array(c_in), out, "c", m, n));
  const void* pa = a.data();
  const void* pb = b.data();
  void* pd = d.mutable_data();
  int status;
  {
    py::gil_scoped_release release;
    status = mmaemu_tile(model.get(), in, out, pa, pb, pd, pd);
  }
  check(status);
  return d;
}

}  // namespace

void bind_gemm(py::module_& m) {
  m.def("matmul", &matmul, py::arg("a"), py::arg("b"), py::arg("model"), py::kw_only(), py::arg("input") = py::none(),
        py::arg("output") = py::none(), py::arg("c") = py::none(), py::arg("alpha") = 1.0, py::arg("beta") = 0.0,
        py::arg("accumulate") = "gpu-blas", py::arg("rounding") = py::none(), py::arg("saturate") = py::none(),
        py::arg("a_format") = py::none(), py::arg("b_format") = py::none(), py::arg("c_format") = py::none(),
        py::arg("threads") = 0, py::arg("schedule") = "chain", "See mmaemu.matmul.");
  m.def("accumulate_modes", &accumulate_modes, py::kw_only(), py::arg("blas_only") = false,
        "The accumulate modes' names (matmul's accumulate=); blas_only: those of MMA_ACCUMULATE.");
  m.def("tile", &tile, py::arg("model"), py::arg("a"), py::arg("b"), py::arg("c") = py::none(), py::kw_only(),
        py::arg("input") = py::none(), py::arg("output") = "fp32", "See mmaemu.tile.");
}

}  // namespace mmaemu_py
