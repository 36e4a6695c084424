// SPDX-License-Identifier: BSD-3-Clause
#include "validate/validate.h"

#include "validate/sample_engine.h"
#include "validate/scaled_set.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <exception>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <ostream>
#include <sstream>

#include <boost/math/special_functions/beta.hpp>

#include "driver/gemm.h"


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

// The engine's result for every sample. Chunks of 2^15 operands (packed,
// 1 MiB: they stay in the caches), spread over the threads in one parallel
// region: each thread converts its chunks' fp32 patterns to the unit's
// inputs (its own memo; the files hold values of the input format, tf32
// units read only the top 10 fraction bits: truncation, docs/models.md
// §2.11) and runs them. Throws DataError at the first value, in the order
// a[0], b[0], a[1], ..., that is not a value of row.in.
std::vector<uint64_t> run_samples(const ModelRow& row, const Samples& s, int threads, const Progress& progress) {
  const std::size_t n = s.count(), k = s.k, chunk = std::max<std::size_t>(64, (std::size_t{1} << 15) / k);
  const std::size_t chunks = (n + chunk - 1) / chunk;
  // A thread per 2^19 operands at most: each thread fills its own memo, and
  // on a small set that costs more than the samples.
  const std::size_t most = std::max<std::size_t>(1, n * k >> 19);
  const int team = static_cast<int>(std::min({static_cast<std::size_t>(driver::thread_count(threads)), chunks, most}));
  std::vector<uint64_t> got(n);
  std::atomic<std::size_t> first_bad{SIZE_MAX}, done{0};  // first_bad: 2 * index + (1 for b)
  std::exception_ptr failure;
  std::mutex failure_mutex;
  std::atomic<std::size_t> next_chunk{0};
  // One task per member of the team, each with its own memo and buffers,
  // taking chunks in order as it frees up.
  const std::size_t members = static_cast<std::size_t>(std::max(team, 1));
  driver::parallel_for(team, members, driver::Assign::blocks, [&](std::size_t member) {
    Elements elements(row, 2 * n * k);
    Operands a, b;
    a.resize(chunk * k), b.resize(chunk * k);
    std::vector<uint64_t> c(chunk);
    for (std::size_t ci; (ci = next_chunk.fetch_add(1)) < chunks;) {
      const std::size_t i0 = ci * chunk, m = std::min(chunk, n - i0);
      if (2 * i0 * k > first_bad.load()) continue;  // after a bad value: no need
      try {
        bool ok = true;
        for (std::size_t i = 0; i < m * k && ok; ++i) {
          const Element ea = elements(s.a[i0 * k + i]), eb = elements(s.b[i0 * k + i]);
          if (!ea.exact || !eb.exact) {
            const std::size_t at = 2 * (i0 * k + i) + (ea.exact ? 1 : 0);
            for (std::size_t cur = first_bad.load(); at < cur && !first_bad.compare_exchange_weak(cur, at);) {
            }
            ok = false;
          }
          a.set(i, ea), b.set(i, eb);
        }
        if (!ok) continue;
        for (std::size_t i = 0; i < m; ++i) c[i] = output_code(row.out, s.c[i0 + i]);  // __float2half
        dot_samples(row, m, k, a, b, c.data(), got.data() + i0, 1);
        done += m;
        if (progress && member == 0) progress(done.load(), n);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
      }
    }
  });
  if (failure) std::rethrow_exception(failure);
  if (first_bad.load() != SIZE_MAX) {
    const std::size_t j = first_bad.load() / 2;
    const bool in_b = first_bad.load() & 1;
    throw DataError(in_b ? s.b_file : s.a_file, j / k + 1,
                    "value " + hex((in_b ? s.b : s.a)[j], Fmt::fp32) + " is not a " + info(row.in).name);
  }
  return got;
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

uint64_t text_checksum(const std::vector<uint32_t>& d) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto add = [&h](unsigned char ch) {
    h ^= ch;
    h *= 0x100000001b3ull;
  };
  for (uint32_t x : d) {
    for (int i = 31; i >= 0; --i) add(static_cast<unsigned char>('0' + ((x >> i) & 1)));
    add('\n');
  }
  return h;
}

SetResult run_set(const DataSet& set, const std::string& out, const Errata* errata, const Progress& progress,
                  int threads) {
  if (is_scaled_instruction(set.instruction)) return run_scaled_set(set, out);  // docs/block-scaled.md
  Model model;
  try {
    model = lookup_model(set.gpu);
  } catch (const std::invalid_argument& e) {
    throw DataError(set.dir, 0, e.what());
  }
  const ModelRow& row = row_for(model, set, out);
  const Samples s = read_samples(set, out);

  SetResult r{set.gpu, info(row.in).name, out, row.instr, s.count(), 0, 0, {}, s.d_file};
  const std::set<std::size_t>* known_bad = nullptr;
  if (errata) {
    // Keyed by the text file's name: a .npy written by --convert holds the
    // same samples, checked by the checksum of their text form.
    const std::string d_file = join({"d_", set.gpu, "_", out, ".txt"});
    auto it = errata->entries.find(join({set.gpu, "/", set.fmt, "/", d_file}));
    if (it != errata->entries.end() &&
        it->second.checksum == (s.d_file.extension() == ".npy" ? text_checksum(s.d) : file_checksum(s.d_file)))
      known_bad = &it->second.lines;
  }
  const std::vector<uint64_t> got = run_samples(row, s, threads, progress);
  for (std::size_t i = 0; i < s.count(); ++i) {
    const std::size_t line = i + 1;
    const uint64_t want = output_code(row.out, s.d[i]);
    const bool listed = known_bad && known_bad->count(line);
    if (listed && got[i] != want) {
      ++r.excluded;
    } else if (got[i] != want || listed) {  // a listed sample that agrees: stale errata
      ++r.mismatches;
      if (r.first.size() < 3) r.first.push_back({line, want, got[i]});
    }
  }
  return r;
}

std::size_t run(const std::vector<std::string>& roots, std::ostream& os, const Errata* errata, std::FILE* progress,
                int threads) {
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
        const SetResult r = run_set(set, out, errata, report, threads);
        if (shown) std::fprintf(progress, "\r%*s\r", 60 + static_cast<int>(label.size()), ""), shown = false;
        std::snprintf(line, sizeof line, "%-10s %-9s %-6s %-28s %9zu %10zu %9zu %14.3e\n",
                      r.gpu.c_str(), r.input.c_str(), r.output.c_str(), r.instruction.c_str(),
                      r.samples, r.mismatches, r.excluded,
                      mismatch_upper_bound(r.samples - r.excluded, r.mismatches));
        os << line;
        const Fmt of = *parse_fmt(out);
        for (const Mismatch& m : r.first)
          os << "    mismatch at " << r.d_file.string()
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
