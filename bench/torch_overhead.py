#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The cost of mmaemu.torch.emulate over a direct mmaemu.matmul on the same operands.

    PYTHONPATH=build/python python3 bench/torch_overhead.py [--n 256] [--reps 41] [--threads 1] [--clock wall]

For an n x n x n product on H100 fp16 (and the other cases below) it times,
interleaved so that both see the same load: mmaemu.matmul on numpy arrays
(the reference), and torch's operation inside the mode (dispatch, the
tensor <-> numpy views, the same mmaemu.matmul, the result as a tensor).
A 16 x 16 x 16 product gives the fixed cost of the mode per operation.
Prints the median time of each, the spread (25th-75th percentile) and the
overhead of the mode: median(mode) / median(direct) - 1, the same for the
minima, and the median of the per-pair differences in microseconds. The results are checked bit for
bit first. --clock cpu times the calling thread's CPU time instead of the
wall clock (with --threads 1 the product runs on that thread): on a shared
machine it leaves out the time other processes hold the core.
"""
import argparse
import os
import statistics
import time

CLOCK = {"wall": time.perf_counter, "cpu": time.thread_time}
clock = time.perf_counter

import numpy as np
import torch

import mmaemu
import mmaemu.torch as mt


def quartiles(xs):
    q = statistics.quantiles(xs, n=4)
    return q[0], statistics.median(xs), q[2]


def case(label, direct, under_mode, reps, mode):
    with mode:  # entered once around the case: the cost per operation
        run(label, direct, under_mode, reps)


def run(label, direct, under_mode, reps):
    want = direct()
    got = under_mode()
    g = got.detach().contiguous()
    g = g.view(torch.int32 if g.element_size() == 4 else torch.int16).numpy().view(np.uint32 if g.element_size() == 4
                                                                                    else np.uint16)
    w = want.view(np.uint32) if want.dtype == np.float32 else want
    assert np.array_equal(g.ravel(), w.ravel()), f"{label}: the mode's bits differ from mmaemu.matmul's"
    td, tm = [], []
    for i in range(reps):  # interleaved; alternate which goes first
        for f, out in ((direct, td), (under_mode, tm))[:: 1 if i % 2 == 0 else -1]:
            t0 = clock()
            f()
            out.append(clock() - t0)
    d25, d50, d75 = quartiles(td)
    m25, m50, m75 = quartiles(tm)
    diff = statistics.median(b - a for a, b in zip(td, tm)) * 1e6
    print(f"| {label} | {d50 * 1e3:.3f} ({d25 * 1e3:.3f}–{d75 * 1e3:.3f}) | {m50 * 1e3:.3f} "
          f"({m25 * 1e3:.3f}–{m75 * 1e3:.3f}) | {100 * (m50 / d50 - 1):+.1f} % "
          f"| {100 * (min(tm) / min(td) - 1):+.1f} % | {diff:+.0f} |", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=256)
    ap.add_argument("--reps", type=int, default=41)
    ap.add_argument("--threads", type=int, default=1, help="mmaemu threads (0: MMA_NUM_THREADS / all cores)")
    ap.add_argument("--clock", choices=sorted(CLOCK), default="wall",
                    help="wall: elapsed time; cpu: the calling thread's CPU time (use with --threads 1)")
    args = ap.parse_args()
    global clock
    clock = CLOCK[args.clock]
    if args.clock == "cpu" and args.threads != 1:
        ap.error("--clock cpu counts the calling thread only: give --threads 1")
    n, th = args.n, args.threads
    gen = torch.Generator().manual_seed(0)
    a, b, bias = torch.randn(n, n, generator=gen), torch.randn(n, n, generator=gen), torch.randn(n, generator=gen)
    an, bn = a.numpy(), b.numpy()
    h100 = mmaemu.Model("H100")  # one lookup for both sides, as the mode holds its model
    mode = mt.emulate(h100, input="fp16", threads=th)
    print(f"n = {n}, threads = {th}, {args.reps} interleaved pairs, {args.clock} clock, libmmaemu {mmaemu.__version__}, "
          f"torch {torch.__version__}, load average {os.getloadavg()[0]:.1f}; times in ms, median (25th–75th percentile)")
    print("| case | mmaemu.matmul | inside emulate() | overhead (medians) | overhead (minima) | "
          "median pair difference (µs) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")

    case(f"torch.mm fp32, H100 fp16, {n}³", lambda: mmaemu.matmul(an, bn, h100, input="fp16", threads=th),
         lambda: torch.mm(a, b), args.reps, mode)
    cb = np.ascontiguousarray(np.broadcast_to(bias.numpy(), (n, n)))
    case(f"F.linear fp32 + bias (addmm), {n}³",
         lambda: mmaemu.matmul(an, np.ascontiguousarray(bn).T, h100, input="fp16", c=cb, beta=1.0, threads=th),
         lambda: torch.nn.functional.linear(a, b, bias), args.reps, mode)
    ah, bh = a.half(), b.half()
    ahn, bhn = ah.numpy(), bh.numpy()
    case(f"torch.mm fp16 tensors, {n}³",
         lambda: mmaemu.matmul(ahn, bhn, h100, a_format="fp16", b_format="fp16", c_format="fp16", input="fp16",
                               threads=th),
         lambda: torch.mm(ah, bh), args.reps, mode)
    x3 = torch.randn(8, n // 4, n // 2, generator=gen)
    y3 = torch.randn(8, n // 2, n // 4, generator=gen)
    xs, ys = [x3[i].numpy() for i in range(8)], [y3[i].numpy() for i in range(8)]
    s16, t16 = torch.randn(16, 16, generator=gen), torch.randn(16, 16, generator=gen)
    s16n, t16n = s16.numpy(), t16.numpy()
    case("torch.mm fp32, 16³ (the fixed cost per operation)",
         lambda: mmaemu.matmul(s16n, t16n, h100, input="fp16", threads=th),
         lambda: torch.mm(s16, t16), 10 * args.reps, mode)
    case(f"torch.bmm fp32, 8 x {n // 4}x{n // 4}x{n // 2}",
         lambda: np.stack([mmaemu.matmul(x, y, h100, input="fp16", threads=th) for x, y in zip(xs, ys)]),
         lambda: torch.bmm(x3, y3), args.reps, mode)


if __name__ == "__main__":
    main()
