// SPDX-License-Identifier: BSD-3-Clause
// The experiment commands of the `mmaemu` tool. Each returns the exit
// status: 0 done (a chart that could not be drawn is only a warning), 2 bad
// options or input files (with a message on `err`).
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace mmaemu::experiments {

/// mmaemu compare [options]      (args: after "compare")
int cmd_compare(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
/// mmaemu experiment NAME [options]
int cmd_experiment(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// mmaemu experiment smd [options]  (args: after "smd"; docs/smd.md)
int cmd_smd(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
/// mmaemu experiment ozaki [options]  (args: after "ozaki"; docs/ozaki.md)
int cmd_ozaki(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
/// mmaemu distinguish A B [options]  (docs/distinguish.md)
int cmd_distinguish(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
/// mmaemu dot MODEL... --a LIST --b LIST [--c X]
int cmd_dot(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

/// mmaemu explain MODEL --a LIST --b LIST [--c X] [--vs MODEL2] [--svg FILE]  (docs/explain.md)
int cmd_explain(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);
/// mmaemu sweep [...] -- PROGRAM ARGS: runs python/mmaemu/sweep.py (docs/sweep.md)
int cmd_sweep(const std::vector<std::string>& args, std::ostream& err);

/// The usage lines of the commands.
extern const char* const kCompareUsage;
extern const char* const kExperimentUsage;
extern const char* const kDistinguishUsage;
extern const char* const kSmdUsage;
extern const char* const kOzakiUsage;
extern const char* const kDotUsage;
extern const char* const kExplainUsage;

}  // namespace mmaemu::experiments
