// SPDX-License-Identifier: BSD-3-Clause
#include "validate/convert.h"

#include <ostream>

#include "validate/dataset.h"
#include "validate/npy.h"
#include "validate/scaled_set.h"

namespace mmaemu::validate {
namespace fs = std::filesystem;

namespace {

void copy_files(const fs::path& from, const fs::path& to) {
  fs::create_directories(to);
  for (const auto& e : fs::directory_iterator(from))
    if (e.is_regular_file()) fs::copy_file(e.path(), to / e.path().filename(), fs::copy_options::overwrite_existing);
}

}  // namespace

void convert_sets(const fs::path& src, const fs::path& dst, std::ostream& log) {
  const std::vector<DataSet> sets = find_sets(src);
  if (sets.empty()) throw DataError(src, 0, "no data sets found");
  fs::create_directories(dst);
  if (fs::equivalent(src, dst)) throw DataError(dst, 0, "the destination is the source");
  for (const auto& e : fs::directory_iterator(src))  // README, LICENCE
    if (e.is_regular_file()) fs::copy_file(e.path(), dst / e.path().filename(), fs::copy_options::overwrite_existing);
  for (const DataSet& set : sets) {
    const fs::path to = dst / set.gpu / set.fmt;
    if (is_scaled_instruction(set.instruction)) {  // its own layout (scaled_set.h), kept as text
      copy_files(set.dir, to);
      log << set.gpu << "/" << set.fmt << ": copied (block-scaled set)\n";
      continue;
    }
    fs::create_directories(to);
    std::size_t count = 0, k = 0;
    for (std::size_t i = 0; i < set.outputs.size(); ++i) {
      const std::string& out = set.outputs[i];
      const Samples s = read_samples(set, out);
      auto name = [&](const fs::path& f) { return to / (f.stem().string() + ".npy"); };
      if (i == 0) {
        write_npy(name(s.a_file), {s.count(), s.k}, s.a);
        write_npy(name(s.b_file), {s.count(), s.k}, s.b);
        write_npy(name(s.c_file), {s.count()}, s.c);
      }
      write_npy(name(s.d_file), {s.count()}, s.d);
      count = s.count(), k = s.k;
    }
    if (fs::exists(set.dir / "instruction.txt"))
      fs::copy_file(set.dir / "instruction.txt", to / "instruction.txt", fs::copy_options::overwrite_existing);
    log << set.gpu << "/" << set.fmt << ": " << count << " samples, k = " << k << " -> " << to.string() << "\n";
  }
}

}  // namespace mmaemu::validate
