# SPDX-License-Identifier: BSD-3-Clause
"""mmaemu.torch.scaled_mm (torch._scaled_mm's semantics) against the unit's
accumulator and an exact-rational epilogue; the block-scaled linear helpers
against the explicit quantisers and gemm_block_scaled. Bits, never tolerances."""
from fractions import Fraction

import numpy as np
import pytest

torch = pytest.importorskip("torch")
F = torch.nn.functional

import mmaemu  # noqa: E402
import mmaemu.torch as mt  # noqa: E402
from mmaemu.torch._scaled import fma32  # noqa: E402
from test_torch import assert_bits, bits_of  # noqa: E402


def fp8_codes(shape, fmt, gen, scale=1.0):
    x = (torch.randn(*shape, generator=gen) * scale).numpy().astype(np.float64)
    return torch.from_numpy(mmaemu.convert(x, fmt, saturate=True))


def rne32(q):
    """A rational rounded to binary32, nearest even (subnormals and overflow to Inf included)."""
    if q == 0:
        return np.float32(0.0)
    neg, q = q < 0, abs(q)
    e = q.numerator.bit_length() - q.denominator.bit_length()  # 2^e <= q < 2^(e+1), after the fix-up
    if Fraction(2) ** e > q:
        e -= 1
    ulp = Fraction(2) ** (max(e, -126) - 23)
    n, rest = divmod(q / ulp, 1)
    if rest > Fraction(1, 2) or (rest == Fraction(1, 2) and n % 2 == 1):
        n += 1
    v = n * ulp
    r = np.float32(np.inf) if v >= Fraction(2) ** 128 else np.float32(float(v))  # v fits binary32 exactly
    return -r if neg else r


def exact_epilogue(s, acc, bias):
    """fl32(s*acc + bias) with one rounding, by exact rationals, elementwise."""
    out = np.empty(acc.shape, np.float32)
    for idx in np.ndindex(acc.shape):
        q = Fraction(float(s[idx])) * Fraction(float(acc[idx]))
        if bias is not None:
            q += Fraction(float(bias[idx]))
        out[idx] = rne32(q)
    return out


@pytest.fixture
def gen():
    return torch.Generator().manual_seed(99)


def test_fma32_is_one_rounding(gen):
    rng = np.random.default_rng(3)
    s = rng.standard_normal(400).astype(np.float32)
    x = (rng.standard_normal(400) * 2.0 ** rng.integers(-30, 30, 400)).astype(np.float32)
    b = (rng.standard_normal(400) * 2.0 ** rng.integers(-30, 30, 400)).astype(np.float32)
    # Ties and near-ties of binary32 that a product-then-add in binary32 (two roundings) gets wrong.
    s[:3] = np.float32(1 + 2 ** -12)
    x[:3] = np.float32(1 + 2 ** -12)
    b[:3] = np.float32([-(1 + 2 ** -11), -1.0, 2.0 ** -40])
    want = exact_epilogue(s, x, b)
    assert_bits(torch.from_numpy(fma32(s, x, b)), want.view(np.uint32), "fma32 vs exact rationals")
    two = (s * x) + b
    assert (two.view(np.uint32) != want.view(np.uint32)).any(), "no case where two roundings differ"


@pytest.mark.parametrize("out_dtype", [torch.float32, torch.bfloat16, torch.float16], ids=str)
@pytest.mark.parametrize("rowwise", [False, True], ids=["per-tensor", "row-wise"])
@pytest.mark.parametrize("model,fmt", [("H100", "e4m3"), ("H100", "e5m2"), ("B200", "e4m3"),
                                       ("MI300X", "e4m3fnuz")], ids=str)
def test_scaled_mm_epilogue(model, fmt, rowwise, out_dtype, gen):
    m, k, n = 8, 256, 12
    a, b = fp8_codes((m, k), fmt, gen), fp8_codes((k, n), fmt, gen)
    if rowwise:
        sa, sb = torch.rand(m, 1, generator=gen) + 0.5, torch.rand(1, n, generator=gen) + 0.5
    else:
        sa, sb = torch.tensor(0.37), torch.tensor([1.9])
    bias = torch.randn(n, generator=gen).to(out_dtype)
    what = f"{model} {fmt} {'row-wise' if rowwise else 'per-tensor'} -> {out_dtype}"
    for use_fast_accum, schedule in ((True, "chain"), (False, "promote:128")):
        got = mt.scaled_mm(a, b.t().contiguous().t(), sa, sb, bias=bias, out_dtype=out_dtype,
                           use_fast_accum=use_fast_accum, model=model, format=fmt)
        assert got.dtype == out_dtype and got.shape == (m, n)
        acc = mmaemu.matmul(a.numpy(), b.numpy(), model, a_format=fmt, b_format=fmt, output="fp32",
                            c_format="fp32", schedule=schedule)
        s = (sa.double().reshape(-1, 1) * sb.double().reshape(1, -1)).float().expand(m, n).numpy()
        d = exact_epilogue(s, acc, np.broadcast_to(bias.float().numpy(), (m, n)))
        want = d.view(np.uint32) if out_dtype == torch.float32 else \
            mmaemu.convert(d, "bf16" if out_dtype == torch.bfloat16 else "fp16")
        assert_bits(got, want, f"{what} use_fast_accum={use_fast_accum}")
        nobias = mt.scaled_mm(a, b, sa, sb, out_dtype=torch.float32, use_fast_accum=use_fast_accum, model=model,
                              format=fmt)
        assert_bits(nobias, exact_epilogue(s, acc, None).view(np.uint32), f"{what} without bias")


def test_scaled_mm_fast_accum_maps_to_the_schedule(gen):
    a, b = fp8_codes((4, 4096), "e4m3", gen), fp8_codes((4096, 4), "e4m3", gen)
    one = torch.tensor(1.0)
    fast = mt.scaled_mm(a, b, one, one, out_dtype=torch.float32, use_fast_accum=True, model="H100", format="e4m3")
    slow = mt.scaled_mm(a, b, one, one, out_dtype=torch.float32, use_fast_accum=False, model="H100", format="e4m3")
    chosen = mt.scaled_mm(a, b, one, one, out_dtype=torch.float32, model="H100", format="e4m3", schedule="splitk:4")
    for got, schedule in ((fast, "chain"), (slow, "promote:128"), (chosen, "splitk:4")):
        want = mmaemu.matmul(a.numpy(), b.numpy(), "H100", a_format="e4m3", b_format="e4m3", schedule=schedule)
        assert_bits(got, want.view(np.uint32), f"H100 e4m3 {schedule}")
    assert (bits_of(fast) != bits_of(slow)).any(), "chain and promote:128 agree here (test cannot fail)"


def test_scaled_mm_float8_dtypes(gen):
    if not mt.FLOAT8_DTYPES:
        pytest.skip(f"torch {torch.__version__} has no float8 dtypes (uint8 codes with format= instead)")
    for dtype, fmt in mt.FLOAT8_DTYPES.items():
        a, b = fp8_codes((4, 64), fmt, gen), fp8_codes((64, 8), fmt, gen)
        one = torch.tensor(1.0)
        got = mt.scaled_mm(a.view(dtype), b.view(dtype), one, one, out_dtype=torch.float32, model="H100"
                           if "fnuz" not in fmt else "MI300X")
        want = mt.scaled_mm(a, b, one, one, out_dtype=torch.float32, model="H100" if "fnuz" not in fmt else "MI300X",
                            format=fmt)
        assert np.array_equal(bits_of(got), bits_of(want)), fmt


def test_scaled_mm_errors(gen):
    a, b = fp8_codes((4, 32), "e4m3", gen), fp8_codes((32, 8), "e4m3", gen)
    one = torch.tensor(1.0)
    kw = dict(out_dtype=torch.float32, model="H100")
    with pytest.raises(ValueError, match="format="):
        mt.scaled_mm(a, b, one, one, **kw)
    with pytest.raises(TypeError, match="^a has dtype torch.float32"):
        mt.scaled_mm(a.float(), b, one, one, format="e4m3", **kw)
    with pytest.raises(ValueError, match="format='fp16' is not an fp8 format"):
        mt.scaled_mm(a, b, one, one, format="fp16", **kw)
    with pytest.raises(ValueError, match="scale_a must hold one value"):
        mt.scaled_mm(a, b, torch.ones(3), one, format="e4m3", **kw)
    with pytest.raises(TypeError, match="scale_b has dtype torch.float64"):
        mt.scaled_mm(a, b, one, one.double(), format="e4m3", **kw)
    with pytest.raises(ValueError, match="out_dtype"):
        mt.scaled_mm(a, b, one, one, model="H100", format="e4m3")
    with pytest.raises(ValueError, match="scale_result"):
        mt.scaled_mm(a, b, one, one, scale_result=one, format="e4m3", **kw)
    with pytest.raises(ValueError, match="mixed fp8"):
        mt.scaled_mm(a, b, one, one, format="e4m3", b_format="e5m2", **kw)
    with pytest.raises(ValueError, match="bias must have shape"):
        mt.scaled_mm(a, b, one, one, bias=torch.ones(3), format="e4m3", **kw)
    with pytest.raises(ValueError, match="inner dimensions"):
        mt.scaled_mm(a, a, one, one, format="e4m3", **kw)
    with pytest.raises(mmaemu.UnsupportedError):
        mt.scaled_mm(a, b, one, one, format="e4m3", out_dtype=torch.float32, model="V100")


# ---------------------------------------------------------------------------
# Block-scaled linear layers.

ELEMENT = {"mxfp8": "e4m3", "mxfp8:e5m2": "e5m2", "mxfp6": "e2m3", "mxfp6:e3m2": "e3m2", "mxfp4": "e2m1"}


def explicit_block_scaled(x, w, bias, model, fmt):
    """y = x @ w^T + bias by the explicit quantisers and gemm_block_scaled (float32 numpy)."""
    x, w = np.ascontiguousarray(x, np.float32), np.ascontiguousarray(w, np.float32)
    c = None if bias is None else np.ascontiguousarray(np.broadcast_to(bias, (x.shape[0], w.shape[0])), np.float32)
    beta = 0.0 if c is None else 1.0
    if fmt == "nvfp4":
        qa, sa, ga = mmaemu.quantize_nvfp4(x)
        qb, sb, gb = mmaemu.quantize_nvfp4(w)
        return mmaemu.gemm_block_scaled(qa, sa, qb.T, sb.T, model, a_format="e2m1", scale_format="ue4m3",
                                        block_size=16, a_global_scale=ga, b_global_scale=gb, c=c, beta=beta)
    el = ELEMENT[fmt]
    qa, sa = mmaemu.quantize_mx(x, el)
    qb, sb = mmaemu.quantize_mx(w, el)
    return mmaemu.gemm_block_scaled(qa, sa, qb.T, sb.T, model, a_format=el, c=c, beta=beta)


@pytest.mark.parametrize("fmt", list(mt.BLOCK_SCALED_FORMATS))
@pytest.mark.parametrize("model", ["B200", "RTXPRO6000"])
def test_block_scaled_linear(model, fmt, gen):
    layer = torch.nn.Linear(64, 24)
    x = torch.randn(3, 5, 64, generator=gen)
    want = explicit_block_scaled(x.reshape(15, 64).numpy(), layer.weight.detach().numpy(),
                                 layer.bias.detach().numpy(), model, fmt)
    bl = mt.BlockScaledLinear(layer, model, fmt)
    got = bl(x)
    assert got.shape == (3, 5, 24) and got.requires_grad
    assert_bits(got, want.view(np.uint32), f"{model} {fmt} BlockScaledLinear vs quantise + gemm_block_scaled")
    # The same layer under the mode with the block-scaled policy: the same bits.
    with mt.emulate(model, input=fmt):
        again = F.linear(x, layer.weight, layer.bias)
    assert_bits(again, want.view(np.uint32), f"{model} {fmt} emulate(input={fmt})")
    # float16 / bfloat16: widened exactly, the result rounded once.
    for dtype, code in ((torch.float16, "fp16"), (torch.bfloat16, "bf16")):
        xh, wh, bh = x.to(dtype), layer.weight.detach().to(dtype), layer.bias.detach().to(dtype)
        got_h = mt.block_scaled_linear(xh, wh, bh, model=model, format=fmt)
        want_h = explicit_block_scaled(xh.float().reshape(15, 64).numpy(), wh.float().numpy(), bh.float().numpy(),
                                       model, fmt)
        assert got_h.dtype == dtype
        assert_bits(got_h, mmaemu.convert(want_h, code), f"{model} {fmt} {dtype}")


def test_block_scaled_linear_backward_is_straight_through(gen):
    layer = torch.nn.Linear(32, 8)
    x = torch.randn(6, 32, generator=gen, requires_grad=True)
    g = torch.randn(6, 8, generator=gen)
    mt.BlockScaledLinear(layer, "B200", "mxfp8")(x).backward(g)
    gx, gw, gb = x.grad.clone(), layer.weight.grad.clone(), layer.bias.grad.clone()
    x.grad = None
    layer.zero_grad()
    layer(x).backward(g)
    assert np.array_equal(bits_of(gx), bits_of(x.grad)) and np.array_equal(bits_of(gw), bits_of(layer.weight.grad))
    assert np.array_equal(bits_of(gb), bits_of(layer.bias.grad))
    # Inside the mode, the backward's products are emulated like any other.
    x.grad = None
    with mt.emulate("H100", input="fp16") as mode:
        mt.BlockScaledLinear(layer, "B200", "mxfp8")(x).backward(g)
    assert_bits(x.grad, mmaemu.matmul(g.numpy(), layer.weight.detach().numpy(), "H100", input="fp16").view(np.uint32),
                "straight-through input gradient under the mode")
    assert mode.emulated["aten.mm.default"] == 2


def test_swap_linears_and_errors(gen):
    net = torch.nn.Sequential(torch.nn.Linear(32, 16), torch.nn.ReLU(),
                              torch.nn.Sequential(torch.nn.Linear(16, 16), torch.nn.Linear(16, 4)))
    x = torch.randn(5, 32, generator=gen)
    ref = explicit_block_scaled(x.numpy(), net[0].weight.detach().numpy(), net[0].bias.detach().numpy(), "B200",
                                "nvfp4")
    names = mt.swap_linears(net, "B200", "nvfp4", where=lambda name, layer: name != "2.1")
    assert names == ["0", "2.0"] and isinstance(net[2][1], torch.nn.Linear)
    assert isinstance(net[0], mt.BlockScaledLinear) and "nvfp4" in repr(net)
    assert_bits(net[0](x), ref.view(np.uint32), "swapped layer")
    net(x)
    with pytest.raises(ValueError, match="format='fp8'"):
        mt.swap_linears(net, "B200", "fp8")
    with pytest.raises(TypeError, match="linear must be a torch.nn.Linear"):
        mt.BlockScaledLinear(torch.nn.ReLU())
    with pytest.raises(TypeError, match="share one of"):
        mt.block_scaled_linear(x.double(), net[0].weight, format="mxfp8")
    with pytest.raises(mmaemu.UnsupportedError):
        mt.block_scaled_linear(x, net[0].weight, model="H100", format="mxfp8")
