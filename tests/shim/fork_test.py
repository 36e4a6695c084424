# SPDX-License-Identifier: BSD-3-Clause
"""Fork safety under the preload: numpy's a @ a after the
parent's own emulated (threaded) product, in a multiprocessing fork Pool.
The children must return the parent's bits; a hang fails by the timeout."""
import multiprocessing
import sys

import numpy as np

rng = np.random.default_rng(10)
a = rng.standard_normal((200, 200)).astype(np.float32)


def product(_):
    return (a @ a).tobytes()


if __name__ == "__main__":
    want = (a @ a).tobytes()
    with multiprocessing.get_context("fork").Pool(2) as pool:
        result = pool.map_async(product, range(4))
        try:
            got = result.get(timeout=60)
        except multiprocessing.TimeoutError:
            print("fork: the children hung in their product")
            pool.terminate()
            sys.exit(1)
    bad = sum(g != want for g in got)
    print(f"fork: {len(got) - bad} passed, {bad} failed")
    sys.exit(bad != 0)
