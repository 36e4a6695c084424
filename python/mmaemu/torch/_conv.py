# SPDX-License-Identifier: BSD-3-Clause
"""Convolutions as explicit GEMMs (im2col), for mmaemu.torch.emulate.

Every function takes `gemm(a, b)`, a 2-D product on the emulated unit, and
builds its operands with native, exact tensor copies (padding, windows,
permutes); every sum of products is one GEMM's dot product along k, summed
by the unit (docs/python.md, "Convolutions"):

* forward, input x (N, C, *S), weight w (O, C/g, *K), groups g: per group
  D = X_cols @ W^T with X_cols (N*L) x (C/g * prod K), one row per output
  position (n, then the output positions in row-major order), and k in the
  order (c, *kernel position) with c slowest, the order of
  w.reshape(O, -1). Zero padding is part of X_cols, so padded positions are
  zero terms of the dot product.
* transposed forward (and the input gradient of a forward convolution): the
  direct convolution, stride 1, of the input with stride - 1 zeros inserted
  between its elements and padded by dilation*(K-1) - padding, with the
  weight flipped along every kernel axis and its two channel axes swapped;
  k = (channel, kernel position) of that convolution, inserted zeros included.
* weight gradient: per group dW = dY^T @ X_cols, k = (n, output position).
"""
import torch
import torch.nn.functional as F


def _pad(x, lo, hi):
    """Zero padding (lo, hi per spatial axis; negative values crop), exact."""
    pairs = []
    for l, h in reversed(list(zip(lo, hi))):
        pairs += [l, h]
    return F.pad(x, pairs) if any(pairs) else x


def _columns(x, kernel, stride, padding, dilation):
    """im2col: x (N, C, *S) -> (N, *Out, C, *K) windows (a view of the padded x) and Out."""
    d = len(kernel)
    x = _pad(x, padding, padding)
    for i in range(d):
        span = dilation[i] * (kernel[i] - 1) + 1
        if x.shape[2 + i] < span:
            raise ValueError(f"convolution: the padded input ({x.shape[2 + i]} along spatial axis {i}) is smaller "
                             f"than the dilated kernel ({span})")
        x = x.unfold(2 + i, span, stride[i])  # appends the window axis
        if dilation[i] > 1:
            x = x[..., ::dilation[i]]
    out = tuple(x.shape[2:2 + d])
    # (N, C, *Out, *K) -> (N, *Out, C, *K)
    perm = [0] + list(range(2, 2 + d)) + [1] + list(range(2 + d, 2 + 2 * d))
    return x.permute(perm), out


def conv(x, w, stride, padding, dilation, groups, gemm):
    """Forward convolution of x (N, C, *S) with w (O, C/groups, *K), no bias: (N, O, *Out)."""
    n, c = x.shape[0], x.shape[1]
    o, cg = w.shape[0], w.shape[1]
    kernel = tuple(w.shape[2:])
    if c != cg * groups or o % groups:
        raise ValueError(f"convolution: input has {c} channels, weight {tuple(w.shape)}, groups {groups}")
    cols, out = _columns(x, kernel, stride, padding, dilation)
    rows = n
    for s in out:
        rows *= s
    og = o // groups
    kk = cg
    for s in kernel:
        kk *= s
    parts = []
    for g in range(groups):
        a = cols.narrow(1 + len(out), g * cg, cg).reshape(rows, kk)
        b = w[g * og:(g + 1) * og].reshape(og, kk).t()
        parts.append(gemm(a, b))  # rows x og
    d = torch.cat(parts, dim=1) if groups > 1 else parts[0]
    d = d.reshape(n, *out, o)
    return d.permute([0, 1 + len(out)] + list(range(1, 1 + len(out)))).contiguous()


def _dilate(x, stride):
    """x (N, C, *S) with stride - 1 zeros between neighbours along each spatial axis."""
    if all(s == 1 for s in stride):
        return x
    size = [x.shape[0], x.shape[1]] + [(x.shape[2 + i] - 1) * s + 1 for i, s in enumerate(stride)]
    y = x.new_zeros(size)
    y[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride)] = x
    return y


def conv_transpose(x, w, stride, padding, dilation, output_padding, groups, gemm):
    """Transposed convolution of x (N, Cin, *S) with w (Cin, Cout/groups, *K), no bias."""
    d = len(stride)
    cin, cog = w.shape[0], w.shape[1]
    kernel = tuple(w.shape[2:])
    if cin % groups or x.shape[1] != cin:
        raise ValueError(f"transposed convolution: input has {x.shape[1]} channels, weight {tuple(w.shape)}, "
                         f"groups {groups}")
    cig = cin // groups
    # The equivalent direct convolution's weight: (Cout, Cin/groups, *K), flipped.
    wd = w.reshape(groups, cig, cog, *kernel).transpose(1, 2).reshape(groups * cog, cig, *kernel)
    wd = wd.flip(list(range(2, 2 + d)))
    lo = [dilation[i] * (kernel[i] - 1) - padding[i] for i in range(d)]
    hi = [lo[i] + output_padding[i] for i in range(d)]
    xd = _pad(_dilate(x, stride), lo, hi)
    return conv(xd, wd, [1] * d, [0] * d, dilation, groups, gemm)


def conv_weight_grad(dy, x, kernel, stride, padding, dilation, groups, gemm):
    """Gradient of a forward convolution's weight (O, C/groups, *K) from dy (N, O, *Out) and x (N, C, *S)."""
    n, c = x.shape[0], x.shape[1]
    o = dy.shape[1]
    cols, out = _columns(x, kernel, stride, padding, dilation)
    if tuple(dy.shape[2:]) != out:
        raise ValueError(f"convolution backward: grad_output has spatial shape {tuple(dy.shape[2:])}, "
                         f"the convolution gives {out}")
    rows = n
    for s in out:
        rows *= s
    cg, og = c // groups, o // groups
    kk = cg
    for s in kernel:
        kk *= s
    # dY as (O, N * L): k = (n, output position)
    dyt = dy.transpose(0, 1).reshape(o, rows)
    parts = []
    for g in range(groups):
        a = dyt[g * og:(g + 1) * og]
        b = cols.narrow(1 + len(out), g * cg, cg).reshape(rows, kk)
        parts.append(gemm(a, b))  # og x kk
    dw = torch.cat(parts, dim=0) if groups > 1 else parts[0]
    return dw.reshape(o, cg, *kernel)


def conv_transpose_weight_grad(dy, x, kernel, stride, padding, dilation, groups, gemm):
    """Gradient of a transposed convolution's weight (Cin, Cout/groups, *K) from dy (N, Cout, *Out), x (N, Cin, *S).

    dW[ci, co, k] = sum over (n, s) of x[n, ci, s] * dy[n, co, s*stride - padding + k*dilation]: per group
    X^T @ dY_cols with dY_cols the im2col of dy under the convolution's own stride, padding and dilation."""
    n, cin = x.shape[0], x.shape[1]
    cout = dy.shape[1]
    cols, out = _columns(dy, kernel, stride, padding, dilation)
    if out != tuple(x.shape[2:]):
        raise ValueError(f"transposed convolution backward: input has spatial shape {tuple(x.shape[2:])}, "
                         f"grad_output's windows give {out}")
    rows = n
    for s in out:
        rows *= s
    cig, cog = cin // groups, cout // groups
    kk = cog
    for s in kernel:
        kk *= s
    xt = x.transpose(0, 1).reshape(cin, rows)  # k = (n, input position)
    parts = []
    for g in range(groups):
        a = xt[g * cig:(g + 1) * cig]
        b = cols.narrow(1 + len(out), g * cog, cog).reshape(rows, kk)
        parts.append(gemm(a, b))  # cig x kk
    dw = torch.cat(parts, dim=0) if groups > 1 else parts[0]
    return dw.reshape(cin, cog, *kernel)


def output_padding_for(size, out, kernel, stride, padding, dilation):
    """The output_padding that makes a transposed convolution of spatial size `out` give `size`."""
    return [size[i] - ((out[i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (kernel[i] - 1) + 1)
            for i in range(len(kernel))]
