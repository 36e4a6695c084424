// SPDX-License-Identifier: BSD-3-Clause
// mmaemu-bench: emulated GEMM throughput as a ratio to OpenBLAS sgemm on the
// same matrices in the same run (never a timed test; see README).
//
//   mmaemu-bench [--model M] [--input F] [--output F] [--n N[,N...]]
//                [--shape M,N,K]... [--threads T[,T...]] [--csv FILE]
//                [--repeat R] [--schedule S] [--validate DIR[,DIR...]] [--busy P]
//   mmaemu-bench --batch [--model M] [--threads T[,T...]] [--repeat R]
// --output: the unit's output format (fp16: the fp16 -> fp16 rows; A, B
// and C stay fp32 in memory). --n: square products; --shape: any product
// (repeatable), OpenBLAS timed on the same shape; either replaces the
// default list (squares n = 64 ... 4096, m = 16 skinny, 10 x 10^6 x 10).
// --batch: the batched instructions (mmaemu_dot_batch), dot/s per core.
// --validate: `mmaemu validate` throughput on data sets (text or .npy,
// mmaemu validate --convert), samples/s per thread count.
// --schedule runs every row under one schedule (promote:128, splitk:4, ...;
// a combination as in the C API); the rows then name it.
// The block-scaled rows (mxfp8, nvfp4: the shim's sgemm policies, through
// mmaemu_sgemm_block_scaled, quantisation timed) take --threads through
// MMA_NUM_THREADS.
// --busy P: P competitor processes spin on the CPU for the whole run (a
// machine whose cores are not all free); with two or more thread counts
// the run ends with each row's time ratio to its first thread count
// (docs/performance.md, "Threads under load").
#include <cblas.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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
#include "driver/fast_dot.h"
#include "models/model.h"
#include "ref/reference.h"
#include "batch_rows.h"
#include "validate/dataset.h"
#include "validate/sample_engine.h"
#include "validate/validate.h"

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

// The default rows: a representative unit of each accumulation path, the fp16
// results, the interleaved HMMA fp8 path and the block-scaled policies.
const std::vector<Case> kDefaultCases = {
    {"H100", "fp16"},  {"H100", "tf32"},  {"B200", "bf16"},   {"A100", "fp16"},
    {"V100", "fp16"},  {"L40S", "e4m3"},  {"MI300X", "fp16"}, {"MI300X", "fp8"},
    {"MI250", "fp16"}, {"MI100", "fp16"}, {"MI250", "fp32"},
    {"H100", "fp16", 0, "fp16"}, {"V100", "fp16", 0, "fp16"},  // fp16 results (RNE fp16 output stage)
    {"H100@mma.sync", "e4m3"},  // the interleaved HMMA fp8 path (docs/models.md §2.12)
    {"B200", "mxfp8"}, {"B200", "nvfp4"},  // block-scaled
};

// The ratios mean something only against OpenBLAS's kernel for this CPU.
// An OpenBLAS older than the CPU (Debian 12's 0.3.21 on Emerald Rapids)
// falls back to its generic Prescott kernel, several times slower; the
// environment variable OPENBLAS_CORETYPE, read when the library loads,
// chooses the kernel instead (docs/performance.md, "The bench and the
// latest full run").
void report_openblas_core() {
  const std::string core = openblas_get_corename();
  std::printf("OpenBLAS kernel: %s\n", core.c_str());
  if ((core == "Prescott" || core == "prescott") && __builtin_cpu_supports("avx2"))
    std::fprintf(stderr,
                 "mmaemu-bench: OpenBLAS runs its generic Prescott kernel on this AVX2 CPU (it does not know the "
                 "model); the ratios would flatter the emulator. Run with OPENBLAS_CORETYPE=Haswell (AVX2), "
                 "SkylakeX or Cooperlake (AVX-512).\n");
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

double peak_rss_mib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;
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

// Dot products per second of the reference engine and of the fast engine
// (one thread), H100 fp16 -> fp32, k = 16: the unit of a validation campaign.
void engine_throughput() {
  const mmaemu::Model model = mmaemu::lookup_model("H100");
  const mmaemu::ModelRow& row = *model.find(mmaemu::Fmt::fp16, mmaemu::Fmt::fp32);
  std::mt19937_64 rng(1);
  const int dots = 20480, k = 16;
  std::vector<uint64_t> a(dots * k), b(dots * k);
  for (auto& x : a) x = rng() & 0x7BFF;
  for (auto& x : b) x = rng() & 0xFBFF;
  uint64_t sink = 0;
  const double t_ref = best_time(1, [&] {
    for (int i = 0; i < dots; ++i) sink += mmaemu::ref::dot(row, k, &a[i * k], &b[i * k], 0);
  });
  // driver::fast_dot_batch: the fast engine on codes, independent samples.
  std::vector<uint64_t> c(dots, 0), d(dots);
  const double t_fast = best_time(3, [&] {
    mmaemu::driver::fast_dot_batch(row, dots, k, a.data(), b.data(), c.data(), d.data(), 1);
  });
  for (int i = 0; i < dots; ++i) sink += d[i];
  // As `mmaemu validate` runs it: the files' fp32 patterns converted and
  // decoded through the memo, then the step kernels (validate/sample_engine.h);
  // 10 copies of the samples, as a set holds each value many times.
  const int copies = 10, vdots = dots * copies;  // a multiple of 2048
  std::vector<uint32_t> fa(a.size() * copies), fb(b.size() * copies);
  for (std::size_t i = 0; i < fa.size(); ++i)
    fa[i] = mmaemu::to_fp32_bits(row.in, a[i % a.size()]), fb[i] = mmaemu::to_fp32_bits(row.in, b[i % b.size()]);
  std::vector<uint64_t> vc(vdots, 0), vd(vdots);
  const double t_val = best_time(3, [&] {
    mmaemu::validate::Elements memo(row, 2 * fa.size());
    mmaemu::validate::Operands oa, ob;
    const int chunk = 2048;  // samples, as validate's chunks of 2^15 operands
    oa.resize(chunk * k), ob.resize(chunk * k);
    for (int i0 = 0; i0 < vdots; i0 += chunk) {
      for (std::size_t i = 0; i < static_cast<std::size_t>(chunk * k); ++i)
        oa.set(i, memo(fa[i0 * k + i])), ob.set(i, memo(fb[i0 * k + i]));
      mmaemu::validate::dot_samples(row, chunk, k, oa, ob, &vc[i0], &vd[i0], 1);
    }
  });
  for (int i = 0; i < vdots; ++i) sink += vd[i];
  std::printf("validation engine (H100 fp16->fp32, k = 16, 1 thread): reference %.3g dot/s, fast_dot %.3g dot/s, "
              "validate (fp32 patterns in, memo fill included) %.3g dot/s%s\n",
              dots / t_ref, dots / t_fast, vdots / t_val, sink == 42 ? " " : "");
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
// conversion, engine, comparison), timed per thread count.
int validation_throughput(const std::vector<std::string>& roots, const std::vector<int>& threads) {
  namespace val = mmaemu::validate;
  std::string names, form;
  for (const std::string& r : roots) {
    names += (names.empty() ? "" : ",") + r;
    for (const val::DataSet& set : val::find_sets(r)) {
      const std::string f = val::data_file(set, "d_" + set.gpu + "_" + set.outputs[0]).extension().string();
      form = form.empty() || form == f ? f : "mixed";
    }
  }
  for (int t : threads) {
    std::ostringstream os;
    const double t0 = now();
    try {
      val::run(roots, os, &val::Errata::bundled(), nullptr, t);
    } catch (const val::DataError& e) {
      std::fprintf(stderr, "mmaemu-bench: --validate: %s\n", e.what());
      return 2;
    }
    const double dt = now() - t0;
    const std::string out = os.str();
    const std::size_t at = out.rfind("total: ");
    const std::size_t samples = at == std::string::npos ? 0 : std::strtoull(out.c_str() + at + 7, nullptr, 10);
    std::printf("validation %s (%s files): %zu samples, %d thread%s, %.3f s: %.3g samples/s (%.3g per thread); %s",
                names.c_str(), form.c_str(), samples, t, t == 1 ? "" : "s", dt, samples / dt, samples / dt / t,
                at == std::string::npos ? "\n" : out.c_str() + at);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Case> cases = kDefaultCases;
  std::string only_model, only_input, only_output, csv_file, schedule;
  std::vector<Shape> shapes;
  std::vector<int> threads = {1, 2};
  std::vector<std::string> validate_roots;
  bool batch = false;
  int repeat = 0, busy = 0;
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
    else if (std::strcmp(argv[i], "--batch") == 0) batch = true;
    else if (arg("--validate")) {
      std::stringstream ss(argv[++i]);
      for (std::string dir; std::getline(ss, dir, ',');) validate_roots.push_back(dir);
    } else {
      std::fprintf(stderr,
                   "usage: mmaemu-bench [--model M] [--input F] [--output F] [--n N,...] [--shape M,N,K]... "
                   "[--threads T,...] [--csv FILE] [--repeat R] [--schedule S] [--validate DIR,...] [--busy P] | --batch\n");
      return 2;
    }
  }
  if (batch) return batch_throughput(threads, repeat > 0 ? repeat : 5, only_model);
  const bool sizes_given = !shapes.empty();
  if (!sizes_given) shapes = kDefaultShapes;
  mmaemu_format out_fmt = MMAEMU_FP32;
  if (!only_output.empty() && !parse_output(only_output, out_fmt)) return 2;
  if (!only_model.empty() || !only_input.empty() || !only_output.empty()) {
    std::vector<Case> sel;
    for (const Case& c : cases)
      if ((only_model.empty() || c.model == only_model) && (only_input.empty() || c.input == only_input) &&
          (only_output.empty() || c.output == only_output))
        sel.push_back(c);
    if (sel.empty())
      sel.push_back({only_model.empty() ? "H100" : only_model, only_input.empty() ? "fp16" : only_input, 0,
                     only_output.empty() ? "fp32" : only_output});
    cases = sel;
  }
  if (!schedule.empty()) {  // a block-scaled row has no schedule to run under
    std::erase_if(cases, [](const Case& c) { return block_scaled_policy(c.input); });
    if (cases.empty()) {
      std::fprintf(stderr, "mmaemu-bench: --schedule does not apply to the block-scaled policies\n");
      return 2;
    }
  }

  if (busy < 0 || busy > 64 || !start_competitors(busy)) {
    std::fprintf(stderr, "mmaemu-bench: --busy takes 0 .. 64 competitor processes\n");
    return 2;
  }
  if (busy) std::printf("%d busy competitor process%s spinning for the whole run\n", busy, busy == 1 ? "" : "es");
  // Each row's time per thread count, for the ratios at the end.
  std::vector<std::pair<std::string, std::vector<double>>> times;
  FILE* csv = csv_file.empty() ? nullptr : std::fopen(csv_file.c_str(), "w");
  if (!csv_file.empty() && !csv) {
    std::fprintf(stderr, "mmaemu-bench: cannot write %s\n", csv_file.c_str());
    return 2;
  }
  if (csv) std::fprintf(csv, "model,input,output,n,threads,gflops,openblas_gflops,ratio,peak_rss_mib\n");
  report_openblas_core();
  std::printf("%-13s %-6s %-6s %14s %7s %10s %16s %9s %13s\n", "model", "input", "output", "n (m x n x k)",
              "threads", "GFLOP/s", "OpenBLAS GFLOP/s", "ratio", "peak RSS MiB");

  std::mt19937_64 rng(2026);
  for (const Shape& sh : shapes) {
    const std::size_t m = static_cast<std::size_t>(sh.m), n = static_cast<std::size_t>(sh.n),
                      k = static_cast<std::size_t>(sh.k);
    std::vector<float> A(m * k), B(k * n), C(m * n);
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (float& x : A) x = dist(rng);
    for (float& x : B) x = dist(rng);
    const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
    const std::string shape_name = sh.name();
    for (int t : threads) {
      openblas_set_num_threads(t);
      const int r = repeat > 0 ? repeat : (flops <= 2.2e9 ? 3 : 1);
      const double t_blas = best_time(r + 1, [&] {
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, sh.m, sh.n, sh.k, 1.0f, A.data(), sh.k, B.data(),
                    sh.n, 0.0f, C.data(), sh.n);
      });
      // OpenBLAS's idle workers spin for about 2^28 cycles after a call
      // (its THREAD_TIMEOUT) before they sleep; timed at once, a small
      // emulated product would share its cores with them.
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
      for (const Case& c : cases) {
        if (c.max_n && !sizes_given && std::max({sh.m, sh.n, sh.k}) > c.max_n) continue;
        mmaemu_model* h = nullptr;
        if (mmaemu_model_lookup(c.model.c_str(), &h) != MMAEMU_OK) {
          std::fprintf(stderr, "mmaemu-bench: %s\n", mmaemu_last_error());
          return 2;
        }
        mmaemu_gemm_options opt;
        mmaemu_gemm_options_init(&opt);
        const bool scaled = block_scaled_policy(c.input);
        if (!scaled && mmaemu_parse_policy(c.input.c_str(), &opt) != MMAEMU_OK) {
          std::fprintf(stderr, "mmaemu-bench: %s\n", mmaemu_last_error());
          return 2;
        }
        if (!parse_output(c.output, opt.output)) return 2;
        if (scaled && opt.output != MMAEMU_FP32) {
          std::fprintf(stderr, "mmaemu-bench: the block-scaled rows run with fp32 output only\n");
          return 2;
        }
        opt.threads = t;
        if (scaled) setenv("MMA_NUM_THREADS", std::to_string(t).c_str(), 1);  // the sgemm policy path has no options
        opt.schedule = schedule.empty() ? nullptr : schedule.c_str();
        int status = MMAEMU_OK;
        const double t_emu = best_time(r, [&] {
          status = scaled ? mmaemu_sgemm_block_scaled(h, c.input.c_str(), MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS,
                                                      MMAEMU_NO_TRANS, sh.m, sh.n, sh.k, 1.0f, A.data(), sh.k,
                                                      B.data(), sh.n, 0.0f, C.data(), sh.n)
                          : mmaemu_gemm(h, &opt, MMAEMU_ROW_MAJOR, MMAEMU_NO_TRANS, MMAEMU_NO_TRANS, sh.m, sh.n,
                                        sh.k, 1.0, A.data(), sh.k, B.data(), sh.n, 0.0, C.data(), sh.n);
        });
        mmaemu_model_free(h);
        if (status != MMAEMU_OK) {
          std::fprintf(stderr, "mmaemu-bench: %s %s->%s: %s\n", c.model.c_str(), c.input.c_str(), c.output.c_str(),
                       mmaemu_last_error());
          return 2;
        }
        const double g = flops / t_emu * 1e-9, gb = flops / t_blas * 1e-9;
        const std::string name = schedule.empty() ? c.model : c.model + " " + schedule;
        const std::string row = name + " " + c.input + "->" + c.output + " " + shape_name;
        auto at = std::find_if(times.begin(), times.end(), [&](const auto& r) { return r.first == row; });
        if (at == times.end()) at = times.insert(times.end(), {row, {}});
        at->second.push_back(t_emu);
        std::printf("%-13s %-6s %-6s %14s %7d %10.3f %16.2f %9.4f %13.1f\n", name.c_str(), c.input.c_str(),
                    c.output.c_str(), shape_name.c_str(), t, g, gb, g / gb, peak_rss_mib());
        std::fflush(stdout);
        if (csv)
          std::fprintf(csv, "%s,%s,%s,%s,%d,%.4f,%.3f,%.5f,%.1f\n", name.c_str(), c.input.c_str(), c.output.c_str(),
                       shape_name.c_str(), t, g, gb, g / gb, peak_rss_mib());
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
  engine_throughput();
  if (csv) std::fclose(csv);
  if (!validate_roots.empty()) return validation_throughput(validate_roots, threads);
  return 0;
}
