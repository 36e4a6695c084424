// SPDX-License-Identifier: BSD-3-Clause
// mmaemu-bench: emulated GEMM throughput as a ratio to OpenBLAS sgemm on the
// same matrices in the same run (never a timed test; see docs/performance.md).
//
//   mmaemu-bench [--model M] [--input F] [--output F] [--n N[,N...]]
//                [--shape M,N,K]... [--threads T[,T...]] [--csv FILE]
//                [--repeat R] [--schedule S] [--validate DIR[,DIR...]]
//                [--mmaemu PATH] [--busy P | --load] [--callers C]
//   mmaemu-bench --batch [--model M] [--threads T[,T...]] [--repeat R]
//   mmaemu-bench --dgemm S[,S...] [--model M] [--input F] [--n N,...] [--threads T,...] [--repeat R]
// Everything is timed through the public C API (include/mmaemu/mmaemu.h)
// of the shared library, so the same program can time an installed one.
// --output: the unit's output format (fp16: the fp16 -> fp16 rows; A, B
// and C stay fp32 in memory). --n: square products; --shape: any product
// (repeatable), OpenBLAS timed on the same shape; either replaces the
// default list (squares n = 64 ... 4096, m = 16 skinny, 10 x 10^6 x 10).
// --batch: the batched instructions (mmaemu_dot_batch), dot/s per core.
// --dgemm: fp64 by Ozaki schemes (ozaki2:14, ozaki1:7, ...; docs/ozaki.md) on
// the unit --input names (int8 default) of --model (H100 default), time as a
// ratio to OpenBLAS dgemm (n default 256, 512, 1024, 2048).
// --validate: `mmaemu validate` throughput on data sets (text or .npy,
// mmaemu validate --convert), samples/s per thread count: the mmaemu
// command (--mmaemu PATH; default the one built beside this program) run
// as a subprocess under MMA_NUM_THREADS.
// --schedule runs every row under one schedule (promote:128, splitk:4, ...;
// a combination as in the C API); the rows then name it.
// The block-scaled rows (mxfp8, nvfp4: the shim's sgemm policies, through
// mmaemu_sgemm_block_scaled, quantisation timed) take --threads through
// MMA_NUM_THREADS.
// The integer rows (--input int8, uint8, int4, uint4; with ":sat" the
// .satfinite variant) run mmaemu_gemm_int on random codes (int4: two per
// byte along k), int32 out (output "s32"); their GFLOP/s column is GOP/s,
// 2mnk integer operations per second, and the ratio is to OpenBLAS sgemm's
// GFLOP/s on the same shape in the same run.
// --busy P: P competitor processes spin on the CPU for the whole run (a
// machine whose cores are not all free); --load is --busy 1. --callers C:
// C application threads each run the row's GEMM at once (each with its own
// C; OpenBLAS timed the same way), GFLOP/s the aggregate over all callers.
// The CSV's scenario column names the run's: quiet, load, busy:P,
// callers:C, load+callers:C. With two or more thread counts the run ends
// with each row's time ratio to its first thread count (docs/performance.md, "Threads under load").
// peak_extra_mib: the row's peak resident memory above the resident set at
// its start, where the operands are already written (VmHWM, reset through
// /proc/self/clear_refs before each row). Memory that earlier rows freed is
// handed back to the system first (malloc_trim): a row that reused it would
// read too low.
#include <cblas.h>
#include <dlfcn.h>
#include <malloc.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "mmaemu/mmaemu.h"
#include "batch_rows.h"
#include "dgemm_rows.h"

extern "C" void openblas_set_num_threads(int);
extern "C" char* openblas_get_corename(void);

namespace {

// A model name may be MODEL@INSTR: that instruction's rows, not the GEMM
// defaults (lookup_model).
struct Case {
  std::string model, input;
  int max_n = 0;  // the default sizes above this are skipped (0: none)
  std::string output = "fp32";  // the unit's output format
};

// One product m x n x k (A m x k, B k x n, row-major).
struct Shape {
  int m, n, k;
  std::string name() const {
    return m == n && n == k ? std::to_string(n) : std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  }
};

// The default products: squares, small ones (numpy programs make many),
// and skinny ones (m = 16 in inference; the multi-word experiment's
// (10 x 10^6) * (10^6 x 10), m = n = 10 and k = 10^6; and its short-wide
// transpose m = k = 10, n = 10^6).
const std::vector<Shape> kDefaultShapes = {
    {64, 64, 64},       {128, 128, 128},    {256, 256, 256},  {1024, 1024, 1024},
    {2048, 2048, 2048}, {4096, 4096, 4096}, {16, 4096, 4096}, {10, 10, 1000000}, {10, 1000000, 10}};

bool block_scaled_policy(const std::string& input) {
  mmaemu_block_scale_desc desc;
  return mmaemu_parse_block_scaled_policy(input.c_str(), &desc) == MMAEMU_OK;
}

// The representative rows (the README's benchmark table).
const std::vector<Case> kDefaultCases = {
    {"H100", "fp16"},  {"H100", "tf32"},  {"B200", "bf16"},   {"A100", "fp16"},
    {"V100", "fp16"},  {"L40S", "e4m3"},  {"MI300X", "fp16"}, {"MI300X", "fp8"},
    {"MI250", "fp16"}, {"MI100", "fp16"}, {"MI250", "fp32"},
    {"H100", "fp16", 0, "fp16"}, {"V100", "fp16", 0, "fp16"},  // fp16 results (RNE fp16 output stage)
    {"H100@mma.sync", "e4m3"},  // the interleaved HMMA fp8 path (docs/models.md §2.12)
    {"B200", "mxfp8"}, {"B200", "nvfp4"},  // block-scaled
    {"H100", "int8", 0, "s32"},            // the integer unit (mmaemu_gemm_int, wrapping)
};

// An integer row's input: "int8", "uint8", "int4" or "uint4" (A and B both),
// optionally ":sat" (the .satfinite variant).
struct IntInput {
  mmaemu_format format = MMAEMU_S8;
  int saturate = 0;
};
bool integer_input(const std::string& input, IntInput* out = nullptr) {
  const std::pair<const char*, mmaemu_format> names[] = {
      {"int8", MMAEMU_S8}, {"uint8", MMAEMU_U8}, {"int4", MMAEMU_S4}, {"uint4", MMAEMU_U4}};
  const std::size_t colon = input.find(':');
  const std::string base = input.substr(0, colon), rule = colon == std::string::npos ? "" : input.substr(colon + 1);
  if (rule != "" && rule != "sat") return false;
  for (const auto& [name, f] : names)
    if (base == name) {
      if (out) *out = {f, rule == "sat"};
      return true;
    }
  return false;
}

// The ratios mean something only against OpenBLAS's kernel for this CPU.
// An OpenBLAS older than the CPU (Debian 12's 0.3.21 on Emerald Rapids)
// falls back to its generic Prescott kernel, several times slower; the
// environment variable OPENBLAS_CORETYPE, read when the library loads,
// chooses the kernel instead (docs/performance.md, "The bench and the latest runs").
bool report_openblas_core() {
  // libmmaemu.so exports the CBLAS names too (the shim): the ratios need
  // OpenBLAS's cblas_sgemm, the first in the search order.
  Dl_info where{};
  void* const sgemm = dlsym(RTLD_DEFAULT, "cblas_sgemm");
  if (!sgemm || !dladdr(sgemm, &where) || !where.dli_fname || !std::strstr(where.dli_fname, "openblas")) {
    std::fprintf(stderr, "mmaemu-bench: cblas_sgemm comes from %s, not OpenBLAS (link OpenBLAS before libmmaemu)\n",
                 where.dli_fname ? where.dli_fname : "nowhere");
    return false;
  }
  const std::string core = openblas_get_corename();
  std::printf("OpenBLAS kernel: %s\n", core.c_str());
  if ((core == "Prescott" || core == "prescott") && __builtin_cpu_supports("avx2"))
    std::fprintf(stderr,
                 "mmaemu-bench: OpenBLAS runs its generic Prescott kernel on this AVX2 CPU (it does not know the "
                 "model); the ratios would flatter the emulator. Run with OPENBLAS_CORETYPE=Haswell (AVX2), "
                 "SkylakeX or Cooperlake (AVX-512).\n");
  return true;
}

// --busy: the competitor processes, ended at exit.
std::vector<pid_t> g_competitors;

void stop_competitors() {
  for (pid_t p : g_competitors) kill(p, SIGKILL);
  for (pid_t p : g_competitors) waitpid(p, nullptr, 0);
  g_competitors.clear();
}

// Forks `count` processes that spin until killed (or until this one dies).
bool start_competitors(int count) {
  for (int i = 0; i < count; ++i) {
    const pid_t p = fork();
    if (p < 0) return false;
    if (p == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      volatile unsigned long spin = 0;  // (volatile: the loop stays)
      for (;;) spin = spin + 1;
    }
    g_competitors.push_back(p);
  }
  std::atexit(stop_competitors);
  return true;
}

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A "Key:   N kB" line of /proc/self/status, in MiB (-1: not found).
double status_mib(const char* key) {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  double mib = -1;
  const std::size_t len = std::strlen(key);
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, key, len) == 0 && line[len] == ':') mib = std::strtod(line + len + 1, nullptr) / 1024.0;
  std::fclose(f);
  return mib;
}

// Returns the heap's free pages to the system, then resets the peak
// resident set (VmHWM) to the current one; false where the kernel does not
// allow it (the column then reads -1).
bool reset_peak_rss() {
  malloc_trim(0);
  FILE* f = std::fopen("/proc/self/clear_refs", "w");
  if (!f) return false;
  const bool ok = std::fputs("5", f) >= 0;
  return std::fclose(f) == 0 && ok;
}

std::vector<int> int_list(const char* s) {
  std::vector<int> v;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) v.push_back(std::atoi(item.c_str()));
  return v;
}

// Best-of-r wall time of f().
template <typename F>
double best_time(int r, F&& f) {
  double best = 1e300;
  for (int i = 0; i < r; ++i) {
    const double t0 = now();
    f();
    best = std::min(best, now() - t0);
  }
  return best;
}

// Dot products per second, H100 fp16 -> fp32, k = 16 (the unit of a
// validation campaign), one thread: one instruction a call (mmaemu_tile,
// the per-call cost included) and the batched engine (mmaemu_dot_batch).
int engine_throughput() {
  mmaemu_model* h = nullptr;
  int m = 0, n = 0, k = 0;
  if (mmaemu_model_lookup("H100", &h) != MMAEMU_OK ||
      mmaemu_tile_shape(h, MMAEMU_FP16, MMAEMU_FP32, &m, &n, &k) != MMAEMU_OK) {
    std::fprintf(stderr, "mmaemu-bench: %s\n", mmaemu_last_error());
    return 2;
  }
  std::mt19937_64 rng(1);
  const int dots = 20480, kk = 16;
  std::vector<uint16_t> a(static_cast<std::size_t>(dots) * kk), b(a.size());
  for (auto& x : a) x = static_cast<uint16_t>(rng() & 0x7BFF);
  for (auto& x : b) x = static_cast<uint16_t>(rng() & 0xFBFF);
  std::vector<float> c(dots, 0.0f), d(dots);
  int status = MMAEMU_OK;
  const std::size_t ta = static_cast<std::size_t>(m) * k, tb = static_cast<std::size_t>(k) * n;
  const int tiles = static_cast<int>(std::min<std::size_t>(1024, a.size() / std::max(ta, tb)));
  const double t_tile = best_time(3, [&] {
    for (int t = 0; t < tiles && status == MMAEMU_OK; ++t)
      status = mmaemu_tile(h, MMAEMU_FP16, MMAEMU_FP32, &a[t * ta], &b[t * tb], c.data(), d.data());
  });
  const double t_batch = best_time(3, [&] {
    if (status == MMAEMU_OK)
      status = mmaemu_dot_batch(h, MMAEMU_FP16, MMAEMU_FP32, dots, kk, a.data(), b.data(), c.data(), d.data(), 1);
  });
  mmaemu_model_free(h);
  if (status != MMAEMU_OK) {
    std::fprintf(stderr, "mmaemu-bench: %s\n", mmaemu_last_error());
    return 2;
  }
  std::printf("validation engine (H100 fp16->fp32, 1 thread): one tile a call (mmaemu_tile, %dx%dx%d) %.3g dot/s, "
              "batched (mmaemu_dot_batch, k = %d) %.3g dot/s\n",
              m, n, k, tiles * m * n / t_tile, kk, dots / t_batch);
  return 0;
}

// "fp32", "fp16", ...: the unit's output format for mmaemu_gemm_options.
bool parse_output(const std::string& name, mmaemu_format& f) {
  const std::pair<const char*, mmaemu_format> formats[] = {
      {"fp32", MMAEMU_FP32}, {"fp16", MMAEMU_FP16}, {"bf16", MMAEMU_BF16}, {"fp64", MMAEMU_FP64}};
  for (const auto& [n, v] : formats)
    if (name == n) return f = v, true;
  std::fprintf(stderr, "mmaemu-bench: unknown output format '%s'; valid: fp32, fp16, bf16, fp64\n", name.c_str());
  return false;
}

// "M,N,K" -> a shape (each >= 1).
bool parse_shape(const char* text, Shape& s) {
  const std::vector<int> v = int_list(text);
  if (v.size() != 3 || v[0] < 1 || v[1] < 1 || v[2] < 1) {
    std::fprintf(stderr, "mmaemu-bench: --shape takes M,N,K (positive integers), got '%s'\n", text);
    return false;
  }
  s = {v[0], v[1], v[2]};
  return true;
}

// `mmaemu validate` on the sets under the roots, end to end (reading,
// conversion, engine, comparison): the command run under MMA_NUM_THREADS
// for each thread count, its "total: N samples" line read back.
int validation_throughput(const std::string& cli, const std::vector<std::string>& roots,
                          const std::vector<int>& threads) {
  std::string names, args;
  for (const std::string& r : roots) {
    names += (names.empty() ? "" : ",") + r;
    args += " '" + r + "'";
  }
  for (int t : threads) {
    const std::string cmd = "MMA_NUM_THREADS=" + std::to_string(t) + " '" + cli + "' validate" + args + " 2>&1";
    const double t0 = now();
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) {
      std::fprintf(stderr, "mmaemu-bench: --validate: cannot run %s\n", cli.c_str());
      return 2;
    }
    std::string out;
    char buf[4096];
    for (std::size_t got; (got = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, got);
    pclose(p);
    const double dt = now() - t0;
    const std::size_t at = out.rfind("total: ");
    if (at == std::string::npos) {
      std::fprintf(stderr, "mmaemu-bench: --validate: %s gave no total:\n%s", cmd.c_str(), out.c_str());
      return 2;
    }
    const std::size_t samples = std::strtoull(out.c_str() + at + 7, nullptr, 10);
    std::printf("validation %s: %zu samples, %d thread%s, %.3f s (process included): %.3g samples/s (%.3g per "
                "thread); %s",
                names.c_str(), samples, t, t == 1 ? "" : "s", dt, samples / dt, samples / dt / t, out.c_str() + at);
  }
  return 0;
}

// Best wall time over r rounds of `callers` threads each running f(caller)
// once at the same time (the calling thread is caller 0). A round is timed
// by the barrier's completion steps, which run once every thread has
// arrived: from the last arrival before the calls to the last one after
// them (a caller descheduled at the start cannot shorten the round).
template <typename F>
double best_time_callers(int callers, int r, F&& f) {
  if (callers <= 1) return best_time(r, [&] { f(0); });
  double t0 = 0, best = 1e300;
  unsigned long phase = 0;
  auto on_phase = [&]() noexcept {
    const double t = now();
    if (phase++ % 2 == 0) t0 = t;
    else best = std::min(best, t - t0);
  };
  std::barrier sync(callers, on_phase);
  auto rounds = [&](int who) {
    for (int i = 0; i < r; ++i) {
      sync.arrive_and_wait();
      f(who);
      sync.arrive_and_wait();
    }
  };
  std::vector<std::thread> others;
  for (int c = 1; c < callers; ++c) others.emplace_back(rounds, c);
  rounds(0);
  for (std::thread& t : others) t.join();
  return best;
}


// The integer rows' operands: random codes (int8: one per byte, int4: two;
// m*k and k*n bytes, enough for either), one int32 C per caller.
struct IntOperands {
  std::vector<uint8_t> A, B;
  std::vector<std::vector<int32_t>> Cs;
};

// What one run shares with each of its rows.
struct RunSetup {
  const std::vector<float>& A;
  const std::vector<float>& B;
  std::vector<std::vector<float>>& Cs;  // one C per caller
  IntOperands& ints;
  const std::string& schedule;
  const std::string& scenario;
  FILE* csv;
  std::vector<std::pair<std::string, std::vector<double>>>& times;  // each row's time per thread count
};

// Times one row (model, input, output) on one shape and thread count
// against the OpenBLAS time t_blas, and prints it (stdout, CSV).
int run_row(const Case& c, const Shape& sh, int t, int r, double t_blas, RunSetup& run) {
  const int callers = static_cast<int>(run.Cs.size());
  const double flops = 2.0 * static_cast<double>(sh.m) * static_cast<double>(sh.n) * static_cast<double>(sh.k);
  mmaemu_model* h = nullptr;
  if (mmaemu_model_lookup(c.model.c_str(), &h) != MMAEMU_OK) {
    std::fprintf(stderr, "mmaemu-bench: %s\n", mmaemu_last_error());
    return 2;
  }
  mmaemu_gemm_options opt;
  mmaemu_gemm_options_init(&opt);
  const bool scaled = block_scaled_policy(c.input);
  IntInput int_in;
  const bool integer = integer_input(c.input, &int_in);
  mmaemu_gemm_int_options iopt;
  mmaemu_gemm_int_options_init(&iopt);
  iopt.a_format = iopt.b_format = int_in.format;
  iopt.saturate = int_in.saturate;
  iopt.threads = t;
  int bad = 0;
  if (integer) {
    if (c.output != "s32") bad = 2, std::fprintf(stderr, "mmaemu-bench: the integer rows have s32 output only\n");
  } else if (!scaled && mmaemu_parse_policy(c.input.c_str(), &opt) != MMAEMU_OK)
    bad = 2, std::fprintf(stderr, "mmaemu-bench: %s\n", mmaemu_last_error());
  else if (!parse_output(c.output, opt.output))
    bad = 2;
  else if (scaled && opt.output != MMAEMU_FP32)
    bad = 2, std::fprintf(stderr, "mmaemu-bench: the block-scaled rows run with fp32 output only\n");
  if (bad) {
    mmaemu_model_free(h);
    return bad;
  }
  opt.threads = t;
  if (scaled) setenv("MMA_NUM_THREADS", std::to_string(t).c_str(), 1);  // the sgemm policy path has no options
  opt.schedule = run.schedule.empty() ? nullptr : run.schedule.c_str();
  std::vector<int> status(static_cast<std::size_t>(callers), MMAEMU_OK);
  std::vector<std::string> error(status.size());
  const bool peak_ok = reset_peak_rss();
  const double rss0 = status_mib("VmRSS");
  const float *A = run.A.data(), *B = run.B.data();
  const bool int4 = int_in.format == MMAEMU_S4 || int_in.format == MMAEMU_U4;
  const int lda_int = int4 ? (sh.k + 1) / 2 : sh.k;  // int4: k contiguous in A, two codes per byte
  const double t_emu = best_time_callers(callers, r, [&](int who) {
    float* C = run.Cs[who].data();
    const int s = integer ? mmaemu_gemm_int(h, &iopt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, sh.m, sh.n,
                                            sh.k, run.ints.A.data(), lda_int, run.ints.B.data(), sh.n, 0,
                                            run.ints.Cs[who].data(), sh.n)
                  : scaled ? mmaemu_sgemm_block_scaled(h, c.input.c_str(), MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS,
                                                     MMAEMU_NO_TRANS, sh.m, sh.n, sh.k, 1.0f, A, sh.k, B, sh.n, 0.0f,
                                                     C, sh.n)
                         : mmaemu_gemm(h, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, sh.m, sh.n, sh.k,
                                       1.0, A, sh.k, B, sh.n, 0.0, C, sh.n);
    if (s != MMAEMU_OK && status[who] == MMAEMU_OK) status[who] = s, error[who] = mmaemu_last_error();
  });
  const double extra = peak_ok && rss0 >= 0 ? std::max(0.0, status_mib("VmHWM") - rss0) : -1.0;
  mmaemu_model_free(h);
  for (std::size_t w = 0; w < status.size(); ++w)
    if (status[w] != MMAEMU_OK) {
      std::fprintf(stderr, "mmaemu-bench: %s %s->%s: %s\n", c.model.c_str(), c.input.c_str(), c.output.c_str(),
                   error[w].c_str());
      return 2;
    }
  const double g = callers * flops / t_emu * 1e-9, gb = callers * flops / t_blas * 1e-9;
  const std::string name = run.schedule.empty() ? c.model : c.model + " " + run.schedule;
  const std::string shape_name = sh.name();
  const std::string row = name + " " + c.input + "->" + c.output + " " + shape_name;
  auto at = std::find_if(run.times.begin(), run.times.end(), [&](const auto& x) { return x.first == row; });
  if (at == run.times.end()) at = run.times.insert(run.times.end(), {row, {}});
  at->second.push_back(t_emu);
  std::printf("%-13s %-6s %-6s %14s %7d %10.3f %16.2f %9.4f %13.1f\n", name.c_str(), c.input.c_str(),
              c.output.c_str(), shape_name.c_str(), t, g, gb, g / gb, extra);
  std::fflush(stdout);
  if (run.csv)
    std::fprintf(run.csv, "%s,%s,%s,%s,%d,%s,%.4f,%.3f,%.5f,%.1f\n", name.c_str(), c.input.c_str(), c.output.c_str(),
                 shape_name.c_str(), t, run.scenario.c_str(), g, gb, g / gb, extra);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Case> cases = kDefaultCases;
  std::string only_model, only_input, only_output, csv_file, schedule;
  std::vector<Shape> shapes;
  std::vector<int> threads = {1, 2};
  std::vector<std::string> validate_roots;
  std::string cli = MMAEMU_BENCH_CLI;
  bool batch = false;
  std::vector<std::string> dgemm_schemes;  // --dgemm
  int repeat = 0, busy = 0, callers = 1;
  for (int i = 1; i < argc; ++i) {
    auto arg = [&](const char* name) { return std::strcmp(argv[i], name) == 0 && i + 1 < argc; };
    Shape shape{};
    if (arg("--model")) only_model = argv[++i];
    else if (arg("--input")) only_input = argv[++i];
    else if (arg("--output")) only_output = argv[++i];
    else if (arg("--n"))
      for (int n : int_list(argv[++i])) shapes.push_back({n, n, n});
    else if (arg("--shape")) {
      if (!parse_shape(argv[++i], shape)) return 2;
      shapes.push_back(shape);
    } else if (arg("--threads")) threads = int_list(argv[++i]);
    else if (arg("--csv")) csv_file = argv[++i];
    else if (arg("--repeat")) repeat = std::atoi(argv[++i]);
    else if (arg("--schedule")) schedule = argv[++i];
    else if (arg("--busy")) busy = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--load") == 0) busy = 1;
    else if (arg("--callers")) callers = std::atoi(argv[++i]);
    else if (arg("--mmaemu")) cli = argv[++i];
    else if (std::strcmp(argv[i], "--batch") == 0) batch = true;
    else if (arg("--dgemm")) {
      std::stringstream ss(argv[++i]);
      for (std::string s; std::getline(ss, s, ',');) dgemm_schemes.push_back(s);
    }
    else if (arg("--validate")) {
      std::stringstream ss(argv[++i]);
      for (std::string dir; std::getline(ss, dir, ',');) validate_roots.push_back(dir);
    } else {
      std::fprintf(stderr,
                   "usage: mmaemu-bench [--model M] [--input F] [--output F] [--n N,...] [--shape M,N,K]... "
                   "[--threads T,...] [--csv FILE] [--repeat R] [--schedule S] [--validate DIR,...] [--mmaemu PATH] "
                   "[--busy P | --load] [--callers C] | --batch | --dgemm SCHEMES\n");
      return 2;
    }
  }
  if (batch) return batch_throughput(threads, repeat > 0 ? repeat : 5, only_model);
  if (!dgemm_schemes.empty()) {
    std::vector<int> sizes;
    for (const Shape& s : shapes) sizes.push_back(s.m);
    if (sizes.empty()) sizes = {256, 512, 1024, 2048};
    return dgemm_rows(dgemm_schemes, only_model.empty() ? "H100" : only_model,
                      only_input.empty() ? "int8" : only_input, sizes, threads, repeat > 0 ? repeat : 1);
  }
  const bool sizes_given = !shapes.empty();
  if (!sizes_given) shapes = kDefaultShapes;
  mmaemu_format out_fmt = MMAEMU_FP32;
  if (!only_output.empty() && only_output != "s32" && !parse_output(only_output, out_fmt)) return 2;
  if (!only_model.empty() || !only_input.empty() || !only_output.empty()) {
    std::vector<Case> sel;
    for (const Case& c : cases)
      if ((only_model.empty() || c.model == only_model) && (only_input.empty() || c.input == only_input) &&
          (only_output.empty() || c.output == only_output))
        sel.push_back(c);
    if (sel.empty()) {
      const std::string input = only_input.empty() ? "fp16" : only_input;
      sel.push_back({only_model.empty() ? "H100" : only_model, input, 0,
                     only_output.empty() ? (integer_input(input) ? "s32" : "fp32") : only_output});
    }
    cases = sel;
  }
  if (!schedule.empty()) {  // a block-scaled or integer row has no schedule to run under
    std::erase_if(cases, [](const Case& c) { return block_scaled_policy(c.input) || integer_input(c.input); });
    if (cases.empty()) {
      std::fprintf(stderr,
                   "mmaemu-bench: --schedule does not apply to the block-scaled policies or the integer rows\n");
      return 2;
    }
  }

  if (busy < 0 || busy > 64 || !start_competitors(busy)) {
    std::fprintf(stderr, "mmaemu-bench: --busy takes 0 .. 64 competitor processes\n");
    return 2;
  }
  if (busy) std::printf("%d busy competitor process%s spinning for the whole run\n", busy, busy == 1 ? "" : "es");
  if (callers < 1 || callers > 256) {
    std::fprintf(stderr, "mmaemu-bench: --callers takes 1 .. 256 application threads\n");
    return 2;
  }
  if (callers > 1) std::printf("%d application threads call each GEMM at once (GFLOP/s: all of them)\n", callers);
  const std::string scenario = std::string(busy == 0 ? "" : busy == 1 ? "load" : "busy:" + std::to_string(busy)) +
                               (busy && callers > 1 ? "+" : "") +
                               (callers > 1 ? "callers:" + std::to_string(callers) : busy ? "" : "quiet");
  // Each row's time per thread count, for the ratios at the end.
  std::vector<std::pair<std::string, std::vector<double>>> times;
  FILE* csv = csv_file.empty() ? nullptr : std::fopen(csv_file.c_str(), "w");
  if (!csv_file.empty() && !csv) {
    std::fprintf(stderr, "mmaemu-bench: cannot write %s\n", csv_file.c_str());
    return 2;
  }
  if (csv) std::fprintf(csv, "model,input,output,n,threads,scenario,gflops,openblas_gflops,ratio,peak_extra_mib\n");
  if (!report_openblas_core()) return 2;
  std::printf("%-13s %-6s %-6s %14s %7s %10s %16s %9s %13s\n", "model", "input", "output", "n (m x n x k)",
              "threads", "GFLOP/s", "OpenBLAS GFLOP/s", "ratio", "peak extra MiB");

  std::mt19937_64 rng(2026);
  for (const Shape& sh : shapes) {
    const std::size_t m = static_cast<std::size_t>(sh.m), n = static_cast<std::size_t>(sh.n),
                      k = static_cast<std::size_t>(sh.k);
    std::vector<float> A(m * k), B(k * n);
    std::vector<std::vector<float>> Cs(static_cast<std::size_t>(callers), std::vector<float>(m * n));  // one each
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float& x : A) x = dist(rng);
    for (float& x : B) x = dist(rng);
    IntOperands ints;
    if (std::any_of(cases.begin(), cases.end(), [](const Case& c) { return integer_input(c.input); })) {
      ints.A.resize(m * k), ints.B.resize(k * n);
      for (uint8_t& x : ints.A) x = static_cast<uint8_t>(rng());
      for (uint8_t& x : ints.B) x = static_cast<uint8_t>(rng());
      ints.Cs.assign(static_cast<std::size_t>(callers), std::vector<int32_t>(m * n));
    }
    const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
    RunSetup run{A, B, Cs, ints, schedule, scenario, csv, times};
    for (int t : threads) {
      openblas_set_num_threads(t);
      const int r = repeat > 0 ? repeat : (flops <= 2.2e9 ? 3 : 1);
      const double t_blas = best_time_callers(callers, r + 1, [&](int who) {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, sh.m, sh.n, sh.k, 1.0f, A.data(), sh.k, B.data(),
                    sh.n, 0.0f, Cs[who].data(), sh.n);
      });
      // OpenBLAS's idle workers spin for about 2^28 cycles after a call
      // (its THREAD_TIMEOUT) before they sleep; timed at once, a small
      // emulated product would share its cores with them.
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
      for (const Case& c : cases) {
        if (c.max_n && !sizes_given && std::max({sh.m, sh.n, sh.k}) > c.max_n) continue;
        if (const int bad = run_row(c, sh, t, r, t_blas, run)) return bad;
      }
    }
  }
  if (threads.size() > 1) {
    std::printf("time ratio to %d thread%s (columns: threads", threads[0], threads[0] == 1 ? "" : "s");
    for (int t : threads) std::printf(" %d", t);
    std::printf("):\n");
    for (const auto& [row, ts] : times) {
      std::printf("  %-40s", row.c_str());
      for (double t : ts) std::printf(" %7.3f", t / ts[0]);
      std::printf("\n");
    }
  }
  if (csv) std::fclose(csv);
  if (const int bad = engine_throughput()) return bad;
  if (!validate_roots.empty()) return validation_throughput(cli, validate_roots, threads);
  return 0;
}
