// SPDX-License-Identifier: BSD-3-Clause
#include "validate/dataset.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace mmaemu::validate {
namespace fs = std::filesystem;

std::vector<DataSet> find_sets(const fs::path& root) {
  if (!fs::is_directory(root)) throw DataError(root, 0, "not a directory");
  std::vector<DataSet> sets;
  for (const auto& g : fs::directory_iterator(root)) {
    if (!g.is_directory()) continue;
    for (const auto& f : fs::directory_iterator(g.path())) {
      if (!f.is_directory()) continue;
      DataSet s;
      s.dir = f.path();
      s.gpu = g.path().filename().string();
      s.fmt = f.path().filename().string();
      for (const char* out : {"fp32", "fp16"})
        if (fs::exists(s.dir / join({"d_", s.gpu, "_", out, ".txt"}))) s.outputs.push_back(out);
      if (s.outputs.empty()) continue;
      if (std::ifstream in{s.dir / "instruction.txt"}) {
        std::string line;
        while (std::getline(in, line)) {
          line.erase(std::remove_if(line.begin(), line.end(), ::isspace), line.end());
          if (!line.empty()) {
            s.instruction = line;
            break;
          }
        }
      }
      sets.push_back(s);
    }
  }
  std::sort(sets.begin(), sets.end(),
            [](const DataSet& x, const DataSet& y) { return x.dir < y.dir; });
  return sets;
}

// Reads lines of whitespace-separated 8-digit hex words; all lines equal length.
std::vector<uint32_t> read_hex(const fs::path& file, std::size_t& k) {
  std::ifstream in(file);
  if (!in) throw DataError(file, 0, "cannot open");
  std::vector<uint32_t> v;
  std::string line;
  std::size_t n = 0;
  k = 0;
  while (std::getline(in, line)) {
    ++n;
    std::istringstream is(line);
    std::string tok;
    std::size_t count = 0;
    while (is >> tok) {
      if (tok.size() != 8 || tok.find_first_not_of("0123456789abcdefABCDEF") != std::string::npos)
        throw DataError(file, n, "expected an 8-digit hex word, got '" + tok + "'");
      v.push_back(static_cast<uint32_t>(std::stoul(tok, nullptr, 16)));
      ++count;
    }
    if (count == 0) {
      if (in.peek() == EOF) break;  // tolerate one trailing empty line
      throw DataError(file, n, "empty line");
    }
    if (k == 0) k = count;
    else if (count != k)
      throw DataError(file, n, "expected " + std::to_string(k) + " values, got " + std::to_string(count) +
                                   " (line 1 has " + std::to_string(k) + ")");
  }
  if (n == 0) throw DataError(file, 0, "empty file");
  return v;
}

// Reads lines holding one 32-character binary string each.
std::vector<uint32_t> read_binary(const fs::path& file) {
  std::ifstream in(file);
  if (!in) throw DataError(file, 0, "cannot open");
  std::vector<uint32_t> v;
  std::string line;
  std::size_t n = 0;
  while (std::getline(in, line)) {
    ++n;
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.pop_back();
    if (line.empty() && in.peek() == EOF) break;
    if (line.size() != 32 || line.find_first_not_of("01") != std::string::npos)
      throw DataError(file, n, "expected a 32-character binary string");
    v.push_back(static_cast<uint32_t>(std::stoul(line, nullptr, 2)));
  }
  return v;
}

Samples read_samples(const DataSet& set, const std::string& out) {
  Samples s;
  std::size_t kb = 0;
  const fs::path fa = set.dir / join({"a_", set.gpu, "_", set.fmt, ".txt"});
  const fs::path fb = set.dir / join({"b_", set.gpu, "_", set.fmt, ".txt"});
  const fs::path fc = set.dir / join({"c_", set.gpu, "_fp32.txt"});
  const fs::path fd = set.dir / join({"d_", set.gpu, "_", out, ".txt"});
  s.a = read_hex(fa, s.k);
  s.b = read_hex(fb, kb);
  s.c = read_binary(fc);
  s.d = read_binary(fd);
  if (kb != s.k)
    throw DataError(fb, 1, "k = " + std::to_string(kb) + " differs from " + fa.filename().string());
  const std::size_t n = s.a.size() / s.k;
  // A file with extra samples: the first extra line; a short file: no line
  // of it is wrong (it ends early), so no line number.
  auto check = [&](const fs::path& f, std::size_t m) {
    const std::string counts = "has " + std::to_string(m) + " samples, " + fa.filename().string() + " has " +
                               std::to_string(n);
    if (m > n) throw DataError(f, n + 1, counts + " (this sample has no counterpart)");
    if (m < n) throw DataError(f, 0, counts + " (it ends after line " + std::to_string(m) + ")");
  };
  check(fb, s.b.size() / s.k);
  check(fc, s.c.size());
  check(fd, s.d.size());
  return s;
}

}  // namespace mmaemu::validate
