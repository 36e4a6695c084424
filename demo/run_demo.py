#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The libmmaemu demo: one unmodified numpy program (demo/app.py) run under
several GPU models through the BLAS shim, and how far each model's float32
results are from the same program run in float64.

usage: run_demo.py [BUILD_DIR] [--scale S] [--models M:P,M:P,...] [--jobs N]

BUILD_DIR (default: build) holds src/libmmaemu.so. The demo is a sweep
(docs/sweep.md): the same as
  mmaemu sweep --reference 'python3 demo/app.py {out}/r.npz --dtype float64' \\
      -- python3 demo/app.py {out}/r.npz
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python", "mmaemu"))
import sweep  # noqa: E402  (python/mmaemu/sweep.py, as a script module)


def main():
    build, scale, extra = "build", "1.0", []
    args = sys.argv[1:]
    while args:
        if args[0] in ("--scale", "--models", "--jobs") and len(args) > 1:
            if args[0] == "--scale":
                scale = args[1]
            else:
                extra += args[:2]
            args = args[2:]
        elif args[0].startswith("-"):
            sys.exit(__doc__)
        else:
            build, args = args[0], args[1:]
    lib = os.path.join(build, "src", "libmmaemu.so")
    if not os.path.exists(lib):
        sys.exit("run_demo.py: %s not found: build libmmaemu first (see README)" % lib)
    os.environ.setdefault("MMAEMU_LIBRARY", os.path.abspath(lib))
    app = [sys.executable, os.path.join(HERE, "app.py"), "{out}/r.npz", "--scale", scale]
    reference = sweep.report.quote(app + ["--dtype", "float64"])
    print("libmmaemu demo: demo/app.py (plain numpy, float32) under GPU models via LD_PRELOAD.")
    print("product: 256x4096 @ 4096x256, entries in [0,1); gram: X @ X.T (ssyrk); mlp: relu(H@W1)@W2.\n")
    return sweep.main(extra + ["--reference", reference, "--"] + app + ["--dtype", "float32"])


if __name__ == "__main__":
    sys.exit(main())
