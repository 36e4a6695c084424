# SPDX-License-Identifier: BSD-3-Clause
"""numpy float64 A @ B under the preload with MMA_DGEMM=ozaki1:S / ozaki2:N
(docs/ozaki.md, docs/shim.md):

  * children run A @ B with libmmaemu preloaded (MMA_MODEL=H100, the int8
    unit) and save the products; this process computes them again through
    the C API (ctypes, mmaemu_dgemm_ex, row-major as numpy calls cblas):
    the bits must be equal;
  * errors against an extended-precision product (numpy longdouble) of the
    papers' matrices (rand - 0.5) exp(phi randn), phi <= 2: with 18 moduli
    within 10x of native dgemm's (this process's, not preloaded); with 8
    moduli and with ozaki1:4 larger than 10x native's;
  * MMA_OZAKI_CHECK=1 with MMA_VERBOSE=1 prints "slice products exact: x of
    y" per call, x = y on the int8 unit;
  * a bad scheme, and a unit that cannot carry one, stop the program with
    exit status 2 and a message saying what works.

Environment: MMAEMU_LIBRARY (libmmaemu.so).
"""
import ctypes
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

SEED = 20250605
N = 96
LIB = os.environ["MMAEMU_LIBRARY"]
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


def matrices(phi, seed):
    rng = np.random.default_rng(seed)
    a = (rng.random((N, N)) - 0.5) * np.exp(phi * rng.standard_normal((N, N)))
    b = (rng.random((N, N)) - 0.5) * np.exp(phi * rng.standard_normal((N, N)))
    return a, b


CHILD = """
import sys, numpy as np
a = np.load(sys.argv[1]); b = np.load(sys.argv[2])
np.save(sys.argv[3], a @ b)
"""


def preloaded(env_extra, *args):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    env.update({"LD_PRELOAD": LIB, "MMA_MODEL": "H100", "OPENBLAS_NUM_THREADS": "1"})
    env.update(env_extra)
    return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True)


def product_under(scheme, a, b, tmp, extra=None):
    pa, pb, pc = (os.path.join(tmp, x) for x in ("a.npy", "b.npy", "c.npy"))
    np.save(pa, a)
    np.save(pb, b)
    r = preloaded({"MMA_DGEMM": scheme, **(extra or {})}, "-c", CHILD, pa, pb, pc)
    if r.returncode != 0:
        print(r.stderr)
        return None, r
    return np.load(pc), r


class Stats(ctypes.Structure):
    _fields_ = [("products", ctypes.c_uint64), ("product_elements", ctypes.c_uint64),
                ("inexact_product_elements", ctypes.c_uint64), ("inexact_outputs", ctypes.c_uint64),
                ("checked", ctypes.c_int)]


class Options(ctypes.Structure):
    _fields_ = [("scheme", ctypes.c_char_p), ("input", ctypes.c_int), ("schedule", ctypes.c_char_p),
                ("threads", ctypes.c_int), ("check", ctypes.c_int)]


def api_product(scheme, a, b):
    lib = ctypes.CDLL(LIB)
    model = ctypes.c_void_p()
    assert lib.mmaemu_model_lookup(b"H100", ctypes.byref(model)) == 0
    opt = Options()
    lib.mmaemu_dgemm_options_init(ctypes.byref(opt))
    opt.scheme = scheme.encode()
    a = np.ascontiguousarray(a)
    b = np.ascontiguousarray(b)
    c = np.zeros((a.shape[0], b.shape[1]))
    dp = ctypes.POINTER(ctypes.c_double)
    lib.mmaemu_dgemm_ex.argtypes = [ctypes.c_void_p, ctypes.c_void_p] + [ctypes.c_int] * 6 + [
        ctypes.c_double, dp, ctypes.c_int, dp, ctypes.c_int, ctypes.c_double, dp, ctypes.c_int, ctypes.c_void_p]
    st = lib.mmaemu_dgemm_ex(model, ctypes.byref(opt), 101, 111, 111, N, N, N, 1.0,
                             a.ctypes.data_as(dp), N, b.ctypes.data_as(dp), N, 0.0, c.ctypes.data_as(dp), N, None)
    lib.mmaemu_last_error.restype = ctypes.c_char_p
    assert st == 0, lib.mmaemu_last_error()
    lib.mmaemu_model_free(model)
    return c


def error(c, a, b):
    exact = a.astype(np.longdouble) @ b.astype(np.longdouble)
    return float(np.max(np.abs(c.astype(np.longdouble) - exact) / (np.abs(a) @ np.abs(b))))


with tempfile.TemporaryDirectory() as tmp:
    for phi in (0.5, 2.0):
        a, b = matrices(phi, SEED + int(10 * phi))
        native = error(a @ b, a, b)
        errs = {}
        for scheme in ("ozaki2:18", "ozaki2:8", "ozaki1:4"):
            c, _ = product_under(scheme, a, b, tmp)
            check(c is not None, f"{scheme} phi {phi}: the child failed")
            if c is None:
                continue
            ref = api_product(scheme, a, b)
            same = np.array_equal(c.view(np.uint64), ref.view(np.uint64))
            check(same, f"{scheme} phi {phi}: preloaded numpy and mmaemu_dgemm_ex differ")
            errs[scheme] = error(c, a, b)
        print(f"phi {phi}: native {native:.3e}, " + ", ".join(f"{s} {e:.3e}" for s, e in errs.items()))
        if len(errs) == 3:
            check(errs["ozaki2:18"] <= 10 * native, f"phi {phi}: ozaki2:18 error {errs['ozaki2:18']} > 10x native")
            check(errs["ozaki2:8"] > 10 * native, f"phi {phi}: ozaki2:8 error not larger")
            check(errs["ozaki2:8"] > errs["ozaki2:18"], f"phi {phi}: fewer moduli, no larger error")
            check(errs["ozaki1:4"] > 10 * native, f"phi {phi}: ozaki1:4 error not larger")

    # The exactness check's report.
    a, b = matrices(1.0, SEED)
    _, r = product_under("ozaki2:14", a, b, tmp, {"MMA_OZAKI_CHECK": "1", "MMA_VERBOSE": "1"})
    m = re.search(r"dgemm 96x96x96: slice products exact: (\d+) of (\d+)", r.stderr)
    check(m is not None and m.group(1) == m.group(2) == str(14 * N * N), "ozaki2:14 check report: " + r.stderr)
    _, r = product_under("ozaki1:6", a, b, tmp, {"MMA_OZAKI_CHECK": "1", "MMA_VERBOSE": "1",
                                                 "MMA_INPUT_FORMAT": "e4m3"})
    m = re.search(r"slice products exact: (\d+) of (\d+)", r.stderr)
    check(m is not None and m.group(2) == str(21 * N * N), "ozaki1:6 on e4m3 check report: " + r.stderr)

    # Refusals.
    for extra, want in (({"MMA_DGEMM": "ozaki3:2"}, "ozaki1:S"),
                        ({"MMA_DGEMM": "ozaki2:14", "MMA_INPUT_FORMAT": "fp16"}, "input int8 works"),
                        ({"MMA_DGEMM": "ozaki1:7", "MMA_MODEL": "MI300X", "MMA_INPUT_FORMAT": "fp32"},
                         "FMA chain"),
                        ({"MMA_DGEMM": "ozaki2:14", "MMA_MODEL": "V100"}, "units that can carry scheme I"),
                        ({"MMA_OZAKI_CHECK": "1"}, "set MMA_DGEMM=ozaki1:S or ozaki2:N")):
        r = preloaded(extra, "-c", "import numpy as np; np.ones((4,4)) @ np.ones((4,4))")
        check(r.returncode == 2 and want in r.stderr, f"{extra}: exit {r.returncode}, {r.stderr!r}")

print(f"numpy_ozaki_test: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
