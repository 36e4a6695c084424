# SPDX-License-Identifier: BSD-3-Clause
"""Run by test_emulate.py under `python3 -m mmaemu run -- emulate_child.py CASE`:
numpy's (and torch's) BLAS calls inside `with mmaemu.emulate(...)` blocks
against mmaemu.matmul on the same operands, bit for bit."""
import sys
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

import mmaemu

rng = np.random.default_rng(21)
A = rng.standard_normal((40, 96)).astype(np.float32)
B = rng.standard_normal((96, 24)).astype(np.float32)


def same(x, y):
    return np.array_equal(np.ascontiguousarray(x).view(np.uint32), np.ascontiguousarray(y).view(np.uint32))


def expect(cond, what):
    if not cond:
        print(f"FAILED: {what}", flush=True)
        sys.exit(1)


def case_switch():
    native = A @ B
    h100 = mmaemu.matmul(A, B, "H100", input="fp16")
    mi300 = mmaemu.matmul(A, B, "MI300X")  # its default policy: the fp32 unit
    expect(not same(native, h100) and not same(h100, mi300), "the three settings give different bits here")
    expect(mmaemu.shim_setting() == ("", ""), f"no model at start: {mmaemu.shim_setting()}")
    with mmaemu.emulate("H100", input="fp16"):
        expect(mmaemu.shim_setting() == ("H100", "fp16"), "setting inside")
        expect(same(A @ B, h100), "numpy matmul under H100 fp16")
        expect(same(np.dot(A, B), h100), "np.dot under H100 fp16")
        with mmaemu.emulate(mmaemu.Model("MI300X")):
            expect(same(A @ B, mi300), "nested MI300X")
            with mmaemu.emulate(None):
                expect(same(A @ B, native), "emulate(None): the system BLAS")
            expect(same(A @ B, mi300), "MI300X restored after emulate(None)")
        expect(same(A @ B, h100), "H100 restored after the nested block")
        try:
            with mmaemu.emulate("H101"):
                expect(False, "unknown model accepted")
        except mmaemu.Error as e:
            expect("valid models" in str(e), f"message lists the models: {e}")
        try:
            with mmaemu.emulate("V100", input="bf16"):
                expect(False, "unsupported policy accepted")
        except mmaemu.Error as e:
            expect("V100 has no unit for bf16" in str(e), str(e))
        expect(same(A @ B, h100), "a failed switch leaves the setting unchanged")
    expect(mmaemu.shim_setting() == ("", "") and same(A @ B, native), "system BLAS after the block")
    try:
        with mmaemu.emulate("H100"):
            raise KeyError("inside")
    except KeyError:
        pass
    expect(same(A @ B, native), "restored after an exception")


def case_threads():
    h100 = mmaemu.matmul(A, B, "H100", input="fp16")
    bf16 = mmaemu.matmul(A, B, "H100", input="bf16")
    with mmaemu.emulate("H100", input="fp16"):  # process-wide: worker threads use it too
        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(lambda _: A @ B, range(16)))
    expect(all(same(r, h100) for r in results), "worker threads inside the block")
    # One thread switches back and forth while another computes: every call
    # runs under one whole setting.
    stop = threading.Event()

    def switcher():
        while not stop.is_set():
            with mmaemu.emulate("H100", input="fp16"):
                with mmaemu.emulate("H100", input="bf16"):
                    pass

    with mmaemu.emulate("H100", input="bf16"):
        t = threading.Thread(target=switcher)
        t.start()
        seen = [A @ B for _ in range(100)]
        stop.set()
        t.join()
    expect(all(same(r, h100) or same(r, bf16) for r in seen), "each call under one whole setting")


def case_launcher_model():
    expect(mmaemu.shim_setting() == ("H100", "tf32"), f"--model H100: {mmaemu.shim_setting()}")
    expect(same(A @ B, mmaemu.matmul(A, B, "H100")), "--model H100 from the start, default policy tf32")


def case_verbose():
    with mmaemu.emulate("H100", input="fp16"):
        A @ B
    with mmaemu.emulate("MI300X"):
        A @ B
        A @ B


def case_torch():
    import torch
    torch.backends.mkldnn.enabled = False
    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Linear(96, 48, bias=False), torch.nn.ReLU(),
                              torch.nn.Linear(48, 10, bias=False))
    x = torch.from_numpy(A)
    with torch.no_grad(), mmaemu.emulate("H100"):
        y = net(x).numpy()
        w1, w2 = net[0].weight.numpy(), net[2].weight.numpy()
    h = np.maximum(mmaemu.matmul(A, w1.T, "H100"), 0)
    expect(same(y, mmaemu.matmul(h, w2.T, "H100")), "torch linear layers under H100")
    with torch.no_grad():
        expect(not same(net(x).numpy(), y), "outside the block torch uses its own BLAS result")


if __name__ == "__main__":
    globals()["case_" + sys.argv[1]]()
    print("OK")
