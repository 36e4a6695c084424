// SPDX-License-Identifier: BSD-3-Clause
// mmaemu sweep: runs the Python sweep (python/mmaemu/sweep.py, docs/sweep.md)
// with this installation's libmmaemu.so.
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace mmaemu::experiments {
namespace {

namespace fs = std::filesystem;

fs::path self() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path() : p;
}

// The first of the candidates that exists ("" if none).
std::string first_existing(const std::vector<std::string>& candidates) {
  std::error_code ec;
  for (const std::string& c : candidates)
    if (!c.empty() && fs::exists(c, ec)) return c;
  return "";
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

int cmd_sweep(const std::vector<std::string>& args, std::ostream& err) {
  const fs::path here = self().parent_path();
  if (env("MMAEMU_CLI").empty()) setenv("MMAEMU_CLI", self().c_str(), 1);  // for --models all
  // MMAEMU_SWEEP, a pip package's (bin/mmaemu beside sweep.py), the source tree's.
  const std::string script = first_existing({env("MMAEMU_SWEEP"), (here / ".." / "sweep.py").string(),
                                             (here / ".." / "share" / "mmaemu" / "sweep.py").string(), MMAEMU_SWEEP_SOURCE});
  if (script.empty()) {
    err << "mmaemu sweep: sweep.py not found (set MMAEMU_SWEEP to python/mmaemu/sweep.py)\n";
    return 2;
  }
  const std::string lib = first_existing({env("MMAEMU_LIBRARY"), (here / ".." / "libmmaemu.so.0").string(),
                                          (here / ".." / "lib" / "libmmaemu.so.0").string(), MMAEMU_BUILD_LIBRARY});
  if (!lib.empty()) setenv("MMAEMU_LIBRARY", lib.c_str(), 1);
  const std::string python = env("MMAEMU_PYTHON").empty() ? "python3" : env("MMAEMU_PYTHON");
  std::vector<std::string> argv{python, script};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<char*> cargv;
  for (std::string& a : argv) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  execvp(cargv[0], cargv.data());
  err << "mmaemu sweep: cannot run " << python << ": " << std::strerror(errno) << "\n";
  return 2;
}

}  // namespace mmaemu::experiments
