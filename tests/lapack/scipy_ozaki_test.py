# SPDX-License-Identifier: BSD-3-Clause
"""scipy.linalg.solve on float64 through --lapack (the reference LAPACK's
dgetrf, whose trailing updates call dgemm) under MMA_DGEMM=ozaki2:N on
H100's int8 unit (docs/ozaki.md, "A LAPACK example"):

  * children solve A x = b with the papers' matrices (phi <= 2) natively and
    under ozaki2:18 and ozaki2:6, through mmaemu-run --lapack --dgemm;
  * the verbose report must show dgemm calls emulated;
  * the forward error against an extended-precision solution: with 18
    moduli within 10x of native's; with 6 moduli larger.

Environment: MMAEMU_RUN (the build tree's mmaemu-run), MMAEMU_REFERENCE_LAPACK.
"""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

N = 300
RUN = os.environ["MMAEMU_RUN"]
passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


CHILD = """
import sys, numpy as np, scipy.linalg as sla
a = np.load(sys.argv[1]); b = np.load(sys.argv[2])
np.save(sys.argv[3], sla.solve(a, b))
"""


def solve(args, pa, pb, px):
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", MMA_VERBOSE="1")
    r = subprocess.run([RUN, "--lapack", "--model", "H100", *args, "--", sys.executable, "-c", CHILD, pa, pb, px],
                       env=env, capture_output=True, text=True)
    if r.returncode != 0:
        print(r.stderr)
        return None, r.stderr
    return np.load(px), r.stderr


def refined(a, b, x):
    """x after two steps of iterative refinement with extended-precision residuals: the reference."""
    al, bl = a.astype(np.longdouble), b.astype(np.longdouble)
    xl = x.astype(np.longdouble)
    for _ in range(2):
        r = bl - al @ xl
        xl = xl + np.linalg.solve(a, r.astype(np.float64)).astype(np.longdouble)
    return xl


with tempfile.TemporaryDirectory() as tmp:
    for phi in (0.5, 2.0):
        rng = np.random.default_rng(20250606 + int(10 * phi))
        a = (rng.random((N, N)) - 0.5) * np.exp(phi * rng.standard_normal((N, N)))
        b = rng.random(N) - 0.5
        pa, pb, px = (os.path.join(tmp, f) for f in ("a.npy", "b.npy", "x.npy"))
        np.save(pa, a)
        np.save(pb, b)
        errs = {}
        for scheme in ("native", "ozaki2:18", "ozaki2:6"):
            x, report = solve(["--dgemm", scheme], pa, pb, px)
            check(x is not None, f"{scheme} phi {phi}: the child failed")
            if x is None:
                continue
            if scheme != "native":
                m = re.search(r"libmmaemu: dgemm +(\d+) calls", report)
                check(m is not None and int(m.group(1)) > 0, f"{scheme}: no dgemm emulated: {report}")
            errs[scheme] = x
        if len(errs) < 3:
            continue
        ref = refined(a, b, errs["native"])
        e = {s: float(np.max(np.abs(x.astype(np.longdouble) - ref)) / float(np.max(np.abs(ref))))
             for s, x in errs.items()}
        print(f"phi {phi}: forward errors " + ", ".join(f"{s} {v:.3e}" for s, v in e.items()))
        check(e["ozaki2:18"] <= 10 * e["native"], f"phi {phi}: ozaki2:18 {e['ozaki2:18']} > 10x native")
        check(e["ozaki2:6"] > e["ozaki2:18"], f"phi {phi}: 6 moduli no larger error")

print(f"scipy_ozaki_test: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
