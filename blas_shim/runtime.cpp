// SPDX-License-Identifier: BSD-3-Clause
// The runtime's plumbing (runtime.h): the re-entrancy guard, the real BLAS,
// the reference-BLAS error reports (docs/shim.md, "Reference-BLAS
// conventions") and the fatal exits. The bottom of the runtime: it calls
// only the C API, no other file of the shim.
#include <dlfcn.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "runtime.h"

namespace mmaemu::shim {
namespace {

// A nested call (a real BLAS calling sgemm_ from its cblas_sgemm, say) must
// reach the real routine, not come back here.
thread_local int t_depth = 0;

// A routine's name for messages: "SGEMM", not xerbla's padded "SGEMM ".
std::string unpadded(const char* routine) {
  std::string s(routine);
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

}  // namespace

bool nested() { return t_depth != 0; }
NestGuard::NestGuard() { ++t_depth; }
NestGuard::~NestGuard() { --t_depth; }

// Inside Python, numpy's BLAS is loaded RTLD_LOCAL and RTLD_NEXT finds
// nothing: then an explicit dlopen of the system BLAS.
void* find_real(const char* name) {
  if (void* f = dlsym(RTLD_NEXT, name)) return f;
  static void* lib = [] {
    for (const char* so : {"libopenblas.so.0", "libblas.so.3", "libopenblas.so", "libblas.so"})
      if (void* h = dlopen(so, RTLD_NOW | RTLD_LOCAL)) return h;
    return static_cast<void*>(nullptr);
  }();
  return lib ? dlsym(lib, name) : nullptr;
}

void* real_symbol(const char* name) {
  void* f = find_real(name);
  if (!f) config_error(std::string("no system BLAS provides ") + name);
  return f;
}

}  // namespace mmaemu::shim

// A weak reference, so that a program linked with libmmaemu exports its own
// xerbla_ (the reference-BLAS way to override error handling).
extern "C" void xerbla_(const char* name, const int* info, int len) __attribute__((weak));

namespace mmaemu::shim {

void report(const char* name, int info) {
  using Xerbla = void (*)(const char*, const int*, int);
  if (xerbla_) return xerbla_(name, &info, 6);
  if (auto x = reinterpret_cast<Xerbla>(dlsym(RTLD_DEFAULT, "xerbla_"))) return x(name, &info, 6);
  std::fprintf(stderr, " ** On entry to %.6s parameter number %2d had an illegal value\n", name, info);
}

// The other arguments of a CBLAS entry are checked on the Fortran call it
// stands for, and reported through xerbla_ with its Fortran number (report()).
void report_cblas(const char* cblas_name, int info) {
  using CblasXerbla = void (*)(int, const char*, const char*, ...);
  if (auto x = reinterpret_cast<CblasXerbla>(dlsym(RTLD_DEFAULT, "cblas_xerbla")))
    return x(info, cblas_name, "Illegal setting of parameter %d\n", info);
  std::fprintf(stderr, " ** On entry to %s parameter number %d had an illegal value\n", cblas_name, info);
}

void config_error(const std::string& message) {
  std::fprintf(stderr, "libmmaemu: %s\n", message.c_str());
  std::fflush(stderr);
  std::_Exit(2);
}

void fail(const char* routine, const char* message) {
  std::fprintf(stderr, "libmmaemu: %s: %s\n", unpadded(routine).c_str(), message);
  std::_Exit(2);
}

void fail_call(const char* routine) { fail(routine, mmaemu_last_error()); }

char upper(const char* c) { return static_cast<char>(std::toupper(static_cast<unsigned char>(*c))); }

char cblas_trans(int t) { return t == kNoTrans ? 'N' : t == kTrans ? 'T' : t == kConjTrans ? 'C' : '?'; }

}  // namespace mmaemu::shim
