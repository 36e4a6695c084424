# SPDX-License-Identifier: BSD-3-Clause
"""PyTorch models under a GPU's numerics, without the BLAS preload (docs/python.md, "PyTorch").

    import torch, mmaemu.torch
    with mmaemu.torch.emulate("H100", input="e4m3", schedule="promote:128") as mode:
        loss = model(x).sum()
        loss.backward()                  # the backward pass's products too
    print(mode.report())                 # emulated and passed-through operations

* emulate: a TorchDispatchMode running CPU aten mm, addmm, bmm, baddbmm, mv,
  addmv, dot and convolution (im2col GEMMs) of float32 / float16 / bfloat16
  tensors on a model's matrix unit, bit-identical to mmaemu.matmul.
* scaled_mm: torch._scaled_mm's semantics (fp8 operands, per-tensor or
  row-wise scales, bias, out_dtype, use_fast_accum) on a model's fp8 unit.
* block_scaled_linear, BlockScaledLinear, swap_linears: nn.Linear forwards
  with MXFP8 / MXFP6 / MXFP4 / NVFP4 quantisation on the block-scaled units.
"""
from ._mode import DTYPES, HANDLERS, OTHER_MATMUL_LIKE, VECTOR_OPS, emulate  # noqa: F401
from ._scaled import (  # noqa: F401
    BLOCK_SCALED_FORMATS,
    FLOAT8_DTYPES,
    BlockScaledLinear,
    block_scaled_linear,
    scaled_mm,
    swap_linears,
)

__all__ = ["emulate", "scaled_mm", "block_scaled_linear", "BlockScaledLinear", "swap_linears", "DTYPES",
           "FLOAT8_DTYPES", "BLOCK_SCALED_FORMATS", "VECTOR_OPS", "HANDLERS", "OTHER_MATMUL_LIKE"]
