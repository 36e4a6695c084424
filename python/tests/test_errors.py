# SPDX-License-Identifier: BSD-3-Clause
"""Errors: the C API's messages as Python exceptions; bad dtypes, shapes and
layouts refused with clear messages."""
import numpy as np
import pytest

import mmaemu

A = np.ones((8, 16), np.float32)
B = np.ones((16, 4), np.float32)


def test_unknown_model_lists_the_valid_names():
    with pytest.raises(mmaemu.UnknownModelError, match="unknown model 'H101'.*valid models: V100, T4, A100"):
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
    with pytest.raises(ValueError, match="threads = -1: not a whole number from 0 to 4096"):
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


def test_thread_counts_are_capped_as_mma_num_threads():
    for bad in (4097, 3000000):
        with pytest.raises(ValueError, match=f"threads = {bad}: not a whole number from 0 to 4096"):
            mmaemu.matmul(A, B, "H100", threads=bad)
    a8, b8 = np.zeros((4, 128), np.uint8), np.zeros((128, 8), np.uint8)
    with pytest.raises(ValueError, match="threads = 5000: not a whole number from 0 to 4096"):
        mmaemu.gemm_fp8_scaled(a8, np.ones((4, 1), np.float32), b8, np.ones((1, 1), np.float32), "H100", threads=5000)
    with pytest.raises(ValueError, match="threads = 5000"):
        mmaemu.compare(A, B, ["H100"], threads=5000)
    assert mmaemu.matmul(A, B, "H100", threads=4096).shape == (8, 4)


def test_strings_with_a_nul_byte_are_refused():
    with pytest.raises(ValueError, match=r"name holds a NUL byte at position 4 \('H100\\x00...'\)"):
        mmaemu.Model("H100\x00junk")
    for kw, where in ((dict(model="H100\x00junk"), "model"), (dict(model="H100", input="fp16\x00x"), "input"),
                      (dict(model="H100", schedule="chain\x00promote:16"), "schedule"),
                      (dict(model="H100", accumulate="gpu-blas\x00"), "accumulate")):
        with pytest.raises(ValueError, match=f"{where} holds a NUL byte"):
            mmaemu.matmul(A, B, **kw)
    with pytest.raises(ValueError, match="to holds a NUL byte"):
        mmaemu.convert(np.ones(3, np.float32), "fp16\x00")


@pytest.mark.parametrize("call, message", [
    (lambda: mmaemu.matmul([[1.0] * 16] * 8, B, "H100"), "a must be a numpy array, not list"),
    (lambda: mmaemu.matmul(A, 2.0, "H100"), "b must be a numpy array, not float"),
    (lambda: mmaemu.matmul(A, B, "H100", alpha="2"), "alpha must be a number, not str"),
    (lambda: mmaemu.matmul(A, B, "H100", beta=[1.0]), "beta must be a number, not list"),
    (lambda: mmaemu.matmul(A, B, "H100", threads=1.5), "threads must be an integer, not float"),
    (lambda: mmaemu.matmul(A, B, "H100", accumulate=1), "accumulate must be a str, not int"),
    (lambda: mmaemu.matmul(A, B, "H100", saturate="yes"), "saturate must be True or False, not str"),
    (lambda: mmaemu.matmul(A, B, "H100", input=16), "input must be a str, not int"),
    (lambda: mmaemu.tile("H100", [[0]], B), "a must be a numpy array, not list"),
    (lambda: mmaemu.convert([1.0], "fp16"), "x must be a numpy array, not list"),
    (lambda: mmaemu.decode(np.zeros(2, np.uint16), 16), "fmt must be a str, not int"),
    (lambda: mmaemu.Model(5), "name must be a str, not int"),
    (lambda: mmaemu.Model("H100").tile_shape(None), "input must be a str, not NoneType"),
    (lambda: mmaemu.probe("H100", 16), "input must be a str, not int"),
    (lambda: mmaemu.compare(A, B, 5), "models must be a name, an mmaemu.Model or a list of them, not int"),
    (lambda: mmaemu.quantize_mx([1.0] * 32, "e4m3"), "x must be a numpy array, not list"),
    (lambda: mmaemu.quantize_mx(np.ones(32, np.float32), "e4m3", block_size="32"), "block_size must be an integer"),
    (lambda: mmaemu.quantize_nvfp4(3.0), "x must be a numpy array, not float"),
    (lambda: mmaemu.dequantize(np.zeros(32, np.uint8), np.zeros(1, np.uint8), "e4m3", global_scale="1"),
     "global_scale must be a number, not str"),
    (lambda: mmaemu.gemm_block_scaled(np.zeros((2, 32), np.uint8), None, np.zeros((32, 2), np.uint8), None, "B200",
                                      a_format="e4m3", block_size=0, alpha=None), "alpha must be a number, not NoneType"),
])
def test_a_wrong_type_is_a_type_error_naming_the_argument(call, message):
    with pytest.raises(TypeError, match=message) as info:
        call()
    assert "incompatible function arguments" not in str(info.value)


def test_block_size_and_global_scale_checks():
    x = np.ones(64, np.float32)
    with pytest.raises(ValueError, match="block_size must be a positive whole number, got -32"):
        mmaemu.quantize_mx(x, "e4m3", block_size=-32)
    with pytest.raises(ValueError, match="block_size must be a positive whole number, got 0"):
        mmaemu.dequantize(np.zeros(64, np.uint8), np.zeros(2, np.uint8), "e4m3", block_size=0)
    codes, scales = mmaemu.quantize_mx(x, "e4m3")
    for bad in (-1.0, 0.0, float("inf"), float("nan")):
        with pytest.raises(mmaemu.Error, match="global_scale must be positive and finite"):
            mmaemu.dequantize(codes, scales, "e4m3", global_scale=bad)
    assert (mmaemu.dequantize(codes, scales, "e4m3", global_scale=2.0) == 2.0).all()
