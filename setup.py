# SPDX-License-Identifier: BSD-3-Clause
"""The setuptools side of pyproject.toml: a build_ext that runs CMake.

It configures this repository in the build directory (tests, bench and
hardware tools off), builds the targets mmaemu (libmmaemu.so), mmaemu_python
and mmaemu_python_internal (the extensions) and mmaemu_cli, and places inside
the package:

    mmaemu/_mmaemu.<abi>.so   the extension (the C API of libmmaemu.so.0)
    mmaemu/_mmaemu_internal.<abi>.so  probe, compare, distinguish (over libmmaemu.so.0)
    mmaemu/libmmaemu.so.0     the library (C API, BLAS shim for `mmaemu-run`)
    mmaemu/libmmaemu_engine.so.0  its engine (internal; found beside it, RUNPATH $ORIGIN)
    mmaemu/bin/mmaemu         the CLI (the `mmaemu` entry point runs it)
    mmaemu/data/              the bundled hardware and reference data

Environment:
    MMAEMU_CMAKE_BUILD_DIR  build in this existing CMake build tree instead
                            of a fresh one (it must be configured; an
                            incremental `cmake --build` brings it up to date)
    MMAEMU_CMAKE_ARGS       more arguments for the configure step
    CMAKE_BUILD_PARALLEL_LEVEL  build jobs (default 2)
"""
import os
import re
import shlex
import shutil
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
TARGETS = ["mmaemu", "mmaemu_engine", "mmaemu_python", "mmaemu_python_internal", "mmaemu_cli"]


def project_version():
    """The version of CMakeLists.txt's project(), the one source of mmaemu_version()."""
    match = re.search(r"project\(libmmaemu\s+VERSION\s+([0-9][0-9.]*)", (ROOT / "CMakeLists.txt").read_text())
    if not match:
        raise RuntimeError("setup.py: no `project(libmmaemu VERSION x.y.z` in CMakeLists.txt")
    return match.group(1)


class CMakeBuild(build_ext):
    """Builds the one extension, _mmaemu, and the files around it with CMake."""

    def build_extension(self, ext):
        build_dir = os.environ.get("MMAEMU_CMAKE_BUILD_DIR")
        if build_dir:
            build_dir = Path(build_dir).resolve()
            if not (build_dir / "CMakeCache.txt").exists():
                raise RuntimeError(f"MMAEMU_CMAKE_BUILD_DIR={build_dir} is not a configured CMake build tree")
        else:
            build_dir = Path(self.build_temp).resolve() / "cmake"
            self.configure(build_dir)
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "2")
        self.spawn(["cmake", "--build", str(build_dir), "--target", *TARGETS, "-j", jobs])

        package = Path(self.get_ext_fullpath(ext.name)).resolve().parent  # .../mmaemu
        package.mkdir(parents=True, exist_ok=True)
        built = build_dir / "python" / "mmaemu"
        for name in os.listdir(built):  # the extensions, the library and its engine under their sonames
            if ((name.startswith("_mmaemu") and name.endswith(".so"))
                    or re.fullmatch(r"libmmaemu(_engine)?\.so\.[0-9]+", name)):
                self.copy(built / name, package / name)
        (package / "bin").mkdir(exist_ok=True)
        self.copy(build_dir / "src" / "mmaemu", package / "bin" / "mmaemu")
        data = package / "data"
        if data.exists():
            shutil.rmtree(data)
        shutil.copytree(build_dir / "data", data, ignore=shutil.ignore_patterns(".stamp"))
        for name in ("LICENCE", "refdata-errata.txt"):
            self.copy(ROOT / "tests" / "data" / name, data / name)

    def configure(self, build_dir):
        args = ["cmake", "-S", str(ROOT), "-B", str(build_dir), "-DCMAKE_BUILD_TYPE=Release",
                f"-DPython3_EXECUTABLE={sys.executable}", "-DMMAEMU_BUILD_PYTHON=ON", "-DMMAEMU_BUILD_TESTS=OFF",
                "-DMMAEMU_BUILD_BENCH=OFF", "-DMMAEMU_BUILD_TOOLS=OFF"]
        try:  # pybind11's CMake files, where the Python package pybind11 has them
            import pybind11
            args.append(f"-Dpybind11_DIR={pybind11.get_cmake_dir()}")
        except ImportError:
            pass
        args += shlex.split(os.environ.get("MMAEMU_CMAKE_ARGS", ""))
        self.spawn(args)

    def copy(self, src, dst):
        if not Path(src).exists():
            raise RuntimeError(f"setup.py: CMake did not make {src}")
        shutil.copy2(src, dst)


# The build base out of the way of CMake's usual build/ (both are ignored by git).
os.makedirs(ROOT / "build-py", exist_ok=True)
setup(
    version=project_version(),
    package_dir={"": "python"},
    packages=["mmaemu", "mmaemu.torch"],
    package_data={"mmaemu": ["py.typed", "*.pyi"]},
    ext_modules=[Extension("mmaemu._mmaemu", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    options={"build": {"build_base": "build-py"}, "egg_info": {"egg_base": "build-py"}},
)
