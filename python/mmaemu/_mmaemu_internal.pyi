# SPDX-License-Identifier: BSD-3-Clause
# Type stubs of the compiled module that reads the internal libraries
# (python/src/internal.cpp, analysis.cpp, distinguish.cpp); checked by python/tests/test_package.py.
from typing import Any, Dict, List, Optional, Union

import numpy as np

from ._mmaemu import Model

def probe(model: str, input: str, output: Optional[str] = None, instr: Optional[str] = None) -> Dict[str, Any]: ...
def compare(a: np.ndarray, b: np.ndarray, models: Optional[List[Union[str, Model]]] = None, *, input: str = "fp16",
            output: Optional[str] = None, threads: int = 0) -> List[Dict[str, Any]]: ...
def distinguish(a: str, b: str, *, input: str = "fp16", output: Optional[str] = None,
                input2: Optional[str] = None, k: int = 0,
                samples: int = 1000000, seed: int = 1, distributions: Optional[List[str]] = None,
                threads: int = 0) -> Dict[str, Any]: ...
