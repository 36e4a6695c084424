// SPDX-License-Identifier: BSD-3-Clause
#include "tiles.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace mmaemu::hwcheck {

const char* instr_name(Instr i) {
  switch (i) {
    case Instr::mma_sync: return "mma.sync";
    case Instr::wmma: return "wmma";
    case Instr::wgmma: return "wgmma";
  }
  return "?";
}

bool parse_instr(const std::string& s, Instr& out) {
  for (Instr i : kAllInstrs)
    if (s == instr_name(i)) {
      out = i;
      return true;
    }
  return false;
}

const char* out_name(OutType o) { return o == OutType::fp32 ? "fp32" : "fp16"; }

static bool is_fp8(InFmt f) { return f == InFmt::e4m3 || f == InFmt::e5m2; }

bool supported(Instr i, InFmt f) {
  switch (i) {
    case Instr::mma_sync: return true;
    case Instr::wmma: return !is_fp8(f);
    case Instr::wgmma: return is_fp8(f);
  }
  return false;
}

Shape shape_of(Instr i, InFmt f) {
  if (!supported(i, f)) throw std::invalid_argument("shape_of: unsupported instruction/format");
  switch (i) {
    case Instr::mma_sync: return is_fp8(f) ? Shape{16, 8, 32} : f == InFmt::tf32 ? Shape{16, 8, 8} : Shape{16, 8, 16};
    case Instr::wmma: return f == InFmt::tf32 ? Shape{16, 16, 8} : Shape{16, 16, 16};
    case Instr::wgmma: return Shape{64, 8, 32};
  }
  return {0, 0, 0};
}

std::vector<OutType> outputs_of(Instr i, InFmt f) {
  if (!supported(i, f)) return {};
  if (f == InFmt::fp16 || is_fp8(f)) return {OutType::fp32, OutType::fp16};
  return {OutType::fp32};
}

bool runs_on(Instr i, InFmt f, int cc) {
  if (!supported(i, f)) return false;
  switch (i) {
    case Instr::wmma: return cc >= (f == InFmt::fp16 ? 70 : 80);
    case Instr::mma_sync: return cc >= (is_fp8(f) ? 89 : 80);
    case Instr::wgmma: return cc == 90;
  }
  return false;
}

const char* packing_name(Packing p) { return p == Packing::diagonal ? "diagonal" : "single"; }

int samples_per_tile(Shape s, Packing p) { return p == Packing::diagonal ? std::min(s.m, s.n) : 1; }

// ------------------------------------------------------------- tiles ---

static void put_elem(uint8_t* p, int bytes, uint32_t code) {
  for (int i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(code >> (8 * i));
}
static uint32_t get_elem(const uint8_t* p, int bytes) {
  uint32_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}
static uint32_t encode_or_throw(InFmt f, uint32_t bits) {
  const auto code = encode_from_fp32(f, bits);
  if (!code) throw std::invalid_argument("pack: value not representable in the input format");
  return *code;
}

uint32_t TileBatch::a_at(size_t tile, int row, int k) const {
  const int eb = info(fmt).elem_bytes;
  const size_t off = tile * a_tile_bytes() + (static_cast<size_t>(row) * shape.k + k) * eb;
  return decode_to_fp32(fmt, get_elem(&a[off], eb));
}
uint32_t TileBatch::b_at(size_t tile, int k, int col) const {
  const int eb = info(fmt).elem_bytes;
  const size_t off = tile * b_tile_bytes() + (static_cast<size_t>(col) * shape.k + k) * eb;
  return decode_to_fp32(fmt, get_elem(&b[off], eb));
}

static TileBatch empty_batch(InFmt f, Shape s, size_t tiles) {
  TileBatch t;
  t.shape = s;
  t.fmt = f;
  t.tiles = tiles;
  const uint32_t zero = encode_or_throw(f, 0u);
  const int eb = info(f).elem_bytes;
  t.a.resize(tiles * t.a_tile_bytes());
  t.b.resize(tiles * t.b_tile_bytes());
  for (size_t i = 0; i < t.a.size(); i += eb) put_elem(&t.a[i], eb, zero);
  for (size_t i = 0; i < t.b.size(); i += eb) put_elem(&t.b[i], eb, zero);
  t.c.assign(tiles * t.c_tile_elems(), 0.0f);
  return t;
}

TileBatch pack(const Ensemble& e, Shape s, Packing p) {
  if (e.k != s.k) throw std::invalid_argument("pack: ensemble k differs from the instruction k");
  const size_t spt = static_cast<size_t>(samples_per_tile(s, p));
  const size_t n = e.size();
  TileBatch t = empty_batch(e.fmt, s, (n + spt - 1) / spt);
  const int eb = info(e.fmt).elem_bytes;
  for (size_t i = 0; i < n; ++i) {
    const size_t tile = i / spt;
    const int d = static_cast<int>(i % spt);  // row of A = column of B
    uint8_t* arow = &t.a[tile * t.a_tile_bytes() + static_cast<size_t>(d) * s.k * eb];
    uint8_t* bcol = &t.b[tile * t.b_tile_bytes() + static_cast<size_t>(d) * s.k * eb];
    for (int l = 0; l < s.k; ++l) {
      put_elem(arow + l * eb, eb, encode_or_throw(e.fmt, e.a[i * e.k + l]));
      put_elem(bcol + l * eb, eb, encode_or_throw(e.fmt, e.b[i * e.k + l]));
    }
    t.c[tile * t.c_tile_elems() + static_cast<size_t>(d) * s.n + d] = fp32_value(e.c[i]);
  }
  return t;
}

std::vector<uint32_t> unpack(const std::vector<uint32_t>& d, Shape s, Packing p, size_t n) {
  const size_t spt = static_cast<size_t>(samples_per_tile(s, p));
  const size_t per_tile = static_cast<size_t>(s.m) * s.n;
  if (d.size() < ((n + spt - 1) / spt) * per_tile) throw std::invalid_argument("unpack: too few D tiles");
  std::vector<uint32_t> out(n);
  for (size_t i = 0; i < n; ++i) {
    const size_t tile = i / spt, diag = i % spt;
    out[i] = d[tile * per_tile + diag * s.n + diag];
  }
  return out;
}

std::vector<uint32_t> widen_fp16(const std::vector<uint16_t>& d) {
  std::vector<uint32_t> out(d.size());
  for (size_t i = 0; i < d.size(); ++i) out[i] = fp16_to_fp32(d[i]);
  return out;
}

// ------------------------------------------------------------- probe ---

TileBatch make_probe(InFmt f, Shape s, size_t tiles, uint64_t seed) {
  TileBatch t = empty_batch(f, s, tiles);
  const int eb = info(f).elem_bytes;
  Rng r(sample_seed(seed, f, s.k, "layout-probe", static_cast<uint64_t>(s.m) * 1000 + s.n));
  auto small = [&](int lim) {
    const int v = static_cast<int>(r.uniform(-lim, lim));
    return fp32_bits(static_cast<float>(v));
  };
  for (size_t i = 0; i < t.a.size(); i += eb) put_elem(&t.a[i], eb, encode_or_throw(f, small(7)));
  for (size_t i = 0; i < t.b.size(); i += eb) put_elem(&t.b[i], eb, encode_or_throw(f, small(7)));
  for (float& c : t.c) c = fp32_value(small(64));
  return t;
}

std::vector<double> probe_expected(const TileBatch& t) {
  const Shape s = t.shape;
  std::vector<double> out(t.tiles * t.c_tile_elems());
  for (size_t tile = 0; tile < t.tiles; ++tile)
    for (int m = 0; m < s.m; ++m)
      for (int n = 0; n < s.n; ++n) {
        double acc = t.c[tile * t.c_tile_elems() + static_cast<size_t>(m) * s.n + n];
        for (int k = 0; k < s.k; ++k)
          acc += static_cast<double>(fp32_value(t.a_at(tile, m, k))) *
                 static_cast<double>(fp32_value(t.b_at(tile, k, n)));
        out[tile * t.c_tile_elems() + static_cast<size_t>(m) * s.n + n] = acc;
      }
  return out;
}

size_t probe_mismatches(const TileBatch& t, const std::vector<uint32_t>& d, std::string* report) {
  const std::vector<double> want = probe_expected(t);
  if (d.size() < want.size()) throw std::invalid_argument("probe_mismatches: too few results");
  size_t bad = 0;
  std::ostringstream os;
  for (size_t i = 0; i < want.size(); ++i) {
    const double got = fp32_value(d[i]);
    if (got != want[i]) {
      if (bad < 5) {
        const size_t tile = i / t.c_tile_elems(), e = i % t.c_tile_elems();
        os << "  tile " << tile << " D[" << e / t.shape.n << "][" << e % t.shape.n << "] = " << got
           << ", expected " << want[i] << "\n";
      }
      ++bad;
    }
  }
  if (report) *report = os.str();
  return bad;
}

}  // namespace mmaemu::hwcheck
