#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Which reading a GPU follows on the decisive vectors (docs/models.md §9).

    tools/hwcheck/decide.py OUT [DECISIVE_TXT]

OUT is the output root of mmaemu-hwcheck (OUT/<instr>/<GPU>/<fmt>/ with
sets.txt and the d_ files); DECISIVE_TXT defaults to the decisive.txt beside
this script. For every decisive vector the run covered (its instruction, a
GPU of its list, its input format), prints the hardware's output beside
libmmaemu's, the alternative reading's and MMA-Sim's, and the verdict. Exits 1
when some vector follows neither libmmaemu nor its alternative (a reading no
model has), 2 on bad input, else 0.
"""
import math
import os
import struct
import sys

FOLDER = {"fp16": "fp16", "bf16": "bf16", "tf32": "tf32", "e4m3": "E4M3", "e5m2": "E5M2"}


def fail(msg):
    print("decide.py: " + msg, file=sys.stderr)
    sys.exit(2)


def load_vectors(path):
    vectors = []
    with open(path) as f:
        for n, text in enumerate(f, 1):
            cols = text.split("#", 1)[0].split()
            if not cols:
                continue
            if len(cols) != 12:
                fail("%s:%d: 12 columns expected, got %d" % (path, n, len(cols)))
            keys = ("id", "gpus", "instr", "in", "out", "c", "a", "b", "lib", "alt", "alt_out", "mmasim")
            v = dict(zip(keys, cols))
            v["gpus"] = v["gpus"].split(",")
            vectors.append(v)
    return vectors


def widen(fmt, code):
    """fp32 bits of a code of `fmt` (fp32 or fp16: the d_ files' widening)."""
    x = int(code, 16)
    if fmt == "fp32":
        return x
    if fmt != "fp16":
        fail("output format %s is not one the harness writes" % fmt)
    sign, e, m = x >> 15, (x >> 10) & 31, x & 1023
    if e == 31:
        value = math.nan if m else math.inf
    elif e == 0:
        value = math.ldexp(m, -24)
    else:
        value = math.ldexp(1024 + m, e - 25)
    bits = struct.unpack("<I", struct.pack("<f", value))[0]
    if e == 31 and m:
        bits = 0x7F800000 | (m << 13)
    return bits | (sign << 31)


def is_nan(bits):
    return (bits & 0x7F800000) == 0x7F800000 and bits & 0x7FFFFF


def same(x, y):
    return x == y or (is_nan(x) and is_nan(y))


def read_sets(path):
    sets = {}
    with open(path) as f:
        for text in f:
            cols = text.split()
            if len(cols) == 3 and not cols[0].startswith("#"):
                sets[cols[0]] = int(cols[1])
    return sets


def read_line(path, index):
    with open(path) as f:
        for n, text in enumerate(f):
            if n == index:
                text = text.strip()
                if len(text) != 32 or set(text) - {"0", "1"}:
                    fail("%s:%d: not a 32-character binary line" % (path, n + 1))
                return int(text, 2)
    fail("%s: no line %d" % (path, index + 1))


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0 if len(argv) >= 2 else 2
    out = argv[1]
    table = argv[2] if len(argv) > 2 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "decisive.txt")
    if not os.path.isdir(out):
        fail("no such directory: " + out)
    vectors = load_vectors(table)
    seen, neither = 0, 0
    for instr in sorted(os.listdir(out)):
        for gpu in sorted(os.listdir(os.path.join(out, instr))) if os.path.isdir(os.path.join(out, instr)) else []:
            for v in vectors:
                row_instr = "mma.sync" if instr == "wmma" else instr  # wmma lowers to mma.sync's HMMA
                if v["instr"] != row_instr or gpu not in v["gpus"] or v["in"] not in FOLDER:
                    continue
                folder = os.path.join(out, instr, gpu, FOLDER[v["in"]])
                sets_txt = os.path.join(folder, "sets.txt")
                d_txt = os.path.join(folder, "d_%s_%s.txt" % (gpu, v["out"]))
                if not (os.path.exists(sets_txt) and os.path.exists(d_txt)):
                    continue
                line = read_sets(sets_txt).get("decisive:" + v["id"])
                if line is None:
                    continue
                hw = read_line(d_txt, line)
                lib = widen(v["out"], v["lib"])
                alt = widen(v["out"], v["alt_out"]) if v["alt"] != "-" else None
                if same(hw, lib):
                    verdict = "libmmaemu"
                elif alt is not None and same(hw, alt):
                    verdict = "the alternative (custom:base=%s,%s)" % (gpu, v["alt"])
                else:
                    verdict = "NEITHER"
                    neither += 1
                seen += 1
                print("%-3s %-10s %-9s %s->%s: hardware 0x%08x, libmmaemu 0x%08x, alternative %s, MMA-Sim %s: follows %s"
                      % (v["id"], gpu, instr, v["in"], v["out"], hw, lib,
                         "0x%08x" % alt if alt is not None else "-", v["mmasim"], verdict))
    if not seen:
        print("no decisive vector in %s (run mmaemu-hwcheck with --decisive)" % out)
    return 1 if neither else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
