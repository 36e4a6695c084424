# SPDX-License-Identifier: BSD-3-Clause
"""mmaemu.torch.emulate: torch's matrix products inside the mode against
mmaemu.matmul and the C API (ctypes) on the same operands, bit for bit, for
float32, float16 and bfloat16 tensors; forward and backward; what passes
through; nesting, threads, errors. Skipped without torch (python3-torch)."""
import ctypes
import threading

import numpy as np
import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

import mmaemu  # noqa: E402
import mmaemu.torch as mt  # noqa: E402
from conftest import FORMAT_ID, GemmOptions  # noqa: E402

# The units under test: (model, input policy). fp32 tensors read through the
# policy; float16 / bfloat16 tensors are converted from their own codes.
UNITS = [("H100", "fp16"), ("H100", "e4m3"), ("B200", "nvfp4"), ("MI300X", "fp8")]
DTYPES = [torch.float32, torch.float16, torch.bfloat16]
CODE = {torch.float16: "fp16", torch.bfloat16: "bf16"}


def ids(v):
    return str(v).replace("torch.", "")


# ---------------------------------------------------------------------------
# The references: mmaemu.matmul on numpy copies of the operands, and the C API.

def codes_of(t):
    """A tensor's values as mmaemu reads them: float32 values, or uint16 codes (fp16, bf16)."""
    t = t.detach().contiguous()
    if t.dtype == torch.float32:
        return t.numpy().copy()
    return t.view(torch.int16).numpy().view(np.uint16).copy()


def bits_of(t):
    t = t.detach().contiguous()
    return t.view(torch.int32 if t.element_size() == 4 else torch.int16).numpy().view(
        np.uint32 if t.element_size() == 4 else np.uint16)


def ref_gemm(model, policy, a, b, c=None, alpha=1.0, beta=0.0):
    """mmaemu.matmul on the operands of the torch tensors a, b (, c): the result's bits (uint32 / uint16)."""
    dtype = a.dtype
    if mmaemu.is_block_scaled_policy(policy):
        cc = None if c is None else c.detach().float().contiguous().numpy()
        d = mmaemu.matmul(codes_of(a.float()), codes_of(b.float()), model, input=policy, c=cc,
                          alpha=alpha, beta=beta)
        return d.view(np.uint32) if dtype == torch.float32 else mmaemu.convert(d, CODE[dtype])
    fmt = CODE.get(dtype)
    d = mmaemu.matmul(codes_of(a), codes_of(b), model, input=policy, a_format=fmt, b_format=fmt, c_format=fmt,
                      c=None if c is None else codes_of(c), alpha=alpha, beta=beta)
    return d.view(np.uint32) if dtype == torch.float32 else d


def assert_bits(got, want_bits, what):
    g = bits_of(got).ravel()
    w = np.ascontiguousarray(want_bits).ravel()
    assert g.shape == w.shape, f"{what}: {g.shape} elements, want {w.shape}"
    bad = np.flatnonzero(g != w)
    assert bad.size == 0, (f"{what}: {bad.size} of {g.size} elements differ, first at {bad[0]}: "
                           f"got {hex(int(g[bad[0]]))}, want {hex(int(w[bad[0]]))}")


def randn(*shape, dtype=torch.float32, gen=None):
    return torch.randn(*shape, generator=gen).to(dtype)


@pytest.fixture
def gen():
    return torch.Generator().manual_seed(1234)


class BlockScaledCApi:
    """mmaemu_sgemm_block_scaled_acc of libmmaemu.so, called directly."""

    def __init__(self, capi):
        self.capi = capi
        f = capi.lib.mmaemu_sgemm_block_scaled_acc
        f.argtypes = [ctypes.c_void_p, ctypes.c_char_p] + [ctypes.c_int] * 7 + [
            ctypes.c_float, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_float,
            ctypes.c_void_p, ctypes.c_int]
        self.f = f

    def __call__(self, model, policy, a, b, c=None, alpha=1.0, beta=0.0):
        a, b = np.ascontiguousarray(a, np.float32), np.ascontiguousarray(b, np.float32)
        (m, k), n = a.shape, b.shape[1]
        d = np.zeros((m, n), np.float32) if c is None else np.array(c, np.float32)
        h = self.capi.model(model)
        try:
            self.capi.check(self.f(h, policy.encode(), 0, 101, 111, 111, m, n, k, alpha, a.ctypes.data, k,
                                   b.ctypes.data, n, beta, d.ctypes.data, n))
        finally:
            self.capi.lib.mmaemu_model_free(h)
        return d


def capi_gemm(capi, model, policy, a, b, dtype):
    """The C API's product of torch tensors a, b of `dtype` under `policy`: result bits."""
    if mmaemu.is_block_scaled_policy(policy):
        d = BlockScaledCApi(capi)(model, policy, a.detach().float().numpy(), b.detach().float().numpy())
        return d.view(np.uint32) if dtype == torch.float32 else mmaemu.convert(d, CODE[dtype])
    store = CODE.get(dtype, "fp32")
    opt = GemmOptions()
    capi.check(capi.lib.mmaemu_parse_policy(policy.encode(), ctypes.byref(opt)))
    opt.a_storage = opt.b_storage = opt.c_storage = FORMAT_ID[store]
    opt.output = FORMAT_ID["fp32"]
    a_, b_ = codes_of(a), codes_of(b)
    m, k, n = a_.shape[0], a_.shape[1], b_.shape[1]
    c = np.zeros((m, n), np.float32 if store == "fp32" else np.uint16)
    h = capi.model(model)
    try:
        capi.check(capi.lib.mmaemu_gemm(h, ctypes.byref(opt), 101, 111, 111, m, n, k, 1.0, a_.ctypes.data, k,
                                        b_.ctypes.data, n, 0.0, c.ctypes.data, n))
    finally:
        capi.lib.mmaemu_model_free(h)
    return c.view(np.uint32) if store == "fp32" else c


# ---------------------------------------------------------------------------
# The operations mmaemu.torch computes on the model, bit for bit.

@pytest.mark.parametrize("dtype", DTYPES, ids=ids)
@pytest.mark.parametrize("model,policy", UNITS, ids=lambda v: str(v))
def test_mm_linear_bmm_einsum_conv(capi, model, policy, dtype, gen):
    what = f"{model} input={policy} {ids(dtype)}"
    a, b = randn(24, 80, dtype=dtype, gen=gen), randn(80, 40, dtype=dtype, gen=gen)
    w, bias = randn(40, 80, dtype=dtype, gen=gen), randn(40, dtype=dtype, gen=gen)
    x3, y3 = randn(3, 20, 64, dtype=dtype, gen=gen), randn(3, 64, 16, dtype=dtype, gen=gen)
    img, ker, kb = randn(2, 4, 9, 9, dtype=dtype, gen=gen), randn(6, 2, 3, 3, dtype=dtype, gen=gen), \
        randn(6, dtype=dtype, gen=gen)
    with mt.emulate(model, input=policy) as mode:
        d_mm = torch.mm(a, b)
        d_lin = F.linear(a, w, bias)
        d_bmm = torch.bmm(x3, y3)
        d_ein = torch.einsum("bij,bjk->bik", x3, y3)
        d_conv = F.conv2d(img, ker, kb, stride=2, padding=1, groups=2)
    assert d_mm.dtype == dtype and d_conv.dtype == dtype
    want = ref_gemm(model, policy, a, b)
    assert_bits(d_mm, want, f"{what} torch.mm vs mmaemu.matmul")
    assert_bits(d_mm, capi_gemm(capi, model, policy, a, b, dtype), f"{what} torch.mm vs the C API")
    # linear = addmm(bias, a, w.t()): the epilogue fma(1, acc, 1*bias) in fp32, then the dtype.
    assert_bits(d_lin, ref_gemm(model, policy, a, w.t(), bias.expand(24, 40), 1.0, 1.0), f"{what} F.linear")
    for i in range(3):
        want = ref_gemm(model, policy, x3[i], y3[i])
        assert_bits(d_bmm[i], want, f"{what} bmm[{i}]")
        assert_bits(d_ein[i], want, f"{what} einsum[{i}]")
    # The convolution: per group, the im2col matrix (F.unfold: rows (n, output position), k = (c, kh, kw))
    # times the weight's rows; the bias added natively afterwards.
    cols = F.unfold(img.float(), (3, 3), padding=1, stride=2).to(dtype)  # (N, C*9, L), exact
    cols = cols.transpose(1, 2).reshape(2 * 25, 4 * 9)
    parts = []
    for g in range(2):
        d = ref_gemm(model, policy, cols[:, g * 18:(g + 1) * 18], ker[g * 3:(g + 1) * 3].reshape(3, 18).t())
        parts.append(torch.from_numpy(d.view(np.int32 if dtype == torch.float32 else np.int16)).view(dtype))
    conv_ref = torch.cat(parts, 1).reshape(2, 5, 5, 6).permute(0, 3, 1, 2) + kb.reshape(1, 6, 1, 1)
    assert_bits(d_conv, bits_of(conv_ref), f"{what} conv2d")
    assert mode.emulated["aten.mm.default"] == 1 and mode.emulated["aten.addmm.default"] == 1
    assert mode.emulated["aten.bmm.default"] == 2 and mode.emulated["aten.convolution.default"] == 1
    assert not mode.passed_through, mode.report()
    assert mode.flops == 2 * (2 * 24 * 80 * 40 + 2 * 3 * 20 * 64 * 16 + 2 * 50 * 18 * 3), mode.report()


@pytest.mark.parametrize("dtype", DTYPES, ids=ids)
def test_backward_products(dtype, gen):
    """The gradients of a linear layer are the emulated products of their operands."""
    model, policy = "H100", "e4m3"
    x = randn(16, 48, dtype=dtype, gen=gen).requires_grad_()
    w = randn(24, 48, dtype=dtype, gen=gen).requires_grad_()
    g = randn(16, 24, dtype=dtype, gen=gen)
    with mt.emulate(model, input=policy) as mode:
        y = F.linear(x, w)
        y.backward(g)
    what = f"{model} {policy} {ids(dtype)}"
    assert_bits(y, ref_gemm(model, policy, x, w.t()), f"{what} forward")
    assert_bits(w.grad, ref_gemm(model, policy, g.t(), x), f"{what} weight gradient = g^T x")
    assert_bits(x.grad, ref_gemm(model, policy, g, w), f"{what} input gradient = g w")
    assert mode.emulated["aten.mm.default"] == 3


def test_addmm_baddbmm_addmv_alpha_beta(gen):
    """alpha and beta: the library's epilogue D = fma(alpha, acc, beta*C), as mmaemu.matmul applies them."""
    a, b, c = randn(12, 64, gen=gen), randn(64, 10, gen=gen), randn(12, 10, gen=gen)
    a3, b3, c3 = randn(2, 12, 64, gen=gen), randn(2, 64, 10, gen=gen), randn(2, 12, 10, gen=gen)
    v, cv = randn(64, gen=gen), randn(12, gen=gen)
    nan_c = torch.full((12, 10), float("nan"))
    with mt.emulate("A100", input="bf16") as mode:
        d = torch.addmm(c, a, b, beta=0.5, alpha=-1.25)
        d0 = torch.addmm(nan_c, a, b, beta=0.0)  # beta = 0: C is not read (torch: NaN not propagated)
        d3 = torch.baddbmm(c3, a3, b3, beta=2.0, alpha=0.75)
        dv = torch.addmv(cv, a, v, beta=-1.0, alpha=3.0)
        out = torch.empty(0)
        torch.mm(a, b, out=out)
        inplace = c.clone().addmm_(a, b, beta=1.5)
    assert_bits(d, ref_gemm("A100", "bf16", a, b, c, -1.25, 0.5), "addmm alpha beta")
    assert_bits(d0, ref_gemm("A100", "bf16", a, b), "addmm beta 0")
    for i in range(2):
        assert_bits(d3[i], ref_gemm("A100", "bf16", a3[i], b3[i], c3[i], 0.75, 2.0), f"baddbmm[{i}]")
    assert_bits(dv, ref_gemm("A100", "bf16", a, v.unsqueeze(1), cv.unsqueeze(1), 3.0, -1.0), "addmv")
    assert_bits(out, ref_gemm("A100", "bf16", a, b), "mm out=")
    assert_bits(inplace, ref_gemm("A100", "bf16", a, b, c, 1.0, 1.5), "addmm_")
    assert mode.emulated["aten.mm.out"] == 1 and mode.emulated["aten.addmm_.default"] == 1


def test_vector_products_and_matmul_shapes(gen):
    a, x, y = randn(20, 96, gen=gen), randn(96, gen=gen), randn(96, gen=gen)
    with mt.emulate("H100", input="fp16") as mode:
        mv = torch.mv(a, x)
        mv2 = a @ x  # matmul 2-D @ 1-D -> mv
        dot = torch.dot(x, y)
        dot2 = x @ y  # matmul 1-D @ 1-D -> dot
        left = x @ a.t()  # 1-D @ 2-D -> mm of (1, k)
    assert_bits(mv, ref_gemm("H100", "fp16", a, x.unsqueeze(1)), "mv")
    assert_bits(mv2, ref_gemm("H100", "fp16", a, x.unsqueeze(1)), "matmul -> mv")
    assert_bits(dot, ref_gemm("H100", "fp16", x.unsqueeze(0), y.unsqueeze(1)), "dot")
    assert_bits(dot2, ref_gemm("H100", "fp16", x.unsqueeze(0), y.unsqueeze(1)), "matmul -> dot")
    assert_bits(left, ref_gemm("H100", "fp16", x.unsqueeze(0), a.t()), "1-D @ 2-D")
    assert mode.emulated["aten.mv.default"] == 2 and mode.emulated["aten.dot.default"] == 2
    with mt.emulate("H100", input="fp16", vector="native") as native:
        mv_n = torch.mv(a, x)
        dot_n = torch.dot(x, y)
    assert_bits(mv_n, bits_of(torch.mv(a, x)), "vector=native mv is torch's")
    assert_bits(dot_n, bits_of(torch.dot(x, y)), "vector=native dot is torch's")
    assert native.passed_through[("aten.mv.default", "vector=native")] == 1
    assert native.passed_through[("aten.dot.default", "vector=native")] == 1 and not native.emulated


def test_passed_through_ops_are_reported(gen):
    a64 = torch.randn(8, 8, dtype=torch.float64, generator=gen)
    ai = torch.randint(-3, 3, (8, 8), generator=gen)
    x, y = randn(8, gen=gen), randn(8, gen=gen)
    a = randn(8, 8, gen=gen)
    with mt.emulate("H100") as mode:
        r64 = a64 @ a64
        ri = ai @ ai
        outer = torch.addr(a, x, y)
        mixed_ok = torch.relu(a)  # not matrix-product-like: neither counted nor reported
    assert torch.equal(r64, a64 @ a64) and torch.equal(ri, ai @ ai) and torch.equal(outer, torch.addr(a, x, y))
    assert torch.equal(mixed_ok, torch.relu(a))
    assert mode.passed_through[("aten.mm.default", "dtype float64")] == 1
    assert mode.passed_through[("aten.mm.default", "dtype int64")] == 1
    assert mode.passed_through[("aten.addr.default", "not emulated")] == 1
    assert sum(mode.emulated.values()) == 0
    text = mode.report()
    assert "aten.mm.default" in text and "dtype float64" in text and "aten.addr.default" in text, text


def test_half_and_bfloat16_matmuls_torch_cannot_run_natively(gen):
    """torch 1.13's CPU has no float16 mm; under the mode it runs on the unit (fp16 -> fp32, then RNE)."""
    a, b = randn(16, 32, dtype=torch.float16, gen=gen), randn(32, 8, dtype=torch.float16, gen=gen)
    with mt.emulate("V100") as mode:
        d = a @ b
    assert d.dtype == torch.float16
    assert_bits(d, ref_gemm("V100", "fp16", a, b), "V100 fp16 tensors")
    d32 = mmaemu.matmul(codes_of(a), codes_of(b), "V100", a_format="fp16", b_format="fp16")  # fp32 accumulator
    assert_bits(d, mmaemu.convert(d32, "fp16"), "the fp32 accumulator rounded once (RNE) to float16")
    assert mode.emulated["aten.mm.default"] == 1


# ---------------------------------------------------------------------------
# Convolutions: the im2col structure against torch's own convolutions on
# small integers (every product and sum exact on the unit and natively), and
# the backward GEMMs.

def small_ints(*shape, gen, dtype=torch.float32):
    return torch.randint(-3, 4, shape, generator=gen).to(dtype)


@pytest.mark.parametrize("case", [
    dict(dims=1, stride=2, padding=1, dilation=1, groups=1),
    dict(dims=2, stride=1, padding=0, dilation=1, groups=1),
    dict(dims=2, stride=2, padding=2, dilation=2, groups=2),
    dict(dims=2, stride=(2, 1), padding=(1, 0), dilation=(1, 2), groups=1),
    dict(dims=3, stride=1, padding=1, dilation=1, groups=1),
], ids=lambda c: f"{c['dims']}d-s{c['stride']}-p{c['padding']}-d{c['dilation']}-g{c['groups']}")
@pytest.mark.parametrize("transposed", [False, True], ids=["conv", "transposed"])
def test_convolution_structure_forward_and_backward(case, transposed, gen):
    d, g = case["dims"], case["groups"]
    size = {1: (11,), 2: (9, 8), 3: (5, 6, 5)}[d]
    kern = {1: (3,), 2: (3, 2), 3: (2, 3, 2)}[d]
    x = small_ints(2, 4, *size, gen=gen).requires_grad_()
    if transposed:
        w = small_ints(4, 6 // g, *kern, gen=gen).requires_grad_()
        op = getattr(F, f"conv_transpose{d}d")
        kw = dict(stride=case["stride"], padding=case["padding"], dilation=case["dilation"], groups=g)
        extra = dict(output_padding=1) if case["stride"] == 2 else {}
        kw.update(extra)
    else:
        w = small_ints(6, 4 // g, *kern, gen=gen).requires_grad_()
        op = getattr(F, f"conv{d}d")
        kw = dict(stride=case["stride"], padding=case["padding"], dilation=case["dilation"], groups=g)
    bias = small_ints(6, gen=gen).requires_grad_()
    y_native = op(x, w, bias, **kw)
    gy = small_ints(*y_native.shape, gen=gen)
    gx_n, gw_n, gb_n = torch.autograd.grad(y_native, (x, w, bias), gy)
    with mt.emulate("H100", input="fp16") as mode:
        y = op(x, w, bias, **kw)
        gx, gw, gb = torch.autograd.grad(y, (x, w, bias), gy)
    what = f"{'transposed ' if transposed else ''}conv{d}d {case}"
    assert_bits(y, bits_of(y_native), f"{what}: forward == torch's on exact integers")
    assert_bits(gx, bits_of(gx_n), f"{what}: input gradient")
    assert_bits(gw, bits_of(gw_n), f"{what}: weight gradient")
    assert_bits(gb, bits_of(gb_n), f"{what}: bias gradient (native)")
    assert mode.emulated["aten.convolution.default"] == 1
    assert mode.emulated["aten.convolution_backward.default"] == 1


def test_convolution_weight_gradient_is_the_emulated_product(gen):
    """dW = dY^T @ X_cols per group, k = (n, output position), on H100's fp8 unit."""
    x = randn(2, 3, 7, 7, gen=gen)
    w = randn(5, 3, 3, 3, gen=gen).requires_grad_()
    with mt.emulate("H100", input="e4m3"):
        y = F.conv2d(x, w, padding=1)
        gy = torch.randn(y.shape, generator=gen)
        (gw,) = torch.autograd.grad(y, (w,), gy)
    cols = F.unfold(x, (3, 3), padding=1).transpose(1, 2).reshape(2 * 49, 27)
    dy = gy.transpose(0, 1).reshape(5, 2 * 49)
    assert_bits(gw, ref_gemm("H100", "e4m3", dy, cols), "conv2d weight gradient")


# ---------------------------------------------------------------------------
# Nesting, threads, the native block, errors.

def test_nesting_and_native_block(gen):
    a, b = randn(32, 64, gen=gen), randn(64, 16, gen=gen)
    h100, mi = ref_gemm("H100", "fp16", a, b), ref_gemm("MI300X", "fp32", a, b)
    assert (h100 != mi).any()
    with mt.emulate("H100", input="fp16") as outer:
        d1 = a @ b
        with mt.emulate("MI300X") as inner:
            d2 = a @ b
            with mt.emulate(None) as native:
                d3 = a @ b
            d4 = a @ b
        d5 = a @ b
        with pytest.raises(RuntimeError):
            with mt.emulate("MI300X"):
                raise RuntimeError("inside")
        d6 = a @ b
    d7 = a @ b
    assert_bits(d1, h100, "outer")
    assert_bits(d2, mi, "inner")
    assert_bits(d3, bits_of(torch.mm(a, b)), "native block")
    assert_bits(d4, mi, "inner again")
    assert_bits(d5, h100, "outer restored")
    assert_bits(d6, h100, "outer restored after an exception")
    assert_bits(d7, bits_of(torch.mm(a, b)), "after the blocks: native")
    assert outer.emulated["aten.mm.default"] == 3 and inner.emulated["aten.mm.default"] == 2
    assert native.passed_through[("aten.mm.default", "native block")] == 1
    assert not outer.passed_through and not inner.passed_through


def test_threads(gen):
    """torch's modes are per thread: a worker started inside the block runs natively unless it enters the block."""
    a, b = randn(32, 64, gen=gen), randn(64, 16, gen=gen)
    got = {}
    mode = mt.emulate("H100", input="fp16")

    def plain():
        got["plain"] = a @ b

    def entered():
        with mode:
            got["entered"] = a @ b

    with mode:
        for f in (plain, entered):
            t = threading.Thread(target=f)
            t.start()
            t.join()
        got["main"] = a @ b
    h100 = ref_gemm("H100", "fp16", a, b)
    assert_bits(got["main"], h100, "main thread")
    assert_bits(got["entered"], h100, "worker inside the block")
    assert_bits(got["plain"], bits_of(torch.mm(a, b)), "worker outside the block: native")
    assert mode.emulated["aten.mm.default"] == 2


def test_schedule_threads_and_output_options(gen):
    a, b = randn(8, 512, gen=gen), randn(512, 8, gen=gen)
    with mt.emulate("H100", input="e4m3", schedule="promote:128", threads=2) as mode:
        d = a @ b
    want = mmaemu.matmul(a.numpy(), b.numpy(), "H100", input="e4m3", schedule="promote:128").view(np.uint32)
    assert_bits(d, want, "promote:128")
    assert (want != ref_gemm("H100", "e4m3", a, b)).any(), "the schedule changed no bit (test cannot fail)"
    a16, b16 = a.half(), b.half()
    with mt.emulate("H100", output="fp16"):
        d16 = a16 @ b16
    want = mmaemu.matmul(codes_of(a16), codes_of(b16), "H100", a_format="fp16", b_format="fp16", output="fp16")
    assert_bits(d16, want, "the fp16-accumulating unit")
    assert "promote:128" in mode.report()


def test_errors_name_the_argument():
    with pytest.raises(TypeError, match="model"):
        mt.emulate(3)
    with pytest.raises(mmaemu.UnknownModelError):
        mt.emulate("H1000")
    with pytest.raises(TypeError, match="input"):
        mt.emulate("H100", input=16)
    with pytest.raises(mmaemu.Error, match="fp16"):  # the library's message lists the policies
        mt.emulate("H100", input="fp17")
    with pytest.raises(mmaemu.UnsupportedError):
        mt.emulate("V100", input="e4m3")  # no fp8 unit: refused, not substituted
    with pytest.raises(mmaemu.Error, match="multiple of the instruction k"):
        mt.emulate("H100", input="fp16", schedule="promote:24")
    with pytest.raises(ValueError, match="schedule"):
        mt.emulate("B200", input="nvfp4", schedule="promote:128")
    with pytest.raises(ValueError, match="vector"):
        mt.emulate("H100", vector="fma")
    with pytest.raises(ValueError, match="threads"):
        mt.emulate("H100", threads=-1)
    with pytest.raises(ValueError, match="input"):
        mt.emulate("H100", input={torch.float64: "fp16"})
    # A default policy the model lacks is refused when first used, naming the op and dtype.
    a = torch.ones(4, 4, dtype=torch.bfloat16)
    with pytest.raises(mmaemu.Error, match="aten.mm.default on bfloat16"):
        with mt.emulate("V100"):
            a @ a


def test_lazy_attribute():
    assert mmaemu.torch is mt


def test_matmul_block_scaled_policy_is_the_c_api(capi, gen):
    a, b = randn(16, 96, gen=gen).numpy(), randn(96, 24, gen=gen).numpy()
    for policy in mmaemu.BLOCK_SCALED_POLICIES:
        got = mmaemu.matmul(a, b, "B200", input=policy)
        assert_bits(torch.from_numpy(got), BlockScaledCApi(capi)("B200", policy, a, b).view(np.uint32),
                    f"B200 {policy}")
    with pytest.raises(ValueError, match="schedule"):
        mmaemu.matmul(a, b, "B200", input="nvfp4", schedule="promote:128")
    with pytest.raises(ValueError, match="rounding"):
        mmaemu.matmul(a, b, "B200", input="mxfp8", rounding="rz")
    with pytest.raises(TypeError, match="quantised under nvfp4"):
        mmaemu.matmul(a.astype(np.float64), b, "B200", input="nvfp4")
    with pytest.raises(mmaemu.UnsupportedError):
        mmaemu.matmul(a, b, "H100", input="nvfp4")


def test_per_tensor_fp8_scaling(gen):
    from mmaemu.torch._mode import quantise_tensor
    a, b, c = randn(16, 256, gen=gen) * 30, randn(256, 8, gen=gen) * 1e-3, randn(16, 8, gen=gen)
    # The rule of the FNUZ formats is the library's rule of the OCP ones.
    for fmt in ("e4m3", "e5m2"):
        for x in (a, b, torch.zeros(3, 4)):
            q1, s1 = quantise_tensor(x.numpy(), fmt)
            q2, s2 = quantise_tensor(x.numpy(), fmt, library=False)
            assert np.array_equal(q1, q2) and s1.view(np.uint32) == s2.view(np.uint32), fmt
    for model, policy, fmt in (("H100", "e4m3", "e4m3"), ("MI300X", "fp8", "e4m3fnuz")):
        with mt.emulate(model, input=policy, scaling="tensor", schedule="promote:128" if model == "H100"
                        else "chain") as mode:
            d = torch.addmm(c, a, b, beta=0.5, alpha=2.0)
            d16 = a.half() @ b.half()
        sched = "promote:128" if model == "H100" else "chain"
        qa, sa = quantise_tensor(a.numpy(), fmt)
        qb, sb = quantise_tensor(b.numpy(), fmt)
        al = np.float32(np.float32(2.0) * np.float32(sa * sb))
        want = mmaemu.matmul(qa, qb, model, a_format=fmt, b_format=fmt, c=c.numpy(), alpha=float(al), beta=0.5,
                             c_format="fp32", schedule=sched)
        assert_bits(d, want.view(np.uint32), f"{model} {policy} per-tensor scaled addmm")
        qa16, sa16 = quantise_tensor(a.half().float().numpy(), fmt)
        qb16, sb16 = quantise_tensor(b.half().float().numpy(), fmt)
        want16 = mmaemu.matmul(qa16, qb16, model, a_format=fmt, b_format=fmt, alpha=float(np.float32(sa16 * sb16)),
                               c_format="fp16", schedule=sched)
        assert_bits(d16, want16, f"{model} {policy} per-tensor scaled float16")
        unscaled = ref_gemm(model, policy, a, b, c, 2.0, 0.5)
        assert (unscaled != want.view(np.uint32)).any()
        assert "scaling tensor" in mode.report()
    with pytest.raises(ValueError, match="scaling"):
        mt.emulate("H100", input="fp16", scaling="tensor")
    with pytest.raises(ValueError, match="scaling"):
        mt.emulate("H100", input="e4m3", scaling="block")


def test_lm_numerics_smoke(tmp_path):
    """The model recipe (python/examples/lm_numerics.py --smoke): every setting runs, nothing passes through."""
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(__file__), "..", "examples", "lm_numerics.py")
    corpus = "/usr/lib/python3.11"
    if not os.path.isdir(corpus) or not any(n.endswith(".py") for n in os.listdir(corpus)):
        pytest.skip("no Python standard library sources to train on")
    spec = importlib.util.spec_from_file_location("lm_numerics", path)
    lm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lm)
    table = tmp_path / "lm.md"
    rows = lm.main(["--smoke", "--table", str(table)])
    assert [r[0] for r in rows] == ["fp32 (native)"] + [s[0] for s in lm.SETTINGS]
    assert all(np.isfinite(r[1]) for r in rows)
    text = table.read_text()
    assert all(s[0] in text for s in lm.SETTINGS)


def test_int_mm_on_the_integer_unit(gen):
    """torch._int_mm (torch >= 2.1) runs on the model's integer unit; Debian's torch 1.13 has no _int_mm,
    so its handler is tested here through the mode's own entry: int8 tensors, int32 results equal to
    mmaemu.matmul(input="int8") and to exact integer arithmetic wrapped modulo 2^32."""
    from mmaemu.torch import _mode
    a = torch.randint(-128, 128, (17, 70), generator=gen, dtype=torch.int64).to(torch.int8)
    b = torch.randint(-128, 128, (70, 9), generator=gen, dtype=torch.int64).to(torch.int8)
    a[0].fill_(-128), b[:, 0].fill_(-128)  # the largest products
    cfg = _mode.Config("H100", None, None, "chain", "gpu-blas", None, None, 1)
    g = _mode.Counted(cfg)
    for bt in (b, b.t().contiguous().t()):  # row-major, and a column-major view
        d = _mode._int_mm(g, a, bt)
        assert d.dtype == torch.int32 and d.shape == (17, 9)
        want = mmaemu.matmul(a.numpy(), np.ascontiguousarray(bt.numpy()), "H100", input="int8")
        assert np.array_equal(d.numpy(), want)
        exact = a.numpy().astype(np.int64) @ bt.numpy().astype(np.int64)
        assert np.array_equal(d.numpy(), ((exact + 2**31) % 2**32 - 2**31).astype(np.int32))
    assert g.flops == 2 * 2 * 17 * 70 * 9
    # Wrapping: k = 2^17 products of -128 * -128 pass 2^31.
    big = torch.full((1, 1 << 17), -128, dtype=torch.int8)
    assert int(_mode._int_mm(g, big, big.t())[0, 0]) == ((1 << 31) - 2**32)
    # Where the integer unit is missing, the error names the model's units; int8 only.
    with pytest.raises(mmaemu.Error):
        _mode._int_mm(mt_config_counted("V100"), a, b)
    assert _mode._unsupported_int((a, b), {}) is None
    assert "int8 x int8" in _mode._unsupported_int((a.to(torch.int32), b), {})
    has = getattr(torch.ops.aten, "_int_mm", None) is not None
    assert (torch.ops.aten._int_mm.default in _mode.HANDLERS) if has else all(
        name != "_int_mm" for name, _, _ in _mode.HANDLERS.values())
    if has:  # a torch with _int_mm: through the mode itself
        with mt.emulate("H100") as mode:
            d = torch._int_mm(a, b)
        assert np.array_equal(d.numpy(), mmaemu.matmul(a.numpy(), b.numpy(), "H100", input="int8"))
        assert mode.emulated["aten._int_mm.default"] == 1


def mt_config_counted(model):
    from mmaemu.torch import _mode
    return _mode.Counted(_mode.Config(model, None, None, "chain", "gpu-blas", None, None, 1))
