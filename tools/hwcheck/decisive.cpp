// SPDX-License-Identifier: BSD-3-Clause
#include "decisive.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace mmaemu::hwcheck {
namespace {

[[noreturn]] void bad(const std::filesystem::path& file, int line, const std::string& what) {
  throw std::runtime_error(file.string() + ":" + std::to_string(line) + ": " + what);
}

uint32_t parse_code(const std::filesystem::path& file, int line, const std::string& s) {
  std::size_t used = 0;
  unsigned long v = 0;
  try {
    v = std::stoul(s, &used, 16);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != s.size() || s.empty() || v > 0xFFFFFFFFul) bad(file, line, "not a hex code: '" + s + "'");
  return static_cast<uint32_t>(v);
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::istringstream is(s);
  for (std::string w; std::getline(is, w, sep);)
    if (!w.empty()) out.push_back(w);
  return out;
}

std::vector<std::pair<int, uint32_t>> parse_elements(const std::filesystem::path& file, int line,
                                                     const std::string& s) {
  std::vector<std::pair<int, uint32_t>> v;
  if (s == "-") return v;
  for (const std::string& item : split(s, ',')) {
    const std::size_t colon = item.find(':');
    if (colon == std::string::npos) bad(file, line, "expected pos:code, got '" + item + "'");
    const std::string pos = item.substr(0, colon);
    int p = -1;
    if (pos != "*") {
      try {
        p = std::stoi(pos);
      } catch (const std::exception&) {
        p = -2;
      }
      if (p < 0 || p > 1023) bad(file, line, "bad position '" + pos + "'");
    }
    v.push_back({p, parse_code(file, line, item.substr(colon + 1))});
  }
  return v;
}

// The fp32 bit pattern of a code of a libmmaemu format the harness knows
// (fp32 itself, or one of its input formats); nullopt for the others.
std::optional<uint32_t> widen(const std::string& fmt, uint32_t code) {
  if (fmt == "fp32") return code;
  const std::optional<InFmt> f = parse_infmt(fmt);
  if (!f) return std::nullopt;
  return decode_to_fp32(*f, code);
}

}  // namespace

std::vector<DecisiveVector> load_decisive(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error(file.string() + ": cannot read");
  std::vector<DecisiveVector> vs;
  std::string text;
  for (int line = 1; std::getline(in, text); ++line) {
    std::istringstream is(text.substr(0, text.find('#')));
    std::vector<std::string> f;
    for (std::string w; is >> w;) f.push_back(w);
    if (f.empty()) continue;
    if (f.size() != 12) bad(file, line, "12 columns expected, got " + std::to_string(f.size()));
    DecisiveVector v;
    v.line = line;
    v.id = f[0];
    v.gpus = split(f[1], ',');
    v.instr = f[2];
    v.in = f[3];
    v.out = f[4];
    v.c = parse_code(file, line, f[5]);
    v.a = parse_elements(file, line, f[6]);
    v.b = parse_elements(file, line, f[7]);
    vs.push_back(std::move(v));
  }
  return vs;
}

Ensemble decisive_set(const std::vector<DecisiveVector>& vs, const std::string& instr, InFmt f, int k) {
  Ensemble e;
  e.fmt = f;
  e.k = k;
  std::string fname = info(f).folder;
  for (char& ch : fname) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  // wmma lowers to the HMMA instructions of mma.sync (as Model::find_instr reads it).
  const std::string row_instr = instr == "wmma" ? "mma.sync" : instr;
  for (const DecisiveVector& v : vs) {
    if (v.instr != row_instr || v.in != fname) continue;
    const std::optional<uint32_t> c = widen(v.out, v.c);
    if (!c) continue;  // an output format the harness does not write
    auto fill = [&](const std::vector<std::pair<int, uint32_t>>& elems) {
      std::vector<uint32_t> x(static_cast<std::size_t>(k), 0);
      for (auto [pos, code] : elems) {
        const uint32_t bits = decode_to_fp32(f, code);
        if (pos < 0) std::fill(x.begin(), x.end(), bits);
        else if (pos < k) x[static_cast<std::size_t>(pos)] = bits;
        else throw std::runtime_error("decisive vector " + v.id + ": position " + std::to_string(pos) +
                                      " beyond the instruction's k = " + std::to_string(k));
      }
      return x;
    };
    const std::vector<uint32_t> a = fill(v.a), b = fill(v.b);
    e.sets.push_back({"decisive:" + v.id, e.c.size(), 1});
    e.a.insert(e.a.end(), a.begin(), a.end());
    e.b.insert(e.b.end(), b.begin(), b.end());
    e.c.push_back(*c);
  }
  return e;
}

}  // namespace mmaemu::hwcheck
