# SPDX-License-Identifier: BSD-3-Clause
"""mmaemu.probe and mmaemu.distinguish on the integer units (docs/models.md §11):
the features the probe finds through the C API, and the inputs distinguish
finds between wrap and satfinite units and between the u8 and s8 readings,
checked by re-evaluating them with mmaemu.dot."""
import numpy as np
import pytest

import mmaemu


def test_probe_integer_units():
    h = mmaemu.probe("H100", "int8")
    assert h["output"] == "s32" and h["k"] == 32 and h["shape"] == (16, 8, 32)
    f = h["features"]
    assert f["overflow"] == "wrap" and f["has_satfinite"] and f["satfinite"] == "satfinite"
    assert f["sat_point"] == "instruction" and f["exact"] and f["a_twos_complement"]
    assert f["accepted"].startswith("s8 x s8, s8 x u8, u8 x s8, u8 x u8")
    u = mmaemu.probe("H100", "uint8,int8")["features"]
    assert u["a_twos_complement"] is False and u["b_twos_complement"] is True
    a = mmaemu.probe("MI300X", "s8")
    assert a["features"]["has_satfinite"] is False and a["features"]["sat_point"] is None
    assert "saturate = 0 works" in a["notes"]["has_satfinite"]
    c = mmaemu.probe("custom:base=A100,overflow=satfinite,sat_point=addition", "int4")["features"]
    assert c["overflow"] == "satfinite" and c["sat_point"] == "addition"
    with pytest.raises(mmaemu.UnsupportedError, match="s4 x s4"):
        mmaemu.probe("H100", "int4")
    with pytest.raises(ValueError, match="int32"):
        mmaemu.probe("H100", "int8", output="fp32")


def codes(x, fmt):
    return np.array(x, dtype=np.uint8).view(np.int8 if fmt in ("int8", "int4") else np.uint8)


@pytest.mark.parametrize("a,b,input,input2", [("H100", "custom:base=H100,overflow=satfinite", "int8", None),
                                              ("H100", "H100", "uint8", "int8"),
                                              ("A100", "A100", "int4", "uint4")])
def test_distinguish_integer_units(a, b, input, input2):
    r = mmaemu.distinguish(a, b, input=input, input2=input2, samples=20000)
    assert r["found"], r["report"]
    s = r["shortest"]
    want = list(s["d"].values())
    assert len(want) == 2 and want[0] != want[1]
    # Each unit on the same codes, read under its own formats, through mmaemu.dot.
    got = []
    for model, fmt in ((a, input), (b, input2 or input)):
        x, y = codes(s["a"], fmt), codes(s["b"], fmt)
        if fmt.endswith("4"):  # int4 values from their 4-bit codes
            x = (x.astype(np.int16) ^ 8) - 8 if fmt == "int4" else x
            y = (y.astype(np.int16) ^ 8) - 8 if fmt == "int4" else y
            x, y = x.astype(np.int8 if fmt == "int4" else np.uint8), y.astype(np.int8 if fmt == "int4" else np.uint8)
        c = np.array([s["c"]], dtype=np.uint32).view(np.int32)
        got.append(int(mmaemu.dot(model, x[None, :], y[None, :], c, input=fmt)[0]) & 0xFFFFFFFF)
    assert got == want


def test_distinguish_integer_same_arithmetic():
    r = mmaemu.distinguish("H100", "MI300X", input="int8", samples=20000)
    assert not r["found"] and r["bound"] > 0
    with pytest.raises(ValueError, match="input2 applies"):
        mmaemu.distinguish("H100", "MI300X", input2="int8")
