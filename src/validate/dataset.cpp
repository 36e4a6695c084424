// SPDX-License-Identifier: BSD-3-Clause
#include "validate/dataset.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <string_view>

#include "validate/npy.h"

namespace mmaemu::validate {
namespace fs = std::filesystem;

namespace {

// A d_ file other than d_<GPU>_fp32 / d_<GPU>_fp16 (.txt, .npy) would be
// skipped, half a set validated without a word: it is refused instead.
void check_d_files(const DataSet& s) {
  for (const auto& f : fs::directory_iterator(s.dir)) {
    const std::string name = f.path().filename().string(), ext = f.path().extension().string();
    if (!f.is_regular_file() || name.rfind("d_", 0) != 0 || (ext != ".txt" && ext != ".npy")) continue;
    const std::string stem = f.path().stem().string(), prefix = join({"d_", s.gpu, "_"});
    if (stem == prefix + "fp32" || stem == prefix + "fp16") continue;
    const std::string out = stem.rfind(prefix, 0) == 0 ? stem.substr(prefix.size()) : "";
    throw DataError(f.path(), 0,
                    (out.empty() ? "not a results file of " + s.gpu
                                 : "results in '" + out + "', an output format no unit of the models has") +
                        " (the validator reads d_" + s.gpu + "_fp32 and d_" + s.gpu + "_fp16, .txt or .npy)");
  }
}

// The first non-blank line of the set's instruction.txt ("" if there is no
// such file); a file without one is refused.
std::string read_instruction(const fs::path& dir) {
  std::ifstream in{dir / "instruction.txt"};
  if (!in) return "";
  for (std::string line; std::getline(in, line);) {
    line.erase(std::remove_if(line.begin(), line.end(), ::isspace), line.end());
    if (!line.empty()) return line;
  }
  throw DataError(dir / "instruction.txt", 0,
                  "empty: it must name the instruction of the set (e.g. tcgen05.mma.kind::mxf8f6f4.block32.ue8m0), "
                  "or be removed");
}

}  // namespace

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
        if (fs::exists(s.dir / join({"d_", s.gpu, "_", out, ".txt"})) ||
            fs::exists(s.dir / join({"d_", s.gpu, "_", out, ".npy"})))
          s.outputs.push_back(out);
      check_d_files(s);
      if (s.outputs.empty()) continue;
      s.instruction = read_instruction(s.dir);
      sets.push_back(s);
    }
  }
  std::sort(sets.begin(), sets.end(),
            [](const DataSet& x, const DataSet& y) { return x.dir < y.dir; });
  return sets;
}

namespace {

// The whole file in one read.
std::string slurp(const fs::path& file) {
  std::FILE* f = std::fopen(file.c_str(), "rb");
  if (!f) throw DataError(file, 0, "cannot open");
  std::string s;
  char buf[1 << 16];
  for (std::size_t got; (got = std::fread(buf, 1, sizeof buf, f)) > 0;) s.append(buf, got);
  const bool failed = std::ferror(f);
  std::fclose(f);
  if (failed) throw DataError(file, 0, "cannot read");
  return s;
}

// The lines of a text as std::getline splits them: a last line without a
// newline is a line; the newline ending the last line starts none.
class Lines {
 public:
  explicit Lines(const std::string& text) : s_(text) {}
  bool next(std::string_view& line) {
    if (pos_ >= s_.size()) return false;
    std::size_t end = s_.find('\n', pos_);
    if (end == std::string::npos) end = s_.size();
    line = std::string_view(s_).substr(pos_, end - pos_);
    pos_ = end + 1;
    ++number_;
    return true;
  }
  bool at_end() const { return pos_ >= s_.size(); }  // std::istream::peek() == EOF
  std::size_t number() const { return number_; }

 private:
  const std::string& s_;
  std::size_t pos_ = 0, number_ = 0;
};

// isspace in the "C" locale (what operator>> splits words at).
bool is_space(char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

// Hex digit values; -1 for other characters.
constexpr std::array<int8_t, 256> kHexDigit = [] {
  std::array<int8_t, 256> t{};
  t.fill(-1);
  for (int i = 0; i < 10; ++i) t['0' + i] = static_cast<int8_t>(i);
  for (int i = 0; i < 6; ++i) t['a' + i] = t['A' + i] = static_cast<int8_t>(10 + i);
  return t;
}();

// The hex word t of `digits` digits, or -1.
int64_t hex_word(std::string_view t, std::size_t digits) {
  if (t.size() != digits) return -1;
  uint32_t v = 0;
  for (char c : t) {
    const int d = kHexDigit[static_cast<unsigned char>(c)];
    if (d < 0) return -1;
    v = v << 4 | static_cast<uint32_t>(d);
  }
  return v;
}

const char* kind_of_number(const fs::path& f) { return f.extension() == ".npy" ? "record" : "line"; }

// (samples, k) rows of a, b: text or .npy.
std::vector<uint32_t> read_rows(const fs::path& file, std::size_t& k) {
  if (file.extension() != ".npy") return read_hex(file, k);
  NpyArray a = read_npy(file);
  if (a.shape.size() != 2 || a.shape[0] == 0 || a.shape[1] == 0)
    throw DataError(file, 0, "shape " + shape_text(a.shape) + " (expected (samples, k), both non-zero)");
  k = a.shape[1];
  return std::move(a.data);
}

// (samples,) values of c, d: text or .npy.
std::vector<uint32_t> read_column(const fs::path& file) {
  if (file.extension() != ".npy") return read_binary(file);
  NpyArray a = read_npy(file);
  if (a.shape.size() != 1) throw DataError(file, 0, "shape " + shape_text(a.shape) + " (expected (samples,))");
  return std::move(a.data);
}

}  // namespace

// Reads lines of whitespace-separated hex words; all lines equal length.
std::vector<uint32_t> read_hex(const fs::path& file, std::size_t& k, std::size_t digits) {
  const std::string text = slurp(file);
  std::vector<uint32_t> v;
  v.reserve(text.size() / 9 + 1);
  Lines lines(text);
  std::string_view line;
  k = 0;
  while (lines.next(line)) {
    std::size_t count = 0;
    for (std::size_t i = 0;;) {
      while (i < line.size() && is_space(line[i])) ++i;
      if (i == line.size()) break;
      std::size_t j = i;
      while (j < line.size() && !is_space(line[j])) ++j;
      const std::string_view tok = line.substr(i, j - i);
      const int64_t x = hex_word(tok, digits);
      if (x < 0)
        throw DataError(file, lines.number(),
                        std::string(digits == 8 ? "expected an 8-digit hex word" : "expected a 2-digit hex scale code") +
                            ", got '" + std::string(tok) + "'");
      v.push_back(static_cast<uint32_t>(x));
      ++count;
      i = j;
    }
    if (count == 0) {
      if (lines.at_end()) break;  // tolerate one trailing empty line
      throw DataError(file, lines.number(), "empty line");
    }
    if (k == 0) k = count;
    else if (count != k)
      throw DataError(file, lines.number(),
                      "expected " + std::to_string(k) + " values, got " + std::to_string(count) + " (line 1 has " +
                          std::to_string(k) + ")");
  }
  if (v.empty()) throw DataError(file, 0, "empty file");
  return v;
}

// Reads lines holding one 32-character binary string each.
std::vector<uint32_t> read_binary(const fs::path& file) {
  const std::string text = slurp(file);
  std::vector<uint32_t> v;
  v.reserve(text.size() / 33 + 1);
  Lines lines(text);
  std::string_view line;
  while (lines.next(line)) {
    while (!line.empty() && is_space(line.back())) line.remove_suffix(1);
    if (line.empty() && lines.at_end()) break;
    uint32_t x = 0;
    bool ok = line.size() == 32;
    for (std::size_t i = 0; ok && i < 32; ++i) {
      ok = line[i] == '0' || line[i] == '1';
      x = x << 1 | static_cast<uint32_t>(line[i] - '0');
    }
    if (!ok) throw DataError(file, lines.number(), "expected a 32-character binary string");
    v.push_back(x);
  }
  return v;
}

fs::path data_file(const DataSet& set, const std::string& name) {
  fs::path npy = set.dir / (name + ".npy");
  return fs::exists(npy) ? npy : set.dir / (name + ".txt");
}

Samples read_samples(const DataSet& set, const std::string& out, const fs::path& a_file, const fs::path& b_file) {
  Samples s;
  std::size_t kb = 0;
  s.a_file = a_file.empty() ? data_file(set, join({"a_", set.gpu, "_", set.fmt})) : a_file;
  s.b_file = b_file.empty() ? data_file(set, join({"b_", set.gpu, "_", set.fmt})) : b_file;
  s.c_file = data_file(set, join({"c_", set.gpu, "_fp32"}));
  s.d_file = data_file(set, join({"d_", set.gpu, "_", out}));
  const fs::path &fa = s.a_file, &fb = s.b_file;
  s.a = read_rows(fa, s.k);
  s.b = read_rows(fb, kb);
  s.c = read_column(s.c_file);
  s.d = read_column(s.d_file);
  if (kb != s.k)
    throw DataError(fb, fb.extension() == ".npy" ? 0 : 1,
                    "k = " + std::to_string(kb) + " differs from " + fa.filename().string());
  const std::size_t n = s.a.size() / s.k;
  // A file with extra samples: the first extra line; a short file: no line
  // of it is wrong (it ends early), so no line number.
  auto check = [&](const fs::path& f, std::size_t m) {
    const std::string counts = "has " + std::to_string(m) + " samples, " + fa.filename().string() + " has " +
                               std::to_string(n);
    if (m > n) throw DataError(f, n + 1, counts + " (this sample has no counterpart)");
    if (m < n)
      throw DataError(f, 0, counts + " (it ends after " + kind_of_number(f) + " " + std::to_string(m) + ")");
  };
  check(fb, s.b.size() / s.k);
  check(s.c_file, s.c.size());
  check(s.d_file, s.d.size());
  return s;
}

}  // namespace mmaemu::validate
