// SPDX-License-Identifier: BSD-3-Clause
// The field kit: what a table of row fields is made of, for both row kinds,
// the block-FMA rows (fields.h) and the block-scaled units (scaled_fields.h).
// A field is declared once, in its kind's table: its custom: key, its valid
// values, a one-line doc, which paths read it and when, its parser and
// printer. The kit parses and prints values, finds keys, lists them (`mmaemu
// models --keys`), prints rows, and words the errors of custom: overrides.
//
// A kind is a struct naming Row, When (with enumerators always and never),
// Field, kPathNames (indexed by path), and the static functions table(),
// path(row), holds(when, row) and when_text(when).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <map>
#include <span>
#include <string>
#include <string_view>

#include "formats/format.h"

namespace mmaemu::field_kit {

// --- values -------------------------------------------------------------------

/// Throws "custom model: invalid value 'VALUE' for 'KEY' (valid: VALID)".
[[noreturn]] void bad(std::string_view key, std::string_view value, std::string_view valid);

/// A decimal integer in lo..hi (a leading '+' allowed).
int to_int(std::string_view key, std::string_view v, int lo, int hi);
/// Hex digits, with or without 0x; `valid` words the error.
uint32_t to_hex(std::string_view key, std::string_view v, std::string_view valid);
/// 1/true/on/yes or 0/false/off/no.
bool to_bool(std::string_view key, std::string_view v);
/// "0x" and `digits` hex digits.
std::string print_hex(uint32_t x, int digits);

template <typename E>
struct Name {
  const char* name;
  E value;
};

/// The rounding modes, as both kinds spell them.
inline constexpr Name<Round> kRounds[] = {
    {"rne", Round::rne}, {"rz", Round::rz}, {"rd", Round::rd}, {"ru", Round::ru}, {"rna", Round::rna}};

template <typename E, std::size_t N>
E to_enum(std::string_view key, std::string_view v, const Name<E> (&names)[N]) {
  std::string valid;
  for (const auto& [name, e] : names) {
    if (v == name) return e;
    valid += valid.empty() ? "" : ", ";
    valid += name;
  }
  bad(key, v, valid);
}

template <typename E, std::size_t N>
std::string name_of(E e, const Name<E> (&names)[N]) {
  for (const auto& [name, value] : names)
    if (value == e) return name;
  return "?";
}

// --- parsers and printers of one member, by kind of value ---------------------

template <typename T>
struct MemberOf;
template <typename C, typename V>
struct MemberOf<V C::*> {
  using Row = C;
};
/// The row type of a member pointer.
template <auto M>
using RowOf = typename MemberOf<decltype(M)>::Row;

template <auto M, int lo, int hi>
void parse_int(RowOf<M>& r, std::string_view k, std::string_view v) { r.*M = to_int(k, v, lo, hi); }
template <auto M>
std::string print_int(const RowOf<M>& r) { return std::to_string(r.*M); }

template <auto M>
void parse_bool(RowOf<M>& r, std::string_view k, std::string_view v) { r.*M = to_bool(k, v); }
template <auto M>
std::string print_bool(const RowOf<M>& r) { return r.*M ? "1" : "0"; }

template <auto M, const auto& names>
void parse_enum(RowOf<M>& r, std::string_view k, std::string_view v) { r.*M = to_enum(k, v, names); }
template <auto M, const auto& names>
std::string print_enum(const RowOf<M>& r) { return name_of(r.*M, names); }

template <auto M>
std::string print_str(const RowOf<M>& r) { return r.*M; }

// --- fields -------------------------------------------------------------------

/// How one path uses a field.
template <typename When>
struct Use {
  When when;
  const char* fixed;    // the value a row holds where the path does not read the
                        // field (parsed like a user value), or the key of the
                        // field whose value it copies; null: any
  const char* instead;  // When::never: what the path does instead
};

/// One row field.
template <typename Row, typename When, std::size_t Paths>
struct Field {
  const char* key;      // the custom: key (also for fields custom: cannot set)
  const char* values;   // the valid values, as messages and --keys print them
  const char* doc;
  std::array<Use<When>, Paths> use;  // indexed by path
  void (*parse)(Row&, std::string_view key, std::string_view value);  // null: not settable
  std::string (*print)(const Row&);
  const char* samples = "";  // space-separated values the every-key test tries
};

/// The settable field with this key (case as given), or null.
template <typename Kind>
const typename Kind::Field* find(std::string_view key) {
  for (const auto& f : Kind::table())
    if (f.parse && key == f.key) return &f;
  return nullptr;
}

/// Whether the row's path reads the field.
template <typename Kind>
bool reads(const typename Kind::Field& f, const typename Kind::Row& row) {
  return Kind::holds(f.use[Kind::path(row)].when, row);
}

/// Every settable key, comma-separated.
template <typename Kind>
std::string key_list() {
  std::string s;
  for (const auto& f : Kind::table())
    if (f.parse) s += (s.empty() ? "" : ", ") + std::string(f.key);
  return s;
}

/// "all", or the paths reading the field with their conditions.
template <typename Kind>
std::string readers(const typename Kind::Field& f) {
  using When = typename Kind::When;
  std::string s;
  std::size_t always = 0;
  for (std::size_t p = 0; p < f.use.size(); ++p) {
    const When w = f.use[p].when;
    if (w == When::never) continue;
    always += w == When::always;
    s += s.empty() ? "" : ", ";
    s += Kind::kPathNames[p];
    if (w != When::always) s += std::string(" (") + Kind::when_text(w) + ")";
  }
  return always == f.use.size() ? "all" : s;
}

/// The settable keys: key, values, paths reading it, doc; as a Markdown
/// table when `markdown`.
template <typename Kind>
std::string describe_keys(bool markdown) {
  std::string s = markdown ? "| key | values | read by | meaning |\n|---|---|---|---|\n" : "";
  char line[512];
  for (const auto& f : Kind::table()) {
    if (!f.parse) continue;
    if (markdown) {
      s += "| `" + std::string(f.key) + "` | " + f.values + " | " + readers<Kind>(f) + " | " + f.doc + " |\n";
    } else {
      std::snprintf(line, sizeof line, "%-18s %-44s %s\n%18s read by: %s\n", f.key, f.values, f.doc, "",
                    readers<Kind>(f).c_str());
      s += line;
    }
  }
  return s;
}

/// Every field of one row, "  key value" per line.
template <typename Kind>
std::string dump(const typename Kind::Row& row) {
  std::string s;
  for (const auto& f : Kind::table()) s += std::string("  ") + f.key + " " + f.print(row) + "\n";
  return s;
}

/// key=value of each field the row's path reads and `shown` keeps.
template <typename Kind>
std::string read_params(const typename Kind::Row& row, bool (*shown)(const typename Kind::Field&)) {
  std::string s;
  for (const auto& f : Kind::table()) {
    if (!reads<Kind>(f, row) || !shown(f)) continue;
    if (!s.empty()) s += ' ';
    s.append(f.key).append("=").append(f.print(row));
  }
  return s;
}

/// Throws "custom model: KEY=VALUE is refused: no WHAT reads it: REASON
/// (ROWS); ...": `why` maps each reason to the rows it applies to ("": none
/// named).
[[noreturn]] void refuse(std::string_view key, std::string_view value, const std::string& what,
                         const std::map<std::string, std::string>& why);

}  // namespace mmaemu::field_kit
