#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The README's benchmark table from one `mmaemu-bench --csv FILE` run.

    python3 bench/summarise.py FILE [--threads T] [--scenario S] [--threads-table]

Prints, per row of the run (model, input, output), GFLOP/s of every square
size and the ratios to OpenBLAS on the same shape in the same run at
n = 2048, n = 128 and m = 16 (16 x 4096 x 4096), and the speed-up of the
multi-word experiment's 10 x 10 x 10^6 product (m x n x k) from one thread
to T. Ratios are libmmaemu GFLOP/s / OpenBLAS
cblas_sgemm GFLOP/s (the CSV's ratio column). A run's CSV has one
scenario (quiet, load, busy:P, callers:C, load+callers:C); --scenario keeps
the rows of one where files were joined (default: the first row's; a CSV
without the column is a quiet run).

--threads-table prints instead, per row, how T threads compare with one
thread over every shape of the run: the largest time ratio (T-thread time /
1-thread time, with its shape), the median ratio, and the lowest T-thread
GFLOP/s of the squares n >= 128.
"""
import argparse
import csv
import sys


def fmt_ratio(r):
    if r is None:
        return "–"
    return f"1/{1 / r:.1f}" if r < 0.5 else f"{r:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--scenario", default=None)
    ap.add_argument("--threads-table", action="store_true")
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
    if args.threads_table:
        return threads_table(data, order, args.threads)
    squares = sorted({n for d in data.values() for (n, _) in d if n.isdigit()}, key=int)
    t = args.threads
    head = ["row", *[f"n={n}" for n in squares], "ratio n=2048", "n=128", "m=16",
            "10×10×10⁶ speed-up"]
    print("| " + " | ".join(head) + " |")
    print("| " + " | ".join(["---"] + ["---:"] * (len(head) - 1)) + " |")
    for key in order:
        d = data[key]
        model, inp, out = key

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
        print("| " + " | ".join(cells) + " |")
    return 0


def threads_table(data, order, t):
    print(f"| row | worst {t}-thread / 1-thread time (shape) | median | lowest GFLOP/s at n ≥ 128 |")
    print("| --- | ---: | ---: | ---: |")
    for key in order:
        d = data[key]
        model, inp, out = key
        ratios = sorted((d[(n, 1)][0] / d[(n, t)][0], n) for (n, th) in d if th == t and (n, 1) in d)
        big = [d[(n, t)][0] for (n, th) in d if th == t and n.isdigit() and int(n) >= 128]
        if not ratios:
            continue
        worst, shape = ratios[-1]
        median = ratios[len(ratios) // 2][0]
        name = f"{model} {inp}" + ("" if out == "fp32" else f" → {out}")
        low = f"{min(big):.1f}" if big else "–"
        print(f"| {name} | {worst:.2f} ({shape}) | {median:.2f} | {low} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
