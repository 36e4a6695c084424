#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# tools/hwcheck/decide.py on made-up harness output: one GPU whose results
# follow libmmaemu, one the alternative reading, one neither.
import os
import subprocess
import sys
import tempfile

tools = sys.argv[1]
table = os.path.join(tools, "decisive.txt")


def bin32(x):
    return format(x, "032b")


def write_set(root, gpu, d_by_id):
    """OUT/mma.sync/<gpu>/fp16 with the decisive sub-sets of d_by_id (id -> fp32 bits of d)."""
    folder = os.path.join(root, "mma.sync", gpu, "fp16")
    os.makedirs(folder)
    with open(os.path.join(folder, "sets.txt"), "w") as f:
        f.write("# set first count\nem-normal 0 1\n")
        for n, i in enumerate(d_by_id):
            f.write("decisive:%s %d 1\n" % (i, n + 1))
    with open(os.path.join(folder, "d_%s_fp16.txt" % gpu), "w") as f:
        f.write(bin32(0x3F800000) + "\n")
        for d in d_by_id.values():
            f.write(bin32(d) + "\n")


def run(root):
    p = subprocess.run([sys.executable, os.path.join(tools, "decide.py"), root, table], capture_output=True, text=True)
    return p.returncode, p.stdout


failures = 0


def check(cond, what):
    global failures
    if not cond:
        print("FAIL: " + what)
        failures += 1


with tempfile.TemporaryDirectory() as root:
    # A1 (libmmaemu 0x0000, alternative 0x0001 as fp16) and B1 (0x0002 vs 0x0003), widened to fp32.
    write_set(root, "A100", {"A1": 0x00000000, "B1": 0x34000000})          # libmmaemu on both
    write_set(root, "H100", {"A3": 0x33800000, "B1": 0x34400000})          # the alternative on both
    write_set(root, "L40S", {"A1": 0x3F800000})                           # neither
    code, out = run(root)
    print(out)
    check(code == 1, "exit 1 when a vector follows neither reading (got %d)" % code)
    check("A1  A100       mma.sync  fp16->fp16: hardware 0x00000000" in out and
          "follows libmmaemu" in out.split("A1  A100")[1].split("\n")[0], "A100 A1 follows libmmaemu")
    check("follows the alternative (custom:base=H100,out=fp16,floor=-22)" in out, "H100 A3 follows the alternative")
    check("follows the alternative (custom:base=H100,sub_c=lead)" in out, "H100 B1 follows the alternative")
    check("L40S" in out and "follows NEITHER" in out, "L40S A1 follows neither")

with tempfile.TemporaryDirectory() as root:
    write_set(root, "A100", {"A1": 0x00000000})
    code, out = run(root)
    check(code == 0, "exit 0 when every vector follows a reading (got %d)" % code)

code, _ = run("/nonexistent/decide")
check(code == 2, "exit 2 on a missing directory (got %d)" % code)
sys.exit(1 if failures else 0)
