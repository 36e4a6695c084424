// SPDX-License-Identifier: BSD-3-Clause
#include "experiments/common.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "driver/gemm.h"

namespace mmaemu::experiments {

std::string Options::get(const std::string& name, const std::string& fallback) const {
  auto it = values.find(name);
  return it == values.end() ? fallback : it->second;
}

Options parse_options(const std::vector<std::string>& args, const std::vector<std::string>& value_names,
                      const std::vector<std::string>& flag_names) {
  Options o;
  auto known = [](const std::vector<std::string>& v, const std::string& n) {
    return std::find(v.begin(), v.end(), n) != v.end();
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() < 3 || a.compare(0, 2, "--") != 0)
      throw UsageError("unexpected argument '" + a + "'");
    std::string name = a.substr(2), value;
    bool inline_value = false;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      inline_value = true;
    }
    if (known(flag_names, name)) {
      if (inline_value) throw UsageError("option --" + name + " takes no value");
      o.flags.insert(name);
    } else if (known(value_names, name)) {
      if (!inline_value) {
        if (i + 1 >= args.size()) throw UsageError("option --" + name + " needs a value");
        value = args[++i];
      }
      if (value.empty()) throw UsageError("option --" + name + " needs a value");
      auto [it, fresh] = o.values.emplace(name, value);
      if (!fresh && name != "models" && name != "words" && name != "schedule") throw UsageError("option --" + name + " given twice");
      if (!fresh) it->second += "," + value;
    } else {
      throw UsageError("unknown option '" + a + "'");
    }
  }
  return o;
}

long long parse_int(const std::string& option, const std::string& text, long long lo, long long hi) {
  errno = 0;
  char* end = nullptr;
  const long long x = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno == ERANGE)
    throw UsageError("--" + option + ": '" + text + "' is not an integer");
  if (x < lo || x > hi)
    throw UsageError("--" + option + ": " + text + " is out of range [" + std::to_string(lo) + ", " +
                     std::to_string(hi) + "]");
  return x;
}

double parse_double(const std::string& option, const std::string& text) {
  errno = 0;
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(x))
    throw UsageError("--" + option + ": '" + text + "' is not a finite number");
  return x;
}

Fmt parse_format(const std::string& option, const std::string& text) {
  if (auto f = parse_fmt(text)) return *f;
  // The floating-point commands (compare, the experiments, explain) have
  // no integer reading: their inputs are real numbers and their errors
  // relative ones (docs/models.md §11).
  if (parse_int_fmt(text))
    throw UsageError("--" + option + ": '" + text + "' is an integer format: this command runs the floating-point "
                     "units; the integer units are run by mmaemu dot, probe and distinguish, and by the C API's "
                     "mmaemu_gemm_int (docs/models.md §11)");
  std::string names;
  for (int i = 0; i < kFmtCount; ++i)
    if (!info(static_cast<Fmt>(i)).is_integer()) names += std::string(i ? ", " : "") + info(static_cast<Fmt>(i)).name;
  throw UsageError("--" + option + ": unknown format '" + text + "' (valid: " + names +
                   "; aliases fp8 = e4m3fnuz, bf8 = e5m2fnuz, xf32 = tf32)");
}

bool parse_integer_input(const std::string& option, const std::string& text, Fmt& a, Fmt& b) {
  const std::size_t comma = text.find(',');
  const auto fa = parse_int_fmt(text.substr(0, comma));
  if (!fa || *fa == Fmt::s32) return false;
  const auto fb = comma == std::string::npos ? fa : parse_int_fmt(text.substr(comma + 1));
  if (!fb || *fb == Fmt::s32)
    throw UsageError("--" + option + " " + text + ": B's format '" + text.substr(comma + 1) +
                     "' is not an integer input (valid: s8, u8, s4, u4)");
  a = *fa, b = *fb;
  return true;
}

std::vector<Model> parse_models(const std::string& list) {
  // Tokens with '=' continue the preceding custom specification.
  std::vector<std::string> names;
  std::size_t pos = 0;
  while (pos <= list.size()) {
    const std::size_t comma = std::min(list.find(',', pos), list.size());
    const std::string tok = list.substr(pos, comma - pos);
    pos = comma + 1;
    if (tok.empty()) throw UsageError("--models: empty model name in '" + list + "'");
    if (tok.find('=') != std::string::npos && !names.empty() &&
        names.back().compare(0, 7, "custom:") == 0 && names.back().find('=') != std::string::npos)
      names.back() += "," + tok;
    else
      names.push_back(tok);
  }
  std::vector<Model> models;
  for (const std::string& n : names) {
    Model model;
    try {
      model = lookup_model(n);  // (MODEL@INSTR included)
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--models: ") + e.what());
    }
    models.push_back(std::move(model));
  }
  return models;
}

std::vector<Model> all_models() {
  std::vector<Model> m;
  for (const Gpu& g : gpus()) m.push_back(*gpu_model(g.name));
  return m;
}

std::string unit_list(const Model& model) {
  std::string s;
  for (const ModelRow& r : model.rows) {
    if (!r.gemm_default) continue;
    const std::string u = std::string(info(r.in).name) + "->" + info(r.out).name;
    if (s.find(u) != std::string::npos) continue;
    if (!s.empty()) s += ", ";
    s += u;
  }
  return s;
}

std::string skip_reason(const Model& model, Fmt in, Fmt out) {
  std::string s = "no " + std::string(info(in).name) + " -> " + info(out).name + " unit (units: " + unit_list(model) + ")";
  // OCP fp8 asked of an MI300-class model: point to its FNUZ formats.
  const Fmt fnuz = in == Fmt::e4m3 ? Fmt::e4m3fnuz : in == Fmt::e5m2 ? Fmt::e5m2fnuz : in;
  if (fnuz != in && model.find(fnuz, out))
    s += std::string("; its fp8 units are FNUZ: --input ") + (fnuz == Fmt::e4m3fnuz ? "fp8" : "bf8");
  return s;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

FormatArray::FormatArray(Fmt f, std::size_t count)
    : fmt_(f), count_(count), width_(static_cast<std::size_t>(info(f).width) / 8), bytes_(count * width_) {}

uint64_t FormatArray::bits(std::size_t i) const {
  return driver::load(fmt_, bytes_.data(), static_cast<std::ptrdiff_t>(i));
}

void FormatArray::set_bits(std::size_t i, uint64_t b) {
  driver::store(fmt_, bytes_.data(), static_cast<std::ptrdiff_t>(i), b);
}

double FormatArray::value(std::size_t i) const { return std::bit_cast<double>(to_fp64_bits(fmt_, bits(i))); }

FormatArray encode(const double* x, std::size_t count, Fmt f, Round r, Overflow ov, double scale) {
  FormatArray a(f, count);
  for (std::size_t i = 0; i < count; ++i)
    a.set_bits(i, convert(Fmt::fp64, f, std::bit_cast<uint64_t>(scale * x[i]), r, ov));
  return a;
}

double max_finite(Fmt f) { return std::bit_cast<double>(to_fp64_bits(f, max_finite_bits(f, false))); }
double min_normal(Fmt f) { return std::ldexp(1.0, info(f).emin()); }
int precision(Fmt f) { return info(f).man_bits + 1; }

}  // namespace mmaemu::experiments
