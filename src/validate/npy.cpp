// SPDX-License-Identifier: BSD-3-Clause
// The .npy layout (numpy's format.py, "NEP 1"): the magic "\x93NUMPY", a
// major and minor version byte, the header length (2 bytes little-endian in
// version 1.0, 4 bytes in 2.0 and 3.0), the header (a Python dict literal
// with the keys 'descr', 'fortran_order' and 'shape', padded with spaces
// and a newline so that the data starts at a multiple of 64 bytes), then
// the elements in C order.
#include "validate/npy.h"

#include <bit>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>

#include "validate/dataset.h"

namespace mmaemu::validate {
namespace fs = std::filesystem;
static_assert(std::endian::native == std::endian::little, "the .npy reader assumes a little-endian host");

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;

// A parser of the header dict: {'key': value, ...}; values are a quoted
// string, True/False, or a tuple of non-negative integers.
class HeaderParser {
 public:
  HeaderParser(const fs::path& file, const std::string& text) : file_(file), s_(text) {}

  std::map<std::string, std::string> parse() {
    std::map<std::string, std::string> d;
    expect('{');
    while (peek() != '}') {
      const std::string key = quoted();
      expect(':');
      const char first = peek();
      std::string value;
      if (first == '\'' || first == '"') {  // kept quoted (GCC 12 -Wrestrict: no "'" + x)
        value = '\'';
        value += quoted();
        value += '\'';
      } else if (first == '(') {
        value = tuple();
      } else {
        value = word();
      }
      if (!d.emplace(key, value).second) fail("key '" + key + "' given twice");
      if (peek() == ',') ++i_;
    }
    ++i_;
    return d;
  }

 private:
  [[noreturn]] void fail(const std::string& what) { throw DataError(file_, 0, ".npy header: " + what); }
  void skip_space() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  char peek() {
    skip_space();
    if (i_ >= s_.size()) fail("ends early");
    return s_[i_];
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "' at offset " + std::to_string(i_));
    ++i_;
  }
  std::string quoted() {
    const char q = peek();
    if (q != '\'' && q != '"') fail("expected a quoted name at offset " + std::to_string(i_));
    const std::size_t end = s_.find(q, i_ + 1);
    if (end == std::string::npos) fail("unterminated string");
    std::string v = s_.substr(i_ + 1, end - i_ - 1);
    i_ = end + 1;
    return v;
  }
  std::string word() {
    std::size_t j = i_;
    while (j < s_.size() && std::isalnum(static_cast<unsigned char>(s_[j]))) ++j;
    std::string v = s_.substr(i_, j - i_);
    i_ = j;
    return v;
  }
  // "(a, b)" normalised to "a,b"; "(a,)" to "a,".
  std::string tuple() {
    const std::size_t end = s_.find(')', i_);
    if (end == std::string::npos) fail("unterminated shape");
    std::string v;
    for (std::size_t j = i_ + 1; j < end; ++j) {
      const char c = s_[j];
      if (std::isdigit(static_cast<unsigned char>(c)) || c == ',') v += c;
      else if (!std::isspace(static_cast<unsigned char>(c))) fail("shape is not a tuple of integers");
    }
    i_ = end + 1;
    return v;
  }

  const fs::path& file_;
  const std::string& s_;
  std::size_t i_ = 0;
};

std::vector<std::size_t> parse_shape(const fs::path& file, const std::string& t) {
  std::vector<std::size_t> shape;
  std::size_t i = 0;
  while (i < t.size()) {
    const std::size_t comma = t.find(',', i);
    const std::string dim = t.substr(i, comma == std::string::npos ? std::string::npos : comma - i);
    if (dim.empty() || dim.size() > 15) throw DataError(file, 0, ".npy header: bad shape (" + t + ")");
    shape.push_back(std::stoull(dim));
    if (comma == std::string::npos) break;
    i = comma + 1;
  }
  return shape;
}

}  // namespace

std::string shape_text(const std::vector<std::size_t>& shape) {
  std::string s = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

NpyArray read_npy(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw DataError(file, 0, "cannot open");
  char pre[12] = {};
  in.read(pre, 10);
  if (in.gcount() < 10 || std::memcmp(pre, kMagic, kMagicLen) != 0) throw DataError(file, 0, "not a .npy file");
  const int major = static_cast<unsigned char>(pre[6]);
  if (major < 1 || major > 3) throw DataError(file, 0, ".npy format version " + std::to_string(major) + " (1, 2 or 3 expected)");
  std::size_t header_len = static_cast<unsigned char>(pre[8]) | static_cast<std::size_t>(static_cast<unsigned char>(pre[9])) << 8;
  if (major >= 2) {
    in.read(pre + 10, 2);
    if (in.gcount() < 2) throw DataError(file, 0, ".npy header: ends early");
    header_len |= static_cast<std::size_t>(static_cast<unsigned char>(pre[10])) << 16 |
                  static_cast<std::size_t>(static_cast<unsigned char>(pre[11])) << 24;
  }
  if (header_len > (1u << 20)) throw DataError(file, 0, ".npy header: too long");
  std::string header(header_len, '\0');
  in.read(header.data(), static_cast<std::streamsize>(header_len));
  if (static_cast<std::size_t>(in.gcount()) != header_len) throw DataError(file, 0, ".npy header: ends early");

  const auto d = HeaderParser(file, header).parse();
  for (const auto& [key, value] : d)
    if (key != "descr" && key != "fortran_order" && key != "shape")
      throw DataError(file, 0, ".npy header: unknown key '" + key + "'");
  for (const char* key : {"descr", "fortran_order", "shape"})
    if (!d.count(key)) throw DataError(file, 0, std::string(".npy header: no '") + key + "'");
  NpyArray a;
  a.descr = d.at("descr");
  a.descr = a.descr.substr(1, a.descr.size() - 2);
  if (a.descr != "<f4" && a.descr != "<u4")
    throw DataError(file, 0, "dtype '" + a.descr + "' (expected '<f4' or '<u4': fp32 bit patterns, little-endian)");
  a.shape = parse_shape(file, d.at("shape"));
  if (d.at("fortran_order") != "False" && a.shape.size() > 1)
    throw DataError(file, 0, "Fortran order (expected C order: numpy.ascontiguousarray)");
  std::size_t count = 1;
  for (std::size_t s : a.shape) {
    if (s && count > (std::size_t{1} << 40) / s) throw DataError(file, 0, "shape " + shape_text(a.shape) + " too large");
    count *= s;
  }
  a.data.resize(count);
  in.read(reinterpret_cast<char*>(a.data.data()), static_cast<std::streamsize>(count * 4));
  const auto got = static_cast<std::size_t>(in.gcount());
  if (got != count * 4)
    throw DataError(file, 0, "truncated: shape " + shape_text(a.shape) + " needs " + std::to_string(count * 4) +
                                 " data bytes, the file holds " + std::to_string(got));
  if (in.peek() != std::ifstream::traits_type::eof())
    throw DataError(file, 0, "bytes after the data of shape " + shape_text(a.shape));
  return a;
}

void write_npy(const fs::path& file, const std::vector<std::size_t>& shape, const std::vector<uint32_t>& data) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " + shape_text(shape) + ", }";
  // Spaces and a newline up to a multiple of 64 bytes (with the 10-byte preamble).
  header.append((64 - (10 + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::ofstream out(file, std::ios::binary);
  const std::size_t len = header.size();
  const char pre[10] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<char>(len & 255), static_cast<char>(len >> 8)};
  out.write(pre, 10);
  out.write(header.data(), static_cast<std::streamsize>(len));
  out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size() * 4));
  if (!out.flush()) throw DataError(file, 0, "cannot write");
}

}  // namespace mmaemu::validate
