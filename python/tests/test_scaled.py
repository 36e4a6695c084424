# SPDX-License-Identifier: BSD-3-Clause
"""The scaled GEMMs and quantisers (fine-grained fp8, block-scaled formats)
bit for bit against the C API called directly, and their errors."""
import ctypes

import numpy as np
import pytest

import mmaemu
from conftest import FORMAT_ID, assert_same_bits

F = FORMAT_ID
P = ctypes.c_void_p


class Fp8ScaledOptions(ctypes.Structure):
    """mmaemu_fp8_scaled_options (include/mmaemu/mmaemu.h)."""
    _fields_ = [(name, ctypes.c_int) for name in ("format", "block_k", "block_n", "b_trans", "threads")]


class BlockScaleDesc(ctypes.Structure):
    """mmaemu_block_scale_desc (include/mmaemu/mmaemu.h)."""
    _fields_ = [(name, ctypes.c_int) for name in (
        "a_format", "b_format", "scale_format", "block_size", "unit", "fp4_packed")] + [
        ("a_global_scale", ctypes.c_float), ("b_global_scale", ctypes.c_float), ("accumulate", ctypes.c_int),
        ("narrow_subnormals_normalize", ctypes.c_int)]


@pytest.fixture(scope="module")
def lib(capi):
    lib = capi.lib
    lib.mmaemu_gemm_fp8_scaled.argtypes = [P, P] + [ctypes.c_int] * 3 + [P, ctypes.c_int, P, P, ctypes.c_int, P, P,
                                                                         ctypes.c_int]
    lib.mmaemu_quantize_fp8_blocks.argtypes = [ctypes.c_int] * 3 + [P, ctypes.c_int, ctypes.c_int, ctypes.c_int, P,
                                                                    ctypes.c_int, P]
    lib.mmaemu_gemm_block_scaled.argtypes = [P, P] + [ctypes.c_int] * 6 + [ctypes.c_float] + [
        P, ctypes.c_int] * 4 + [ctypes.c_float, P, ctypes.c_int]
    lib.mmaemu_quantize_mx.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_size_t, P, P, P]
    lib.mmaemu_nvfp4_global_scale.argtypes = [ctypes.c_size_t, P, P, P]
    lib.mmaemu_quantize_nvfp4.argtypes = [ctypes.c_size_t, P, ctypes.c_float, P, P]
    lib.mmaemu_dequantize.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_size_t, P, P,
                                      ctypes.c_float, P]
    return lib


def call(capi, fn, model, *args):
    h = capi.model(model)
    try:
        capi.check(fn(h, *args))
    finally:
        capi.lib.mmaemu_model_free(h)


def values(rng, shape, spread=3.0):
    """float32 values over several binades, so that the scales differ."""
    return (rng.standard_normal(shape) * np.exp2(rng.uniform(-spread, spread, shape))).astype(np.float32)


@pytest.mark.parametrize("fmt", ["e4m3", "e5m2"])
def test_fp8_scaled_gemm_and_quantiser(capi, lib, fmt):
    rng = np.random.default_rng(21)
    m, n, k = 24, 136, 320  # k and n not multiples of 128: partial last blocks
    x, y = values(rng, (m, k)), values(rng, (k, n))
    qa, sa = mmaemu.quantize_fp8_blocks(x, fmt)
    qb, sb = mmaemu.quantize_fp8_blocks(y, fmt, block_rows=128, block_cols=128)
    assert qa.shape == (m, k) and sa.shape == (m, 3) and sb.shape == (3, 2)
    wq, ws = np.empty((m, k), np.uint8), np.empty((m, 3), np.float32)
    capi.check(lib.mmaemu_quantize_fp8_blocks(F[fmt], m, k, x.ctypes.data, k, 1, 128, wq.ctypes.data, k,
                                              ws.ctypes.data))
    assert_same_bits(qa, wq, f"quantize_fp8_blocks {fmt} codes")
    assert_same_bits(sa, ws, f"quantize_fp8_blocks {fmt} scales")
    got = mmaemu.gemm_fp8_scaled(qa, sa, qb, sb, "H100", format=fmt)
    opt = Fp8ScaledOptions(F[fmt], 128, 128, 0, 0)
    want = np.empty((m, n), np.float32)
    call(capi, lib.mmaemu_gemm_fp8_scaled, "H100", ctypes.byref(opt), m, n, k, qa.ctypes.data, k, sa.ctypes.data,
         qb.ctypes.data, n, sb.ctypes.data, want.ctypes.data, n)
    assert_same_bits(got, want, f"gemm_fp8_scaled H100 {fmt}")
    # DeepGEMM's layout: B stored n x k.
    bt = np.ascontiguousarray(qb.T)
    assert_same_bits(mmaemu.gemm_fp8_scaled(qa, sa, bt, sb, "H100", format=fmt, b_trans=True), want, "b_trans")


# (a_format, b_format, scale_format, block_size, global scales)
BLOCK_SCALED = [("e4m3", "e4m3", "ue8m0", 32, False), ("e5m2", "e4m3", "ue8m0", 32, False),
                ("e3m2", "e2m3", "ue8m0", 32, False), ("e2m1", "e2m1", "ue8m0", 32, False),
                ("e2m1", "e2m1", "ue4m3", 16, True), ("e4m3", "e4m3", "ue8m0", 0, False)]


def quantise(x, element, scale_format, block_size, nvfp4):
    """Codes, scales (None for block_size 0) and global scale of x, blocked along its last axis."""
    if nvfp4:
        return mmaemu.quantize_nvfp4(x)
    if block_size == 0:
        return mmaemu.convert(x, element, saturate=True), None, 1.0
    codes, scales = mmaemu.quantize_mx(x, element, block_size)
    return codes, scales, 1.0


@pytest.mark.parametrize("fa,fb,fs,bs,nvfp4", BLOCK_SCALED, ids=lambda v: str(v))
def test_block_scaled_gemm(capi, lib, fa, fb, fs, bs, nvfp4):
    rng = np.random.default_rng(22)
    m, n, k = 20, 12, 192
    ca, sa, ga = quantise(values(rng, (m, k)), fa, fs, bs, nvfp4)
    cbt, sbt, gb = quantise(values(rng, (n, k)), fb, fs, bs, nvfp4)  # b transposed: blocks along k
    c = values(rng, (m, n))
    kw = dict(a_format=fa, b_format=fb, scale_format=fs, block_size=bs, a_global_scale=ga, b_global_scale=gb, c=c,
              alpha=0.5, beta=2.0)
    got = mmaemu.gemm_block_scaled(ca, sa, cbt.T, None if sbt is None else sbt.T, "B200", **kw)  # b read in place
    cb = np.ascontiguousarray(cbt.T)
    sb = None if sbt is None else np.ascontiguousarray(sbt.T)
    assert_same_bits(mmaemu.gemm_block_scaled(ca, sa, cb, sb, "B200", **kw), got, "b C-contiguous")
    desc = BlockScaleDesc(F[fa], F[fb], F[fs], bs, 0, 0, ga, gb, 0, 0)
    want = c.copy()
    ldsa = k // bs if bs else 1
    call(capi, lib.mmaemu_gemm_block_scaled, "B200", ctypes.byref(desc), 101, 111, 111, m, n, k, 0.5,
         ca.ctypes.data, k, None if sa is None else sa.ctypes.data, ldsa, cb.ctypes.data, n,
         None if sb is None else sb.ctypes.data, n, 2.0, want.ctypes.data, n)
    assert_same_bits(got, want, f"gemm_block_scaled B200 {fa} x {fb} {fs}/{bs}")


@pytest.mark.parametrize("element", ["e4m3", "e5m2", "e3m2", "e2m3", "e2m1"])
def test_quantize_mx_and_dequantize(capi, lib, element):
    x = values(np.random.default_rng(23), (3, 128))
    codes, scales = mmaemu.quantize_mx(x, element)
    assert codes.shape == (3, 128) and scales.shape == (3, 4)
    wc, ws = np.empty(384, np.uint8), np.empty(12, np.uint8)
    capi.check(lib.mmaemu_quantize_mx(F[element], 32, 384, x.ctypes.data, wc.ctypes.data, ws.ctypes.data))
    assert_same_bits(codes.ravel(), wc, f"quantize_mx {element} codes")
    assert_same_bits(scales.ravel(), ws, f"quantize_mx {element} scales")
    back = mmaemu.dequantize(codes, scales, element)
    want = np.empty(384, np.float32)
    capi.check(lib.mmaemu_dequantize(F[element], F["ue8m0"], 32, 384, wc.ctypes.data, ws.ctypes.data, 1.0,
                                     want.ctypes.data))
    assert_same_bits(back.ravel(), want, f"dequantize {element}")
    # decode() knows the element and scale formats: dequantize is code value times scale.
    assert np.array_equal(back, (mmaemu.decode(codes, element) *
                                 np.repeat(mmaemu.decode(scales, "ue8m0"), 32, axis=-1)).astype(np.float32))


def test_quantize_nvfp4(capi, lib):
    x = values(np.random.default_rng(24), (4, 64))
    codes, scales, decode = mmaemu.quantize_nvfp4(x)
    assert codes.shape == (4, 64) and scales.shape == (4, 4) and isinstance(decode, float)
    enc, dec = ctypes.c_float(), ctypes.c_float()
    capi.check(lib.mmaemu_nvfp4_global_scale(256, x.ctypes.data, ctypes.byref(enc), ctypes.byref(dec)))
    assert decode == dec.value
    wc, ws = np.empty(256, np.uint8), np.empty(16, np.uint8)
    capi.check(lib.mmaemu_quantize_nvfp4(256, x.ctypes.data, enc, wc.ctypes.data, ws.ctypes.data))
    assert_same_bits(codes.ravel(), wc, "quantize_nvfp4 codes")
    assert_same_bits(scales.ravel(), ws, "quantize_nvfp4 scales")
    back = mmaemu.dequantize(codes, scales, "e2m1", "ue4m3", 16, decode)
    want = np.empty(256, np.float32)
    capi.check(lib.mmaemu_dequantize(F["e2m1"], F["ue4m3"], 16, 256, wc.ctypes.data, ws.ctypes.data, dec,
                                     want.ctypes.data))
    assert_same_bits(back.ravel(), want, "dequantize nvfp4")


def test_scaled_errors():
    a8, s = np.zeros((4, 64), np.uint8), np.zeros((4, 2), np.uint8)
    b8, sb = np.zeros((64, 4), np.uint8), np.zeros((2, 4), np.uint8)
    kw = dict(a_format="e4m3")
    with pytest.raises(ValueError, match="k = 48 is not a multiple of block_size = 32"):
        mmaemu.gemm_block_scaled(a8[:, :48].copy(), s, b8[:48].copy(), sb, "B200", **kw)
    with pytest.raises(ValueError, match="block_size = 0 .no scales. reads no scales"):
        mmaemu.gemm_block_scaled(a8, s, b8, sb, "B200", block_size=0, **kw)
    with pytest.raises(ValueError, match="needs the scales sa and sb"):
        mmaemu.gemm_block_scaled(a8, None, b8, sb, "B200", **kw)
    with pytest.raises(ValueError, match=r"sa must be 4 x 2 \(one scale per block of a along k\); it is 4 x 3"):
        mmaemu.gemm_block_scaled(a8, np.zeros((4, 3), np.uint8), b8, sb, "B200", **kw)
    with pytest.raises(TypeError, match="a has dtype float32; to hold e4m3 codes"):
        mmaemu.gemm_block_scaled(a8.astype(np.float32), s, b8, sb, "B200", **kw)
    with pytest.raises(ValueError, match=r"unknown unit 'tensor' \(valid: auto, t, st, gst\)"):
        mmaemu.gemm_block_scaled(a8, s, b8, sb, "B200", unit="tensor", **kw)
    with pytest.raises(mmaemu.Error, match="fp12.*e2m1"):
        mmaemu.gemm_block_scaled(a8, s, b8, sb, "B200", a_format="fp12")
    with pytest.raises(mmaemu.UnsupportedError):
        mmaemu.gemm_block_scaled(a8, s, b8, sb, "H100", **kw)
    with pytest.raises(mmaemu.UnknownModelError, match="valid models"):
        mmaemu.gemm_block_scaled(a8, s, b8, sb, "H101", **kw)
    with pytest.raises(ValueError, match="multiple of 32 .x has shape .3, 40.."):
        mmaemu.quantize_mx(np.ones((3, 40), np.float32), "e4m3")
    with pytest.raises(TypeError, match="x has dtype float64"):
        mmaemu.quantize_nvfp4(np.ones(32))
    with pytest.raises(ValueError, match="scales must have codes' shape"):
        mmaemu.dequantize(np.zeros(64, np.uint8), np.zeros(3, np.uint8), "e4m3")
    with pytest.raises(mmaemu.Error):
        mmaemu.quantize_fp8_blocks(np.full((2, 128), np.inf, np.float32))
    with pytest.raises(ValueError, match=r"a_scales must be 4 x 1"):
        mmaemu.gemm_fp8_scaled(a8, np.ones((4, 2), np.float32), b8, np.ones((1, 1), np.float32), "H100")
