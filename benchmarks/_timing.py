"""Timing shared by the benchmarks: the median of several runs, robust to a busy machine."""

import time

import numpy as np


def median_seconds(fn, repeats: int) -> float:
    """Median wall-clock time of ``fn()`` over ``repeats`` calls."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times))
