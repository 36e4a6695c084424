# SPDX-License-Identifier: BSD-3-Clause
"""mmaemu sweep: one unmodified program run natively and under GPU settings.

usage: mmaemu sweep [--models LIST|all] [--inputs LIST] [--outputs NAMES]
                    [--reference native|COMMAND] [--jobs N] [--timeout S]
                    [--csv F] [--png F] [--html F] [--quiet] -- PROGRAM ARGS...

Runs PROGRAM once for the reference, once natively and once per GPU setting
(its BLAS calls on the model through the preloaded libmmaemu.so); `{out}` in
ARGS becomes a fresh output directory per run. Each run's outputs (the files
--outputs names under {out}, else every file there, else the numbers the
program prints) are compared with the reference's: normwise and max relative
error, mean signed relative error (bias), elements whose bits differ, the
ULP-distance histogram, and the BLAS calls libmmaemu emulated.

--models: settings MODEL or MODEL:INPUT (comma-separated), or `all`
  (every registered GPU); --inputs: the input policies of the settings that
  name none (MODEL alone: the model's vendor-BLAS default). Default: the
  demo's settings. --reference: `native` (default) or a shell command run as
  the reference, {out} replaced (a higher-precision variant of the program).
A failed run is reported with its exit status and the end of its stderr; the
sweep goes on. Exit status 0, 1 if a setting failed, 2 on bad options or a
failed reference. docs/sweep.md.
"""
import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

try:
    import numpy as np
except ImportError:  # a Python without numpy (pyenv, venv): use Debian's
    if os.path.exists("/usr/bin/python3") and sys.executable != "/usr/bin/python3":
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    fail("numpy is missing (Debian: apt-get install python3-numpy)")

if __package__:
    from . import sweep_report as report
    from .sweep_compare import compare, read_outputs
else:  # run as a script (mmaemu sweep)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import sweep_report as report
    from sweep_compare import compare, read_outputs

HERE = os.path.dirname(os.path.abspath(__file__))
# What a GPU BLAS uses for float32 GEMM, plus the low-precision modes people
# opt into (the settings of demo/run_demo.py).
DEMO_SETTINGS = ("V100:fp16,A100:tf32,A100:bf16,H100:tf32,H100:fp16,H100:e4m3,B200:bf16,B200:nvfp4,"
                 "B200:mxfp8,MI100:fp32,MI250:fp32,MI250:bf16,MI300X:xf32,MI300X:fp16,MI300X:fp8")
SHIM_VARS = ("MMA_MODEL", "MMA_INPUT_FORMAT", "MMA_VERBOSE")


def fail(message):
    """Stops the sweep: bad options, an unknown model, a failed reference (exit status 2)."""
    sys.stderr.write("mmaemu sweep: %s\n" % message)
    sys.exit(2)


class Run:
    """One run of the program: a setting (model, input) or the native/reference run."""

    def __init__(self, label, model=None, policy=None, command=None):
        self.label, self.model, self.policy, self.command = label, model, policy, command
        self.status, self.stderr, self.seconds, self.calls = None, "", 0.0, 0
        self.outputs, self.error, self.results = {}, None, []

    @property
    def failed(self):
        return self.error is not None


def library_path():
    return os.environ.get("MMAEMU_LIBRARY") or os.path.join(HERE, "libmmaemu.so.0")


def cli_path():
    for p in (os.environ.get("MMAEMU_CLI"), os.path.join(HERE, "bin", "mmaemu"),
              os.path.join(HERE, "..", "..", "src", "mmaemu")):
        if p and os.access(p, os.X_OK):
            return p
    return None


def all_models():
    """Every registered GPU, from `mmaemu models`."""
    cli = cli_path()
    if cli is None:
        fail("--models all needs the mmaemu CLI (set MMAEMU_CLI)")
    out = subprocess.run([cli, "models"], capture_output=True, text=True, check=True).stdout
    names = []
    for line in out.splitlines()[1:]:
        if not line.strip():
            break
        if line.split()[0] not in names:
            names.append(line.split()[0])
    return names


def setting_items(text):
    """The comma-separated items of --models; the key=value pairs after a
    custom: specification belong to it (custom:base=H100,round=rne:fp16)."""
    items = []
    for t in (t for t in text.split(",") if t):
        if items and items[-1].startswith("custom:") and "=" in t and ":" not in items[-1][7:]:
            items[-1] += "," + t
        else:
            items.append(t)
    return items


def split_setting(item):
    """MODEL[:INPUT] -> (model, input or None); INPUT may hold a colon (tf32:rna)."""
    if item.startswith("custom:"):
        spec, _, policy = item[7:].partition(":")
        return "custom:" + spec, policy or None
    model, _, policy = item.partition(":")
    return model, policy or None


def settings(models, inputs):
    """The (label, model, policy) of each setting."""
    names = all_models() if models == "all" else setting_items(models)
    policies = [p for p in inputs.split(",") if p] if inputs else [None]
    runs = []
    for name in names:
        model, policy = split_setting(name)
        for p in ([policy] if policy else policies):
            runs.append(Run("%s %s" % (model, p or "default"), model, p))
    return runs


def check_models(runs):
    """Exits with the CLI's message (which lists the valid names) on an unknown model."""
    cli = cli_path()
    for model in dict.fromkeys(r.model for r in runs):
        if cli is None:
            return
        p = subprocess.run([cli, "models", model], capture_output=True, text=True)
        if p.returncode != 0:
            fail("--models: " + p.stderr.strip().replace("mmaemu: ", "", 1))


def substitute(args, out):
    return [a.replace("{out}", out) for a in args]


def environment(run):
    env = dict(os.environ)
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    for v in SHIM_VARS:
        env.pop(v, None)
    if run.model:
        lib = library_path()
        env["LD_PRELOAD"] = (env["LD_PRELOAD"] + ":" if env.get("LD_PRELOAD") else "") + lib
        env["MMA_MODEL"], env["MMA_VERBOSE"] = run.model, "1"
        if run.policy:
            env["MMA_INPUT_FORMAT"] = run.policy
    return env


def emulated_calls(stderr):
    """The calls of MMA_VERBOSE's exit report ("libmmaemu: sgemm  N calls ..."),
    the routines that went to the system BLAS untouched excluded."""
    calls, counting = 0, True
    for line in stderr.splitlines():
        f = line.split()
        if f[:1] == ["libmmaemu:"] and "not emulated" in line:
            counting = False
        elif len(f) > 3 and f[0] == "libmmaemu:" and f[3] == "calls" and counting:
            calls += int(f[2])
    return calls


def describe_status(code):
    if code < 0:
        import signal
        try:
            return "killed by %s" % signal.Signals(-code).name
        except ValueError:
            return "killed by signal %d" % -code
    return "exit status %d" % code


def execute(run, program, opts, workdir):
    """Runs the program for one run; fills status, stderr, outputs."""
    out = tempfile.mkdtemp(prefix="run-", dir=workdir)
    cmd = shlex.split(run.command.replace("{out}", shlex.quote(out))) if run.command else substitute(program, out)
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, env=environment(run), capture_output=True, text=True, errors="replace",
                           timeout=opts.timeout)
        run.status, run.stderr, stdout = p.returncode, p.stderr, p.stdout
    except subprocess.TimeoutExpired as e:
        run.status, run.stderr, stdout = None, (e.stderr or b"").decode(errors="replace"), ""
        run.error = "timed out after %g s" % opts.timeout
    except OSError as e:
        run.status, stdout, run.error = None, "", "cannot run %s: %s" % (cmd[0], e.strerror)
    run.seconds = time.monotonic() - start
    if run.status:
        run.error = describe_status(run.status)
    run.calls = emulated_calls(run.stderr)
    if not run.failed:
        try:
            run.outputs = read_outputs(out, opts.outputs, stdout)
        except ValueError as e:
            run.error = str(e)
    return run


class Progress:
    """The progress line on a terminal: runs done, elapsed time, an estimate."""

    def __init__(self, total, quiet):
        self.total, self.done, self.start = total, 0, time.monotonic()
        self.live = not quiet and sys.stderr.isatty()

    def update(self, run):
        self.done += 1
        if not self.live:
            return
        elapsed = time.monotonic() - self.start
        left = elapsed / self.done * (self.total - self.done)
        sys.stderr.write("\r\033[K[%d/%d] %s done; elapsed %.0f s, about %.0f s left" %
                         (self.done, self.total, run.label, elapsed, left))
        sys.stderr.flush()

    def finish(self):
        if self.live:
            sys.stderr.write("\r\033[K")


def parse(argv):
    parser = argparse.ArgumentParser(prog="mmaemu sweep", description="\n\n".join(__doc__.split("\n\n")[2:]),
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default=DEMO_SETTINGS, help="MODEL[:INPUT],... or all (default: the demo's)")
    parser.add_argument("--inputs", help="input policies for the settings that name none")
    parser.add_argument("--outputs", help="the output files under {out} (default: every file; none: stdout)")
    parser.add_argument("--reference", default="native", help="native, or a shell command ({out} replaced)")
    parser.add_argument("--jobs", type=int, default=1, help="settings run in parallel (default 1)")
    parser.add_argument("--timeout", type=float, help="seconds a run may take (default: no limit)")
    parser.add_argument("--csv", help="write the results as CSV")
    parser.add_argument("--png", help="write a chart of the normwise errors (matplotlib)")
    parser.add_argument("--html", help="write a self-contained HTML report")
    parser.add_argument("--quiet", action="store_true", help="no progress line")
    parser.add_argument("program", nargs=argparse.REMAINDER, help="-- PROGRAM ARGS...")
    opts = parser.parse_args(argv)
    opts.program = opts.program[1:] if opts.program[:1] == ["--"] else opts.program
    if not opts.program:
        parser.error("name the program after --, e.g. mmaemu sweep -- python3 demo/app.py {out}/r.npz")
    if opts.jobs < 1:
        parser.error("--jobs must be at least 1")
    if opts.outputs is not None:
        opts.outputs = [o for o in opts.outputs.split(",") if o]
    return opts


def run_all(opts, workdir):
    """Reference, native, then the settings (in parallel with --jobs)."""
    native = opts.reference == "native"
    reference = Run("native" if native else "reference", command=None if native else opts.reference)
    runs = ([] if native else [Run("native")]) + settings(opts.models, opts.inputs)
    check_models([r for r in runs if r.model])
    if not os.path.exists(library_path()):
        fail("%s does not exist (set MMAEMU_LIBRARY to libmmaemu.so)" % library_path())
    progress = Progress(len(runs) + 1, opts.quiet)
    execute(reference, opts.program, opts, workdir)
    progress.update(reference)
    if reference.failed:
        progress.finish()
        sys.stderr.write(report.failure_text(reference))
        fail("the reference run failed")
    with ThreadPoolExecutor(max_workers=opts.jobs) as pool:
        for done in as_completed([pool.submit(execute, r, opts.program, opts, workdir) for r in runs]):
            progress.update(done.result())
    progress.finish()
    if reference.command is None:  # the native row: the reference against itself
        reference.results = compare(reference.outputs, reference.outputs)
    for run in runs:
        if not run.failed:
            run.results = compare(run.outputs, reference.outputs)
    return reference, runs


def main(argv=None):
    opts = parse(sys.argv[1:] if argv is None else argv)
    with tempfile.TemporaryDirectory(prefix="mmaemu-sweep-") as workdir:
        reference, runs = run_all(opts, workdir)
    print(report.table(opts, reference, runs))
    if opts.csv:
        report.write_csv(opts.csv, runs)
    if opts.png:
        report.write_png(opts.png, runs)
    if opts.html:
        report.write_html(opts.html, opts, reference, runs)
    return 1 if any(r.failed for r in runs) else 0


if __name__ == "__main__":
    sys.exit(main())
