# SPDX-License-Identifier: BSD-3-Clause
"""mmaemu sweep: reading a run's outputs and comparing them with the reference's."""
import os
import re

import numpy as np

NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|nan)\b", re.I)
# ULP-distance buckets of the histogram: [lo, hi).
ULP_BUCKETS = ((0, 1), (1, 2), (2, 4), (4, 16), (16, 256), (256, 65536), (65536, None))


def bucket_name(lo, hi):
    if hi is None:
        return ">=%d" % lo
    return str(lo) if hi == lo + 1 else "%d-%d" % (lo, hi - 1)


def numbers(text):
    """Every number in a text (CSV, whitespace-separated, or printed), as float64."""
    return np.array([float(t) for t in NUMBER.findall(text)], dtype=np.float64)


def read_file(path, name):
    """The arrays of one output file: .npy, .npz (one per member), or numbers in text."""
    if path.endswith(".npy"):
        return {name: np.load(path, allow_pickle=False)}
    if path.endswith(".npz"):
        with np.load(path, allow_pickle=False) as z:
            return {k if name == "" else "%s:%s" % (name, k): z[k] for k in z.files}
    with open(path, encoding="utf-8", errors="replace") as f:
        return {name: numbers(f.read())}


def read_outputs(out_dir, names, stdout):
    """The outputs of a run: the named files (or every file under out_dir,
    sorted), else the numbers of stdout. A single .npz names its members alone."""
    files = names
    if files is None:
        files = sorted(os.path.relpath(os.path.join(d, f), out_dir)
                       for d, _, fs in os.walk(out_dir) for f in fs)
    if not files:
        return {"stdout": numbers(stdout)}
    arrays = {}
    for f in files:
        path = os.path.join(out_dir, f)
        if not os.path.exists(path):
            raise ValueError("output %s was not written" % f)
        single_npz = len(files) == 1 and f.endswith(".npz")
        arrays.update(read_file(path, "" if single_npz else f))
    return arrays


def ordered(x):
    """Floats as integers in the order of their values (ULP distances)."""
    if x.dtype == np.float32:
        i = x.view(np.int32).astype(np.int64)
        return np.where(i < 0, -(i & 0x7FFFFFFF), i)
    if x.dtype == np.float16:
        i = x.view(np.int16).astype(np.int64)
        return np.where(i < 0, -(i & 0x7FFF), i)
    i = x.astype(np.float64).view(np.int64)
    return np.where(i < 0, -(i & 0x7FFFFFFFFFFFFFFF), i)


def relative(x, r):
    """|x - r| / |r| per element (0 where both are 0, inf where only r is)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        e = np.abs(x - r) / np.abs(r)
    e[(x == r)] = 0.0
    return e


def bits_differ(x, r):
    """Elements whose bit patterns differ (same format)."""
    if x.size == 0:
        return 0
    xb = np.ascontiguousarray(x).view(np.uint8).reshape(x.size, -1)
    rb = np.ascontiguousarray(r).view(np.uint8).reshape(r.size, -1)
    return int(np.count_nonzero(np.any(xb != rb, axis=1)))


def measure(x, r):
    """The comparison of one output array with its reference."""
    native = x.dtype if x.dtype.kind == "f" else np.dtype(np.float64)
    x = x.astype(native)
    r_same = r.astype(native)  # the reference rounded to the run's format: bits comparable
    x64, r64 = x.astype(np.float64), r.astype(np.float64)
    rnorm = np.linalg.norm(r64)
    diff = np.linalg.norm(x64 - r64)
    normwise = diff / rnorm if rnorm > 0 else (0.0 if diff == 0 else np.inf)
    rel = relative(x64, r64)
    with np.errstate(divide="ignore", invalid="ignore"):
        signed = np.where(r64 != 0, (x64 - r64) / r64, 0.0)
    ulps = np.abs(ordered(x) - ordered(r_same))
    finite = np.isfinite(x64) & np.isfinite(r64)
    hist = [int(np.count_nonzero((ulps >= lo) & ((ulps < hi) if hi else True) & finite)) for lo, hi in ULP_BUCKETS]
    return {"elements": int(x.size), "normwise": float(normwise), "maxrel": float(rel.max()) if rel.size else 0.0,
            "bias": float(np.mean(signed)) if signed.size else 0.0,
            "bits_differ": bits_differ(x, r_same),
            "ulp_max": int(ulps[finite].max()) if finite.any() else 0, "ulp_hist": hist,
            "nonfinite": int(np.count_nonzero(~finite))}


def compare(outputs, reference):
    """One result per reference output: its measures, or an error."""
    results = []
    for name, r in reference.items():
        x = outputs.get(name)
        if x is None:
            results.append({"output": name, "error": "missing"})
        elif x.shape != r.shape:
            results.append({"output": name, "error": "shape %s, reference %s" % (x.shape, r.shape)})
        else:
            results.append(dict(measure(np.asarray(x), np.asarray(r)), output=name))
    return results
