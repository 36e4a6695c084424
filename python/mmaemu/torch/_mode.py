# SPDX-License-Identifier: BSD-3-Clause
"""mmaemu.torch.emulate: a TorchDispatchMode that runs CPU matrix products on a GPU model.

Below autograd, torch's composite operations (matmul, linear, einsum,
tensordot, multi-head attention, ...) have already decomposed into the aten
operations handled here; the backward pass's matrix products are aten calls
too. Every product goes to mmaemu.matmul (or, for a block-scaled policy, the
C API's block-scaled sgemm), so its bits are those of the library's
reference on the same operands (docs/python.md, "PyTorch without the
preload").
"""
import collections
import sys
import threading
import time

import numpy as np
import torch
from torch.utils._python_dispatch import TorchDispatchMode

import mmaemu

from . import _conv

aten = torch.ops.aten

#: The tensor dtypes the mode emulates, and the mmaemu code format of each narrow one.
DTYPES = (torch.float32, torch.float16, torch.bfloat16)
_CODES = {torch.float16: "fp16", torch.bfloat16: "bf16"}
_NAME = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16"}


def dtype_name(dtype):
    return _NAME.get(dtype, str(dtype).replace("torch.", ""))


# ---------------------------------------------------------------------------
# Tensors <-> the numpy arrays mmaemu reads: float32 values, float16 (= fp16
# codes), uint16 bf16 codes. Row-major and column-major 2-D tensors are read
# in place; other strides are copied first (exactly).

def to_numpy(t):
    t = t.detach()
    if t.dtype == torch.bfloat16:
        x = t.view(torch.int16).numpy().view(np.uint16)
    else:
        x = t.numpy()
    if x.ndim == 2 and not (x.flags.c_contiguous or x.flags.f_contiguous):
        x = np.ascontiguousarray(x)
    return x


def c_view(t):
    """C as a numpy view of t, any strides (an expanded bias has stride 0):
    mmaemu.matmul copies C into the result array (numpy.copyto) whatever its
    layout, so no contiguous copy is made first; the values, and so the
    bits, are the same."""
    t = t.detach()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(np.uint16)
    return t.numpy()


def from_numpy(x, dtype):
    """mmaemu's result (float32 values, or uint16 codes of fp16 / bf16) as a tensor of `dtype`."""
    if dtype == torch.float32:
        return torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32))
    if x.dtype != np.uint16:
        raise TypeError(f"expected uint16 codes for {dtype}, got {x.dtype}")
    return torch.from_numpy(np.ascontiguousarray(x).view(np.int16)).view(dtype)


# ---------------------------------------------------------------------------
# Per-tensor scaling of fp8 operands (scaling="tensor").

#: The fp8 input policies and the format of their codes.
FP8_POLICIES = {"e4m3": "e4m3", "e5m2": "e5m2", "fp8": "e4m3fnuz", "e4m3fnuz": "e4m3fnuz", "bf8": "e5m2fnuz",
                "e5m2fnuz": "e5m2fnuz"}


def fp8_format(policy):
    """The fp8 format of an input policy ("e4m3", "fp8", ...), or None for other policies."""
    return FP8_POLICIES.get(policy.lower())


def quantise_tensor(x, fmt, library=True):
    """(codes, scale) of float32 x (2-D) with one scale for the whole tensor: scale = fl32(amax / max finite)
    (1 if x is all zero), code = fmt(fl32(x / scale)), RNE, saturating -- mmaemu.quantize_fp8_blocks with one
    block, which runs it for e4m3 and e5m2; the same rule here for the FNUZ formats (library=False: here for
    every format, the tests' check of this rule against the library's)."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    if library and fmt in ("e4m3", "e5m2"):
        codes, scales = mmaemu.quantize_fp8_blocks(x, fmt, block_rows=max(1, x.shape[0]),
                                                   block_cols=max(1, x.shape[1]))
        return codes, np.float32(scales.reshape(-1)[0]) if scales.size else np.float32(1)
    if not np.isfinite(x).all():
        raise ValueError("per-tensor fp8 scaling: the operand holds NaN or Inf")
    fmax = np.float32(mmaemu.decode(mmaemu.convert(np.array([1e30]), fmt, saturate=True), fmt)[0])  # max finite
    amax = np.float32(np.abs(x).max()) if x.size else np.float32(0)
    tiny = np.float32(np.finfo(np.float32).smallest_subnormal)
    scale = np.float32(1) if amax == 0 else max(np.float32(amax / fmax), tiny)
    return mmaemu.convert(x / scale, fmt, rounding="rne", saturate=True), scale


# ---------------------------------------------------------------------------
# The configuration: a model, an input policy per dtype, the unit's options.

class Config:
    """The GEMM every emulated operation runs: gemm(a, b, c, alpha, beta) on 2-D tensors."""

    def __init__(self, model, input, output, schedule, accumulate, rounding, saturate, threads, scaling=None):
        if isinstance(model, mmaemu.Model):
            self.model = model
        elif isinstance(model, str):
            self.model = mmaemu.Model(model)
        else:
            raise TypeError(f"model must be a name (str) or an mmaemu.Model, not {type(model).__name__}")
        if input is not None and not isinstance(input, (str, dict)):
            raise TypeError(f"input must be a policy (str), a dict {{torch dtype: policy}} or None, "
                            f"not {type(input).__name__}")
        # input=None: the model's vendor-BLAS sgemm policy for float32, the
        # tensor's own format for float16 / bfloat16.
        self.policies = {torch.float32: self.model.default_policy, torch.float16: "fp16",
                         torch.bfloat16: "bf16"}
        given = {}
        if isinstance(input, str):
            given = {dt: input for dt in DTYPES}
        elif isinstance(input, dict):
            for dt, p in input.items():
                if dt not in DTYPES:
                    raise ValueError(f"input: {dt!r} is not one of the emulated dtypes "
                                     f"(torch.float32, torch.float16, torch.bfloat16)")
                if not isinstance(p, str):
                    raise TypeError(f"input[{dt}] must be a policy (str), not {type(p).__name__}")
                given[dt] = p
        self.policies.update(given)
        for name, value in (("output", output), ("rounding", rounding)):
            if value is not None and not isinstance(value, str):
                raise TypeError(f"{name} must be a str or None, not {type(value).__name__}")
        if not isinstance(schedule, str):
            raise TypeError(f"schedule must be a str, not {type(schedule).__name__}")
        if not isinstance(accumulate, str):
            raise TypeError(f"accumulate must be a str, not {type(accumulate).__name__}")
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 0:
            raise ValueError(f"threads must be an int >= 0 (0: MMA_NUM_THREADS, OMP_NUM_THREADS, all cores), "
                             f"not {threads!r}")
        self.output, self.schedule, self.accumulate = output, schedule, accumulate
        self.rounding, self.saturate, self.threads = rounding, saturate, threads
        if scaling not in (None, "tensor"):
            raise ValueError(f"scaling must be None or 'tensor' (one scale per operand), not {scaling!r}")
        self.scaling = scaling
        if scaling is not None:
            if not any(fp8_format(p) for p in self.policies.values()):
                raise ValueError("scaling='tensor' scales fp8 operands: give an fp8 input policy (e4m3, e5m2, fp8, "
                                 f"bf8), not {input!r}")
            if rounding is not None or saturate is not None:
                raise ValueError("rounding and saturate do not apply with scaling='tensor' (RNE, saturating, as "
                                 "mmaemu.quantize_fp8_blocks)")
        for dt, policy in self.policies.items():
            if mmaemu.is_block_scaled_policy(policy):
                extra = [k for k, v in (("output", output), ("rounding", rounding), ("saturate", saturate)) if
                         v is not None] + (["schedule"] if schedule != "chain" else [])
                if extra:
                    raise ValueError(f"{', '.join(extra)} do not apply to the block-scaled policy {policy!r} "
                                     f"(input for {dtype_name(dt)})")
        # Per dtype, what gemm() reads on every call, worked out once: (policy,
        # block-scaled?, code format of the tensors, fp8 format of per-tensor scaling).
        self._plan = {dt: (p, mmaemu.is_block_scaled_policy(p), _CODES.get(dt),
                           fp8_format(p) if scaling == "tensor" else None) for dt, p in self.policies.items()}
        # The policies named explicitly are checked now, on a 1 x 1 x 1 product
        # (the library's message on error); the defaults when first used.
        for dt in given:
            self.gemm(torch.zeros((1, 1), dtype=dt), torch.zeros((1, 1), dtype=dt))

    def describe(self):
        pol = ", ".join(f"{dtype_name(dt)}: {p}" for dt, p in self.policies.items())
        extra = "".join(f", {k} {v}" for k, v in (("output", self.output), ("rounding", self.rounding),
                                                 ("saturate", self.saturate), ("scaling", self.scaling))
                        if v is not None)
        return f"{self.model.spec} ({pol}; schedule {self.schedule}, accumulate {self.accumulate}{extra})"

    def gemm(self, a, b, c=None, alpha=1.0, beta=0.0):
        """D = alpha * a @ b + beta * c on the unit: a (m x k), b (k x n), c (m x n) or None, one dtype.

        The unit's accumulator, then the library's epilogue in fp32,
        D = fma(alpha, acc, beta*C) (alpha, beta and beta*C rounded to fp32,
        RNE; alpha = 1 and no C give the accumulator itself), then one RNE
        rounding to the tensor's dtype. Block-scaled policies: float16 and
        bfloat16 operands are widened exactly to float32 and quantised."""
        dtype = a.dtype
        policy, block_scaled, fmt, f8 = self._plan[dtype]
        alpha, beta = float(alpha), float(beta)
        if beta == 0.0:
            c = None
        if block_scaled:
            an, bn = to_numpy(a.float()), to_numpy(b.float())
            cn = None if c is None else to_numpy(c.float().contiguous())
            d = mmaemu.matmul(an, bn, self.model, input=policy, c=cn, alpha=alpha, beta=beta,
                              accumulate=self.accumulate)
            if dtype != torch.float32:
                d = mmaemu.convert(d, _CODES[dtype])
            return from_numpy(d, dtype)
        cn = None if c is None else c_view(c)
        if f8 is not None:
            # One scale per operand (current scaling): the unit multiplies the
            # codes; the epilogue's alpha is fl32(fl32(alpha) * fl32(s_a * s_b)).
            qa, sa = quantise_tensor(to_numpy(a.float()), f8)
            qb, sb = quantise_tensor(to_numpy(b.float()), f8)
            al = np.float32(np.float32(alpha) * np.float32(sa * sb))
            d = mmaemu.matmul(qa, qb, self.model, input=f8, output=self.output, c=cn, alpha=float(al), beta=beta,
                              accumulate=self.accumulate, a_format=f8, b_format=f8, c_format=fmt or "fp32",
                              threads=self.threads, schedule=self.schedule)
            return from_numpy(d, dtype)
        d = mmaemu.matmul(to_numpy(a), to_numpy(b), self.model, input=policy, output=self.output, c=cn, alpha=alpha,
                          beta=beta, accumulate=self.accumulate, rounding=self.rounding, saturate=self.saturate,
                          a_format=fmt, b_format=fmt, c_format=fmt, threads=self.threads, schedule=self.schedule)
        return from_numpy(d, dtype)


    def int_gemm(self, a, b):
        """torch._int_mm on the model's integer unit: int8 a (m x k) and b (k x n), int32 D = a @ b, the
        unit's plain instruction chained along k, wrapping modulo 2^32 (docs/models.md §11): mmaemu.matmul
        with input="int8"."""
        return torch.from_numpy(mmaemu.matmul(to_numpy(a), to_numpy(b), self.model, input="int8",
                                              threads=self.threads))


# ---------------------------------------------------------------------------
# The operations. Each handler gets `g`, the configuration's gemm that also
# counts the flops of the GEMMs it runs (2 m n k each), and returns the result.

class Counted:
    def __init__(self, cfg):
        self.cfg, self.flops = cfg, 0

    def __call__(self, a, b, c=None, alpha=1.0, beta=0.0):
        self.flops += 2 * a.shape[0] * a.shape[1] * b.shape[1]
        return self.cfg.gemm(a, b, c, alpha, beta)

    def int_mm(self, a, b):
        self.flops += 2 * a.shape[0] * a.shape[1] * b.shape[1]  # (integer operations)
        return self.cfg.int_gemm(a, b)


def _scalar(v):
    return v.item() if isinstance(v, torch.Tensor) else v


def _mm(g, a, b):
    return g(a, b)


def _int_mm(g, a, b):
    """torch._int_mm (torch >= 2.1; Debian's 1.13 has none): int8 x int8 -> int32 on the integer unit."""
    if a.dim() != 2 or b.dim() != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"_int_mm: shapes {tuple(a.shape)} and {tuple(b.shape)} do not multiply")
    return g.int_mm(a, b)


def _addmm(g, self, a, b, *, beta=1, alpha=1):
    c = self.expand(a.shape[0], b.shape[1]) if _scalar(beta) != 0 else None
    return g(a, b, c, _scalar(alpha), _scalar(beta))


def _batched(g, self, a, b, beta, alpha):
    if a.dim() != 3 or b.dim() != 3 or a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise ValueError(f"bmm: shapes {tuple(a.shape)} and {tuple(b.shape)} do not match")
    nb, m, n = a.shape[0], a.shape[1], b.shape[2]
    c = self.expand(nb, m, n) if self is not None and _scalar(beta) != 0 else None
    out = torch.empty((nb, m, n), dtype=a.dtype)
    for i in range(nb):  # one GEMM per matrix of the batch, as a strided-batched GEMM runs them
        out[i] = g(a[i], b[i], None if c is None else c[i], alpha, beta)
    return out


def _bmm(g, a, b):
    return _batched(g, None, a, b, 0, 1)


def _baddbmm(g, self, a, b, *, beta=1, alpha=1):
    return _batched(g, self, a, b, _scalar(beta), _scalar(alpha))


def _mv(g, a, x):
    return g(a, x.unsqueeze(1)).squeeze(1)


def _addmv(g, self, a, x, *, beta=1, alpha=1):
    c = self.expand(a.shape[0]).unsqueeze(1) if _scalar(beta) != 0 else None
    return g(a, x.unsqueeze(1), c, _scalar(alpha), _scalar(beta)).squeeze(1)


def _dot(g, x, y):
    if x.dim() != 1 or y.dim() != 1 or x.shape[0] != y.shape[0]:
        raise ValueError(f"dot: shapes {tuple(x.shape)} and {tuple(y.shape)} do not match")
    return g(x.unsqueeze(0), y.unsqueeze(1)).reshape(())


def _convolution(g, x, w, bias, stride, padding, dilation, transposed, output_padding, groups):
    stride, padding, dilation = list(stride), list(padding), list(dilation)
    if transposed:
        y = _conv.conv_transpose(x, w, stride, padding, dilation, list(output_padding), groups, g)
    else:
        y = _conv.conv(x, w, stride, padding, dilation, groups, g)
    if bias is not None:  # added natively after the GEMM, as torch adds a convolution's bias
        y = y + bias.reshape([1, -1] + [1] * (y.dim() - 2))
    return y


def _convolution_backward(g, dy, x, w, bias_sizes, stride, padding, dilation, transposed, output_padding, groups,
                          output_mask):
    stride, padding, dilation = list(stride), list(padding), list(dilation)
    kernel = list(w.shape[2:])
    gi = gw = gb = None
    if output_mask[0]:
        if transposed:
            gi = _conv.conv(dy, w, stride, padding, dilation, groups, g)
        else:
            op = _conv.output_padding_for(list(x.shape[2:]), list(dy.shape[2:]), kernel, stride, padding, dilation)
            gi = _conv.conv_transpose(dy, w, stride, padding, dilation, op, groups, g)
    if output_mask[1]:
        if transposed:
            gw = _conv.conv_transpose_weight_grad(dy, x, kernel, stride, padding, dilation, groups, g)
        else:
            gw = _conv.conv_weight_grad(dy, x, kernel, stride, padding, dilation, groups, g)
    if output_mask[2]:  # the bias gradient is a sum, not a product: torch's own
        gb = aten.convolution_backward.default(dy, x, w, bias_sizes, stride, padding, dilation, transposed,
                                               output_padding, groups, [False, False, True])[2]
    return gi, gw, gb


def _write(out, r):
    if out.shape != r.shape:
        out.resize_(r.shape)
    out.copy_(r)
    return out


def _out_form(handler):
    def run(g, *args, out, **kwargs):
        return _write(out, handler(g, *args, **kwargs))
    return run


def _inplace_form(handler):
    def run(g, self, *args, **kwargs):
        return _write(self, handler(g, self, *args, **kwargs))
    return run


_FUNCTIONAL = {"mm": _mm, "addmm": _addmm, "bmm": _bmm, "baddbmm": _baddbmm, "mv": _mv, "addmv": _addmv,
               "dot": _dot, "vdot": _dot}
#: Matrix-vector and vector products (the `vector` option).
VECTOR_OPS = ("mv", "addmv", "dot", "vdot")


def _handlers():
    table = {}
    for name, h in _FUNCTIONAL.items():
        packet = getattr(aten, name, None)
        if packet is None:
            continue
        table[packet.default] = (name, h)
        if "out" in packet.overloads():
            table[packet.out] = (name, _out_form(h))
        inplace = getattr(aten, name + "_", None)
        if inplace is not None and "default" in inplace.overloads():
            table[inplace.default] = (name, _inplace_form(h))
    table[aten.convolution.default] = ("convolution", _convolution)
    table[aten.convolution_backward.default] = ("convolution_backward", _convolution_backward)
    int_mm = getattr(aten, "_int_mm", None)  # torch >= 2.1
    if int_mm is not None:
        table[int_mm.default] = ("_int_mm", _int_mm)
        if "out" in int_mm.overloads():
            table[int_mm.out] = ("_int_mm", _out_form(_int_mm))
    return {op: (name, h, str(op)) for op, (name, h) in table.items()}  # str(op): "aten.mm.default"


HANDLERS = _handlers()

#: Matrix-product-like aten operations the mode does not emulate (reported
#: when they pass through); those of this torch that exist.
OTHER_MATMUL_LIKE = frozenset(p for p in (getattr(aten, n, None) for n in (
    "addr", "addbmm", "_addmm_activation", "_scaled_mm", "_int_mm", "mkldnn_linear", "_convolution", "conv_tbc",
    "cudnn_convolution", "cudnn_convolution_transpose", "mkldnn_convolution", "slow_conv2d_forward",
    "_slow_conv2d_forward", "slow_conv3d_forward", "slow_conv_transpose2d", "slow_conv_transpose3d",
    "_conv_depthwise2d", "conv_depthwise3d", "slow_conv_dilated2d", "slow_conv_dilated3d", "miopen_convolution",
    "_nnpack_spatial_convolution", "_sparse_mm", "sspaddmm", "linear", "matmul", "einsum", "tensordot",
    "chain_matmul", "linalg_multi_dot", "bilinear", "_trilinear", "inner", "outer", "ger",
    # fused attention kernels of newer torch (their math path is bmm, which is emulated)
    "_scaled_dot_product_flash_attention", "_scaled_dot_product_flash_attention_for_cpu",
    "_scaled_dot_product_efficient_attention", "_scaled_dot_product_cudnn_attention", "_flash_attention_forward",
    "_efficient_attention_forward")) if p is not None)


def _tensors(args, kwargs):
    for v in (*args, *kwargs.values()):
        if isinstance(v, torch.Tensor):
            yield v
        elif isinstance(v, (list, tuple)):
            for u in v:
                if isinstance(u, torch.Tensor):
                    yield u


_PLAIN = (torch.Tensor, torch.nn.Parameter)
_DTYPE_SET = frozenset(DTYPES)


def _unsupported_storage(t):
    """Why tensor t's storage cannot be read by the emulation (a subclass, another
    device, a non-strided layout), or None."""
    if type(t) not in _PLAIN:
        return f"tensor subclass {type(t).__name__}"
    if not t.is_cpu:
        return f"device {t.device.type}"
    if t.layout is not torch.strided:
        return f"layout {t.layout}"
    return None


def _unsupported_int(args, kwargs):
    """Why the tensors of a _int_mm cannot be emulated (int8 CPU tensors), or None."""
    for t in _tensors(args, kwargs):
        why = _unsupported_storage(t)
        if why:
            return why
    dts = [t.dtype for t in _tensors(args, kwargs)]
    if dts[:2] != [torch.int8, torch.int8]:
        return "dtypes " + "/".join(dtype_name(d) for d in dts) + " (the integer unit takes int8 x int8)"
    return None


def _unsupported(args, kwargs):
    """Why the operation's tensors cannot be emulated, or None."""
    dtype = None
    for t in _tensors(args, kwargs):
        why = _unsupported_storage(t)
        if why:
            return why
        dt = t.dtype
        if dt not in _DTYPE_SET:
            return f"dtype {dtype_name(dt)}"
        if dtype is None:
            dtype = dt
        elif dt is not dtype:
            return "mixed dtypes " + "/".join(sorted({dtype_name(t.dtype) for t in _tensors(args, kwargs)
                                                     if t.dtype in _DTYPE_SET}))
    return None


# ---------------------------------------------------------------------------
# The mode.

_local = threading.local()  # this thread's entered mmaemu.torch.emulate blocks, innermost last


def _stack():
    s = getattr(_local, "stack", None)
    if s is None:
        s = _local.stack = []
    return s


class emulate(TorchDispatchMode):
    """with mmaemu.torch.emulate("H100", input="e4m3", schedule="promote:128"): loss = model(x)

    Runs the CPU matrix products of float32, float16 and bfloat16 tensors
    made inside the block -- aten mm, addmm, bmm, baddbmm, mv, addmv, dot
    (what matmul, linear, einsum, tensordot and attention decompose into)
    and convolution and its backward as im2col GEMMs -- on `model`'s matrix
    unit, forward and backward; and torch._int_mm of int8 tensors (where
    this torch has it: 2.1 and later; Debian's 1.13 has not) on the model's
    integer unit, int32 results wrapping modulo 2^32 (mmaemu.matmul with
    input="int8"); everything else runs natively.

    model: a name or mmaemu.Model; None runs the block natively (inside an
    outer block: as mmaemu.emulate(None)).
    input: the unit's input policy (mmaemu.matmul's `input`, or a block-scaled
    policy "mxfp8", "nvfp4", ...) for every dtype, or a dict {dtype: policy};
    None: float32 tensors use the model's vendor-BLAS default
    (Model(model).default_policy), float16 and bfloat16 their own format.
    output, schedule, accumulate, rounding, saturate, threads: as in
    mmaemu.matmul. scaling: None (operands converted to the input format as
    they are) or "tensor" for fp8 policies: each operand of each product
    scaled by fl32(amax / max finite) before the RNE, saturating conversion
    (current per-tensor scaling), the product of the codes, and the scales
    applied in the epilogue (alpha * s_a * s_b, rounded to fp32).
    vector: "model" (mv, addmv, dot as the unit's GEMM with n = 1) or
    "native" (passed through, as a GPU BLAS runs float32 gemv and dot on its
    FMA cores; MMA_GEMV of the shim). verbose: print report() to stderr when
    the block ends.

    Results: the unit's accumulator, the library's fp32 epilogue
    (addmm, baddbmm, addmv: D = fma(alpha, acc, beta*C)), one RNE rounding to
    the tensor's dtype; bit-identical to mmaemu.matmul on the same operands.
    Counts: .emulated {op: calls}, .passed_through {(op, reason): calls} for
    the matrix-product-like operations that ran natively, .flops, .seconds.

    Nesting: the innermost block applies; outer ones see nothing until it
    ends. Threads: torch keeps dispatch modes per thread, so a block covers
    the thread that entered it (and autograd's backward of CPU tensors, which
    runs on the calling thread); enter the same object in a worker thread to
    emulate there too (the counts are shared).
    """

    def __init__(self, model, input=None, *, output=None, schedule="chain", accumulate="gpu-blas", rounding=None,
                 saturate=None, threads=0, scaling=None, vector="model", verbose=False):
        super().__init__()
        if vector not in ("model", "native"):
            raise ValueError(f"vector must be 'model' or 'native', not {vector!r}")
        self.config = None if model is None else Config(model, input, output, schedule, accumulate, rounding,
                                                        saturate, threads, scaling)
        self.vector = vector
        self.verbose = bool(verbose)
        self._lock = threading.Lock()
        self.emulated = collections.Counter()
        self.passed_through = collections.Counter()
        self.flops = 0
        self.seconds = 0.0

    # -- the block
    def __enter__(self):
        _stack().append(self)
        try:
            return super().__enter__()
        except BaseException:
            _stack().pop()
            raise

    def __exit__(self, exc_type, exc_val, exc_tb):
        try:
            return super().__exit__(exc_type, exc_val, exc_tb)
        finally:
            stack = _stack()
            if stack and stack[-1] is self:
                stack.pop()
            if self.verbose:
                print(self.report(), file=sys.stderr)

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        stack = _stack()
        if not stack or stack[-1] is not self:  # an inner block applies, or a call from one of its handlers
            return func(*args, **kwargs)
        entry = HANDLERS.get(func)
        if entry is None:
            if func.overloadpacket in OTHER_MATMUL_LIKE:
                self._pass(func, "not emulated")
            return func(*args, **kwargs)
        name, handler, op_name = entry
        check = _unsupported_int if name == "_int_mm" else _unsupported
        reason = "native block" if self.config is None else check(args, kwargs)
        if reason is None and self.vector == "native" and name in VECTOR_OPS:
            reason = "vector=native"
        if reason is not None:
            self._pass(func, reason)
            return func(*args, **kwargs)
        t0 = time.perf_counter()
        g = Counted(self.config)
        try:
            result = handler(g, *args, **kwargs)
        except mmaemu.Error as e:
            dts = "/".join(sorted({dtype_name(t.dtype) for t in _tensors(args, kwargs)}))
            raise type(e)(f"mmaemu.torch.emulate: {func} on {dts} tensors: {e}") from None
        dt = time.perf_counter() - t0
        with self._lock:
            self.emulated[op_name] += 1
            self.flops += g.flops
            self.seconds += dt
        return result

    def _pass(self, func, reason):
        with self._lock:
            self.passed_through[(str(func), reason)] += 1

    # -- the counts
    def report(self):
        """The counts as text, as MMA_VERBOSE=1 prints the shim's."""
        setting = "native" if self.config is None else self.config.describe()
        lines = [f"mmaemu.torch: {setting}: {sum(self.emulated.values())} emulated calls, {self.flops:.4g} flop, "
                 f"{self.seconds:.3f} s"]
        for op, n in sorted(self.emulated.items()):
            lines.append(f"  emulated     {op:<36} {n:8d} calls")
        for (op, why), n in sorted(self.passed_through.items()):
            lines.append(f"  passed through {op:<34} {n:8d} calls  ({why})")
        return "\n".join(lines)
