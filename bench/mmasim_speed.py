#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Dot products per second of MMA-Sim (Xie et al., arXiv 2511.10909), one thread,
on the work that `mmaemu-bench --batch` times for H100: fp16 inputs with fp32
accumulation, k = 16, and OCP e4m3 with the 13-bit fp32 result, k = 32.

    /usr/bin/python3 bench/mmasim_speed.py PATH_TO_MMA_SIM_CHECKOUT [--reps N] [--seconds S]

MMA-Sim has no batched entry: its fastest call is one instruction
on whole tiles, which computes each of the m*n dot products in turn (its
per-dot `dotadd` runs a whole tile for one result). Timed here:
`simulator.nv_ptx.mma("Hopper", "m16n8k16.f32.f16.f16.f32")` (128 dots a call)
and `simulator.nv_ptx.wgmma("Hopper", "m64n8k32.f32.e4m3.e4m3")` (512 dots a
call; MMA-Sim has no Hopper mma.sync fp8 design), on random normal A, B and C,
CPU time of this process per repetition. MMA-Sim is only imported and run.

MMA-Sim's tables name torch's float8 dtypes. With a torch that lacks some
(Debian's 1.13 has none) the missing dtype names are set to placeholder
objects before the import, so that the fp16 instruction runs unchanged; the
e4m3 instruction then runs with its e4m3 values (rounded here with numpy)
carried in fp16 tensors, which MMA-Sim's arithmetic decomposes into the same
significands and exponents. The output says which was run.

--check first compares the bits of the timed tiles with libmmaemu's
mmaemu.dot (PYTHONPATH=build/python): evidence that the run does the real work.

Not a test and not run in CI.
"""
import argparse
import os
import statistics
import sys
import time

for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_var] = "1"

try:
    import numpy as np
except ImportError:
    sys.exit("mmasim_speed.py: numpy is missing (use Debian's /usr/bin/python3, or install python3-numpy)")

FLOAT8_NAMES = ("float8_e4m3fn", "float8_e5m2", "float8_e8m0fnu", "float8_e4m3fnuz", "float8_e5m2fnuz")


def load_mmasim(path):
    """Imports MMA-Sim's simulator from a checkout; returns (its nv_ptx module, torch, whether torch lacks e4m3)."""
    if not os.path.isfile(os.path.join(path, "mmasim", "simulator", "nv_ptx.py")):
        sys.exit(f"mmasim_speed.py: {path!r} is not an MMA-Sim checkout "
                 "(expected mmasim/simulator/nv_ptx.py inside it)")
    try:
        import torch
    except ImportError:
        sys.exit("mmasim_speed.py: MMA-Sim needs torch, which this Python lacks (Debian: python3-torch)")
    torch.set_num_threads(1)
    e4m3_missing = not hasattr(torch, "float8_e4m3fn")
    for name in FLOAT8_NAMES:
        if not hasattr(torch, name):
            setattr(torch, name, object())  # a placeholder: only names MMA-Sim's dtype tables
    sys.path.insert(0, os.path.abspath(path))
    from mmasim.simulator import nv_ptx
    return nv_ptx, torch, e4m3_missing


def round_to_e4m3(x):
    """OCP e4m3 values (RNE; |x| far below 448 here) of a float64 array."""
    exponent = np.maximum(np.floor(np.log2(np.maximum(np.abs(x), 2.0**-30))), -6)
    quantum = np.exp2(exponent - 3)
    return np.round(x / quantum) * quantum  # numpy rounds halves to even


def fp16_case(nv_ptx, torch, rng, tiles):
    inst = nv_ptx.mma("Hopper", "m16n8k16.f32.f16.f16.f32")
    args = [(torch.from_numpy(rng.standard_normal((16, 16))).to(torch.float16),
             torch.from_numpy(rng.standard_normal((16, 8))).to(torch.float16),
             torch.from_numpy(rng.standard_normal((16, 8))).to(torch.float32)) for _ in range(tiles)]
    return "H100 mma m16n8k16 fp16->fp32, k=16", inst, args


def e4m3_case(nv_ptx, torch, rng, tiles, carried_in_fp16):
    inst = nv_ptx.wgmma("Hopper", "m64n8k32.f32.e4m3.e4m3")
    carrier = torch.float16 if carried_in_fp16 else torch.float8_e4m3fn
    if carried_in_fp16:
        inst.a_type = inst.b_type = torch.float16  # the 13-bit accumulation set above is kept

    def operand(rows, cols):
        return torch.from_numpy(round_to_e4m3(rng.standard_normal((rows, cols)))).to(carrier)

    args = [(operand(64, 32), operand(32, 8), torch.from_numpy(rng.standard_normal((64, 8))).to(torch.float32))
            for _ in range(tiles)]
    note = " (e4m3 values in fp16 tensors: this torch has no float8)" if carried_in_fp16 else ""
    return "H100 wgmma m64n8k32 e4m3->fp32, k=32" + note, inst, args


def check_against_mmaemu(label, inst, args):
    """Bit comparison of MMA-Sim's tiles with libmmaemu's mmaemu.dot on the same dot products."""
    try:
        import mmaemu
    except ImportError:
        sys.exit("mmasim_speed.py: --check needs libmmaemu's Python package (PYTHONPATH=build/python)")
    e4m3 = inst.k == 32
    differing = total = 0
    for a_tile, b_tile, c_tile in args:
        want = inst(a_tile, b_tile, c_tile).numpy().astype(np.float32).reshape(-1).view(np.uint32)
        rows, cols = inst.m, inst.n
        a = np.repeat(a_tile.double().numpy(), cols, axis=0)
        b = np.tile(b_tile.double().numpy().T, (rows, 1))
        a, b = (mmaemu.convert(a, "e4m3"), mmaemu.convert(b, "e4m3")) if e4m3 else (a.astype(np.float16),
                                                                                      b.astype(np.float16))
        got = np.asarray(mmaemu.dot("H100", a, b, c_tile.numpy().reshape(-1), input="e4m3" if e4m3 else "fp16",
                                    output="fp32")).astype(np.float32).view(np.uint32)
        differing += int((want != got).sum())
        total += want.size
    print(f"{label}: {total - differing} of {total} dot products bit-equal to libmmaemu's", flush=True)
    return differing == 0


def time_case(label, inst, args, reps, seconds):
    dots_per_call = inst.m * inst.n
    for a, b, c in args[:1]:
        inst(a, b, c)  # warm-up
    rates = []
    for _ in range(reps):
        calls, t0 = 0, time.process_time()
        while True:
            a, b, c = args[calls % len(args)]
            inst(a, b, c)
            calls += 1
            elapsed = time.process_time() - t0
            if elapsed >= seconds:
                break
        rates.append(calls * dots_per_call / elapsed)
    print(f"{label}: {statistics.median(rates):.4g} dot products per CPU-second, one thread "
          f"(median of {reps}; range {min(rates):.4g} .. {max(rates):.4g})", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("mmasim", help="path to an MMA-Sim checkout (the folder holding mmasim/)")
    parser.add_argument("--reps", type=int, default=5, help="repetitions per case (default 5)")
    parser.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per repetition (default 2)")
    parser.add_argument("--check", action="store_true",
                        help="first compare the timed tiles' bits with libmmaemu's (PYTHONPATH=build/python)")
    args = parser.parse_args()
    if args.reps < 1 or args.seconds <= 0:
        parser.error("--reps must be at least 1 and --seconds above 0")
    nv_ptx, torch, carried_in_fp16 = load_mmasim(args.mmasim)
    print(f"torch {torch.__version__}, numpy {np.__version__}, Python {sys.version.split()[0]}, "
          f"torch threads {torch.get_num_threads()}")
    rng = np.random.default_rng(2026)
    cases = (fp16_case(nv_ptx, torch, rng, 20), e4m3_case(nv_ptx, torch, rng, 5, carried_in_fp16))
    if args.check and not all([check_against_mmaemu(*case) for case in cases]):
        sys.exit("mmasim_speed.py: MMA-Sim and libmmaemu differ on these inputs; not timed")
    for case in cases:
        time_case(*case, args.reps, args.seconds)


if __name__ == "__main__":
    main()
