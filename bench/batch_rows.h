// SPDX-License-Identifier: BSD-3-Clause
// mmaemu-bench --batch: the batched engine's dot products per second.
#pragma once

#include <string>
#include <vector>

/// One line per (row, thread count): median dot/s, per core, and the range
/// over `repeat` runs of 2^20 dot products; only_model: that model's rows.
int batch_throughput(const std::vector<int>& threads, int repeat, const std::string& only_model);
