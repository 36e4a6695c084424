// SPDX-License-Identifier: BSD-3-Clause
// The scaled GEMMs and their quantisers: gemm_fp8_scaled and
// quantize_fp8_blocks (fine-grained fp8 scaling, DeepGEMM's form), and
// gemm_block_scaled, quantize_mx, quantize_nvfp4 and dequantize (the
// block-scaled formats, docs/block-scaled.md). Argument checks and
// translation to the C API, which runs with the GIL released.
#include <algorithm>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "common.h"

namespace mmaemu_py {
namespace {

std::string shape_text(py::ssize_t rows, py::ssize_t cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}

int ceil_div(int a, int b) { return (a + b - 1) / b; }

// A block size along the last axis: a positive whole number.
void check_block_size(int block_size) {
  if (block_size <= 0) throw py::value_error("block_size must be a positive whole number, got " + std::to_string(block_size));
}

/// x as a C-contiguous array of dtype `want` and shape rows x cols (copied if strided).
py::array c_matrix(const py::array& x, const char* dtype, const char* arg, const std::string& why, py::ssize_t rows,
                   py::ssize_t cols) {
  check_dtype(x, py::dtype(dtype), arg, why);
  check_2d(x, arg);
  if (x.shape(0) != rows || x.shape(1) != cols)
    throw py::value_error(std::string(arg) + " must be " + shape_text(rows, cols) + " (" + why + "); it is " +
                          shape_text(x.shape(0), x.shape(1)));
  return py::array::ensure(x, py::array::c_style);
}

/// float32 values, C-contiguous; the last axis a whole number of blocks.
py::array blocked_values(const py::array& x, int block, const char* what) {
  check_dtype(x, py::dtype("float32"), "x", std::string("to be quantised,"));
  if (x.ndim() < 1 || block <= 0 || x.shape(x.ndim() - 1) % block != 0)
    throw py::value_error(std::string(what) + " quantises blocks of " + std::to_string(block) +
                          " consecutive values along x's last axis: its length must be a positive multiple of " +
                          std::to_string(block) + " (x has shape " + std::string(py::str(py::tuple(py::cast(
                              std::vector<py::ssize_t>(x.shape(), x.shape() + x.ndim()))))) + ")");
  return py::array::ensure(x, py::array::c_style);
}

/// x's shape with the last axis divided by `block`: the shape of its scales.
std::vector<py::ssize_t> scales_shape(const py::array& x, int block) {
  std::vector<py::ssize_t> s(x.shape(), x.shape() + x.ndim());
  s.back() /= block;
  return s;
}

std::vector<py::ssize_t> shape_of(const py::array& x) { return {x.shape(), x.shape() + x.ndim()}; }

py::array gemm_fp8_scaled(const py::object& a_obj, const py::object& a_scales_obj, const py::object& b_obj,
                          const py::object& b_scales_obj, const py::handle& model_obj, const py::object& format_obj,
                          const py::object& block_k_obj, const py::object& block_n_obj, const py::object& b_trans_obj,
                          const py::object& threads_obj) {
  const py::array a_in = array_arg(a_obj, "a"), a_scales_in = array_arg(a_scales_obj, "a_scales");
  const py::array b_in = array_arg(b_obj, "b"), b_scales_in = array_arg(b_scales_obj, "b_scales");
  const std::string format = str_arg(format_obj, "format");
  const int block_k = int_arg(block_k_obj, "block_k"), block_n = int_arg(block_n_obj, "block_n");
  const bool b_trans = bool_arg(b_trans_obj, "b_trans");
  const int threads = int_arg(threads_obj, "threads");
  const ModelHandle model = model_arg(model_obj);
  mmaemu_fp8_scaled_options opt;
  mmaemu_fp8_scaled_options_init(&opt);
  opt.format = format_arg(format);
  opt.block_k = block_k;
  opt.block_n = block_n;
  opt.b_trans = b_trans ? 1 : 0;
  opt.threads = threads;
  if (block_k <= 0 || block_n <= 0) throw py::value_error("block_k and block_n must be positive");
  check_threads(threads);
  check_2d(a_in, "a");
  check_2d(b_in, "b");
  const int m = dim(a_in.shape(0), "m"), k = dim(a_in.shape(1), "k");
  const int n = dim(b_in.shape(b_trans ? 0 : 1), "n");
  const std::string codes = std::string(format) + " codes";
  const py::array a = c_matrix(a_in, "uint8", "a", codes, m, k);
  const py::array b = b_trans ? c_matrix(b_in, "uint8", "b", codes + ", stored n x k (b_trans)", n, k)
                              : c_matrix(b_in, "uint8", "b", codes + ", k x n", k, n);
  const py::array sa = c_matrix(a_scales_in, "float32", "a_scales", "one scale per row and k block", m,
                                ceil_div(k, block_k));
  const py::array sb = c_matrix(b_scales_in, "float32", "b_scales", "one scale per k block and n block",
                                ceil_div(k, block_k), ceil_div(n, block_n));
  py::array d(py::dtype("float32"), {m, n});
  const auto* pa = static_cast<const uint8_t*>(a.data());
  const auto* pb = static_cast<const uint8_t*>(b.data());
  const auto* psa = static_cast<const float*>(sa.data());
  const auto* psb = static_cast<const float*>(sb.data());
  auto* pd = static_cast<float*>(d.mutable_data());
  int status;
  {
    py::gil_scoped_release release;
    status = mmaemu_gemm_fp8_scaled(model.get(), &opt, m, n, k, pa, std::max(1, k), psa, pb,
                                    std::max(1, b_trans ? k : n), psb, pd, std::max(1, n));
  }
  check(status);
  return d;
}

py::tuple quantize_fp8_blocks(const py::object& x_obj, const py::object& format_obj, const py::object& block_rows_obj,
                              const py::object& block_cols_obj) {
  const py::array x_in = array_arg(x_obj, "x");
  const mmaemu_format f = format_arg(str_arg(format_obj, "format"));
  const int block_rows = int_arg(block_rows_obj, "block_rows"), block_cols = int_arg(block_cols_obj, "block_cols");
  check_dtype(x_in, py::dtype("float32"), "x", "to be quantised,");
  check_2d(x_in, "x");
  if (block_rows <= 0 || block_cols <= 0) throw py::value_error("block sizes must be positive");
  const py::array x = py::array::ensure(x_in, py::array::c_style);
  const int rows = dim(x.shape(0), "rows"), cols = dim(x.shape(1), "cols");
  py::array q(py::dtype("uint8"), {rows, cols});
  py::array scales(py::dtype("float32"), {ceil_div(rows, block_rows), ceil_div(cols, block_cols)});
  const auto* px = static_cast<const float*>(x.data());
  auto* pq = static_cast<uint8_t*>(q.mutable_data());
  auto* ps = static_cast<float*>(scales.mutable_data());
  int status;
  {
    py::gil_scoped_release release;
    status = mmaemu_quantize_fp8_blocks(f, rows, cols, px, std::max(1, cols), block_rows, block_cols, pq,
                                        std::max(1, cols), ps);
  }
  check(status);
  return py::make_tuple(q, scales);
}

mmaemu_scaled_unit unit_arg(const std::string& u) {
  if (u == "auto") return MMAEMU_UNIT_AUTO;
  if (u == "t") return MMAEMU_UNIT_T;
  if (u == "st") return MMAEMU_UNIT_ST;
  if (u == "gst") return MMAEMU_UNIT_GST;
  throw py::value_error("unknown unit '" + u + "' (valid: auto, t, st, gst)");
}

/// Block scales stored like their operand (same transpose): rows x cols
/// logically; returns the C-contiguous or Fortran-contiguous array and its ld.
std::pair<py::array, int> scales_like(const py::array& s_in, mmaemu_transpose trans, int rows, int cols,
                                      const char* arg, const char* operand) {
  check_dtype(s_in, py::dtype("uint8"), arg, "to hold scale codes,");
  check_2d(s_in, arg);
  if (s_in.shape(0) != rows || s_in.shape(1) != cols)
    throw py::value_error(std::string(arg) + " must be " + shape_text(rows, cols) + " (one scale per block of " +
                          operand + " along k); it is " + shape_text(s_in.shape(0), s_in.shape(1)));
  const bool transposed = trans == MMAEMU_TRANS;
  const py::array s = py::module_::import("numpy").attr(transposed ? "asfortranarray" : "ascontiguousarray")(s_in);
  return {s, std::max(1, transposed ? rows : cols)};
}

py::array gemm_block_scaled(const py::object& a_obj, const py::object& sa_in, const py::object& b_obj,
                            const py::object& sb_in, const py::handle& model_obj, const py::object& a_format_obj,
                            const py::object& b_format, const py::object& scale_format_obj,
                            const py::object& block_size_obj, const py::object& unit_obj,
                            const py::object& a_global_scale_obj, const py::object& b_global_scale_obj,
                            const py::object& c_in, const py::object& alpha_obj, const py::object& beta_obj,
                            const py::object& accumulate_obj, const py::object& narrow_subnormals_normalize_obj) {
  const py::array a_in = array_arg(a_obj, "a"), b_in = array_arg(b_obj, "b");
  if (!sa_in.is_none()) array_arg(sa_in, "sa");
  if (!sb_in.is_none()) array_arg(sb_in, "sb");
  if (!c_in.is_none()) array_arg(c_in, "c");
  const std::string a_format = str_arg(a_format_obj, "a_format"), scale_format = str_arg(scale_format_obj, "scale_format");
  const int block_size = int_arg(block_size_obj, "block_size");
  const std::string unit = str_arg(unit_obj, "unit"), accumulate = str_arg(accumulate_obj, "accumulate");
  const float a_global_scale = static_cast<float>(float_arg(a_global_scale_obj, "a_global_scale"));
  const float b_global_scale = static_cast<float>(float_arg(b_global_scale_obj, "b_global_scale"));
  const float alpha = static_cast<float>(float_arg(alpha_obj, "alpha")), beta = static_cast<float>(float_arg(beta_obj, "beta"));
  const bool narrow_subnormals_normalize = bool_arg(narrow_subnormals_normalize_obj, "narrow_subnormals_normalize");
  const ModelHandle model = model_arg(model_obj);
  mmaemu_block_scale_desc desc;
  mmaemu_block_scale_desc_init(&desc);
  desc.a_format = format_arg(a_format);
  desc.b_format = b_format.is_none() ? desc.a_format : format_arg(str_arg(b_format, "b_format"));
  desc.scale_format = format_arg(scale_format);
  desc.block_size = block_size;
  desc.unit = unit_arg(unit);
  desc.a_global_scale = a_global_scale;
  desc.b_global_scale = b_global_scale;
  desc.accumulate = accumulate_arg(accumulate);
  desc.narrow_subnormals_normalize = narrow_subnormals_normalize ? 1 : 0;
  check_2d(a_in, "a");
  check_2d(b_in, "b");
  check_dtype(a_in, py::dtype("uint8"), "a", std::string("to hold ") + a_format + " codes (one per byte),");
  check_dtype(b_in, py::dtype("uint8"), "b", "to hold codes (one per byte),");
  if (a_in.shape(1) != b_in.shape(0))
    throw py::value_error("a is " + shape_text(a_in.shape(0), a_in.shape(1)) + " but b is " +
                          shape_text(b_in.shape(0), b_in.shape(1)) + ": inner dimensions differ");
  const int m = dim(a_in.shape(0), "m"), k = dim(a_in.shape(1), "k"), n = dim(b_in.shape(1), "n");
  if (block_size < 0) throw py::value_error("block_size must be 32, 16, or 0 (no scales)");
  if (block_size == 0 && (!sa_in.is_none() || !sb_in.is_none()))
    throw py::value_error("block_size = 0 (no scales) reads no scales: pass sa=None and sb=None");
  if (block_size > 0 && (sa_in.is_none() || sb_in.is_none()))
    throw py::value_error("block_size = " + std::to_string(block_size) + " needs the scales sa and sb");
  if (block_size > 0 && k % block_size != 0)
    throw py::value_error("k = " + std::to_string(k) + " is not a multiple of block_size = " +
                          std::to_string(block_size));
  const Layout la = layout_of(a_in, "a"), lb = layout_of(b_in, "b");
  py::array sa, sb;
  int ldsa = 1, ldsb = 1;
  if (block_size > 0) {
    std::tie(sa, ldsa) = scales_like(py::array(sa_in), la.trans, m, k / block_size, "sa", "a");
    std::tie(sb, ldsb) = scales_like(py::array(sb_in), lb.trans, k / block_size, n, "sb", "b");
  }
  py::array d(py::dtype("float32"), {m, n});
  if (!c_in.is_none()) {
    if (!py::isinstance<py::array>(c_in)) throw py::type_error("c must be a numpy array");
    py::module_::import("numpy").attr("copyto")(d, c_matrix(py::array(c_in), "float32", "c", "a's rows, b's columns",
                                                            m, n));
  } else if (beta != 0.0f) {
    throw py::value_error("beta != 0 needs c");
  }
  const auto* pa = static_cast<const uint8_t*>(a_in.data());
  const auto* pb = static_cast<const uint8_t*>(b_in.data());
  const auto* psa = block_size > 0 ? static_cast<const uint8_t*>(sa.data()) : nullptr;
  const auto* psb = block_size > 0 ? static_cast<const uint8_t*>(sb.data()) : nullptr;
  auto* pd = static_cast<float*>(d.mutable_data());
  int status;
  {
    py::gil_scoped_release release;
    status = mmaemu_gemm_block_scaled(model.get(), &desc, MMAEMU_ROW_MAJOR, la.trans, lb.trans, m, n, k, alpha, pa,
                                      la.ld, psa, ldsa, pb, lb.ld, psb, ldsb, beta, pd, std::max(1, n));
  }
  check(status);
  return d;
}

/// A block quantisation's arrays: float32 values in, uint8 codes and scales out.
struct BlockQuantisation {
  py::array x, codes, scales;
  std::size_t n() const { return static_cast<std::size_t>(x.size()); }
  const float* values() const { return static_cast<const float*>(x.data()); }
  uint8_t* code_data() { return static_cast<uint8_t*>(codes.mutable_data()); }
  uint8_t* scale_data() { return static_cast<uint8_t*>(scales.mutable_data()); }
};

BlockQuantisation block_quantisation(const py::array& x_in, int block, const char* what) {
  const py::array x = blocked_values(x_in, block, what);
  return {x, py::array(py::dtype("uint8"), shape_of(x)), py::array(py::dtype("uint8"), scales_shape(x, block))};
}

py::tuple quantize_mx(const py::object& x_obj, const py::object& element_obj, const py::object& block_size_obj) {
  const py::array x_in = array_arg(x_obj, "x");
  const mmaemu_format f = format_arg(str_arg(element_obj, "element"));
  const int block_size = int_arg(block_size_obj, "block_size");
  check_block_size(block_size);
  BlockQuantisation q = block_quantisation(x_in, block_size, "quantize_mx");
  int status;
  {
    py::gil_scoped_release release;
    status = mmaemu_quantize_mx(f, block_size, q.n(), q.values(), q.code_data(), q.scale_data());
  }
  check(status);
  return py::make_tuple(q.codes, q.scales);
}

constexpr int kNvfp4Block = 16;  // NVFP4: one UE4M3 scale per 16 e2m1 values

py::tuple quantize_nvfp4(const py::object& x_obj) {
  const py::array x_in = array_arg(x_obj, "x");
  BlockQuantisation q = block_quantisation(x_in, kNvfp4Block, "quantize_nvfp4");
  float encode = 1.0f, decode = 1.0f;
  int status;
  {
    py::gil_scoped_release release;
    status = mmaemu_nvfp4_global_scale(q.n(), q.values(), &encode, &decode);
    if (status == MMAEMU_OK) status = mmaemu_quantize_nvfp4(q.n(), q.values(), encode, q.code_data(), q.scale_data());
  }
  check(status);
  return py::make_tuple(q.codes, q.scales, decode);
}

py::array dequantize(const py::object& codes_obj, const py::object& scales_obj, const py::object& element_obj,
                     const py::object& scale_format_obj, const py::object& block_size_obj,
                     const py::object& global_scale_obj) {
  const py::array codes_in = array_arg(codes_obj, "codes"), scales_in = array_arg(scales_obj, "scales");
  const std::string element = str_arg(element_obj, "element"), scale_format = str_arg(scale_format_obj, "scale_format");
  const int block_size = int_arg(block_size_obj, "block_size");
  const double global_scale = float_arg(global_scale_obj, "global_scale");
  check_block_size(block_size);
  const mmaemu_format fe = format_arg(element), fs = format_arg(scale_format);
  check_dtype(codes_in, py::dtype("uint8"), "codes", std::string("to hold ") + element + " codes (one per byte),");
  check_dtype(scales_in, py::dtype("uint8"), "scales", std::string("to hold ") + scale_format + " codes,");
  if (codes_in.ndim() < 1 || block_size <= 0 || codes_in.shape(codes_in.ndim() - 1) % block_size != 0)
    throw py::value_error("dequantize reads blocks of block_size = " + std::to_string(block_size) +
                          " along the last axis of codes: its length must be a positive multiple of it");
  const py::array codes = py::array::ensure(codes_in, py::array::c_style);
  const py::array scales = py::array::ensure(scales_in, py::array::c_style);
  if (shape_of(scales) != scales_shape(codes, block_size))
    throw py::value_error("scales must have codes' shape with the last axis divided by block_size = " +
                          std::to_string(block_size));
  py::array x(py::dtype("float32"), shape_of(codes));
  const auto n = static_cast<std::size_t>(codes.size());
  const auto* pc = static_cast<const uint8_t*>(codes.data());
  const auto* ps = static_cast<const uint8_t*>(scales.data());
  auto* px = static_cast<float*>(x.mutable_data());
  int status;
  {
    py::gil_scoped_release release;
    status = mmaemu_dequantize(fe, fs, block_size, n, pc, ps, static_cast<float>(global_scale), px);
  }
  check(status);
  return x;
}

// sgemm under a block-scaled policy: float32 operands quantised per block
// along k by the C API (mmaemu_sgemm_block_scaled_acc), then its unit.
py::array sgemm_block_scaled(const py::array& a_in, const py::array& b_in, const py::handle& model_obj,
                             const std::string& policy, const py::object& c_in, float alpha, float beta,
                             const std::string& accumulate) {
  const ModelHandle model = model_arg(model_obj);
  check_2d(a_in, "a");
  check_2d(b_in, "b");
  check_dtype(a_in, py::dtype("float32"), "a", "to be quantised under " + policy + ",");
  check_dtype(b_in, py::dtype("float32"), "b", "to be quantised under " + policy + ",");
  if (a_in.shape(1) != b_in.shape(0))
    throw py::value_error("a is " + shape_text(a_in.shape(0), a_in.shape(1)) + " but b is " +
                          shape_text(b_in.shape(0), b_in.shape(1)) + ": inner dimensions differ");
  const int m = dim(a_in.shape(0), "m"), k = dim(a_in.shape(1), "k"), n = dim(b_in.shape(1), "n");
  const mmaemu_accumulate acc = accumulate_arg(accumulate);
  py::array d(py::dtype("float32"), {m, n});
  if (!c_in.is_none()) {
    if (!py::isinstance<py::array>(c_in)) throw py::type_error("c must be a numpy array");
    py::module_::import("numpy").attr("copyto")(d, c_matrix(py::array(c_in), "float32", "c", "a's rows, b's columns",
                                                            m, n));
  } else if (beta != 0.0f) {
    throw py::value_error("beta != 0 needs c");
  }
  const Layout la = layout_of(a_in, "a"), lb = layout_of(b_in, "b");
  const auto* pa = static_cast<const float*>(a_in.data());
  const auto* pb = static_cast<const float*>(b_in.data());
  auto* pd = static_cast<float*>(d.mutable_data());
  int status;
  {
    py::gil_scoped_release release;
    status = mmaemu_sgemm_block_scaled_acc(model.get(), policy.c_str(), acc, MMAEMU_ROW_MAJOR, la.trans, lb.trans, m,
                                           n, k, alpha, pa, la.ld, pb, lb.ld, beta, pd, std::max(1, n));
  }
  check(status, "input");
  return d;
}

// The block-scaled input policies' names, as the C API lists them.
std::vector<std::string> block_scaled_policies() {
  std::vector<std::string> names;
  for (int i = 0; i < mmaemu_block_scaled_policy_count(); ++i) names.emplace_back(mmaemu_block_scaled_policy_name(i));
  return names;
}

}  // namespace

void bind_scaled(py::module_& m) {
  m.def("block_scaled_policies", &block_scaled_policies,
        "The block-scaled input policies (mmaemu_block_scaled_policy_name), as mmaemu.BLOCK_SCALED_POLICIES.");
  m.def("gemm_fp8_scaled", &gemm_fp8_scaled, py::arg("a"), py::arg("a_scales"), py::arg("b"), py::arg("b_scales"),
        py::arg("model"), py::kw_only(), py::arg("format") = "e4m3", py::arg("block_k") = 128,
        py::arg("block_n") = 128, py::arg("b_trans") = false, py::arg("threads") = 0, "See mmaemu.gemm_fp8_scaled.");
  m.def("quantize_fp8_blocks", &quantize_fp8_blocks, py::arg("x"), py::arg("format") = "e4m3",
        py::arg("block_rows") = 1, py::arg("block_cols") = 128, "See mmaemu.quantize_fp8_blocks.");
  m.def("gemm_block_scaled", &gemm_block_scaled, py::arg("a"), py::arg("sa"), py::arg("b"), py::arg("sb"),
        py::arg("model"), py::kw_only(), py::arg("a_format"), py::arg("b_format") = py::none(),
        py::arg("scale_format") = "ue8m0", py::arg("block_size") = 32, py::arg("unit") = "auto",
        py::arg("a_global_scale") = 1.0f, py::arg("b_global_scale") = 1.0f, py::arg("c") = py::none(),
        py::arg("alpha") = 1.0f, py::arg("beta") = 0.0f, py::arg("accumulate") = "gpu-blas",
        py::arg("narrow_subnormals_normalize") = false, "See mmaemu.gemm_block_scaled.");
  m.def("quantize_mx", &quantize_mx, py::arg("x"), py::arg("element"), py::arg("block_size") = 32,
        "See mmaemu.quantize_mx.");
  m.def("quantize_nvfp4", &quantize_nvfp4, py::arg("x"), "See mmaemu.quantize_nvfp4.");
  m.def("dequantize", &dequantize, py::arg("codes"), py::arg("scales"), py::arg("element"),
        py::arg("scale_format") = "ue8m0", py::arg("block_size") = 32, py::arg("global_scale") = 1.0f,
        "See mmaemu.dequantize.");
  m.def("sgemm_block_scaled", &sgemm_block_scaled, py::arg("a"), py::arg("b"), py::arg("model"), py::arg("policy"),
        py::kw_only(), py::arg("c") = py::none(), py::arg("alpha") = 1.0f, py::arg("beta") = 0.0f,
        py::arg("accumulate") = "gpu-blas", "See mmaemu.matmul with a block-scaled input policy.");
}

}  // namespace mmaemu_py
