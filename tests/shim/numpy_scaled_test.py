# SPDX-License-Identifier: BSD-3-Clause
"""numpy float32 products under MMA_MODEL + MMA_INPUT_FORMAT=<block-scaled
policy> + LD_PRELOAD=libmmaemu.so give the bits of the C API's quantise-then-
block-scaled GEMM, composed here from its parts (mmaemu_quantize_mx, or
mmaemu_nvfp4_global_scale + mmaemu_quantize_nvfp4, then
mmaemu_gemm_block_scaled) on the same operands; and those bits differ from
another block-scaled policy's (the check can fail)."""
import ctypes
import os
import sys

import numpy as np

lib = ctypes.CDLL(os.environ["MMAEMU_LIBRARY"])
model = ctypes.c_void_p()
assert lib.mmaemu_model_from_env(ctypes.byref(model)) == 0
POLICY = os.environ["MMA_INPUT_FORMAT"]
OTHER = {"nvfp4": "mxfp4", "mxfp8": "mxfp8:e5m2"}[POLICY]
ACC_GPU_BLAS = 0


class Desc(ctypes.Structure):
    _fields_ = [("a_format", ctypes.c_int), ("b_format", ctypes.c_int), ("scale_format", ctypes.c_int),
                ("block_size", ctypes.c_int), ("unit", ctypes.c_int), ("fp4_packed", ctypes.c_int),
                ("a_global_scale", ctypes.c_float), ("b_global_scale", ctypes.c_float),
                ("accumulate", ctypes.c_int), ("narrow_subnormals_normalize", ctypes.c_int)]


P = ctypes.c_void_p
lib.mmaemu_quantize_mx.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_size_t, P, P, P]
lib.mmaemu_nvfp4_global_scale.argtypes = [ctypes.c_size_t, P, P, P]
lib.mmaemu_quantize_nvfp4.argtypes = [ctypes.c_size_t, P, ctypes.c_float, P, P]
lib.mmaemu_gemm_block_scaled.argtypes = [P, P] + [ctypes.c_int] * 6 + [ctypes.c_float] + [P, ctypes.c_int] * 4 + [
    ctypes.c_float, P, ctypes.c_int]


def quantise(policy, rows):
    """Each row of `rows` (k along the row), padded to whole blocks: codes, scales, decode scale."""
    desc = Desc()
    assert lib.mmaemu_parse_block_scaled_policy(policy.encode(), ctypes.byref(desc)) == 0
    bs = desc.block_size
    r, k = rows.shape
    kp = -(-k // bs) * bs
    codes = np.zeros((r, kp), np.uint8)
    scales = np.zeros((r, kp // bs), np.uint8)
    rows = np.ascontiguousarray(rows, np.float32)
    decode = ctypes.c_float(1.0)
    if desc.block_size == 16:  # nvfp4: one global scale per tensor
        encode = ctypes.c_float()
        assert lib.mmaemu_nvfp4_global_scale(rows.size, rows.ctypes.data, ctypes.byref(encode),
                                             ctypes.byref(decode)) == 0
    for i in range(r):
        x = rows[i]
        if desc.block_size == 16:
            rc = lib.mmaemu_quantize_nvfp4(k, x.ctypes.data, encode, codes[i].ctypes.data, scales[i].ctypes.data)
        else:
            rc = lib.mmaemu_quantize_mx(desc.a_format, bs, k, x.ctypes.data, codes[i].ctypes.data,
                                        scales[i].ctypes.data)
        assert rc == 0
    return desc, codes, scales, decode.value


def api_matmul(policy, a, b):
    """C = a @ b: quantise a's rows and b's columns, then the block-scaled GEMM (row-major)."""
    desc, qa, sa, ga = quantise(policy, a)
    _, qb, sb, gb = quantise(policy, b.T)
    desc.a_global_scale, desc.b_global_scale, desc.accumulate = ga, gb, ACC_GPU_BLAS
    m, kp = qa.shape
    n = qb.shape[0]
    c = np.zeros((m, n), np.float32)
    rc = lib.mmaemu_gemm_block_scaled(model, ctypes.byref(desc), 101, 111, 112, m, n, kp, 1.0, qa.ctypes.data, kp,
                                      sa.ctypes.data, sa.shape[1], qb.ctypes.data, kp, sb.ctypes.data, sb.shape[1],
                                      0.0, c.ctypes.data, n)
    assert rc == 0, lib.mmaemu_last_error
    return c


rng = np.random.default_rng(2026)
# k = 133: not a multiple of 16 or 32 (the last block is short).
A = (rng.standard_normal((37, 133)) * 2.0 ** rng.integers(-4, 5, (37, 133))).astype(np.float32)
B = (rng.standard_normal((133, 29)) * 2.0 ** rng.integers(-4, 5, (133, 29))).astype(np.float32)
failures = checks = 0
for name, got, want in [("A @ B", A @ B, api_matmul(POLICY, A, B)),
                        ("A @ A.T", A @ A.T, api_matmul(POLICY, A, A.T)),
                        ("B.T @ A.T", B.T @ A.T, api_matmul(POLICY, B.T, A.T))]:
    checks += 1
    diff = got.view(np.uint32) != want.view(np.uint32)
    if diff.any():
        failures += 1
        i = tuple(np.argwhere(diff)[0])
        print(f"{POLICY} {name}: {np.count_nonzero(diff)} elements differ, first at {i}: numpy "
              f"{got.view(np.uint32)[i]:#010x} api {want.view(np.uint32)[i]:#010x}")
# The comparison can fail: another policy's bits differ from these.
checks += 1
if np.array_equal(api_matmul(OTHER, A, B).view(np.uint32), (A @ B).view(np.uint32)):
    failures += 1
    print(f"{POLICY} gives the bits of {OTHER}: the check cannot tell policies apart")
print(f"{checks - failures} passed, {failures} failed")
sys.exit(1 if failures else 0)
