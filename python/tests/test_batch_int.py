# SPDX-License-Identifier: BSD-3-Clause
"""mmaemu.dot and mmaemu.tile on the integer units (docs/batch.md, docs/models.md §11):
int8/uint8 (int4/uint4 as values in range) in, int32 out, against exact int64
arithmetic with the unit's overflow rule written here, and against
mmaemu.matmul on the same operands; 1 and 2 threads; the refusals."""
import numpy as np
import pytest

import mmaemu

INT32_MIN, INT32_MAX = -2**31, 2**31 - 1


def wrap32(x):
    return ((np.asarray(x, dtype=np.int64) + 2**31) % 2**32 - 2**31).astype(np.int32)


def chain(a, b, c, step, saturate):
    """c + sum a*b along the last axis, one instruction of `step` products at a time,
    each wrapping modulo 2^32 or (saturate) clamped once (sat_point=instruction)."""
    t = np.asarray(c, dtype=np.int64).copy()
    p = a.astype(np.int64) * b.astype(np.int64)
    for s in range(0, p.shape[-1], step):
        t = t + p[..., s:s + step].sum(axis=-1)
        t = np.clip(t, INT32_MIN, INT32_MAX) if saturate else wrap32(t).astype(np.int64)
    return t.astype(np.int32)


CASES = [("int8", "int8", np.int8, np.int8, -128, 127, -128, 127, "H100"),
         ("uint8", "uint8", np.uint8, np.uint8, 0, 255, 0, 255, "H100"),
         ("int8", "uint8", np.int8, np.uint8, -128, 127, 0, 255, "H100"),
         ("int4", "int4", np.int8, np.int8, -8, 7, -8, 7, "A100"),
         ("uint4", "int4", np.uint8, np.int8, 0, 15, -8, 7, "A100"),
         ("int8", "int8", np.int8, np.int8, -128, 127, -128, 127, "MI300X")]


@pytest.mark.parametrize("ia,ib,ta,tb,alo,ahi,blo,bhi,model", CASES)
def test_dot_int_equals_int64_chain_and_matmul(ia, ib, ta, tb, alo, ahi, blo, bhi, model):
    rng = np.random.default_rng(11)
    step = mmaemu.Model(model).tile_shape(ia)[2]
    sats = [False] if model.startswith("MI") else [False, True]
    for n, k in [(1, 1), (17, step), (40, 3 * step + 5), (5, 700)]:
        a = rng.integers(alo, ahi + 1, size=(n, k)).astype(ta)
        b = rng.integers(blo, bhi + 1, size=(n, k)).astype(tb)
        a[0], b[0] = ahi if alo == 0 else alo, bhi  # extreme products
        c = rng.integers(INT32_MIN, INT32_MAX, size=n, endpoint=True).astype(np.int32)
        c[: n // 2] = INT32_MAX - rng.integers(0, 1000, size=n // 2)
        for saturate in sats:
            d1 = mmaemu.dot(model, a, b, c, input=ia, b_format=ib, saturate=saturate, threads=1)
            d2 = mmaemu.dot(model, a, b, c, input=ia, b_format=ib, saturate=saturate, threads=2)
            assert d1.dtype == np.int32 and d1.shape == (n,)
            np.testing.assert_array_equal(d1, chain(a, b, c, step, saturate))
            np.testing.assert_array_equal(d1, d2)
            # The GEMM of each row alone: the same bits.
            for i in range(min(n, 4)):
                g = mmaemu.matmul(a[i:i + 1], b[i][:, None], model, input=ia, b_format=ib, c=c[i:i + 1, None],
                                  saturate=saturate)
                assert g[0, 0] == d1[i]
    one = mmaemu.dot(model, a[0], b[0], input=ia, b_format=ib)
    assert one.shape == () and one == chain(a[:1], b[:1], [0], step, False)[0]


@pytest.mark.parametrize("ia,ib,ta,tb,alo,ahi,blo,bhi,model", CASES)
def test_tile_int_equals_matmul(ia, ib, ta, tb, alo, ahi, blo, bhi, model):
    rng = np.random.default_rng(5)
    m, n, k = mmaemu.Model(model).tile_shape(ia, "int32")
    N = 9
    a = rng.integers(alo, ahi + 1, size=(N, m, k)).astype(ta)
    b = rng.integers(blo, bhi + 1, size=(N, k, n)).astype(tb)
    c = rng.integers(INT32_MIN, INT32_MAX, size=(N, m, n), endpoint=True).astype(np.int32)
    for saturate in ([False] if model.startswith("MI") else [False, True]):
        d = mmaemu.tile(model, a, b, c, input=ia, b_format=ib, saturate=saturate, threads=2)
        assert d.dtype == np.int32 and d.shape == (N, m, n)
        for t in range(N):
            want = chain(np.repeat(a[t][:, None, :], n, axis=1), np.repeat(b[t].T[None, :, :], m, axis=0), c[t], k,
                         saturate)
            np.testing.assert_array_equal(d[t], want)
            np.testing.assert_array_equal(d[t], mmaemu.matmul(a[t], b[t], model, input=ia, b_format=ib, c=c[t],
                                                              saturate=saturate))
        single = mmaemu.tile(model, a[0], b[0], c[0], input=ia, b_format=ib, saturate=saturate)
        np.testing.assert_array_equal(single, d[0])


def test_dot_int_extremes_wrap_and_clamp():
    k = 1 << 16
    a = np.full((2, k), -128, dtype=np.int8)
    b = np.full((2, k), -128, dtype=np.int8)
    b[1] = 127  # the other sign: overflow downwards
    c = np.array([INT32_MAX - 5, INT32_MIN + 5], dtype=np.int32)
    np.testing.assert_array_equal(mmaemu.dot("H100", a, b, c, input="int8"), chain(a, b, c, 32, False))
    np.testing.assert_array_equal(mmaemu.dot("H100", a, b, c, input="int8", saturate=True), [INT32_MAX, INT32_MIN])


def test_integer_batch_refusals():
    a = np.ones((2, 32), dtype=np.int8)
    with pytest.raises(mmaemu.Error, match="saturate = 0 works"):
        mmaemu.dot("MI300X", a, a, input="int8", saturate=True)
    m, n, k = mmaemu.Model("MI300X").tile_shape("int8")
    t = np.ones((m, k), dtype=np.int8)
    with pytest.raises(mmaemu.Error, match="saturate = 0 works"):
        mmaemu.tile("MI300X", t, np.ones((k, n), dtype=np.int8), input="int8", saturate=True)
    with pytest.raises(mmaemu.UnsupportedError, match="s8 x s8"):
        mmaemu.dot("H100", a, a, input="int4")
    with pytest.raises(ValueError, match="saturate applies to the integer inputs"):
        mmaemu.dot("H100", a.astype(np.float32), a.astype(np.float32), saturate=True)
    with pytest.raises(ValueError, match="int32 results"):
        mmaemu.dot("H100", a, a, input="int8", output="fp32")
    with pytest.raises(ValueError, match="block_size does not apply"):
        mmaemu.dot("H100", a, a, input="int8", block_size=32)
    with pytest.raises(TypeError, match="int8 array"):
        mmaemu.dot("H100", a.astype(np.uint8), a, input="int8")
    with pytest.raises(ValueError, match="4-bit range"):
        mmaemu.dot("A100", a * 9, a, input="int4")
    with pytest.raises(ValueError, match="b must have a's shape"):
        mmaemu.dot("H100", a, a[:, :3], input="int8")
    with pytest.raises(TypeError, match="int32"):
        mmaemu.dot("H100", a, a, np.zeros(2, dtype=np.float32), input="int8")
    with pytest.raises(ValueError, match="must have shape"):
        mmaemu.tile("H100", a, a.T, input="int8")
    with pytest.raises(ValueError, match="int32"):
        mmaemu.Model("H100").tile_shape("int8", "fp16")
