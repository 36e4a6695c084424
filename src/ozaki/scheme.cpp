// SPDX-License-Identifier: BSD-3-Clause
// Scheme names and the unit a scheme runs on (ozaki/scheme.h).
#include "ozaki/scheme.h"

#include <cctype>
#include <stdexcept>
#include <string>

namespace mmaemu::ozaki {

namespace {

// A count in [1, most], or std::invalid_argument naming the scheme syntax.
int parse_count(const std::string& digits, int most, const std::string& text) {
  bool ok = !digits.empty() && digits.size() <= 3;
  for (char c : digits) ok = ok && std::isdigit(static_cast<unsigned char>(c));
  const int v = ok ? std::stoi(digits) : 0;
  if (v < 1 || v > most)
    throw std::invalid_argument("bad Ozaki scheme '" + text + "' (valid: " + scheme_syntax() + ")");
  return v;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

}  // namespace

const char* scheme_syntax() {
  return "ozaki1:S (S = 1..40 slices, the S(S+1)/2 slice products), ozaki1:S:all (all S^2 slice products), "
         "ozaki2:N (N = 1..20 moduli, the int8 unit)";
}

Scheme parse_scheme(const std::string& text) {
  const std::string t = lower(text);
  Scheme s;
  if (t.rfind("ozaki1:", 0) == 0) {
    std::string rest = t.substr(7);
    s.kind = Kind::scheme1;
    if (rest.size() > 4 && rest.compare(rest.size() - 4, 4, ":all") == 0) {
      s.all_pairs = true;
      rest.resize(rest.size() - 4);
    }
    s.count = parse_count(rest, kMaxSlices, text);
    return s;
  }
  if (t.rfind("ozaki2:", 0) == 0) {
    s.kind = Kind::scheme2;
    s.count = parse_count(t.substr(7), kMaxModuli, text);
    return s;
  }
  throw std::invalid_argument("bad Ozaki scheme '" + text + "' (valid: " + scheme_syntax() + ")");
}

std::string scheme_name(const Scheme& s) {
  if (s.kind == Kind::scheme2) return "ozaki2:" + std::to_string(s.count);
  return "ozaki1:" + std::to_string(s.count) + (s.all_pairs ? ":all" : "");
}

namespace {

const char* kFloatInputs = "fp16, bf16, tf32, e4m3, e5m2, e4m3fnuz, e5m2fnuz";

// The model's units that can carry a scheme I, for messages.
std::string carriers(const Model& model) {
  std::string s;
  auto add = [&](const char* name) { s += (s.empty() ? "" : ", ") + std::string(name); };
  if (model.find_integer(Fmt::s8, Fmt::s8, Fmt::s32)) add("int8");
  if (model.find_integer(Fmt::s4, Fmt::s4, Fmt::s32)) add("int4");
  for (Fmt f : {Fmt::fp16, Fmt::bf16, Fmt::tf32, Fmt::e4m3, Fmt::e5m2, Fmt::e4m3fnuz, Fmt::e5m2fnuz})
    if (model.find(f, Fmt::fp32)) add(info(f).name);
  return s.empty() ? "none" : s;
}

Unit integer_unit(const Model& model, Fmt input, const driver::Schedule& schedule, const Scheme& scheme) {
  const char* name = info(input).name;
  if (input != Fmt::s8 && input != Fmt::s4)
    throw std::invalid_argument(std::string("the Ozaki schemes split into signed slices: input ") + name +
                                " cannot carry them; int8 (or int4 for scheme I) works");
  if (scheme.kind == Kind::scheme2 && input != Fmt::s8)
    throw std::invalid_argument("ozaki2 needs the int8 unit: int4 residues allow at most 5 pairwise-coprime "
                                "moduli <= 16 (product < 2^18), too few for fp64; input int8 works");
  if (scheme.kind == Kind::scheme1 && input == Fmt::s4 && scheme.count < 18)
    throw std::invalid_argument("int4 slices carry 3 bits each: " + scheme_name(scheme) +
                                " cannot hold fp64's 53 bits; ozaki1:18 or more works, or input int8");
  if (!schedule.is_chain())
    throw std::invalid_argument("schedule '" + driver::schedule_name(schedule) + "' does not apply to the integer "
                                "unit (its int32 sums are exact): the chain works");
  const ModelRow* row = model.find_integer(input, input, Fmt::s32);
  if (!row)
    throw NoUnit(model.name + " has no " + name + " unit for the Ozaki schemes (its units that can "
                                "carry scheme I: " + carriers(model) + ")");
  Unit u;
  u.row = row;
  u.input = input;
  return u;
}

}  // namespace

Unit resolve_unit(const Model& model, Fmt input, const std::string& schedule, const Scheme& scheme) {
  const driver::Schedule sched = driver::parse_schedule(schedule.empty() ? "chain" : schedule);
  if (info(input).is_integer()) return integer_unit(model, input, sched, scheme);
  if (scheme.kind == Kind::scheme2)
    throw std::invalid_argument(std::string("ozaki2 runs its modular products on the int8 unit, not on ") +
                                info(input).name + ": input int8 works");
  if (input == Fmt::fp32 || input == Fmt::fp64)
    throw std::invalid_argument(std::string("the ") + info(input).name + " unit is an FMA chain, not a unit of "
                                "narrow products: scheme I needs int8, int4 or " + kFloatInputs +
                                " (MMA_DGEMM=model runs the fp64 unit itself)");
  if (input > Fmt::e5m2fnuz)
    throw std::invalid_argument(std::string("input ") + info(input).name + " cannot carry scheme I (valid: int8, "
                                "int4, " + kFloatInputs + ")");
  const ModelRow* row = model.find(input, Fmt::fp32);
  if (!row)
    throw NoUnit(model.name + " has no " + info(input).name + " -> fp32 unit (its units that can "
                                "carry scheme I: " + carriers(model) + ")");
  driver::check_schedule(sched, *row);
  Unit u;
  u.row = row;
  u.input = input;
  u.schedule = sched;
  return u;
}

}  // namespace mmaemu::ozaki
