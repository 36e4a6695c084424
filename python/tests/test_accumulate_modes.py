# SPDX-License-Identifier: BSD-3-Clause
"""The accumulate modes each front end advertises, against the C API's one
table (mmaemu_accumulate_name): Python's accumulate=, the pip entry point
mmaemu-run and the shell mmaemu-run (`cmake --install`) --help; each
advertised mode is accepted by the runtime (a BLAS call under the shim)."""
import ctypes
import os
import re
import subprocess
import sys

import numpy as np
import pytest

import mmaemu
from conftest import LIBRARY

SHELL_RUN = os.environ.get("MMAEMU_RUN", "")
# A program whose float32 product goes through the preloaded shim's sgemm.
NUMPY_PRODUCT = "import numpy as np; a = np.ones((8, 8), np.float32); print((a @ a)[0, 0])"
MODE = re.compile(r"\b[a-z]+(?:-[a-z]+)+\b")


def table():
    """{name: keeps the BLAS contract} from the C API."""
    lib = ctypes.CDLL(LIBRARY)
    lib.mmaemu_accumulate_name.restype = ctypes.c_char_p
    modes, mode = {}, 0
    while (name := lib.mmaemu_accumulate_name(mode)) is not None:
        modes[name.decode()] = bool(lib.mmaemu_accumulate_keeps_blas(mode))
        mode += 1
    return modes


def blas_modes():
    return {name for name, keeps_blas in table().items() if keeps_blas}


def advertised(help_text, option_line):
    """The modes named on the help's lines that mention `option_line`."""
    lines = [line for line in help_text.splitlines() if option_line in line]
    assert lines, help_text
    return {m for line in lines for m in MODE.findall(line)}


def pip_run(*args, env=None):
    code = "import sys; from mmaemu.__main__ import run_program; run_program(sys.argv[1:])"
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, env=env)


def test_python_takes_every_mode_of_the_table():
    assert mmaemu.accumulate_modes() == list(table()), "Python lists the C API's table"
    assert set(mmaemu.accumulate_modes(blas_only=True)) == blas_modes()
    a = np.ones((4, 4), np.float32)
    for mode in table():
        d = mmaemu.matmul(a, a, "H100", input="fp16", c=a, beta=1.0, accumulate=mode)
        assert d[0, 0] == 5.0, mode


def test_pip_entry_point_advertises_the_shim_modes():
    r = pip_run("--help")
    assert r.returncode == 0, r.stderr
    assert advertised(r.stdout, "MMA_ACCUMULATE") == blas_modes(), r.stdout


@pytest.mark.skipif(not os.path.exists(SHELL_RUN), reason="no shell mmaemu-run (MMAEMU_BUILD_BLAS_SHIM=OFF)")
def test_shell_mmaemu_run_advertises_the_shim_modes():
    r = subprocess.run([SHELL_RUN, "--help"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert advertised(r.stdout, "--accumulate:") == blas_modes(), r.stdout


def runtime_env():
    env = dict(os.environ)
    env.pop("MMA_ACCUMULATE", None)
    env["MMAEMU_LIBRARY"] = LIBRARY
    return env


@pytest.mark.parametrize("mode", sorted(blas_modes()))
def test_the_runtime_accepts_each_advertised_mode(mode):
    r = pip_run("--model", "H100", "--accumulate", mode, "--", sys.executable, "-c", NUMPY_PRODUCT, env=runtime_env())
    assert r.returncode == 0 and r.stdout.strip() == "8.0", (mode, r.stdout, r.stderr)
    if os.path.exists(SHELL_RUN):
        r = subprocess.run([SHELL_RUN, "--model", "H100", "--accumulate", mode, "--", sys.executable, "-c",
                            NUMPY_PRODUCT], capture_output=True, text=True, env=runtime_env())
        assert r.returncode == 0 and r.stdout.strip() == "8.0", (mode, r.stdout, r.stderr)


def test_the_runtime_refuses_a_mode_outside_the_blas_contract():
    """into-c (alpha*(beta*C + A*B)) is Python's and the C API's, not a BLAS call's: the pip entry point
    refuses it, and the shim stops at the first BLAS call naming the modes it takes."""
    r = pip_run("--model", "H100", "--accumulate", "into-c", "--", sys.executable, "-c", NUMPY_PRODUCT,
                env=runtime_env())
    assert r.returncode == 2 and "invalid choice: 'into-c'" in r.stderr, r.stderr
    env = runtime_env() | {"MMA_ACCUMULATE": "into-c", "MMA_MODEL": "H100"}
    env["LD_PRELOAD"] = LIBRARY
    r = subprocess.run([sys.executable, "-c", NUMPY_PRODUCT], capture_output=True, text=True, env=env)
    assert r.returncode == 2 and "does not keep the BLAS contract" in r.stderr, r.stderr
    assert ", ".join(sorted(blas_modes(), key=list(table()).index)) in r.stderr, r.stderr
