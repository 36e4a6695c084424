# SPDX-License-Identifier: BSD-3-Clause
"""matmul() and tile() bit for bit against the C API called directly, on
every unit of every model."""
import zlib

import numpy as np
import pytest

import mmaemu
from conftest import FORMAT_ID, ROUNDINGS, assert_same_bits, random_codes

UNITS = [(name, u["input"], u["output"]) for name in mmaemu.models() for u in mmaemu.Model(name).units
         if u["gemm_default"]]


def options(a_storage, b_storage, c_storage, fin, fout, rounding="rne", saturate=0, into_c=0, threads=0):
    f = FORMAT_ID
    return [f[a_storage], f[b_storage], f[c_storage], f[fin], f[fout], ROUNDINGS.index(rounding), saturate, into_c,
            threads]


@pytest.mark.parametrize("model,fin,fout", UNITS, ids=[f"{m}-{i}-{o}" for m, i, o in UNITS])
def test_codes_on_every_unit(capi, model, fin, fout):
    rng = np.random.default_rng(zlib.crc32(f"{model} {fin} {fout}".encode()))
    m, n, k = 19, 13, 70
    a, b = random_codes(fin, (m, k), rng), random_codes(fin, (k, n), rng)
    c = random_codes(fout, (m, n), rng)
    got = mmaemu.matmul(a, b, model, a_format=fin, b_format=fin, c=c, c_format=fout, beta=1.0, output=fout)
    assert got.dtype == mmaemu.storage_dtype(fout)
    want = capi.gemm(model, options(fin, fin, fout, fin, fout), a, b, c.copy(), 1.0, 1.0)
    assert_same_bits(got, want, f"{model} {fin}->{fout} codes")
    # Codes of the input format are the default input; the result is codes of the output.
    if fin not in ("fp32", "fp64"):
        again = mmaemu.matmul(a, b, model, a_format=fin, b_format=fin, c=c, c_format=fout, beta=1.0, output=fout)
        assert_same_bits(again, want, "input implied by the codes")


@pytest.mark.parametrize("model,fin,fout", [u for u in UNITS if u[2] == "fp32" and u[1] != "fp64"],
                         ids=lambda v: str(v))
def test_float32_policies(capi, model, fin, fout):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((33, 48)).astype(np.float32)
    b = rng.standard_normal((48, 17)).astype(np.float32)
    c = rng.standard_normal((33, 17)).astype(np.float32)
    for rounding in ("rne", "rz"):
        got = mmaemu.matmul(a, b, model, input=fin, rounding=rounding, c=c, alpha=0.5, beta=-2.0)
        sat = int(fin in ("e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz"))
        want = capi.gemm(model, options("fp32", "fp32", "fp32", fin, "fp32", rounding, sat), a, b, c.copy(), 0.5,
                         -2.0)
        assert_same_bits(got, want, f"{model} float32 -> {fin} {rounding}")


def test_default_policy_layouts_and_accumulate(capi):
    rng = np.random.default_rng(11)
    a = rng.standard_normal((40, 64)).astype(np.float32)
    b = rng.standard_normal((64, 24)).astype(np.float32)
    c = rng.standard_normal((40, 24)).astype(np.float32)
    # input None: the model's vendor-BLAS default (H100: tf32, truncating).
    assert mmaemu.Model("H100").default_policy == "tf32"
    want = capi.gemm("H100", options("fp32", "fp32", "fp32", "tf32", "fp32", "rz"), a, b, np.zeros_like(c), 1, 0)
    assert_same_bits(mmaemu.matmul(a, b, "H100"), want, "H100 default policy")
    # A transposed (Fortran-order) operand is read in place, same bits.
    at = np.asfortranarray(a)
    assert not at.flags.c_contiguous
    assert_same_bits(mmaemu.matmul(at, b, "H100"), want, "Fortran-order a")
    want_t = capi.gemm("H100", options("fp32", "fp32", "fp32", "tf32", "fp32", "rz"), np.ascontiguousarray(a.T), b,
                       np.zeros_like(c), 1, 0, trans_a=True)
    assert_same_bits(want_t, want, "C API transposed")
    # accumulate into C (the toolbox's GEMM), float64 operands, fp16 input.
    a64, b64, c64 = a.astype(np.float64), b.astype(np.float64), c.astype(np.float64)
    got = mmaemu.matmul(a64, b64, "MI300X", input="fp16", c=c64, beta=1.5, accumulate="into-c")
    assert got.dtype == np.float64
    want = capi.gemm("MI300X", options("fp64", "fp64", "fp64", "fp16", "fp32", into_c=1), a64, b64, c64.copy(), 1,
                     1.5)
    assert_same_bits(got, want, "MI300X into-c")
    # A Model object works like its name; custom models and MODEL@INSTR too.
    for spec in ("custom:base=B200,round=rne", "B200@mma.sync", "sm_90"):
        got = mmaemu.matmul(a, b, mmaemu.Model(spec), input="fp16")
        want = capi.gemm(spec, options("fp32", "fp32", "fp32", "fp16", "fp32"), a, b, np.zeros_like(c), 1, 0)
        assert_same_bits(got, want, spec)


def test_threads_give_the_same_bits():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((96, 256)).astype(np.float32)
    b = rng.standard_normal((256, 80)).astype(np.float32)
    one = mmaemu.matmul(a, b, "B200", input="bf16", threads=1)
    for t in (2, 3, 0):
        assert_same_bits(mmaemu.matmul(a, b, "B200", input="bf16", threads=t), one, f"threads={t}")


@pytest.mark.parametrize("schedule", ["promote:128", "splitk:3", "splitk:3:tree", "splitk:2+promote:64"])
def test_schedules_match_the_c_api(capi, schedule):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((24, 389)).astype(np.float32)
    b = rng.standard_normal((389, 20)).astype(np.float32)
    c = rng.standard_normal((24, 20)).astype(np.float32)
    got = mmaemu.matmul(a, b, "H100", input="e4m3", c=c, beta=0.5, schedule=schedule)
    want = capi.gemm("H100", options("fp32", "fp32", "fp32", "e4m3", "fp32", "rne", 1), a, b, c.copy(), 1.0, 0.5,
                     schedule=schedule)
    assert_same_bits(got, want, f"H100 e4m3 {schedule}")
    chain = mmaemu.matmul(a, b, "H100", input="e4m3", c=c, beta=0.5)
    assert (got.view(np.uint32) != chain.view(np.uint32)).any(), "the schedule changed no bit (test cannot fail)"


def test_promote_is_the_fp32_sum_of_pieces():
    rng = np.random.default_rng(6)
    a = rng.standard_normal((16, 256)).astype(np.float32)
    b = rng.standard_normal((256, 12)).astype(np.float32)
    got = mmaemu.matmul(a, b, "H100", input="fp16", schedule="promote:128")
    p0 = mmaemu.matmul(np.ascontiguousarray(a[:, :128]), b[:128], "H100", input="fp16")
    p1 = mmaemu.matmul(np.ascontiguousarray(a[:, 128:]), b[128:], "H100", input="fp16")
    assert_same_bits(got, (np.float32(0) + p0) + p1, "promote:128 = p0 + p1 in binary32")


def test_bad_schedule_raises():
    a = np.ones((4, 48), np.float32)
    with pytest.raises(mmaemu.Error, match="not a multiple of the instruction k"):
        mmaemu.matmul(a, a.T, "H100", input="fp16", schedule="promote:24")


@pytest.mark.parametrize("model,fin,fout", UNITS, ids=[f"{m}-{i}-{o}" for m, i, o in UNITS])
def test_tile_on_every_unit(capi, model, fin, fout):
    m, n, k = mmaemu.Model(model).tile_shape(fin, fout)
    rng = np.random.default_rng(3)
    a, b = random_codes(fin, (m, k), rng), random_codes(fin, (k, n), rng)
    c = random_codes(fout, (m, n), rng)
    got = mmaemu.tile(model, a, b, c, input=fin, output=fout)
    want = capi.tile(model, FORMAT_ID[fin], FORMAT_ID[fout], a, b, c)
    assert_same_bits(got, want, f"tile {model} {fin}->{fout}")


def test_tile_equals_one_gemm_block():
    """One instruction from C = +0 is the GEMM of its shape (gpu-blas, alpha = 1, beta = 0)."""
    rng = np.random.default_rng(4)
    a, b = random_codes("fp16", (16, 16), rng), random_codes("fp16", (16, 8), rng)
    d = mmaemu.tile("H100", a, b, input="fp16")
    g = mmaemu.matmul(a, b, "H100", a_format="fp16", b_format="fp16")
    assert_same_bits(d, g, "tile vs matmul")
