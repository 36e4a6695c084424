#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The README's benchmark table from one `mmaemu-bench --csv FILE` run.

    python3 bench/summarise.py FILE [--threads T] [--scenario S]

Prints, per row of the run (model, input, output), GFLOP/s of every square
size and the ratios to OpenBLAS on the same shape in the same run at
n = 2048, n = 128 and m = 16 (16 x 4096 x 4096), each against the targets of
the performance issue (a row's class below), the speed-up of the multi-word
experiment's 10 x 10 x 10^6 product (m x n x k) from one thread to T, and
whether every target is met. Ratios are libmmaemu GFLOP/s / OpenBLAS
cblas_sgemm GFLOP/s (the CSV's ratio column). A run's CSV has one
scenario (quiet, load, busy:P, callers:C, load+callers:C); --scenario keeps
the rows of one where files were joined (default: the first row's; a CSV
without the column is a quiet run).
"""
import argparse
import csv
import sys
from fractions import Fraction

# Targets (n = 2048, n = 128, m = 16) by class of row; None: no target.
TARGETS = {
    "nvidia": (Fraction(1, 8), Fraction(1, 20), Fraction(1, 16)),
    "nvidia-fp16": (Fraction(1, 12), Fraction(1, 24), Fraction(1, 20)),
    "cdna3-cdna1": (Fraction(1, 12), Fraction(1, 24), Fraction(1, 20)),
    "cdna2": (Fraction(1, 6), Fraction(1, 16), Fraction(1, 12)),
    "chain": (Fraction(4, 5), Fraction(1, 3), Fraction(1, 3)),
    "block-scaled": (Fraction(1, 16), None, None),
}
SPEEDUP_TARGET = 1.8  # 10 x 10 x 10^6 on 2 threads against 1


def row_class(model, inp, out):
    if inp in ("mxfp8", "mxfp8:e5m2", "mxfp6", "mxfp6:e3m2", "mxfp4", "nvfp4"):
        return "block-scaled"
    if model.startswith("MI250") and inp == "fp16":
        return "cdna2"
    if inp in ("fp32", "fp64") and model.startswith("MI"):
        return "chain"
    if model.startswith(("MI300", "MI100")):
        return "cdna3-cdna1"
    return "nvidia-fp16" if out == "fp16" else "nvidia"


def fmt_ratio(r):
    if r is None:
        return "–"
    return f"1/{1 / r:.1f}" if r < 0.5 else f"{r:.2f}"


def fmt_target(t):
    if t is None:
        return ""
    return f"{t.numerator}/{t.denominator}" if t.numerator != 1 else f"1/{t.denominator}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--scenario", default=None)
    args = ap.parse_args()
    data, order = {}, []
    scenario = args.scenario
    with open(args.csv, newline="") as f:
        for r in csv.DictReader(f):
            row_scenario = r.get("scenario") or "quiet"
            if scenario is None:
                scenario = row_scenario
            if row_scenario != scenario:
                continue
            key = (r["model"], r["input"], r["output"])
            if key not in data:
                data[key] = {}
                order.append(key)
            data[key][(r["n"], int(r["threads"]))] = (float(r["gflops"]), float(r["ratio"]))
    squares = sorted({n for d in data.values() for (n, _) in d if n.isdigit()}, key=int)
    t = args.threads
    head = ["row", *[f"n={n}" for n in squares], "ratio n=2048", "n=128", "m=16",
            "10×10×10⁶ speed-up", "targets (2048 / 128 / m=16)", "met"]
    print("| " + " | ".join(head) + " |")
    print("| " + " | ".join(["---"] + ["---:"] * (len(head) - 3) + ["---", "---"]) + " |")
    for key in order:
        d = data[key]
        model, inp, out = key
        cls = row_class(model, inp, out)
        targets = TARGETS[cls]

        def ratio(n):
            v = d.get((n, t))
            return v[1] if v else None

        cells = [f"{model} {inp}" + ("" if out == "fp32" else f" → {out}")]
        cells += [f"{d[(n, t)][0]:.1f}" if (n, t) in d else "–" for n in squares]
        measured = [ratio("2048"), ratio("128"), ratio("16x4096x4096")]
        cells += [fmt_ratio(r) for r in measured]
        one, many = d.get(("10x10x1000000", 1)), d.get(("10x10x1000000", t))
        speedup = many[0] / one[0] if one and many else None
        cells.append(f"{speedup:.2f}×" if speedup else "–")
        cells.append(" / ".join(fmt_target(x) or "–" for x in targets))
        missed = [name for name, r, x in zip(("2048", "128", "m=16"), measured, targets)
                  if x is not None and (r is None or Fraction(r) < x)]
        if cls != "block-scaled" and speedup is not None and speedup < SPEEDUP_TARGET:
            missed.append("speed-up")
        cells.append("yes" if not missed else "no: " + ", ".join(missed))
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
