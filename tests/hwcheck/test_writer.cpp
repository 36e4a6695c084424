// SPDX-License-Identifier: BSD-3-Clause
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "ensemble.h"
#include "writer.h"

using namespace mmaemu::hwcheck;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path p;
  TempDir() {
    static int counter = 0;
    p = fs::temp_directory_path() / ("mmaemu_hwcheck_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::remove_all(p);
    fs::create_directories(p);
  }
  ~TempDir() { fs::remove_all(p); }
};

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream os;
  os << in.rdbuf();
  return os.str();
}

std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string l;
  while (std::getline(in, l)) out.push_back(l);
  return out;
}

// "xxxxxxxx " k times, lower-case hex, nothing else
bool hex_line_ok(const std::string& l, int k) {
  if (l.size() != 9 * static_cast<size_t>(k)) return false;
  for (size_t i = 0; i < l.size(); ++i) {
    const char ch = l[i];
    if (i % 9 == 8) {
      if (ch != ' ') return false;
    } else if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f'))) {
      return false;
    }
  }
  return true;
}

bool bin_line_ok(const std::string& l) {
  if (l.size() != 32) return false;
  for (char ch : l)
    if (ch != '0' && ch != '1') return false;
  return true;
}

}  // namespace

TEST_CASE("token formatting") {
  std::string s;
  append_hex8(s, 0x3f7aa000u);
  CHECK(s == "3f7aa000");
  s.clear();
  append_hex8(s, 0xABCDEF01u);
  CHECK(s == "abcdef01");
  s.clear();
  append_bin32(s, 1u);
  CHECK(s == std::string(31, '0') + "1");
  CHECK(format_hex_lines({1, 2, 3, 4}, 2, 2) == "00000001 00000002 \n00000003 00000004 \n");
  CHECK(format_bin_lines({0x80000000u}) == "1" + std::string(31, '0') + "\n");
}

TEST_CASE("write_dataset writes the hwdata layout and reads back") {
  TempDir tmp;
  const Ensemble e = generate(InFmt::e4m3, 32, {SetKind::em_normal, SetKind::edge}, 26, 4);
  std::vector<uint32_t> d32(e.size()), d16(e.size());
  for (size_t i = 0; i < e.size(); ++i) {
    d32[i] = static_cast<uint32_t>(i * 2654435761u);
    d16[i] = 0x3f800000u;
  }
  DatasetWrite w;
  w.gpu = "H200";
  w.instruction = "wgmma";
  w.meta = "seed 4";
  w.ensemble = &e;
  w.d_fp32 = &d32;
  w.d_fp16 = &d16;
  const fs::path dir = write_dataset(tmp.p / "wgmma", w);
  CHECK(dir == tmp.p / "wgmma" / "H200" / "E4M3");
  for (const char* name : {"a_H200_E4M3.txt", "b_H200_E4M3.txt", "c_H200_fp32.txt", "d_H200_fp32.txt",
                           "d_H200_fp16.txt", "instruction.txt", "sets.txt", "meta.txt"})
    CHECK(fs::exists(dir / name));
  CHECK(slurp(dir / "instruction.txt") == "wgmma\n");

  const auto a_lines = lines(slurp(dir / "a_H200_E4M3.txt"));
  REQUIRE(a_lines.size() == e.size());
  for (const auto& l : a_lines) CHECK(hex_line_ok(l, 32));
  for (const char* f : {"c_H200_fp32.txt", "d_H200_fp32.txt", "d_H200_fp16.txt"}) {
    const std::string text = slurp(dir / f);
    CHECK(text.size() == 33 * e.size());
    for (const auto& l : lines(text)) CHECK(bin_line_ok(l));
  }
  CHECK(slurp(dir / "a_H200_E4M3.txt").back() == '\n');

  const Dataset back = read_dataset(tmp.p / "wgmma", "H200", InFmt::e4m3);
  CHECK(back.n == e.size());
  CHECK(back.k == 32);
  CHECK(back.a == e.a);
  CHECK(back.b == e.b);
  CHECK(back.c == e.c);
  CHECK(back.d_fp32 == d32);
  CHECK(back.d_fp16 == d16);
  CHECK(back.has_d_fp32);
  CHECK(back.instruction == "wgmma");
  REQUIRE(back.sets.size() == e.sets.size());
  for (size_t i = 0; i < e.sets.size(); ++i) {
    CHECK(back.sets[i].name == e.sets[i].name);
    CHECK(back.sets[i].first == e.sets[i].first);
    CHECK(back.sets[i].count == e.sets[i].count);
  }
}

TEST_CASE("fp32-only sets have no fp16 file; the reader is strict") {
  TempDir tmp;
  const Ensemble e = generate(InFmt::bf16, 16, {SetKind::bits}, 5, 1);
  std::vector<uint32_t> d(e.size(), 0u);
  DatasetWrite w;
  w.gpu = "A100";
  w.instruction = "mma.sync";
  w.ensemble = &e;
  w.d_fp32 = &d;
  const fs::path dir = write_dataset(tmp.p, w);
  CHECK_FALSE(fs::exists(dir / "d_A100_fp16.txt"));
  CHECK_FALSE(read_dataset(tmp.p, "A100", InFmt::bf16).has_d_fp16);

  auto corrupt = [&](const char* file, auto&& edit) {
    const std::string orig = slurp(dir / file);
    std::string bad = orig;
    edit(bad);
    std::ofstream(dir / file, std::ios::binary) << bad;
    CHECK_THROWS_AS(read_dataset(tmp.p, "A100", InFmt::bf16), std::runtime_error);
    std::ofstream(dir / file, std::ios::binary) << orig;
  };
  corrupt("a_A100_bf16.txt", [](std::string& s) { s[0] = 'A'; });                // upper-case hex
  corrupt("a_A100_bf16.txt", [](std::string& s) { s.erase(s.find(" \n"), 1); });  // no trailing space
  corrupt("c_A100_fp32.txt", [](std::string& s) { s.erase(0, 1); });               // 31 characters
  corrupt("d_A100_fp32.txt", [](std::string& s) { s.pop_back(); });                // no final newline
  CHECK_NOTHROW(read_dataset(tmp.p, "A100", InFmt::bf16));
}
