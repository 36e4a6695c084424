# SPDX-License-Identifier: BSD-3-Clause
"""Shared fixtures: the C API through ctypes (libmmaemu.so, an independent way
into the same library), the CLI, random operands of every format."""
import ctypes
import os
import subprocess
import sys

import numpy as np
import pytest

import mmaemu

LIBRARY = os.environ.get("MMAEMU_LIBRARY") or subprocess.run(
    [sys.executable, "-m", "mmaemu", "library"], capture_output=True, text=True, check=True).stdout.strip()
CLI = os.environ.get("MMAEMU_CLI", "mmaemu")

ROUNDINGS = ["rne", "rz", "rd", "ru", "rna"]


class GemmOptions(ctypes.Structure):
    """mmaemu_gemm_options (include/mmaemu/mmaemu.h), field for field."""
    _fields_ = [(name, ctypes.c_int) for name in (
        "a_storage", "b_storage", "c_storage", "input", "output", "input_rounding", "saturate", "accumulate",
        "threads")] + [("schedule", ctypes.c_char_p)]


class CApi:
    """The C API of libmmaemu.so, called directly."""

    def __init__(self, path):
        self.lib = lib = ctypes.CDLL(path)  # RTLD_LOCAL: numpy's BLAS is not affected
        lib.mmaemu_last_error.restype = ctypes.c_char_p
        lib.mmaemu_model_lookup.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
        lib.mmaemu_model_free.argtypes = [ctypes.c_void_p]
        lib.mmaemu_parse_policy.argtypes = [ctypes.c_char_p, ctypes.c_void_p]
        lib.mmaemu_gemm.argtypes = [ctypes.c_void_p, ctypes.c_void_p] + [ctypes.c_int] * 6 + [
            ctypes.c_double, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_double,
            ctypes.c_void_p, ctypes.c_int]
        lib.mmaemu_tile.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int] + [ctypes.c_void_p] * 4
        lib.mmaemu_convert.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p,
                                       ctypes.c_size_t, ctypes.c_int, ctypes.c_int]

    def check(self, status):
        assert status == 0, self.lib.mmaemu_last_error().decode()

    def model(self, name):
        h = ctypes.c_void_p()
        self.check(self.lib.mmaemu_model_lookup(name.encode(), ctypes.byref(h)))
        return h

    def gemm(self, model, options, a, b, c, alpha, beta, trans_a=False, schedule=None):
        """Row-major gemm; options: the 9 ints of mmaemu_gemm_options; schedule None: chain."""
        opt = GemmOptions(*options, schedule.encode() if schedule else None)
        m, k = (a.shape[1], a.shape[0]) if trans_a else a.shape
        n = b.shape[1]
        h = self.model(model)
        try:
            self.check(self.lib.mmaemu_gemm(h, ctypes.byref(opt), 101, 112 if trans_a else 111, 111, m, n, k, alpha,
                                            a.ctypes.data, a.shape[1], b.ctypes.data, n, beta, c.ctypes.data, n))
        finally:
            self.lib.mmaemu_model_free(h)
        return c

    def tile(self, model, fin, fout, a, b, c):
        d = np.empty_like(c)
        h = self.model(model)
        try:
            self.check(self.lib.mmaemu_tile(h, fin, fout, a.ctypes.data, b.ctypes.data, c.ctypes.data,
                                            d.ctypes.data))
        finally:
            self.lib.mmaemu_model_free(h)
        return d

    def convert(self, fin, fout, x, dtype, rounding, saturate):
        y = np.empty(x.shape, dtype=dtype)
        self.check(self.lib.mmaemu_convert(fin, fout, x.ctypes.data, y.ctypes.data, x.size, rounding, saturate))
        return y


@pytest.fixture(scope="session")
def capi():
    return CApi(LIBRARY)


FORMAT_ID = {name: i for i, name in enumerate(mmaemu.formats())}


def random_codes(fmt, shape, rng, magnitude=None):
    """Random finite values of format fmt in its storage (codes for the narrow formats)."""
    x = rng.standard_normal(shape) * (magnitude or 1.0)
    return mmaemu.convert(x, fmt, saturate=True)


def bits(x):
    """Bit patterns of an array, for exact comparison (NaNs included)."""
    x = np.ascontiguousarray(x)
    return x.view({8: np.uint64, 4: np.uint32, 2: np.uint16, 1: np.uint8}[x.dtype.itemsize])


def assert_same_bits(got, want, what):
    g, w = bits(got), bits(want)
    bad = np.flatnonzero(g.ravel() != w.ravel())
    assert bad.size == 0, (f"{what}: {bad.size} elements differ, first at {bad[0]}: "
                           f"got {hex(int(g.ravel()[bad[0]]))}, want {hex(int(w.ravel()[bad[0]]))}")
