// SPDX-License-Identifier: BSD-3-Clause
#include "validate/validate.h"

#include "validate/scaled_set.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <ostream>
#include <sstream>

#include <boost/math/special_functions/beta.hpp>

#include "driver/fast_dot.h"

namespace mmaemu::validate {
extern const char* const kBundledErrata;  // errata_data.cpp, generated
}

namespace mmaemu::validate {
namespace {

// Maps a folder format name to the formats it may stand for (the fp8
// folders mean OCP on NVIDIA and FNUZ on MI300).
std::vector<Fmt> folder_formats(const DataSet& set) {
  const std::string& f = set.fmt;
  std::string low;
  for (char ch : f) low += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (low == "e4m3") return {Fmt::e4m3, Fmt::e4m3fnuz};
  if (low == "e5m2") return {Fmt::e5m2, Fmt::e5m2fnuz};
  if (auto x = parse_fmt(low)) return {*x};
  throw DataError(set.dir, 0, "unknown format folder '" + f + "'");
}

std::string hex(uint64_t v, Fmt f) {
  static const char* digits = "0123456789abcdef";
  std::string s = "0x";
  for (int i = info(f).width - 4; i >= 0; i -= 4) s += digits[(v >> i) & 15];
  return s;
}

}  // namespace

double mismatch_upper_bound(std::size_t samples, std::size_t mismatches, double eps) {
  if (mismatches >= samples) return 1;
  const double n = static_cast<double>(samples), m = static_cast<double>(mismatches);
  // x with I_x(m + 1, n - m + 1) = 1 - eps, by Boost.Math's inverse of the
  // complemented regularised incomplete beta (exact in eps, no 1 - eps).
  return boost::math::ibetac_inv(m + 1, n - m + 1, eps);
}

const ModelRow& row_for(const Model& model, const DataSet& set, const std::string& out) {
  const Fmt o = *parse_fmt(out);
  for (Fmt in : folder_formats(set)) {
    const ModelRow* r = set.instruction.empty() ? model.find_data_source(in, o)
                                                : model.find_instr(set.instruction, in, o);
    if (r) return *r;
  }
  throw DataError(set.dir, 0,
                  "model " + model.name + " has no " +
                      (set.instruction.empty() ? "" : "'" + set.instruction + "' ") + "row for " +
                      set.fmt + " -> " + out);
}

Errata Errata::parse(const std::string& text, const std::string& origin) {
  Errata e;
  std::istringstream in(text);
  std::string line;
  for (std::size_t n = 1; std::getline(in, line); ++n) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream is(line);
    std::string key, sum;
    is >> key >> sum;
    if (sum.rfind("fnv1a64=", 0) != 0) throw DataError(origin, n, "expected fnv1a64=<hex> after the path");
    Entry& entry = e.entries[key];
    entry.checksum = std::stoull(sum.substr(8), nullptr, 16);
    std::size_t l;
    while (is >> l) entry.lines.insert(l);
    if (!is.eof()) throw DataError(origin, n, "expected line numbers");
  }
  return e;
}

Errata Errata::load(const std::string& file) {
  std::ifstream in(file);
  if (!in) throw DataError(file, 0, "cannot open");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), file);
}

const Errata& Errata::bundled() {
  static const Errata e = parse(kBundledErrata, "bundled errata");
  return e;
}

uint64_t file_checksum(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  uint64_t h = 0xcbf29ce484222325ull;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    for (std::streamsize i = 0; i < in.gcount(); ++i) {
      h ^= static_cast<unsigned char>(buf[i]);
      h *= 0x100000001b3ull;
    }
  }
  return h;
}

SetResult run_set(const DataSet& set, const std::string& out, const Errata* errata, const Progress& progress) {
  if (is_scaled_instruction(set.instruction)) return run_scaled_set(set, out);  // docs/block-scaled.md
  Model model;
  try {
    model = lookup_model(set.gpu);
  } catch (const std::invalid_argument& e) {
    throw DataError(set.dir, 0, e.what());
  }
  const ModelRow& row = row_for(model, set, out);
  const Samples s = read_samples(set, out);

  SetResult r{set.gpu, info(row.in).name, out, row.instr, s.count(), 0, 0, {}};
  const std::set<std::size_t>* known_bad = nullptr;
  if (errata) {
    const std::string d_file = join({"d_", set.gpu, "_", out, ".txt"});
    auto it = errata->entries.find(join({set.gpu, "/", set.fmt, "/", d_file}));
    if (it != errata->entries.end() && it->second.checksum == file_checksum(set.dir / d_file))
      known_bad = &it->second.lines;
  }
  // Chunks of samples (bounded memory, progress on long runs): the unit's
  // inputs, the fast engine, the comparison. The files hold fp32 patterns
  // of values of the input format; tf32/xf32 units read only the top 10
  // fraction bits (truncation, docs/models.md §2.11).
  const std::size_t n = s.count(), k = s.k, chunk = std::size_t{1} << 16;
  std::vector<uint64_t> a(std::min(n, chunk) * k), b(a.size()), c(std::min(n, chunk)), got(c.size());
  const std::string a_file = join({"a_", set.gpu, "_", set.fmt, ".txt"});
  const Round rm = row.in == Fmt::tf32 ? Round::rz : Round::rne;
  for (std::size_t i0 = 0; i0 < n; i0 += chunk) {
    const std::size_t m = std::min(chunk, n - i0);
    for (std::size_t i = 0; i < m * k; ++i) {
      for (auto [src, dst] : {std::pair{&s.a, &a}, std::pair{&s.b, &b}}) {
        const uint32_t x = (*src)[i0 * k + i];
        const uint64_t v = convert(Fmt::fp32, row.in, x, rm);
        // (-0 has no fnuz encoding and reads as +0.)
        const bool zero = (x & 0x7FFFFFFFu) == 0;
        if (row.in != Fmt::tf32 && !zero && to_fp32_bits(row.in, v) != x && !is_nan(Fmt::fp32, x))
          throw DataError(set.dir / (src == &s.a ? a_file : join({"b_", set.gpu, "_", set.fmt, ".txt"})),
                          i0 + i / k + 1, "value " + hex(x, Fmt::fp32) + " is not a " + info(row.in).name);
        (*dst)[i] = v;
      }
    }
    for (std::size_t i = 0; i < m; ++i) c[i] = convert(Fmt::fp32, row.out, s.c[i0 + i], Round::rne);  // __float2half
    driver::fast_dot_batch(row, m, k, a.data(), b.data(), c.data(), got.data());
    for (std::size_t i = 0; i < m; ++i) {
      const std::size_t line = i0 + i + 1;
      const uint64_t want = convert(Fmt::fp32, row.out, s.d[i0 + i], Round::rne);
      const bool listed = known_bad && known_bad->count(line);
      if (listed && got[i] != want) {
        ++r.excluded;
      } else if (got[i] != want || listed) {  // a listed sample that agrees: stale errata
        ++r.mismatches;
        if (r.first.size() < 3) r.first.push_back({line, want, got[i]});
      }
    }
    if (progress) progress(i0 + m, n);
  }
  return r;
}

std::size_t run(const std::vector<std::string>& roots, std::ostream& os, const Errata* errata, std::FILE* progress) {
  // A progress line (stderr) once a set has run for more than 2 s.
  using clock = std::chrono::steady_clock;
  auto last = clock::now();
  std::string label;
  bool shown = false;
  const Progress report = [&](std::size_t done, std::size_t all) {
    if (!progress || clock::now() - last < std::chrono::seconds(2)) return;
    last = clock::now();
    std::fprintf(progress, "\rvalidate %s: %zu of %zu samples", label.c_str(), done, all);
    std::fflush(progress);
    shown = true;
  };
  std::vector<std::vector<DataSet>> sets_of_roots;
  for (const std::string& root : roots) {
    sets_of_roots.push_back(find_sets(root));
    // No samples is no validation: never a silent pass.
    if (sets_of_roots.back().empty())
      throw DataError(root, 0,
                      "no data sets found (expected ROOT/<GPU>/<format>/ folders holding a_, b_, c_ and "
                      "d_<GPU>_fp32.txt or d_<GPU>_fp16.txt files; give the folder above the GPU folders)");
  }
  char line[256];
  std::snprintf(line, sizeof line, "%-10s %-9s %-6s %-28s %9s %10s %9s %14s\n", "model", "input",
                "output", "instruction", "samples", "mismatches", "excluded", "p_bound(1e-6)");
  os << line;
  std::size_t total = 0, bad = 0, excluded = 0;
  for (const std::vector<DataSet>& sets : sets_of_roots) {
    for (const DataSet& set : sets) {
      for (const std::string& out : set.outputs) {
        label = set.gpu + " " + set.fmt + " -> " + out;
        last = clock::now();
        const SetResult r = run_set(set, out, errata, report);
        if (shown) std::fprintf(progress, "\r%*s\r", 60 + static_cast<int>(label.size()), ""), shown = false;
        std::snprintf(line, sizeof line, "%-10s %-9s %-6s %-28s %9zu %10zu %9zu %14.3e\n",
                      r.gpu.c_str(), r.input.c_str(), r.output.c_str(), r.instruction.c_str(),
                      r.samples, r.mismatches, r.excluded,
                      mismatch_upper_bound(r.samples - r.excluded, r.mismatches));
        os << line;
        const Fmt of = *parse_fmt(out);
        for (const Mismatch& m : r.first)
          os << "    mismatch at " << (set.dir / join({"d_", set.gpu, "_", out, ".txt"})).string()
             << ":" << m.line << ": data " << hex(m.expected, of) << ", model "
             << hex(m.got, of) << (m.expected == m.got ? " (listed in the errata)" : "") << "\n";
        total += r.samples;
        bad += r.mismatches;
        excluded += r.excluded;
      }
    }
  }
  if (excluded)
    os << "excluded: " << excluded
       << " reference samples known to be wrong (toolbox artefacts listed in the errata; --no-errata counts them)\n";
  os << "total: " << total << " samples, " << bad << " mismatches\n";
  return bad;
}

}  // namespace mmaemu::validate
