// SPDX-License-Identifier: BSD-3-Clause
#include "writer.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace mmaemu::hwcheck {

void append_hex8(std::string& s, uint32_t v) {
  static const char* const digits = "0123456789abcdef";
  char buf[8];
  for (int i = 7; i >= 0; --i, v >>= 4) buf[i] = digits[v & 15u];
  s.append(buf, 8);
}

void append_bin32(std::string& s, uint32_t v) {
  char buf[32];
  for (int i = 31; i >= 0; --i, v >>= 1) buf[i] = static_cast<char>('0' + (v & 1u));
  s.append(buf, 32);
}

std::string format_hex_lines(const std::vector<uint32_t>& x, size_t n, int k) {
  if (x.size() < n * static_cast<size_t>(k)) throw std::invalid_argument("format_hex_lines: too few values");
  std::string s;
  s.reserve(n * (9 * static_cast<size_t>(k) + 1));
  for (size_t i = 0; i < n; ++i) {
    for (int l = 0; l < k; ++l) {
      append_hex8(s, x[i * k + l]);
      s.push_back(' ');
    }
    s.push_back('\n');
  }
  return s;
}

std::string format_bin_lines(const std::vector<uint32_t>& x) {
  std::string s;
  s.reserve(x.size() * 33);
  for (uint32_t v : x) {
    append_bin32(s, v);
    s.push_back('\n');
  }
  return s;
}

fs::path dataset_dir(const fs::path& root, const std::string& gpu, InFmt f) {
  return root / gpu / info(f).folder;
}

static void write_file(const fs::path& p, const std::string& text) {
  std::FILE* fp = std::fopen(p.string().c_str(), "wb");
  if (!fp) throw std::runtime_error("cannot write " + p.string());
  const size_t put = std::fwrite(text.data(), 1, text.size(), fp);
  const int closed = std::fclose(fp);
  if (put != text.size() || closed != 0) throw std::runtime_error("short write to " + p.string());
}

fs::path write_dataset(const fs::path& root, const DatasetWrite& w) {
  if (!w.ensemble) throw std::invalid_argument("write_dataset: no ensemble");
  const Ensemble& e = *w.ensemble;
  const size_t n = e.size();
  if ((w.d_fp32 && w.d_fp32->size() != n) || (w.d_fp16 && w.d_fp16->size() != n))
    throw std::invalid_argument("write_dataset: result count differs from the sample count");
  const std::string fmt = info(e.fmt).folder;
  const fs::path dir = dataset_dir(root, w.gpu, e.fmt);
  fs::create_directories(dir);
  const std::string tag = "_" + w.gpu + "_";
  write_file(dir / ("a" + tag + fmt + ".txt"), format_hex_lines(e.a, n, e.k));
  write_file(dir / ("b" + tag + fmt + ".txt"), format_hex_lines(e.b, n, e.k));
  write_file(dir / ("c" + tag + "fp32.txt"), format_bin_lines(e.c));
  if (w.d_fp32) write_file(dir / ("d" + tag + "fp32.txt"), format_bin_lines(*w.d_fp32));
  if (w.d_fp16) write_file(dir / ("d" + tag + "fp16.txt"), format_bin_lines(*w.d_fp16));
  write_file(dir / "instruction.txt", w.instruction + "\n");
  std::string sets = "# set first count\n";
  for (const auto& s : e.sets) sets += s.name + " " + std::to_string(s.first) + " " + std::to_string(s.count) + "\n";
  write_file(dir / "sets.txt", sets);
  if (!w.meta.empty()) write_file(dir / "meta.txt", w.meta.back() == '\n' ? w.meta : w.meta + "\n");
  return dir;
}

// ------------------------------------------------------------- reading ---

static std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + p.string());
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

[[noreturn]] static void bad(const fs::path& p, size_t line, const std::string& what) {
  throw std::runtime_error(p.string() + ":" + std::to_string(line + 1) + ": " + what);
}

static std::vector<std::string_view> lines_of(const fs::path& p, const std::string& text) {
  std::vector<std::string_view> out;
  if (!text.empty() && text.back() != '\n') bad(p, 0, "file does not end with a newline");
  size_t start = 0;
  while (start < text.size()) {
    const size_t end = text.find('\n', start);
    out.emplace_back(text.data() + start, end - start);
    start = end + 1;
  }
  return out;
}

static std::vector<uint32_t> parse_hex(const fs::path& p, int& k) {
  const std::string text = slurp(p);
  std::vector<uint32_t> v;
  const auto lines = lines_of(p, text);
  for (size_t ln = 0; ln < lines.size(); ++ln) {
    const std::string_view l = lines[ln];
    if (l.size() % 9 != 0 || l.empty()) bad(p, ln, "line is not a sequence of 'xxxxxxxx ' tokens");
    const int kk = static_cast<int>(l.size() / 9);
    if (k == 0) k = kk;
    if (kk != k) bad(p, ln, "token count differs from the first line");
    for (int t = 0; t < kk; ++t) {
      uint32_t x = 0;
      for (int i = 0; i < 8; ++i) {
        const char ch = l[t * 9 + i];
        int dgt;
        if (ch >= '0' && ch <= '9') dgt = ch - '0';
        else if (ch >= 'a' && ch <= 'f') dgt = ch - 'a' + 10;
        else bad(p, ln, "not a lower-case hex digit");
        x = (x << 4) | static_cast<uint32_t>(dgt);
      }
      if (l[t * 9 + 8] != ' ') bad(p, ln, "token not followed by a space");
      v.push_back(x);
    }
  }
  return v;
}

static std::vector<uint32_t> parse_bin(const fs::path& p) {
  const std::string text = slurp(p);
  std::vector<uint32_t> v;
  const auto lines = lines_of(p, text);
  for (size_t ln = 0; ln < lines.size(); ++ln) {
    const std::string_view l = lines[ln];
    if (l.size() != 32) bad(p, ln, "line is not 32 characters");
    uint32_t x = 0;
    for (char ch : l) {
      if (ch != '0' && ch != '1') bad(p, ln, "not a binary digit");
      x = (x << 1) | static_cast<uint32_t>(ch - '0');
    }
    v.push_back(x);
  }
  return v;
}

Dataset read_dataset(const fs::path& root, const std::string& gpu, InFmt f) {
  const fs::path dir = dataset_dir(root, gpu, f);
  const std::string fmt = info(f).folder, tag = "_" + gpu + "_";
  Dataset d;
  int ka = 0, kb = 0;
  d.a = parse_hex(dir / ("a" + tag + fmt + ".txt"), ka);
  d.b = parse_hex(dir / ("b" + tag + fmt + ".txt"), kb);
  if (ka != kb) throw std::runtime_error("a and b have different k in " + dir.string());
  d.k = ka;
  d.c = parse_bin(dir / ("c" + tag + "fp32.txt"));
  d.n = d.c.size();
  if (d.k == 0 ? !d.a.empty() : d.a.size() != d.n * d.k || d.b.size() != d.n * d.k)
    throw std::runtime_error("a/b/c line counts differ in " + dir.string());
  if (fs::exists(dir / ("d" + tag + "fp32.txt"))) {
    d.d_fp32 = parse_bin(dir / ("d" + tag + "fp32.txt"));
    d.has_d_fp32 = true;
    if (d.d_fp32.size() != d.n) throw std::runtime_error("d_fp32 line count differs in " + dir.string());
  }
  if (fs::exists(dir / ("d" + tag + "fp16.txt"))) {
    d.d_fp16 = parse_bin(dir / ("d" + tag + "fp16.txt"));
    d.has_d_fp16 = true;
    if (d.d_fp16.size() != d.n) throw std::runtime_error("d_fp16 line count differs in " + dir.string());
  }
  if (fs::exists(dir / "instruction.txt")) {
    const std::string t = slurp(dir / "instruction.txt");
    d.instruction = t.substr(0, t.find('\n'));
  }
  if (fs::exists(dir / "sets.txt")) {
    std::istringstream in(slurp(dir / "sets.txt"));
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream ls(line);
      SetRange s;
      if (!(ls >> s.name >> s.first >> s.count)) throw std::runtime_error("bad line in sets.txt: " + line);
      d.sets.push_back(s);
    }
  }
  return d;
}

}  // namespace mmaemu::hwcheck
