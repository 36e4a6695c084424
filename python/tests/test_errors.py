# SPDX-License-Identifier: BSD-3-Clause
"""Errors: the C API's messages as Python exceptions; bad dtypes, shapes and
layouts refused with clear messages."""
import numpy as np
import pytest

import mmaemu

A = np.ones((8, 16), np.float32)
B = np.ones((16, 4), np.float32)


def test_unknown_model_lists_the_valid_names():
    with pytest.raises(mmaemu.UnknownModelError, match="unknown model 'H101'.*valid models: V100, A100"):
        mmaemu.Model("H101")
    with pytest.raises(mmaemu.UnknownModelError, match="valid models"):
        mmaemu.matmul(A, B, "H101")
    assert issubclass(mmaemu.UnknownModelError, mmaemu.Error) and issubclass(mmaemu.Error, ValueError)


def test_unsupported_unit_names_the_units():
    with pytest.raises(mmaemu.UnsupportedError, match=r"V100 has no unit for bf16 -> fp32 \(it has: fp16->fp32"):
        mmaemu.matmul(A, B, "V100", input="bf16")
    with pytest.raises(mmaemu.UnsupportedError, match="A100 has no unit for e4m3"):
        mmaemu.tile("A100", np.zeros((16, 32), np.uint8), np.zeros((32, 8), np.uint8), input="e4m3")


def test_bad_policy_and_options():
    with pytest.raises(mmaemu.Error, match="input: unknown input policy 'fp12'.*valid: fp16"):
        mmaemu.matmul(A, B, "H100", input="fp12")
    with pytest.raises(ValueError, match="unknown accumulate 'sum'"):
        mmaemu.matmul(A, B, "H100", accumulate="sum")
    with pytest.raises(ValueError, match="unknown rounding"):
        mmaemu.matmul(A, B, "H100", rounding="nearest")
    with pytest.raises(ValueError, match="threads must be >= 0"):
        mmaemu.matmul(A, B, "H100", threads=-1)
    with pytest.raises(mmaemu.Error, match="custom"):
        mmaemu.Model("custom:base=H100,round=sideways")


def test_bad_arrays():
    with pytest.raises(ValueError, match="inner dimensions differ"):
        mmaemu.matmul(A, A, "H100")
    with pytest.raises(ValueError, match="2-D array"):
        mmaemu.matmul(A.ravel(), B, "H100")
    with pytest.raises(ValueError, match="not contiguous.*np.ascontiguousarray"):
        mmaemu.matmul(np.ones((8, 32), np.float32)[:, ::2], B, "H100")
    with pytest.raises(TypeError, match="a holds codes \\(uint16\\): name their format with a_format"):
        mmaemu.matmul(A.astype(np.uint16), B, "H100")
    with pytest.raises(TypeError, match="int64.*expected float64, float32, float16"):
        mmaemu.matmul(A.astype(np.int64), B, "H100")
    with pytest.raises(TypeError, match="b has dtype uint16; to hold e4m3, it must be uint8"):
        mmaemu.matmul(A.astype(np.uint8), B.astype(np.uint16), "H100", a_format="e4m3", b_format="e4m3")
    with pytest.raises(ValueError, match="c must be 8 x 4"):
        mmaemu.matmul(A, B, "H100", c=np.ones((4, 8), np.float32), beta=1)
    with pytest.raises(ValueError, match="beta != 0 needs c"):
        mmaemu.matmul(A, B, "H100", beta=1)
    with pytest.raises(TypeError, match="c must be a numpy array"):
        mmaemu.matmul(A, B, "H100", c=[[1.0]], beta=1)
    with pytest.raises(ValueError, match="a must be 16 x 16"):
        mmaemu.tile("H100", np.zeros((16, 8), np.uint16), np.zeros((16, 8), np.uint16), input="fp16")
    with pytest.raises(TypeError, match="model must be a name"):
        mmaemu.matmul(A, B, 100)


def test_empty_and_degenerate_shapes():
    assert mmaemu.matmul(np.ones((0, 5), np.float32), np.ones((5, 3), np.float32), "H100").shape == (0, 3)
    z = mmaemu.matmul(np.ones((2, 0), np.float32), np.ones((0, 3), np.float32), "H100", input="fp16")
    assert z.shape == (2, 3) and (z == 0).all()
