# SPDX-License-Identifier: BSD-3-Clause
# Timed stages for .ci/run: `stage NAME COMMAND...` runs COMMAND and records
# its wall time and the CPU time (user + sys) of the processes it ran;
# `stages_report` (the EXIT trap) prints them with the machine's CPU.
# Plain bash and awk: they run before the setup installs anything.

_stage_lines=()
_stage_t0=$(date +%s.%N)

# The CPU seconds (user + sys) of this shell and its finished children so far
# (/proc/PID/stat fields 14-17 of the main shell, $$ also inside $(...)).
_stage_cpu() {
  awk -v hz="$(getconf CLK_TCK)" '{ sub(/^.*\) /, ""); print ($12 + $13 + $14 + $15) / hz }' "/proc/$$/stat"
}

stage() {
  local name=$1 t0 c0 rc=0
  shift
  t0=$(date +%s.%N)
  c0=$(_stage_cpu)
  "$@" || rc=$?
  _stage_lines+=("$(awk -v n="$name" -v w="$(date +%s.%N)" -v t0="$t0" -v c="$(_stage_cpu)" -v c0="$c0" \
    -v rc="$rc" 'BEGIN { printf "  %-16s %7.0f s wall %7.0f s CPU%s", n, w - t0, c - c0, rc ? "  (failed: exit " rc ")" : "" }')")
  return "$rc"
}

stages_report() {
  local rc=$?
  local cpu
  cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
  echo "== CI stages on ${cpu:-an unknown CPU}, $(nproc) cores =="
  local line
  for line in "${_stage_lines[@]}"; do echo "$line"; done
  awk -v w="$(date +%s.%N)" -v t0="$_stage_t0" -v c="$(_stage_cpu)" \
    'BEGIN { printf "  %-16s %7.0f s wall %7.0f s CPU\n", "total", w - t0, c }'
  return "$rc"
}
