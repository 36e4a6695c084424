// SPDX-License-Identifier: BSD-3-Clause
// The shim's statistics (MMA_VERBOSE=1, docs/shim.md): one table of calls,
// flops and time per routine, emulated or forwarded to the system BLAS
// untouched, so that the report names every BLAS call that did not run on
// the model. Calls runtime_select (describe) only: the setting's files call
// it, never the reverse.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "runtime.h"

namespace mmaemu::shim {
namespace {

// Where a row is reported: the emulated calls of one setting (reset at
// each switch), the emulated gemv calls, the forwarded calls.
enum class Part { setting, gemv, forwarded };

struct Counter {
  const char* name;
  Part part;
  std::atomic<long> calls{0};
  std::atomic<double> flops{0}, seconds{0};
};

constexpr Part S = Part::setting, F = Part::forwarded;

// Every routine the report can name, in the order it prints them; the
// first rows in the order of Emulated.
Counter g_table[] = {
    {"sgemm", S}, {"ssyrk", S}, {"dgemm", S}, {"sbgemm", S}, {"sgemv", Part::gemv}, {"dgemv", Part::gemv},
    {"sgemm", F}, {"dgemm", F}, {"ssymm", F}, {"dsymm", F}, {"ssyrk", F}, {"dsyrk", F}, {"ssyr2k", F},
    {"dsyr2k", F}, {"strmm", F}, {"dtrmm", F}, {"strsm", F}, {"dtrsm", F}, {"sgemv", F}, {"dgemv", F},
    {"sgbmv", F}, {"dgbmv", F}, {"ssymv", F}, {"dsymv", F}, {"ssbmv", F}, {"dsbmv", F}, {"sspmv", F},
    {"dspmv", F}, {"strmv", F}, {"dtrmv", F}, {"stbmv", F}, {"dtbmv", F}, {"stpmv", F}, {"dtpmv", F},
    {"strsv", F}, {"dtrsv", F}, {"stbsv", F}, {"dtbsv", F}, {"stpsv", F}, {"dtpsv", F}, {"sger", F},
    {"dger", F}, {"ssyr", F}, {"dsyr", F}, {"sspr", F}, {"dspr", F}, {"ssyr2", F}, {"dsyr2", F},
    {"sspr2", F}, {"dspr2", F},
    // level 1 (level1.cpp): the Fortran names LAPACK's unblocked panels call
    {"isamax", F}, {"idamax", F}, {"sswap", F}, {"dswap", F}, {"sscal", F}, {"dscal", F}, {"scopy", F},
    {"dcopy", F}, {"saxpy", F}, {"daxpy", F}, {"sdot", F}, {"ddot", F}, {"snrm2", F}, {"dnrm2", F},
    {"sasum", F}, {"dasum", F}, {"srot", F}, {"drot", F},
};

bool any_calls(Part part) {
  for (const Counter& c : g_table)
    if (c.part == part && c.calls) return true;
  return false;
}

// An emulated routine's line: calls, flops and time.
void print_emulated(Part part) {
  for (const Counter& c : g_table)
    if (c.part == part && c.calls)
      std::fprintf(stderr, "libmmaemu: %-6s %8ld calls %12.4g flop %9.3f s\n", c.name, c.calls.load(), c.flops.load(),
                   c.seconds.load());
}

void print_forwarded() {
  if (!any_calls(Part::forwarded)) {
    std::fprintf(stderr, "libmmaemu: not emulated: no BLAS level-1/2/3 calls\n");
    return;
  }
  std::fprintf(stderr, "libmmaemu: not emulated (went to the system BLAS untouched):\n");
  for (const Counter& c : g_table)
    if (c.part == Part::forwarded && c.calls)
      std::fprintf(stderr, "libmmaemu:   %-6s %8ld calls %12.4g flop\n", c.name, c.calls.load(), c.flops.load());
}

// The setting the emulated calls are counted under: the last one
// report_switch() started, else the environment's (start_report); null
// before the report starts.
std::atomic<const Config*> g_counted{nullptr};

// Prints the emulated calls made under the counted setting since the last
// report, and resets their counts.
void report_calls() {
  const Config* cfg = g_counted.load(std::memory_order_acquire);
  if (!cfg || !any_calls(Part::setting)) return;
  std::fprintf(stderr, "libmmaemu: calls under %s:\n", describe(*cfg).c_str());
  print_emulated(Part::setting);
  for (Counter& c : g_table) {
    if (c.part != Part::setting) continue;
    c.calls = 0;
    c.flops = 0;
    c.seconds = 0;
  }
}

// MMA_OZAKI_CHECK=1: the exactness counts over every checked dgemm call.
std::atomic<unsigned long long> g_ozaki_calls{0}, g_ozaki_elements{0}, g_ozaki_inexact{0}, g_ozaki_outputs{0},
    g_ozaki_bad_outputs{0};

void print_ozaki() {
  if (!g_ozaki_calls) return;
  const unsigned long long y = g_ozaki_elements, x = y - g_ozaki_inexact;
  std::fprintf(stderr,
               "libmmaemu: ozaki: %llu dgemm calls checked, slice products exact: %llu of %llu; inexact output "
               "elements: %llu of %llu\n",
               g_ozaki_calls.load(), x, y, g_ozaki_bad_outputs.load(), g_ozaki_outputs.load());
}

}  // namespace

void report_ozaki(int m, int n, int k, const mmaemu_ozaki_stats& stats) {
  const unsigned long long y = stats.product_elements, x = y - stats.inexact_product_elements;
  const unsigned long long outputs = static_cast<unsigned long long>(m) * static_cast<unsigned long long>(n);
  std::fprintf(stderr,
               "libmmaemu: dgemm %dx%dx%d: slice products exact: %llu of %llu (%llu products; inexact output "
               "elements: %llu of %llu)\n",
               m, n, k, x, y, static_cast<unsigned long long>(stats.products),
               static_cast<unsigned long long>(stats.inexact_outputs), outputs);
  g_ozaki_calls += 1;
  g_ozaki_elements += y;
  g_ozaki_inexact += stats.inexact_product_elements;
  g_ozaki_outputs += stats.checked ? outputs : 0;
  g_ozaki_bad_outputs += stats.inexact_outputs;
}

void count_emulated(Emulated routine, double flops, double seconds) {
  Counter& c = g_table[static_cast<int>(routine)];
  c.calls += 1;
  c.flops.fetch_add(flops);
  c.seconds.fetch_add(seconds);
}

void count_forwarded(const char* routine, double flops) {
  for (Counter& c : g_table)
    if (c.part == Part::forwarded && std::strcmp(c.name, routine) == 0) {
      c.calls += 1;
      c.flops.fetch_add(flops);
      return;
    }
}

void start_report(const Config& env) {
  g_counted.store(&env, std::memory_order_release);
  std::atexit(print_report);
}

void report_switch(const Config& next) {
  report_calls();
  std::fprintf(stderr, "libmmaemu: switched to %s\n", describe(next).c_str());
  g_counted.store(&next, std::memory_order_release);
}

void print_report() {
  report_calls();
  print_ozaki();
  print_emulated(Part::gemv);
  print_forwarded();
}

}  // namespace mmaemu::shim
