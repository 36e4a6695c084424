// SPDX-License-Identifier: BSD-3-Clause
// The C API's format entry points: names, storage sizes and conversion of
// stored values between any two formats (mmaemu.h, "Formats and
// conversions"). The numerics are those of formats/format.cpp.
#include <string>

#include "api/api_error.h"
#include "api/enum_args.h"
#include "driver/gemm.h"
#include "formats/format.h"
#include "mmaemu/mmaemu.h"

namespace {

using namespace mmaemu;

// mmaemu_format numbers the formats in the order of Fmt.
bool valid(int f) { return f >= 0 && f < kFmtCount; }

std::string format_names() {
  std::string s;
  for (int i = 0; i < kFmtCount; ++i) s += std::string(i ? ", " : "") + info(static_cast<Fmt>(i)).name;
  return s;
}

Round to_round(mmaemu_rounding r) {
  switch (r) {
    case MMAEMU_RNE: return Round::rne;
    case MMAEMU_RZ: return Round::rz;
    case MMAEMU_RD: return Round::rd;
    case MMAEMU_RU: return Round::ru;
    case MMAEMU_RNA: return Round::rna;
  }
  return Round::rne;
}

}  // namespace

extern "C" {

const char* mmaemu_format_name(int f) { return valid(f) ? info(static_cast<Fmt>(f)).name : nullptr; }

int mmaemu_format_parse(const char* name, mmaemu_format* out) {
  if (!name || !out) return api::fail(MMAEMU_ERR_ARGUMENT, "null argument");
  api::clear_error();
  auto f = parse_fmt(name);
  if (!f) f = parse_int_fmt(name);
  if (!f) return api::fail(MMAEMU_ERR_ARGUMENT, "unknown format '" + std::string(name) + "' (valid: " + format_names() + ")");
  *out = static_cast<mmaemu_format>(*f);
  return MMAEMU_OK;
}

int mmaemu_format_storage_bytes(int f) {
  if (!valid(f)) return 0;
  const Fmt fmt = static_cast<Fmt>(f);
  // tf32 lives in an fp32 container; a format narrower than a byte takes one.
  return fmt == Fmt::tf32 ? 4 : (info(fmt).width + 7) / 8;
}

int mmaemu_convert(mmaemu_format from, mmaemu_format to, const void* x, void* y, size_t n, mmaemu_rounding r,
                   int saturate) {
  if (const int bad = api::enum_status("from", from, api::kConvertFormats)) return bad;
  if (const int bad = api::enum_status("to", to, api::kConvertFormats)) return bad;
  if (const int bad = api::enum_status("r", r, api::kRoundings)) return bad;
  if (n > 0 && (!x || !y)) return api::fail(MMAEMU_ERR_ARGUMENT, "null array pointer");
  api::clear_error();
  const Fmt f = static_cast<Fmt>(from), t = static_cast<Fmt>(to);
  const Round rnd = to_round(r);
  const Overflow ov = saturate ? Overflow::saturate : Overflow::ieee;
  for (std::size_t i = 0; i < n; ++i) {
    const auto at = static_cast<std::ptrdiff_t>(i);
    driver::store(t, y, at, convert(f, t, driver::load(f, x, at), rnd, ov));
  }
  return MMAEMU_OK;
}

}  // extern "C"
