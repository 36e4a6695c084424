# SPDX-License-Identifier: BSD-3-Clause
"""In-process control of the BLAS shim: `with mmaemu.emulate("H100"):`.

The shim intercepts BLAS calls (sgemm, ssyrk, dgemm, sbgemm; their CBLAS
forms) only when libmmaemu.so was loaded before the BLAS, i.e. preloaded:
start the program with `python3 -m mmaemu run [--model M] -- script.py ...`
(or LD_PRELOAD=libmmaemu.so). emulate() then switches the preloaded
library's setting with mmaemu_shim_set() (thread-safe: each BLAS call runs
under the setting it started with).

The setting is process-wide, as the BLAS is: calls from every thread inside
the block (numpy, SciPy, PyTorch and their worker threads) use it. Nested
blocks restore their outer setting when they end. Blocks in concurrent
threads are not isolated from each other: the last one entered applies until
one ends.
"""
import contextlib
import ctypes
import os
import threading

from ._mmaemu import Error, Model

_ERR_NOT_BUILT = -6  # MMAEMU_ERR_NOT_BUILT (mmaemu.h)

_START_HINT = ("start the program with the shim preloaded:\n"
               "    python3 -m mmaemu run [--model MODEL] [--input POLICY] -- script.py [args ...]\n"
               "(or LD_PRELOAD=/path/to/libmmaemu.so python3 script.py)")


class ShimNotLoadedError(RuntimeError):
    """emulate() was used in a process without the preloaded BLAS shim."""


class _Shim:
    """The preloaded libmmaemu.so's runtime switch, found in the global symbol scope."""

    def __init__(self):
        preload = os.environ.get("LD_PRELOAD", "")
        scope = ctypes.CDLL(None)
        if "libmmaemu" not in preload or not hasattr(scope, "mmaemu_shim_set"):
            raise ShimNotLoadedError(
                "mmaemu.emulate() needs libmmaemu.so loaded before the BLAS, or the BLAS calls of numpy, SciPy "
                "and PyTorch never reach it; " + _START_HINT)
        self._set = scope.mmaemu_shim_set
        self._set.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        self._get = scope.mmaemu_shim_get
        self._get.argtypes = [ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p)]
        self._error = scope.mmaemu_last_error
        self._error.restype = ctypes.c_char_p
        model, policy = ctypes.c_char_p(), ctypes.c_char_p()
        if self._get(ctypes.byref(model), ctypes.byref(policy)) == _ERR_NOT_BUILT:  # MMAEMU_BUILD_BLAS_SHIM=OFF
            raise ShimNotLoadedError(self._error().decode())

    def set(self, model, policy):
        if self._set((model or "").encode(), (policy or "").encode()) != 0:
            raise Error(self._error().decode())

    def get(self):
        model, policy = ctypes.c_char_p(), ctypes.c_char_p()
        if self._get(ctypes.byref(model), ctypes.byref(policy)) != 0:
            raise Error(self._error().decode())
        return model.value.decode(), policy.value.decode()


_shim = None
_lock = threading.Lock()  # one switch at a time: get-then-set stays consistent


def _the_shim():
    global _shim
    if _shim is None:
        _shim = _Shim()
    return _shim


def shim_setting():
    """The preloaded shim's (model, input policy); ("", "") when BLAS calls go to the system BLAS."""
    return _the_shim().get()


@contextlib.contextmanager
def emulate(model, input=None):
    """Runs the BLAS calls made inside the block on `model` (a name or Model; None: the system BLAS).

    input: the sgemm input policy ("fp16", "bf16", "tf32", "tf32:rna", ...;
    None: the model's vendor-BLAS default). MMA_ACCUMULATE and MMA_DGEMM of
    the environment still apply. Raises ShimNotLoadedError without the
    preloaded shim, mmaemu.Error for a bad model or policy (the setting is
    then unchanged). MMA_VERBOSE=1 reports the calls made under each setting.
    """
    shim = _the_shim()
    name = model.spec if isinstance(model, Model) else model
    with _lock:
        previous = shim.get()
        shim.set(name, input)
    try:
        yield
    finally:
        with _lock:
            shim.set(*previous)
