# SPDX-License-Identifier: BSD-3-Clause
"""numpy float32 products under MMA_MODEL + LD_PRELOAD=libmmaemu.so give the
bits of the libmmaemu C API (called through ctypes on the same operands)."""
import ctypes
import os
import sys

import numpy as np

lib = ctypes.CDLL(os.environ["MMAEMU_LIBRARY"])
model = ctypes.c_void_p()
assert lib.mmaemu_model_from_env(ctypes.byref(model)) == 0
policy = os.environ.get("MMA_INPUT_FORMAT", "").encode() or None
schedule = os.environ.get("MMA_SCHEDULE", "").encode() or None  # NULL: chain
lib.mmaemu_sgemm_scheduled.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p] + [ctypes.c_int] * 6 + [
    ctypes.c_float, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_int,
    ctypes.c_float, ctypes.c_void_p, ctypes.c_int]


def api_matmul(a, b):
    """C = a @ b on the model through the C API (row-major, contiguous)."""
    a = np.ascontiguousarray(a, dtype=np.float32)
    b = np.ascontiguousarray(b, dtype=np.float32)
    m, k = a.shape
    n = b.shape[1]
    c = np.zeros((m, n), dtype=np.float32)
    rc = lib.mmaemu_sgemm_scheduled(model, policy, schedule, 101, 111, 111, m, n, k, 1.0, a.ctypes.data, k,
                                    b.ctypes.data, n, 0.0, c.ctypes.data, n)
    assert rc == 0
    return c


rng = np.random.default_rng(2026)
A = (rng.standard_normal((67, 133)) * 2.0 ** rng.integers(-4, 5, (67, 133))).astype(np.float32)
B = (rng.standard_normal((133, 45)) * 2.0 ** rng.integers(-4, 5, (133, 45))).astype(np.float32)
failures = 0
checks = 0
for name, got, want in [
        ("A @ B", A @ B, api_matmul(A, B)),
        ("np.dot(A, B)", np.dot(A, B), api_matmul(A, B)),
        ("A @ A.T", A @ A.T, api_matmul(A, A.T)),
        ("B.T @ A.T", B.T @ A.T, api_matmul(B.T, A.T))]:
    checks += 1
    bad = np.count_nonzero(got.view(np.uint32) != want.view(np.uint32))
    if bad:
        failures += 1
        i = np.argwhere(got.view(np.uint32) != want.view(np.uint32))[0]
        print(f"{name}: {bad} elements differ, first at {tuple(i)}: numpy "
              f"{got.view(np.uint32)[tuple(i)]:#010x} api {want.view(np.uint32)[tuple(i)]:#010x}")
# The model changes the numbers: fp32 products would differ from these.
checks += 1
if np.array_equal((A.astype(np.float64) @ B.astype(np.float64)).astype(np.float32).view(np.uint32),
                  (A @ B).view(np.uint32)):
    failures += 1
    print("the product equals the fp64 product rounded: is the shim active?")
print(f"{checks - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
