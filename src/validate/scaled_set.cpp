// SPDX-License-Identifier: BSD-3-Clause
#include "validate/scaled_set.h"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <stdexcept>

#include "models/scaled_units.h"
#include "ref/block_scaled.h"

namespace mmaemu::validate {
namespace fs = std::filesystem;

namespace {

// The one file "<prefix><FMT>.txt" of a set and its format, from `allowed`.
struct Found {
  fs::path file;
  Fmt fmt;
};

std::optional<Found> find_file(const DataSet& set, const std::string& prefix, FmtMask allowed) {
  std::optional<Found> found;
  for (const auto& e : fs::directory_iterator(set.dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) != 0 || name.size() < prefix.size() + 5 || name.substr(name.size() - 4) != ".txt")
      continue;
    const std::string fmt = name.substr(prefix.size(), name.size() - prefix.size() - 4);
    const auto f = parse_fmt(fmt);
    if (!f || !(allowed & fmt_bit(*f))) throw DataError(e.path(), 0, "unknown or unsupported format '" + fmt + "'");
    if (found) throw DataError(set.dir, 0, "more than one " + prefix + "*.txt file");
    found = Found{e.path(), *f};
  }
  return found;
}

Found need_file(const DataSet& set, const std::string& prefix, FmtMask allowed) {
  if (auto f = find_file(set, prefix, allowed)) return *f;
  throw DataError(set.dir, 0, "no " + prefix + "<FORMAT>.txt file");
}

// fp32 patterns of element values -> codes; a value fmt cannot hold exactly
// is an error at its line.
std::vector<uint8_t> to_codes(const std::vector<uint32_t>& v, std::size_t k, const Found& f) {
  std::vector<uint8_t> codes(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    uint64_t c = 0;
    bool ok = true;
    try {
      c = convert(Fmt::fp32, f.fmt, v[i], Round::rne, Overflow::saturate);
      ok = to_fp32_bits(f.fmt, c) == v[i] || (is_nan(Fmt::fp32, v[i]) && is_nan(f.fmt, c));
    } catch (const std::domain_error&) {  // NaN into fp6/fp4
      ok = false;
    }
    if (!ok) {
      char hex[16];
      std::snprintf(hex, sizeof hex, "%08x", v[i]);
      throw DataError(f.file, i / k + 1, std::string("value ") + hex + " is not a " + info(f.fmt).name);
    }
    codes[i] = static_cast<uint8_t>(c);
  }
  return codes;
}

// Lines of `per_line` 2-digit hex scale codes, one line per sample.
std::vector<uint8_t> read_scales(const fs::path& file, std::size_t per_line, std::size_t lines) {
  std::size_t k = 0;
  const std::vector<uint32_t> v = read_hex(file, k, 2);
  if (k != per_line)
    throw DataError(file, 1, "expected " + std::to_string(per_line) + " scale codes, got " + std::to_string(k));
  if (v.size() != per_line * lines)
    throw DataError(file, std::min(v.size() / k, lines) + 1,
                    "has " + std::to_string(v.size() / k) + " samples, expected " + std::to_string(lines));
  return {v.begin(), v.end()};
}

// The d file's fp32 pattern as bits of `out`, NaN payloads kept (the units'
// NaN is 0x7FFFFFFF / 0x7FFF; an fp16 d is stored widened).
uint64_t expected_bits(Fmt out, uint32_t d) {
  if (out == Fmt::fp32) return d;
  if (is_nan(Fmt::fp32, d)) return ((d >> 16) & 0x8000) | 0x7C00 | ((d >> 13) & 0x3FF);
  return convert(Fmt::fp32, out, d, Round::rne);
}

}  // namespace

bool is_scaled_instruction(const std::string& instruction) {
  return instruction.find("kind::") != std::string::npos;
}

SetResult run_scaled_set(const DataSet& set, const std::string& out) {
  const ScaledUnit* unit = nullptr;
  try {
    unit = &scaled_unit(set.gpu, set.instruction);
  } catch (const std::invalid_argument& e) {
    throw DataError(set.dir / "instruction.txt", 1, e.what());
  }
  const Fmt of = *parse_fmt(out);
  if (!(unit->outputs & fmt_bit(of))) throw DataError(set.dir, 0, set.instruction + " has no " + out + " output");
  const Found fa = need_file(set, "a_" + set.gpu + "_", unit->elements);
  const Found fb = need_file(set, "b_" + set.gpu + "_", unit->elements);
  const Samples smp = read_samples(set, out, fa.file, fb.file);  // the a, b, c, d files and their counts
  const std::size_t k = smp.k, n = smp.count();
  const std::vector<uint32_t>& c = smp.c;
  const std::vector<uint32_t>& d = smp.d;
  const std::vector<uint8_t> a = to_codes(smp.a, k, fa), b = to_codes(smp.b, k, fb);

  std::vector<uint8_t> sa, sb;
  std::size_t nb = 0;
  if (unit->block) {
    if (k % static_cast<std::size_t>(unit->block))
      throw DataError(fa.file, 1, "K = " + std::to_string(k) + " is not a multiple of the scale block " + std::to_string(unit->block));
    nb = k / static_cast<std::size_t>(unit->block);
    const FmtMask scale = fmt_bit(unit->scale);
    sa = read_scales(need_file(set, "sa_" + set.gpu + "_", scale).file, nb, n);
    sb = read_scales(need_file(set, "sb_" + set.gpu + "_", scale).file, nb, n);
  } else if (find_file(set, "sa_" + set.gpu + "_", ~FmtMask{0}) || find_file(set, "sb_" + set.gpu + "_", ~FmtMask{0})) {
    throw DataError(set.dir, 0, set.instruction + " takes no scales, but the set has sa_/sb_ files");
  }

  SetResult r{set.gpu, std::string(info(fa.fmt).name) + "x" + info(fb.fmt).name, out, set.instruction, n, 0, 0, {}, smp.d_file};
  for (std::size_t i = 0; i < n; ++i) {
    const uint64_t c0 = convert(Fmt::fp32, of, c[i], Round::rne);
    const uint64_t got = ref::scaled_chain(*unit, of, fa.fmt, fb.fmt, k, &a[i * k], nb ? &sa[i * nb] : nullptr,
                                           &b[i * k], nb ? &sb[i * nb] : nullptr, c0);
    const uint64_t want = expected_bits(of, d[i]);
    if (got != want) {
      ++r.mismatches;
      if (r.first.size() < 3) r.first.push_back({i + 1, want, got});
    }
  }
  return r;
}

}  // namespace mmaemu::validate
