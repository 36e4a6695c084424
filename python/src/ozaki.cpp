// SPDX-License-Identifier: BSD-3-Clause
// fp64 GEMM by an Ozaki scheme (mmaemu_dgemm_ex; docs/ozaki.md): float64
// operands, the scheme and its unit, the exactness check's counts.
#include <algorithm>
#include <string>

#include "common.h"

namespace mmaemu_py {

namespace {

py::tuple dgemm_ozaki(const py::object& a_obj, const py::object& b_obj, const py::handle& model_obj,
                      const std::string& scheme, const std::string& input, const std::string& schedule, int threads,
                      bool check_products, const py::object& c_in, double alpha, double beta) {
  const py::array a_any = array_arg(a_obj, "a"), b_any = array_arg(b_obj, "b");
  const ModelHandle model = model_arg(model_obj);
  check_2d(a_any, "a");
  check_2d(b_any, "b");
  check_dtype(a_any, py::dtype::of<double>(), "a", "for an Ozaki scheme (fp64 emulated)");
  check_dtype(b_any, py::dtype::of<double>(), "b", "for an Ozaki scheme (fp64 emulated)");
  if (a_any.shape(1) != b_any.shape(0))
    throw py::value_error("a is " + std::to_string(a_any.shape(0)) + " x " + std::to_string(a_any.shape(1)) +
                          " but b is " + std::to_string(b_any.shape(0)) + " x " + std::to_string(b_any.shape(1)) +
                          ": inner dimensions differ");
  check_threads(threads);
  const Layout la = layout_of(a_any, "a"), lb = layout_of(b_any, "b");
  const int m = dim(a_any.shape(0), "m"), k = dim(a_any.shape(1), "k"), n = dim(b_any.shape(1), "n");
  py::array_t<double> d({a_any.shape(0), b_any.shape(1)});
  if (beta != 0.0) {
    if (c_in.is_none()) throw py::value_error("beta != 0 needs c");
    const py::array c = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(c_in);
    if (!c || c.ndim() != 2 || c.shape(0) != a_any.shape(0) || c.shape(1) != b_any.shape(1))
      throw py::value_error("c must be a float64 " + std::to_string(m) + " x " + std::to_string(n) + " array");
    py::module_::import("numpy").attr("copyto")(d, c);
  }
  mmaemu_dgemm_options opt;
  mmaemu_dgemm_options_init(&opt);
  opt.scheme = scheme.c_str();
  opt.input = format_arg(input);
  opt.schedule = schedule.c_str();
  opt.threads = threads;
  opt.check = check_products ? 1 : 0;
  mmaemu_ozaki_stats stats{};
  const double* pa = static_cast<const double*>(a_any.data());
  const double* pb = static_cast<const double*>(b_any.data());
  double* pd = d.mutable_data();
  int status;
  {
    py::gil_scoped_release release;
    status = mmaemu_dgemm_ex(model.get(), &opt, MMAEMU_ROW_MAJOR, la.trans, lb.trans, m, n, k, alpha, pa,
                             std::max(1, la.ld), pb, std::max(1, lb.ld), beta, pd, std::max(1, n), &stats);
  }
  check(status);
  py::dict counts;
  counts["products"] = stats.products;
  counts["product_elements"] = stats.product_elements;
  counts["inexact_product_elements"] = stats.inexact_product_elements;
  counts["inexact_outputs"] = stats.inexact_outputs;
  counts["checked"] = stats.checked != 0;
  return py::make_tuple(d, counts);
}

}  // namespace

void bind_ozaki(py::module_& m) {
  m.def("dgemm_ozaki", &dgemm_ozaki, py::arg("a"), py::arg("b"), py::arg("model"), py::arg("scheme"),
        py::arg("input"), py::arg("schedule"), py::arg("threads"), py::arg("check"), py::arg("c"), py::arg("alpha"),
        py::arg("beta"), "See mmaemu.matmul (scheme=).");
}

}  // namespace mmaemu_py
