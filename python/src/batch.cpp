// SPDX-License-Identifier: BSD-3-Clause
// Batched instructions: dot() and stacks of tile() (mmaemu_dot_batch,
// mmaemu_tile_batch and their block-scaled forms, docs/batch.md).
// Argument checks and translation; the library runs with the GIL released.
#include <cstring>
#include <string>
#include <vector>

#include "common.h"

namespace mmaemu_py {
namespace {

std::vector<py::ssize_t> shape_of(const py::array& x) { return {x.shape(), x.shape() + x.ndim()}; }

std::string shape_text(const std::vector<py::ssize_t>& s) {
  std::string t = "(";
  for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + (s.size() == 1 ? ",)" : ")");
}

// x as a C-contiguous array of `dtype` and shape `want` (message names the argument).
py::array exact_shape(const py::array& x, const std::vector<py::ssize_t>& want, const char* arg, const std::string& why) {
  if (shape_of(x) != want)
    throw py::value_error(std::string(arg) + " must have shape " + shape_text(want) + " (" + why + "); it has " +
                          shape_text(shape_of(x)));
  return py::array::ensure(x, py::array::c_style);
}

// The result array: c's values copied in (C and D alias in the C API), or +0.
py::array result_of(const py::object& c_in, const py::dtype& dtype, const std::vector<py::ssize_t>& shape,
                    mmaemu_format out, const std::string& why) {
  py::array d(dtype, shape);
  if (c_in.is_none()) {
    std::memset(d.mutable_data(), 0, static_cast<std::size_t>(d.nbytes()));  // +0 in every format
    return d;
  }
  if (!py::isinstance<py::array>(c_in)) throw py::type_error("c must be a numpy array");
  const py::array c = exact_shape(as_storage(py::array(c_in), out, "c"), shape, "c", why);
  py::module_::import("numpy").attr("copyto")(d, c);
  return d;
}

// ---------------------------------------------------------------- block FMA units

// The model and formats of a block-FMA batch, checked: the unit exists.
struct Unit {
  ModelHandle model;
  mmaemu_format in, out;
  int m = 0, n = 0, k = 0;  // its instruction's shape
};

Unit unit_of(const py::handle& model_obj, const py::array& a_in, const py::object& input, const std::string& output,
             int threads) {
  check_threads(threads);
  Unit u{model_arg(model_obj), input.is_none() ? operand_format(a_in, py::none(), "a", "input")
                                               : format_arg(input.cast<std::string>()),
         format_arg(output)};
  check(mmaemu_tile_shape(u.model.get(), u.in, u.out, &u.m, &u.n, &u.k));
  return u;
}

py::array dot_batch(const py::handle& model_obj, const py::array& a_in, const py::array& b_in, const py::object& c_in,
                    const py::object& input, const std::string& output, int threads) {
  const Unit u = unit_of(model_obj, a_in, input, output, threads);
  const ModelHandle& model = u.model;
  const mmaemu_format in = u.in, out = u.out;
  if (a_in.ndim() != 1 && a_in.ndim() != 2)
    throw py::value_error("a must be 1-D (k,) or 2-D (N, k): one dot product per row; it has " +
                          std::to_string(a_in.ndim()) + " dimensions");
  const py::array a = py::array::ensure(as_storage(a_in, in, "a"), py::array::c_style);
  const py::array b = exact_shape(as_storage(b_in, in, "b"), shape_of(a), "b", "a's shape");
  const py::ssize_t count = a.ndim() == 2 ? a.shape(0) : 1, k = a.shape(a.ndim() - 1);
  if (k < 1) throw py::value_error("the dot products need k >= 1 elements");
  const std::vector<py::ssize_t> out_shape = a.ndim() == 2 ? std::vector<py::ssize_t>{count} : std::vector<py::ssize_t>{};
  py::array d = result_of(c_in, storage_dtype(out), out_shape, out, "one accumulator per dot product");
  const int kk = dim(k, "k");
  const void* pa = a.data();
  const void* pb = b.data();
  void* pd = d.mutable_data();
  int status;
  {
    py::gil_scoped_release release;
    status = mmaemu_dot_batch(model.get(), in, out, static_cast<size_t>(count), kk, pa, pb, pd, pd, threads);
  }
  check(status);
  return d;
}

py::array tile_batch(const py::handle& model_obj, const py::array& a_in, const py::array& b_in, const py::object& c_in,
                     const py::object& input, const std::string& output, int threads) {
  const Unit u = unit_of(model_obj, a_in, input, output, threads);
  const ModelHandle& model = u.model;
  const mmaemu_format in = u.in, out = u.out;
  const int m = u.m, n = u.n, k = u.k;
  if (a_in.ndim() != 3) throw py::value_error("a must be a 3-D stack (N, m, k) of tiles");
  const py::ssize_t count = a_in.shape(0);
  const std::string shape = std::to_string(m) + " x " + std::to_string(n) + " x " + std::to_string(k);
  const py::array a = exact_shape(as_storage(a_in, in, "a"), {count, m, k}, "a", "N tiles of the instruction, " + shape);
  const py::array b = exact_shape(as_storage(b_in, in, "b"), {count, k, n}, "b", "N tiles of the instruction, " + shape);
  py::array d = result_of(c_in, storage_dtype(out), {count, m, n}, out, "N tiles of the instruction, " + shape);
  const void* pa = a.data();
  const void* pb = b.data();
  void* pd = d.mutable_data();
  int status;
  {
    py::gil_scoped_release release;
    status = mmaemu_tile_batch(model.get(), in, out, static_cast<size_t>(count), pa, pb, pd, pd, threads);
  }
  check(status);
  return d;
}

// ---------------------------------------------------------------- block-scaled units

struct ScaledArgs {
  mmaemu_block_scale_desc desc;
  mmaemu_format out;
};

ScaledArgs scaled_args(const std::string& a_format, const py::object& b_format, const std::string& scale_format,
                       int block_size, const std::string& unit, const std::string& output,
                       bool narrow_subnormals_normalize) {
  ScaledArgs s;
  mmaemu_block_scale_desc_init(&s.desc);
  s.desc.a_format = format_arg(a_format);
  s.desc.b_format = b_format.is_none() ? s.desc.a_format : format_arg(b_format.cast<std::string>());
  s.desc.scale_format = format_arg(scale_format);
  s.desc.block_size = block_size;
  if (unit == "auto") s.desc.unit = MMAEMU_UNIT_AUTO;
  else if (unit == "t") s.desc.unit = MMAEMU_UNIT_T;
  else if (unit == "st") s.desc.unit = MMAEMU_UNIT_ST;
  else if (unit == "gst") s.desc.unit = MMAEMU_UNIT_GST;
  else throw py::value_error("unknown unit '" + unit + "' (valid: auto, t, st, gst)");
  s.desc.narrow_subnormals_normalize = narrow_subnormals_normalize ? 1 : 0;
  s.out = format_arg(output);
  if (block_size < 0) throw py::value_error("block_size must be 32, 16, or 0 (no scales)");
  return s;
}

py::array codes_arg(const py::array& x, const std::vector<py::ssize_t>& shape, const char* arg, const std::string& why) {
  check_dtype(x, py::dtype("uint8"), arg, "to hold codes (one per byte),");
  return exact_shape(x, shape, arg, why);
}

py::array dot_batch_scaled(const py::handle& model_obj, const py::array& a_in, const py::object& sa_in,
                           const py::array& b_in, const py::object& sb_in, const py::object& c_in,
                           const std::string& a_format, const py::object& b_format, const std::string& scale_format,
                           int block_size, const std::string& unit, const std::string& output,
                           bool narrow_subnormals_normalize, int threads) {
  const ModelHandle model = model_arg(model_obj);
  check_threads(threads);
  const ScaledArgs s = scaled_args(a_format, b_format, scale_format, block_size, unit, output, narrow_subnormals_normalize);
  if (a_in.ndim() != 1 && a_in.ndim() != 2)
    throw py::value_error("a must be 1-D (k,) or 2-D (N, k): one dot product per row");
  const bool one = a_in.ndim() == 1;
  const py::ssize_t count = one ? 1 : a_in.shape(0), k = a_in.shape(a_in.ndim() - 1);
  const py::array a = codes_arg(a_in, shape_of(a_in), "a", "one dot product per row");
  const py::array b = codes_arg(b_in, shape_of(a_in), "b", "a's shape");
  if (block_size > 0 && k % block_size != 0)
    throw py::value_error("k = " + std::to_string(k) + " is not a multiple of block_size = " + std::to_string(block_size));
  py::array sa, sb;
  if (block_size > 0) {
    if (sa_in.is_none() || sb_in.is_none()) throw py::value_error("block_size > 0 needs the scales sa and sb");
    std::vector<py::ssize_t> ss = shape_of(a_in);
    ss.back() /= block_size;
    sa = codes_arg(py::array(sa_in), ss, "sa", "one scale per block of a along k");
    sb = codes_arg(py::array(sb_in), ss, "sb", "one scale per block of b along k");
  } else if (!sa_in.is_none() || !sb_in.is_none()) {
    throw py::value_error("block_size = 0 (no scales) reads no scales: pass sa=None and sb=None");
  }
  const std::vector<py::ssize_t> out_shape = one ? std::vector<py::ssize_t>{} : std::vector<py::ssize_t>{count};
  py::array d = result_of(c_in, storage_dtype(s.out), out_shape, s.out, "one accumulator per dot product");
  const int kk = dim(k, "k");
  const auto* pa = static_cast<const uint8_t*>(a.data());
  const auto* pb = static_cast<const uint8_t*>(b.data());
  const auto* psa = block_size > 0 ? static_cast<const uint8_t*>(sa.data()) : nullptr;
  const auto* psb = block_size > 0 ? static_cast<const uint8_t*>(sb.data()) : nullptr;
  void* pd = d.mutable_data();
  int status;
  {
    py::gil_scoped_release release;
    status = mmaemu_dot_batch_block_scaled(model.get(), &s.desc, s.out, static_cast<size_t>(count), kk, pa, psa, pb,
                                           psb, pd, pd, threads);
  }
  check(status);
  return d;
}

py::array tile_batch_scaled(const py::handle& model_obj, const py::array& a_in, const py::object& sa_in,
                            const py::array& b_in, const py::object& sb_in, const py::object& c_in,
                            const std::string& a_format, const py::object& b_format, const std::string& scale_format,
                            int block_size, const std::string& unit, const std::string& output,
                            bool narrow_subnormals_normalize, int threads) {
  const ModelHandle model = model_arg(model_obj);
  check_threads(threads);
  const ScaledArgs s = scaled_args(a_format, b_format, scale_format, block_size, unit, output, narrow_subnormals_normalize);
  int m = 0, n = 0, k = 0;
  check(mmaemu_tile_block_scaled_shape(model.get(), &s.desc, &m, &n, &k, nullptr));
  if (a_in.ndim() != 2 && a_in.ndim() != 3) throw py::value_error("a must be one tile (m, k) or a stack (N, m, k)");
  const bool one = a_in.ndim() == 2;
  const py::ssize_t count = one ? 1 : a_in.shape(0);
  auto stacked = [&](std::vector<py::ssize_t> t) {
    if (!one) t.insert(t.begin(), count);
    return t;
  };
  const std::string why = "tiles of the instruction, " + std::to_string(m) + " x " + std::to_string(n) + " x " +
                          std::to_string(k) + ", one code per byte";
  const py::array a = codes_arg(a_in, stacked({m, k}), "a", why);
  const py::array b = codes_arg(b_in, stacked({k, n}), "b", why);
  py::array sa, sb;
  if (block_size > 0) {
    if (sa_in.is_none() || sb_in.is_none()) throw py::value_error("block_size > 0 needs the scales sa and sb");
    sa = codes_arg(py::array(sa_in), stacked({m, k / block_size}), "sa", "one scale per block of a along k");
    sb = codes_arg(py::array(sb_in), stacked({k / block_size, n}), "sb", "one scale per block of b along k");
  } else if (!sa_in.is_none() || !sb_in.is_none()) {
    throw py::value_error("block_size = 0 (no scales) reads no scales: pass sa=None and sb=None");
  }
  py::array d = result_of(c_in, storage_dtype(s.out), stacked({m, n}), s.out, why);
  const auto* pa = static_cast<const uint8_t*>(a.data());
  const auto* pb = static_cast<const uint8_t*>(b.data());
  const auto* psa = block_size > 0 ? static_cast<const uint8_t*>(sa.data()) : nullptr;
  const auto* psb = block_size > 0 ? static_cast<const uint8_t*>(sb.data()) : nullptr;
  void* pd = d.mutable_data();
  int status;
  {
    py::gil_scoped_release release;
    status = mmaemu_tile_batch_block_scaled(model.get(), &s.desc, s.out, static_cast<size_t>(count), pa, psa, pb, psb,
                                            pd, pd, threads);
  }
  check(status);
  return d;
}

}  // namespace

void bind_batch(py::module_& m) {
  m.def("dot_batch", &dot_batch, py::arg("model"), py::arg("a"), py::arg("b"), py::arg("c") = py::none(),
        py::kw_only(), py::arg("input") = py::none(), py::arg("output") = "fp32", py::arg("threads") = 0,
        "See mmaemu.dot.");
  m.def("tile_batch", &tile_batch, py::arg("model"), py::arg("a"), py::arg("b"), py::arg("c") = py::none(),
        py::kw_only(), py::arg("input") = py::none(), py::arg("output") = "fp32", py::arg("threads") = 0,
        "See mmaemu.tile.");
  const auto scaled_kwargs = [](auto f, const char* name, py::module_& mod) {
    mod.def(name, f, py::arg("model"), py::arg("a"), py::arg("sa"), py::arg("b"), py::arg("sb"),
            py::arg("c") = py::none(), py::kw_only(), py::arg("a_format"), py::arg("b_format") = py::none(),
            py::arg("scale_format") = "ue8m0", py::arg("block_size") = 32, py::arg("unit") = "auto",
            py::arg("output") = "fp32", py::arg("narrow_subnormals_normalize") = false, py::arg("threads") = 0,
            "See mmaemu.dot and mmaemu.tile.");
  };
  scaled_kwargs(&dot_batch_scaled, "dot_batch_scaled", m);
  scaled_kwargs(&tile_batch_scaled, "tile_batch_scaled", m);
}

}  // namespace mmaemu_py
