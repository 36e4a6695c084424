#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The libmmaemu demo: one unmodified numpy program (demo/app.py) run under
several GPU models through the BLAS shim, and how far each model's float32
results are from the same program run in float64.

usage: run_demo.py [BUILD_DIR] [--scale S] [--models M:P,M:P,...]

BUILD_DIR (default: build) holds mmaemu-run and src/libmmaemu.so. Each
model runs as `mmaemu-run --model M --input P -- python3 demo/app.py ...`.
"""
import os
import subprocess
import sys
import tempfile

try:
    import numpy as np
except ImportError:  # a Python without numpy (pyenv, venv): use Debian's
    if os.path.exists("/usr/bin/python3") and sys.executable != "/usr/bin/python3":
        os.execv("/usr/bin/python3", ["/usr/bin/python3"] + sys.argv)
    sys.exit("run_demo.py: numpy is missing (Debian: apt-get install python3-numpy)")

HERE = os.path.dirname(os.path.abspath(__file__))
# (model, sgemm input policy): what a GPU BLAS would use for float32 GEMM,
# plus the low-precision modes people opt into (B200 nvfp4 and mxfp8: the
# block-scaled units, operands quantised per block along k; docs/block-scaled.md).
DEFAULT_RUNS = [
    ("V100", "fp16"), ("A100", "tf32"), ("A100", "bf16"), ("H100", "tf32"), ("H100", "fp16"),
    ("H100", "e4m3"), ("B200", "bf16"), ("B200", "nvfp4"), ("B200", "mxfp8"), ("MI100", "fp32"), ("MI250", "fp32"), ("MI250", "bf16"),
    ("MI300X", "xf32"), ("MI300X", "fp16"), ("MI300X", "fp8"),
]
WORKLOADS = ("product", "gram", "mlp")


def run_app(out, dtype, scale, model=None, policy=None, build="build"):
    """Runs demo/app.py; returns (results, emulated BLAS calls)."""
    cmd = [sys.executable, os.path.join(HERE, "app.py"), out, "--dtype", dtype, "--scale", str(scale)]
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    for v in ("MMA_MODEL", "MMA_INPUT_FORMAT", "LD_PRELOAD"):
        env.pop(v, None)
    if model:
        cmd = [os.path.join(build, "mmaemu-run"), "--model", model, "--input", policy, "--verbose", "--"] + cmd
    p = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("run_demo.py: %s failed (exit %d):\n%s" % (" ".join(cmd), p.returncode, p.stderr))
    calls = 0
    for line in p.stderr.splitlines():  # MMA_VERBOSE's exit report: "libmmaemu: sgemm  N calls ..."
        f = line.split()
        if len(f) > 3 and f[0] == "libmmaemu:" and f[3] == "calls":
            calls += int(f[2])
    with np.load(out) as z:
        return {w: z[w].astype(np.float64) for w in WORKLOADS}, calls


def errors(res, ref):
    """Normwise relative error per workload, and the product's mean signed
    relative error (its bias: negative when the unit truncates)."""
    e = [np.linalg.norm(res[w] - ref[w]) / np.linalg.norm(ref[w]) for w in WORKLOADS]
    bias = float(np.mean((res["product"] - ref["product"]) / ref["product"]))
    return e, bias


def main():
    build, scale, runs = "build", 1.0, DEFAULT_RUNS
    args = sys.argv[1:]
    while args:
        if args[0] == "--scale":
            scale, args = float(args[1]), args[2:]
        elif args[0] == "--models":
            runs = [tuple(r.split(":")) for r in args[1].split(",")]
            args = args[2:]
        elif args[0].startswith("-"):
            sys.exit(__doc__)
        else:
            build, args = args[0], args[1:]
    if not os.access(os.path.join(build, "mmaemu-run"), os.X_OK):
        sys.exit("run_demo.py: %s/mmaemu-run not found: build libmmaemu first (see README)" % build)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.npz")
        ref, _ = run_app(out, "float64", scale)
        print("libmmaemu demo: demo/app.py (plain numpy, float32) under GPU models via LD_PRELOAD;")
        print("normwise relative error ||R - R64||_F / ||R64||_F against the same program in float64.")
        print("product: 256x4096 @ 4096x256, entries in [0,1); gram: X @ X.T (ssyrk); mlp: relu(H@W1)@W2.\n")
        head = "%-8s %-6s %6s  %-10s %-10s %-10s %-10s" % ("model", "input", "calls", "product", "(bias)",
                                                            "gram", "mlp")
        print(head)
        print("-" * len(head))
        native, _ = run_app(out, "float32", scale)
        e, bias = errors(native, ref)
        print("%-8s %-6s %6s  %-10.2e %-+10.1e %-10.2e %-10.2e" % ("CPU", "fp32", "-", e[0], bias, e[1], e[2]))
        for model, policy in runs:
            res, calls = run_app(out, "float32", scale, model, policy, build)
            if calls == 0:
                sys.exit("run_demo.py: no BLAS call reached libmmaemu under %s (preload failed?)" % model)
            e, bias = errors(res, ref)
            print("%-8s %-6s %6d  %-10.2e %-+10.1e %-10.2e %-10.2e" % (model, policy, calls, e[0], bias, e[1], e[2]))
        print("\nCPU: OpenBLAS sgemm (IEEE fp32). calls: BLAS calls libmmaemu emulated in that run.")
        print("Same program, same inputs: only the matrix unit's arithmetic differs.")


if __name__ == "__main__":
    main()
