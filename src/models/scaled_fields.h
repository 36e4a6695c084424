// SPDX-License-Identifier: BSD-3-Clause
// The field table of the block-scaled and narrow-format units
// (models/scaled_units.h), made of the field kit (field_kit.h) as
// models/fields.h is for the block-FMA rows: every ScaledUnit field declared
// once with its custom: key, its valid values, a one-line doc, its parser and
// printer, and which algorithms (T-FDPA, ST-FDPA, GST-FDPA;
// docs/block-scaled.md §3) read it. A key no
// unit of the base model reads is refused. The keys carry the prefix bs_ so
// that they never meet a block-FMA key (custom:base=B200,frac=24 changes the
// fp16/bf16/fp8 rows, custom:base=B200,bs_frac=24 the block-scaled units).
#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/field_kit.h"
#include "models/scaled_units.h"

namespace mmaemu::scaled_fields {

/// When an algorithm reads a field.
enum class When : uint8_t {
  always,
  never,     // the algorithm does something fixed instead
  out_fp16,  // the row has an fp16 output (T rows)
  lookup,    // identity or shape: read by unit selection, not settable
};

/// How one algorithm uses a field, and one unit field (field_kit.h); Use and
/// Field are indexed by ScaledAlgo.
using Use = field_kit::Use<When>;
using Field = field_kit::Field<ScaledUnit, When, 3>;

/// Every field, in ScaledUnit's order.
std::span<const Field> table();

/// The settable field with this key, or null.
const Field* find(std::string_view key);

/// Whether the unit's algorithm reads the field.
bool reads(const Field& f, const ScaledUnit& u);

/// "the GST-FDPA unit sums e2m1 products exactly per group": why u does not read f.
std::string why_unread(const Field& f, const ScaledUnit& u);

/// Throws std::invalid_argument if the unit breaks a rule between fields.
void check_unit(const ScaledUnit& u);

/// One key=value override of a unit field.
struct Override {
  const Field* field;
  std::string value;
};

/// The units of `model` with the overrides applied: each key to every unit
/// that reads it; a key no unit reads is refused (the error says why, per
/// algorithm), as is a unit the result breaks a rule of. A unit any key
/// changed has hw_checked = false.
std::vector<ScaledUnit> apply(std::span<const ScaledUnit> units, const std::vector<Override>& ovs,
                              const std::string& model);

/// Every settable key, comma-separated (for messages).
std::string key_list();

/// `mmaemu models --keys`: the block-scaled keys (a Markdown table when
/// `markdown`: the key list of docs/block-scaled.md).
std::string describe_keys(bool markdown);

/// Every field of every unit of the registry, "key value" per line
/// (`mmaemu models --dump`, checked against tests/models/scaled_rows.txt).
std::string dump_units();

/// key=value of every field the unit's algorithm reads, settable or not,
/// but the identity (gpu, instruction, algo): the printout of `mmaemu models`.
std::string read_params(const ScaledUnit& u);

/// "e4m3,e5m2,e3m2,e2m3,e2m1" for a format mask.
std::string format_list(FmtMask mask);

}  // namespace mmaemu::scaled_fields
