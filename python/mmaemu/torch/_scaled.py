# SPDX-License-Identifier: BSD-3-Clause
"""scaled_mm (torch._scaled_mm's semantics on a GPU model) and block-scaled linear layers."""
import numpy as np
import torch

import mmaemu

from ._mode import DTYPES, dtype_name, from_numpy, to_numpy

_FP8_FORMATS = ("e4m3", "e5m2", "e4m3fnuz", "e5m2fnuz")
#: torch's float8 dtypes, where this torch has them, and their mmaemu formats.
FLOAT8_DTYPES = {getattr(torch, name): fmt for name, fmt in (
    ("float8_e4m3fn", "e4m3"), ("float8_e5m2", "e5m2"), ("float8_e4m3fnuz", "e4m3fnuz"),
    ("float8_e5m2fnuz", "e5m2fnuz")) if hasattr(torch, name)}
_OUT_CODES = {torch.bfloat16: "bf16", torch.float16: "fp16"}


def _fp8_operand(x, fmt, arg, fmt_arg):
    """(uint8 codes as numpy, format) of an fp8 operand: a float8 tensor, or uint8 codes with fmt."""
    if not isinstance(x, torch.Tensor):
        raise TypeError(f"{arg} must be a torch.Tensor, not {type(x).__name__}")
    if x.dim() != 2:
        raise ValueError(f"{arg} must be 2-D; it has shape {tuple(x.shape)}")
    if x.device.type != "cpu":
        raise ValueError(f"{arg} is on {x.device}; mmaemu.torch runs on CPU tensors")
    if x.dtype in FLOAT8_DTYPES:
        own = FLOAT8_DTYPES[x.dtype]
        if fmt is not None and fmt != own:
            raise ValueError(f"{fmt_arg}={fmt!r} contradicts {arg}'s dtype {x.dtype} ({own})")
        return to_numpy(x.view(torch.uint8)), own
    if x.dtype != torch.uint8:
        raise TypeError(f"{arg} has dtype {x.dtype}; it must hold fp8 codes: torch.uint8 with {fmt_arg}=, or a "
                        f"float8 dtype where torch has them")
    if fmt is None:
        raise ValueError(f"{arg} holds uint8 codes: name their format with {fmt_arg}= (one of "
                         f"{', '.join(_FP8_FORMATS)})")
    if fmt not in _FP8_FORMATS:
        raise ValueError(f"{fmt_arg}={fmt!r} is not an fp8 format ({', '.join(_FP8_FORMATS)})")
    return to_numpy(x), fmt


def _scale(s, arg, n, axis):
    """A float32 scale tensor: one value (per tensor) or n values (row-wise: (m, 1) for scale_a, (1, n) for
    scale_b); returned as a float32 numpy vector of length 1 or n."""
    if not isinstance(s, torch.Tensor):
        raise TypeError(f"{arg} must be a float32 torch.Tensor, not {type(s).__name__}")
    if s.dtype != torch.float32:
        raise TypeError(f"{arg} has dtype {s.dtype}; it must be torch.float32")
    want = (n, 1) if axis == 0 else (1, n)
    if s.numel() == 1:
        return s.detach().reshape(1).numpy().astype(np.float32)
    if tuple(s.shape) != want:
        raise ValueError(f"{arg} must hold one value (per-tensor scaling) or have shape {want} (row-wise); it has "
                         f"shape {tuple(s.shape)}")
    return np.ascontiguousarray(s.detach().reshape(n).numpy(), dtype=np.float32)


def fma32(s, x, b):
    """fl32(s*x + b) with one rounding (RNE), elementwise, for float32 arrays (broadcast).

    s*x is exact in binary64; the sum is rounded to odd in binary64 (its
    exact error from TwoSum picks the neighbour with an odd last bit), so
    the final rounding to binary32 is the correctly rounded fma (round to
    odd with 53 >= 24 + 2 bits, Boldo and Melquiond)."""
    p = s.astype(np.float64) * x.astype(np.float64)
    b = np.broadcast_to(b.astype(np.float64), p.shape)
    with np.errstate(invalid="ignore", over="ignore"):
        t = p + b
        bp = t - p
        e = (p - (t - bp)) + (b - bp)  # TwoSum: t + e == p + b exactly (finite t)
        bits = t.view(np.uint64)
        fix = np.isfinite(t) & (e != 0) & ((bits & 1) == 0)
        t = np.where(fix, np.nextafter(t, np.where(e > 0, np.inf, -np.inf)), t)
        return t.astype(np.float32)


def scaled_mm(a, b, scale_a, scale_b, bias=None, scale_result=None, out_dtype=None, use_fast_accum=False, *,
              model, format=None, b_format=None, schedule=None, threads=0):
    """torch._scaled_mm(a, b, scale_a, scale_b, bias, scale_result, out_dtype, use_fast_accum) on `model`'s fp8 unit.

    a (m x k), b (k x n): fp8 operands, float8 tensors where torch has the
    dtypes, else torch.uint8 codes with format= ("e4m3", "e5m2", "e4m3fnuz",
    "e5m2fnuz"; b_format= if b's differs). Any layout (torch wants b
    column-major; here row-major and column-major are read in place).
    scale_a, scale_b: float32 decode scales, one per tensor (numel 1) or one
    per row of a ((m, 1)) and column of b ((1, n)).
    bias: n values (float32, bfloat16 or float16; widened exactly).
    out_dtype: torch.float32, torch.bfloat16 or torch.float16 (an fp8
    output, and so scale_result, is not supported).

    D = the unit's fp32 accumulation of a @ b under `schedule`; then
    s = fl32(scale_a[i] * scale_b[j]), D = fl32(s * acc + bias[j]) with one
    rounding (an fma; fl32(s * acc) without bias), RNE; then one RNE rounding
    to out_dtype. Per-tensor scales run this epilogue in the library
    (mmaemu.matmul's alpha = s, c = bias, beta = 1).
    use_fast_accum: schedule None means "chain" for True (the unit's own
    accumulator along all of k: cuBLASLt's fast accumulation) and
    "promote:128" for False (the partial sum moved into an fp32 accumulator
    every 128 elements). The interval and split-K choice a vendor library
    makes for a shape are not known without the hardware: pass schedule= to
    choose them.
    """
    if scale_result is not None:
        raise ValueError("scale_result scales an fp8 output, which is not supported: out_dtype must be "
                         "torch.float32, torch.bfloat16 or torch.float16")
    if out_dtype is None:
        raise ValueError("out_dtype: give torch.float32, torch.bfloat16 or torch.float16 (an fp8 output is not "
                         "supported)")
    if out_dtype not in DTYPES:
        raise ValueError(f"out_dtype={out_dtype} is not supported: torch.float32, torch.bfloat16 or torch.float16")
    an, fa = _fp8_operand(a, format, "a", "format")
    bn, fb = _fp8_operand(b, b_format if b_format is not None else (format if b.dtype == torch.uint8 else None),
                          "b", "b_format")
    m, k = an.shape
    if bn.shape[0] != k:
        raise ValueError(f"a is {m} x {k} but b is {bn.shape[0]} x {bn.shape[1]}: inner dimensions differ")
    n = bn.shape[1]
    sa, sb = _scale(scale_a, "scale_a", m, 0), _scale(scale_b, "scale_b", n, 1)
    if schedule is None:
        schedule = "chain" if use_fast_accum else "promote:128"
    bias_n = None
    if bias is not None:
        if not isinstance(bias, torch.Tensor):
            raise TypeError(f"bias must be a torch.Tensor, not {type(bias).__name__}")
        if bias.dtype not in DTYPES:
            raise TypeError(f"bias has dtype {bias.dtype}; it must be float32, bfloat16 or float16")
        if bias.numel() != n or bias.dim() != 1:
            raise ValueError(f"bias must have shape ({n},) (b's columns); it has shape {tuple(bias.shape)}")
        bias_n = bias.detach().float().numpy()
    if fa != fb:
        raise ValueError(f"a holds {fa} and b {fb}: the models' fp8 units read one format (mixed fp8 operands "
                         f"are not supported)")
    gemm = dict(a_format=fa, b_format=fb, input=fa, output="fp32", c_format="fp32", schedule=schedule,
                threads=threads)
    if sa.size == 1 and sb.size == 1:
        s = float((sa.astype(np.float64) * sb.astype(np.float64)).astype(np.float32)[0])
        c = None if bias_n is None else np.ascontiguousarray(np.broadcast_to(bias_n, (m, n)), dtype=np.float32)
        d = mmaemu.matmul(an, bn, model, alpha=s, c=c, beta=0.0 if c is None else 1.0, **gemm)
    else:
        acc = mmaemu.matmul(an, bn, model, **gemm)
        s = (sa.astype(np.float64)[:, None] * sb.astype(np.float64)[None, :]).astype(np.float32)
        if sa.size == 1:
            s = np.broadcast_to(s, (m, n))
        d = (s.astype(np.float64) * acc.astype(np.float64)).astype(np.float32) if bias_n is None else \
            fma32(s, acc, bias_n[None, :])
    d = np.ascontiguousarray(d, dtype=np.float32)
    if out_dtype != torch.float32:
        d = mmaemu.convert(d, _OUT_CODES[out_dtype])
    return from_numpy(d, out_dtype)


# ---------------------------------------------------------------------------
# Block-scaled linear layers.

#: The block-scaled formats of the linear helpers (the C API's block-scaled sgemm policies).
BLOCK_SCALED_FORMATS = mmaemu.BLOCK_SCALED_POLICIES


def _check_format(format):
    if not isinstance(format, str):
        raise TypeError(f"format must be a str, not {type(format).__name__}")
    if format.lower() not in BLOCK_SCALED_FORMATS:
        raise ValueError(f"format={format!r} is not a block-scaled format: {', '.join(BLOCK_SCALED_FORMATS)}")
    return format.lower()


def _linear_forward(x, weight, bias, model, format):
    if x.dtype not in DTYPES or weight.dtype != x.dtype or (bias is not None and bias.dtype != x.dtype):
        raise TypeError(f"block-scaled linear: x, weight and bias must share one of float32, float16, bfloat16 "
                        f"(x {dtype_name(x.dtype)}, weight {dtype_name(weight.dtype)}"
                        f"{'' if bias is None else ', bias ' + dtype_name(bias.dtype)})")
    k = weight.shape[1]
    if x.shape[-1] != k:
        raise ValueError(f"block-scaled linear: x has {x.shape[-1]} features, weight {tuple(weight.shape)}")
    x2 = x.detach().reshape(-1, k).float()
    w = weight.detach().float()
    m, n = x2.shape[0], weight.shape[0]
    c = None if bias is None else np.ascontiguousarray(
        np.broadcast_to(bias.detach().float().numpy(), (m, n)), dtype=np.float32)
    d = mmaemu.matmul(to_numpy(x2), to_numpy(w).T, model, input=format, c=c, beta=0.0 if c is None else 1.0)
    if x.dtype != torch.float32:
        d = mmaemu.convert(d, "fp16" if x.dtype == torch.float16 else "bf16")
    return from_numpy(d, x.dtype).reshape(*x.shape[:-1], n)


class _BlockScaledLinear(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, bias, model, format):
        ctx.save_for_backward(x, weight)
        ctx.has_bias = bias is not None
        return _linear_forward(x, weight, bias, model, format)

    @staticmethod
    def backward(ctx, gy):
        # Straight through: the gradients of the unquantised linear layer, by
        # torch's own matrix products (emulated inside mmaemu.torch.emulate).
        x, weight = ctx.saved_tensors
        n, k = weight.shape
        g2 = gy.reshape(-1, n)
        gx = (g2 @ weight).reshape(x.shape) if ctx.needs_input_grad[0] else None
        gw = g2.t() @ x.reshape(-1, k) if ctx.needs_input_grad[1] else None
        gb = g2.sum(0) if ctx.has_bias and ctx.needs_input_grad[2] else None
        return gx, gw, gb, None, None


def block_scaled_linear(x, weight, bias=None, *, model="B200", format="nvfp4"):
    """F.linear(x, weight, bias) with x and weight quantised per block of k and the unit's block-scaled GEMM.

    format: "mxfp8" (e4m3), "mxfp8:e5m2", "mxfp6" (e2m3), "mxfp6:e3m2",
    "mxfp4" (OCP MX: UE8M0 scale per 32 values) or "nvfp4" (e2m1, UE4M3
    scale per 16 and a per-tensor scale per operand; docs/block-scaled.md).
    model: a model with block-scaled units (B200: tcgen05; RTXPRO6000:
    mma.sync). The rows of x and of weight (both along in_features) are
    quantised by the library's quantisers (mmaemu.quantize_mx /
    quantize_nvfp4), multiplied on the unit, and bias is added in the
    library's fp32 epilogue (fl32(acc + bias), one rounding); float16 and
    bfloat16 inputs are widened exactly and the result rounded once (RNE)
    to their dtype. Backward: straight through (the unquantised layer's
    gradients).
    """
    if not isinstance(x, torch.Tensor) or not isinstance(weight, torch.Tensor):
        raise TypeError("x and weight must be torch.Tensors")
    if weight.dim() != 2:
        raise ValueError(f"weight must be 2-D (out_features x in_features); it has shape {tuple(weight.shape)}")
    return _BlockScaledLinear.apply(x, weight, bias, model, _check_format(format))


class BlockScaledLinear(torch.nn.Module):
    """An nn.Linear whose forward runs block-scaled (block_scaled_linear); it shares the layer's parameters."""

    def __init__(self, linear, model="B200", format="nvfp4"):
        super().__init__()
        if not isinstance(linear, torch.nn.Linear):
            raise TypeError(f"linear must be a torch.nn.Linear, not {type(linear).__name__}")
        self.format = _check_format(format)
        self.model = model if isinstance(model, mmaemu.Model) else mmaemu.Model(model)
        self.in_features, self.out_features = linear.in_features, linear.out_features
        self.weight, self.bias = linear.weight, linear.bias

    def forward(self, x):
        return block_scaled_linear(x, self.weight, self.bias, model=self.model, format=self.format)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}, "
                f"model={self.model.spec}, format={self.format}")


def swap_linears(module, model="B200", format="nvfp4", where=None):
    """Replaces, in place, every nn.Linear inside `module` (where(name, layer) true, if given) by a
    BlockScaledLinear sharing its parameters; returns the names of the layers replaced."""
    _check_format(format)
    replaced = []
    for name, child in list(module.named_modules()):
        for attr, layer in list(child.named_children()):
            full = f"{name}.{attr}" if name else attr
            if isinstance(layer, torch.nn.Linear) and (where is None or where(full, layer)):
                setattr(child, attr, BlockScaledLinear(layer, model, format))
                replaced.append(full)
    return replaced
