# SPDX-License-Identifier: BSD-3-Clause
"""mmaemu.matmul on the integer units (docs/models.md §11, docs/python.md):
int8/uint8 (and int4/uint4 given as int8/uint8 values in range) in, int32
out, bits equal to exact integer arithmetic with the unit's overflow rule."""
import numpy as np
import pytest

import mmaemu


def exact(a, b, c=None):
    d = a.astype(np.int64) @ b.astype(np.int64)
    return d if c is None else d + c.astype(np.int64)


def wrap32(x):
    return ((np.asarray(x, dtype=np.int64) + 2**31) % 2**32 - 2**31).astype(np.int32)


@pytest.mark.parametrize("inp,dtype,lo,hi,model", [("int8", np.int8, -128, 127, "H100"),
                                                    ("uint8", np.uint8, 0, 255, "H100"),
                                                    ("int4", np.int8, -8, 7, "A100"),
                                                    ("uint4", np.uint8, 0, 15, "A100")])
def test_matmul_int_wraps_like_int32(inp, dtype, lo, hi, model):
    rng = np.random.default_rng(7)
    for m, n, k in [(3, 5, 7), (17, 9, 64), (2, 33, 301)]:
        a = rng.integers(lo, hi + 1, size=(m, k)).astype(dtype)
        b = rng.integers(lo, hi + 1, size=(k, n)).astype(dtype)
        d = mmaemu.matmul(a, b, model, input=inp)
        assert d.dtype == np.int32
        np.testing.assert_array_equal(d, wrap32(exact(a, b)))
        # Transposed (Fortran-order) operands, and C added.
        c = rng.integers(-2**31, 2**31, size=(m, n)).astype(np.int32)
        d = mmaemu.matmul(np.asfortranarray(a), np.asfortranarray(b), model, input=inp, c=c)
        np.testing.assert_array_equal(d, wrap32(exact(a, b, c)))


def test_matmul_int_saturate_and_mixed_signedness():
    a = np.full((1, 32), 127, dtype=np.int8)
    b = np.full((32, 1), 127, dtype=np.int8)
    c = np.array([[2**31 - 100]], dtype=np.int32)
    assert mmaemu.matmul(a, b, "H100", input="int8", c=c)[0, 0] == wrap32(2**31 - 100 + 32 * 127 * 127)
    assert mmaemu.matmul(a, b, "H100", input="int8", c=c, saturate=True)[0, 0] == 2**31 - 1
    bu = np.full((32, 1), 255, dtype=np.uint8)
    assert mmaemu.matmul(a, bu, "H100", input="int8", b_format="uint8")[0, 0] == 32 * 127 * 255


def test_matmul_int_refusals():
    a = np.ones((2, 2), dtype=np.int8)
    with pytest.raises(Exception, match="satfinite"):
        mmaemu.matmul(a, a, "MI300X", input="int8", saturate=True)
    with pytest.raises(ValueError, match="4-bit range"):
        mmaemu.matmul(np.full((2, 2), 9, dtype=np.int8), a, "A100", input="int4")
    with pytest.raises(TypeError, match="int8 array"):
        mmaemu.matmul(a.astype(np.float32), a, "H100", input="int8")
    with pytest.raises(Exception, match="s4 x s4"):
        mmaemu.matmul(a, a, "H100", input="int4")
