// SPDX-License-Identifier: BSD-3-Clause
#include <doctest/doctest.h>

#include "options.h"

using namespace mmaemu::hwcheck;

namespace {
std::optional<Options> parse(std::vector<const char*> args, std::string* err = nullptr) {
  args.insert(args.begin(), "mmaemu-hwcheck");
  return parse_options(static_cast<int>(args.size()), args.data(), err);
}
}  // namespace

TEST_CASE("options: defaults and lists") {
  const auto o = parse({"--out", "/tmp/x"});
  REQUIRE(o);
  CHECK(o->out == "/tmp/x");
  CHECK(o->seed == 1);
  CHECK(o->instrs.size() == 3);
  CHECK(o->fmts.size() == 5);
  CHECK(o->sets.size() == 5);
  CHECK(o->packing == Packing::diagonal);
  const auto p = parse({"--out", "o", "--seed", "99", "--n", "1000000", "--instr", "wgmma,mma.sync", "--formats",
                        "E4M3,e5m2", "--sets", "edge,bits", "--gpu", "H200", "--packing", "single", "--probe-tiles",
                        "0"});
  REQUIRE(p);
  CHECK(p->seed == 99);
  CHECK(p->n == 1000000);
  CHECK(p->instrs == std::vector<Instr>{Instr::wgmma, Instr::mma_sync});
  CHECK(p->fmts == std::vector<InFmt>{InFmt::e4m3, InFmt::e5m2});
  CHECK(p->sets == std::vector<SetKind>{SetKind::edge, SetKind::bits});
  CHECK(p->gpu == "H200");
  CHECK(p->packing == Packing::single);
  CHECK(p->probe_tiles == 0);
}

TEST_CASE("options: errors") {
  std::string err;
  CHECK_FALSE(parse({}, &err));
  CHECK(err.find("--out") != std::string::npos);
  CHECK_FALSE(parse({"--out", "o", "--instr", "hmma"}, &err));
  CHECK_FALSE(parse({"--out", "o", "--formats", "fp8"}, &err));
  CHECK_FALSE(parse({"--out", "o", "--n", "0"}, &err));
  CHECK_FALSE(parse({"--out", "o", "--n", "12x"}, &err));
  CHECK_FALSE(parse({"--out", "o", "--seed"}, &err));
  CHECK_FALSE(parse({"--out", "o", "--bogus", "1"}, &err));
  CHECK_FALSE(parse({"--out", "o", "--gpu", "a/b"}, &err));
  CHECK(parse({"--help"})->help);
}

TEST_CASE("GPU folder names from CUDA device names") {
  CHECK(gpu_folder_name("NVIDIA H100 80GB HBM3") == "H100");
  CHECK(gpu_folder_name("NVIDIA H100 PCIe") == "H100");
  CHECK(gpu_folder_name("NVIDIA H200") == "H200");
  CHECK(gpu_folder_name("NVIDIA GH200 480GB") == "GH200");
  CHECK(gpu_folder_name("NVIDIA B200") == "B200");
  CHECK(gpu_folder_name("NVIDIA A100-SXM4-80GB") == "A100");
  CHECK(gpu_folder_name("NVIDIA L40S") == "L40S");
  CHECK(gpu_folder_name("NVIDIA L4") == "L4");
  CHECK(gpu_folder_name("Tesla V100-SXM2-32GB") == "V100");
  CHECK(gpu_folder_name("NVIDIA A2") == "A2");
  CHECK(gpu_folder_name("NVIDIA GeForce RTX 4090") == "GeForceRTX4090");
}
