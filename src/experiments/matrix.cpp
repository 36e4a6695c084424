// SPDX-License-Identifier: BSD-3-Clause
#include "experiments/matrix.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <tuple>

#include "experiments/common.h"

namespace mmaemu::experiments {

Dist parse_dist(const std::string& text) {
  Dist d;
  d.text = text;
  std::vector<std::string> parts;
  std::size_t pos = 0;
  while (true) {
    const std::size_t c = text.find(':', pos);
    parts.push_back(text.substr(pos, c == std::string::npos ? std::string::npos : c - pos));
    if (c == std::string::npos) break;
    pos = c + 1;
  }
  const std::string& name = parts[0];
  auto params = [&](double a, double b) {
    if (parts.size() == 1) return std::pair{a, b};
    if (parts.size() != 3) throw UsageError("--dist: '" + text + "' needs two parameters (" + name + ":A:B)");
    return std::pair{parse_double("dist", parts[1]), parse_double("dist", parts[2])};
  };
  if (name == "uniform") {
    d.kind = Dist::Kind::uniform;
    std::tie(d.a, d.b) = params(-1.0, 1.0);
    if (!(d.a < d.b)) throw UsageError("--dist: uniform:LO:HI needs LO < HI");
  } else if (name == "normal") {
    d.kind = Dist::Kind::normal;
    std::tie(d.a, d.b) = params(0.0, 1.0);
    if (!(d.b > 0)) throw UsageError("--dist: normal:MU:SIGMA needs SIGMA > 0");
  } else if (name == "loguniform") {
    d.kind = Dist::Kind::loguniform;
    auto [lo, hi] = params(1e-10, 1e10);
    if (!(lo > 0 && lo <= hi)) throw UsageError("--dist: loguniform:LO:HI needs 0 < LO <= HI");
    d.a = std::log10(lo);
    d.b = std::log10(hi);
  } else if (name == "int") {
    d.kind = Dist::Kind::integer;
    if (parts.size() != 3) throw UsageError("--dist: int needs bounds (int:LO:HI)");
    d.a = static_cast<double>(parse_int("dist", parts[1], -(1LL << 52), 1LL << 52));
    d.b = static_cast<double>(parse_int("dist", parts[2], -(1LL << 52), 1LL << 52));
    if (!(d.a <= d.b)) throw UsageError("--dist: int:LO:HI needs LO <= HI");
  } else {
    throw UsageError("--dist: unknown distribution '" + text +
                     "' (valid: uniform[:LO:HI], normal[:MU:SIGMA], loguniform[:LO:HI], int:LO:HI)");
  }
  return d;
}

double Rng::normal() {
  if (have_spare_) {
    have_spare_ = false;
    return spare_;
  }
  double x, y, s;
  do {
    x = 2.0 * uniform01() - 1.0;
    y = 2.0 * uniform01() - 1.0;
    s = x * x + y * y;
  } while (s >= 1.0 || s == 0.0);
  const double f = std::sqrt(-2.0 * std::log(s) / s);
  spare_ = y * f;
  have_spare_ = true;
  return x * f;
}

void fill(Matrix& m, const Dist& d, Rng& rng) {
  for (double& x : m.v) {
    switch (d.kind) {
      case Dist::Kind::uniform: x = d.a + (d.b - d.a) * rng.uniform01(); break;
      case Dist::Kind::normal: x = d.a + d.b * rng.normal(); break;
      case Dist::Kind::loguniform: {
        // As the papers' experiment: 10.^(rand*2l - l) times a random sign.
        const double mag = std::pow(10.0, d.a + (d.b - d.a) * rng.uniform01());
        x = rng.coin() ? -mag : mag;
        break;
      }
      case Dist::Kind::integer: {
        const uint64_t span = static_cast<uint64_t>(d.b - d.a) + 1;
        x = d.a + static_cast<double>(rng.next() % span);
        break;
      }
    }
  }
}

namespace {

[[noreturn]] void file_error(const std::string& path, const std::string& what) {
  throw UsageError(path + ": " + what);
}

Matrix read_npy(const std::string& path, const std::string& bytes) {
  // Magic, version, header length, then a Python dict literal:
  //   {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
  if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) file_error(path, "not a .npy file");
  const unsigned major = static_cast<unsigned char>(bytes[6]);
  std::size_t hlen, hstart;
  if (major == 1) {
    hlen = static_cast<unsigned char>(bytes[8]) | static_cast<std::size_t>(static_cast<unsigned char>(bytes[9])) << 8;
    hstart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) file_error(path, "truncated .npy header");
    hlen = 0;
    for (int i = 0; i < 4; ++i) hlen |= static_cast<std::size_t>(static_cast<unsigned char>(bytes[8 + i])) << (8 * i);
    hstart = 12;
  } else {
    file_error(path, ".npy format version " + std::to_string(major) + " is not supported");
  }
  if (bytes.size() < hstart + hlen) file_error(path, "truncated .npy header");
  const std::string h = bytes.substr(hstart, hlen);
  auto field = [&](const std::string& key) {
    const std::size_t k = h.find("'" + key + "'");
    if (k == std::string::npos) file_error(path, ".npy header lacks '" + key + "'");
    std::size_t c = h.find(':', k);
    if (c == std::string::npos) file_error(path, "malformed .npy header");
    ++c;
    while (c < h.size() && h[c] == ' ') ++c;
    return c;
  };
  std::size_t p = field("descr");
  if (p >= h.size() || (h[p] != '\'' && h[p] != '"')) file_error(path, "malformed .npy descr");
  const std::size_t q = h.find(h[p], p + 1);
  const std::string descr = h.substr(p + 1, q - p - 1);
  p = field("fortran_order");
  const bool fortran = h.compare(p, 4, "True") == 0;
  p = field("shape");
  const std::size_t open = h.find('(', p), close = h.find(')', p);
  if (open == std::string::npos || close == std::string::npos) file_error(path, "malformed .npy shape");
  std::vector<std::size_t> shape;
  std::stringstream ss(h.substr(open + 1, close - open - 1));
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.find_first_not_of(" ") == std::string::npos) continue;
    shape.push_back(static_cast<std::size_t>(std::strtoull(item.c_str(), nullptr, 10)));
  }
  if (shape.size() != 2) file_error(path, "expected a 2-D array, got " + std::to_string(shape.size()) + " dimensions");
  if (shape[0] == 0 || shape[1] == 0) file_error(path, "empty matrix");
  std::size_t width;
  char kind;
  if (descr == "<f8" || descr == "=f8") kind = 'd', width = 8;
  else if (descr == "<f4" || descr == "=f4") kind = 'f', width = 4;
  else if (descr == "<i8" || descr == "=i8") kind = 'l', width = 8;
  else if (descr == "<i4" || descr == "=i4") kind = 'i', width = 4;
  else file_error(path, "unsupported .npy dtype '" + descr + "' (float64, float32, int64, int32, little-endian)");
  const std::size_t count = shape[0] * shape[1], data = hstart + hlen;
  if (bytes.size() < data + count * width) file_error(path, "truncated .npy data");
  Matrix m(shape[0], shape[1]);
  for (std::size_t e = 0; e < count; ++e) {
    const char* src = bytes.data() + data + e * width;
    double x;
    switch (kind) {
      case 'd': std::memcpy(&x, src, 8); break;
      case 'f': { float f; std::memcpy(&f, src, 4); x = f; break; }
      case 'l': { int64_t i; std::memcpy(&i, src, 8); x = static_cast<double>(i); break; }
      default: { int32_t i; std::memcpy(&i, src, 4); x = i; break; }
    }
    const std::size_t i = fortran ? e % shape[0] : e / shape[1], j = fortran ? e / shape[0] : e % shape[1];
    if (!std::isfinite(x))
      file_error(path, "element (" + std::to_string(i) + ", " + std::to_string(j) + ") is not a finite number");
    m(i, j) = x;
  }
  return m;
}

}  // namespace

Matrix read_matrix(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) file_error(path, std::string("cannot open (") + std::strerror(errno) + ")");
  std::stringstream buf;
  buf << f.rdbuf();
  const std::string bytes = buf.str();
  if (path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0) return read_npy(path, bytes);

  Matrix m;
  std::istringstream in(bytes);
  std::string line;
  for (std::size_t no = 1; std::getline(in, line); ++no) {
    for (char& c : line)
      if (c == ',' || c == '\t' || c == '\r') c = ' ';
    const std::size_t first = line.find_first_not_of(' ');
    if (first == std::string::npos || line[first] == '#') continue;
    std::vector<double> row;
    const char* s = line.c_str();
    while (true) {
      while (*s == ' ') ++s;
      if (!*s) break;
      char* end = nullptr;
      const double x = std::strtod(s, &end);
      if (end == s || (*end != ' ' && *end != '\0') || !std::isfinite(x)) {  // inf, nan, 1e400: refused
        const char* e = s;
        while (*e && *e != ' ') ++e;
        file_error(path, "line " + std::to_string(no) + ": '" + std::string(s, e) + "' is not a finite number");
      }
      row.push_back(x);
      s = end;
    }
    if (m.rows && row.size() != m.cols)
      file_error(path, "line " + std::to_string(no) + ": " + std::to_string(row.size()) + " numbers, expected " +
                           std::to_string(m.cols) + " as in the first row");
    m.cols = row.size();
    m.v.insert(m.v.end(), row.begin(), row.end());
    ++m.rows;
  }
  if (m.rows == 0) file_error(path, "no numbers in the file");
  return m;
}

void write_matrix_text(const std::string& path, const Matrix& m) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) throw UsageError(path + ": cannot write (" + std::strerror(errno) + ")");
  for (std::size_t i = 0; i < m.rows; ++i)
    for (std::size_t j = 0; j < m.cols; ++j) std::fprintf(f, "%.17g%c", m(i, j), j + 1 == m.cols ? '\n' : ' ');
  std::fclose(f);
}

}  // namespace mmaemu::experiments
