// SPDX-License-Identifier: BSD-3-Clause
// The registry of unit kinds (macro.h, UnitKind): one row per kernels::Macro,
// in its order, naming the loop nest that runs the kind's GEMM. A new kind
// adds its row here and its id to kernels::Macro (docs/kernels.md, "Adding a
// unit kind").
#include <array>
#include <cstddef>

#include "driver/macro.h"

namespace mmaemu::driver {
namespace {

void run_steps(const MacroArgs& args, const GemmSpec& spec) { run_steps_macro(GemmCall{args, spec, *spec.row}); }
void run_chain(const MacroArgs& args, const GemmSpec& spec) { run_chain_macro(GemmCall{args, spec, *spec.row}); }
void run_exact(const MacroArgs& args, const GemmSpec& spec) { run_exact_macro(GemmCall{args, spec, *spec.row}); }
void run_scaled(const MacroArgs& args, const GemmSpec& spec) { run_scaled_macro(ScaledCall{args, *spec.scaled}); }
void run_integer(const MacroArgs& args, const GemmSpec& spec) { run_integer_macro(GemmCall{args, spec, *spec.row}); }

constexpr std::array<UnitKind, 5> kKinds{{
    {kernels::Macro::steps, "steps", run_steps},
    {kernels::Macro::chain, "chain", run_chain},
    {kernels::Macro::exact, "exact", run_exact},
    {kernels::Macro::scaled, "scaled", run_scaled},
    {kernels::Macro::integer, "integer", run_integer},
}};

constexpr bool in_macro_order() {
  for (std::size_t i = 0; i < kKinds.size(); ++i)
    if (static_cast<std::size_t>(kKinds[i].macro) != i) return false;
  return true;
}
static_assert(in_macro_order(), "kKinds: one row per kernels::Macro, in its order");

}  // namespace

const UnitKind& unit_kind(kernels::Macro macro) { return kKinds[static_cast<std::size_t>(macro)]; }

}  // namespace mmaemu::driver
