# SPDX-License-Identifier: BSD-3-Clause
"""scipy.linalg.lu_factor and cho_factor on float32 under the preload of
libmmaemu and the reference LAPACK (the plain LD_PRELOAD line of
docs/lapack.md):

  * a child process runs them (sgetrf, spotrf 'U' and 'L') with the model,
    then, switched off with mmaemu_shim_set(""), natively; the shim's
    MMA_VERBOSE report gives the calls it emulated;
  * this process composes the same blocked algorithms (LAPACK 3.6+
    sgetrf/sgetrf2, spotrf/spotrf2) independently: sgemm through the C API
    (ctypes), ssyrk as that GEMM on the whole block, strsm through scipy's
    BLAS (native, as the shim forwards it), pivoting and scaling in numpy;
  * the factors must equal the composition bit for bit, the shim's sgemm and
    ssyrk counts the composition's, and the native factors must differ.

Environment: MMAEMU_LIBRARY (libmmaemu.so), MMAEMU_REFERENCE_LAPACK,
MMA_MODEL, MMA_INPUT_FORMAT.
"""
import ctypes
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import scipy.linalg as sla
from scipy.linalg import blas

SEED = 20240917
N = 200


def ilaenv(name, opts, n1, n2):
    """ILAENV(1, name, opts, n1, n2, -1, -1) of the preloaded reference LAPACK."""
    f = ctypes.CDLL(os.environ["MMAEMU_REFERENCE_LAPACK"]).ilaenv_
    f.restype = ctypes.c_int
    i = [ctypes.c_int(v) for v in (1, n1, n2, -1, -1)]
    return f(*[ctypes.byref(i[0]), name.encode(), opts.encode()], *[ctypes.byref(x) for x in i[1:]],
             ctypes.c_size_t(len(name)), ctypes.c_size_t(len(opts)))


def child(path):
    data = dict(np.load(path))
    nb_lu = ilaenv("SGETRF", " ", N, N)
    nb_ch = ilaenv("SPOTRF", "U", N, -1)
    out = {"nb_lu": nb_lu, "nb_ch": nb_ch}
    for phase in ("model", "native"):
        lu, piv = sla.lu_factor(data["a"])
        up, _ = sla.cho_factor(data["s"], lower=False)
        lo, _ = sla.cho_factor(data["s"], lower=True)
        out.update({phase + "_lu": lu, phase + "_piv": piv, phase + "_up": up, phase + "_lo": lo})
        if phase == "model":  # prints the report of the emulated calls
            lib = ctypes.CDLL(os.environ["MMAEMU_LIBRARY"])
            if lib.mmaemu_shim_set(b"", None) != 0:
                sys.exit("mmaemu_shim_set failed")
    np.savez(path, **out)


class Composition:
    """The blocked algorithms with the model's GEMM through the C API."""

    def __init__(self, lib, model, policy):
        self.lib, self.policy = lib, policy.encode()
        self.model = ctypes.c_void_p()
        if lib.mmaemu_model_lookup(model.encode(), ctypes.byref(self.model)) != 0:
            raise SystemExit(lib.mmaemu_last_error().decode())
        self.gemm_calls = self.syrk_calls = 0

    def _gemm(self, ta, tb, m, n, k, alpha, A, B, beta, C):
        """C (a column-major view) = alpha op(A) op(B) + beta C, views of F arrays."""
        def ptr(x):
            return ctypes.c_void_p(x.__array_interface__["data"][0])

        def ld(x):  # x is F-contiguous
            return max(1, x.shape[0])

        st = self.lib.mmaemu_sgemm(self.model, self.policy, 102, 111 if ta == "N" else 112, 111 if tb == "N" else 112,
                                   m, n, k, ctypes.c_float(alpha), ptr(A), ld(A), ptr(B), ld(B), ctypes.c_float(beta),
                                   ptr(C), ld(C))
        if st != 0:
            raise SystemExit("mmaemu_sgemm: " + self.lib.mmaemu_last_error().decode())

    @staticmethod
    def operand(x):
        """An F-contiguous copy; an empty one (k = 0) keeps its leading dimension."""
        return np.asfortranarray(x) if x.size else np.zeros((max(1, x.shape[0]), 1), np.float32, order="F")

    def gemm(self, ta, tb, m, n, k, A, B, C):
        """C -= op(A) op(B) in place (alpha -1, beta 1), C a view of the big array."""
        self.gemm_calls += 1
        c = np.asfortranarray(C)
        if m and n:
            self._gemm(ta, tb, m, n, k, -1.0, self.operand(A), self.operand(B), 1.0, c)
        C[...] = c

    def syrk(self, uplo, trans, n, k, A, C):
        """C -= op(A) op(A)^T on the uplo triangle: the GEMM of the block, the triangle kept."""
        self.syrk_calls += 1
        if n == 0:
            return
        w = np.asfortranarray(C.copy())
        a = self.operand(A)
        self._gemm(trans, "T" if trans == "N" else "N", n, n, k, -1.0, a, a, 1.0, w)
        mask = np.triu(np.ones((n, n), bool)) if uplo == "U" else np.tril(np.ones((n, n), bool))
        C[mask] = w[mask]

    @staticmethod
    def trsm(side, lower, trans, unit, T, B):
        B[...] = blas.strsm(1.0, np.asfortranarray(T), np.asfortranarray(B), side=side, lower=lower,
                            trans_a=trans, diag=unit)

    @staticmethod
    def laswp(a, k1, k2, piv):  # rows k1..k2 (0-based, inclusive) as ipiv says (0-based)
        for i in range(k1, k2 + 1):
            p = piv[i]
            if p != i:
                a[[i, p], :] = a[[p, i], :]

    def getrf2(self, a, piv):
        m, n = a.shape
        if m == 0 or n == 0:
            return
        if m == 1:
            piv[0] = 0
            return
        if n == 1:
            col = a[:, 0]
            p = int(np.argmax(np.abs(col)))  # ISAMAX: the first largest
            piv[0] = p
            if col[p] != 0:
                col[[0, p]] = col[[p, 0]]
                if abs(col[0]) >= np.finfo(np.float32).tiny:
                    col[1:] *= np.float32(1) / col[0]
                else:
                    col[1:] /= col[0]
            return
        n1 = min(m, n) // 2
        n2 = n - n1
        self.getrf2(a[:, :n1], piv[:n1])
        self.laswp(a[:, n1:], 0, n1 - 1, piv)
        self.trsm(0, 1, 0, 1, a[:n1, :n1], a[:n1, n1:])
        self.gemm("N", "N", m - n1, n2, n1, a[n1:, :n1], a[:n1, n1:], a[n1:, n1:])
        self.getrf2(a[n1:, n1:], piv[n1:])
        piv[n1:min(m, n)] += n1
        self.laswp(a[:, :n1], n1, min(m, n) - 1, piv)

    def getrf(self, a, nb):
        m, n = a.shape
        mn = min(m, n)
        piv = np.zeros(mn, np.int64)
        if nb <= 1 or nb >= mn:
            self.getrf2(a, piv)
            return piv
        for j in range(0, mn, nb):
            jb = min(mn - j, nb)
            self.getrf2(a[j:, j:j + jb], piv[j:j + jb])
            piv[j:min(m, j + jb)] += j
            self.laswp(a[:, :j], j, j + jb - 1, piv)
            if j + jb < n:
                self.laswp(a[:, j + jb:], j, j + jb - 1, piv)
                self.trsm(0, 1, 0, 1, a[j:j + jb, j:j + jb], a[j:j + jb, j + jb:])
                if j + jb < m:
                    self.gemm("N", "N", m - j - jb, n - j - jb, jb, a[j + jb:, j:j + jb], a[j:j + jb, j + jb:],
                              a[j + jb:, j + jb:])
        return piv

    def potrf2(self, uplo, a):
        n = a.shape[0]
        if n == 1:
            assert a[0, 0] > 0
            a[0, 0] = np.sqrt(a[0, 0])
            return
        n1 = n // 2
        self.potrf2(uplo, a[:n1, :n1])
        if uplo == "U":
            self.trsm(0, 0, 1, 0, a[:n1, :n1], a[:n1, n1:])
            self.syrk("U", "T", n - n1, n1, a[:n1, n1:], a[n1:, n1:])
        else:
            self.trsm(1, 1, 1, 0, a[:n1, :n1], a[n1:, :n1])
            self.syrk("L", "N", n - n1, n1, a[n1:, :n1], a[n1:, n1:])
        self.potrf2(uplo, a[n1:, n1:])

    def potrf(self, uplo, a, nb):
        n = a.shape[0]
        if nb <= 1 or nb >= n:
            return self.potrf2(uplo, a)
        for j in range(0, n, nb):
            jb = min(nb, n - j)
            r = slice(j + jb, n)
            if uplo == "U":
                self.syrk("U", "T", jb, j, a[:j, j:j + jb], a[j:j + jb, j:j + jb])
                self.potrf2("U", a[j:j + jb, j:j + jb])
                if j + jb < n:
                    self.gemm("T", "N", jb, n - j - jb, j, a[:j, j:j + jb], a[:j, r], a[j:j + jb, r])
                    self.trsm(0, 0, 1, 0, a[j:j + jb, j:j + jb], a[j:j + jb, r])
            else:
                self.syrk("L", "N", jb, j, a[j:j + jb, :j], a[j:j + jb, j:j + jb])
                self.potrf2("L", a[j:j + jb, j:j + jb])
                if j + jb < n:
                    self.gemm("N", "T", n - j - jb, jb, j, a[r, :j], a[j:j + jb, :j], a[r, j:j + jb])
                    self.trsm(1, 1, 1, 0, a[j:j + jb, j:j + jb], a[r, j:j + jb])


def main():
    model, policy = os.environ["MMA_MODEL"], os.environ.get("MMA_INPUT_FORMAT", "")
    lib_path, lapack_path = os.environ["MMAEMU_LIBRARY"], os.environ["MMAEMU_REFERENCE_LAPACK"]
    rng = np.random.default_rng(SEED)
    a = rng.uniform(-1, 1, (N, N)).astype(np.float32)
    b = rng.uniform(-1, 1, (N, N))
    s = (b.T @ b / N + np.eye(N)).astype(np.float32)
    failed = passed = 0

    def check(ok, what):
        nonlocal failed, passed
        print(("ok: " if ok else "FAILED: ") + what + ("" if ok else f" (seed {SEED}, model {model}, policy {policy})"))
        passed += bool(ok)
        failed += not ok

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "io.npz")
        np.savez(path, a=a, s=s)
        env = dict(os.environ, LD_PRELOAD=lib_path + ":" + lapack_path, MMA_VERBOSE="1", OPENBLAS_NUM_THREADS="1")
        run = subprocess.run([sys.executable, __file__, "--child", path], env=env, capture_output=True, text=True)
        sys.stdout.write(run.stdout)
        sys.stderr.write(run.stderr)
        if run.returncode != 0:
            sys.exit(f"the child failed with status {run.returncode}")
        res = dict(np.load(path))
    report = run.stderr.split("switched to")[0]
    counts = {r: int(c) for r, c in re.findall(r"libmmaemu: (\w+) +(\d+) calls", report)}

    lib = ctypes.CDLL(lib_path)
    lib.mmaemu_last_error.restype = ctypes.c_char_p
    if not policy:
        lib.mmaemu_default_policy.restype = ctypes.c_char_p
        m = ctypes.c_void_p()
        lib.mmaemu_model_lookup(model.encode(), ctypes.byref(m))
        policy = lib.mmaemu_default_policy(m).decode()
    comp = Composition(lib, model, policy)
    lu = np.asfortranarray(a.copy())
    piv = comp.getrf(lu, int(res["nb_lu"]))
    up = np.asfortranarray(s.copy())
    comp.potrf("U", up, int(res["nb_ch"]))
    lo = np.asfortranarray(s.copy())
    comp.potrf("L", lo, int(res["nb_ch"]))
    print(f"model {model}, policy {policy}, n = {N}, NB {res['nb_lu']} (getrf), {res['nb_ch']} (potrf); "
          f"composition: {comp.gemm_calls} sgemm, {comp.syrk_calls} ssyrk calls; shim report: {counts}")

    for name, kind in (("sgemm", comp.gemm_calls), ("ssyrk", comp.syrk_calls)):
        if counts.get(name, 0) == 0:
            print(f"BYPASSED: the shim computed no {name} call (is the reference LAPACK preloaded?)")
        check(counts.get(name, 0) == kind > 0, f"the shim emulated {counts.get(name, 0)} {name} calls, "
              f"the composition made {kind}")
    for what, got, ref in (("lu_factor", res["model_lu"], lu), ("cho_factor upper", res["model_up"], up),
                           ("cho_factor lower", res["model_lo"], lo)):
        bad = np.flatnonzero(got.view(np.uint32).ravel(order="F") != ref.view(np.uint32).ravel(order="F"))
        for i in bad[:5]:
            r, c = i % N, i // N
            print(f"  {what} ({r}, {c}): scipy 0x{got.view(np.uint32)[r, c]:08x}, "
                  f"composition 0x{ref.view(np.uint32)[r, c]:08x}")
        check(bad.size == 0, f"{what}: equals the composition bit for bit")
        native = res["native_" + {"lu_factor": "lu", "cho_factor upper": "up", "cho_factor lower": "lo"}[what]]
        d = int(np.count_nonzero(native.view(np.uint32) != got.view(np.uint32)))
        check(d > 0, f"{what}: {d} of {N * N} elements differ from the native run")
    check(np.array_equal(res["model_piv"], piv), "lu_factor: the pivots equal the composition's")
    print(f"scipy_test: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--child":
        child(sys.argv[2])
    else:
        sys.exit(main())
