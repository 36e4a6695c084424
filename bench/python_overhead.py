#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The cost of the Python layer: mmaemu.matmul against the same product
through the C API (mmaemu_gemm, called with ctypes), and numpy's float32
product (the system OpenBLAS) in the same run as the reference point.

    PYTHONPATH=build/python python3 bench/python_overhead.py [--reps N]

Prints, for 1024 x 1024 x 1024 on H100 fp16 (float32 operands, fp16 input
RNE, fp32 output) the best time of each and the Python layer's overhead, and
for a 16 x 8 x 16 product (one instruction's shape) the time per call.
"""
import argparse
import ctypes
import sys
import time

import numpy as np

import mmaemu


def best(f, reps):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return min(times)


def c_api_gemm(lib, model, a, b, c):
    """mmaemu_gemm, row-major, float32 storage, fp16 input (RNE), fp32 output."""
    opt = (ctypes.c_int * 9)(1, 1, 1, 4, 1, 0, 0, 0, 0)
    m, k = a.shape
    n = b.shape[1]
    args = (model, opt, 101, 111, 111, m, n, k, 1.0, a.ctypes.data, k, b.ctypes.data, n, 0.0, c.ctypes.data, n)
    return lambda: lib.mmaemu_gemm(*args)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--small-calls", type=int, default=20000)
    ap.add_argument("--skip-large", action="store_true")
    args = ap.parse_args()
    lib = ctypes.CDLL(__import__("subprocess").check_output(
        [sys.executable, "-m", "mmaemu", "library"], text=True).strip())
    lib.mmaemu_model_lookup.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
    lib.mmaemu_gemm.argtypes = [ctypes.c_void_p, ctypes.c_void_p] + [ctypes.c_int] * 6 + [
        ctypes.c_double, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_double,
        ctypes.c_void_p, ctypes.c_int]
    model = ctypes.c_void_p()
    assert lib.mmaemu_model_lookup(b"H100", ctypes.byref(model)) == 0
    h100 = mmaemu.Model("H100")
    rng = np.random.default_rng(1)
    sizes = [((1024, 1024, 1024), args.reps)] * (not args.skip_large) + [((16, 8, 16), None)]
    for (m, n, k), reps in sizes:
        a = rng.standard_normal((m, k)).astype(np.float32)
        b = rng.standard_normal((k, n)).astype(np.float32)
        c = np.empty((m, n), np.float32)
        capi = c_api_gemm(lib, model, a, b, c)
        py = lambda: mmaemu.matmul(a, b, h100, input="fp16")  # noqa: E731
        blas = lambda: a @ b  # noqa: E731
        assert capi() == 0 and np.array_equal(py().view(np.uint32), c.view(np.uint32))
        if reps:  # large: best of reps, interleaved
            runs = [[best(f, 1) for f in (capi, py, blas)] for _ in range(reps)]  # interleaved: same load
            t_c, t_py, t_blas = (min(r[i] for r in runs) for i in range(3))
            print(f"{m}x{n}x{k} H100 fp16: C API {t_c:.4f} s, mmaemu.matmul {t_py:.4f} s "
                  f"(Python layer {100 * (t_py / t_c - 1):+.2f} %), OpenBLAS sgemm {t_blas:.4f} s "
                  f"(emulation / OpenBLAS = {t_c / t_blas:.1f})")
        else:  # small: time per call over many calls, best of 5 batches
            calls = args.small_calls
            fs = (("capi", capi), ("py", py), ("blas", blas))
            runs = [{name: best(lambda: [f() for _ in range(calls)], 1) for name, f in fs} for _ in range(7)]
            per = {name: min(r[name] for r in runs) / calls * 1e6 for name, _ in fs}  # interleaved batches
            print(f"{m}x{n}x{k} H100 fp16 per call: C API via ctypes {per['capi']:.2f} us, mmaemu.matmul "
                  f"{per['py']:.2f} us (Python layer +{per['py'] - per['capi']:.2f} us), numpy sgemm "
                  f"{per['blas']:.2f} us")


if __name__ == "__main__":
    main()
