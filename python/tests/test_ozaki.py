# SPDX-License-Identifier: BSD-3-Clause
"""mmaemu.matmul(..., scheme=) (docs/ozaki.md): float64 in and out, scheme II
against Python's exact integers (the scaled integers' product, rounded once:
an implementation independent of the library's moduli), the exactness
check's counts, refusals."""
import math

import numpy as np
import pytest

import mmaemu


def papers_matrices(m, k, n, phi, seed):
    rng = np.random.default_rng(seed)
    a = (rng.random((m, k)) - 0.5) * np.exp(phi * rng.standard_normal((m, k)))
    b = (rng.random((k, n)) - 0.5) * np.exp(phi * rng.standard_normal((k, n)))
    return a, b


def moduli_log2(count):
    kept = []
    c = 256
    while len(kept) < count:
        if all(math.gcd(c, q) == 1 for q in kept):
            kept.append(c)
        c -= 1
    return math.prod(kept).bit_length() - 1


def line_scale(line, log2_p):
    """Scheme II's scale of a row of A or column of B (docs/ozaki.md)."""
    if not np.any(line):
        return 0
    e = math.frexp(float(np.max(np.abs(line))))[1]
    s = 0.0
    for x in line:
        w = math.ldexp(float(x), -e)
        s += w * w
    x = math.frexp(s * (1.0 + 2.0 ** -20))[1]
    return (log2_p - 1 - x) // 2 - e


def scaled(x, mu):
    """trunc(x 2^mu) as an exact Python int."""
    num, den = float(x).as_integer_ratio()
    v = num * 2 ** mu if mu >= 0 else num
    d = den if mu >= 0 else den * 2 ** -mu
    q = abs(v) // d
    return q if v >= 0 else -q


def scheme2_reference(a, b, count):
    log2_p = moduli_log2(count)
    mu = [line_scale(a[i], log2_p) for i in range(a.shape[0])]
    nu = [line_scale(b[:, j], log2_p) for j in range(b.shape[1])]
    ai = [[scaled(x, mu[i]) for x in a[i]] for i in range(a.shape[0])]
    bi = [[scaled(x, nu[j]) for x in b[:, j]] for j in range(b.shape[1])]
    d = np.empty((a.shape[0], b.shape[1]))
    for i in range(a.shape[0]):
        for j in range(b.shape[1]):
            c = sum(x * y for x, y in zip(ai[i], bi[j]))
            d[i, j] = math.ldexp(float(c), -(mu[i] + nu[j]))  # int -> float: correctly rounded
    return d


@pytest.mark.parametrize("count", [4, 14, 17, 20])
def test_scheme2_equals_exact_integers(count):
    a, b = papers_matrices(7, 33, 5, 1.5, 100 + count)
    d = mmaemu.matmul(a, b, "H100", input="int8", scheme=f"ozaki2:{count}")
    assert d.dtype == np.float64
    ref = scheme2_reference(a, b, count)
    bad = np.flatnonzero(d.view(np.uint64) != ref.view(np.uint64))
    assert bad.size == 0, [(hex(d.flat[i].view(np.uint64)), hex(ref.flat[i].view(np.uint64))) for i in bad[:3]]


def test_transposed_operands_and_alpha_beta():
    a, b = papers_matrices(6, 20, 4, 1.0, 7)
    c = np.arange(24, dtype=np.float64).reshape(6, 4)
    d = mmaemu.matmul(a, b, "H100", scheme="ozaki2:14")
    dt = mmaemu.matmul(np.asfortranarray(a), np.asfortranarray(b), "H100", scheme="ozaki2:14")
    assert np.array_equal(d.view(np.uint64), dt.view(np.uint64))
    e = mmaemu.matmul(a, b, "H100", scheme="ozaki2:14", alpha=2.0, beta=-1.0, c=c)
    assert np.array_equal(e.view(np.uint64), (2.0 * d + -1.0 * c).view(np.uint64))


def test_check_counts():
    a, b = papers_matrices(8, 1024, 8, 1.0, 11)
    a, b = np.abs(a), np.abs(b)
    d, counts = mmaemu.matmul(a, b, "H100", input="e4m3", scheme="ozaki1:6", check=True)
    assert counts["checked"] and counts["products"] == 21 and counts["product_elements"] == 21 * 64
    assert counts["inexact_product_elements"] > 0
    d8, counts8 = mmaemu.matmul(a, b, "H100", input="int8", scheme="ozaki1:6", check=True)
    assert counts8["inexact_product_elements"] == 0 and counts8["inexact_outputs"] == 0
    assert np.array_equal(d8.view(np.uint64), mmaemu.matmul(a, b, "H100", scheme="ozaki1:6").view(np.uint64))


def test_refusals():
    a, b = papers_matrices(2, 3, 2, 0.0, 1)
    with pytest.raises(ValueError, match="ozaki2:N"):
        mmaemu.matmul(a, b, "H100", scheme="ozaki9:1")
    with pytest.raises(ValueError, match="input int8 works"):
        mmaemu.matmul(a, b, "H100", input="fp16", scheme="ozaki2:14")
    with pytest.raises(TypeError, match="float64"):
        mmaemu.matmul(a.astype(np.float32), b, "H100", scheme="ozaki2:14")
    with pytest.raises(ValueError, match="does not apply"):
        mmaemu.matmul(a, b, "H100", scheme="ozaki2:14", output="fp32")
    with pytest.raises(ValueError, match="scheme="):
        mmaemu.matmul(a, b, "H100", input="fp16", check=True)
