// SPDX-License-Identifier: BSD-3-Clause
// Long sweeps (ctest label "full"): 10^7 random fp32 patterns per narrow
// target, 10^7 random fp64 -> fp32, boundary triples of every tf32 value,
// fp64 boundaries of every fp16/bf16 value, exhaustive 16-bit sources and
// 10^6 random round_pack calls per format. The jobs run on worker threads;
// MMAEMU_FULL_RANDOM overrides the random count, MMAEMU_TEST_SEED the seed.
#include <atomic>
#include <functional>
#include <memory>
#include <thread>

#include "sweeps.h"

using namespace fmt_test;

namespace {

size_t full_random() {
  if (const char* s = std::getenv("MMAEMU_FULL_RANDOM")) return std::strtoull(s, nullptr, 0);
  return 10000000;
}

struct Job {
  std::string name;
  std::function<void(Counter&, uint64_t seed)> run;
};

// Runs the jobs on all cores; each job owns its counter and its RNG.
void run_jobs(const std::vector<Job>& jobs) {
  const uint64_t seed = test_seed();
  std::vector<std::unique_ptr<Counter>> counters;
  for (const Job& j : jobs) counters.push_back(std::make_unique<Counter>(j.name.c_str(), true));
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next++) < jobs.size();) jobs[i].run(*counters[i], seed ^ (0x9E3779B97F4A7C15ull * (i + 1)));
  };
  unsigned n = std::max(1u, std::thread::hardware_concurrency());
  if (!mpfr_buildopt_tls_p()) n = 1;  // MPFR's caches are not thread-safe without TLS
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < n; ++t) pool.emplace_back(worker);
  for (std::thread& t : pool) t.join();
  MESSAGE("seed " << hex(seed) << ", " << n << " threads");
  for (auto& c : counters) c->finish();
}

constexpr Fmt kFp32Targets[] = {Fmt::fp16, Fmt::bf16,     Fmt::tf32,    Fmt::e4m3,
                                Fmt::e5m2, Fmt::e4m3fnuz, Fmt::e5m2fnuz};

// Random conversions, generated and checked in chunks.
Job random_job(Fmt from, Fmt to, size_t n) {
  return {std::string(spec(from).name) + "->" + spec(to).name + " random",
          [=](Counter& c, uint64_t seed) {
            std::mt19937_64 rng(seed);
            for (size_t done = 0; done < n;) {
              const size_t k = std::min<size_t>(n - done, 100000);
              check_convert(c, from, to, random_inputs(from, spec(to), k, rng), seed,
                            "full random");
              done += k;
            }
          }};
}

}  // namespace

TEST_CASE("full sweeps") {
  const size_t n = full_random();
  std::vector<Job> jobs;
  for (Fmt to : kFp32Targets) jobs.push_back(random_job(Fmt::fp32, to, n));
  jobs.push_back(random_job(Fmt::fp64, Fmt::fp32, n));
  for (Fmt to : kSmallFmts) jobs.push_back(random_job(Fmt::fp64, to, n / 10));

  // Every tf32 value: the value, the midpoint above, and their fp32 neighbours.
  for (int part = 0; part < 4; ++part) {
    jobs.push_back({"fp32->tf32 all boundaries, part " + std::to_string(part),
                    [part](Counter& c, uint64_t seed) {
                      std::mt19937_64 rng(seed);
                      const Spec& t = spec(Fmt::tf32);
                      std::vector<int> bexps;
                      for (int e = part; e < 255; e += 4) bexps.push_back(e);
                      std::vector<uint64_t> in = special_inputs(Fmt::fp32);
                      add_boundaries<float>(in, t, wide_values(t, bexps, true, rng), t.mbits);
                      check_convert(c, Fmt::fp32, Fmt::tf32, in, seed, "tf32 boundaries");
                    }});
  }
  // Every fp16 / bf16 value with fp64 neighbours of value and midpoint.
  for (Fmt to : {Fmt::fp16, Fmt::bf16}) {
    jobs.push_back({std::string("fp64->") + spec(to).name + " all boundaries",
                    [to](Counter& c, uint64_t seed) {
                      const Spec& t = spec(to);
                      std::vector<uint64_t> in = special_inputs(Fmt::fp64);
                      add_boundaries<double>(in, t, all_values(t), t.mbits);
                      add_range_edges<double>(in, t);
                      check_convert(c, Fmt::fp64, to, in, seed, "fp64 boundaries");
                    }});
  }
  // Exhaustive 16-bit sources into every other narrow format.
  for (Fmt from : {Fmt::fp16, Fmt::bf16}) {
    jobs.push_back({std::string(spec(from).name) + " exhaustive -> narrow formats",
                    [from](Counter& c, uint64_t seed) {
                      std::vector<uint64_t> in;
                      for (uint64_t b = 0; b < 65536; ++b) in.push_back(b);
                      for (Fmt to : kSmallFmts) check_convert(c, from, to, in, seed, "16-bit source");
                      check_convert(c, from, Fmt::tf32, in, seed, "16-bit source");
                    }});
  }
  // round_pack with random magnitudes / exponents / sticky bits.
  for (const Spec& s : kSpecs) {
    const Fmt f = s.fmt;
    jobs.push_back({std::string("round_pack ") + s.name, [f, n](Counter& c, uint64_t seed) {
                      std::mt19937_64 rng(seed);
                      check_round_pack(c, f, -1, n / 10, rng, seed);
                    }});
  }
  for (int prec : {10, 13}) {
    jobs.push_back({"round_pack fp32 prec=" + std::to_string(prec), [prec, n](Counter& c, uint64_t seed) {
                      std::mt19937_64 rng(seed);
                      check_round_pack(c, Fmt::fp32, prec, n / 10, rng, seed);
                    }});
  }
  run_jobs(jobs);
}
