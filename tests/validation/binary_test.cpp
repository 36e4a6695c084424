// SPDX-License-Identifier: BSD-3-Clause
// The fast validation path against the generic one: the memoised element
// conversion (validate/sample_engine.h) against convert() and
// pack_element(), the engine over samples against ref::dot for every row
// the differential tests cover, output_code against convert(); the binary
// data sets (.npy): written by --convert, validated with the same report
// as the text, malformed files refused naming the file.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/engine_rows.h"
#include "ref/reference.h"
#include "validate/convert.h"
#include "validate/npy.h"
#include "validate/sample_engine.h"
#include "validate/validate.h"

using namespace mmaemu;
using namespace mmaemu::validate;
using mmaemu::test::kSeed;
namespace fs = std::filesystem;

namespace {

const std::string kData = MMAEMU_DATA_DIR;

bool same(const Element& x, const Element& y) {
  return x.code == y.code && x.exact == y.exact && x.finite == y.finite && (!x.finite || (x.sig == y.sig && x.exp == y.exp));
}

// fp32 patterns for a row: values of its input format (its codes widened),
// raw patterns (most are not values), and for tf32 patterns that share
// their top 19 bits (the memo's key) with different low bits.
std::vector<uint32_t> patterns(const ModelRow& row, std::mt19937_64& rng, std::size_t n) {
  test::Gen gen(rng());
  std::vector<uint32_t> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    const uint64_t code = gen.bits(row.in, i % 3 == 0, info(row.in).bias);
    if (i % 4 == 3) v[i] = static_cast<uint32_t>(rng());
    else if (i % 4 == 2 && i > 8) v[i] = (v[i - 7] & 0xFFFFE000u) | static_cast<uint32_t>(rng() & 0x1FFF);
    else v[i] = info(row.in).width <= 32 ? to_fp32_bits(row.in, code) : static_cast<uint32_t>(code);
  }
  return v;
}

fs::path scratch(const std::string& name) {
  const fs::path p = fs::temp_directory_path() / ("mmaemu-binary-test-" + std::to_string(kSeed) + "-" + name);
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}

std::string report(const fs::path& root) {
  std::ostringstream os;
  run({root.string()}, os, &Errata::bundled());
  return os.str();
}

void write_bytes(const fs::path& f, const std::string& bytes) {
  std::ofstream(f, std::ios::binary) << bytes;
}

}  // namespace

TEST_CASE("the memoised elements and the engine over samples equal the generic code and ref::dot") {
  std::size_t rows = 0;
  for (const auto& [name, row] : test::all_rows()) {
    if (info(row.in).width > 32 || info(row.in).exp_bits < 2 || !info(row.in).has_nan()) continue;
    std::mt19937_64 rng(kSeed ^ std::hash<std::string>{}(name + info(row.in).name));
    const std::size_t step = ref::step_k(row), k = step * (1 + rng() % 2), n = 200;
    Elements memo(row, 64);  // a small table: collisions too
    Operands a, b;
    a.resize(n * k), b.resize(n * k);
    const std::vector<uint32_t> pa = patterns(row, rng, n * k), pb = patterns(row, rng, n * k);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n * k; ++i) {
      for (auto [p, ops] : {std::pair{&pa, &a}, std::pair{&pb, &b}}) {
        const uint32_t x = (*p)[i];
        const Element want = element_reference(row, x), got = memo(x);
        if (!same(want, got) && ++bad <= 2)
          FAIL_CHECK("seed " << kSeed << " " << name << " " << info(row.in).name << " pattern " << hex(x) << ": code "
                             << hex(want.code) << " / " << hex(got.code) << ", exact " << want.exact << " / "
                             << got.exact << ", finite " << want.finite << " / " << got.finite);
        ops->set(i, got);
      }
    }
    CHECK(bad == 0);
    const std::size_t out_width = info(row.out).width;
    std::vector<uint64_t> c(n), d(n);
    for (uint64_t& x : c) x = rng() & (out_width == 64 ? ~0ull : (1ull << out_width) - 1);
    for (int threads : {1, 2}) {
      dot_samples(row, n, k, a, b, c.data(), d.data(), threads);
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const uint64_t want = ref::dot(row, k, &a.code[i * k], &b.code[i * k], c[i]);
        if (d[i] != want && ++wrong <= 2)
          FAIL_CHECK("seed " << kSeed << " " << name << " " << info(row.in).name << "->" << info(row.out).name
                             << " sample " << i << " (k " << k << ", c " << hex(c[i]) << "): ref " << hex(want)
                             << " engine " << hex(d[i]));
      }
      CHECK(wrong == 0);
    }
    ++rows;
  }
  MESSAGE(rows << " rows");
  CHECK(rows > 40);
}

TEST_CASE("output_code equals convert(fp32, out, x, RNE)") {
  std::mt19937_64 rng(kSeed);
  for (Fmt out : {Fmt::fp32, Fmt::fp16, Fmt::bf16}) {
    for (int i = 0; i < 200000; ++i) {
      uint32_t x = static_cast<uint32_t>(rng());
      if (i % 5 == 0) x = (x & 0x807FFFFFu) | ((i % 3 == 0 ? 0xFFu : (x >> 23) % 3 + 111) << 23);  // specials, fp16 edges
      const uint64_t want = convert(Fmt::fp32, out, x, Round::rne);
      if (output_code(out, x) != want) FAIL("seed " << kSeed << " " << info(out).name << " " << hex(x) << ": " << hex(want) << " / " << hex(output_code(out, x)));
    }
  }
}

TEST_CASE(".npy round trip: the layout numpy writes") {
  const fs::path dir = scratch("npy");
  const std::vector<uint32_t> v = {0x3f800000u, 0xffc00001u, 0, 7, 0x80000000u, 0x7f800000u};
  write_npy(dir / "x.npy", {3, 2}, v);
  const NpyArray a = read_npy(dir / "x.npy");
  CHECK(a.descr == "<f4");
  CHECK(a.shape == std::vector<std::size_t>{3, 2});
  CHECK(a.data == v);
  std::ifstream in(dir / "x.npy", std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  CHECK(bytes.size() == 128 + 24);  // the header pads the data to a multiple of 64 bytes
  CHECK(bytes.substr(10).rfind("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", 0) == 0);
  CHECK(bytes[127] == '\n');
  // As numpy.save writes uint32 (format 2.0 read too).
  std::string u4 = bytes;
  u4.replace(u4.find("<f4"), 3, "<u4");
  write_bytes(dir / "u.npy", u4);
  CHECK(read_npy(dir / "u.npy").data == v);
  fs::remove_all(dir);
}

TEST_CASE("validate --convert: the binary sets give the text sets' report") {
  const fs::path dir = scratch("convert");
  std::ostringstream log;
  convert_sets(kData + "/refdata", dir, log);
  CHECK(log.str().find("MI300X/fp16: 2000 samples, k = 16") != std::string::npos);
  CHECK(fs::exists(dir / "MI300X" / "fp16" / "a_MI300X_fp16.npy"));
  CHECK(!fs::exists(dir / "MI300X" / "fp16" / "a_MI300X_fp16.txt"));
  const std::string text = report(kData + "/refdata"), binary = report(dir);
  CHECK(text == binary);  // the errata apply to the .npy too (2968 excluded)
  CHECK(binary.find("total: 24000 samples, 0 mismatches") != std::string::npos);
  CHECK(binary.find("excluded: 2968") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("malformed .npy files: refused, naming the file") {
  const fs::path dir = scratch("malformed"), src = scratch("malformed-src");
  fs::copy(kData + "/hwdata/V100", src / "V100", fs::copy_options::recursive);
  std::ostringstream log;
  convert_sets(src, dir, log);
  const fs::path set = dir / "V100" / "fp16";
  const fs::path fa = set / "a_V100_fp16.npy", fc = set / "c_V100_fp32.npy";
  const NpyArray a = read_npy(fa), c = read_npy(fc);
  auto fails = [&](const std::string& what) {
    std::string msg;
    try {
      for (const DataSet& s : find_sets(dir))
        if (s.gpu == "V100") run_set(s, "fp32");
    } catch (const DataError& e) {
      msg = e.what();
    }
    INFO(msg);
    CHECK(msg.find("V100/fp16/") != std::string::npos);
    CHECK(msg.find(what) != std::string::npos);
  };
  SUBCASE("truncated") {
    std::ifstream in(fa, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    in.close();
    write_bytes(fa, bytes.substr(0, bytes.size() - 6));
    fails("a_V100_fp16.npy: truncated: shape (5000, 4) needs 80000 data bytes, the file holds 79994");
  }
  SUBCASE("wrong dtype") {
    std::ifstream in(fc, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    in.close();
    bytes.replace(bytes.find("<f4"), 3, "<f8");
    write_bytes(fc, bytes);
    fails("c_V100_fp32.npy: dtype '<f8' (expected '<f4' or '<u4'");
  }
  SUBCASE("wrong shape") {
    write_npy(fc, {2500, 2}, c.data);
    fails("c_V100_fp32.npy: shape (2500, 2) (expected (samples,))");
  }
  SUBCASE("a flat a_ file") {
    write_npy(fa, {20000}, a.data);
    fails("a_V100_fp16.npy: shape (20000,) (expected (samples, k)");
  }
  SUBCASE("fewer samples") {
    write_npy(fc, {4999}, std::vector<uint32_t>(c.data.begin(), c.data.end() - 1));
    fails("c_V100_fp32.npy: has 4999 samples, a_V100_fp16.npy has 5000 (it ends after record 4999)");
  }
  SUBCASE("a value that is not an fp16, at its record") {
    std::vector<uint32_t> v = a.data;
    v[4 * 41 + 2] = 0x3f800001u;
    write_npy(fa, {5000, 4}, v);
    fails("a_V100_fp16.npy:42: value 0x3f800001 is not a fp16");
  }
  SUBCASE("not a .npy file") {
    write_bytes(fa, "3c000000 3c000000\n");
    fails("a_V100_fp16.npy: not a .npy file");
  }
  fs::remove_all(dir);
  fs::remove_all(src);
}

TEST_CASE("threads over a large set: the same results and the same first bad value") {
  // 2^16 samples of k = 16: 2^20 operands, enough for two threads.
  const std::size_t n = std::size_t{1} << 16, k = 16;
  const fs::path root = scratch("threads"), dir = root / "H100" / "fp16";
  fs::create_directories(dir);
  std::mt19937_64 rng(kSeed);
  test::Gen gen(kSeed);
  std::vector<uint32_t> a(n * k), b(n * k), c(n), d(n);
  for (uint32_t& x : a) x = to_fp32_bits(Fmt::fp16, gen.bits(Fmt::fp16, true, 15) & 0xFBFF);  // no Inf/NaN
  for (uint32_t& x : b) x = to_fp32_bits(Fmt::fp16, gen.bits(Fmt::fp16, true, 15) & 0xFBFF);
  for (uint32_t& x : c) x = to_fp32_bits(Fmt::fp16, gen.bits(Fmt::fp16, true, 15) & 0xFBFF);
  for (uint32_t& x : d) x = static_cast<uint32_t>(rng() & 0x3FFFFFFF);  // mostly mismatches
  write_npy(dir / "a_H100_fp16.npy", {n, k}, a);
  write_npy(dir / "c_H100_fp32.npy", {n}, c);
  write_npy(dir / "d_H100_fp32.npy", {n}, d);
  auto set = [&] { return find_sets(root).at(0); };
  SUBCASE("results") {
    write_npy(dir / "b_H100_fp16.npy", {n, k}, b);
    const SetResult one = run_set(set(), "fp32", nullptr, {}, 1), two = run_set(set(), "fp32", nullptr, {}, 2);
    CHECK(one.samples == n);
    CHECK(one.mismatches == two.mismatches);
    REQUIRE(one.first.size() == two.first.size());
    for (std::size_t i = 0; i < one.first.size(); ++i) {
      CHECK(one.first[i].line == two.first[i].line);
      CHECK(one.first[i].got == two.first[i].got);
    }
  }
  auto first_error = [&](int threads) {
    try {
      run_set(set(), "fp32", nullptr, {}, threads);
    } catch (const DataError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  SUBCASE("the first bad value in the order a[0], b[0], a[1], ...") {
    a[40000 * k + 3] = 0x3f800001u;  // a late chunk
    b[5000 * k + 7] = 0x3f800003u;   // an early one: this is the first
    write_npy(dir / "a_H100_fp16.npy", {n, k}, a);
    write_npy(dir / "b_H100_fp16.npy", {n, k}, b);
    for (int threads : {1, 2}) CHECK(first_error(threads).find("b_H100_fp16.npy:5001: value 0x3f800003") != std::string::npos);
    a[5000 * k + 7] = 0x3f800005u;  // the same element of a comes first
    write_npy(dir / "a_H100_fp16.npy", {n, k}, a);
    for (int threads : {1, 2}) CHECK(first_error(threads).find("a_H100_fp16.npy:5001: value 0x3f800005") != std::string::npos);
  }
  fs::remove_all(root);
}
