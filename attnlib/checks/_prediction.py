"""TEMPORARY stand-in for the lead's ``compare_prediction`` (issue 38, item 6).

Branch ed2-ch0911 needs it to execute its chapters before main has it; drop this
file and its import when main's version lands.
"""

from __future__ import annotations

import numpy as np


def compare_prediction(prediction, actual, *, what: str = "the value") -> None:
    """Print how close a recorded prediction was to the value the run gave."""
    p = np.atleast_1d(np.asarray(prediction, dtype=float))
    a = np.atleast_1d(np.asarray(actual, dtype=float))
    if p.shape != a.shape:
        print(f"{what}: your prediction has {p.size} numbers, the run gave {a.size}.")
        return
    parts = []
    for pi, ai in zip(p, a):
        scale = max(abs(ai), 1e-12)
        parts.append(f"predicted {pi:.3g}, got {ai:.3g} ({abs(pi - ai) / scale:.0%} off)")
    print(f"{what}: " + "; ".join(parts))
