// SPDX-License-Identifier: BSD-3-Clause
// The host floating-point environment the real-operand kernels need.
#pragma once

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

namespace mmaemu::kernels {

// The real-operand kernels use host IEEE arithmetic: they need round to
// nearest and no flush-to-zero / denormals-are-zero, whatever the caller
// (a program built with -ffast-math, say) has set. Saved and restored per
// thread.
class FpEnvGuard {
 public:
  FpEnvGuard() {
#if defined(__x86_64__) || defined(__i386__)
    saved_ = _mm_getcsr();
    _mm_setcsr((saved_ & ~0x8040u & ~0x6000u) | 0x1F80u);  // no FTZ/DAZ, RNE, masked
#endif
  }
  ~FpEnvGuard() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_setcsr(saved_);
#endif
  }
  FpEnvGuard(const FpEnvGuard&) = delete;
  FpEnvGuard& operator=(const FpEnvGuard&) = delete;

 private:
  unsigned saved_ = 0;
};

}  // namespace mmaemu::kernels
