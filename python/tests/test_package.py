# SPDX-License-Identifier: BSD-3-Clause
"""The package around the extension: the type stubs against the compiled
module's own signatures, the version, the launcher's paths, one engine per
process."""
import ast
import os
import re
import subprocess
import sys

import pytest

import mmaemu
from mmaemu import _mmaemu, _mmaemu_internal

MODULES = [_mmaemu, _mmaemu_internal]


def stub_tree(module):
    with open(os.path.join(os.path.dirname(mmaemu.__file__), module.__name__.split(".")[-1] + ".pyi")) as f:
        return ast.parse(f.read())


def params(fn):
    """[(name, kind, default)] of an ast function definition; kind: 'pos' or 'kw'."""
    a = fn.args
    pos = a.posonlyargs + a.args
    defaults = [None] * (len(pos) - len(a.defaults)) + [ast.literal_eval(d) for d in a.defaults]
    out = [(p.arg, "pos", "required" if d is None and i < len(pos) - len(a.defaults) else d)
           for i, (p, d) in enumerate(zip(pos, defaults))]
    out += [(p.arg, "kw", "required" if d is None else ast.literal_eval(d))
            for p, d in zip(a.kwonlyargs, a.kw_defaults)]
    return out


def compiled_signature(obj, name):
    """The pybind11 signature line of a compiled function, parsed as a Python definition."""
    line = obj.__doc__.strip().split("\n")[0]
    assert line.startswith(name + "("), line
    return ast.parse("def " + line.split(" -> ")[0] + ": pass").body[0]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_stub_names_are_the_module_names(module):
    tree = stub_tree(module)
    stubbed = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    public = {n for n in dir(module) if not n.startswith("_")}
    assert stubbed - {"ModelArg"} == public, (f"in the stub only: {sorted(stubbed - public)}; "
                                              f"in the module only: {sorted(public - stubbed)}")


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_stub_signatures_are_the_module_signatures(module):
    tree = stub_tree(module)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            got = params(node)
            want = params(compiled_signature(getattr(module, node.name), node.name))
            assert got == want, f"{node.name}: stub {got}, module {want}"
        elif isinstance(node, ast.ClassDef) and node.name == "Model":
            for item in node.body:
                if not isinstance(item, ast.FunctionDef) or item.name == "__init__":
                    continue
                attr = getattr(_mmaemu.Model, item.name)
                if isinstance(attr, property):
                    assert any(isinstance(d, ast.Name) and d.id == "property" for d in item.decorator_list), item.name
                else:
                    got = params(item)
                    want = params(compiled_signature(attr, item.name))
                    assert got == want, f"Model.{item.name}: stub {got}, module {want}"
            props = {n for n in dir(_mmaemu.Model) if isinstance(getattr(_mmaemu.Model, n), property)}
            stubbed = {i.name for i in node.body if isinstance(i, ast.FunctionDef)}
            assert props <= stubbed, f"Model properties without stubs: {sorted(props - stubbed)}"


def test_version():
    assert mmaemu.__version__ == mmaemu.version() and mmaemu.__version__.count(".") == 2


def test_launcher_paths():
    out = subprocess.run([sys.executable, "-m", "mmaemu", "data"], capture_output=True, text=True, check=True)
    data = out.stdout.strip()
    assert os.path.isdir(os.path.join(data, "refdata")) and os.path.isdir(os.path.join(data, "hwdata")), data
    out = subprocess.run([sys.executable, "-m", "mmaemu", "library"], capture_output=True, text=True, check=True)
    assert os.path.exists(out.stdout.strip())


ENGINE = re.compile(r"^mmaemu::(ref|driver|fast|kernels)::")


def symbols(path, dynamic):
    """{mangled name: (type, demangled name)} of the symbols an ELF file defines."""
    args = ["nm", "--defined-only"] + (["-D"] if dynamic else []) + [path]
    mangled = subprocess.run(args, capture_output=True, text=True, check=True).stdout.splitlines()
    demangled = subprocess.run(args[:1] + ["-C"] + args[1:], capture_output=True, text=True, check=True).stdout
    out = {}
    for m, d in zip(mangled, demangled.splitlines()):
        parts = m.split(" ", 2)
        if len(parts) == 3:
            out[parts[2]] = (parts[1], d.split(" ", 2)[2])
    return out


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_one_engine_per_process(module):
    """Each extension needs libmmaemu.so.0 (the copy beside it, RUNPATH $ORIGIN), which needs the
    engine, libmmaemu_engine.so.0 (beside it too); neither the extension nor libmmaemu.so.0
    defines any of the engine's functions (ref, kernels (fast), driver): the process holds the one
    engine in libmmaemu_engine.so.0. A statically linked engine defines them in the extension
    (local symbols, same names)."""
    here = os.path.dirname(module.__file__)
    library = os.path.join(here, "libmmaemu.so.0")
    for path in (module.__file__, library):
        dynamic = subprocess.run(["readelf", "-d", path], capture_output=True, text=True, check=True).stdout
        needs = "libmmaemu.so.0" if path == module.__file__ else "libmmaemu_engine.so.0"
        assert f"Shared library: [{needs}]" in dynamic, dynamic
        assert "Library runpath: [$ORIGIN]" in dynamic, dynamic
    engine_library = os.path.join(here, "libmmaemu_engine.so.0")
    engine = {name for name, (kind, shown) in symbols(engine_library, True).items()
              if kind == "T" and ENGINE.match(shown)}
    assert len(engine) > 50, f"{engine_library} exports only {len(engine)} engine functions"
    for path in (module.__file__, library):
        own = symbols(path, False)
        if not own:
            pytest.skip(f"{path} is stripped: no symbol table to read")
        twice = sorted(own[name][1] for name in engine & own.keys())
        assert not twice, f"{path} defines {len(twice)} engine functions of its own, e.g. {twice[:3]}"
