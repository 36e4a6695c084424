#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The README's benchmark tables from `mmaemu-bench --csv FILE` runs.

    python3 bench/summarise.py FILE [FILE...] [--threads T] [--scenario S]
                               [--threads-table]

Prints, per row of the runs (model, input, output), GFLOP/s of every square
size and the ratios to OpenBLAS on the same shape in the same run at
n = 2048, n = 128 and m = 16 (16 x 4096 x 4096), and the speed-up of the
multi-word experiment's 10 x 10 x 10^6 product (m x n x k) from one thread
to T. Ratios are libmmaemu GFLOP/s / OpenBLAS cblas_sgemm GFLOP/s (the
CSV's ratio column; an integer row's, input int8 and output s32, is GOP/s
over OpenBLAS GFLOP/s). With several files (repeated runs of the same rows)
each cell is the median over the runs, and the ratio and speed-up cells add
the runs' range in brackets. A run's CSV has one scenario (quiet, load,
busy:P, callers:C, load+callers:C); --scenario keeps the rows of one (default:
the first row's; a CSV without the column is a quiet run).

--threads-table prints instead, per row, how T threads compare with one
thread over every shape of the runs: the largest time ratio (T-thread time /
1-thread time, median over the runs, with its shape), the median of that
ratio over the shapes, and the lowest T-thread GFLOP/s of the squares
n >= 128.
"""
import argparse
import csv
import statistics
import sys


def fmt_ratio(r):
    if r is None:
        return "–"
    return f"1/{1 / r:.1f}" if r < 0.5 else f"{r:.2f}"


def with_range(values, fmt):
    """The median of values, then their range where they differ."""
    if not values:
        return "–"
    med = fmt(statistics.median(values))
    lo, hi = fmt(min(values)), fmt(max(values))
    return med if lo == hi else f"{med} ({lo} – {hi})"


def read_runs(paths, scenario):
    """data[row][(n, threads)] = [(gflops, ratio) per run]; the rows in order."""
    data, order = {}, []
    for path in paths:
        with open(path, newline="") as f:
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
                data[key].setdefault((r["n"], int(r["threads"])), []).append((float(r["gflops"]), float(r["ratio"])))
    return data, order


def row_name(key):
    model, inp, out = key
    return f"{model} {inp}" + ("" if out == "fp32" else f" → {out}")


def time_ratios(d, n, t):
    """T-thread time / 1-thread time per run on shape n (runs paired in order)."""
    return [one[0] / many[0] for one, many in zip(d.get((n, 1), []), d.get((n, t), []))]


def main_table(data, order, t):
    squares = sorted({n for d in data.values() for (n, _) in d if n.isdigit()}, key=int)
    head = ["row", *[f"n={n}" for n in squares], "ratio n=2048", "n=128", "m=16", "10×10×10⁶ speed-up"]
    print("| " + " | ".join(head) + " |")
    print("| " + " | ".join(["---"] + ["---:"] * (len(head) - 1)) + " |")
    for key in order:
        d = data[key]
        cells = [row_name(key)]
        cells += [f"{statistics.median(g for g, _ in d[(n, t)]):.1f}" if (n, t) in d else "–" for n in squares]
        for n in ("2048", "128", "16x4096x4096"):
            cells.append(with_range([r for _, r in d.get((n, t), [])], fmt_ratio))
        speedups = [1 / x for x in time_ratios(d, "10x10x1000000", t)]
        cells.append(with_range(speedups, lambda x: f"{x:.2f}×"))
        print("| " + " | ".join(cells) + " |")


def threads_table(data, order, t):
    print(f"| row | worst {t}-thread / 1-thread time (shape) | median | lowest GFLOP/s at n ≥ 128 |")
    print("| --- | ---: | ---: | ---: |")
    for key in order:
        d = data[key]
        ratios = sorted((statistics.median(time_ratios(d, n, t)), n) for (n, th) in d if th == t and (n, 1) in d)
        if not ratios:
            continue
        big = [statistics.median(g for g, _ in d[(n, t)]) for (n, th) in d if th == t and n.isdigit() and int(n) >= 128]
        worst, shape = ratios[-1]
        median = statistics.median(r for r, _ in ratios)
        low = f"{min(big):.1f}" if big else "–"
        print(f"| {row_name(key)} | {worst:.2f} ({shape}) | {median:.2f} | {low} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", nargs="+")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--scenario", default=None)
    ap.add_argument("--threads-table", action="store_true")
    args = ap.parse_args()
    data, order = read_runs(args.csv, args.scenario)
    (threads_table if args.threads_table else main_table)(data, order, args.threads)
    return 0


if __name__ == "__main__":
    sys.exit(main())
