# SPDX-License-Identifier: BSD-3-Clause
"""python3 -m mmaemu run [--model M] [--input POLICY] [--verbose] -- script.py [args ...]

Re-executes python3 with libmmaemu.so preloaded as the BLAS shim, so that
mmaemu.emulate() can switch it, and MMA_MODEL / MMA_INPUT_FORMAT set the
model for the whole program. Everything after `--` goes to python3
(`-- -m pytest ...` works too). `python3 -m mmaemu library` prints the path
of the libmmaemu.so it preloads (MMAEMU_LIBRARY overrides it).
"""
import argparse
import os
import sys


def library_path():
    return os.environ.get("MMAEMU_LIBRARY") or os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                             "libmmaemu.so")


def main(argv):
    parser = argparse.ArgumentParser(prog="python3 -m mmaemu", description=__doc__.split("\n\n")[1])
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run a Python program with the BLAS shim preloaded")
    run.add_argument("--model", help="MMA_MODEL: the model BLAS calls run on from the start (default: none)")
    run.add_argument("--input", help="MMA_INPUT_FORMAT: the sgemm input policy (default: the model's)")
    run.add_argument("--verbose", action="store_true", help="MMA_VERBOSE=1: report the calls per setting")
    run.add_argument("program", nargs=argparse.REMAINDER, help="-- script.py [args ...]")
    sub.add_parser("library", help="print the path of the libmmaemu.so that `run` preloads")
    args = parser.parse_args(argv)
    lib = library_path()
    if args.command == "library":
        print(lib)
        return 0
    program = args.program[1:] if args.program[:1] == ["--"] else args.program
    if not program:
        parser.error("run: name the program after --, e.g. python3 -m mmaemu run --model H100 -- script.py")
    if not os.path.exists(lib):
        parser.error(f"run: {lib} does not exist (set MMAEMU_LIBRARY to libmmaemu.so)")
    env = dict(os.environ)
    # After what is already preloaded (a sanitizer runtime must stay first);
    # any preload is loaded before the BLAS, which is all interposition needs.
    env["LD_PRELOAD"] = (env["LD_PRELOAD"] + ":" if env.get("LD_PRELOAD") else "") + lib
    for var, value in (("MMA_MODEL", args.model), ("MMA_INPUT_FORMAT", args.input)):
        if value is not None:
            env[var] = value
    if args.verbose:
        env["MMA_VERBOSE"] = "1"
    os.execve(sys.executable, [sys.executable] + program, env)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
