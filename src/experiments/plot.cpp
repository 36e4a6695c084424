// SPDX-License-Identifier: BSD-3-Clause
#include "experiments/plot.h"

#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace mmaemu::experiments {

std::string gnuplot_program() {
  const char* env = std::getenv("MMAEMU_GNUPLOT");
  return env && *env ? env : "gnuplot";
}

PlotStatus run_gnuplot(const std::string& script) {
  PlotStatus st;
  const std::string prog = gnuplot_program();
  int fds[2];
  if (pipe(fds) != 0) {
    st.message = std::string("cannot create a pipe: ") + std::strerror(errno);
    return st;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, fds[0], 0);
  posix_spawn_file_actions_addclose(&fa, fds[0]);
  posix_spawn_file_actions_addclose(&fa, fds[1]);
  std::string arg0 = prog;
  char* argv[] = {arg0.data(), nullptr};
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, prog.c_str(), &fa, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(fds[0]);
  if (rc != 0) {
    close(fds[1]);
    st.message = "cannot run '" + prog + "' (" + std::strerror(rc) +
                 "); install gnuplot (Debian: apt-get install gnuplot-nox) or set MMAEMU_GNUPLOT";
    return st;
  }
  // A gnuplot that dies early must not kill us with SIGPIPE.
  struct sigaction ign {}, old {};
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  sigaction(SIGPIPE, &ign, &old);
  const char* p = script.data();
  std::size_t left = script.size();
  bool write_failed = false;
  while (left > 0) {
    const ssize_t w = write(fds[1], p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      write_failed = true;
      break;
    }
    p += w;
    left -= static_cast<std::size_t>(w);
  }
  close(fds[1]);
  sigaction(SIGPIPE, &old, nullptr);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      st.message = std::string("waiting for gnuplot failed: ") + std::strerror(errno);
      return st;
    }
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && !write_failed) {
    st.ok = true;
  } else if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    st.message = "'" + prog + "' could not be executed";
  } else if (WIFEXITED(status)) {
    st.message = "'" + prog + "' failed with exit status " + std::to_string(WEXITSTATUS(status));
  } else {
    st.message = "'" + prog + "' was killed by a signal";
  }
  return st;
}

std::string gp_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') q += "''";
    else if (c == '\n') q += ' ';
    else q += c;
  }
  return q + "'";
}

std::string gp_png_preamble(const std::string& png_path, int width, int height) {
  const std::string size = std::to_string(width) + "," + std::to_string(height);
  return "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
         "  set terminal pngcairo enhanced size " + size + " font ',10'\n"
         "} else {\n"
         "  set terminal png enhanced size " + size + "\n"
         "}\n"
         "set output " + gp_quote(png_path) + "\n";
}

bool gp_datablock(std::string& script, const std::string& name, const Series& s) {
  std::string body;
  char line[96];
  for (std::size_t i = 0; i < s.x.size() && i < s.y.size(); ++i) {
    if (!(s.y[i] > 0) || !std::isfinite(s.y[i]) || !std::isfinite(s.x[i])) continue;
    std::snprintf(line, sizeof line, "%.17g %.17g\n", s.x[i], s.y[i]);
    body += line;
  }
  if (body.empty()) return false;
  script += "$" + name + " << EOD\n" + body + "EOD\n";
  return true;
}

}  // namespace mmaemu::experiments
