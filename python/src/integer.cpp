// SPDX-License-Identifier: BSD-3-Clause
// The integer units (docs/models.md §11): matmul(), dot() and tile() with
// input="int8", "uint8", "int4" or "uint4": argument checks, int4 packing
// (two codes per byte along k, element 2i in the low nibble), and the C
// API's integer entries (mmaemu_gemm_int, mmaemu_dot_batch_int,
// mmaemu_tile_batch_int), which run with the GIL released.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "common.h"

namespace mmaemu_py {

mmaemu_format int_input(const std::string& name, const char* arg) {
  if (name == "int8" || name == "s8") return MMAEMU_S8;
  if (name == "uint8" || name == "u8") return MMAEMU_U8;
  if (name == "int4" || name == "s4") return MMAEMU_S4;
  if (name == "uint4" || name == "u4") return MMAEMU_U4;
  throw py::value_error(std::string(arg) + " = '" + name + "': an integer input is int8, uint8, int4 or uint4");
}

bool is_int_input(const std::string& name) {
  for (const char* n : {"int8", "s8", "uint8", "u8", "int4", "s4", "uint4", "u4"})
    if (name == n) return true;
  return false;
}

namespace {

bool is_int4(mmaemu_format f) { return f == MMAEMU_S4 || f == MMAEMU_U4; }

// The codes of an operand: x itself (C-contiguous, one code per byte: read in
// place), or for int4 a packed copy.
struct IntCodes {
  py::array held;  // (a default py::array is an empty array, not null: in_place says which)
  bool in_place = false;
  std::vector<uint8_t> packed;
  const uint8_t* data() const { return in_place ? static_cast<const uint8_t*>(held.data()) : packed.data(); }
};

// The codes of x, read as a C-contiguous (outer, k, inner) array whose k
// the unit sums along: one per byte, or int4 two per byte along k (byte
// (o*kb + l/2)*inner + i, kb = ceil(k/2)). x's dtype is int8 for signed
// inputs, uint8 for unsigned ones; int4 values are checked in range.
IntCodes int_codes(const py::array& x_in, mmaemu_format f, std::size_t outer, std::size_t k, std::size_t inner,
                   const char* arg) {
  const bool is_signed = f == MMAEMU_S8 || f == MMAEMU_S4, int4 = is_int4(f);
  if (x_in.dtype().kind() != (is_signed ? 'i' : 'u') || x_in.itemsize() != 1)
    throw py::type_error(std::string(arg) + " must be a " + (is_signed ? "int8" : "uint8") +
                         " array for this input, not " + std::string(py::str(x_in.dtype())));
  const py::array x = py::array::ensure(x_in, py::array::c_style);
  IntCodes out;
  if (!int4) {
    out.held = x, out.in_place = true;
    return out;
  }
  const auto* v = static_cast<const uint8_t*>(x.data());
  const std::size_t kb = (k + 1) / 2;
  out.packed.assign(std::max<std::size_t>(1, outer * kb * inner), 0);
  const int lo = is_signed ? -8 : 0, hi = is_signed ? 7 : 15;
  for (std::size_t o = 0; o < outer; ++o)
    for (std::size_t l = 0; l < k; ++l)
      for (std::size_t i = 0; i < inner; ++i) {
        const uint8_t c = v[(o * k + l) * inner + i];
        const int val = is_signed ? static_cast<int8_t>(c) : c;
        if (val < lo || val > hi)
          throw py::value_error(std::string(arg) + " holds " + std::to_string(val) + ", outside the 4-bit range [" +
                                std::to_string(lo) + ", " + std::to_string(hi) + "]");
        uint8_t& byte = out.packed[(o * kb + l / 2) * inner + i];
        byte = static_cast<uint8_t>(byte | ((c & 0xF) << (4 * (l & 1))));
      }
  return out;
}

mmaemu_gemm_int_options int_options(const std::string& a_input, const std::string& b_input, bool saturate,
                                    int threads) {
  check_threads(threads);
  mmaemu_gemm_int_options opt;
  mmaemu_gemm_int_options_init(&opt);
  opt.a_format = int_input(a_input, "input");
  opt.b_format = int_input(b_input, "b_format");
  opt.saturate = saturate ? 1 : 0;
  opt.threads = threads;
  return opt;
}

std::string shape_text(const py::array& x) {
  std::string t = "(";
  for (py::ssize_t i = 0; i < x.ndim(); ++i) t += (i ? ", " : "") + std::to_string(x.shape(i));
  return t + (x.ndim() == 1 ? ",)" : ")");
}

// The result: c (int32, shape `shape`) copied in, or zeros.
py::array_t<int32_t> int_result(const py::object& c_in, const std::vector<py::ssize_t>& shape, const std::string& why) {
  py::array_t<int32_t> d(shape);
  if (c_in.is_none()) {
    std::memset(d.mutable_data(), 0, static_cast<std::size_t>(d.nbytes()));
    return d;
  }
  if (!py::isinstance<py::array>(c_in)) throw py::type_error("c must be a numpy int32 array");
  const py::array c(c_in);
  if (c.dtype().kind() != 'i' || c.itemsize() != 4)
    throw py::type_error("c must be an int32 array (the s32 accumulators), not " + std::string(py::str(c.dtype())));
  if (std::vector<py::ssize_t>(c.shape(), c.shape() + c.ndim()) != shape) {
    py::array want(py::dtype("int32"), shape);
    throw py::value_error("c must have shape " + shape_text(want) + " (" + why + "); it has " + shape_text(c));
  }
  py::module_::import("numpy").attr("copyto")(d, c);
  return d;
}

py::array matmul_int(const py::object& a_obj, const py::object& b_obj, const py::handle& model_obj,
                     const std::string& a_input, const std::string& b_input, bool saturate, const py::object& c_in,
                     int threads) {
  const py::array a = array_arg(a_obj, "a"), b = array_arg(b_obj, "b");
  const ModelHandle model = model_arg(model_obj);
  check_2d(a, "a");
  check_2d(b, "b");
  if (a.shape(1) != b.shape(0))
    throw py::value_error("a is " + std::to_string(a.shape(0)) + " x " + std::to_string(a.shape(1)) + " but b is " +
                          std::to_string(b.shape(0)) + " x " + std::to_string(b.shape(1)) + ": inner dimensions differ");
  const mmaemu_gemm_int_options opt = int_options(a_input, b_input, saturate, threads);
  const int m = dim(a.shape(0), "m"), k = dim(a.shape(1), "k"), n = dim(b.shape(1), "n");
  const std::size_t mm = static_cast<std::size_t>(m), nn = static_cast<std::size_t>(n), kk = static_cast<std::size_t>(k);
  // A: m rows of k; B: k x n row-major, int4 packed along k (ceil(k/2) rows of n bytes).
  const IntCodes ac = int_codes(a, opt.a_format, mm, kk, 1, "a"), bc = int_codes(b, opt.b_format, 1, kk, nn, "b");
  const bool beta = !c_in.is_none();
  py::array_t<int32_t> d = int_result(c_in, {a.shape(0), b.shape(1)}, "m x n, the accumulators");
  const int lda = is_int4(opt.a_format) ? (k + 1) / 2 : k;
  int32_t* pd = d.mutable_data();
  const uint8_t *pa = ac.data(), *pb = bc.data();
  int status;
  {
    py::gil_scoped_release release;
    status = mmaemu_gemm_int(model.get(), &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, m, n, k, pa,
                             std::max(1, lda), pb, std::max(1, n), beta ? 1 : 0, pd, std::max(1, n));
  }
  check(status);
  return d;
}

py::array dot_int(const py::handle& model_obj, const py::array& a, const py::array& b, const py::object& c_in,
                  const std::string& a_input, const std::string& b_input, bool saturate, int threads) {
  const ModelHandle model = model_arg(model_obj);
  const mmaemu_gemm_int_options opt = int_options(a_input, b_input, saturate, threads);
  if (a.ndim() != 1 && a.ndim() != 2)
    throw py::value_error("a must be 1-D (k,) or 2-D (N, k): one dot product per row; it has " +
                          std::to_string(a.ndim()) + " dimensions");
  if (b.ndim() != a.ndim() || !std::equal(a.shape(), a.shape() + a.ndim(), b.shape()))
    throw py::value_error("b must have a's shape " + shape_text(a) + "; it has " + shape_text(b));
  const py::ssize_t count = a.ndim() == 2 ? a.shape(0) : 1, k = a.shape(a.ndim() - 1);
  if (k < 1) throw py::value_error("the dot products need k >= 1 elements");
  const int kk = dim(k, "k");
  const std::size_t n = static_cast<std::size_t>(count);
  const IntCodes ac = int_codes(a, opt.a_format, n, static_cast<std::size_t>(k), 1, "a");
  const IntCodes bc = int_codes(b, opt.b_format, n, static_cast<std::size_t>(k), 1, "b");
  const std::vector<py::ssize_t> shape = a.ndim() == 2 ? std::vector<py::ssize_t>{count} : std::vector<py::ssize_t>{};
  py::array_t<int32_t> d = int_result(c_in, shape, "one accumulator per dot product");
  int32_t* pd = d.mutable_data();
  const uint8_t *pa = ac.data(), *pb = bc.data();
  int status;
  {
    py::gil_scoped_release release;
    status = mmaemu_dot_batch_int(model.get(), &opt, n, kk, pa, pb, pd, pd);
  }
  check(status);
  return d;
}

py::array tile_int(const py::handle& model_obj, const py::array& a, const py::array& b, const py::object& c_in,
                   const std::string& a_input, const std::string& b_input, bool saturate, int threads) {
  const ModelHandle model = model_arg(model_obj);
  const mmaemu_gemm_int_options opt = int_options(a_input, b_input, saturate, threads);
  int m = 0, n = 0, k = 0;
  check(mmaemu_tile_shape_int(model.get(), &opt, &m, &n, &k));
  if (a.ndim() != 2 && a.ndim() != 3) throw py::value_error("a must be a tile (m, k) or a stack (N, m, k) of them");
  const bool stack = a.ndim() == 3;
  const py::ssize_t count = stack ? a.shape(0) : 1;
  const std::string why = "the instruction is " + std::to_string(m) + " x " + std::to_string(n) + " x " +
                          std::to_string(k) + (stack ? ", N tiles" : "");
  auto shape = [&](py::ssize_t r, py::ssize_t c) {
    return stack ? std::vector<py::ssize_t>{count, r, c} : std::vector<py::ssize_t>{r, c};
  };
  auto require = [&](const py::array& x, const std::vector<py::ssize_t>& want, const char* arg) {
    if (std::vector<py::ssize_t>(x.shape(), x.shape() + x.ndim()) != want) {
      py::array w(py::dtype("int8"), want);
      throw py::value_error(std::string(arg) + " must have shape " + shape_text(w) + " (" + why + "); it has " +
                            shape_text(x));
    }
  };
  require(a, shape(m, k), "a");
  require(b, shape(k, n), "b");
  const std::size_t cn = static_cast<std::size_t>(count), mm = static_cast<std::size_t>(m),
                    nn = static_cast<std::size_t>(n), kk = static_cast<std::size_t>(k);
  const IntCodes ac = int_codes(a, opt.a_format, cn * mm, kk, 1, "a");
  const IntCodes bc = int_codes(b, opt.b_format, cn, kk, nn, "b");
  py::array_t<int32_t> d = int_result(c_in, shape(m, n), why);
  int32_t* pd = d.mutable_data();
  const uint8_t *pa = ac.data(), *pb = bc.data();
  int status;
  {
    py::gil_scoped_release release;
    status = mmaemu_tile_batch_int(model.get(), &opt, cn, pa, pb, pd, pd);
  }
  check(status);
  return d;
}

}  // namespace

py::tuple int_tile_shape(const ModelHandle& model, const std::string& input) {
  const mmaemu_gemm_int_options opt = int_options(input, input, false, 0);
  int m = 0, n = 0, k = 0;
  check(mmaemu_tile_shape_int(model.get(), &opt, &m, &n, &k));
  return py::make_tuple(m, n, k);
}

void bind_integer(py::module_& m) {
  m.def("matmul_int", &matmul_int, py::arg("a"), py::arg("b"), py::arg("model"), py::arg("input"),
        py::arg("b_input"), py::arg("saturate"), py::arg("c"), py::arg("threads"), "See mmaemu.matmul (integer inputs).");
  m.def("dot_int", &dot_int, py::arg("model"), py::arg("a"), py::arg("b"), py::arg("c"), py::arg("input"),
        py::arg("b_input"), py::arg("saturate"), py::arg("threads"), "See mmaemu.dot (integer inputs).");
  m.def("tile_int", &tile_int, py::arg("model"), py::arg("a"), py::arg("b"), py::arg("c"), py::arg("input"),
        py::arg("b_input"), py::arg("saturate"), py::arg("threads"), "See mmaemu.tile (integer inputs).");
}

}  // namespace mmaemu_py
