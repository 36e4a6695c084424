# SPDX-License-Identifier: BSD-3-Clause
"""libmmaemu for Python: the bit-exact numerics of GPU matrix units (NVIDIA
tensor cores, AMD matrix cores) on numpy arrays, and in-process control of
the BLAS shim.

Every number comes from libmmaemu's C API (include/mmaemu/mmaemu.h); this
package only checks and translates arguments, and releases the GIL while the
library computes.

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
    formats,
    models,
    storage_dtype,
    version,
)
from . import _mmaemu
from ._shim import ShimNotLoadedError, emulate, shim_setting  # noqa: F401

__all__ = [
    "Error", "UnknownModelError", "UnsupportedError", "ShimNotLoadedError", "Model", "models", "formats",
    "storage_dtype", "version", "matmul", "tile", "convert", "decode", "probe", "compare", "emulate",
    "shim_setting",
]


def matmul(a, b, model, *, input=None, output=None, c=None, alpha=1.0, beta=0.0, accumulate="gpu-blas",
           rounding=None, saturate=None, a_format=None, b_format=None, c_format=None, threads=0,
           schedule="chain"):
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
    BLAS epilogue) or "into-c" (beta*C is the chain's first accumulator).
    threads: 0 uses MMA_NUM_THREADS, then OMP_NUM_THREADS, then all cores.
    schedule: how the unit's partial sums over k combine (README, "Schedules"):
    "chain" (one accumulator along k), "promote:P", "splitk:S", "splitk:S:tree",
    or a combination such as "splitk:2+promote:128".

    Returns D (m x n): float32 values (float64 for fp64 output) for float
    operands; codes of the output format (e.g. uint16 fp16 codes) for code
    operands; c_format chooses explicitly.
    """
    return _mmaemu.matmul(a, b, model, input=input, output=output, c=c, alpha=alpha, beta=beta,
                          accumulate=accumulate, rounding=rounding, saturate=saturate, a_format=a_format,
                          b_format=b_format, c_format=c_format, threads=threads, schedule=schedule)


def tile(model, a, b, c=None, *, input=None, output="fp32"):
    """One instruction, D = A*B + C, of `model`'s unit for (input, output) (mmaemu_tile).

    a, b, c hold values in the storage of their formats (see storage_dtype)
    and have the instruction's shape, Model(model).tile_shape(input, output);
    c None is +0. input None: fp64/fp32/fp16 from a's float dtype. Returns D
    in the output format's storage.
    """
    return _mmaemu.tile(model, a, b, c, input=input, output=output)


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
    """
    return _mmaemu.probe(model, input, output, instr)


def compare(a, b, models=None, *, input="fp16", output=None, threads=0):
    """C = A @ B on several models (`mmaemu compare`), errors against the exact product.

    a, b: float arrays (read as binary64). models: names or Models (None: all
    registered). Returns one dict per model: model, instruction, skipped,
    reason, normwise (||C - C_ref||_F / ||C_ref||_F), componentwise (max
    |C - C_ref| / |C_ref|), unit_only (normwise error against the exact
    product of the operands rounded to `input`), seconds.
    """
    return _mmaemu.compare(a, b, models, input=input, output=output, threads=threads)
