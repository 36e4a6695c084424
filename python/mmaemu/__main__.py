# SPDX-License-Identifier: BSD-3-Clause
"""python3 -m mmaemu run [--model M] [--input POLICY] [--verbose] -- script.py [args ...]
python3 -m mmaemu sweep [options] -- PROGRAM [args ...]   (python3 -m mmaemu sweep --help)

Re-executes python3 with libmmaemu.so preloaded as the BLAS shim, so that
mmaemu.emulate() can switch it, and MMA_MODEL / MMA_INPUT_FORMAT set the
model for the whole program. Everything after `--` goes to python3
(`-- -m pytest ...` works too). `python3 -m mmaemu library` prints the path
of the libmmaemu.so it preloads (MMAEMU_LIBRARY overrides it), `python3 -m
mmaemu data` the bundled hardware and reference data (for `mmaemu validate`).

The entry points a pip install adds: `mmaemu` (the CLI, bin/mmaemu in the
package) and `mmaemu-run` (any program with the shim preloaded, as the
mmaemu-run of `cmake --install`).
"""
import argparse
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))


def library_path():
    """libmmaemu.so: MMAEMU_LIBRARY, else the one beside the extension (under its soname, libmmaemu.so.0)."""
    return os.environ.get("MMAEMU_LIBRARY") or os.path.join(_HERE, "libmmaemu.so.0")


def _first_existing(*paths):
    for p in paths:
        if p and os.path.exists(p):
            return os.path.abspath(p)
    return None


def data_dir():
    """The bundled data: MMAEMU_DATA, the installed package's data/, or the CMake build tree's data/."""
    return _first_existing(os.environ.get("MMAEMU_DATA"), os.path.join(_HERE, "data"),
                           os.path.join(_HERE, "..", "..", "data"))


def cli_path():
    """The `mmaemu` CLI: MMAEMU_CLI, the installed package's bin/mmaemu, or the CMake build tree's."""
    return _first_existing(os.environ.get("MMAEMU_CLI"), os.path.join(_HERE, "bin", "mmaemu"),
                           os.path.join(_HERE, "..", "..", "src", "mmaemu"))


def _preload_env(lib):
    env = dict(os.environ)
    # After what is already preloaded (a sanitizer runtime must stay first);
    # any preload is loaded before the BLAS, which is all interposition needs.
    env["LD_PRELOAD"] = (env["LD_PRELOAD"] + ":" if env.get("LD_PRELOAD") else "") + lib
    return env


def main(argv):
    if argv[:1] == ["sweep"]:  # its own options (mmaemu/sweep.py)
        from .sweep import main as sweep
        return sweep(argv[1:])
    parser = argparse.ArgumentParser(prog="python3 -m mmaemu", description=__doc__.split("\n\n")[1])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a Python program with the BLAS shim preloaded")
    run.add_argument("--model", help="MMA_MODEL: the model BLAS calls run on from the start (default: none)")
    run.add_argument("--input", help="MMA_INPUT_FORMAT: the sgemm input policy (default: the model's)")
    run.add_argument("--verbose", action="store_true", help="MMA_VERBOSE=1: report the calls per setting")
    run.add_argument("program", nargs=argparse.REMAINDER, help="-- script.py [args ...]")
    sub.add_parser("library", help="print the path of the libmmaemu.so that `run` preloads")
    sub.add_parser("data", help="print the directory of the bundled hardware and reference data")
    args = parser.parse_args(argv)
    lib = library_path()
    if args.command == "library":
        print(lib)
        return 0
    if args.command == "data":
        d = data_dir()
        if d is None:
            parser.error("data: no bundled data found (set MMAEMU_DATA)")
        print(d)
        return 0
    program = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not program:
        parser.error("run: name the program after --, e.g. python3 -m mmaemu run --model H100 -- script.py")
    if not os.path.exists(lib):
        parser.error(f"run: {lib} does not exist (set MMAEMU_LIBRARY to libmmaemu.so)")
    env = _preload_env(lib)
    for var, value in (("MMA_MODEL", args.model), ("MMA_INPUT_FORMAT", args.input)):
        if value is not None:
            env[var] = value
    if args.verbose:
        env["MMA_VERBOSE"] = "1"
    os.execve(sys.executable, [sys.executable] + program, env)


def cli():
    """Entry point `mmaemu`: the CLI installed inside the package (`mmaemu --help`)."""
    path = cli_path()
    if path is None:
        sys.exit("mmaemu: the CLI is not in this installation (set MMAEMU_CLI to the mmaemu executable)")
    os.execv(path, [path] + sys.argv[1:])


def run_program(argv=None):
    """Entry point `mmaemu-run [--model M] [--input F] [--accumulate A] [--threads N] [--verbose] -- program args...`:
    runs any program with its BLAS matrix products on a GPU model (LD_PRELOAD of the package's libmmaemu.so)."""
    parser = argparse.ArgumentParser(prog="mmaemu-run", description=run_program.__doc__.split(":", 1)[1].strip())
    parser.add_argument("--model", help="MMA_MODEL (required unless set)")
    parser.add_argument("--input", help="MMA_INPUT_FORMAT: the sgemm input policy")
    from ._mmaemu import accumulate_modes  # the C API's table of modes
    parser.add_argument("--accumulate", choices=accumulate_modes(blas_only=True),
                        help="MMA_ACCUMULATE: " + " or ".join(accumulate_modes(blas_only=True)))
    parser.add_argument("--threads", help="MMA_NUM_THREADS")
    parser.add_argument("--verbose", action="store_true", help="MMA_VERBOSE=1")
    parser.add_argument("program", nargs=argparse.REMAINDER, help="-- program [args ...]")
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    program = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not program:
        parser.error("no program given, e.g. mmaemu-run --model H100 -- python3 app.py")
    lib = library_path()
    if not os.path.exists(lib):
        parser.error(f"{lib} does not exist (set MMAEMU_LIBRARY to libmmaemu.so)")
    env = _preload_env(lib)
    for var, value in (("MMA_MODEL", args.model), ("MMA_INPUT_FORMAT", args.input),
                       ("MMA_ACCUMULATE", args.accumulate), ("MMA_NUM_THREADS", args.threads)):
        if value is not None:
            env[var] = value
    if args.verbose:
        env["MMA_VERBOSE"] = "1"
    if not env.get("MMA_MODEL"):
        parser.error("give --model (or set MMA_MODEL)")
    try:
        os.execvpe(program[0], program, env)
    except OSError as e:
        parser.error(f"cannot run {program[0]}: {e.strerror}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
