// SPDX-License-Identifier: BSD-3-Clause
// `mmaemu distinguish A B` on two models (docs/distinguish.md): their units
// for the asked formats first; when those agree, the units only one of them
// has (T4's m8n8k4 against A100's m16n8k16, docs/models.md §10.1) and the
// formats only one of them has a unit for.
#include <algorithm>
#include <cctype>
#include <sstream>
#include <stdexcept>

#include "experiments/distinguish.h"

namespace mmaemu::experiments {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The rows of `x` for (in, out) other than its unit `used` whose
// instruction `y` has no row of for those formats.
std::vector<const ModelRow*> lone_rows(const Model& x, const Model& y, const ModelRow* used, Fmt in, Fmt out) {
  std::vector<const ModelRow*> v;
  for (const ModelRow& r : x.rows) {
    if (r.in != in || r.out != out || &r == used) continue;
    const bool shared = std::any_of(y.rows.begin(), y.rows.end(), [&](const ModelRow& o) {
      return o.in == in && o.out == out && lower(o.instr) == lower(r.instr);
    });
    if (!shared) v.push_back(&r);
  }
  return v;
}

// The formats (formats_of) of the units of `x` that `y` has no unit for.
std::vector<std::string> only_formats(const Model& x, const Model& y) {
  auto formats = [](const Model& m) {
    std::vector<std::string> f;
    for (const std::vector<ModelRow>* rows : {&m.rows, &m.integer})
      for (const ModelRow& r : *rows)
        if (std::find(f.begin(), f.end(), formats_of(r)) == f.end()) f.push_back(formats_of(r));
    return f;
  };
  const std::vector<std::string> fx = formats(x), fy = formats(y);
  std::vector<std::string> v;
  for (const std::string& f : fx)
    if (std::find(fy.begin(), fy.end(), f) == fy.end()) v.push_back(f);
  return v;
}

std::string joined(const std::vector<std::string>& v) {
  std::string s;
  for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

std::string shape(const ModelRow& r) {
  return std::to_string(r.m) + "x" + std::to_string(r.n) + "x" + std::to_string(r.k);
}

}  // namespace

ModelsDistinction distinguish_models(const Model& a, const Model& b, const DistinguishConfig& cfg) {
  // Integer units (s32 results): each model reads the codes under its own
  // formats (cfg.second_in for b); no float row has those formats, so the
  // lone-unit search below finds none.
  const bool integer = cfg.out == Fmt::s32;
  const ModelRow* ra = integer ? a.find_integer(cfg.in, cfg.in_b, cfg.out) : a.find(cfg.in, cfg.out);
  const ModelRow* rb = integer ? b.find_integer(cfg.second_in, cfg.second_in_b, cfg.out) : b.find(cfg.in, cfg.out);
  if (!ra || !rb) throw std::invalid_argument((ra ? b : a).name + " has no unit for these formats");
  ModelsDistinction d;
  d.units = distinguish(*ra, *rb, cfg);
  if (d.units.found) return d;
  auto search = [&](const ModelRow& lone, bool lone_is_first) {
    const Model& own = lone_is_first ? a : b;
    const Model narrowed = lookup_model(own.name + "@" + lone.instr);
    const ModelRow& other = lone_is_first ? *rb : *ra;
    DistinguishConfig c = cfg;
    if (!c.k) c.k = static_cast<std::size_t>(std::max(lone.k, other.k));
    LoneUnitSearch l{lone_is_first ? narrowed : a, lone_is_first ? b : narrowed, lone_is_first, {}};
    l.result = lone_is_first ? distinguish(lone, other, c) : distinguish(other, lone, c);
    d.lone.push_back(std::move(l));
  };
  // (A model named MODEL@INSTR has no other unit for these formats.)
  for (const ModelRow* r : lone_rows(a, b, ra, cfg.in, cfg.out)) search(*r, true);
  for (const ModelRow* r : lone_rows(b, a, rb, cfg.in, cfg.out)) search(*r, false);
  d.only_first = only_formats(a, b);
  d.only_second = only_formats(b, a);
  return d;
}

std::string distinguish_models_report(const Model& a, const Model& b, const DistinguishConfig& cfg,
                                      const ModelsDistinction& d) {
  std::ostringstream out;
  out << distinguish_report(a, b, cfg, d.units);
  if (d.units.found || (d.lone.empty() && d.only_first.empty() && d.only_second.empty())) return out.str();
  out << "  where the two models differ:\n";
  for (const LoneUnitSearch& l : d.lone) {
    const bool first_lone = l.first_is_lone;
    const Model& lone = first_lone ? l.first : l.second;
    const Model& other = first_lone ? l.second : l.first;
    const ModelRow& lr = *lone.find(cfg.in, cfg.out);
    const ModelRow& orow = *other.find(cfg.in, cfg.out);
    out << "    " << (first_lone ? a : b).name << " has " << lr.instr << " (" << shape(lr) << "), which "
        << (first_lone ? b : a).name << " has not: searched against its " << orow.instr << " (" << shape(orow)
        << ") at k = " << l.result.k << ", below\n";
  }
  if (!d.only_first.empty())
    out << "    units for formats only " << a.name << " has: " << joined(d.only_first) << " (not searched)\n";
  if (!d.only_second.empty())
    out << "    units for formats only " << b.name << " has: " << joined(d.only_second) << " (not searched)\n";
  for (const LoneUnitSearch& l : d.lone) out << distinguish_report(l.first, l.second, cfg, l.result);
  return out.str();
}

}  // namespace mmaemu::experiments
