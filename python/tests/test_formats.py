# SPDX-License-Identifier: BSD-3-Clause
"""convert() and decode() on every format: against an independent decoder
written from the format definitions, against numpy where it has the format,
and bit for bit against the C API called directly."""
import numpy as np
import pytest

import mmaemu
from conftest import FORMAT_ID, ROUNDINGS, assert_same_bits

# name: (exponent bits, fraction bits, specials) from the format definitions
# (IEEE 754; OCP 8-bit floating point spec; AMD's fnuz fp8/bf8).
LAYOUT = {
    "fp64": (11, 52, "ieee"), "fp32": (8, 23, "ieee"), "tf32": (8, 10, "ieee"), "bf16": (8, 7, "ieee"),
    "fp16": (5, 10, "ieee"), "e4m3": (4, 3, "e4m3fn"), "e5m2": (5, 2, "ieee"), "e4m3fnuz": (4, 3, "fnuz"),
    "e5m2fnuz": (5, 2, "fnuz"), "e3m2": (3, 2, "finite"), "e2m3": (2, 3, "finite"), "e2m1": (2, 1, "finite"),
    "ue8m0": (8, 0, "ue8m0"), "ue4m3": (4, 3, "ue4m3"),
}


def code_bits(fmt):
    """Bits of one code: sign, exponent and fraction (the scale formats: 8)."""
    e_bits, m_bits, specials = LAYOUT[fmt]
    return 8 if specials.startswith("ue") else 1 + e_bits + m_bits


def reference_decode(fmt, code):
    """The value of one code, from sign, exponent and fraction fields."""
    e_bits, m_bits, specials = LAYOUT[fmt]
    width = code_bits(fmt)
    if specials == "ue8m0":  # 2^(code - 127), no sign, no zero; 0xFF is NaN
        return float("nan") if code == 0xFF else 2.0 ** (code - 127)
    if specials == "ue4m3":  # an e4m3 code whose sign bit the unit ignores
        return reference_decode("e4m3", code & 0x7F)
    sign = -1.0 if code >> (width - 1) & 1 else 1.0
    exp = code >> m_bits & ((1 << e_bits) - 1)
    frac = code & ((1 << m_bits) - 1)
    bias = (1 << (e_bits - 1)) - 1 + (specials == "fnuz")
    top = (1 << e_bits) - 1
    if specials == "fnuz" and code == 1 << (width - 1):
        return float("nan")
    if specials == "ieee" and exp == top:
        return sign * float("inf") if frac == 0 else float("nan")
    if specials == "e4m3fn" and exp == top and frac == (1 << m_bits) - 1:
        return float("nan")
    if exp == 0:
        return sign * frac * 2.0 ** (1 - bias - m_bits)
    return sign * (1 + frac / 2.0 ** m_bits) * 2.0 ** (exp - bias)


def all_codes(fmt):
    """Every code of a narrow format; a sample of the wide ones."""
    dtype = mmaemu.storage_dtype(fmt)
    if dtype in (np.uint8, np.uint16):
        return np.arange(1 << code_bits(fmt), dtype=dtype)
    rng = np.random.default_rng(7)
    raw = rng.integers(0, 2 ** 63, 4000, dtype=np.uint64) if dtype == np.float64 else rng.integers(
        0, 2 ** 32, 4000, dtype=np.uint64).astype(np.uint32)
    if fmt == "tf32":  # tf32 codes have zero low 13 bits
        raw &= np.uint32(0xFFFFE000)
    return raw.view(dtype)


@pytest.mark.parametrize("fmt", list(LAYOUT))
def test_decode_every_code(fmt):
    codes = all_codes(fmt)
    got = mmaemu.decode(codes, fmt)
    assert got.dtype == np.float64 and got.shape == codes.shape
    ints = codes.view({8: np.uint64, 4: np.uint32, 2: np.uint16, 1: np.uint8}[codes.dtype.itemsize])
    if fmt == "tf32":
        ints = ints >> np.uint32(13)
    want = np.array([reference_decode(fmt, int(c)) for c in ints])
    nan = np.isnan(want)
    assert (np.isnan(got) == nan).all(), f"{fmt}: NaN codes differ"
    assert_same_bits(got[~nan], want[~nan], f"decode {fmt}")


def test_formats_listed_in_c_api_order():
    # Every floating-point and scale format has a test above; the integer
    # formats (mmaemu.matmul's input="int8", ...; test_matmul_int.py) follow.
    assert mmaemu.formats() == list(LAYOUT) + ["s8", "u8", "s4", "u4", "s32"]


@pytest.mark.parametrize("fmt", list(LAYOUT))
@pytest.mark.parametrize("rounding", ROUNDINGS)
@pytest.mark.parametrize("saturate", [False, True])
def test_convert_matches_c_api(capi, fmt, rounding, saturate):
    rng = np.random.default_rng(FORMAT_ID[fmt] * 10 + ROUNDINGS.index(rounding))
    x = np.concatenate([rng.standard_normal(500) * 2.0 ** rng.integers(-30, 30, 500),
                        [0.0, -0.0, np.inf, -np.inf, np.nan, 1e300, -1e-300, 448.0, 480.0, 57344.0, 65520.0]])
    if LAYOUT[fmt][2] == "finite":  # fp6/fp4 have no NaN or Inf: converting one is refused
        x = x[np.isfinite(x)]
    got = mmaemu.convert(x, fmt, rounding=rounding, saturate=saturate)
    want = capi.convert(FORMAT_ID["fp64"], FORMAT_ID[fmt], x, mmaemu.storage_dtype(fmt), ROUNDINGS.index(rounding),
                        int(saturate))
    assert got.dtype == want.dtype
    assert_same_bits(got, want, f"convert fp64 -> {fmt} {rounding} saturate={saturate}")
    # From codes: every format converts to every other as the C API does.
    back = mmaemu.convert(got, "e5m2", rounding=rounding, source=fmt)
    assert_same_bits(back, capi.convert(FORMAT_ID[fmt], FORMAT_ID["e5m2"], got, np.uint8, ROUNDINGS.index(rounding),
                                        0), f"convert {fmt} -> e5m2")


def test_convert_agrees_with_numpy():
    x = np.random.default_rng(3).standard_normal(10000) * 1e3
    assert_same_bits(mmaemu.convert(x, "fp16"), x.astype(np.float16).view(np.uint16), "fp16 rne vs numpy")
    assert_same_bits(mmaemu.convert(x, "fp32"), x.astype(np.float32), "fp32 rne vs numpy")
    h = x.astype(np.float16)
    assert_same_bits(mmaemu.decode(h.view(np.uint16), "fp16"), h.astype(np.float64), "fp16 decode vs numpy")
    assert_same_bits(mmaemu.convert(h, "fp64"), h.astype(np.float64), "float16 array read as fp16")


def test_convert_round_trip_and_shape():
    codes = np.arange(256, dtype=np.uint8).reshape(16, 16)
    values = mmaemu.decode(codes, "e4m3")
    assert values.shape == (16, 16)
    again = mmaemu.convert(values, "e4m3")
    finite = ~np.isnan(values)
    assert (again[finite] == codes[finite]).all()
    strided = mmaemu.convert(values[:, ::2], "e4m3")  # elementwise: strided views are copied
    assert (strided[finite[:, ::2]] == codes[:, ::2][finite[:, ::2]]).all()


def test_convert_errors():
    with pytest.raises(TypeError, match="source='fp16'"):
        mmaemu.convert(np.zeros(3, np.uint16), "fp32")
    with pytest.raises(TypeError, match="must be uint8"):
        mmaemu.convert(np.zeros(3, np.uint16), "fp32", source="e4m3")
    with pytest.raises(mmaemu.Error, match="unknown format 'fp7'.*fp64, fp32"):
        mmaemu.convert(np.zeros(3), "fp7")
    with pytest.raises(ValueError, match="unknown rounding 'up'"):
        mmaemu.convert(np.zeros(3), "fp16", rounding="up")
