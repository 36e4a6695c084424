# SPDX-License-Identifier: BSD-3-Clause
"""mmaemu.emulate() and `python3 -m mmaemu run`: the BLAS calls of numpy
(and torch, when installed) inside a block run on the model."""
import importlib.util
import os
import subprocess
import sys

import pytest

import mmaemu

CHILD = os.path.join(os.path.dirname(__file__), "emulate_child.py")


def run_child(case, *launcher_args):
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "MMA_MODEL", "MMA_INPUT_FORMAT")}
    return subprocess.run([sys.executable, "-m", "mmaemu", "run", *launcher_args, "--", CHILD, case],
                          capture_output=True, text=True, env=env, timeout=120)


def check(result):
    assert result.returncode == 0 and result.stdout.strip().endswith("OK"), result.stdout + result.stderr


def test_without_the_preload_says_how_to_start():
    if "libmmaemu" in os.environ.get("LD_PRELOAD", ""):
        pytest.skip("this test process has the shim preloaded")
    with pytest.raises(mmaemu.ShimNotLoadedError, match=r"python3 -m mmaemu run \[--model MODEL\]"):
        with mmaemu.emulate("H100"):
            pass


def test_switch_nesting_restore_and_errors():
    check(run_child("switch"))


def test_threads():
    check(run_child("threads"))


def test_launcher_sets_the_model():
    check(run_child("launcher_model", "--model", "H100"))


def test_verbose_reports_calls_per_setting():
    r = run_child("verbose", "--verbose")
    check(r)
    assert "calls under model H100, sgemm input fp16" in r.stderr, r.stderr
    assert "calls under model MI300X, sgemm input fp32" in r.stderr, r.stderr
    assert "switched to model MI300X" in r.stderr, r.stderr


def test_launcher_needs_a_program():
    r = subprocess.run([sys.executable, "-m", "mmaemu", "run", "--model", "H100"], capture_output=True, text=True)
    assert r.returncode == 2 and "name the program after --" in r.stderr


@pytest.mark.skipif(importlib.util.find_spec("torch") is None, reason="torch is not installed (python3-torch)")
def test_torch_linear_layers():
    check(run_child("torch"))
