#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# `pip install` of the package into a temporary virtual environment, without
# network (--no-index, --no-build-isolation: Debian's setuptools, wheel and
# pybind11 through --system-site-packages), then mmaemu imported from outside
# the tree, the entry points, a wheel, and `pip uninstall`.
#
# usage: pip_install_test.sh quick|full SOURCE_DIR PYTHON [BUILD_DIR]
#   quick: the working tree's files (tracked and untracked, not ignored)
#          copied to a temporary directory and installed with
#          MMAEMU_CMAKE_BUILD_DIR=BUILD_DIR: the compiled parts come from
#          that CMake build tree, brought up to date by an incremental build
#          (seconds when it is); the wheel likewise.
#   full:  a fresh `git clone` of SOURCE_DIR (its committed HEAD) installed
#          from scratch (setup.py configures and builds CMake: minutes); the
#          wheel reuses that build; the source distribution is unpacked and
#          configured by CMake (every file the build reads is in it).
set -euo pipefail
mode=$1 src=$2 python=$3 build=${4:-}
work=$(mktemp -d "${TMPDIR:-/tmp}/mmaemu-pip.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'echo "pip_install_test.sh: failed at line $LINENO"' ERR
unset PYTHONPATH MMAEMU_LIBRARY MMAEMU_CLI MMAEMU_DATA LD_PRELOAD MMAEMU_CMAKE_BUILD_DIR
export PIP_NO_INDEX=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1

tree=$work/src
case $mode in
  quick)
    [ -n "$build" ] || { echo "quick needs BUILD_DIR"; exit 2; }
    mkdir "$tree"
    (cd "$src" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$tree")
    export MMAEMU_CMAKE_BUILD_DIR=$build ;;
  full)
    git clone -q "$src" "$tree" ;;
  *) echo "usage: $0 quick|full SOURCE_DIR PYTHON [BUILD_DIR]"; exit 2 ;;
esac

"$python" -m venv --system-site-packages "$work/venv"
py=$work/venv/bin/python
site=$("$py" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
"$py" -m pip install -q --no-build-isolation "$tree"
echo "installed into $site"

# Outside the tree: the installed package, its library, data and CLI.
cd "$work"
"$py" - "$site" <<'PY'
import ctypes, os, sys
import numpy as np
import mmaemu
from mmaemu import __main__ as launcher
site = sys.argv[1]
assert mmaemu.__file__.startswith(site), mmaemu.__file__
assert mmaemu._mmaemu.__file__.startswith(site), mmaemu._mmaemu.__file__
lib = ctypes.CDLL(launcher.library_path())
lib.mmaemu_version.restype = ctypes.c_char_p
assert launcher.library_path().startswith(site) and lib.mmaemu_version().decode() == mmaemu.__version__
assert launcher.data_dir().startswith(site) and os.path.isdir(os.path.join(launcher.data_dir(), "refdata"))
assert launcher.cli_path().startswith(site)
assert os.path.exists(os.path.join(os.path.dirname(mmaemu.__file__), "_mmaemu.pyi"))
a = np.arange(64, dtype=np.float32).reshape(8, 8) / 7
d = mmaemu.matmul(a, a, "H100", input="fp16")
assert d.dtype == np.float32 and d.shape == (8, 8)
from mmaemu import _mmaemu_internal  # over the same libmmaemu_engine.so.0 (RUNPATH $ORIGIN)
assert _mmaemu_internal.__file__.startswith(site) and mmaemu.Model("H100").units
try:
    import torch
except ImportError:
    print("torch not installed: mmaemu.torch not imported")
else:
    with mmaemu.torch.emulate("H100", input="fp16") as mode:
        t = torch.from_numpy(a) @ torch.from_numpy(a)
    assert np.array_equal(t.numpy().view(np.uint32), d.view(np.uint32)) and mode.emulated["aten.mm.default"] == 1
print("import from outside the tree: mmaemu", mmaemu.__version__)
PY
"$work/venv/bin/mmaemu" models | grep -q '^H100 '
"$work/venv/bin/mmaemu" validate "$("$py" -m mmaemu data)/refdata" | tail -1 | grep -q ' 0 mismatches'
[ "$("$work/venv/bin/mmaemu-run" --model H100 --input fp16 -- "$py" -c 'import mmaemu; print(*mmaemu.shim_setting())')" = "H100 fp16" ]
echo "entry points: mmaemu, mmaemu-run"

# A wheel.
(cd "$tree" && "$py" -m build --no-isolation --wheel --outdir "$work/dist" . >/dev/null)
wheel=$(ls "$work"/dist/libmmaemu-*.whl)
"$py" - "$wheel" <<'PY'
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
for want in ("mmaemu/__init__.py", "mmaemu/libmmaemu.so.0", "mmaemu/libmmaemu_engine.so.0", "mmaemu/bin/mmaemu", "mmaemu/_mmaemu.pyi", "mmaemu/py.typed",
             "mmaemu/torch/_mode.py", "mmaemu/data/LICENCE", "mmaemu/data/refdata-errata.txt"):
    assert want in names, want
assert any(n.startswith("mmaemu/_mmaemu.") and n.endswith(".so") for n in names)
assert any(n.startswith("mmaemu/_mmaemu_internal.") and n.endswith(".so") for n in names)
assert not [n for n in names if n.startswith("mmaemu/libmmaemu") and n not in ("mmaemu/libmmaemu.so.0", "mmaemu/libmmaemu_engine.so.0")], names
assert any(n.startswith("mmaemu/data/hwdata/") for n in names) and any(n.startswith("mmaemu/data/refdata/") for n in names)
print("wheel:", sys.argv[1].rsplit("/", 1)[-1], len(names), "files")
PY

if [ "$mode" = full ]; then
  (cd "$tree" && "$py" -m build --no-isolation --sdist --outdir "$work/dist" . >/dev/null)
  mkdir "$work/sdist"
  tar -xzf "$work"/dist/libmmaemu-*.tar.gz -C "$work/sdist"
  cmake -S "$work"/sdist/libmmaemu-* -B "$work/sdist-build" -DMMAEMU_BUILD_TESTS=OFF -DMMAEMU_BUILD_BENCH=OFF \
    -DMMAEMU_BUILD_TOOLS=OFF -DPython3_EXECUTABLE="$py" >/dev/null
  echo "source distribution: configures"
fi

"$py" -m pip uninstall -q -y libmmaemu
left=$(ls "$site" | grep -i mmaemu || true)
[ -z "$left" ] || { echo "left in site-packages after uninstall: $left"; exit 1; }
[ ! -e "$work/venv/bin/mmaemu" ] && [ ! -e "$work/venv/bin/mmaemu-run" ]
echo "pip install test ($mode) passed"
