"""What the benchmark scripts share: the best CPU time of a few calls."""

from __future__ import annotations

import time

import numpy as np


def best_cpu(fn, repeat):
    """The least CPU seconds (this process) of ``repeat`` calls of ``fn``, and the last
    call's result."""
    best, out = np.inf, None
    for _ in range(repeat):
        start = time.process_time()
        out = fn()
        best = min(best, time.process_time() - start)
    return best, out
