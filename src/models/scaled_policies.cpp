// SPDX-License-Identifier: BSD-3-Clause
#include "models/scaled_policies.h"

#include <stdexcept>
#include <string>

namespace mmaemu {
namespace {

// docs/block-scaled.md: OCP MX (UE8M0 per 32) and NVFP4 (UE4M3 per 16 and a
// per-tensor fp32 scale).
constexpr ScaledPolicy kScaledPolicies[] = {
    {"mxfp8", Fmt::e4m3, Fmt::ue8m0, 32}, {"mxfp8:e5m2", Fmt::e5m2, Fmt::ue8m0, 32},
    {"mxfp6", Fmt::e2m3, Fmt::ue8m0, 32}, {"mxfp6:e3m2", Fmt::e3m2, Fmt::ue8m0, 32},
    {"mxfp4", Fmt::e2m1, Fmt::ue8m0, 32}, {"nvfp4", Fmt::e2m1, Fmt::ue4m3, 16}};

}  // namespace

std::span<const ScaledPolicy> scaled_policies() { return kScaledPolicies; }

const ScaledPolicy& scaled_policy(const char* name) {
  std::string valid;
  for (const ScaledPolicy& p : kScaledPolicies) {
    if (name && std::string(name) == p.name) return p;
    valid += std::string(valid.empty() ? "" : ", ") + p.name;
  }
  throw std::invalid_argument(std::string("'") + (name ? name : "(null)") +
                              "' is not a block-scaled policy (valid: " + valid + ")");
}

}  // namespace mmaemu
