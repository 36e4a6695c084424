// SPDX-License-Identifier: BSD-3-Clause
// The black box of a model row. This is the only file of the probe that
// touches a ModelRow: it reads the instruction's interface (input and output
// formats, k) and wraps one element of the instruction, ref::dot over k --
// exactly what ref::tile computes for each D[i][j]. The detection
// (detect.cpp, detect_*.cpp) sees the resulting BlackBox and nothing else.
#include "probe/probe.h"
#include "ref/reference.h"

namespace mmaemu::probe {

BlackBox black_box(const ModelRow& row) {
  BlackBox box;
  box.in = row.in;
  box.out = row.out;
  box.k = row.k;
  box.dot = [row](const uint64_t* a, const uint64_t* b, uint64_t c) {
    return ref::dot(row, static_cast<std::size_t>(row.k), a, b, c);
  };
  return box;
}

}  // namespace mmaemu::probe
