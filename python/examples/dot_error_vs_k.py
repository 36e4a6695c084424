#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The error of a dot product against its length k on several GPU models.

For each k, `trials` dot products of fp16 values uniform in [0, 1) run on
each model's fp16 -> fp32 unit (mmaemu.matmul: each row of A times the
column b). The error is measured against the exact dot product of the same
fp16 values (exact products in binary64, summed by math.fsum), so it shows
the accumulation alone: truncating units (RZ, NVIDIA) drift by about k * u,
units rounding to nearest stay near sqrt(k) * u.

    python3 python/examples/dot_error_vs_k.py [output.png]
"""
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import mmaemu  # noqa: E402

MODELS = ["V100", "A100", "H100", "B200", "MI250", "MI300X"]
KS = [2 ** e for e in range(4, 15)]
TRIALS = 64


def relative_errors(model, a, b, exact):
    d = mmaemu.matmul(a, b, model, a_format="fp16", b_format="fp16", c_format="fp32").astype(np.float64)[:, 0]
    return np.abs(d - exact) / np.abs(exact)


def main(out):
    rng = np.random.default_rng(2024)
    curves = {m: [] for m in MODELS}
    for k in KS:
        a = mmaemu.convert(rng.uniform(0, 1, (TRIALS, k)), "fp16")  # fp16 codes
        b = mmaemu.convert(rng.uniform(0, 1, (k, 1)), "fp16")
        av, bv = mmaemu.decode(a, "fp16"), mmaemu.decode(b, "fp16")[:, 0]
        exact = np.array([math.fsum(row * bv) for row in av])  # fp16 products are exact in binary64
        for m in MODELS:
            curves[m].append(np.mean(relative_errors(m, a, b, exact)))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for m in MODELS:
        ax.loglog(KS, curves[m], marker="o", markersize=3, label=m)
    u = 2.0 ** -24
    ax.loglog(KS, [k * u for k in KS], "k--", linewidth=0.8, label="k·u (fp32)")
    ax.loglog(KS, [math.sqrt(k) * u for k in KS], "k:", linewidth=0.8, label="√k·u")
    ax.set_xlabel("k (dot product length)")
    ax.set_ylabel(f"mean relative error ({TRIALS} dot products)")
    ax.set_title("fp16 → fp32 dot products, uniform [0, 1) inputs (libmmaemu)")
    ax.grid(True, which="both", linewidth=0.3)
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    for m in MODELS:
        print(f"{m:8s} " + " ".join(f"{e:.2e}" for e in curves[m]))
    print(f"wrote {out}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "dot-error-vs-k.png")
