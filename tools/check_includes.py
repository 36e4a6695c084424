#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The include rules of the source tree (docs/building.md, "Layers").

1. Inside src/, a file includes only its own layer or a lower one:
   formats < models < {ref, kernels} < driver < ozaki < api
   < {validate, probe} < experiments < cli. Siblings ({ref, kernels}, {validate, probe}) do not
   include each other.
2. python/, bench/ and blas_shim/ include src/ internals only through the
   internal C++ target mmaemu_internal: a file that does so is listed in
   INTERNAL_USERS with the CMake target that compiles it, and that target
   links mmaemu_internal.

Usage: check_includes.py REPO_ROOT. Prints every violation; exit status 1 if
there is one.
"""
import os
import re
import sys

LAYERS = {
    "formats": 0, "models": 1, "ref": 2, "kernels": 2, "driver": 3, "ozaki": 4, "api": 5,
    "validate": 6, "probe": 6, "experiments": 7, "cli": 8,
}
TOOL_DIRS = ("python", "bench", "blas_shim")

# Files outside src/ that include internals, and the target compiling them
# (which must link mmaemu_internal).
INTERNAL_USERS = {
    "python/src/analysis.cpp": "mmaemu_python_internal",
    "python/src/distinguish.cpp": "mmaemu_python_internal",
}

# Known violations, each to be removed with the code that needs it.
KNOWN_EXCEPTIONS = set()

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)
SOURCE_EXT = (".h", ".hpp", ".cpp", ".cc", ".c", ".cu", ".cuh")


def sources(root, top):
    for d, dirs, files in os.walk(os.path.join(root, top)):
        dirs[:] = sorted(x for x in dirs if not x.startswith(("build", ".")))
        for f in sorted(files):
            if f.endswith(SOURCE_EXT):
                yield os.path.relpath(os.path.join(d, f), root)


def includes(root, rel):
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    for m in INCLUDE.finditer(text):
        yield text.count("\n", 0, m.start()) + 1, m.group(1)


def internal_layer(root, rel, inc):
    """The src/ layer that `inc` (as written in `rel`) names, or None."""
    if os.path.exists(os.path.join(root, os.path.dirname(rel), inc)):
        target = os.path.normpath(os.path.join(os.path.dirname(rel), inc))
    elif os.path.exists(os.path.join(root, "src", inc)):
        target = os.path.normpath(os.path.join("src", inc))
    else:
        return None
    parts = target.split(os.sep)
    if len(parts) >= 3 and parts[0] == "src" and parts[1] in LAYERS:
        return parts[1]
    return None


def cmake_links(root):
    """target -> the words of its target_link_libraries calls, over every CMakeLists.txt."""
    links = {}
    call = re.compile(r"target_link_libraries\s*\(\s*([A-Za-z0-9_]+)([^)]*)\)", re.S)
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if not x.startswith(("build", "."))]
        if "CMakeLists.txt" in files:
            with open(os.path.join(d, "CMakeLists.txt"), encoding="utf-8") as fh:
                text = re.sub(r"#[^\n]*", "", fh.read())
            for m in call.finditer(text):
                links.setdefault(m.group(1), set()).update(m.group(2).split())
    return links


def check(root):
    errors = []
    for rel in sources(root, "src"):
        own = rel.split(os.sep)[1]
        if own not in LAYERS:
            continue
        for line, inc in includes(root, rel):
            layer = internal_layer(root, rel, inc)
            if layer is None or layer == own:
                continue
            if LAYERS[layer] > LAYERS[own]:
                errors.append(f"{rel}:{line}: {own} includes the higher layer {layer} (\"{inc}\")")
            elif LAYERS[layer] == LAYERS[own]:
                errors.append(f"{rel}:{line}: {own} includes its sibling {layer} (\"{inc}\")")
    links = cmake_links(root)
    for top in TOOL_DIRS:
        for rel in sources(root, top):
            for line, inc in includes(root, rel):
                if internal_layer(root, rel, inc) is None or (rel, inc) in KNOWN_EXCEPTIONS:
                    continue
                target = INTERNAL_USERS.get(rel)
                if target is None:
                    errors.append(f"{rel}:{line}: includes the internal header \"{inc}\" "
                                  "(use the C API, or list the file and its target in INTERNAL_USERS)")
                elif "mmaemu_internal" not in links.get(target, ()):
                    errors.append(f"{rel}:{line}: includes \"{inc}\", but its target {target} "
                                  "does not link mmaemu_internal")
    return errors


def main():
    if len(sys.argv) != 2:
        print("usage: check_includes.py REPO_ROOT", file=sys.stderr)
        return 2
    errors = check(sys.argv[1])
    for e in errors:
        print(e)
    print(f"check_includes: {len(errors)} violation(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
