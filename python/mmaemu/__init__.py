# SPDX-License-Identifier: BSD-3-Clause
"""libmmaemu for Python: the bit-exact numerics of GPU matrix units (NVIDIA
tensor cores, AMD matrix cores) on numpy arrays, and in-process control of
the BLAS shim.

Every number comes from libmmaemu's C API (include/mmaemu/mmaemu.h), in the
libmmaemu.so beside the extension; this package only checks and translates
arguments, and releases the GIL while the library computes. probe(),
compare() and distinguish() read the internal libraries, as the `mmaemu`
CLI does (the extension _mmaemu_internal, loaded on first use, over the
same libmmaemu.so).

    >>> import numpy as np, mmaemu
    >>> a = np.random.default_rng(1).standard_normal((64, 256), dtype=np.float32)
    >>> b = np.random.default_rng(2).standard_normal((256, 32), dtype=np.float32)
    >>> d = mmaemu.matmul(a, b, "H100", input="fp16")   # float32 64 x 32

Formats: mmaemu.formats(); a format's values are stored as float64 (fp64),
float32 (fp32, tf32) or as codes, uint16 (fp16, bf16) and uint8 (fp8).
"""
from ._mmaemu import (  # noqa: F401  (the public API)
    Error,
    Model,
    UnknownModelError,
    UnsupportedError,
    accumulate_modes,
    formats,
    models,
    storage_dtype,
    version,
)
from . import _mmaemu
from ._shim import ShimNotLoadedError, emulate, shim_setting  # noqa: F401

__all__ = [
    "Error", "UnknownModelError", "UnsupportedError", "ShimNotLoadedError", "Model", "models", "formats",
    "storage_dtype", "version", "accumulate_modes", "matmul", "tile", "dot", "distinguish", "convert", "decode", "probe", "compare", "emulate",
    "shim_setting", "gemm_fp8_scaled", "quantize_fp8_blocks", "gemm_block_scaled", "quantize_mx",
    "quantize_nvfp4", "dequantize", "is_block_scaled_policy", "BLOCK_SCALED_POLICIES", "__version__",
]

__version__ = version()


def __getattr__(name):
    # mmaemu.torch on first use: importing torch takes seconds, and numpy users need none of it.
    if name == "torch":
        import importlib
        return importlib.import_module(".torch", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _internal():
    """The extension _mmaemu_internal (probe, compare, distinguish), loaded on first use; absent
    from a build without Boost and Eigen3 (docs/building.md)."""
    try:
        from . import _mmaemu_internal
    except ImportError as e:
        raise ImportError("mmaemu: probe(), compare() and distinguish() need the extension _mmaemu_internal, "
                          "built where Boost and Eigen3 are found (docs/building.md)") from e
    return _mmaemu_internal


_INT_INPUTS = {"int8", "uint8", "int4", "uint4"}


def matmul(a, b, model, *, input=None, output=None, c=None, alpha=1.0, beta=0.0, accumulate="gpu-blas",
           rounding=None, saturate=None, a_format=None, b_format=None, c_format=None, threads=0,
           schedule="chain", scheme=None, check=False):
    """D = alpha * A @ B (+ beta * C) on `model`'s matrix unit (mmaemu_gemm).

    a (m x k), b (k x n): float64/float32/float16 arrays, or codes (uint8,
    uint16) whose format a_format / b_format name ("fp16", "bf16", "e4m3",
    ...). C-contiguous arrays and their transposes (Fortran order) are read
    in place; other strided views are refused.

    input: the unit's input format, as an sgemm policy ("fp16", "bf16",
    "tf32" (truncating, as the hardware does), "tf32:rna", "e4m3", "fp32",
    "fp64", ...). None: the operands' code format, or for float operands the
    model's vendor-BLAS default (Model(name).default_policy).
    rounding ("rne", "rz", "rd", "ru", "rna") and saturate override the
    policy's conversion of the operands to `input`.
    output: the unit's accumulator format (default fp32; fp64 for fp64 input, and
    output="fp64" alone selects the fp64 unit).
    c, beta: C is read only when beta != 0. accumulate: "gpu-blas" (the unit
    accumulates from zero, then D = alpha*acc + beta*C in fp32, as a vendor
    BLAS epilogue), "into-c" (beta*C is the chain's first accumulator) or
    "blas-into-c" (into-c where alpha = 1, else gpu-blas: the BLAS contract);
    accumulate_modes() lists them.
    threads: 0 uses MMA_NUM_THREADS, then OMP_NUM_THREADS, then all cores.
    schedule: how the unit's partial sums over k combine (docs/schedules.md):
    "chain" (one accumulator along k), "promote:P", "splitk:S", "splitk:S:tree",
    or a combination such as "splitk:2+promote:128".

    Returns D (m x n): float32 values (float64 for fp64 output) for float
    operands; codes of the output format (e.g. uint16 fp16 codes) for code
    operands; c_format chooses explicitly.

    Integer units (docs/models.md §11): input="int8", "uint8", "int4" or
    "uint4" (b's format: b_format=, default the same) on int8 / uint8 arrays
    (int4: values in range, packed here two per byte along k) returns int32
    D = A @ B (+ c, an int32 array, when given: alpha = beta = 1), wrapping
    modulo 2^32, or with saturate=True clamping (.satfinite; refused where the
    unit has none). output, alpha, beta, accumulate, rounding and schedule do
    not apply there.

    input may also be a block-scaled policy ("mxfp8", "mxfp8:e5m2", "mxfp6",
    "mxfp6:e3m2", "mxfp4", "nvfp4"; docs/block-scaled.md): float32 a and b
    are then quantised per block along k, op(A) by rows and op(B) by columns,
    and multiplied on the model's block-scaled unit, as the BLAS shim does
    (mmaemu_sgemm_block_scaled_acc). output, rounding, saturate, the formats,
    threads and schedule do not apply there.

    scheme: fp64 emulated by an Ozaki scheme (docs/ozaki.md, mmaemu_dgemm_ex):
    "ozaki1:S", "ozaki1:S:all" or "ozaki2:N" on float64 a and b, returning
    float64 D = alpha * A @ B (+ beta * c) in fp64. input names the unit
    ("int8", the default; "int4"; for scheme I also "fp16", "bf16", "tf32",
    "e4m3", "e5m2", ...); schedule is a floating-point unit's GEMM schedule.
    check=True also computes every slice or modular product exactly and
    returns (D, counts), counts a dict: products, product_elements,
    inexact_product_elements, inexact_outputs, checked. output, rounding,
    saturate, accumulate and the formats do not apply there.
    """
    if scheme is not None:
        given = {"output": output, "rounding": rounding, "saturate": saturate, "a_format": a_format,
                 "b_format": b_format, "c_format": c_format}
        for arg, value in given.items():
            if value is not None:
                raise ValueError(f"{arg} does not apply to scheme={scheme!r} (float64 in and out)")
        if accumulate != "gpu-blas":
            raise ValueError(f"accumulate does not apply to scheme={scheme!r}: D = alpha * A @ B + beta * C in fp64")
        d, counts = _mmaemu.dgemm_ozaki(a, b, model, scheme, input or "int8", schedule, threads, bool(check), c,
                                        alpha, beta)
        return (d, counts) if check else d
    if check:
        raise ValueError("check=True counts an Ozaki scheme's inexact products: give scheme='ozaki1:S' or 'ozaki2:N'")
    if isinstance(input, str) and input in _INT_INPUTS:
        if b_format is not None and b_format not in _INT_INPUTS:
            raise ValueError(f"b_format={b_format!r}: an integer input is one of {sorted(_INT_INPUTS)}")
        given = {"output": output, "rounding": rounding, "a_format": a_format, "c_format": c_format}
        for arg, value in given.items():
            if value is not None:
                raise ValueError(f"{arg} does not apply to the integer input={input!r}")
        if alpha != 1.0 or beta not in (0.0, 1.0) or accumulate != "gpu-blas" or schedule != "chain":
            raise ValueError(f"the integer input={input!r} computes D = A @ B + C: alpha, beta, accumulate and "
                             "schedule do not apply (pass c= to add C)")
        return _mmaemu.matmul_int(a, b, model, input, b_format or input, bool(saturate), c, threads)
    if isinstance(input, str) and is_block_scaled_policy(input):
        given = {"output": output, "rounding": rounding, "saturate": saturate, "a_format": a_format,
                 "b_format": b_format, "c_format": c_format}
        for arg, value in given.items():
            if value is not None:
                raise ValueError(f"{arg} does not apply to the block-scaled policy input={input!r}")
        if threads != 0 or schedule != "chain":
            raise ValueError(f"threads and schedule do not apply to the block-scaled policy input={input!r} "
                             "(the block-scaled unit chains along k; MMA_NUM_THREADS sets its threads)")
        return _mmaemu.sgemm_block_scaled(a, b, model, input, c=c, alpha=alpha, beta=beta, accumulate=accumulate)
    return _mmaemu.matmul(a, b, model, input=input, output=output, c=c, alpha=alpha, beta=beta,
                          accumulate=accumulate, rounding=rounding, saturate=saturate, a_format=a_format,
                          b_format=b_format, c_format=c_format, threads=threads, schedule=schedule)


# The C API's list (mmaemu_block_scaled_policy_name): mxfp8, mxfp8:e5m2, mxfp6, mxfp6:e3m2, mxfp4, nvfp4.
BLOCK_SCALED_POLICIES = tuple(_mmaemu.block_scaled_policies())
_BLOCK_SCALED_FAMILIES = frozenset(p.split(":")[0] for p in BLOCK_SCALED_POLICIES)


def is_block_scaled_policy(policy):
    """True for the block-scaled input policies (BLOCK_SCALED_POLICIES: mxfp8, mxfp8:e5m2, mxfp6,
    mxfp6:e3m2, mxfp4, nvfp4; any case), which quantise float32 operands per block along k."""
    return policy.split(":")[0].lower() in _BLOCK_SCALED_FAMILIES


def _integer_args(kind, input, b_format, output, extra):
    """Checks the arguments an integer input does not read (refused, never ignored)."""
    if b_format is not None and b_format not in _INT_INPUTS:
        raise ValueError(f"b_format={b_format!r}: an integer input is one of {sorted(_INT_INPUTS)}")
    if output not in (None, "int32", "s32"):
        raise ValueError(f"output={output!r}: the integer input={input!r} gives int32 results")
    for arg, value in extra.items():
        if value is not None:
            raise ValueError(f"{arg} does not apply to {kind} with the integer input={input!r}")
    return b_format or input


def _scaled_args_given(sa, sb, a_format, block_size, scale_format, unit, narrow_subnormals_normalize):
    """The block-scaled arguments of tile() and dot() given other than their defaults
    (None where not given), for the integer inputs' refusal."""
    return {"sa": sa, "sb": sb, "a_format": a_format, "block_size": block_size,
            "scale_format": None if scale_format == "ue8m0" else scale_format,
            "unit": None if unit == "auto" else unit,
            "narrow_subnormals_normalize": narrow_subnormals_normalize or None}


def _integer_route(name, input, b_format, output, saturate, scaled_given):
    """b's integer input when input is an integer one (tile() and dot() then call
    their integer entries), else None, refusing saturate= on floating-point inputs."""
    if isinstance(input, str) and input in _INT_INPUTS:
        return _integer_args(name, input, b_format, output, scaled_given)
    if saturate is not None:
        raise ValueError("saturate applies to the integer inputs (int8, uint8, int4, uint4) only")
    return None


def tile(model, a, b, c=None, *, input=None, output=None, threads=0, sa=None, sb=None, a_format=None,
         b_format=None, scale_format="ue8m0", block_size=None, unit="auto", narrow_subnormals_normalize=False,
         saturate=None):
    """One instruction, D = A*B + C, of `model`'s unit for (input, output) (mmaemu_tile),
    or a stack of them (mmaemu_tile_batch, docs/batch.md).

    a, b, c hold values in the storage of their formats (see storage_dtype)
    and have the instruction's shape, Model(model).tile_shape(input, output):
    a m x k, b k x n, c m x n; or stacks of N tiles, a (N, m, k), b (N, k, n),
    c (N, m, n), each tile exactly what a single call gives. c None is +0.
    input None: fp64/fp32/fp16 from a's float dtype. output None: fp32.
    Returns D in the output format's storage. threads: 0 = MMA_NUM_THREADS,
    OMP_NUM_THREADS, all cores.

    Block-scaled units (B200, B200-RN, RTXPRO6000; docs/block-scaled.md):
    give the element format as a_format (b_format, default a_format) with
    the scale codes sa (m x k/block_size), sb (k/block_size x n), or stacks
    of them, block_size 32, 16 or 0 (no scales), scale_format "ue8m0" or
    "ue4m3", unit "auto", "t", "st" or "gst"; codes one per byte (uint8).

    Integer units (docs/models.md §11; mmaemu_tile_batch_int): input="int8",
    "uint8", "int4" or "uint4" (b's: b_format=, default the same) on int8 /
    uint8 arrays (int4: values in range), c an int32 array; returns int32 D,
    wrapping modulo 2^32, or with saturate=True clamping (.satfinite; refused
    where the unit has none).
    """
    b_input = _integer_route("tile", input, b_format, output, saturate,
                             _scaled_args_given(sa, sb, a_format, block_size, scale_format, unit,
                                                narrow_subnormals_normalize))
    if b_input is not None:
        return _mmaemu.tile_int(model, a, b, c, input, b_input, bool(saturate), threads)
    output = "fp32" if output is None else output
    if a_format is not None or block_size is not None or sa is not None:
        if a_format is None:
            raise ValueError("block-scaled tiles need a_format (the element format of a)")
        return _mmaemu.tile_batch_scaled(model, a, sa, b, sb, c, a_format=a_format, b_format=b_format,
                                         scale_format=scale_format, block_size=32 if block_size is None else block_size,
                                         unit=unit, output=output,
                                         narrow_subnormals_normalize=narrow_subnormals_normalize, threads=threads)
    if getattr(a, "ndim", 2) == 3:
        return _mmaemu.tile_batch(model, a, b, c, input=input, output=output, threads=threads)
    return _mmaemu.tile(model, a, b, c, input=input, output=output)


def dot(model, a, b, c=None, *, input=None, output=None, threads=0, sa=None, sb=None, a_format=None, b_format=None,
        scale_format="ue8m0", block_size=None, unit="auto", narrow_subnormals_normalize=False, saturate=None):
    """N independent dot products, each one output element of `model`'s unit
    for (input, output) (mmaemu_dot_batch, docs/batch.md).

    a, b: (N, k) (or (k,) for one), in input's storage; c: (N,) accumulators
    in output's storage (None: +0). d[i] = c[i] + sum_l a[i, l] * b[i, l] as
    the unit computes it: k = the instruction's k is one element of one
    tile; a shorter k is the same with zeros, a longer one chains
    instructions along k as a GEMM does. Returns (N,) (or a 0-d array) in
    output's storage (output None: fp32); the bits equal N single instructions.

    Block-scaled units: a_format (b_format), scales sa, sb of shape (N,
    k/block_size), scale_format, block_size (32, 16, 0), unit as in tile().

    Integer units (mmaemu_dot_batch_int): input="int8", "uint8", "int4" or
    "uint4" (b_format= for b's, default the same) on int8 / uint8 arrays, c
    int32; returns int32, wrapping, or with saturate=True clamping
    (.satfinite; refused where the unit has none).
    """
    b_input = _integer_route("dot", input, b_format, output, saturate,
                             _scaled_args_given(sa, sb, a_format, block_size, scale_format, unit,
                                                narrow_subnormals_normalize))
    if b_input is not None:
        return _mmaemu.dot_int(model, a, b, c, input, b_input, bool(saturate), threads)
    output = "fp32" if output is None else output
    if a_format is not None or block_size is not None or sa is not None:
        if a_format is None:
            raise ValueError("block-scaled dot products need a_format (the element format of a)")
        return _mmaemu.dot_batch_scaled(model, a, sa, b, sb, c, a_format=a_format, b_format=b_format,
                                        scale_format=scale_format, block_size=32 if block_size is None else block_size,
                                        unit=unit, output=output,
                                        narrow_subnormals_normalize=narrow_subnormals_normalize, threads=threads)
    return _mmaemu.dot_batch(model, a, b, c, input=input, output=output, threads=threads)


def distinguish(a, b, *, input="fp16", output=None, k=0, samples=1000000, seed=1, distributions=None, threads=0,
                input2=None):
    """Inputs on which the units of models a and b (names, aliases, MODEL@INSTR or
    custom: variants) give different bits (`mmaemu distinguish`, docs/distinguish.md).

    Random ensembles (distributions: a list of names, default all) until a sample
    separates them, then a shortest such vector. Returns a dict: found, samples, k,
    found_by, bound (when none is found: the upper bound on the probability that a
    random sample separates them, eps = 1e-6), first and shortest ({"a", "b": fp32
    patterns as the hardware harness writes them, "c", "d": {model: pattern}}), and
    report (the CLI's text). When no sample separates the two units, lone_units holds
    the same search for each unit for these formats that only one model has (an
    instruction the other lacks, against the other's unit; "a", "b" name them, e.g.
    "T4@mma.sync.m8n8k4") and only_formats {model: ["bf16->fp32", ...]} the formats
    only one model has a unit for; both are empty otherwise.

    Integer units (docs/models.md §11): input "int8", "uint8", "int4", "uint4" (or
    "s8", ...; "int8,uint8" for A's and B's), input2 the second unit's (default
    input): both read the same codes, each under its own formats; a, b, c and d
    are then codes (c and d s32 codes), distributions from "overflow",
    "extremes", "sparse", "uniform".
    """
    return _internal().distinguish(a, b, input=input, output=output, input2=input2, k=k, samples=samples, seed=seed,
                                   distributions=distributions, threads=threads)


def convert(x, to, rounding="rne", saturate=False, source=None):
    """x converted to format `to` (mmaemu_convert), elementwise, any shape.

    x: float64/float32/float16 values, or codes of the format named by
    `source`. rounding: "rne", "rz", "rd", "ru", "rna". saturate: overflow
    gives the largest finite value (SATFINITE) instead of Inf (NaN for
    formats without Inf). Returns `to`'s storage: float64 (fp64), float32
    (fp32, tf32), uint16 or uint8 codes.
    """
    return _mmaemu.convert(x, to, rounding, saturate, source)


def decode(codes, fmt):
    """The exact values (float64) of `codes` of format `fmt`."""
    return _mmaemu.decode(codes, fmt)


def probe(model, input, output=None, instr=None):
    """The feature probe (`mmaemu probe`) on the unit of (model, input, output).

    Runs the papers' numerical feature tests on the instruction as a black
    box. Returns a dict: model, instruction, input, output, k, calls,
    features (name -> value; None where the tests cannot tell), notes (name ->
    how it was found, or why not), anomalies, and report (the CLI's text).
    output None: fp32 (the input format for fp32/fp64).

    Integer units (docs/models.md §11): input "int8", "uint8", "int4",
    "uint4" (or "s8", ...; "int8,uint8" for A's and B's): features accepted
    (the A x B formats the model takes), a_twos_complement and
    b_twos_complement (how a top-bit code reads), exact, overflow ("wrap" or
    "satfinite"), has_satfinite, satfinite (the .satfinite variant's rule)
    and sat_point ("instruction" or "addition"); the dict also has b_input
    and shape. output, if given, is "int32"; instr does not apply.
    """
    return _internal().probe(model, input, output, instr)


def compare(a, b, models=None, *, input="fp16", output=None, threads=0):
    """C = A @ B on several models (`mmaemu compare`), errors against the exact product.

    a, b: float arrays (read as binary64). models: names or Models (None: all
    registered). Returns one dict per model: model, instruction, skipped,
    reason, normwise (||C - C_ref||_F / ||C_ref||_F), componentwise (max
    |C - C_ref| / |C_ref|), unit_only (normwise error against the exact
    product of the operands rounded to `input`), seconds.
    """
    return _internal().compare(a, b, models, input=input, output=output, threads=threads)


def gemm_fp8_scaled(a, a_scales, b, b_scales, model, *, format="e4m3", block_k=128, block_n=128, b_trans=False,
                    threads=0):
    """Fine-grained scaled fp8 GEMM (DeepSeek-V3 / DeepGEMM; mmaemu_gemm_fp8_scaled).

    a: m x k uint8 codes of `format` ("e4m3" or "e5m2"); a_scales: float32
    m x ceil(k/block_k); b: k x n codes (n x k with b_trans, DeepGEMM's
    layout); b_scales: float32 ceil(k/block_k) x ceil(n/block_n). For each k
    block in order the unit sums the block from +0, then
    main = fma(partial, fl32(sa * sb), main) in binary32. Returns D, float32 m x n.
    """
    return _mmaemu.gemm_fp8_scaled(a, a_scales, b, b_scales, model, format=format, block_k=block_k,
                                   block_n=block_n, b_trans=b_trans, threads=threads)


def quantize_fp8_blocks(x, format="e4m3", block_rows=1, block_cols=128):
    """float32 x (2-D) to fp8 codes in blocks of block_rows x block_cols
    (A: 1 x 128, B: 128 x 128; mmaemu_quantize_fp8_blocks).

    Returns (codes uint8 like x, scales float32 ceil(rows/block_rows) x
    ceil(cols/block_cols)): scale = fl32(amax / max finite), code =
    fp8(fl32(x / scale)), RNE, saturating. NaN or Inf in x raises.
    """
    return _mmaemu.quantize_fp8_blocks(x, format, block_rows, block_cols)


def gemm_block_scaled(a, sa, b, sb, model, *, a_format, b_format=None, scale_format="ue8m0", block_size=32,
                      unit="auto", a_global_scale=1.0, b_global_scale=1.0, c=None, alpha=1.0, beta=0.0,
                      accumulate="gpu-blas", narrow_subnormals_normalize=False):
    """Block-scaled GEMM (MXFP8/6/4, NVFP4, unscaled fp8/fp6/fp4; mmaemu_gemm_block_scaled).

    a: m x k uint8 element codes of a_format ("e4m3", "e5m2", "e3m2",
    "e2m3", "e2m1"; one code per byte), b: k x n codes of b_format (default
    a_format). sa: m x k/block_size, sb: k/block_size x n scale codes of
    scale_format ("ue8m0", "ue4m3"), one per block_size (32, 16) elements
    along k; block_size 0: no scales (sa = sb = None). C-contiguous operands
    and their transposes (Fortran order) are read in place; each scale array
    is laid out like its operand (copied if not). unit: "auto", "t", "st",
    "gst" (docs/block-scaled.md). D = alpha*g_a*g_b*(A (x) B) + beta*C, float32 m x n.
    """
    return _mmaemu.gemm_block_scaled(a, sa, b, sb, model, a_format=a_format, b_format=b_format,
                                     scale_format=scale_format, block_size=block_size, unit=unit,
                                     a_global_scale=a_global_scale, b_global_scale=b_global_scale, c=c, alpha=alpha,
                                     beta=beta, accumulate=accumulate,
                                     narrow_subnormals_normalize=narrow_subnormals_normalize)


def quantize_mx(x, element, block_size=32):
    """OCP MX quantisation of float32 x in blocks of block_size consecutive
    values along its last axis (mmaemu_quantize_mx).

    Returns (codes, scales): uint8 codes of `element` (x's shape) and uint8
    UE8M0 scales (the last axis divided by block_size). For an operand b
    (k x n), blocked along k: quantise b.T and pass the transposes, codes.T
    and scales.T, to gemm_block_scaled (read in place).
    """
    return _mmaemu.quantize_mx(x, element, block_size)


def quantize_nvfp4(x):
    """NVFP4 quantisation of float32 x (mmaemu_nvfp4_global_scale, mmaemu_quantize_nvfp4).

    The per-tensor scale comes from all of x; one UE4M3 scale per 16
    consecutive values along the last axis. Returns (codes, scales,
    global_scale): uint8 e2m1 codes (x's shape), uint8 UE4M3 scales, and the
    float decode scale (pass it as a_global_scale / b_global_scale).
    """
    return _mmaemu.quantize_nvfp4(x)


def dequantize(codes, scales, element, scale_format="ue8m0", block_size=32, global_scale=1.0):
    """codes * scale of their block * global_scale, rounded once to float32 (mmaemu_dequantize).

    codes: uint8 of `element`; scales: uint8 of scale_format, codes' shape
    with the last axis divided by block_size.
    """
    return _mmaemu.dequantize(codes, scales, element, scale_format, block_size, global_scale)
