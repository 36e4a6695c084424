#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The effect of promotion intervals: the error of an fp8 GEMM against k.

For each k, C = A B (m = n = 32) with e4m3 operands uniform in [0, 1) runs
on each model's e4m3 -> fp32 unit under three schedules (mmaemu.matmul
schedule=, docs/schedules.md): "chain" (one unit accumulator along all of
k), "promote:128" (every 128 elements of k the unit's partial sum is added
to a binary32 accumulator, as CUTLASS's mma_promotion_interval and
DeepGEMM do) and "splitk:4". The error is normwise, ||C - C_ref||_F /
||C_ref||_F, against the exact product of the same e4m3 values (products
exact in binary64), so it shows the accumulation alone. Where the unit's
accumulator is narrower than binary32 (H100's fp8 path), the chain's error
grows with k and promotion caps it.

    python3 python/examples/promotion.py [output.png]
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import mmaemu  # noqa: E402

MODELS = ["H100", "B200"]
SCHEDULES = ["chain", "promote:128", "splitk:4"]
KS = [2 ** e for e in range(7, 16)]
M = N = 32


def normwise_error(model, schedule, a, b, exact):
    c = mmaemu.matmul(a, b, model, a_format="e4m3", b_format="e4m3", c_format="fp32", schedule=schedule)
    return np.linalg.norm(c.astype(np.float64) - exact) / np.linalg.norm(exact)


def main(out):
    rng = np.random.default_rng(2025)
    curves = {(m, s): [] for m in MODELS for s in SCHEDULES}
    for k in KS:
        a = mmaemu.convert(rng.uniform(0, 1, (M, k)), "e4m3")  # e4m3 codes
        b = mmaemu.convert(rng.uniform(0, 1, (k, N)), "e4m3")
        exact = mmaemu.decode(a, "e4m3") @ mmaemu.decode(b, "e4m3")  # binary64: error far below fp32's
        for key in curves:
            curves[key].append(normwise_error(*key, a, b, exact))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    styles = {"chain": "-", "promote:128": "--", "splitk:4": ":"}
    colours = dict(zip(MODELS, ["tab:green", "tab:blue", "tab:red"]))
    for (m, s), errs in curves.items():
        shown = [e if e > 0 else np.nan for e in errs]  # an exact result has no place on a log axis
        ax.loglog(KS, shown, styles[s], color=colours[m], marker="o", markersize=3, label=f"{m} {s}")
    ax.loglog(KS, [k * 2.0 ** -24 for k in KS], "k-", linewidth=0.5, label="k·u (fp32)")
    ax.set_xlabel("k")
    ax.set_ylabel("normwise error ‖C − C_ref‖_F / ‖C_ref‖_F")
    ax.set_title(f"e4m3 → fp32 GEMM ({M} × {N} × k), uniform [0, 1) inputs (libmmaemu)")
    ax.grid(True, which="both", linewidth=0.3)
    ax.legend(fontsize=8, ncol=2)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    for (m, s), errs in curves.items():
        print(f"{m:5s} {s:12s} " + " ".join(f"{e:.2e}" for e in errs))
    print(f"wrote {out}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "promotion-vs-k.png")
