# SPDX-License-Identifier: BSD-3-Clause
"""dot() and stacks of tile(): the batched instructions equal single tile()
calls bit for bit, on every unit of every model, and the block-scaled
units with their scales; bad arguments are refused with messages."""
import zlib

import numpy as np
import pytest

import mmaemu
from conftest import assert_same_bits, random_codes

UNITS = [(name, u["input"], u["output"]) for name in mmaemu.models() for u in mmaemu.Model(name).units
         if u["gemm_default"]]


@pytest.mark.parametrize("model,fin,fout", UNITS, ids=[f"{m}-{i}-{o}" for m, i, o in UNITS])
def test_tile_stack_and_dots_equal_single_tiles(model, fin, fout):
    rng = np.random.default_rng(zlib.crc32(f"batch {model} {fin} {fout}".encode()))
    m, n, k = mmaemu.Model(model).tile_shape(fin, fout)
    count = 5
    a = random_codes(fin, (count, m, k), rng)
    b = random_codes(fin, (count, k, n), rng)
    c = random_codes(fout, (count, m, n), rng)
    stack = mmaemu.tile(model, a, b, c, input=fin, output=fout, threads=2)
    for t in range(count):
        assert_same_bits(stack[t], mmaemu.tile(model, a[t], b[t], c[t], input=fin, output=fout),
                         f"{model} {fin}->{fout} tile {t}")
    # One dot product per element of tile 0: row i of A, column j of B, C[i, j].
    da = np.repeat(a[0], n, axis=0)                 # row i, n times
    db = np.tile(np.ascontiguousarray(b[0].T), (m, 1))  # column j, for each i
    d = mmaemu.dot(model, da, db, c[0].ravel(), input=fin, output=fout)
    assert_same_bits(d, stack[0].ravel(), f"{model} {fin}->{fout} dots")


def test_dot_shapes_and_errors():
    a = np.ones((3, 16), np.float16)
    d = mmaemu.dot("H100", a, a)
    assert d.shape == (3,) and d.dtype == np.float32 and np.all(d == 16)
    one = mmaemu.dot("H100", a[0], a[0], np.array(1.0, np.float32))
    assert one.shape == () and one == 17
    longer = mmaemu.dot("H100", np.ones((2, 100), np.float16), np.ones((2, 100), np.float16))
    assert np.all(longer == 100)
    with pytest.raises(ValueError, match="b must have shape"):
        mmaemu.dot("H100", a, a[:, :8])
    with pytest.raises(ValueError, match="c must have shape"):
        mmaemu.dot("H100", a, a, np.zeros(2, np.float32))
    with pytest.raises(mmaemu.UnknownModelError):
        mmaemu.dot("H1000", a, a)
    with pytest.raises(mmaemu.UnsupportedError):
        mmaemu.dot("V100", a, a, input="bf16")
    with pytest.raises(ValueError, match="3-D stack"):
        mmaemu._mmaemu.tile_batch("H100", a, a)


def test_block_scaled_dots_and_tiles():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((6, 64)).astype(np.float32)
    y = rng.standard_normal((6, 64)).astype(np.float32)
    ca, sa = mmaemu.quantize_mx(x, "e4m3")
    cb, sb = mmaemu.quantize_mx(y, "e4m3")
    d = mmaemu.dot("B200", ca, cb, a_format="e4m3", sa=sa, sb=sb)
    # Each dot product is the 1 x 1 block-scaled GEMM of its row and column.
    for i in range(6):
        g = mmaemu.gemm_block_scaled(ca[i:i + 1], sa[i:i + 1], np.ascontiguousarray(cb[i:i + 1].T),
                                     np.ascontiguousarray(sb[i:i + 1].T), "B200", a_format="e4m3")
        assert_same_bits(d[i], g[0, 0], f"mxfp8 dot {i}")
    # A stack of tiles equals single ones.
    m, n, k = 128, 8, 32
    a = rng.integers(0, 0x7F, (3, m, k), dtype=np.uint8)
    b = rng.integers(0, 0x7F, (3, k, n), dtype=np.uint8)
    sa3 = np.full((3, m, 1), 0x7F, np.uint8)
    sb3 = np.full((3, 1, n), 0x80, np.uint8)
    stack = mmaemu.tile("B200", a, b, a_format="e4m3", sa=sa3, sb=sb3, block_size=32)
    for t in range(3):
        one = mmaemu.tile("B200", a[t], b[t], a_format="e4m3", sa=sa3[t], sb=sb3[t], block_size=32)
        assert_same_bits(stack[t], one, f"mxfp8 tile {t}")
    with pytest.raises(ValueError, match="sa must have shape"):
        mmaemu.dot("B200", ca, cb, a_format="e4m3", sa=sa[:, :1], sb=sb)
    with pytest.raises(mmaemu.UnsupportedError):
        mmaemu.dot("H100", ca, cb, a_format="e4m3", sa=sa, sb=sb)


def test_distinguish():
    r = mmaemu.distinguish("H100", "B200-RN", samples=20000)
    assert r["found"] and r["bound"] is None
    s = r["shortest"]
    d = s["d"]
    assert d["H100"] != d["B200-RN"]
    # Re-evaluated with dot(): the fp32 patterns as values, converted to fp16.
    a = mmaemu.convert(np.array(s["a"], np.uint32).view(np.float32), "fp16")
    b = mmaemu.convert(np.array(s["b"], np.uint32).view(np.float32), "fp16")
    c = np.array(s["c"], np.uint32).view(np.float32)
    for model in ("H100", "B200-RN"):
        got = mmaemu.dot(model, a, b, c, input="fp16")
        assert int(np.asarray(got).view(np.uint32)) == d[model]
    same = mmaemu.distinguish("MI300X", "gfx942", samples=5000)
    assert not same["found"] and 0 < same["bound"] < 0.01 and "none found in 5000 samples" in same["report"]
    assert same["lone_units"] == [] and same["only_formats"] == {"MI300X": []}
    # T4's m16n8k8 units agree with A100's; its m8n8k4 unit, which A100 lacks, does not.
    t4 = mmaemu.distinguish("T4", "A100", samples=5000)
    assert not t4["found"] and t4["only_formats"] == {"T4": [], "A100": ["bf16->fp32", "tf32->fp32", "fp64->fp64"]}
    (lone,) = t4["lone_units"]
    assert lone["a"] == "T4@mma.sync.m8n8k4" and lone["b"] == "A100" and lone["k"] == 16 and lone["found"]
    s = lone["shortest"]
    a = mmaemu.convert(np.array(s["a"], np.uint32).view(np.float32), "fp16")
    b = mmaemu.convert(np.array(s["b"], np.uint32).view(np.float32), "fp16")
    c = np.array(s["c"], np.uint32).view(np.float32)
    for model in ("T4@mma.sync.m8n8k4", "A100"):
        got = mmaemu.dot(model, a, b, c, input="fp16")
        assert int(np.asarray(got).view(np.uint32)) == s["d"][model]
    assert s["d"]["T4@mma.sync.m8n8k4"] != s["d"]["A100"]
    with pytest.raises(ValueError, match="unknown distribution"):
        mmaemu.distinguish("H100", "A100", distributions=["gauss"])
    with pytest.raises(mmaemu.UnsupportedError):
        mmaemu.distinguish("V100", "H100", input="bf16")
