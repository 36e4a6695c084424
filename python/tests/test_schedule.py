# SPDX-License-Identifier: BSD-3-Clause
"""matmul(schedule=...) bit for bit against the C API's options.schedule, a
composition check of promote:P, and the C API's message for a bad schedule."""
import numpy as np
import pytest

import mmaemu
from conftest import FORMAT_ID, assert_same_bits, random_codes

SCHEDULES = ["chain", "promote:128", "splitk:4", "splitk:3:tree", "splitk:2,promote:128"]


@pytest.mark.parametrize("model,fin", [("H100", "e4m3"), ("B200", "bf16"), ("MI300X", "fp16")])
@pytest.mark.parametrize("schedule", SCHEDULES)
def test_schedule_equals_the_c_api(capi, model, fin, schedule):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((21, 640)).astype(np.float32)
    b = rng.standard_normal((640, 11)).astype(np.float32)
    c = rng.standard_normal((21, 11)).astype(np.float32)
    sat = int(fin == "e4m3")
    got = mmaemu.matmul(a, b, model, input=fin, c=c, alpha=0.75, beta=-1.5, schedule=schedule)
    f = FORMAT_ID
    opt = [f["fp32"], f["fp32"], f["fp32"], f[fin], f["fp32"], 0, sat, 0, 0, schedule.encode()]
    want = capi.gemm(model, opt, a, b, c.copy(), 0.75, -1.5)
    assert_same_bits(got, want, f"{model} {fin} {schedule}")


def test_promote_is_the_binary32_sum_of_its_pieces():
    """promote:P with beta = 0: pieces of P along k, each a chain from +0,
    added to a binary32 accumulator from +0 in k order (README, "Schedules")."""
    rng = np.random.default_rng(8)
    k, piece = 1024, 128
    a, b = random_codes("e4m3", (17, k), rng), random_codes("e4m3", (k, 9), rng)
    kw = dict(a_format="e4m3", b_format="e4m3", c_format="fp32")
    got = mmaemu.matmul(a, b, "H100", schedule=f"promote:{piece}", **kw)
    main = np.zeros((17, 9), np.float32)
    for p in range(0, k, piece):
        part = mmaemu.matmul(np.ascontiguousarray(a[:, p:p + piece]), b[p:p + piece], "H100", **kw)
        main = main + part  # binary32, RNE
    assert_same_bits(got, main, "H100 e4m3 promote:128 vs its pieces")
    chain = mmaemu.matmul(a, b, "H100", **kw)
    assert np.any(got != chain), "promotion changed nothing: the check could not fail"


def test_bad_schedules_raise_the_c_api_message():
    a, b = np.ones((4, 256), np.float32), np.ones((256, 4), np.float32)
    with pytest.raises(mmaemu.Error, match="promotion interval 7 is not a multiple of the instruction k = 32"):
        mmaemu.matmul(a, b, "H100", input="e4m3", schedule="promote:7")
    with pytest.raises(mmaemu.Error, match=r"unknown item .sideways:2. \(valid: chain, promote:P"):
        mmaemu.matmul(a, b, "H100", input="e4m3", schedule="sideways:2")
