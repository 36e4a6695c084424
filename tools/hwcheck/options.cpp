// SPDX-License-Identifier: BSD-3-Clause
#include "options.h"

#include <cctype>
#include <charconv>

namespace mmaemu::hwcheck {

namespace {

std::vector<std::string> split_commas(std::string_view s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t end = std::min(s.find(',', start), s.size());
    if (end > start) out.emplace_back(s.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

template <class T>
bool parse_uint(std::string_view s, T& out) {
  uint64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return false;
  out = static_cast<T>(v);
  return true;
}

}  // namespace

std::string usage() {
  return "usage: mmaemu-hwcheck --out DIR [options]\n"
         "Runs mma.sync / wmma / wgmma on seeded ensembles and writes DIR/<instr>/<GPU>/<fmt>/\n"
         "in the layout `mmaemu validate` reads (a_, b_, c_, d_ files, instruction.txt, sets.txt).\n"
         "  --out DIR          output root (required)\n"
         "  --gpu NAME         GPU folder name (default: from the device name, e.g. H200)\n"
         "  --seed S           ensemble seed (default 1)\n"
         "  --n N              samples per set (default 10000; edge: split over its cases)\n"
         "  --instr LIST       mma.sync,wmma,wgmma (default all)\n"
         "  --formats LIST     fp16,bf16,tf32,E4M3,E5M2 (default all)\n"
         "  --sets LIST        em-normal,em-subnormal,em-cmatch,bits,edge (default all)\n"
         "  --packing P        diagonal (min(M,N) samples per instruction, default) or single\n"
         "  --probe-tiles T    tiles of the exact layout probe per kernel (default 64, 0: none)\n"
         "  --decisive FILE    also run the decisive vectors of FILE (tools/hwcheck/decisive.txt):\n"
         "                     the sub-sets decisive:<id>, read back by tools/hwcheck/decide.py\n"
         "  --device I         CUDA device ordinal (default 0)\n"
         "  --help\n";
}

std::optional<Options> parse_options(int argc, const char* const* argv, std::string* error) {
  Options o;
  auto fail = [&](const std::string& msg) -> std::optional<Options> {
    if (error) *error = msg;
    return std::nullopt;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      o.help = true;
      continue;
    }
    if (i + 1 >= argc) return fail("missing value after " + std::string(arg));
    const std::string_view val = argv[++i];
    if (arg == "--out") o.out = std::string(val);
    else if (arg == "--decisive") o.decisive = std::string(val);
    else if (arg == "--gpu") {
      if (val.empty() || val.find('/') != std::string_view::npos) return fail("bad --gpu name");
      o.gpu = std::string(val);
    } else if (arg == "--seed") {
      if (!parse_uint(val, o.seed)) return fail("bad --seed: " + std::string(val));
    } else if (arg == "--n") {
      if (!parse_uint(val, o.n) || o.n == 0) return fail("bad --n: " + std::string(val));
    } else if (arg == "--probe-tiles") {
      if (!parse_uint(val, o.probe_tiles)) return fail("bad --probe-tiles: " + std::string(val));
    } else if (arg == "--device") {
      if (!parse_uint(val, o.device)) return fail("bad --device: " + std::string(val));
    } else if (arg == "--packing") {
      if (val == "diagonal") o.packing = Packing::diagonal;
      else if (val == "single") o.packing = Packing::single;
      else return fail("bad --packing: " + std::string(val));
    } else if (arg == "--instr") {
      o.instrs.clear();
      for (const auto& s : split_commas(val)) {
        Instr x;
        if (!parse_instr(s, x)) return fail("unknown instruction: " + s);
        o.instrs.push_back(x);
      }
      if (o.instrs.empty()) return fail("empty --instr");
    } else if (arg == "--formats") {
      o.fmts.clear();
      for (const auto& s : split_commas(val)) {
        const auto f = parse_infmt(s);
        if (!f) return fail("unknown format: " + s);
        o.fmts.push_back(*f);
      }
      if (o.fmts.empty()) return fail("empty --formats");
    } else if (arg == "--sets") {
      o.sets.clear();
      for (const auto& s : split_commas(val)) {
        SetKind x;
        if (!parse_set_kind(s, x)) return fail("unknown set: " + s);
        o.sets.push_back(x);
      }
      if (o.sets.empty()) return fail("empty --sets");
    } else {
      return fail("unknown option: " + std::string(arg));
    }
  }
  if (!o.help && o.out.empty()) return fail("--out is required");
  return o;
}

std::string gpu_folder_name(std::string_view name) {
  std::string up;
  for (char ch : name) up.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(ch))));
  // Longer names first where one contains another (GH200 before H200, L40S before L40 before L4).
  static const char* const known[] = {"GB300", "GB200", "GH200", "B300", "B200", "B100", "H200", "H100",
                                      "H800", "H20",   "A100",  "A800", "A30",  "A40",  "A10",  "A16",
                                      "A2",   "L40S",  "L40",   "L20",  "L4",   "V100", "T4"};
  for (const char* k : known) {
    const std::string_view kv(k);
    for (size_t pos = up.find(kv); pos != std::string::npos; pos = up.find(kv, pos + 1)) {
      const bool left_ok = pos == 0 || !std::isalnum(static_cast<unsigned char>(up[pos - 1]));
      const size_t after = pos + kv.size();
      const bool right_ok = after == up.size() || !std::isalnum(static_cast<unsigned char>(up[after]));
      if (left_ok && right_ok) return std::string(kv);
    }
  }
  std::string out;
  for (char ch : name)
    if (std::isalnum(static_cast<unsigned char>(ch))) out.push_back(ch);
  if (out.rfind("NVIDIA", 0) == 0 && out.size() > 6) out.erase(0, 6);
  return out.empty() ? "GPU" : out;
}

}  // namespace mmaemu::hwcheck
