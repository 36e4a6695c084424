# SPDX-License-Identifier: BSD-3-Clause
"""The Python side of the Octave integer test (integer_bits_test.m): reads
octave_ref's int file (dims m, n, k, sat; A, B one value per byte; C, D
int32; column-major) and writes D = A @ B + C from mmaemu.matmul, then the
same elements from mmaemu.dot (one dot per element), int32 column-major.

    python3 int_gemm.py INFILE MODEL AFMT BFMT OUTFILE [INFILE MODEL AFMT BFMT OUTFILE ...]
"""
import sys

import numpy as np

import mmaemu

SIGNED = {"int8": True, "uint8": False, "int4": True, "uint4": False}


def main(infile, model, afmt, bfmt, outfile):
    raw = open(infile, "rb").read()
    m, n, k, sat = np.frombuffer(raw, dtype="<i4", count=4)
    at = 16
    a = np.frombuffer(raw, dtype=np.int8 if SIGNED[afmt] else np.uint8, count=m * k, offset=at).reshape((m, k), order="F")
    at += m * k
    b = np.frombuffer(raw, dtype=np.int8 if SIGNED[bfmt] else np.uint8, count=k * n, offset=at).reshape((k, n), order="F")
    at += k * n
    c = np.frombuffer(raw, dtype="<i4", count=m * n, offset=at).reshape((m, n), order="F")
    d = mmaemu.matmul(a, b, model, input=afmt, b_format=bfmt, c=c, saturate=bool(sat))
    # Element (i, j) as one dot product: row i of A, column j of B, C(i, j).
    rows = np.repeat(a[:, None, :], n, axis=1).reshape(m * n, k)
    cols = np.repeat(b.T[None, :, :], m, axis=0).reshape(m * n, k)
    dots = mmaemu.dot(model, np.ascontiguousarray(rows), np.ascontiguousarray(cols), c.reshape(m * n).copy(),
                      input=afmt, b_format=bfmt, saturate=bool(sat)).reshape(m, n)
    with open(outfile, "wb") as f:
        f.write(np.asfortranarray(d, dtype="<i4").tobytes(order="F"))
        f.write(np.asfortranarray(dots, dtype="<i4").tobytes(order="F"))


if __name__ == "__main__":
    args = sys.argv[1:]
    if not args or len(args) % 5:
        sys.exit("usage: int_gemm.py INFILE MODEL AFMT BFMT OUTFILE [...]")
    for i in range(0, len(args), 5):
        main(*args[i:i + 5])
