// SPDX-License-Identifier: BSD-3-Clause
// Model lookup by name and custom models:
//   custom:base=B200,round=rne             every row of B200, RNE results
//   custom:base=A100,out=fp16,floor=-21    A100, its fp16-output rows with floor -21
//   custom:in=fp16,out=fp32,block=8,frac=24,floor=-132,round=rz
//                                          one row, every other field default
// The keys, their values and the paths that read them are the field table
// (fields.h; `mmaemu models --keys` lists them); the keys bs_* set the
// block-scaled units (scaled_fields.h), which only a base has. A custom model names a base
// or both `in` and `out`. With a base, a key applies to each row whose
// accumulation path reads it and is refused when no row of the base reads it
// (the error says what those paths do instead); `in` and `out` then select
// the rows the other keys apply to (in_b too, for the integer units); a key
// given twice is refused. The integer units (Model::integer) take the keys as
// the other rows do.
#include <cctype>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>

#include "models/errors.h"
#include "models/fields.h"
#include "models/model.h"
#include "models/scaled_fields.h"

namespace mmaemu {
namespace {

std::string lower(std::string_view s) {
  std::string out;
  for (char ch : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return out;
}

struct Override {
  const fields::Field* field;
  std::string value;
};

std::string all_keys() { return fields::key_list() + ", " + scaled_fields::key_list(); }

// Parses "key=value,key=value" (lower-cased); `base` goes to *base and the
// block-scaled keys to *scaled when given (refused otherwise).
std::vector<Override> parse_list(std::string_view list, std::string* base = nullptr,
                                 std::vector<scaled_fields::Override>* scaled = nullptr) {
  std::vector<Override> out;
  std::vector<std::string> seen;
  bool has_base = false;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    const std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    if (item.empty()) continue;
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      throw std::invalid_argument("custom model: expected key=value, got '" + std::string(item) + "'");
    const std::string key = lower(item.substr(0, eq)), value = lower(item.substr(eq + 1));
    if (key == "base" && base) {
      if (has_base) throw std::invalid_argument("custom model: key 'base' given twice");
      has_base = true;
      *base = value;
      continue;
    }
    for (const std::string& k : seen)
      if (k == key) throw std::invalid_argument("custom model: key '" + key + "' given twice");
    seen.push_back(key);
    if (const fields::Field* f = fields::find(key)) {
      out.push_back({f, value});
    } else if (const scaled_fields::Field* sf = scaled_fields::find(key)) {
      if (!scaled)
        throw std::invalid_argument("custom model: " + key + " sets a block-scaled unit, which only a custom "
                                    "model with a base has (custom:base=B200," + key + "=...)");
      scaled->push_back({sf, value});
    } else {
      throw std::invalid_argument("custom model: unknown key '" + key + "' (valid: " + all_keys() + ")");
    }
  }
  return out;
}

// One row with the overrides its path reads (the path and the conditions of
// the table may themselves depend on overrides, hence the passes); fields
// the resulting path does not read take that path's fixed values. `read[i]`
// is set for each override the row reads.
// An integer unit's path follows from its formats (docs/models.md §11): a
// path switch (accum=) applies to the floating-point rows and leaves the
// integer units as they are ("custom:base=A2,accum=exact").
ModelRow apply_to_row(const ModelRow& base, const std::vector<Override>& ovs, std::vector<bool>& read) {
  std::vector<bool> active(ovs.size(), true);
  if (base.accum == Accumulation::integer)
    for (std::size_t i = 0; i < ovs.size(); ++i) active[i] = std::string_view(ovs[i].field->key) != "accum";
  ModelRow r;
  for (bool changed = true; changed;) {
    r = base;
    for (std::size_t i = 0; i < ovs.size(); ++i)
      if (active[i]) ovs[i].field->parse(r, ovs[i].field->key, ovs[i].value);
    changed = false;
    for (std::size_t i = 0; i < ovs.size(); ++i)
      if (active[i] && !fields::reads(*ovs[i].field, r)) active[i] = false, changed = true;
  }
  std::vector<const fields::Field*> keep;
  for (std::size_t i = 0; i < ovs.size(); ++i)
    if (active[i]) keep.push_back(ovs[i].field), read[i] = true;
  fields::reset_unread(r, keep);
  fields::check_row(r);
  return r;
}

// "round=rz is refused: no row of MI250 reads it: the fma path ... (fp32->fp32,
// fp64->fp64); the pairwise path ... (fp16->fp32, bf16->fp32)".
[[noreturn]] void refuse_unread(const fields::Field& f, const std::string& value, const std::vector<ModelRow>& rows,
                                const std::string& model) {
  std::map<std::string, std::string> why;  // reason -> the rows it applies to
  for (ModelRow r : rows) {
    f.parse(r, f.key, value);
    std::string& list = why[fields::why_unread(f, r)];
    const std::string name = formats_of(r);
    if (list.find(name) == std::string::npos) list += (list.empty() ? "" : ", ") + name;
  }
  field_kit::refuse(f.key, value, "no row of " + model, why);
}

std::vector<ModelRow> apply_to_rows(const std::vector<ModelRow>& rows, const std::vector<Override>& ovs,
                                    const std::string& model) {
  std::vector<bool> read(ovs.size(), false);
  std::vector<ModelRow> out;
  for (const ModelRow& r : rows) out.push_back(apply_to_row(r, ovs, read));
  for (std::size_t i = 0; i < ovs.size(); ++i)
    if (!read[i]) refuse_unread(*ovs[i].field, ovs[i].value, rows, model);
  return out;
}

// With a base, in= and out= select the rows the other keys change
// ("custom:base=A100,out=fp16,floor=-21": the fp16-output rows); the other
// rows stay as the base has them.
std::vector<ModelRow> apply_to_selected_rows(const std::vector<ModelRow>& rows, const std::vector<Override>& ovs,
                                             const std::string& model) {
  std::vector<Override> select, change;
  for (const Override& o : ovs) {
    const std::string_view key = o.field->key;
    (key == "in" || key == "in_b" || key == "out" ? select : change).push_back(o);
  }
  if (select.empty()) return apply_to_rows(rows, change, model);
  std::string selection, all;
  for (const Override& o : select) {
    if (!selection.empty()) selection += ',';
    selection.append(o.field->key).append("=").append(o.value);
  }
  auto matches = [&](const ModelRow& r) {
    for (const Override& o : select) {
      ModelRow probe = r;
      o.field->parse(probe, o.field->key, o.value);  // refuses an invalid format
      if (o.field->print(probe) != o.field->print(r)) return false;
    }
    return true;
  };
  std::vector<std::size_t> chosen;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string name = formats_of(rows[i]);
    if (all.find(name) == std::string::npos) all.append(all.empty() ? "" : ", ").append(name);
    if (matches(rows[i])) chosen.push_back(i);
  }
  if (chosen.empty())
    throw std::invalid_argument("custom model: no row of " + model + " has " + selection + " (its rows: " + all + ")");
  std::vector<ModelRow> sel;
  for (std::size_t i : chosen) sel.push_back(rows[i]);
  sel = apply_to_rows(sel, change, model + " (rows with " + selection + ")");
  std::vector<ModelRow> out = rows;
  for (std::size_t j = 0; j < chosen.size(); ++j) out[chosen[j]] = sel[j];
  return out;
}

}  // namespace

void apply_overrides(ModelRow& row, std::string_view overrides) {
  row = apply_to_rows({row}, parse_list(overrides), "this row")[0];
}

namespace {

// Puts the integer rows into m.integer, the others into m.rows.
void split_integer(const std::vector<ModelRow>& rows, Model& m) {
  for (const ModelRow& r : rows) (r.accum == Accumulation::integer ? m.integer : m.rows).push_back(r);
}

// MODEL@INSTR: only the rows of one instruction (Model::find_instr), each
// the GEMM row of its formats ("B200@mma.sync": the interleaved HMMA fp8 path).
Model one_instruction(const Model& model, const std::string& instr) {
  Model sel;
  sel.name = model.name + "@" + instr;
  sel.gpu = model.gpu;
  std::string instrs;
  for (const ModelRow& r : model.rows) {
    if (instrs.find(r.instr) == std::string::npos) instrs += (instrs.empty() ? "" : ", ") + std::string(r.instr);
    if (instr.empty() || model.find_instr(instr, r.in, r.out) != &r) continue;
    ModelRow copy = r;
    copy.gemm_default = true;
    sel.rows.push_back(copy);
  }
  for (const ScaledUnit& u : model.scaled) {
    instrs += std::string(", ") + u.instruction;
    if (std::string_view(u.instruction).starts_with(instr)) sel.scaled.push_back(u);
  }
  // The integer units: per (A, B) formats, the first row of the instruction.
  for (const ModelRow& r : model.integer) {
    if (instrs.find(r.instr) == std::string::npos) instrs += (instrs.empty() ? "" : ", ") + std::string(r.instr);
    if (instr.empty() || lower(r.instr).rfind(lower(instr), 0) != 0 ||
        sel.find_integer(r.in, r.in_b, r.out))
      continue;
    ModelRow copy = r;
    copy.gemm_default = true;
    sel.integer.push_back(copy);
  }
  if (sel.rows.empty() && sel.scaled.empty() && sel.integer.empty())
    throw std::invalid_argument(model.name + " has no instruction '" + instr + "' (its instructions: " + instrs +
                                ")");
  return sel;
}

Model custom_model(const std::string& spec) {
  const std::string rest = spec.substr(7);
  std::string base;
  std::vector<scaled_fields::Override> scaled;
  const std::vector<Override> ovs = parse_list(rest, &base, &scaled);
  Model m;
  m.name = "custom:" + rest;
  if (!base.empty()) {
    const std::optional<Model> b = gpu_model(base);
    if (!b)
      throw UnknownModelError("custom model: unknown base '" + base + "'; valid models: " + valid_model_names());
    m.gpu = b->gpu;
    std::vector<ModelRow> all = b->rows;
    all.insert(all.end(), b->integer.begin(), b->integer.end());
    split_integer(apply_to_selected_rows(all, ovs, b->name), m);
    m.scaled = scaled_fields::apply(b->scaled, scaled, b->name);
    return m;
  }
  auto has = [&](const char* key) {
    for (const Override& o : ovs)
      if (std::string_view(o.field->key) == key) return true;
    return false;
  };
  if (!scaled.empty())
    throw std::invalid_argument("custom model: " + std::string(scaled[0].field->key) +
                                " sets a block-scaled unit: name a base model that has them (custom:base=B200,...)");
  if (!has("in") || !has("out"))
    throw std::invalid_argument("custom model: '" + spec + "' needs a base model (base=NAME) or a whole row "
                                "with both in= and out=; a unit is not made up from defaults");
  ModelRow r;
  r.family = "custom";
  r.instr = "custom";
  split_integer(apply_to_rows({r}, ovs, "the custom row"), m);
  return m;
}

}  // namespace

Model lookup_model(const std::string& spec) {
  if (const std::size_t at = spec.find('@'); at != std::string::npos) {
    if (spec.find('@', at + 1) != std::string::npos)
      throw std::invalid_argument("model '" + spec.substr(0, 60) + (spec.size() > 60 ? "..." : "") +
                                  "': at most one @INSTR");
    return one_instruction(lookup_model(spec.substr(0, at)), spec.substr(at + 1));
  }
  if (lower(spec).rfind("custom:", 0) == 0) return custom_model(spec);
  if (auto m = gpu_model(spec)) return *m;
  throw UnknownModelError("unknown model '" + spec + "'; valid models: " + valid_model_names());
}

}  // namespace mmaemu
