// SPDX-License-Identifier: BSD-3-Clause
// distinguish() (the search of `mmaemu distinguish`, docs/distinguish.md), in
// _mmaemu_internal: it reads the experiments library.
#include <string>
#include <vector>

#include "common.h"
#include "experiments/common.h"
#include "experiments/distinguish.h"

namespace mmaemu_py {
namespace {

py::dict vector_dict(mmaemu::Fmt in, mmaemu::Fmt out, const std::string& na, const std::string& nb,
                     const mmaemu::experiments::TestVector& v) {
  auto pattern = [](mmaemu::Fmt f, uint64_t code) -> py::object {
    uint32_t p;
    if (mmaemu::experiments::harness_pattern(f, code, p)) return py::int_(p);
    return py::int_(code);
  };
  py::list a, b;
  for (uint64_t x : v.a) a.append(pattern(in, x));
  for (uint64_t x : v.b) b.append(pattern(in, x));
  py::dict d, res;
  d["a"] = a, d["b"] = b, d["c"] = pattern(out, v.c);
  res[py::str(na)] = pattern(out, v.d_first);
  res[py::str(nb)] = pattern(out, v.d_second);
  d["d"] = res;
  return d;
}

// found, samples, k, bound, found_by, first, shortest of one search.
py::dict result_dict(const mmaemu::experiments::DistinguishConfig& cfg, const std::string& na, const std::string& nb,
                     const mmaemu::experiments::DistinguishResult& r) {
  py::dict d;
  d["found"] = r.found;
  d["samples"] = r.samples;
  d["k"] = r.k;
  d["bound"] = r.found ? py::object(py::none()) : py::object(py::float_(r.bound));
  d["found_by"] = r.found ? py::object(py::str(r.found_by)) : py::object(py::none());
  if (r.found) {
    d["first"] = vector_dict(cfg.in, cfg.out, na, nb, r.first);
    d["shortest"] = vector_dict(cfg.in, cfg.out, na, nb, r.shortest);
  }
  return d;
}

py::dict distinguish(const std::string& first, const std::string& second, const std::string& input,
                     const py::object& output, const py::object& input2, int k, long long samples, long long seed,
                     const py::object& distributions, int threads) {
  namespace ex = mmaemu::experiments;
  check_threads(threads);
  if (k < 0 || samples < 1 || seed < 0) throw py::value_error("k must be >= 0, samples >= 1, seed >= 0");
  ex::DistinguishConfig cfg;
  std::vector<mmaemu::Model> models;
  bool integer = false;
  try {
    models = {ex::parse_models(first).at(0), ex::parse_models(second).at(0)};
    integer = ex::parse_integer_input("input", input, cfg.in, cfg.in_b);
    if (integer) {  // the integer units (docs/models.md §11): s32 results
      cfg.out = mmaemu::Fmt::s32;
      if (!output.is_none() && mmaemu::parse_int_fmt(output.cast<std::string>()) != mmaemu::Fmt::s32)
        throw ex::UsageError("output: the integer units give int32 (s32)");
      cfg.second_in = cfg.in, cfg.second_in_b = cfg.in_b;
      if (!input2.is_none() &&
          !ex::parse_integer_input("input2", input2.cast<std::string>(), cfg.second_in, cfg.second_in_b))
        throw ex::UsageError("input2: an integer input (int8, uint8, int4, uint4; 'A,B')");
    } else {
      if (!input2.is_none()) throw ex::UsageError("input2 applies to the integer inputs");
      cfg.in = ex::parse_format("input", input);
      cfg.out = ex::parse_format("output", output.is_none() ? (cfg.in == mmaemu::Fmt::fp64 ? "fp64" : "fp32")
                                                             : output.cast<std::string>());
    }
  } catch (const ex::UsageError& e) {
    throw py::value_error(e.what());
  }
  const mmaemu::ModelRow* ra = integer ? models[0].find_integer(cfg.in, cfg.in_b, cfg.out) : models[0].find(cfg.in, cfg.out);
  const mmaemu::ModelRow* rb =
      integer ? models[1].find_integer(cfg.second_in, cfg.second_in_b, cfg.out) : models[1].find(cfg.in, cfg.out);
  for (int i = 0; i < 2; ++i)
    if (!(i ? rb : ra)) {
      if (!integer) check(MMAEMU_ERR_UNSUPPORTED, models[i].name + ": " + ex::skip_reason(models[i], cfg.in, cfg.out));
      try {
        models[i].require_integer(i ? cfg.second_in : cfg.in, i ? cfg.second_in_b : cfg.in_b, cfg.out);
      } catch (const std::invalid_argument& e) {
        mmaemu_set_last_error(MMAEMU_ERR_UNSUPPORTED, e.what());
        check(MMAEMU_ERR_UNSUPPORTED);
      }
    }
  cfg.k = static_cast<std::size_t>(k);
  cfg.max_samples = static_cast<std::size_t>(samples);
  cfg.seed = static_cast<uint64_t>(seed);
  cfg.threads = threads;
  if (!distributions.is_none()) cfg.distributions = distributions.cast<std::vector<std::string>>();
  ex::ModelsDistinction md;
  {
    py::gil_scoped_release release;
    try {
      md = ex::distinguish_models(models[0], models[1], cfg);
    } catch (const std::invalid_argument& e) {
      py::gil_scoped_acquire acquire;
      throw py::value_error(e.what());
    }
  }
  // The d keys: the models' names (an integer unit against the same model under other formats: with them).
  std::string na = models[0].name, nb = models[1].name;
  if (integer && na == nb) {
    na += std::string(" (") + mmaemu::info(cfg.in).name + " x " + mmaemu::info(cfg.in_b).name + ")";
    nb += std::string(" (") + mmaemu::info(cfg.second_in).name + " x " + mmaemu::info(cfg.second_in_b).name + ")";
  }
  py::dict d = result_dict(cfg, na, nb, md.units);
  py::list lone;
  for (const ex::LoneUnitSearch& l : md.lone) {
    py::dict x = result_dict(cfg, l.first.name, l.second.name, l.result);
    x["a"] = l.first.name;
    x["b"] = l.second.name;
    lone.append(x);
  }
  d["lone_units"] = lone;
  py::dict only;
  only[py::str(models[0].name)] = md.only_first;
  only[py::str(models[1].name)] = md.only_second;
  d["only_formats"] = only;
  d["report"] = ex::distinguish_models_report(models[0], models[1], cfg, md);
  return d;
}

}  // namespace

void bind_distinguish(py::module_& m) {
  m.def("distinguish", &distinguish, py::arg("a"), py::arg("b"), py::kw_only(), py::arg("input") = "fp16",
        py::arg("output") = py::none(), py::arg("input2") = py::none(), py::arg("k") = 0, py::arg("samples") = 1000000, py::arg("seed") = 1,
        py::arg("distributions") = py::none(), py::arg("threads") = 0, "See mmaemu.distinguish.");
}

}  // namespace mmaemu_py
