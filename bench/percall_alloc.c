/* SPDX-License-Identifier: BSD-3-Clause */
/* mmaemu-percall's count of heap allocations: malloc and its relatives,
 * defined in the program, so that the shared libraries' calls (libmmaemu,
 * libstdc++'s operator new, Highway's aligned allocations) reach them too;
 * each forwards to glibc's own. */
#include <stddef.h>
#include <stdatomic.h>

void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);
void __libc_free(void*);

static atomic_ulong allocations;

unsigned long percall_allocations(void) { return atomic_load(&allocations); }

void* malloc(size_t n) {
  atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
  return __libc_malloc(n);
}
void* calloc(size_t count, size_t n) {
  atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
  return __libc_calloc(count, n);
}
void* realloc(void* p, size_t n) {
  atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
  return __libc_realloc(p, n);
}
void* memalign(size_t align, size_t n) {
  atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
  return __libc_memalign(align, n);
}
void* aligned_alloc(size_t align, size_t n) { return memalign(align, n); }
int posix_memalign(void** out, size_t align, size_t n) {
  void* p = memalign(align, n);
  if (!p) return 12; /* ENOMEM */
  *out = p;
  return 0;
}
void free(void* p) { __libc_free(p); }
