// SPDX-License-Identifier: BSD-3-Clause
// The field table of the block-FMA rows: every ModelRow field declared once
// (in the field kit, field_kit.h), with its custom: key,
// its valid values, a one-line doc, its parser and printer, and which
// accumulation paths read it (docs/models.md explains each parameter).
// custom: overrides, the row checks, their error texts, `mmaemu models`
// (--keys, --dump) and the key list of docs/models.md all come from this table.
#pragma once

#include <array>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "models/field_kit.h"
#include "models/model.h"

namespace mmaemu::fields {

/// When a path reads a field: a condition on the row, kept as data.
enum class When : uint8_t {
  always,
  never,              // the path does something fixed instead (Use::instead)
  c_late_rd,          // c = late_rd
  c_late_rd_zero_c,   // c = late_rd, c = 0 is a term (zero_c != ignore) and a
                      // product can lie below 2^zero_c (bf16, tf32 at -126)
  c_late_rne,         // c = late_rne
  in_8bit,            // in is an 8-bit format
  wide_products,      // products of the inputs can reach 2^128 (bf16, tf32, fp32)
  out_fp16,           // out = fp16
  out_not_fp16,       // out = fp32 or fp64
  out_flushes,        // out_sub = 0
  out_flushes_small,  // out_sub = 0 and a product can lie below out's normal
                      // range (a flushed result is reachable; bf16, fp16->fp16)
  product_overflow,   // prd_ovf = 1
  satfinite,          // overflow = satfinite
  lookup,             // identity: read by the model lookup, not the arithmetic
};

/// How one accumulation path uses a field, and one row field (field_kit.h);
/// Use and Field are indexed by Accumulation (five paths).
using Use = field_kit::Use<When>;
using Field = field_kit::Field<ModelRow, When, 5>;

/// Every field, in ModelRow's order.
std::span<const Field> table();

/// The settable field with this key (case as given), or null.
const Field* find(std::string_view key);

/// Whether the row's accumulation path reads the field.
bool reads(const Field& f, const ModelRow& row);

/// "the pairwise path rounds every addition to nearest-even" or "the aligned
/// path reads it only when c=late_rd": why the row does not read the field.
std::string why_unread(const Field& f, const ModelRow& row);

/// The value the row must hold for a field its path does not read.
std::string fixed_value(const Field& f, const ModelRow& row);

/// Sets every field the row's path does not read to its fixed value, except
/// the keys in `keep`.
void reset_unread(ModelRow& row, const std::vector<const Field*>& keep = {});

/// Throws std::invalid_argument if the row breaks a rule between fields or
/// holds, in a field its path does not read, anything but the fixed value.
void check_row(const ModelRow& row);

/// The name of an accumulation path ("aligned", "exact", "pairwise", "fma",
/// "integer").
const char* path_name(Accumulation a);

/// Every settable key, comma-separated (for messages).
std::string key_list();

/// `mmaemu models --keys`: key, values, paths reading it, doc; as a
/// Markdown table when `markdown` (the key list of docs/models.md).
std::string describe_keys(bool markdown);

/// Every field of one row, "key value" per line.
std::string dump_row(const ModelRow& row);

/// `mmaemu models --dump`: every registry row, every field.
std::string dump_rows();

/// The key=value pairs of the fields the row's path reads (identity and
/// shape left out): the per-row printout of `mmaemu models`.
std::string read_params(const ModelRow& row);

}  // namespace mmaemu::fields
