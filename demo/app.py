#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""An ordinary numpy program: nothing in it knows about libmmaemu.

It computes three typical matrix workloads in the precision given on the
command line and saves the results:
  product  C = A @ B, 256 x 4096 times 4096 x 256, entries uniform in [0, 1)
           (all terms positive: truncation bias accumulates along k)
  gram     G = X @ X.T, X 256 x 2048 with normal entries (numpy -> ssyrk)
  mlp      relu(H @ W1) @ W2, a two-layer perceptron forward pass

usage: app.py OUT.npz [--dtype float32|float64] [--scale S]
"""
import sys

import numpy as np


def main():
    out = sys.argv[1]
    dtype = np.float32
    scale = 1.0
    args = sys.argv[2:]
    while args:
        if args[0] == "--dtype":
            dtype = np.dtype(args[1]).type
            args = args[2:]
        elif args[0] == "--scale":
            scale = float(args[1])
            args = args[2:]
        else:
            sys.exit("app.py: unknown option " + args[0])
    rng = np.random.default_rng(2026)
    n, k = max(8, int(256 * scale)), max(16, int(4096 * scale))
    A = rng.random((n, k)).astype(np.float32)
    B = rng.random((k, n)).astype(np.float32)
    X = rng.standard_normal((n, k // 2)).astype(np.float32)
    H = rng.standard_normal((n, k // 4)).astype(np.float32)
    W1 = (rng.standard_normal((k // 4, n)) / np.sqrt(k // 4)).astype(np.float32)
    W2 = (rng.standard_normal((n, 16)) / np.sqrt(n)).astype(np.float32)
    A, B, X, H, W1, W2 = (m.astype(dtype) for m in (A, B, X, H, W1, W2))
    product = A @ B
    gram = X @ X.T
    mlp = np.maximum(H @ W1, 0) @ W2
    np.savez(out, product=product, gram=gram, mlp=mlp)


if __name__ == "__main__":
    main()
