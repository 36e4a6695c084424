// SPDX-License-Identifier: BSD-3-Clause
// The integer units' plug-in of the batched engine (batch_engine.h;
// docs/batch.md, "Integer units"; docs/models.md §11): stacks of tiles or
// dot products of an accum = integer row, every output element exactly
// ref::dot's s32 code.
//
// The integer step kernel (simd_integer_run16, kernels/integer_simd.cpp)
// multiplies A's int16 row, broadcast, with B's 16 lanes held in int16
// pairs along k. In a batch every lane has its own a and b, so, as for the
// block-FMA rows (batch.cpp), the lane panel holds each lane's exact
// products p_l = a_l*b_l and the row panel is the identity (every value 1):
// 1*p = p exactly, and the kernel applies the row's overflow rule to the
// same products in the same k order. A product fits int16 except for
// u8 x u8 (up to 255*255): there each product takes two positions, its
// halves h = p/2 and p - h (the pair of one int32 lane of the kernel). The
// halves have p's sign, so that
//   wrap and satfinite per instruction: the instruction's sum is the same
//     (an instruction is 2k positions, so its clamp falls where it did);
//   satfinite per addition: t -> clamp(clamp(t + h) + (p - h)) =
//     clamp(t + p) for any s32 t, both halves moving t the same way.
// Integer codes have no NaN or Inf: no step is ever flagged for the
// special-value fallback. Rows the kernel does not serve (plan().why, the
// use_reference and simd_off options) run element by element on ref::dot.
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "driver/batch.h"
#include "driver/batch_engine.h"
#include "driver/scratch.h"
#include "formats/container.h"
#include "kernels/plan.h"
#include "ref/reference.h"

namespace mmaemu::driver {
namespace {

constexpr std::size_t L = kBatchLanes;
constexpr std::size_t kGroupsPerTask = 64;      // 1024 output elements per task
constexpr std::size_t kChunkPositions = 1024;   // kernel positions per panel chunk (whole instructions)
static_assert(kChunkPositions <= IdentityRow::kIdentityEntries, "the identity row covers a chunk");

// The largest |a*b| of two formats' values.
int64_t product_bound(Fmt a, Fmt b) {
  const auto mag = [](Fmt f) {
    const FormatInfo& fi = info(f);
    return fi.integer == IntKind::unsigned_binary ? (int64_t{1} << fi.width) - 1 : int64_t{1} << (fi.width - 1);
  };
  return mag(a) * mag(b);
}

// Kernel positions per product: 1, or 2 where a product may leave int16.
std::size_t spread_of(const ModelRow& row) { return product_bound(row.in, row.in_b) > 32767 ? 2 : 1; }

// Whether the batch runs the row on the SIMD kernel: the plan's, with one
// instruction's positions within a chunk.
bool integer_simd(const ModelRow& row, const kernels::KernelPlan& plan) {
  return plan.simd && step_k(row) * spread_of(row) <= kChunkPositions;
}

// The values of a format's codes (the low bits of the byte).
std::array<int16_t, 256> value_table(Fmt f) {
  std::array<int16_t, 256> t{};
  for (unsigned c = 0; c < 256; ++c) t[c] = static_cast<int16_t>(int_value(f, c));
  return t;
}

// A chunk's products, B's lane panel (pairs: position P of lane j at
// (P/2)*32 + 2j + P%2), and the steps' special flags (always 0).
struct IntProducts {
  std::vector<int16_t> val;
  std::vector<uint32_t> special;
  std::size_t held_bytes() const { return scratch_bytes(val, special); }  // scratch.h
};

// The call: operands of container T (uint8_t bytes, or uint64_t codes).
template <typename T>
struct IntBatch {
  using Panel = IntProducts;
  const ModelRow& row;
  kernels::KernelPlan plan;
  const BatchProblem& p;
  std::size_t total, k, chunk, group_tasks = kGroupsPerTask;
  bool simd;
  std::size_t step, spread, kbytes;  // products per instruction; positions per product; A's row, B's column in T
  bool packed;
  std::array<int16_t, 256> ta, tb;

  IntBatch(const ModelRow& r, const kernels::KernelPlan& pl, const BatchProblem& pr, std::size_t tot)
      : row(r), plan(pl), p(pr), total(tot), k(pr.k), chunk(0), simd(integer_simd(r, pl) && pr.k > 0),
        step(step_k(r)), spread(spread_of(r)), kbytes(pr.int4_packed ? (pr.k + 1) / 2 : pr.k),
        packed(pr.int4_packed), ta(value_table(r.in)), tb(value_table(r.in_b)) {
    chunk = std::max<std::size_t>(1, kChunkPositions / (step * spread)) * step;
  }

  const T* A() const { return static_cast<const T*>(p.A); }
  const T* B() const { return static_cast<const T*>(p.B); }
  // The code of element l of a lane's a (its row from a0) and b (its column from b0).
  uint64_t code_a(std::size_t a0, std::size_t l) const {
    if (!packed) return static_cast<uint64_t>(A()[a0 + l]);
    return (static_cast<uint64_t>(A()[a0 + l / 2]) >> (4 * (l & 1))) & 0xF;
  }
  uint64_t code_b(std::size_t b0, std::size_t l) const {
    if (!packed) return static_cast<uint64_t>(B()[b0 + l * p.n]);
    return (static_cast<uint64_t>(B()[b0 + (l / 2) * p.n]) >> (4 * (l & 1))) & 0xF;
  }

  // Lane j: element q[j]; a[j], b[j] in T units (int4 packed: bytes).
  BatchLanes lanes(std::size_t q0) const { return batch_lanes(p.m, p.n, kbytes, total, q0); }

  uint32_t load_c(std::size_t q) const {
    return p.storage == BatchStorage::codes ? static_cast<uint32_t>(static_cast<const uint64_t*>(p.C)[q])
                                            : static_cast<uint32_t>(static_cast<const int32_t*>(p.C)[q]);
  }
  void store_d(std::size_t q, uint32_t d) const {
    if (p.storage == BatchStorage::codes) static_cast<uint64_t*>(p.D)[q] = d;
    else static_cast<int32_t*>(p.D)[q] = static_cast<int32_t>(d);
  }
  void load(const BatchLanes& ln, uint32_t* acc) const {
    for (std::size_t j = 0; j < L; ++j) acc[j] = load_c(ln.q[j]);
  }
  void store(std::size_t q0, const uint32_t* acc) const {
    for (std::size_t j = 0; j < L && q0 + j < total; ++j) store_d(q0 + j, acc[j]);
  }

  // Products of positions [l0, l0 + kc) (whole instructions, zero past k).
  void pack(const BatchLanes& ln, std::size_t l0, std::size_t kc, IntProducts& pp) const {
    const std::size_t steps = (kc + step - 1) / step, positions = steps * step * spread;
    pp.val.assign(positions * L, int16_t{0});
    pp.special.assign(steps, 0);
    int16_t* out = pp.val.data();
    for (std::size_t j = 0; j < L; ++j)
      for (std::size_t l = 0; l < kc; ++l) {
        const int32_t prod = int32_t{ta[code_a(ln.a[j], l0 + l) & 0xFF]} * tb[code_b(ln.b[j], l0 + l) & 0xFF];
        if (spread == 1) {
          out[(l / 2) * 2 * L + 2 * j + l % 2] = static_cast<int16_t>(prod);
        } else {  // position 2l and 2l + 1: one pair
          out[l * 2 * L + 2 * j] = static_cast<int16_t>(prod / 2);
          out[l * 2 * L + 2 * j + 1] = static_cast<int16_t>(prod - prod / 2);
        }
      }
  }

  // Steps [s0, s1) of the chunk on the kernel against the identity row.
  void run(const BatchLanes&, std::size_t, std::size_t, const IntProducts& pp, std::size_t s0, std::size_t s1,
           uint32_t* acc) const {
    const int st = static_cast<int>(step * spread);
    const kernels::RowPanel a{.val = nullptr, .sig = nullptr, .exp = nullptr, .rows = 1, .stride = 0,
                              .i16 = identity_row().one16.data()};
    const kernels::LanePanel b{.val = nullptr, .sig = nullptr, .exp = nullptr, .i16 = &pp.val[s0 * step * spread * L]};
    plan.kernel(plan.simd_params, {static_cast<int>(s1 - s0), st, st}, a, b, acc);
  }

  // Lane j's step s of the chunk on the reference (never flagged: the
  // engine's contract).
  uint32_t redo(const BatchLanes& ln, std::size_t l0, std::size_t kc, std::size_t j, std::size_t s,
                uint32_t before) const {
    const std::size_t lb = l0 + s * step, len = std::min(step, l0 + kc - lb);
    std::vector<uint64_t> a(len), b(len);
    for (std::size_t i = 0; i < len; ++i) a[i] = code_a(ln.a[j], lb + i), b[i] = code_b(ln.b[j], lb + i);
    return static_cast<uint32_t>(ref::step(row, len, a.data(), b.data(), before));
  }

  // Elements [q0, q1) one at a time on ref::dot.
  void scalar(std::size_t q0, std::size_t q1) const {
    std::vector<uint64_t> a(std::max<std::size_t>(k, 1)), b(a.size());
    for (std::size_t q = q0; q < q1; q += L) {
      const BatchLanes ln = lanes(q);
      for (std::size_t j = 0; j < L && q + j < q1; ++j) {
        for (std::size_t l = 0; l < k; ++l) a[l] = code_a(ln.a[j], l), b[l] = code_b(ln.b[j], l);
        store_d(q + j, static_cast<uint32_t>(ref::dot(row, k, a.data(), b.data(), load_c(ln.q[j]))));
      }
    }
  }
};

}  // namespace

bool integer_batch_simd(const ModelRow& row, const BatchOptions& o) {
  return integer_simd(row, kernels::plan(row, {o.use_reference, o.simd_off}));
}

void run_integer_batch(const ModelRow& row, const BatchProblem& p, const BatchOptions& o) {
  if (row.accum != Accumulation::integer) throw std::invalid_argument("run_integer_batch: not an integer unit");
  const bool int4 = info(row.in).width == 4 && info(row.in_b).width == 4;
  if (p.int4_packed && !int4)
    throw std::invalid_argument(std::string("packed operands (two codes per byte) are int4 (s4, u4) only; the unit ") +
                                row.instr + " takes " + info(row.in).name + " x " + info(row.in_b).name);
  if (p.int4_packed && p.storage == BatchStorage::codes)
    throw std::invalid_argument("packed int4 operands are bytes (native storage), not uint64_t codes");
  const std::size_t total = p.count * p.m * p.n;
  if (total == 0) return;
  const kernels::KernelPlan plan = kernels::plan(row, {o.use_reference, o.simd_off});
  if (p.storage == BatchStorage::codes) return run_batch_engine(IntBatch<uint64_t>(row, plan, p, total), o.threads);
  run_batch_engine(IntBatch<uint8_t>(row, plan, p, total), o.threads);
}

}  // namespace mmaemu::driver
